"""`apply` projects each memory once and hands the projection to the reindex; a previewed plan is
carried out as it is unless the store moved under it.

Counted on the real code path: `html.project._project` (the parse-and-rows step every projection
goes through) is wrapped to count its calls, nothing else is replaced.
"""

from __future__ import annotations

import importlib
import random

import pytest

from write.support import git, open_store, pin_git, seed

ARCHIVED = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
ROW_COLUMNS = "path, title, memory_type, content_hash, blob_sha, body_text, archived"


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def _ops(seed_: int, count: int):
    from memhtml_desktop.write.batch import ApplyRequest, BatchOp
    from memhtml_desktop.write.requests import WriteRequest

    rng = random.Random(seed_)
    kinds = ["semantic", "procedural", "episodic", "user_preference"]
    ops = []
    for i in range(count):
        claim = (
            f"Batch {seed_} fact {i}: the {rng.choice(['queue', 'cache', 'index'])} holds {rng.randint(2, 900)} items."
        )
        ops.append(BatchOp(WriteRequest(memory_type=rng.choice(kinds), title=f"Fact {seed_}-{i} {rng.random():.4f}",
                                        claim=claim, tags=(rng.choice(["ops", "db"]),)), claim))  # fmt: skip
    return ApplyRequest(tuple(ops))


def _count_projections(monkeypatch) -> list[str]:
    project_mod = importlib.import_module("memhtml_desktop.html.project")
    seen: list[str] = []
    real = project_mod._project

    def counted(path, data, indexed_at, blob_sha):
        seen.append(path)
        return real(path, data, indexed_at, blob_sha)

    monkeypatch.setattr(project_mod, "_project", counted)
    return seen


def _rows(store, paths) -> list[tuple]:
    conn = store.reader()
    marks = ",".join("?" * len(paths))
    files = conn.execute(f"SELECT {ROW_COLUMNS} FROM files WHERE path IN ({marks}) ORDER BY path", paths).fetchall()
    chunks = conn.execute(f"SELECT path, ordinal, text FROM chunks WHERE path IN ({marks}) ORDER BY path, ordinal",
                          paths).fetchall()  # fmt: skip
    return files + chunks


@pytest.mark.parametrize("seed_,count", [(1, 7), (2, 23)])
def test_a_batch_projects_each_memory_once_and_indexes_what_a_full_pass_would(curator, monkeypatch, tmp_path,
                                                                              seed_, count):  # fmt: skip
    from memhtml_desktop.index.store import Store

    seen = _count_projections(monkeypatch)
    applied = curator.run(_ops(seed_, count))
    written = [r["path"] for r in applied.result["results"] if r["ok"] and not r["deduped"]]
    assert len(written) == count
    assert sorted(seen) == sorted(written)  # the draft is only checked and hashed; the reindex parses nothing
    searched = curator.store.search(f"Batch {seed_} fact", limit=count + 5)
    assert set(written) <= {h.path for h in searched.hits}
    # The rows the write handed over are the rows a fresh full pass makes of the committed files.
    fresh = Store(curator.root, index_path=tmp_path / "fresh.db")
    fresh.index()
    assert _rows(curator.store, written) == _rows(fresh, written)


def test_a_projection_whose_file_changed_since_is_not_used(curator, monkeypatch) -> None:
    """A handed projection stands for the bytes it was made of: a file changed after it is parsed."""
    from memhtml_desktop.html.project import project

    applied = curator.run(_ops(3, 2))
    path = applied.result["results"][0]["path"]
    full = curator.root / path
    stale = project(path, full.read_bytes(), "2026-12-01T12:00:00Z")
    full.write_bytes(full.read_bytes().replace(b"Batch 3 fact 0", b"Rewritten by another writer"))
    curator.store.update_paths([path], projections={path: stale})
    (text,) = curator.store.reader().execute("SELECT body_text FROM files WHERE path = ?", (path,)).fetchone()
    assert "Rewritten by another writer" in text and "Batch 3 fact 0" not in text


def test_a_previewed_plan_is_applied_as_it_is_when_nothing_moved(curator, monkeypatch) -> None:
    from memhtml_desktop.write import curator as curator_mod
    from memhtml_desktop.write.requests import ArchiveRequest

    plan = curator.plan(ArchiveRequest(ARCHIVED, reason="done"))
    planned = []
    real = curator_mod.PLANNERS[ArchiveRequest]
    monkeypatch.setitem(curator_mod.PLANNERS, ArchiveRequest, lambda ctx, req: planned.append(req) or real(ctx, req))
    applied = curator.apply(plan)
    assert planned == []  # not planned a second time
    assert applied.commit_sha == git(curator.root, "rev-parse", "HEAD").strip()
    assert (curator.root / "archive" / "2026" / ARCHIVED).exists() and not (curator.root / ARCHIVED).exists()


def test_a_plan_is_made_again_when_head_moved_and_refused_when_its_file_changed(curator, monkeypatch) -> None:
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import ArchiveRequest

    other = "areas/notes/unrelated.txt"
    plan = curator.plan(ArchiveRequest(ARCHIVED, reason="done"))
    (curator.root / "areas" / "notes").mkdir(parents=True, exist_ok=True)
    (curator.root / other).write_text("someone else's commit\n")
    git(curator.root, "add", other)
    git(curator.root, "commit", "-q", "-m", "another writer")
    moved_head = git(curator.root, "rev-parse", "HEAD").strip()
    applied = curator.apply(plan)  # HEAD moved: planned again, same shape, carried out on the new HEAD
    assert git(curator.root, "rev-parse", "HEAD~1").strip() == moved_head
    assert applied.commit_sha == git(curator.root, "rev-parse", "HEAD").strip()
    # Unmoved HEAD but the file edited meanwhile (not committed): the executor's byte check refuses.
    target = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
    plan = curator.plan(ArchiveRequest(target, reason="done"))
    head = git(curator.root, "rev-parse", "HEAD").strip()
    full = curator.root / target
    full.write_bytes(full.read_bytes().replace(b"</article>", b"<p>An edit in progress.</p></article>"))
    with pytest.raises(WriteError):
        curator.apply(plan)
    assert git(curator.root, "rev-parse", "HEAD").strip() == head and b"An edit in progress." in full.read_bytes()


# -- kill -9 in the middle of a batch ----------------------------------------------------------------

CHILD = """
import os, signal, sys
from pathlib import Path
from memhtml_desktop.index.store import Store
from memhtml_desktop.write.curator import Curator
from memhtml_desktop.write.batch import ApplyRequest, BatchOp
from memhtml_desktop.write.requests import WriteRequest

at = sys.argv[2]
curator = Curator(Store(Path(sys.argv[1])))
puts = []
def checkpoint(name):
    if name.startswith("put "):
        puts.append(name)
    if name == at or (at.startswith("put#") and len(puts) == int(at[4:])):
        os.kill(os.getpid(), signal.SIGKILL)
curator.checkpoint = checkpoint
ops = tuple(BatchOp(WriteRequest(memory_type="semantic", title=f"Killed batch {i}", claim=f"Killed batch fact {i}."),
                    f"Killed batch fact {i}.") for i in range(int(sys.argv[3])))
curator.run(ApplyRequest(ops))
"""


@pytest.mark.parametrize("at,count", [("put#1", 4), ("put#3", 5), ("rows", 3)])
def test_kill_9_inside_a_batch_is_rolled_back_whole(tmp_path, monkeypatch, at, count) -> None:
    """Killed after some of the batch's files were renamed into place (the rest still temp files),
    or after all of them: recovery removes every file of the batch and leaves the store as it was."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from memhtml_desktop.write.curator import Curator
    from write.support import snapshot

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    store = open_store(root)
    before = snapshot(root, store)
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "MEMHTML_DESKTOP_NOW": "2026-12-01T12:00:00Z",
    }
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), at, str(count)], env=env, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert proc.returncode == -9, proc.stderr
    landed = sorted(p.relative_to(root).as_posix() for p in root.rglob("killed-batch-*.html"))
    temps = sorted(p.name for p in root.rglob(".killed-batch-*.tmp"))
    expected_files = count if at == "rows" else int(at[4:])
    assert len(landed) == expected_files and len(temps) == count - expected_files
    assert snapshot(root, store) != before
    said = Curator(open_store(root, index=False, state=False)).recover()
    assert said and said.startswith("rolled back an interrupted write")
    assert snapshot(root, store) == before
    assert not list(root.rglob("*.tmp"))
