"""Issue 17, "still untested": odd inputs, each ending in a clear message or a clean skip while the
rest of the store is indexed.

A 50 MB single line (as a memory file with no newline at all, as a pasted query, as a line of the
committed access sidecar); a 1 MB `<title>`; 10,000 tags on one memory; NUL bytes inside
attributes; symlinks to `/dev/zero` and to a huge file outside the store, and a device node inside
it; a file swapped for a FIFO between stat and open. (Daylight-saving boundaries are in
test_time_order.py; draining inotify watches in test_inotify_drain.py.)
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import textwrap

import pytest
from hardening_support import PYTHON, ROOT, child_env, copy_demo, demo_memories, run_cli

from memfiles import memory_html, write_memory
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store

FIFTY_MB = 50 * 1024 * 1024
DEMO_COUNT = len(demo_memories())


def _args(root, index, *extra):
    return [*extra, "--store", str(root), "--index", str(index)]


def _indexed_demo(store: Store) -> int:
    """How many of the demo store's memories (valid or listed as problems) the index knows."""
    (count,) = store.reader().execute("SELECT count(*) FROM sources WHERE path NOT LIKE 'areas/odd/%'").fetchone()
    return count


# -- a 50 MB single line -------------------------------------------------------------------------

QUERY_PROBE = textwrap.dedent("""
    import sys, time, json
    sys.path[:0] = [{tests!r}, {hard!r}]
    from hardening_support import copy_demo
    from pathlib import Path
    from memhtml_desktop.index.store import Store
    def peak():
        return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    root = copy_demo(Path({tmp!r}) / "store")
    store = Store(root, index_path=Path({tmp!r}) / "index.db")
    store.index()
    store.search("warm up the drain vip")
    store.recall("warm up")
    base = peak()
    query = ("drain the vip " * 4_000_000)[:{size}]
    out = {{}}
    t = time.perf_counter(); result = store.search(query)
    out["search"] = [time.perf_counter() - t, len(result.hits), list(result.degraded_reasons)]
    t = time.perf_counter(); pack = store.recall(query)
    out["recall"] = [time.perf_counter() - t, len(pack.memories.items), list(pack.degraded_reasons)]
    t = time.perf_counter(); why = store.why(query, None, "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html")
    out["why"] = [time.perf_counter() - t, why.status]
    out["growth_kb"] = peak() - base
    print(json.dumps(out))
""")


def test_a_50_mb_single_line_query_is_cut_with_a_notice_at_bounded_memory(tmp_path):
    """Pasting 50 MB into the search box took 37 s and 4.3 GB of peak RSS. The query is now cut at
    the door (10,000 characters) and the result says so."""
    code = QUERY_PROBE.format(
        tests=str(ROOT / "tests"), hard=str(ROOT / "tests" / "hardening"), tmp=str(tmp_path), size=FIFTY_MB
    )
    proc = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=child_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print(out)
    assert out["search"][1] > 0 and any("cut" in r for r in out["search"][2])
    assert out["recall"][1] > 0 and any("cut" in r for r in out["recall"][2])
    # The 50 MB str itself and one copy are allowed for; 4 GB of tokenising is not.
    assert out["growth_kb"] < 4 * FIFTY_MB // 1024, out


def test_a_50_mb_memory_file_on_one_line_is_refused_and_the_rest_indexed(tmp_path):
    root = copy_demo(tmp_path / "store")
    one_line = memory_html(title="One line", claim="A claim on one line.").replace("\n", " ").encode()
    head, _, tail = one_line.partition(b"</p>")
    target = root / "areas/odd/one-line.html"
    target.parent.mkdir(parents=True)
    with open(target, "wb") as handle:
        handle.write(head)
        filler = b" lorem ipsum" * 100_000
        while handle.tell() < FIFTY_MB:
            handle.write(filler)
        handle.write(b"</p>" + tail)
    assert b"\n" not in target.read_bytes()[:1024] and target.stat().st_size >= FIFTY_MB
    index = tmp_path / "index.db"
    proc = run_cli(_args(root, index, "index"))
    assert proc.returncode == 0, proc.stderr
    assert re.search(
        r"areas/odd/one-line.html: unreadable: file is 50\.\d MB; memory files over 8 MB are not indexed",
        proc.stdout.decode(),
    )
    store = Store(root, index_path=index)
    assert _indexed_demo(store) == DEMO_COUNT
    proc = run_cli(_args(root, index, "read", "areas/odd/one-line.html"))
    assert proc.returncode == 1 and b"memory files over 8 MB are not read" in proc.stderr


def test_a_50_mb_line_in_the_access_sidecar_is_one_skipped_line(tmp_path):
    """Three lines: a row, a 50 MB one (a valid JSON object whose path is 50 MB), a row. The huge
    line is refused with a reason (a path longer than any file system allows is not a memory), and
    the other two are imported."""
    root = copy_demo(tmp_path / "store")
    index = tmp_path / "index.db"
    sidecar = tmp_path / "access.jsonl"
    row = {
        "accessCount": 3,
        "reinforcementCount": 0,
        "outcomeScore": 0,
        "lastAccessedAt": "2026-03-01T00:00:00Z",
        "lastReinforcedAt": None,
        "updatedAt": "2026-03-01T00:00:00Z",
    }
    with open(sidecar, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"path": "areas/oncall/a.html", **row}) + "\n")
        handle.write(json.dumps({"path": "areas/" + "x" * FIFTY_MB + ".html", **row}) + "\n")
        handle.write(json.dumps({"path": "areas/oncall/b.html", **row}) + "\n")
    proc = run_cli(_args(root, index, "state", "import", str(sidecar)), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert b"imported 2 rows; skipped 1 unparseable lines" in proc.stdout
    assert b"line 2: path is longer than" in proc.stderr
    assert len(proc.stderr) < 2000  # the reason, not the line
    store = Store(root, index_path=index)
    assert store.reader().execute("SELECT max(length(path)) FROM state.access").fetchone()[0] < 100


# -- a 1 MB title, 10,000 tags, NUL bytes ------------------------------------------------------


def test_a_1_mb_title_is_indexed_searchable_and_clipped_on_the_terminal(tmp_path):
    root = copy_demo(tmp_path / "store")
    write_memory(
        root, "areas/odd/long-title.html", title="zanzibar " * 116_509, claim="A memory whose title is a megabyte."
    )
    assert (root / "areas/odd/long-title.html").stat().st_size > 1_000_000
    index = tmp_path / "index.db"
    assert run_cli(_args(root, index, "index")).returncode == 0
    store = Store(root, index_path=index)
    assert _indexed_demo(store) == DEMO_COUNT
    assert store.search("zanzibar").hits[0].path == "areas/odd/long-title.html"
    for command in (["list", "--limit", "200"], ["search", "zanzibar"]):
        proc = run_cli(_args(root, index, *command))
        assert proc.returncode == 0
        assert max(len(line) for line in proc.stdout.decode().splitlines()) < 400
    detail = json.loads(run_cli(_args(root, index, "read", "areas/odd/long-title.html", "--json")).stdout)
    assert len(detail["title"]) == len(("zanzibar " * 116_509).strip())


def test_ten_thousand_tags_on_one_memory(tmp_path):
    root = copy_demo(tmp_path / "store")
    tags = [f"t{i:05d}" for i in range(10_000)]
    write_memory(root, "areas/odd/tagged.html", title="Tagged", claim="A memory with ten thousand tags.", tags=tags)
    index = tmp_path / "index.db"
    proc = run_cli(_args(root, index, "index"))
    assert proc.returncode == 0, proc.stderr
    store = Store(root, index_path=index)
    assert _indexed_demo(store) == DEMO_COUNT
    assert (
        store.reader().execute("SELECT count(*) FROM file_tags WHERE path = 'areas/odd/tagged.html'").fetchone()[0]
        == 10_000
    )
    assert [m.path for m in store.list(Scope.build(tags=["t09999"])).files] == ["areas/odd/tagged.html"]
    assert store.search("ten thousand tags", Scope.build(tags=tags[:1000])).hits[0].path == "areas/odd/tagged.html"
    with pytest.raises(ValueError, match="at most 1000 tags"):
        Scope.build(tags=tags)
    detail = store.read("areas/odd/tagged.html", bump=False)
    assert len(detail.tags) == 10_000
    proc = run_cli(_args(root, index, "list", "--tag", "t04242"))
    assert proc.returncode == 0 and b"areas/odd/tagged.html" in proc.stdout


def test_nul_bytes_inside_attributes(tmp_path):
    root = copy_demo(tmp_path / "store")
    cases = {
        "meta-content": memory_html(
            title="Nul meta", claim="A nul meta claim.", tags=["a\x00b"], entities=["service:x\x00y"]
        ),
        "title-and-time": memory_html(title="Nul\x00title", claim="A nul time claim.", event="2026-03-01\x00"),
        "class-attr": memory_html(title="Nul class", claim="A nul class claim.").replace("<p>", '<p class="\x00">'),
        "href": memory_html(
            title="Nul link", claim="A nul link claim.", links=[("supersedes", "/areas/oncall/x\x00.html")]
        ),
        "meta-name": memory_html(title="Nul name", claim="A nul name claim.", extra_metas=[("memhtml-\x00tag", "z")]),
    }
    for name, text in cases.items():
        target = root / f"areas/odd/{name}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    index = tmp_path / "index.db"
    proc = run_cli(_args(root, index, "index", "--json"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    store = Store(root, index_path=index)
    assert _indexed_demo(store) == DEMO_COUNT
    known = dict(store.reader().execute("SELECT path, status FROM sources WHERE path LIKE 'areas/odd/%'"))
    assert len(known) == len(cases)
    for failure in report["failures"]:
        assert failure["reason"] and "\x00" not in failure["reason"]
    for path in known:
        detail = json.loads(run_cli(_args(root, index, "read", path, "--json", "--no-bump")).stdout)
        assert "\x00" not in json.dumps(detail, ensure_ascii=False)
        human = run_cli(_args(root, index, "read", path, "--no-bump"))
        assert human.returncode == 0 and b"\x00" not in human.stdout


# -- links out, devices, FIFOs ----------------------------------------------------------------


def test_symlinks_to_dev_zero_and_to_a_huge_file_outside_are_skipped(tmp_path):
    root = copy_demo(tmp_path / "store")
    huge = tmp_path / "outside" / "huge.html"
    huge.parent.mkdir()
    with open(huge, "wb") as handle:
        handle.truncate(64 * 1024**3)  # 64 GB, sparse
    (root / "areas/odd").mkdir()
    os.symlink("/dev/zero", root / "areas/odd/zero.html")
    os.symlink(huge, root / "areas/odd/huge.html")
    made_device = False
    if os.geteuid() == 0:
        try:
            os.mknod(root / "areas/odd/device.html", 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
            made_device = True
        except OSError:
            pass
    index = tmp_path / "index.db"
    proc = run_cli(_args(root, index, "index"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "skipped areas/odd/zero.html: symlink points outside the store; not read" in out
    assert "skipped areas/odd/huge.html: symlink points outside the store; not read" in out
    if made_device:
        assert "skipped areas/odd/device.html: not a regular file" in out
    store = Store(root, index_path=index)
    assert _indexed_demo(store) == DEMO_COUNT
    for name in ("zero", "huge", *(("device",) if made_device else ())):
        proc = run_cli(_args(root, index, "read", f"areas/odd/{name}.html"), timeout=60)
        assert proc.returncode == 1
        assert b"no memory file at" in proc.stderr and b"Traceback" not in proc.stderr


SWAP_PROBE = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from memhtml_desktop.index.scanner import read_bytes, stat_one
    root = Path(sys.argv[1]); path = "areas/odd/swapped.html"
    assert stat_one(root, path) is not None        # the scan's stat: a regular file
    os.unlink(root / path); os.mkfifo(root / path)  # swapped before the open
    try:
        read_bytes(root, path)
        print("read")
    except (OSError, ValueError) as exc:
        print("refused:", exc)
""")


def test_a_file_swapped_for_a_fifo_between_stat_and_open_is_refused_not_waited_on(tmp_path):
    """Opening a FIFO with no writer blocks forever; the reader used to hang there."""
    root = tmp_path / "store"
    write_memory(root, "areas/odd/swapped.html", title="Swapped", claim="A file that becomes a FIFO.")
    proc = subprocess.run(
        [PYTHON, "-c", SWAP_PROBE, str(root)], capture_output=True, text=True, env=child_env(), timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("refused: ") and "not a regular file" in proc.stdout


RACE_PROBE = textwrap.dedent("""
    import os, sys, threading
    from pathlib import Path
    from memhtml_desktop.index.store import Store
    root = Path(sys.argv[1]); paths = [f"areas/odd/swap-{i}.html" for i in range(8)]
    store = Store(root, index_path=root.parent / "index.db")
    store.index()
    data = {p: (root / p).read_bytes() for p in paths}
    stop = threading.Event()
    def swap():
        n = 0
        while not stop.is_set():
            p = paths[n % len(paths)]; n += 1
            tmp = root / (p + ".tmp")
            os.mkfifo(tmp); os.replace(tmp, root / p)   # a FIFO where the file was
            tmp.write_bytes(data[p]); os.replace(tmp, root / p)  # and the file back
    swapper = threading.Thread(target=swap); swapper.start()
    try:
        for _ in range(300):
            store.update_paths(paths)
    finally:
        stop.set(); swapper.join()
    report = store.index()
    print("ok", report.seen)
""")


@pytest.mark.slow
def test_an_index_pass_racing_fifo_swaps_never_hangs(tmp_path):
    root = copy_demo(tmp_path / "store")
    for i in range(8):
        write_memory(root, f"areas/odd/swap-{i}.html", title=f"Swap {i}", claim=f"Swap claim {i}.")
    proc = subprocess.run(
        [PYTHON, "-c", RACE_PROBE, str(root)], capture_output=True, text=True, env=child_env(), timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok ")
    store = Store(root, index_path=tmp_path / "index.db")
    assert _indexed_demo(store) == DEMO_COUNT
    # Once the swapping stops, the last pass indexed every file as the file it is.
    assert store.reader().execute("SELECT count(*) FROM files WHERE path LIKE 'areas/odd/swap-%'").fetchone()[0] == 8


def test_reading_a_fifo_memory_path_answers_at_once(tmp_path):
    root = copy_demo(tmp_path / "store")
    (root / "areas/odd").mkdir()
    os.mkfifo(root / "areas/odd/pipe.html")
    index = tmp_path / "index.db"
    proc = run_cli(_args(root, index, "index"), timeout=60)
    assert proc.returncode == 0 and b"skipped areas/odd/pipe.html: not a regular file" in proc.stdout
    proc = run_cli(_args(root, index, "read", "areas/odd/pipe.html"), timeout=60)
    assert proc.returncode == 1 and b"no memory file at areas/odd/pipe.html" in proc.stderr
