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
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                          capture_output=True, text=True)
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


def run_cli_fsize(args: list[str], *, limit_bytes: int = 1024, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """The CLI in a child that can write no file past `limit_bytes` (pipes are not files)."""
    return subprocess.run([PYTHON, "-m", "memhtml_desktop", *args], capture_output=True, timeout=timeout,
                          env=child_env(), preexec_fn=_limit(limit_bytes))
