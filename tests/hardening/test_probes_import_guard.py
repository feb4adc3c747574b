"""`probes import` onto a set file that is not a regular file of the store (issue 40, item 5).

The set a pair file is imported into (`.memhtml-desktop/probes/SET.jsonl`) was read with a plain
`read_bytes()` before the new lines were appended: a committed link to `/dev/zero` read until the
machine ran out of memory, a FIFO hung the command for good, a link to `/proc/self/mem` gave
"unexpected error: OSError", and a link to a file outside the store was read (and its text would
have gone into the commit). Now the set is read through the store's one guard
(`guarded.read_guarded`, as `probes add` already was): each is refused with a sentence naming the
set and why, at once, nothing is committed. The pairs FILE itself (named on the command line, so
it may live anywhere) is held to a regular file under the cap: a FIFO or `/dev/zero` there was the
same hang.

Each case runs the real CLI in a subprocess with a timeout and an address-space limit, so a
regression fails the test instead of hanging or exhausting the suite's machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hardening_support import private_git

from write.support import git as _git

ROOT = Path(__file__).resolve().parents[2]
SECRET = "outside-text-that-must-never-be-read"
PROBES = ".memhtml-desktop/probes"
MEMORY = "areas/arcs/mobile-releases-ship-dark.html"  # a real memory of the demo store
DEMO = ROOT / "resources" / "demo-store"
PAIRS = '{"question": "how do mobile releases ship", "answer": "areas/arcs/mobile-releases-ship-dark.html"}\n'


@pytest.fixture
def store(tmp_path, monkeypatch):
    private_git(monkeypatch, tmp_path)
    root = tmp_path / "store"
    (root / MEMORY).parent.mkdir(parents=True)
    (root / MEMORY).write_bytes((DEMO / MEMORY).read_bytes())
    (root / PROBES).mkdir(parents=True)
    (root / PROBES / ".keep").write_text("")
    outside = tmp_path / "outside.jsonl"
    outside.write_text(SECRET + "\n")
    (tmp_path / "pairs.jsonl").write_text(PAIRS)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "seed")
    return root, outside


def _limited() -> None:
    # 2 GB of address space: a read of /dev/zero dies with MemoryError here instead of taking the machine
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _cli(root: Path, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--store", str(root), *argv],
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=timeout, preexec_fn=_limited)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} hung for {timeout} s")
    proc.seconds = time.monotonic() - start
    return proc


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "proc-self-mem", "link-out", "folder"])
def test_probes_import_onto_a_set_that_is_not_a_regular_file_of_the_store_is_refused(store, tmp_path, kind):
    root, outside = store
    target = root / PROBES / "faq.jsonl"
    expected = {"dev-zero": "leads out of the store", "fifo": "a FIFO", "proc-self-mem": "leads out of the store",
                "link-out": "leads out of the store", "folder": "a directory"}[kind]  # fmt: skip
    if kind == "dev-zero":
        target.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "proc-self-mem":
        target.symlink_to("/proc/self/mem")
    elif kind == "link-out":
        target.symlink_to(outside)
    else:
        target.mkdir()
        (target / "x").write_text("x")
    head = _git(root, "rev-parse", "HEAD")
    proc = _cli(root, "probes", "import", "faq", str(tmp_path / "pairs.jsonl"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert expected in proc.stderr and ".memhtml-desktop/probes/faq.jsonl" in proc.stderr, out
    assert "unexpected error" not in out and "Traceback" not in out and SECRET not in out
    assert proc.seconds < 45
    assert _git(root, "rev-parse", "HEAD") == head  # nothing committed
    assert outside.read_text() == SECRET + "\n"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_a_pairs_file_that_is_not_a_regular_file_is_refused(store, tmp_path, kind):
    root, _ = store
    pairs = tmp_path / f"pairs-{kind}"
    if kind == "fifo":
        os.mkfifo(pairs)
    elif kind == "dev-zero":
        pairs.symlink_to("/dev/zero")
    else:
        pairs.mkdir()
    proc = _cli(root, "probes", "import", "faq", str(pairs))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "unexpected error" not in out and "Traceback" not in out, out
    assert f"cannot read {pairs}" in proc.stderr and "not a regular file" in proc.stderr, out


def test_probes_import_onto_a_regular_set_still_appends(store, tmp_path):
    root, _ = store
    (root / PROBES / "faq.jsonl").write_text("# kept\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a set")
    proc = _cli(root, "probes", "import", "faq", str(tmp_path / "pairs.jsonl"))
    assert proc.returncode == 0, proc.stderr
    text = (root / PROBES / "faq.jsonl").read_text()
    assert text.startswith("# kept\n") and MEMORY in text
