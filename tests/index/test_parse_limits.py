"""One agent-written file must not stall indexing (issue 40, item 3): a file past the parse budget
is listed under Problems with the limit it broke, and the rest of the store is indexed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.devtools.store_render import minimal_memory

ROOT = Path(__file__).resolve().parents[2]
PER_ELEMENT = "unreadable: more than 1000 attributes on one <p> (an element of a memory file may have 1000)"


def crowded_memory(attributes: int) -> bytes:
    """A valid memory but for one `<p>` carrying `attributes` distinct attributes (`k0=""`, `k1=""` …)."""
    text = minimal_memory("Crowded", "An agent wrote every key it saw onto the paragraph.")
    return text.replace("<p><mark>", "<p " + " ".join(f'k{i:x}=""' for i in range(attributes)) + "><mark>").encode()


def test_the_store_is_indexed_and_the_file_listed(store_root, make_store):
    generate_store(store_root, 60, 5, invalid=0)
    (store_root / "areas/agent").mkdir(parents=True, exist_ok=True)
    (store_root / "areas/agent/crowded.html").write_bytes(crowded_memory(1_001))
    (store_root / "areas/agent/fine.html").write_bytes(crowded_memory(1_000))
    store = make_store(store_root)
    report = store.index()
    assert report.failures == [("areas/agent/crowded.html", PER_ELEMENT)]
    assert report.added == 61  # the 60 and the one at the limit
    problems = {p.path: p for p in store.problems()}
    assert list(problems["areas/agent/crowded.html"].violations) == [PER_ELEMENT]
    assert store.search("agent wrote every key").hits[0].path == "areas/agent/fine.html"


def test_the_cli_indexes_a_store_holding_the_issue_file(tmp_path):
    """The issue's file (700,000 attributes, 6.9 MB) among 50 memories: `index` finishes and names
    it. Before, lexbor spent hours on it. The timeout is a hang guard (it takes seconds)."""
    store = tmp_path / "store"
    generate_store(store, 50, 3, invalid=0)
    huge = crowded_memory(700_000)
    assert 6_000_000 < len(huge) < 8 * 1024 * 1024
    (store / "areas/agent").mkdir(parents=True, exist_ok=True)
    (store / "areas/agent/huge.html").write_bytes(huge)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop",
            "--store",
            str(store),
            "--index",
            str(tmp_path / "i.db"),
            "--embedder",
            "hash",
            "index",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["seen"], report["indexed"], report["failed"]) == (51, 50, 1)
    assert report["failures"] == [{"path": "areas/agent/huge.html", "reason": PER_ELEMENT}]
