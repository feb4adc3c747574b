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


def _search(root, index, child: str = CHILD) -> str:
    out = subprocess.run(
        [sys.executable, "-c", child, str(root), str(index)], capture_output=True, text=True, timeout=120
    )
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


INDEX_CHILD = """
import sys
from memhtml_desktop.cli import main
code = main(["--store", sys.argv[1], "--index", sys.argv[2], "index"])
print(code, "memhtml_desktop.index.parse_pool" in sys.modules, "memhtml_desktop.html.project" in sys.modules)
"""


def _index(root, index) -> str:
    return _search(root, index, INDEX_CHILD)


def test_an_index_with_nothing_to_do_leaves_the_parser_unloaded(tmp_path):
    """`index` on an unchanged store walks and compares; the parser and its pool (about 30 ms of
    imports) come in only when a file is to be read."""
    root = tmp_path / "store"
    for i, name in enumerate(("areas/ops/drain.html", "projects/x/ünï.html", "resources/r.html")):
        write_memory(root, name, title=f"Memory {i}", claim=f"Fact {i} holds.")
    index = tmp_path / "index.db"
    assert _index(root, index) == "0 True True"  # the first pass reads every file
    assert _index(root, index) == "0 False False"  # nothing to do (and keeps its walk)
    assert _index(root, index) == "0 False False"  # stands on the kept walk
    write_memory(root, "areas/ops/drain.html", title="Drain", claim="Drain the node first, then revert.")
    assert _index(root, index) == "0 True True"


LOADED_CHILD = """
import sys
from memhtml_desktop.cli import main
code = main(["--store", sys.argv[1], "--index", sys.argv[2], "search", "--no-refresh", "drain the node"])
unwanted = ("memhtml_desktop.index.curation", "memhtml_desktop.index.shape_reads", "memhtml_desktop.domain.results",
            "memhtml_desktop.index.sidecar", "memhtml_desktop.index.parse_pool", "memhtml_desktop.write.curator")
print(code, sorted(m for m in unwanted if m in sys.modules))
"""


def test_a_search_leaves_the_curation_the_shapes_and_the_parser_unloaded(tmp_path):
    """What a `memhtml-desktop search` imports is its start: the quota shape's cache, the curation
    module (with the sidecar and the results types), the parser and the write core stay out of it."""
    root = tmp_path / "store"
    for i, name in enumerate(("areas/ops/drain.html", "areas/ops/drain-first.html", "projects/x/node.html")):
        write_memory(root, name, title=f"Drain {i}", claim=f"Drain the node {'first' if i else 'last'}, step {i}.")
    index = tmp_path / "index.db"
    assert _index(root, index).startswith("0 ")
    assert _search(root, index, LOADED_CHILD) == "0 []"
