"""Every file the app reads from the store is guarded like a memory file (issue 21, row 8).

A committed probe set, configuration or sidecar that is a symbolic link to a file outside the
store (`/etc/passwd`, a secret), to `/dev/zero`, a FIFO, or a huge file. Before: `probes add`
followed the link and committed the whole secret into the repository the user pushes; `/dev/zero`
ate all memory; a FIFO hung `probes list`. Now each is refused with a sentence naming the file and
why, read never (so never copied into a commit), and the command returns at once.
memhtml's CLI never reads `.memhtml-desktop/`; its own sidecar import (`state import`) follows a
link like any `readFile`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hardening_support import private_git

from memhtml_desktop.domain.probes import EvalProbe

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-token-that-must-never-be-committed"
PROBES = ".memhtml-desktop/probes"
CONFIGS = ".memhtml-desktop/configs"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def store(tmp_path, monkeypatch):
    private_git(monkeypatch, tmp_path)
    root = tmp_path / "store"
    (root / "areas" / "a").mkdir(parents=True)
    (root / "areas" / "a" / "one.html").write_text("<html></html>\n")
    (root / PROBES).mkdir(parents=True)
    (root / CONFIGS).mkdir(parents=True)
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "seed")
    return root, secret


def _cli(root: Path, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--store", str(root), *argv],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip
    proc.seconds = time.monotonic() - start
    return proc


def _never_committed(root: Path) -> None:
    assert SECRET not in _git(root, "log", "-p", "--all"), "the secret went into the repository"


def test_a_committed_probe_set_linking_out_of_the_store_is_never_read_or_committed(store):
    root, secret = store
    (root / PROBES / "leak.jsonl").symlink_to(secret)
    _git(root, "add", f"{PROBES}/leak.jsonl")
    _git(root, "commit", "-qm", "someone commits a link")
    head = _git(root, "rev-parse", "HEAD")
    added = _cli(root, "probes", "add", "leak", "--query", "drain the vip", "--target", "areas/a/one.html")
    assert added.returncode == 1 and "leads out of the store" in added.stderr and SECRET not in added.stderr
    assert _git(root, "rev-parse", "HEAD") == head and secret.read_text() == SECRET + "\n"
    listed = _cli(root, "probes", "list", "leak", "--json")
    assert SECRET not in listed.stdout + listed.stderr and "leads out of the store" in listed.stdout + listed.stderr
    sets = _cli(root, "probes", "sets", "--json")
    assert sets.returncode == 0 and "leak" not in sets.stdout  # a link out is not one of the store's sets
    _never_committed(root)


def test_a_link_to_dev_zero_a_fifo_and_a_huge_set_are_refused_at_once(store):
    root, _ = store
    (root / PROBES / "zero.jsonl").symlink_to("/dev/zero")
    os.mkfifo(root / PROBES / "fifo.jsonl")
    with open(root / PROBES / "huge.jsonl", "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB that cost no disk
    from memhtml_desktop.workbench import WorkbenchFiles

    files = WorkbenchFiles(root)
    for name, why in (("zero", "leads out of the store"), ("fifo", "a FIFO"), ("huge", "200.0 MB")):
        start = time.monotonic()
        probe_set = files.read_probe_set(name)
        assert time.monotonic() - start < 2, name
        assert not probe_set.probes and why in str(probe_set.problems[0]), (name, probe_set.problems)
    for verb in (("probes", "list", "fifo"), ("probes", "list", "zero"), ("probes", "sets")):
        proc = _cli(root, *verb)
        assert proc.seconds < 45 and "Traceback" not in proc.stderr, (verb, proc.stderr)
    from memhtml_desktop.write.errors import Refused

    with pytest.raises(Refused, match="FIFO"):
        files.add_probe("fifo", EvalProbe("q", "areas/a/one.html"))


def test_configurations_are_read_through_the_guard(store):
    root, secret = store
    from memhtml_desktop.domain.configs import ConfigError
    from memhtml_desktop.workbench import WorkbenchFiles

    (root / CONFIGS / "leak.json").symlink_to(secret)
    os.mkfifo(root / CONFIGS / "fifo.json")
    files = WorkbenchFiles(root)
    start = time.monotonic()
    listing = files.configurations()
    assert time.monotonic() - start < 2
    assert [c.name for c in listing.configurations] == ["memhtml", "default"]
    problems = " | ".join(str(p) for p in listing.problems)
    assert "leads out of the store" in problems and "FIFO" in problems and SECRET not in problems
    with pytest.raises(ConfigError, match="leads out of the store"):
        files.read_configuration("leak")


def test_the_sidecar_is_read_through_the_guard(store):
    root, secret = store
    from memhtml_desktop.index.sidecar import SidecarUnreadable, read_sidecar
    from memhtml_desktop.index.store import Store

    (root / ".memhtml" / "state").mkdir(parents=True)
    (root / ".memhtml" / "state" / "access.jsonl").symlink_to(secret)
    with pytest.raises(SidecarUnreadable, match="leads out of the store"):
        read_sidecar(root)
    store = Store(root, index_path=root.parent / "index.db")
    with pytest.raises(SidecarUnreadable):
        store.import_sidecar()
    exported = _cli(root, "state", "export")
    assert exported.returncode == 1 and "leads out of the store" in exported.stderr
    _never_committed(root)


def test_a_memory_that_links_out_is_not_drafted_or_edited(store):
    root, secret = store
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.drafts import memory_draft
    from memhtml_desktop.write.errors import PathNotFound, WriteError

    (root / "areas" / "a" / "leak.html").symlink_to(secret)
    _git(root, "add", "areas/a/leak.html")
    _git(root, "commit", "-qm", "a link among the memories")
    store = Store(root, index_path=root.parent / "index.db")
    with pytest.raises(PathNotFound):
        memory_draft(store, "areas/a/leak.html")
    proc = _cli(root, "archive", "areas/a/leak.html", "--reason", "r")
    assert proc.returncode == 1 and SECRET not in proc.stderr
    _never_committed(root)
    assert isinstance(PathNotFound("x"), WriteError)


def test_the_remembered_root_follows_a_store_link_re_pointed_between_reads(tmp_path):
    """The guard remembers a root's real path (guarded._real_root); a root re-pointed since is
    judged by where it leads now: the new home's files are read, a link from it into the old home
    (now outside the store) is refused, and a home moved under the same link still reads."""
    from memhtml_desktop.guarded import Unreadable, read_guarded

    first, second = tmp_path / "first", tmp_path / "second"
    for home in (first, second):
        (home / "areas").mkdir(parents=True)
        (home / "areas" / "note.html").write_text(f"<p>{home.name}</p>")
    (first / "areas" / "only-in-first.html").write_text("<p>first's own</p>")
    root = tmp_path / "store"
    root.symlink_to(first)
    assert read_guarded("areas/note.html", root=root) == b"<p>first</p>"

    (second / "areas" / "back.html").symlink_to(first / "areas" / "only-in-first.html")
    root.unlink()
    root.symlink_to(second)
    with pytest.raises(Unreadable, match="leads out of the store"):  # judged by the new home at once
        read_guarded("areas/back.html", root=root)
    assert read_guarded("areas/note.html", root=root) == b"<p>second</p>"

    moved = tmp_path / "moved"
    second.rename(moved)  # the same directory (same inode) under another path
    root.unlink()
    root.symlink_to(moved)
    assert read_guarded("areas/note.html", root=root) == b"<p>second</p>"
