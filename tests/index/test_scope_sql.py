"""The scope predicate and the fused statement, as SQL text and as plans (no ranking here)."""

from __future__ import annotations

import re

import pytest

from memhtml_desktop.domain.rrf import RANK_ARMS, active_arms
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.retrieval_sql import bind_params, build_rrf_sql, highest_marker
from memhtml_desktop.index.scope import assemble_scope

DEFAULT = "\n         AND {alias}.archived = 0\n         AND {alias}.memory_type <> 'task'"


def test_default_scope_is_exactly_the_two_exclusions():
    for scope in (Scope(), Scope.build(as_of=""), Scope.build(memory_types=[]), Scope.build(workspace="", tags=["  "])):
        built = assemble_scope(scope)
        assert built.filter == DEFAULT
        assert built.params == ()


def test_numbering_starts_at_six_in_axis_order():
    scope = Scope.build(
        memory_types=["semantic"],
        workspace="w",
        tags=["deploy", "oncall"],
        entity="service:checkout-api",
        facets=["doc-type=runbook", "tier=1", "doc-type=guide"],
    )
    built = assemble_scope(scope)
    assert "memory_type IN (?6)" in built.filter
    assert "workspace = ?7" in built.filter
    assert "ft.tag IN (?8, ?9)" in built.filter
    assert "memhtml_fold(?10)" in built.filter
    assert "ff.name = ?11 AND ff.value IN (?12, ?13)" in built.filter
    assert "ff.name = ?14 AND ff.value IN (?15)" in built.filter
    assert built.params == (
        "semantic",
        "w",
        "deploy",
        "oncall",
        "service:checkout-api",
        "doc-type",
        "runbook",
        "guide",
        "tier",
        "1",
    )
    assert "<> 'task'" not in built.filter


def test_task_opt_in_and_unknown_types():
    assert "IN (?6, ?7)" in assemble_scope(Scope.build(memory_types=["semantic", "task"])).filter
    gossip = assemble_scope(Scope.build(memory_types=["gossip"]))
    assert gossip.filter == DEFAULT and gossip.params == ()


def test_include_archived_and_as_of():
    assert assemble_scope(Scope.build(include_archived=True)).filter == "\n         AND {alias}.memory_type <> 'task'"
    built = assemble_scope(Scope.build(as_of="2024-01-01T00:00:00Z", workspace="w"))
    assert "archived = 0" not in built.filter
    # Compared as instants (migration 0007), bound in the canonical UTC form.
    assert "valid_from_utc <= ?6" in built.filter and "valid_until_utc > ?7)" in built.filter
    assert "workspace = ?8" in built.filter
    assert built.params == ("2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z", "w")


def test_flipped_scope_keeps_every_axis_but_archived():
    scope = Scope.build(tags=["deploy"], facets=["day=2026-09-02"])
    live = assemble_scope(scope)
    flipped = assemble_scope(scope, archived="flipped")
    assert flipped.filter.replace("archived = 1", "archived = 0") == live.filter
    assert flipped.params == live.params


def test_entity_value_is_bound_never_inlined():
    built = assemble_scope(Scope.build(entity="person:o'brien"))
    assert "o'brien" not in built.filter
    assert built.params == ("person:o'brien",)


def test_registry_and_preconditions():
    assert [(a.name, a.weight) for a in RANK_ARMS] == [
        ("fts", 1.0),
        ("vector", 1.0),
        ("recency", 0.5),
        ("salience", 0.4),
    ]
    names = lambda **kw: [a.name for a in active_arms(RANK_ARMS, **kw)]  # noqa: E731
    assert names(has_vector=True, has_state=True, has_terms=True) == ["fts", "vector", "recency", "salience"]
    assert names(has_vector=False, has_state=False, has_terms=True) == ["fts", "recency"]
    assert names(has_vector=False, has_state=False, has_terms=False) == ["recency"]


def test_full_fold_text():
    sql = build_rrf_sql(RANK_ARMS, DEFAULT)
    for piece in (
        "fts AS (",
        "vector AS (",
        "recency AS (",
        "salience AS (",
        "SUM(s) AS score",
        "GROUP BY path",
        "1.0000 / (rank + 60)",
        "0.5000 / (rank + 60)",
        "0.4000 / (rank + 60)",
        "?1",
        "?2",
        "?3",
        "?4",
    ):
        assert piece in sql


def test_dropped_arms_leave_no_trace():
    arms = active_arms(RANK_ARMS, has_vector=False, has_state=False, has_terms=True)
    sql = build_rrf_sql(arms, DEFAULT)
    assert "vector AS (" not in sql and "?4" not in sql and "carray" not in sql
    assert "salience AS (" not in sql and "state.access" not in sql
    assert highest_marker(sql) == 3
    assert build_rrf_sql((), DEFAULT) is None
    zero = [a for a in RANK_ARMS if a.name == "recency"]
    from dataclasses import replace

    assert build_rrf_sql([replace(zero[0], weight=0.0)], DEFAULT) is None


def test_salience_exclusions_live_in_the_salience_arm_only():
    sql = build_rrf_sql(RANK_ARMS, assemble_scope(Scope.build(memory_types=["task"])).filter)
    ctes = dict(re.findall(r"(\w+) AS \(\n(.*?)\)\s*(?=,\n\w+ AS|,\nrrf)", sql, flags=re.S))
    assert "memory_type <> 'task'" in ctes["salience"]
    assert "NOT LIKE 'resources/people/%'" in ctes["salience"]
    for arm in ("fts", "vector", "recency"):
        assert "NOT LIKE" not in ctes[arm] and "<> 'task'" not in ctes[arm]
    for arm in ("fts", "vector", "recency", "salience"):
        assert "memory_type IN (?6)" in ctes[arm]


def test_bind_params_truncates_and_fills_the_gap():
    sql = "SELECT ?1, ?6"
    assert bind_params(sql, ("q", 40, 30, None), ("x",)) == ("q", 40, 30, None, None, "x")
    assert bind_params(sql, ("q", 40, 30, None, "s"), ("x",)) == ("q", 40, 30, None, "s", "x")
    assert bind_params("SELECT ?1", ("q", 40, 30, None), ("x",)) == ("q",)


@pytest.mark.parametrize(
    "scope",
    [
        Scope.build(entity="service:checkout-api"),
        Scope.build(tags=["a", "b"]),
        Scope.build(facets=["doc-type=runbook", "tier=1"]),
    ],
)
def test_child_axes_plan_as_index_searches(tmp_path, scope):
    from memhtml_desktop.index.db import open_index

    conn = open_index(tmp_path / "i.db")
    sql = build_rrf_sql([a for a in RANK_ARMS if a.name in ("fts", "recency")], assemble_scope(scope).filter)
    params = bind_params(sql, ("x", 40, 30, None), assemble_scope(scope).params)
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    scans = [step for step in plan if re.match(r"SCAN (e|ft|ff|file_entities|file_tags|file_facets)\b", step)]
    assert scans == []
    searches = [step for step in plan if re.match(r"SEARCH (e|ft|ff)\b", step)]
    assert searches and all("USING" in step for step in searches)
