"""Issue 40's scenarios for the files the app opens in a store (items 2, 5, 6 and 8), rerun as found.

    python bench/issue40_files_bench.py [--ops 2000] [--out FILE.json]

Each scenario is set up the way the issue's adversarial round set it up, on a fresh copy of the
bundled demo store (a git repository), and run through the real CLI in child processes with a
timeout (or, where the issue used an open store, through one long-lived `Store`). It prints one
line per scenario, `held` or `BROKEN`, with what was seen, and exits 1 when any broke. The tests in
tests/hardening/ pin the same scenarios smaller; this runs them at the issue's sizes (the 2,000-op
`apply` killed with -9, a 100 MB ledger map) and in one place, for docs/reliability.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hardening"), str(ROOT / "tests")]

import hardening_support as hs  # noqa: E402

MEMORY = "areas/arcs/mobile-releases-ship-dark.html"
OTHER = "areas/arcs/postgres-under-invoice-load.html"
TIMEOUT = 90


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def fresh(work: Path, name: str) -> Path:
    root = hs.copy_demo(work / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "seed")
    return root


def indexed(work: Path, name: str) -> Path:
    """A fresh store, indexed by the CLI (into the cache the run's environment names)."""
    root = fresh(work, name)
    assert cli(root, "index")["exit"] == 0
    return root


def cli(root: Path, *argv: str, timeout: float = TIMEOUT) -> dict:
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--store", str(root), *argv],
                              capture_output=True, text=True, timeout=timeout, env=hs.child_env())  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"exit": None, "hung": True, "seconds": timeout, "out": "", "err": ""}
    return {
        "exit": proc.returncode,
        "hung": False,
        "seconds": round(time.monotonic() - started, 2),
        "out": proc.stdout,
        "err": proc.stderr,
    }


def clean(run: dict) -> bool:
    return not run["hung"] and "unexpected error" not in run["err"] and "Traceback" not in run["err"]


# -- item 2 ----------------------------------------------------------------------------------------------


def open_store_scenarios(work: Path) -> dict:
    """Replaced, deleted, moved away, a new inode, under one long-lived Store (the issue's window)."""
    import apsw

    from memhtml_desktop.index.store import Store

    out = {}
    root = fresh(work, "plane-open")
    store = Store(root, index_path=work / "plane-open.db")
    store.index()
    state_db = store.state_path
    for name in ("replaced", "deleted", "moved away", "new inode"):
        store.reinforce([MEMORY], "neutral")
        time.sleep(0.3)  # past the per-connection look interval
        before = len(store.notices)
        if name == "replaced":
            shutil.copyfile(state_db, work / "r.db")
            conn = apsw.Connection(str(work / "r.db"))
            conn.execute("UPDATE access SET access_count = access_count + 100")
            conn.close()
            os.replace(work / "r.db", state_db)
        elif name == "deleted":
            os.unlink(state_db)
        elif name == "moved away":
            os.rename(state_db, work / "moved.db")
        else:
            shutil.copyfile(state_db, work / "same.db")
            os.replace(work / "same.db", state_db)
        started = time.monotonic()
        while time.monotonic() - started < 2 and len(store.notices) == before:
            store.read(OTHER, bump=False)
            time.sleep(0.05)
        noticed = round(time.monotonic() - started, 2)
        result = store.reinforce([OTHER], "positive")
        _, rows = hs.read_state(state_db)
        said = store.notices[before:]
        ok = bool(said) and not result.refused and OTHER in rows and noticed < 2
        out[f"state.db {name} while open"] = {
            "ok": ok,
            "noticed_s": noticed,
            "said": said[:1],
            "bump": "landed in the file at the path" if OTHER in rows else "lost",
        }
    store.close_thread_connection()
    return out


def plane_file_scenarios(work: Path) -> dict:
    import apsw

    out = {}
    root = indexed(work, "plane-files")
    state_db = root / ".memhtml" / "state.db"
    aside = root / ".memhtml" / "state.real"
    outside = work / "outside.db"
    conn = apsw.Connection(str(outside))
    conn.execute("CREATE TABLE secret(x); INSERT INTO secret VALUES ('outside-value')")
    conn.close()
    digest = outside.read_bytes()
    os.rename(state_db, aside)
    for name in ("a FIFO", "a folder", "a link out of the store", "a link to /dev/zero", "a renamed column"):
        if name == "a FIFO":
            os.mkfifo(state_db)
        elif name == "a folder":
            state_db.mkdir()
        elif name == "a link out of the store":
            state_db.symlink_to(outside)
        elif name == "a link to /dev/zero":
            state_db.symlink_to("/dev/zero")
        else:
            shutil.copyfile(aside, state_db)
            conn = apsw.Connection(str(state_db))
            conn.execute("ALTER TABLE access RENAME COLUMN access_count TO reads")
            conn.close()
        runs = {argv[0]: cli(root, *argv) for argv in (("list", "--no-refresh"), ("search", "drain the vip", "--no-refresh"),
                                                        ("recall", "drain the vip", "--no-refresh"),
                                                        ("read", MEMORY, "--no-refresh"))}  # fmt: skip
        ok = all(r["exit"] == 0 and clean(r) and "salience is off" in r["err"] for r in runs.values())
        ok = ok and "not counted yet" in runs["read"]["out"]
        out[f"state.db is {name}"] = {
            "ok": ok,
            "exits": {k: r["exit"] for k, r in runs.items()},
            "slowest_s": max(r["seconds"] for r in runs.values()),
            "said": [line for line in runs["list"]["err"].splitlines() if "state.db" in line][:1],
        }
        if state_db.is_dir() and not state_db.is_symlink():
            state_db.rmdir()
        else:
            state_db.unlink()
    os.rename(aside, state_db)
    later = cli(root, "list", "--no-refresh")
    out["reads kept meanwhile are counted once it is back"] = {
        "ok": "written now" in later["err"],
        "said": [x for x in later["err"].splitlines() if "written now" in x],
    }
    untouched = outside.read_bytes() == digest
    out["the outside database is never written"] = {"ok": untouched and not Path(f"{outside}-journal").exists()}
    return out


# -- item 5 ----------------------------------------------------------------------------------------------


def probes_import_scenarios(work: Path) -> dict:
    out = {}
    root = fresh(work, "probes")
    pairs = work / "pairs.jsonl"
    pairs.write_text(json.dumps({"question": "how do mobile releases ship", "answer": MEMORY}) + "\n")
    probes = root / ".memhtml-desktop" / "probes"
    probes.mkdir(parents=True)
    target = probes / "faq.jsonl"
    for name in ("a link to /dev/zero", "a FIFO", "a link to /proc/self/mem"):
        if name == "a FIFO":
            os.mkfifo(target)
        else:
            target.symlink_to(name.split(" to ")[1])
        run = cli(root, "probes", "import", "faq", str(pairs))
        out[f"probes import onto {name}"] = {
            "ok": run["exit"] == 1 and clean(run) and "faq.jsonl" in run["err"],
            "seconds": run["seconds"],
            "said": run["err"].strip().splitlines()[-1:],
        }
        target.unlink()
    return out


# -- item 6 ----------------------------------------------------------------------------------------------


def ledgers_scenarios(work: Path) -> dict:
    target = indexed(work, "ledgers") / ".memhtml-desktop" / "ledgers.json"
    root = target.parent.parent
    target.parent.mkdir()
    out = {}
    secret = work / "outside.json"
    secret.write_text(json.dumps({"outside_secret_key": 1}))
    rule = {"ledger": "profile", "types": ["user_preference"]}
    cases = {
        "deep nesting": '{"rules": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "a 5,001-digit number": '{"window": 1' + "0" * 5000 + "}",
        "501 rules": json.dumps({"rules": [rule] * 501}),
        "a 100 MB file": None,
        "a link out of the store": secret,
        "a link to /dev/zero": Path("/dev/zero"),
        "a FIFO": "fifo",
        "a folder": "folder",
    }
    for name, what in cases.items():
        if what is None:
            with open(target, "wb") as handle:
                handle.write(b'{"name": "' + b"N" * (100 * 1024 * 1024) + b'"}')
        elif isinstance(what, Path):
            target.symlink_to(what)
        elif what == "fifo":
            os.mkfifo(target)
        elif what == "folder":
            target.mkdir()
        else:
            target.write_text(what)
        run = cli(root, "recall", "drain the vip", "--shape", "quotas", "--no-refresh")
        ok = run["exit"] == 1 and clean(run) and "ledgers.json" in run["err"] and "outside_secret_key" not in run["err"]
        ok = ok and len(run["err"]) < 1000
        out[f"ledgers.json is {name}"] = {
            "ok": ok,
            "seconds": run["seconds"],
            "said": run["err"].strip().splitlines()[-1:],
        }
        if target.is_dir() and not target.is_symlink():
            target.rmdir()
        else:
            target.unlink()
    fifo = work / "ledgers-fifo"
    os.mkfifo(fifo)
    run = cli(root, "recall", "drain the vip", "--shape", "quotas", "--no-refresh", "--ledgers", str(fifo))
    out["--ledgers FIFO"] = {
        "ok": run["exit"] == 1 and clean(run) and "FIFO" in run["err"],
        "seconds": run["seconds"],
        "said": run["err"].strip().splitlines()[-1:],
    }
    from memhtml_desktop.index.store import Store

    store = Store(root, index_path=work / "ledgers-lenient.db")
    for name in ("deep nesting", "a 5,001-digit number"):
        target.write_text(cases[name])
        fallback = store.ledger_map(lenient=True)  # what the window asks
        out[f"the window, ledgers.json is {name}"] = {
            "ok": bool(fallback.note) and fallback.name == "seed-003",
            "said": fallback.note[:160],
        }
    target.unlink()
    return out


# -- item 8 ----------------------------------------------------------------------------------------------


def recovery_scenarios(work: Path, ops: int) -> dict:
    out = {}
    root = indexed(work, "apply")
    batch = work / "ops.jsonl"
    batch.write_text("".join(json.dumps({"op": "write", "title": f"Agent note {i}", "type": "semantic",
                                         "body": f"Agent note {i} says something of its own, number {i}."}) + "\n"
                             for i in range(ops)))  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "memhtml_desktop", "--store", str(root), "apply", "--file", str(batch)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=hs.child_env(),
    )
    started = time.monotonic()
    while time.monotonic() - started < 600:  # kill -9 once a good part of the batch is on disk
        if len(list(root.rglob("agent-note-*.html"))) >= ops // 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(list(root.rglob("agent-note-*.html")))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "agent: save what is there")
    run = cli(root, "list", "--limit", "1")
    said = [line for line in run["err"].splitlines() if "interrupted write" in line]
    left = len(list(root.rglob("agent-note-*.html")))
    status = git(root, "status", "--porcelain")
    ok = (
        run["exit"] == 0
        and bool(said)
        and "rolled back an interrupted write" not in said[0]
        and "nothing was rolled back" in said[0]
        and left == written
        and status == ""
    )
    out[f"kill -9 of a {ops}-op apply, then git add -A && git commit"] = {
        "ok": ok,
        "files_on_disk": written,
        "files_after_recovery": left,
        "tree_clean": status == "",
        "said": [s[:300] for s in said],
    }
    moved = work / "apply-renamed"
    root2 = fresh(work, "undo")
    archived = cli(root2, "archive", MEMORY, "--reason", "retired")
    os.rename(root2, moved)
    undone = cli(moved, "undo")
    ok = archived["exit"] == 0 and undone["exit"] == 0 and "Revert" in git(moved, "log", "-1", "--format=%s")
    out["undo after the store's folder was renamed"] = {
        "ok": ok,
        "said": (undone["out"] + undone["err"]).strip().splitlines()[:1],
    }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=2000, help="the killed apply's batch size (the issue's: 2,000)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="issue40-files-"))
    os.environ.setdefault("MEMHTML_DESKTOP_CACHE", str(work / "cache"))
    os.environ.setdefault("MEMHTML_DESKTOP_DATA", str(work / "data"))
    for key, value in {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}.items():  # fmt: skip
        os.environ.setdefault(key, value)
    results: dict = {}
    try:
        for section in (open_store_scenarios, plane_file_scenarios, probes_import_scenarios, ledgers_scenarios):
            results.update(section(work))
        results.update(recovery_scenarios(work, args.ops))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    broke = 0
    for name, figures in results.items():
        broke += not figures["ok"]
        detail = {k: v for k, v in figures.items() if k != "ok"}
        print(f"{'held  ' if figures['ok'] else 'BROKEN'}  {name}  {json.dumps(detail, ensure_ascii=False)[:400]}")
    print(
        f"{len(results) - broke} of {len(results)} held; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
