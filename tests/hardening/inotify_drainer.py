"""A second process that takes every inotify watch its user may still add, and keeps them.

    python inotify_drainer.py SCRATCH_DIR

Creates files in SCRATCH_DIR as needed and adds one watch per file (a new inotify instance every
4,096 files) until the kernel answers ENOSPC (the user's watch limit) or EMFILE (its instance
limit); prints `drained N` and holds every watch until its stdin closes. Run it in the same user
namespace as the watcher under test, where the limit is the namespace's own
(`/proc/sys/user/max_inotify_watches`), so no other process on the machine loses a watch.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from pathlib import Path

IN_MODIFY = 0x00000002
PER_INSTANCE = 4096


def main(scratch: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    root = Path(scratch)
    root.mkdir(parents=True, exist_ok=True)
    instances: list[int] = []
    drained = 0
    reason = ""
    while not reason:
        fd = libc.inotify_init1(os.O_CLOEXEC)
        if fd < 0:
            reason = errno.errorcode.get(ctypes.get_errno(), "?")
            break
        instances.append(fd)
        for i in range(PER_INSTANCE):
            target = root / f"w{i:05d}"
            if not target.exists():
                target.touch()
            if libc.inotify_add_watch(fd, os.fsencode(target), IN_MODIFY) < 0:
                reason = errno.errorcode.get(ctypes.get_errno(), "?")
                break
            drained += 1
    print(f"drained {drained} ({reason})", flush=True)
    sys.stdin.read()  # hold until the parent closes our stdin
    for fd in instances:
        os.close(fd)


if __name__ == "__main__":
    main(sys.argv[1])
