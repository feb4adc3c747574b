"""Issue 17's busy-lock and full-disk scenarios as functions that return figures.

`test_busy_lock.py` and `test_full_disk.py` assert on them; `bench/reliability_bench.py --only
busy,disk` runs them at full size and prints the figures for docs/reliability.md. Every figure
comes from a real CLI process against a real store and index; `ok` is the same condition the test
asserts.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hardening_support import PYTHON, child_env, read_state, run_cli
from index_invariants import failed_paths, index_problems, path_hashes
from lock_holder import hold, release

from memhtml_desktop.index import db
from memhtml_desktop.index.store import Store

REFRESH_NOTE = "note: the index was not refreshed"
SHORT_BUSY_CLI = Path(__file__).resolve().with_name("short_busy_cli.py")


def args_for(root: Path, index: Path, *extra: str) -> list[str]:
    return [*extra, "--store", str(root), "--index", str(index)]


def read_commands(path: str) -> dict[str, list[str]]:
    """The read-only commands, each in human and JSON form where it has one."""
    return {
        "read": ["read", path],
        "read --json": ["read", path, "--json"],
        "list": ["list"],
        "list --json": ["list", "--json"],
        "search": ["search", "drain the vip"],
        "search --json": ["search", "drain the vip", "--json"],
        "recall": ["recall", "drain the vip"],
        "doctor": ["doctor"],
        "doctor --json": ["doctor", "--json"],
    }


def timed(run: Callable, argv: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = run(argv)
    return proc, round(time.monotonic() - started, 2)


def read_under_index_lock(
    root: Path, index: Path, name: str, argv: list[str], path: str, *, refresh_wait_s: float | None = None
) -> dict:
    """One read command while another process holds BEGIN IMMEDIATE on the index; with
    `refresh_wait_s`, its refresh gives up that soon instead of the app's 2 s (the answer is the same)."""
    holder = hold(index, 120)
    command = cli(refresh_wait_s=refresh_wait_s)
    try:
        proc, seconds = timed(
            lambda a: subprocess.run([*command, *a], capture_output=True, timeout=120, env=child_env()),
            args_for(root, index, *argv),
        )
    finally:
        release(holder)
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    figures = {
        "command": name,
        "exit": proc.returncode,
        "seconds": seconds,
        "noted": REFRESH_NOTE in err,
        "locked_error": "database is locked" in err or "BusyError" in err,
    }
    ok = proc.returncode == 0 and figures["noted"] and not figures["locked_error"] and "Traceback" not in err
    if "--json" in argv:
        try:
            json.loads(out)
        except ValueError:
            ok = False
    if argv[0] == "read":
        _, rows = read_state(root / ".memhtml" / "state.db")
        figures["read_counted"] = path in rows and rows[path][0] >= 1
        ok = ok and figures["read_counted"]
    figures["ok"] = ok
    figures["stderr_tail"] = err.strip().splitlines()[-2:]
    return figures


def cli(busy_ms: int | None = None, *, refresh_wait_s: float | None = None) -> list[str]:
    """The CLI's argv; with `busy_ms`, its SQLite busy wait that short, with `refresh_wait_s` a
    read's refresh giving up that soon (short_busy_cli.py)."""
    if busy_ms is None and refresh_wait_s is None:
        return [PYTHON, "-m", "memhtml_desktop"]
    wait = [] if refresh_wait_s is None else [f"--refresh-wait={refresh_wait_s:g}"]
    return [PYTHON, str(SHORT_BUSY_CLI), str(db.BUSY_TIMEOUT_MS if busy_ms is None else busy_ms), *wait]


def index_waits(
    root: Path, index: Path, *, hold_s: float, rebuild: bool, busy_ms: int | None = None, until_said: bool = False
) -> dict:
    """`index` (or `index --rebuild`) while another process holds the index longer than the busy timeout
    (the app's 5 s, or `busy_ms`). `until_said`: the lock is let go once the command says it is waiting
    (at most `hold_s`), not after a fixed `hold_s`: on a loaded machine a command still starting up when
    a fixed hold ends never meets the lock."""
    holder = hold(index, hold_s)
    argv = ["index", "--json"] + (["--rebuild"] if rebuild else [])
    said = threading.Event()
    lines: list[bytes] = []

    def read_stderr(stream) -> None:
        for line in stream:
            lines.append(line)
            if b"waiting" in line:
                said.set()

    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [*cli(busy_ms), *args_for(root, index, *argv)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
        )
        reader = threading.Thread(target=read_stderr, args=(proc.stderr,), daemon=True)
        reader.start()
        if until_said:  # or until it ends without saying so (a failure the figures show)
            while not said.wait(0.05) and proc.poll() is None and time.monotonic() - started < hold_s:
                pass
        else:
            time.sleep(max(0.0, hold_s - (time.monotonic() - started)))
    finally:
        release(holder)
        held = round(time.monotonic() - started, 2)
    out = proc.stdout.read()
    proc.wait(timeout=600)
    reader.join(60)
    seconds = round(time.monotonic() - started, 2)
    proc.stdout, proc.stderr = out, b"".join(lines)
    err = proc.stderr.decode(errors="replace")
    figures = {
        "command": " ".join(argv[:1] + argv[2:]),
        "held_s": held,
        "exit": proc.returncode,
        "seconds": seconds,
        "said_waiting": "waiting" in err,
    }
    try:
        figures["report"] = {k: v for k, v in json.loads(proc.stdout).items() if isinstance(v, (int, float))}
    except ValueError:
        figures["report"] = None
    # Whether it had to say "waiting" depends on when its first write came (a rebuild parses first).
    figures["ok"] = proc.returncode == 0 and figures["report"] is not None
    return figures


def lost_bump(root: Path, index: Path, path: str, *, hold_s: float = 90, busy_ms: int | None = None) -> dict:
    """`read` (JSON and human) and `reinforce` while state.db stays locked through every retry; then,
    the lock released, the next command writes what they kept.

    Issue 17 made such a bump say it was lost instead of being dropped in silence; issue 40 keeps it
    (`.memhtml/state.db-pending.jsonl`) and writes it once the plane is free, with its own instant.
    The name stays for the bench's section ("lost bump"). `busy_ms`: each attempt's SQLite busy wait in
    the three commands (short_busy_cli.py; default the app's 5 s, as the bench runs it)."""
    state_db = root / ".memhtml" / "state.db"
    _, before = read_state(state_db)
    holder = hold(state_db, hold_s)
    started = time.monotonic()
    try:
        procs = {
            name: subprocess.Popen(
                [*cli(busy_ms), *args_for(root, index, *argv)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=child_env(),
            )
            for name, argv in {
                "json": ["read", path, "--json", "--no-refresh"],
                "human": ["read", path, "--no-refresh"],
                "reinforce": ["reinforce", path, "--signal", "positive"],
            }.items()
        }
        done = {}
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=180)
            done[name] = (
                proc.returncode,
                out.decode(errors="replace"),
                err.decode(errors="replace"),
                round(time.monotonic() - started, 1),
            )
    finally:
        release(holder)
    code, out, err, seconds = done["json"]
    bump = json.loads(out)["bump"] if code == 0 else None
    human = done["human"]
    reinforce = done["reinforce"]
    _, during = read_state(state_db)
    later = run_cli(args_for(root, index, "list", "--no-refresh"), timeout=180)  # the next command writes them
    _, after = read_state(state_db)
    figures = {
        "read --json": {"exit": code, "seconds": seconds, "bump": bump},
        "read": {"exit": human[0], "seconds": human[3], "says_not_counted": "this read is not counted yet" in human[1]},
        "reinforce": {"exit": reinforce[0], "seconds": reinforce[3], "stderr": reinforce[2].strip().splitlines()[-1:]},
        "row_changed_while_held": before.get(path) != during.get(path),
        "next_command": {"exit": later.returncode, "said": "written now" in later.stderr.decode(errors="replace")},
        "counted_later": (after.get(path) or (0,))[0] > (before.get(path) or (0,))[0]
        and (after.get(path) or (0, 0))[1] > (before.get(path) or (0, 0))[1],
    }
    figures["ok"] = (
        code == 0
        and bump is not None
        and bump["queued"] is True
        and bump["lost"] is False
        and "locked" in (bump["refused"] or "")
        and human[0] == 0
        and figures["read"]["says_not_counted"]
        and reinforce[0] == 1
        and "not recorded yet" in reinforce[2]
        and "unexpected" not in reinforce[2]
        and not figures["row_changed_while_held"]
        and later.returncode == 0
        and figures["next_command"]["said"]
        and figures["counted_later"]
    )
    return figures


def rebuilds_beside_watchers(
    root: Path, index: Path, work: Path, *, churn_paths: int = 300, rebuilds: int = 2, watchers: int = 2
) -> dict:
    """`watchers` headless watchers and `rebuilds` concurrent `index --rebuild` runs on one index while
    files keep changing; then, once quiet, the index must equal a fresh rebuild of the tree."""
    assert run_cli(args_for(root, index, "index"), timeout=1800).returncode == 0
    watching = [
        subprocess.Popen(
            [PYTHON, "-m", "memhtml_desktop", *args_for(root, index, "watch")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
        )
        for _ in range(watchers)
    ]
    stop = threading.Event()
    paths = sorted(p for p in root.rglob("*.html") if "archive" not in p.parts)[:churn_paths]
    edits = [0]

    def churn() -> None:
        while not stop.is_set():
            target = paths[edits[0] % len(paths)]
            data = target.read_bytes()
            target.write_bytes(data.replace(b"</article>", f"<p>churn {edits[0]}</p></article>".encode(), 1))
            edits[0] += 1
            time.sleep(0.01)

    churner = threading.Thread(target=churn)
    outcomes = []
    try:
        time.sleep(2)
        churner.start()
        started = time.monotonic()
        runs = [
            subprocess.Popen(
                [PYTHON, "-m", "memhtml_desktop", *args_for(root, index, "index", "--rebuild")],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=child_env(),
            )
            for _ in range(rebuilds)
        ]
        for proc in runs:
            _, err = proc.communicate(timeout=3600)
            outcomes.append(
                {
                    "exit": proc.returncode,
                    "seconds": round(time.monotonic() - started, 1),
                    "waited": "waiting" in err.decode(errors="replace"),
                    "stderr_tail": err.decode(errors="replace").strip().splitlines()[-2:],
                }
            )
    finally:
        stop.set()
        if churner.is_alive():
            churner.join()
        for watcher in watching:
            watcher.send_signal(signal.SIGINT)
        watcher_exits = []
        for watcher in watching:
            try:
                watcher_exits.append(watcher.wait(timeout=120))
            except subprocess.TimeoutExpired:
                watcher.kill()
                watcher_exits.append("killed")
    final = run_cli(args_for(root, index, "index"), timeout=1800).returncode
    fresh = Store(root, index_path=work / "fresh.db")
    fresh.index()
    mine = Store(root, index_path=index)
    problems = index_problems(mine.reader())
    same = path_hashes(mine.reader()) == path_hashes(fresh.reader()) and failed_paths(mine.reader()) == failed_paths(
        fresh.reader()
    )
    figures = {
        "rebuilds": outcomes,
        "watcher_exits": watcher_exits,
        "edits": edits[0],
        "final_index_exit": final,
        "index_problems": problems,
        "equals_fresh_rebuild": same,
    }
    figures["ok"] = (
        all(o["exit"] == 0 for o in outcomes)
        and watcher_exits == [0] * watchers
        and final == 0
        and not problems
        and same
    )
    return figures
