"""A CLI read on a store with nothing to recover does not import the write core (about 0.1 s of a
call); a store with a journal left by a crash still has it recovered first (tests/write cover how)."""

from __future__ import annotations

import os
import subprocess
import sys

from memfiles import write_memory

CHILD = """
import sys
from memhtml_desktop.cli import main
code = main(["--store", sys.argv[1], "--index", sys.argv[2], "search", "drain"])
print(code, "memhtml_desktop.write.curator" in sys.modules)
"""


def _search(root, index) -> str:
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(index)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_a_read_with_nothing_to_recover_leaves_the_write_core_unloaded(tmp_path):
    root = tmp_path / "store"
    write_memory(root, "areas/ops/drain.html", title="Drain", claim="Drain the node first.")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert _search(root, tmp_path / "index.db") == "0 False"


def test_a_journal_left_behind_brings_the_recovery_in(tmp_path):
    root = tmp_path / "store"
    write_memory(root, "areas/ops/drain.html", title="Drain", claim="Drain the node first.")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    os.makedirs(root / ".git" / "memhtml-desktop" / "journals" / "leftover")
    assert _search(root, tmp_path / "index.db") == "0 True"
