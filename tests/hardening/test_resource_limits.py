"""Item 8: a 50 MB memory file is refused quickly, with a problem entry, at bounded memory.

Measured in a fresh process (`rss_probe.py big-file`): the demo store is indexed first as a warm-up
and its peak RSS (VmHWM) taken as the baseline; then the 50 MB file is moved in, indexed, and read
as the reader would read it. The bound on the growth of the peak, 32 MB, is
`2 * scanner.MAX_FILE_BYTES + 16 MB`: the refusal reads at most MAX_FILE_BYTES + 1 bytes (8 MB),
a decode or copy of those may double it, and 16 MB covers SQLite's and Python's working memory for
one more write transaction. Reading the whole file would alone add 50 MB and fail the bound.
The 100,000-file store and the window's responsiveness are measured by bench/reliability_bench.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hardening_support import child_env, copy_demo

from memhtml_desktop.index.scanner import MAX_FILE_BYTES

PROBE = Path(__file__).with_name("rss_probe.py")
FIFTY_MB = 50 * 1024 * 1024
GROWTH_BOUND_KB = (2 * MAX_FILE_BYTES + 16 * 1024 * 1024) // 1024


def write_big_memory(path: Path, template: bytes, size: int) -> None:
    """A well-formed memory whose article is one enormous paragraph (streamed: the test holds none of it)."""
    head, _, tail = template.partition(b"</article>")
    chunk = b"lorem ipsum dolor deploy rollback " * 4096
    with open(path, "wb") as handle:
        handle.write(head + b"<p>")
        written = len(head) + 3
        while written < size - len(tail) - 20:
            handle.write(chunk)
            written += len(chunk)
        handle.write(b"</p></article>" + tail)


def test_a_50_mb_memory_is_refused_quickly_at_bounded_memory(tmp_path):
    root = copy_demo(tmp_path / "store")
    template = next((root / "areas/oncall").glob("*.html")).read_bytes()
    big = tmp_path / "big.html"
    write_big_memory(big, template, FIFTY_MB)
    assert big.stat().st_size >= FIFTY_MB
    proc = subprocess.run(
        [
            sys.executable,
            str(PROBE),
            "big-file",
            str(root),
            str(tmp_path / "index.db"),
            str(big),
            "areas/huge/fifty-megabytes.html",
        ],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    growth = out["after_read"]["VmHWM"] - out["baseline"]["VmHWM"]
    print(
        f"50 MB file: index {out['index_s']} s, read {out['read_s']} s; peak RSS {out['baseline']['VmHWM']} kB "
        f"-> {out['after_read']['VmHWM']} kB (+{growth} kB, bound {GROWTH_BOUND_KB} kB)"
    )
    assert out["index_s"] < 3 and out["read_s"] < 1
    assert growth <= GROWTH_BOUND_KB, growth
    assert out["report"]["failed"] == 1 and out["report"]["added"] == 0
    ((_, kind, violations),) = out["problems"]
    assert kind == "unreadable" and "MB" in violations[0] and "not indexed" in violations[0]
    assert out["file_bytes_is_none"] and out["read"].startswith("MemoryNotFound")


def test_the_bound_would_catch_a_whole_file_read(tmp_path):
    """Non-vacuity: the same measurement around reading the 50 MB file in full exceeds the bound."""
    big = tmp_path / "big.bin"
    write_big_memory(big, b"<article></article>", FIFTY_MB)
    code = (
        "import sys; sys.path.insert(0, %r); from rss_probe import status; "
        "b = status()['VmHWM']; data = open(%r, 'rb').read(); print(status()['VmHWM'] - b)"
        % (str(PROBE.parent), str(big))
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert int(proc.stdout.strip()) > GROWTH_BOUND_KB
