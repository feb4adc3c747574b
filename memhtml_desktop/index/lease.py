"""A live watcher's lease on an index: its word that the index is in step with the store, so a read
from another process need not walk the store to find out.

Before a search, the command compares the tree with the index: one `stat` per memory file, 0.3 s of
CPU at 100,000 memories even for GNU find, however the walk is written, and a folder's own mtime
cannot stand in for its files' (an in-place save moves only the file's). A watcher in live mode
already knows: the kernel tells it of every change (inotify), and it indexes each within a second.
So while one runs and has nothing left to do, it says so in a small file beside the index,
`<index>.lease-<pid>` (JSON: its pid, machine and boot, the store, the index file's identity, its
state, a heartbeat, renewed every second), and a read that finds such a lease, fresh and from a
live process, answers without the walk (`Store.refresh(trust_watcher=True)`).

What the lease vouches for, and what it does not:
- `settled`: the watcher is live (kernel events, not polling), its queue is empty and no pass is
  running, nothing is left to reconcile, and no check is due that could find a missed change (a
  burst large enough to overflow the kernel's queue, or one that made folders, whose watches are
  checked after it). Every change the kernel reported before the heartbeat is in the index.
- `pending`: a change arrived (written from the observer's thread at the first event of a burst)
  or a check is due. A reader waits for `settled` (up to `WAIT_S`), then walks.
- A watcher that polls, lost a watch, is starting, stopping or stopped writes no lease (and
  removes its own); a lease whose process is gone or whose heartbeat is older than three beats
  (`stale`) is not trusted, so a killed watcher costs at most a walk.
- The gap it leaves open: a change made a few milliseconds before the read, whose event the kernel
  has not yet delivered to the watcher, is not in the answer. The walk closes that gap; the window
  has the same one. A file written through this app's own write verbs is indexed by the write
  itself, before the command returns.

Written to a temporary file and renamed (no fsync: a lease lost with a crash is only a walk).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from memhtml_desktop.index.vector_file import identity, process_alive

SETTLED, PENDING = "settled", "pending"
#: How long a read waits for a pending lease to settle before it walks (a burst's quiet window,
#: its pass, a check).
WAIT_S = 2.0
POLL_S = 0.02
#: A heartbeat older than this many beats is stale (the process is stopped, or too slow to trust).
BEATS = 3.0
_counter = itertools.count()


@dataclass(frozen=True)
class Lease:
    pid: int
    host: str
    boot: str
    store: str
    index: list[int] | None
    state: str
    since: float  # when this state began (time.time())
    heartbeat: float  # the last renewal (time.time())
    every: float  # seconds between renewals

    def fresh(self, now: float) -> bool:
        return self.heartbeat - 1.0 <= now <= self.heartbeat + max(BEATS * self.every, 2.0)


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def path_for(index_file: str | os.PathLike[str], pid: int | None = None) -> Path:
    return Path(f"{index_file}.lease-{os.getpid() if pid is None else pid}")


def write(index_file: str | os.PathLike[str], store_root: str, state: str, *, since: float, every: float) -> None:
    """This process's lease on `index_file` (raises OSError when it cannot be written)."""
    now = time.time()
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "boot": _boot_id(),
        "store": str(store_root),
        "index": identity(index_file),
        "state": state,
        "since": since,
        "heartbeat": now,
        "every": every,
    }
    target = path_for(index_file)
    temp = target.with_name(f".{target.name}.{os.getpid()}.{next(_counter)}.tmp")
    try:
        temp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def drop(index_file: str | os.PathLike[str]) -> None:
    """Remove this process's lease, if it has one."""
    with contextlib.suppress(OSError):
        path_for(index_file).unlink()


def _read(path: Path) -> Lease | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        lease = Lease(int(data["pid"]), str(data["host"]), str(data["boot"]), str(data["store"]),
                      list(data["index"]) if data["index"] is not None else None, str(data["state"]),
                      float(data["since"]), float(data["heartbeat"]), float(data["every"]))  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return lease


def holders(index_file: str | os.PathLike[str], store_root: str) -> list[Lease]:
    """The leases on `index_file` this process may trust: written on this machine since its boot,
    by a process that is still there, for this store and this very index file, heartbeat fresh.
    A lease left by a process that is gone is removed on the way."""
    index_file = Path(index_file)
    prefix = f"{index_file.name}.lease-"
    host, boot, mine, now = socket.gethostname(), _boot_id(), identity(index_file), time.time()
    out = []
    try:
        names = [n for n in os.listdir(index_file.parent) if n.startswith(prefix) and n[len(prefix) :].isdigit()]
    except OSError:
        return []
    for name in names:
        lease = _read(index_file.parent / name)
        if lease is None or lease.host != host or lease.boot != boot:
            continue
        if not process_alive(lease.pid):
            with contextlib.suppress(OSError):
                (index_file.parent / name).unlink()
            continue
        if lease.store == str(store_root) and lease.index == mine and mine is not None and lease.fresh(now):
            out.append(lease)
    return out


def in_step(index_file: str | os.PathLike[str], store_root: str, *, wait: float = WAIT_S) -> bool:
    """Whether a live watcher vouches that the index is in step with the store: a settled lease
    now, or one that settles within `wait` seconds (a burst being indexed)."""
    deadline = time.monotonic() + wait
    while True:
        leases = holders(index_file, store_root)
        if any(lease.state == SETTLED for lease in leases):
            return True
        if not leases or time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
