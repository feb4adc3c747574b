"""Full disks for real: a small tmpfs filled to the last byte, or a file-size limit on the child.

`full_tmpfs` mounts a real tmpfs (root with CAP_SYS_ADMIN only; `MountUnavailable` otherwise, which
the tests turn into a skip with the reason). `fill` writes until the kernel says ENOSPC.
`run_cli_fsize` runs the CLI under `RLIMIT_FSIZE` with SIGXFSZ ignored: every write past the limit
fails with EFBIG, which SQLite reports through the same I/O-error path as a full disk (its
shared-memory file cannot grow), and needs no privileges, so CI always exercises the fix.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from hardening_support import PYTHON, child_env


class MountUnavailable(RuntimeError):
    """This process may not mount a filesystem (not root, or no CAP_SYS_ADMIN in this container)."""


@contextlib.contextmanager
def full_tmpfs(where: Path, size: str = "16m") -> Iterator[Path]:
    """A real tmpfs of `size` mounted at `where` for the duration of the block."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        raise MountUnavailable("mounting a tmpfs needs root")
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise MountUnavailable(f"mount -t tmpfs failed: {proc.stderr.strip() or proc.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(where: Path) -> int:
    """Write `where/filler` until the filesystem is full; returns the bytes written."""
    written = 0
    block = b"\0" * (1 << 16)
    with open(where / "filler", "wb", buffering=0) as handle:
        while True:
            try:
                written += handle.write(block)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
        # The last partial block, byte by byte, so not one free page is left.
        while True:
            try:
                written += handle.write(b"\0" * 512)
            except OSError:
                break
    return written


def free_bytes(where: Path) -> int:
    st = os.statvfs(where)
    return st.f_bavail * st.f_frsize


def _limit(limit_bytes: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return apply


def run_cli_fsize(
    args: list[str], *, limit_bytes: int = 1024, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """The CLI in a child that can write no file past `limit_bytes` (pipes are not files)."""
    return subprocess.run(
        [PYTHON, "-m", "memhtml_desktop", *args],
        capture_output=True,
        timeout=timeout,
        env=child_env(),
        preexec_fn=_limit(limit_bytes),
    )


# -- the scenario: every read command on a full disk (the test asserts it, the bench prints it) -----

PATH = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"  # read once before
FIRST = "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html"  # never read: its bump must write
OTHER = "areas/oncall/postgres-replica-lag-over-30-seconds-is-a-stuck-replication-slot.html"  # never read
COMMANDS = {
    "search --no-refresh": ["search", "drain the vip", "--no-refresh"],
    "search": ["search", "drain the vip"],
    "search --json": ["search", "drain the vip", "--json"],
    "read --no-bump": ["read", PATH, "--no-bump"],
    "read --json, read before": ["read", PATH, "--json"],
    "read --json, first read": ["read", FIRST, "--json"],
    "read, first read": ["read", OTHER],
    "list": ["list"],
    "recall": ["recall", "drain the vip"],
    "doctor": ["doctor"],
}


def prepare(root: Path, index: Path, *, state_journal: str = "rollback") -> None:
    """Index the store and read PATH once, so the state plane holds a row to show. `state_journal`
    "wal" turns state.db to WAL as a memhtml that uses WAL leaves it: then even attaching it needs a
    shared-memory file a full disk cannot give (the issue's IOError); "rollback" (how memhtml and
    this app create it) attaches fine and only a bump's write fails."""
    import apsw

    from memhtml_desktop.index.store import Store

    store = Store(root, index_path=index)
    store.index()
    assert store.read(PATH).bump.bumped == (PATH,)
    store.close_thread_connection()
    if state_journal == "wal":
        conn = apsw.Connection(str(root / ".memhtml" / "state.db"))
        assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        conn.close()


def give_the_refresh_work(root: Path) -> None:
    """Edit PATH, so a refresh has something to write (before the disk is filled). Without a change
    the refresh of a child started in the same second as `prepare`'s pass writes nothing (every
    timestamp it sets reads the same, and SQLite leaves a row whose bytes are unchanged unwritten):
    it rightly succeeds on a full disk and has nothing to say."""
    (root / PATH).write_bytes((root / PATH).read_bytes().replace(b"</article>", b"<p>edited</p></article>"))


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def reads_on_a_full_disk(root: Path, index: Path, run, *, index_full: bool) -> dict:
    """Each read command (and `reinforce`) through `run` (a CLI runner) on a store whose disk is full.

    `ok`: every read exits 0 without "unexpected error"; search finds the memory with salience still
    read (and `read --json` the stored count); a first read's bump is refused or lost naming the full
    disk, in JSON and in the human output; when the index's disk is full too, a refresh is skipped
    with a notice; `reinforce` exits 1 with "not recorded"; and state.db is byte for byte what it was.
    """
    import json
    import time

    state_db = root / ".memhtml" / "state.db"
    before = _digest(state_db)
    figures: dict = {"index_full": index_full, "commands": {}}
    outputs = {}
    ok = True
    for name, argv in COMMANDS.items():
        started = time.monotonic()
        proc = run([*argv, "--store", str(root), "--index", str(index)])
        out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
        outputs[name] = (proc.returncode, out, err)
        clean = proc.returncode == 0 and "unexpected error" not in err and "Traceback" not in err
        figures["commands"][name] = {
            "exit": proc.returncode,
            "seconds": round(time.monotonic() - started, 2),
            "notes": [line for line in err.splitlines() if line.startswith("note:")][:3],
        }
        ok = ok and clean
    try:
        hits = json.loads(outputs["search --json"][1])
        known = json.loads(outputs["read --json, read before"][1])
        first = json.loads(outputs["read --json, first read"][1])
    except ValueError:
        return {**figures, "ok": False}
    figures["search_hits"] = len(hits["hits"])
    figures["salience_read"] = "salience" in hits["arms"] and known["access"]["access_count"] == 1
    figures["bump"] = first["bump"]
    human = outputs["read, first read"][1]
    # not counted, and (issue 40) kept for later when the pending file could still be written, or not
    figures["says_not_counted"] = (
        "this read was not counted" in human or "this read is not counted yet" in human
    ) and "full" in human
    ok = ok and "prod-rollbacks-drain-the-vip" in outputs["search --no-refresh"][1] and figures["search_hits"] > 0
    ok = (
        ok and figures["salience_read"] and first["bump"]["bumped"] == [] and "full" in (first["bump"]["refused"] or "")
    )
    ok = ok and figures["says_not_counted"]
    if index_full:
        figures["refresh_skipped"] = "note: the index was not refreshed" in outputs["search"][2]
        if not figures["refresh_skipped"]:  # what a failure needs to be understood
            wal = Path(f"{index}-wal")
            figures["search_stderr"] = outputs["search"][2][-2000:]
            figures["wal_bytes"] = wal.stat().st_size if wal.exists() else None
        ok = ok and figures["refresh_skipped"]
    proc = run(["reinforce", PATH, "--signal", "positive", "--store", str(root), "--index", str(index)])
    err = proc.stderr.decode(errors="replace")
    figures["reinforce"] = {"exit": proc.returncode, "stderr": err.strip().splitlines()[-1:]}
    ok = ok and proc.returncode == 1 and "not recorded" in err and "full" in err
    figures["state_db_unchanged"] = _digest(state_db) == before
    figures["ok"] = ok and figures["state_db_unchanged"]
    return figures
