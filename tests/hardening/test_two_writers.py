"""Two writers without a shared lock (issue 21, "What must hold"): rounds of concurrent writes.

Two instances of the app with separate indexes and separate write locks (another cache directory
each), then the app beside an agent's plain `git add X && git commit`, on the demo store: after
every round no dirty tree, no commit carrying another writer's paths, no reported sha that is not
the writer's own, no committed file lost. A short run here; `bench/two_writers_bench.py` runs 200
rounds of each and docs/benchmarks-log.md has its figures.
"""

from __future__ import annotations

import pytest
from hardening_support import DEMO_STORE
from two_writers import IDENTITY, make_store, run_rounds


@pytest.mark.parametrize("other,seed", [("app", 3), ("git", 5)])
def test_two_writers_without_a_shared_lock_leave_no_dirty_tree_no_swept_path_no_wrong_sha(tmp_path, other, seed,
                                                                                           monkeypatch):  # fmt: skip
    monkeypatch.setenv("MEMHTML_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    root = make_store(tmp_path, DEMO_STORE)
    figures = run_rounds(root, tmp_path / "private", 8, seed=seed, other=other)
    print(figures.to_json())
    assert figures.rounds == 8
    assert (figures.dirty_trees, figures.swept_paths, figures.wrong_shas, figures.lost_files) == (0, 0, 0, 0), (
        figures.problems
    )
    assert figures.app_landed >= 4, figures.to_json()  # the rounds did write
    assert not [p for p in figures.problems if "unexpected" in p], figures.problems
