"""A scope's members kept between searches (index/scope_rows.py), against SQLite asked afresh.

After each kind of index change (an archive, a delete, an add, a retag, a move) the kept members
of every scope must equal the scope's own SQL over the index as it stands, and must have been
patched from the change log, not read whole. Varied over generator seeds and scopes.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from memfiles import write_memory
from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.retrieval_sql import bind_params
from memhtml_desktop.index.scope import assemble_scope
from memhtml_desktop.index.scope_rows import ScopeRows
from memhtml_desktop.index.store import Store

SCOPES = (
    Scope(),
    Scope.build(memory_types=["semantic", "procedural"]),
    Scope.build(include_archived=True),
    Scope.build(tags=["deploy", "oncall"]),
    Scope.build(para="areas"),
)


def _truth(conn, scope: Scope) -> np.ndarray:
    built = assemble_scope(scope)
    sql = f"SELECT f.rowid FROM files f WHERE 1 = 1{built.for_alias('f')}"
    return np.array(sorted(r[0] for r in conn.execute(sql, bind_params(sql, (), built.params))), dtype=np.int64)


def _live(store: Store) -> list[str]:
    """Live memories the default scope lists (not tasks), so that changing one moves a scope."""
    return [
        r[0]
        for r in store.reader().execute(
            "SELECT path FROM files WHERE archived = 0 AND memory_type <> 'task' ORDER BY path"
        )
    ]


def _archive(store: Store, rng: random.Random) -> None:
    src = rng.choice([p for p in _live(store) if not p.startswith("archive/")])
    text = (
        (store.root / src)
        .read_text(encoding="utf-8")
        .replace(
            '<meta name="memhtml-status" content="active">',
            '<meta name="memhtml-status" content="archived">\n<meta name="memhtml-archived" content="2026-11-29T12:00:00Z">',
        )
    )
    dst = f"archive/2026/{src}"
    (store.root / dst).parent.mkdir(parents=True, exist_ok=True)
    (store.root / dst).write_text(text, encoding="utf-8")
    (store.root / src).unlink()
    store.update_paths([src, dst], [(src, dst)])


def _delete(store: Store, rng: random.Random) -> None:
    path = rng.choice(_live(store))
    (store.root / path).unlink()
    store.update_paths([path])


def _add(store: Store, rng: random.Random) -> None:
    n = rng.randrange(10**6)
    path = f"{rng.choice(['areas', 'projects'])}/added/{n}.html"
    write_memory(
        store.root,
        path,
        title=f"Added {n}",
        claim=f"Added memory {n}.",
        tags=[rng.choice(["deploy", "misc"])],
        memory_type=rng.choice(["semantic", "episodic"]),
        updated="2026-11-28T10:00:00Z",
    )
    store.update_paths([path])


def _move(store: Store, rng: random.Random) -> None:
    """Out of areas/ into resources/: the `para` scope loses it."""
    src = rng.choice([p for p in _live(store) if p.startswith("areas/")])
    dst = f"resources/moved-{rng.randrange(10**6)}/{src.rsplit('/', 1)[1]}"
    (store.root / dst).parent.mkdir(parents=True, exist_ok=True)
    os.rename(store.root / src, store.root / dst)
    store.update_paths([], [(src, dst)])


@pytest.mark.parametrize("seed", [3, 17])
def test_kept_members_follow_every_change_and_equal_the_scope_sql(tmp_path: Path, seed: int):
    made = generate_store(tmp_path / "store", 90 + seed, seed)
    store = Store(made.root, index_path=tmp_path / "index.db")
    store.index()
    rows, rng, key = ScopeRows(), random.Random(seed), str(store.index_path)
    conn = store.reader()
    for scope in SCOPES:
        assert np.array_equal(rows.rows(conn, key, assemble_scope(scope)), _truth(conn, scope))
    whole = rows.rebuilt
    assert whole == len(SCOPES)
    for step in (_archive, _delete, _add, _move, _add, _archive):
        before = {scope: _truth(conn, scope) for scope in SCOPES}
        step(store, rng)
        conn = store.reader()
        moved = False
        for scope in SCOPES:
            got, want = rows.rows(conn, key, assemble_scope(scope)), _truth(conn, scope)
            assert np.array_equal(got, want), (step.__name__, scope)
            moved |= not np.array_equal(before[scope], want)
        assert moved, f"{step.__name__} changed no scope: an ignored delta would pass"
        assert rows.rebuilt == whole, f"{step.__name__}: a scope was read whole, not patched"


def test_a_mask_agrees_with_membership_and_an_empty_filter_keeps_all(tmp_path: Path):
    made = generate_store(tmp_path / "store", 60, 5)
    store = Store(made.root, index_path=tmp_path / "index.db")
    store.index()
    conn, rows = store.reader(), ScopeRows()
    every = np.array([r[0] for r in conn.execute("SELECT rowid FROM files ORDER BY rowid DESC")], dtype=np.int64)
    scope = Scope.build(memory_types=["semantic"])
    members = set(_truth(conn, scope).tolist())
    mask = rows.mask(conn, str(store.index_path), every, assemble_scope(scope))
    assert mask.tolist() == [int(r) in members for r in every]
    assert 0 < mask.sum() < every.shape[0]


def test_other_indexes_and_many_scopes_do_not_mix(tmp_path: Path):
    stores = []
    for i, seed in enumerate((7, 8)):
        made = generate_store(tmp_path / f"store{i}", 50 + 10 * i, seed)
        store = Store(made.root, index_path=tmp_path / f"index{i}.db")
        store.index()
        stores.append(store)
    rows = ScopeRows(keep=3)
    for _ in range(2):
        for store in stores:
            for scope in SCOPES:
                conn = store.reader()
                assert np.array_equal(
                    rows.rows(conn, str(store.index_path), assemble_scope(scope)), _truth(conn, scope)
                )


@pytest.mark.parametrize("seed", [9, 10])
def test_a_few_files_are_asked_about_alone_until_the_budget_then_the_scope_is_kept(tmp_path: Path, monkeypatch, seed):
    """A fresh process asking about a few files (a command-line search) does not read the scope
    whole; its answers are the members' all the same, before and after the budget runs out."""
    from memhtml_desktop.index import scope_rows

    made = generate_store(tmp_path / "store", 120, seed)
    store = Store(made.root, index_path=tmp_path / "index.db")
    store.index()
    conn, rows, key, rng = store.reader(), ScopeRows(), str(store.index_path), random.Random(seed)
    monkeypatch.setattr(scope_rows, "ASK_BUDGET", 100)
    every = [r[0] for r in conn.execute("SELECT rowid FROM files")]
    for scope in SCOPES[1:]:
        members = set(_truth(conn, scope).tolist())
        asked = 0
        while asked <= 150:
            some = np.array(rng.sample(every, 30) + [every[0], every[0]], dtype=np.int64)  # repeats too
            mask = rows.mask(conn, key, some, assemble_scope(scope))
            assert mask.tolist() == [int(r) in members for r in some]
            asked += some.shape[0]
    assert rows.asked == 4 * 3 and rows.rebuilt == 4  # three asks each within the budget, then kept whole
