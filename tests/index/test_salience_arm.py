"""The salience arm's statement against the naive formula over every in-scope file.

index/retrieval_sql.py avoids scanning the whole scope (files with no state row can only reach the
top through recent updates). This pins that rewrite to memhtml's plain definition: score =
exp(-0.01 * hours) + ln(1 + access_count) + max(outcome, 0), every in-scope non-task file outside
resources/people/, ordered by score DESC, path ASC.
"""

from __future__ import annotations

import random

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
from memhtml_desktop.index.scope import assemble_scope

NAIVE = """SELECT path, ROW_NUMBER() OVER (ORDER BY score DESC, path ASC) AS rank FROM (
  SELECT f.path AS path,
         coalesce(exp(-0.01 * (unixepoch(memhtml_now()) - unixepoch(coalesce(a.last_accessed_at, f.updated_at))) / 3600.0), 0.0)
         + ln(1 + coalesce(a.access_count, 0)) + max(coalesce(a.outcome_score, 0.0), 0.0) AS score
  FROM files f LEFT JOIN state.access a ON a.path = f.path
  WHERE f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'{F}
  ORDER BY score DESC, path ASC LIMIT ?2)"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rewrite_equals_the_naive_scan(store_root, make_store, seed):
    rng = random.Random(seed)
    paths = []
    for i in range(150):
        folder = rng.choice(["areas/a", "areas/b", "resources/people", "projects/w"])
        kind = rng.choice(["semantic", "procedural", "episodic", "task"])
        month, day = rng.randint(1, 11), rng.randint(1, 28)
        stamp = rng.choice(
            [
                f"2026-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:00:00Z",
                f"2026-{month:02d}-{day:02d}",
                "not a date",
                "2026-11-29T11:59:00+02:00",
            ]
        )
        extra = [("memhtml-task-status", "todo")] if kind == "task" else []
        path = f"{folder}/m{i:03d}.html"
        write_memory(
            store_root,
            path,
            title=f"M{i}",
            claim=f"Memory {i} says {rng.random()}.",
            memory_type=kind,
            created=stamp,
            updated=stamp,
            tags=[rng.choice(["x", "y"])],
            extra_metas=extra,
        )
        paths.append(path)
    store = make_store(store_root)
    store.index()
    conn = store.reader()
    with conn:
        for path in rng.sample(paths, 60):
            conn.execute(
                "INSERT INTO state.access (path, access_count, reinforcement_count, outcome_score, "
                "last_accessed_at, updated_at) VALUES (?, ?, 0, ?, ?, ?)",
                (
                    path,
                    rng.randint(0, 30),
                    rng.uniform(-1, 1),
                    f"2026-11-{rng.randint(1, 29):02d}T10:00:00Z",
                    "2026-11-29T00:00:00Z",
                ),
            )
    for scope in (
        Scope(),
        Scope.build(tags=["x"]),
        Scope.build(include_archived=True, memory_types=["task", "semantic"]),
    ):
        built = assemble_scope(scope)
        for limit in (5, 40, 1000):
            fast = build_arm_sql("salience", built.filter)
            naive = NAIVE.replace("{F}", built.for_alias("f"))
            got = conn.execute(fast, bind_params(fast, (None, limit, None, None), built.params)).fetchall()
            want = conn.execute(naive, bind_params(naive, (None, limit, None, None), built.params)).fetchall()
            assert [(p, r) for p, r, _ in got] == want


def test_common_words_leave_the_any_of_form(store_root, make_store):
    for i in range(10):
        write_memory(store_root, f"areas/c{i}.html", title=f"C{i}", claim=f"Common word before fact {i}.")
    write_memory(store_root, "areas/rare.html", title="Rare", claim="The zebra grazes.")
    store = make_store(store_root)
    store.index()
    from memhtml_desktop.domain.fts_query import parse_fts_query
    from memhtml_desktop.index.retrieval import common_words

    conn = store.reader()
    common = common_words(conn, parse_fts_query("zebra before common").words)
    assert common == frozenset({"before", "common"})
    result = store.search("zebra before common nonexistentword")
    assert result.fts_form == "any"
    lexical = [h.path for h in result.hits if h.arm("fts")]
    assert lexical == ["areas/rare.html"]
    # when every word is common, the form keeps them rather than matching nothing
    everything = store.search("common before zebraless")
    assert everything.fts_form == "any" and not any(h.arm("fts") for h in everything.hits)
    # the seeds' two forms (the default binds the any-of form always): every word held somewhere -> all
    from dataclasses import replace as _replace

    from memhtml_desktop.domain.ranking import DEFAULT as _DEFAULT

    only_common = store.search("word common", limit=20, ranking=_replace(_DEFAULT, fts_forms="all_any"))
    assert only_common.fts_form == "all" and sum(1 for h in only_common.hits if h.arm("fts")) == 10
    assert parse_fts_query("common before").content_terms(common) == (("common",), ("before",))
