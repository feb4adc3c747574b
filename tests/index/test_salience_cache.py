"""The salience arm's bound list (index/salience.py) against the full scan of the scope.

The bound list must never change a ranking: for every scope, window and instant within (and past)
its hour, the statement fed with its candidates returns exactly the rows of the statement that
scores every in-scope memory. And it must follow every change: a read counted here, a row written
by another program (memhtml's CLI, through its own connection), an import, an index pass.
"""

from __future__ import annotations

import random

import apsw
import pytest

from memfiles import write_memory
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.retrieval_sql import arm_cte, bind_params, build_arm_sql
from memhtml_desktop.index.salience import HORIZON_S
from memhtml_desktop.index.scope import assemble_scope

SCOPES = (
    Scope(),
    Scope.build(tags=["x"]),
    Scope.build(include_archived=True, memory_types=["task", "semantic"]),
    Scope.build(memory_types=["episodic"]),
)


def _seed(store_root, make_store, seed: int, *, files: int = 160, rows: int = 70):
    rng = random.Random(seed)
    paths = []
    for i in range(files):
        folder = rng.choice(["areas/a", "areas/b", "resources/people", "projects/w"])
        kind = rng.choice(["semantic", "procedural", "episodic", "task"])
        month, day = rng.randint(1, 11), rng.randint(1, 28)
        stamp = rng.choice(
            [
                f"2026-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:00:00Z",
                f"2026-{month:02d}-{day:02d}",
                "not a date",
                "2026-11-29T11:59:00+02:00",
                "2027-03-01T00:00:00Z",
            ]
        )
        extra = [("memhtml-task-status", "todo")] if kind == "task" else []
        path = f"{folder}/m{seed}-{i:03d}.html"
        write_memory(
            store_root,
            path,
            title=f"M{i}",
            claim=f"Memory {i} of seed {seed} says {rng.random()}.",
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
        for path in rng.sample(paths, rows):
            # Reads from hours to months ago, a few counts, some judgements: orders that cross as time passes.
            when = rng.choice(
                [
                    f"2026-11-29T{rng.randint(0, 11):02d}:{rng.randint(0, 59):02d}:00Z",
                    f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T10:00:00Z",
                    "garbage",
                ]
            )
            conn.execute(
                "INSERT INTO state.access (path, access_count, reinforcement_count, outcome_score, "
                "last_accessed_at, updated_at) VALUES (?, ?, 0, ?, ?, ?)",
                (path, rng.choice([0, 1, 1, 2, 3, 7, 30]), rng.uniform(-1, 1), when, "2026-11-29T00:00:00Z"),
            )
    return store, paths, rng


def _both(store, scope: Scope, window: int):
    """(bound, full): the salience arm's rows both ways, at the store clock's now."""
    conn = store.reader()
    built = assemble_scope(scope)
    with conn:
        rowids = store.caches.salience.candidates(conn, str(store.index_path), window, built)
        bound = arm_cte("salience", built.filter, salience_bound=True)
        full = build_arm_sql("salience", built.filter)
        got = conn.execute(
            bound, bind_params(bound, (None, window, None, None, apsw.carray(rowids)), built.params)
        ).fetchall()
        want = conn.execute(full, bind_params(full, (None, window, None, None), built.params)).fetchall()
    return got, want, len(rowids)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bound_list_ranks_exactly_as_the_full_scan(store_root, make_store, clock, seed):
    store, _, _ = _seed(store_root, make_store, seed)
    # Within the hour the list was built for, at its end, and past it (a rebuild).
    for step in (0, 600, HORIZON_S - 120, HORIZON_S + 5, 86_400 * 3):
        clock.advance(step)
        for scope in SCOPES:
            for window in (1, 5, 40, 1000):
                got, want, candidates = _both(store, scope, window)
                assert got == want, (step, scope, window)
                assert candidates >= min(window, len(want))


def test_the_statement_scores_only_a_few_candidates(store_root, make_store):
    store, _, _ = _seed(store_root, make_store, 4, files=300, rows=200)
    got, want, candidates = _both(store, Scope(), 5)
    assert got == want
    assert candidates < 60  # of ~220 eligible: the full scan scores them all


@pytest.mark.parametrize("seed", [8, 9])
def test_memories_decayed_to_tiny_scores_stay_few_candidates(store_root, make_store, seed):
    """Unread memories last updated months or years ago score 1e-10 .. 1e-40: distinct values that
    an absolute rounding slack of 1e-9 tied together, so the whole scope became candidates."""
    rng = random.Random(seed)
    for i in range(240):
        stamp = f"{rng.choice([2019, 2021, 2023, 2025])}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"
        write_memory(
            store_root,
            f"areas/old/q{seed}-{rng.random():.6f}.html",
            title=f"Old {i}",
            claim=f"Old memory {i} of seed {seed}.",
            updated=stamp,
            created=stamp,
        )
    store = make_store(store_root)
    store.index()
    for scope in (Scope(), Scope.build(memory_types=["semantic"])):
        for window in (1, 10, 40):
            got, want, candidates = _both(store, scope, window)
            assert got == want, (scope, window)
            assert candidates <= window + 8, (scope, window, candidates)  # of 240


def test_a_read_counted_here_moves_the_ranking_at_once(store_root, make_store, clock):
    store, paths, _ = _seed(store_root, make_store, 5)
    before, _, _ = _both(store, Scope(), 40)
    outside = next(p for p in paths if p not in {r[0] for r in before} and "/people/" not in p
                   and store.read(p, bump=False).memory_type != "task")  # fmt: skip
    for _ in range(6):
        store.reinforce([outside], "positive")
        clock.advance(1000)  # past the cooldown: each read counts
    got, want, _ = _both(store, Scope(), 40)
    assert got == want
    assert outside in {r[0] for r in got}


def test_a_row_written_by_another_program_is_seen(store_root, make_store):
    store, paths, _ = _seed(store_root, make_store, 6)
    before, _, _ = _both(store, Scope(), 5)
    target = next(p for p in reversed(paths) if p not in {r[0] for r in before} and "/people/" not in p
                  and store.read(p, bump=False).memory_type != "task")  # fmt: skip
    # memhtml's CLI: its own connection to state.db, no call into this process
    other = apsw.Connection(str(store.state_path))
    with other:
        other.execute("INSERT INTO access (path, access_count, reinforcement_count, outcome_score, last_accessed_at, "
                      "updated_at) VALUES (?, 500, 0, 1.0, '2031-01-01T00:00:00Z', '2026-11-29T11:00:00Z') "
                      "ON CONFLICT(path) DO UPDATE SET access_count = 500, last_accessed_at = '2031-01-01T00:00:00Z'", (target,))  # fmt: skip
    other.close()
    got, want, _ = _both(store, Scope(), 5)
    assert got == want
    assert got[0][0] == target  # a read stamped years ahead (clock skew) tops the arm


def test_an_index_pass_is_seen(store_root, make_store):
    store, paths, _ = _seed(store_root, make_store, 7)
    before, _, _ = _both(store, Scope(), 80)
    newest = "areas/a/just-written.html"
    write_memory(
        store_root,
        newest,
        title="Fresh",
        claim="Written a minute ago.",
        created="2026-11-29T11:59:00Z",
        updated="2026-11-29T11:59:00Z",
    )
    store.update_paths([newest])
    with store.reader():
        store.reader().execute(
            "INSERT INTO state.access (path, access_count, reinforcement_count, outcome_score, last_accessed_at, "
            "updated_at) VALUES (?, 900, 0, 1.0, '2026-11-29T11:59:00Z', '2026-11-29T11:59:00Z')", (newest,))  # fmt: skip
    got, want, _ = _both(store, Scope(), 80)
    assert got == want and newest in {r[0] for r in got} and before != got


def test_search_uses_the_bound_list_and_agrees_with_the_scan(store_root, make_store):
    store, _, _ = _seed(store_root, make_store, 8)
    from memhtml_desktop.index.retrieval import Retriever

    for query in ("", "memory says", "seed 8"):
        for scope in SCOPES:
            fast = Retriever(store.reader(), store.embedder, cache_key=str(store.index_path)).search(
                query, scope, limit=20
            )
            slow = Retriever(store.reader(), store.embedder, cache_key=str(store.index_path),
                             salience_bound=False).search(query, scope, limit=20)  # fmt: skip
            assert [(h.path, h.score, h.arms) for h in fast.hits] == [(h.path, h.score, h.arms) for h in slow.hits]
