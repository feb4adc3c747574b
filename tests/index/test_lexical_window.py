"""The lexical arm's window ranked on the FTS table alone (index/lexical_window.py) against the
statement form that joins every match to `files` (retrieval_sql.FTS_CTE / FTS_STEMMED_CTE).

The window must be the same rows in the same order with the same bm25 values, for every scope,
window size and lexical index: ties in bm25 broken by path across the cut, a scope that drops most
of the best-scoring memories (the window widens), a query matching nothing, and a search whose whole
explanation reads the same either way.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from memfiles import write_memory
from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.lexical_window import lexical_window
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
from memhtml_desktop.index.scope import assemble_scope
from memhtml_desktop.index.scope_rows import ScopeRows

WORDS = ["drain", "deploy", "canary", "ledger", "token", "rollback", "cache", "vacuum", "agent", "billing"]
SCOPES = (
    Scope(),
    Scope.build(memory_types=["task"]),
    Scope.build(tags=["rare"]),
    Scope.build(include_archived=True, memory_types=["episodic", "semantic"]),
)


def _seed(store_root, make_store, seed: int, files: int = 220):
    rng = random.Random(seed)
    for i in range(files):
        kind = rng.choice(["semantic", "semantic", "procedural", "episodic", "task"])
        # Every fifth memory repeats another's text under a new name: equal bm25, decided by path.
        twin = i % 5 == 0
        text_rng = random.Random(seed * 1000 + (i - 1 if twin and i else i))
        words = " ".join(text_rng.choice(WORDS) for _ in range(text_rng.randint(2, 9)))
        extra = [("memhtml-task-status", "todo")] if kind == "task" else []
        folder = rng.choice(["areas/ops", "projects/w/tasks" if kind == "task" else "resources/notes", "areas/zeta"])
        write_memory(
            store_root,
            f"{folder}/m{seed}-{rng.randrange(10**6):06d}-{i:03d}.html",
            title=text_rng.choice(WORDS).title(),
            claim=f"The {words}.",
            memory_type=kind,
            tags=["rare"] if rng.random() < 0.08 else ["common"],
            extra_metas=extra,
        )
    store = make_store(store_root)
    store.index()
    return store


def _statement(conn, match, scope_sql, window, profile):
    sql = build_arm_sql("fts", scope_sql.filter, lexical=profile.lexical, field_weights=profile.field_weights)
    rows = conn.execute(
        f"SELECT f.rowid, a.raw FROM ({sql}) a JOIN files f ON f.path = a.path ORDER BY a.rank",
        bind_params(sql, (match, window), scope_sql.params),
    ).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows]


@pytest.mark.parametrize("seed", [3, 17])
def test_the_window_is_the_statement_s_window(store_root, make_store, seed):
    store = _seed(store_root, make_store, seed)
    conn = store.reader()
    rng = random.Random(seed)
    checked = 0
    rows = ScopeRows()
    for profile in (DEFAULT, MEMHTML):
        for scope in SCOPES:
            scope_sql = assemble_scope(scope)
            for window in (1, 3, 7, 40):
                for _ in range(4):
                    fts = parse_fts_query(" ".join(rng.sample(WORDS, rng.randint(1, 3))))
                    for match in (fts.any_form_without(frozenset()), fts.every_word_form):
                        with conn:
                            want_rowids, want_scores = _statement(conn, match, scope_sql, window, profile)
                            got = lexical_window(
                                conn,
                                match,
                                window,
                                lexical=profile.lexical,
                                field_weights=profile.field_weights,
                                in_scope=lambda r: rows.mask(conn, "k", r, scope_sql),
                            )
                        assert got.rowids.tolist() == want_rowids, (profile.name, scope, window, match)
                        assert got.scores.tolist() == want_scores  # the same bm25 values, bit for bit
                        checked += 1
    assert checked == 2 * len(SCOPES) * 4 * 4 * 2


def test_ties_at_the_cut_are_decided_by_path(store_root, make_store):
    # Twelve memories with one text, then eighty of another text of one length: bm25 cannot tell
    # the eighty apart, and they straddle the first cut (64 rows), so the path must decide. Those
    # that sort first by path are indexed last (larger rowids, met last by the FTS scan).
    for i in range(12):
        write_memory(
            store_root,
            f"areas/same/{'zyxwvutsrqpo'[i]}-{i}.html",
            title="Drain",
            claim="Drain the canary before the deploy.",
        )
    for i in range(40):
        write_memory(
            store_root, f"areas/other/z{i:02d}.html", title="Other", claim=f"Deploy note {i} about other things."
        )
    store = make_store(store_root)
    store.index()
    for prefix, count in (("b", 30), ("a", 10)):
        for i in range(count):
            write_memory(
                store_root,
                f"areas/other/{prefix}{i:02d}.html",
                title="Other",
                claim=f"Deploy note {i} about other things.",
            )
        store.index()
    conn = store.reader()
    scope_sql = assemble_scope(Scope())
    for profile in (DEFAULT, MEMHTML):
        for window in (1, 5, 12, 13, 20, 70):
            match = parse_fts_query("drain canary deploy").any_form_without(frozenset())
            with conn:
                want = _statement(conn, match, scope_sql, window, profile)
                got = lexical_window(
                    conn,
                    match,
                    window,
                    lexical=profile.lexical,
                    field_weights=profile.field_weights,
                    in_scope=lambda r: np.ones(len(r), bool),
                )
            assert (got.rowids.tolist(), got.scores.tolist()) == want, (profile.name, window)


def test_nothing_matched_is_an_empty_window(store_root, make_store):
    write_memory(store_root, "areas/a.html", title="A", claim="Something else entirely.")
    store = make_store(store_root)
    store.index()
    conn = store.reader()
    got = lexical_window(
        conn, '"zzzq"', 40, lexical="stemmed", field_weights=(2.0, 1.0, 1.0), in_scope=lambda r: np.ones(len(r), bool)
    )
    assert got.rowids.shape == (0,) and got.scores.shape == (0,)
    assert all(hit.arm("fts") is None for hit in store.search("zzzq", limit=5).hits)


@pytest.mark.parametrize(
    "profile", [DEFAULT, MEMHTML, replace(DEFAULT, fusion="rrf", gate_priors=False)], ids=["default", "memhtml", "rrf"]
)
def test_a_search_explains_the_same_bm25_as_the_statement(store_root, make_store, profile):
    store = _seed(store_root, make_store, 5, files=120)
    for query in ("drain canary", "ledger", "token rollback cache", "nothing here at all"):
        for scope in SCOPES:
            result = store.search(query, scope, limit=10, ranking=profile)
            conn = store.reader()
            scope_sql = assemble_scope(scope)
            fts = parse_fts_query(query)
            with conn:
                match, _ = store.retriever().fts_form(fts, scope_sql, profile)
                if match is None:
                    continue
                rowids, scores = _statement(conn, match, scope_sql, profile.arm_window, profile)
                paths = dict(conn.execute("SELECT rowid, path FROM files").fetchall())
            ranked = {paths[r]: (rank, s) for rank, (r, s) in enumerate(zip(rowids, scores), start=1)}
            for hit in result.hits:
                arm = hit.arm("fts")
                if arm is not None:
                    assert (arm.rank, arm.raw["bm25"]) == ranked[hit.path]


@pytest.mark.parametrize("seed", [4, 23])
def test_the_match_count_read_off_the_window_is_the_counted_one(store_root, make_store, seed):
    # A search reads "how many memories hold the words" off its lexical window when the window saw
    # more than the cap, or saw every match; otherwise it counts in SQL. Either way the same answer.
    from memhtml_desktop.index import relevance

    store = _seed(store_root, make_store, seed, files=260)
    conn = store.reader()
    retriever = store.retriever()
    rng = random.Random(seed)
    decided = counted = 0
    for profile in (DEFAULT, MEMHTML):
        for scope in SCOPES:
            for _ in range(6):
                query = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
                with conn:
                    pool = retriever._candidates(query, scope, 10, profile)
                    if pool.match is None:
                        continue
                    want = relevance.match_count(conn, pool.match, pool.fts_form, pool.scope_sql, profile.lexical)
                    assert pool.match_count(conn) == want, (profile.name, scope, query)
                known = relevance.counted(pool.window.matched, pool.window.whole) if pool.window else None
                decided += known is not None
                counted += known is None
    assert decided and counted  # both ways were taken
