"""Item 2: hostile queries and scope values through search, recall and list never error; JSON stays valid.

In-process through `Store` (hypothesis plus a fixed list) and a sample through the CLI (`--json`,
`--` before a query that starts with '-'). `bench/reliability_bench.py --only queries` runs the
full 1,000 generated cases over a 3,000-file store. The bugs this found (lone surrogates, odd scope
types, huge tag and facet lists, undecodable argv) are fixed; the tests at the bottom pin each fix.
"""

from __future__ import annotations

import json
import random

import pytest
from hardening_support import copy_demo, run_cli
from hostile_queries import (
    AS_OF,
    ENTITIES,
    FACETS,
    FIXED_QUERIES,
    PARAS,
    TYPES,
    hostile_query,
    hostile_scope_kwargs,
    json_roundtrip,
    run_query_case,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store

FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = copy_demo(tmp_path_factory.mktemp("queries") / "store")
    index = root.parent / "index.db"
    store = Store(root, index_path=index)
    report = store.index()
    assert report.added >= 60  # the demo store holds one deliberately invalid file
    yield store, root, index
    store.close_thread_connection()


def assert_all_ok(outcomes) -> None:
    bad = [o for o in outcomes if not o.ok]
    assert not bad, bad


# -- in-process --------------------------------------------------------------------------------


@pytest.mark.parametrize("query", FIXED_QUERIES, ids=lambda q: repr(q[:24]))
def test_fixed_hostile_queries(indexed, query):
    store, _, _ = indexed
    assert_all_ok(run_query_case(store, query, {}))


FIXED_SCOPES = (
    *({"entity": e} for e in ENTITIES),
    *({"facets": [f]} for f in FACETS if "=" in f),
    *({"as_of": a} for a in AS_OF),
    *({"para": p} for p in PARAS),
    *({"memory_types": [t]} for t in TYPES),
    *({"workspace": w} for w in ("..", "../..", "/", "%", "_", "a'b", "\x00")),
    {"tags": [f"t{i}" for i in range(5_000)]},
    {"tags": ["", " ", "%", "\x00", "deploy"]},
    {"facets": ["tier=1", "tier=2", "doc-type=runbook", "doc-type=a=b"]},
    {"include_archived": True, "as_of": "x"},
)


@pytest.mark.parametrize("scope_kwargs", FIXED_SCOPES, ids=lambda kw: repr(kw)[:40])
def test_fixed_hostile_scopes(indexed, scope_kwargs):
    store, _, _ = indexed
    for query in ("deploy", "", '"vip drain" -x NOT'):
        assert_all_ok(run_query_case(store, query, scope_kwargs, cursor=".."))


def test_a_facet_without_an_equals_sign_is_refused_with_a_message(indexed):
    store, _, _ = indexed
    (outcome,) = run_query_case(store, "deploy", {"facets": ["no-equals-sign"]})
    assert outcome.refused and "NAME=VALUE" in outcome.error


def test_generated_corpus_sample(indexed):
    """200 cases from the bench's generator (seeded), the same code path the bench runs 1,000 times."""
    store, _, _ = indexed
    rng = random.Random(20260901)
    for _ in range(200):
        outcomes = run_query_case(
            store,
            hostile_query(rng),
            hostile_scope_kwargs(rng),
            cursor=rng.choice((None, "", "..", "\x00", "areas/", "zzz")),
        )
        assert_all_ok(outcomes)


scope_text = st.text(max_size=40) | st.sampled_from(ENTITIES + FACETS + AS_OF + PARAS + TYPES)


@FAST
@given(
    query=st.text(max_size=300) | st.sampled_from(FIXED_QUERIES),
    memory_types=st.lists(st.sampled_from(TYPES) | st.text(max_size=10), max_size=4),
    workspace=st.none() | scope_text,
    tags=st.lists(scope_text, max_size=8),
    entity=st.none() | scope_text,
    facets=st.lists(
        st.tuples(st.text(max_size=12), st.text(max_size=12)).map(lambda p: f"{p[0]}={p[1]}")
        | st.sampled_from([f for f in FACETS if "=" in f]),
        max_size=5,
    ),
    as_of=st.none() | scope_text,
    para=st.none() | scope_text,
    include_archived=st.booleans(),
)
def test_property_search_recall_list_never_error(indexed, query, **scope_kwargs):
    store, _, _ = indexed
    assert_all_ok(run_query_case(store, query, scope_kwargs))


# -- through the CLI ---------------------------------------------------------------------------

CLI_CASES = (
    ["search", "--json", "--", "-deploy"],
    ["search", "--json", "--", "--"],
    ["search", "--json", "--", "-"],
    ["search", "--json", 'NEAR(a b) AND "x OR'],
    ["search", "--json", "'; DROP TABLE files; --"],
    ["search", "--json", "x" * 10_000],
    ["search", "--json", "\x1b[31m😀\x07"],
    ["search", "--json", "--entity", "a'b:%_", "--tag", "%", "--facet", "a=b=c", "--workspace", "..", "--", "-x"],
    ["search", "--json", "--as-of", "2026-01-01T00:00:00+14:00", "--type", "bogus", "--type", "task", "deploy"],
    ["recall", "--json", "--", '-rollback NOT "vip'],
    ["recall", "--json", "--facet", "=", "--entity", "::", "*^()"],
    ["list", "--json", "--entity", "service:%", "--tag", "'", "--cursor", "..", "--as-of", "2026-02-28"],
    ["list", "--json", "--facet", "tier==1", "--workspace", "%"],
)


@pytest.mark.parametrize("args", CLI_CASES, ids=lambda a: " ".join(a)[:40])
def test_cli_hostile_input_gives_valid_json(indexed, args):
    _, root, index = indexed
    command, rest = args[0], args[1:]
    proc = run_cli([command, "--store", str(root), "--index", str(index), "--no-refresh", *rest])
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert b"Traceback" not in proc.stderr
    payload = json.loads(proc.stdout.decode("utf-8"))  # strict UTF-8 and valid JSON
    assert isinstance(payload, dict)


def test_cli_refusals_are_one_line_messages(indexed):
    """What the parser refuses (a facet without '=', a --para outside its choices) exits 1/2 with a message."""
    _, root, index = indexed
    for rest, code in ((["--facet", "noequals", "x"], 1),):
        proc = run_cli(["search", "--store", str(root), "--index", str(index), "--no-refresh", "--json", *rest])
        assert proc.returncode == code and b"NAME=VALUE" in proc.stderr and b"Traceback" not in proc.stderr
    proc = run_cli(["list", "--store", str(root), "--index", str(index), "--no-refresh", "--json", "--para", "junk"])
    assert proc.returncode == 2 and b"invalid choice" in proc.stderr
    # A junk as-of is a usage error naming the flag (it used to list everything, archived included).
    for junk in ("' OR 1=1 --", "not a date"):
        proc = run_cli(["search", "--store", str(root), "--index", str(index), "--json", "--as-of", junk, "deploy"])
        assert proc.returncode == 2 and b"argument --as-of" in proc.stderr and b"Traceback" not in proc.stderr


# -- known failures, one per bug ---------------------------------------------------------------


def test_lone_surrogate_query_gives_writable_json(indexed):
    store, _, _ = indexed
    json_roundtrip(store.search("deploy \ud800", Scope()).to_json())
    json_roundtrip(store.recall("\udcff", Scope()).to_json())


def test_lone_surrogate_in_scope_values_does_not_raise(indexed):
    store, _, _ = indexed
    for kwargs in ({"entity": "service:\ud800"}, {"tags": ["\udcff"]}, {"facets": ["n=\ud800"]}):
        assert_all_ok(run_query_case(store, "deploy", kwargs))


def test_cli_undecodable_argv_still_gives_valid_json(indexed):
    _, root, index = indexed
    proc = run_cli(
        ["search", "--store", str(root), "--index", str(index), "--no-refresh", "--json", "--", b"\xff\xfe deploy"]
    )
    assert proc.returncode == 0
    json.loads(proc.stdout.decode("utf-8"))


def test_scope_build_with_odd_types_is_refused_or_works(indexed):
    store, _, _ = indexed
    for kwargs in ({"workspace": 123}, {"entity": 4.5}, {"as_of": 20260101}, {"para": ["areas"]}):
        assert_all_ok(run_query_case(store, "deploy", kwargs))


def test_scope_build_refuses_non_iterable_lists_at_the_door():
    with pytest.raises(TypeError):
        Scope.build(tags=123)


def test_a_huge_tag_list_does_not_raise(indexed):
    store, _, _ = indexed
    assert_all_ok(run_query_case(store, "deploy", {"tags": [f"t{i}" for i in range(40_000)]}))


def test_many_facet_names_do_not_raise(indexed):
    store, _, _ = indexed
    assert_all_ok(run_query_case(store, "deploy", {"facets": [f"n{i}=v" for i in range(300)]}))
