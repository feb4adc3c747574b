"""Choosing how to learn about changes: kernel events when they work, polling when they cannot.

Kernel events (inotify on Linux) are the default. Polling (`poller.StatPoller`: folders stat'ed
every `interval` seconds, backing off to 2 s while nothing changes, files swept in turn) is used,
and the reason recorded for the status bar, when:

* it was asked for (`force_polling`);
* the store sits on a filesystem whose changes made elsewhere raise no local events (NFS, SMB,
  sshfs, 9p/drvfs under WSL, VM shared folders): inotify would start fine and then report only
  what this machine writes;
* inotify refuses: ENOSPC (`fs.inotify.max_user_watches` used up) or EMFILE
  (`fs.inotify.max_user_instances`), from the observer's construction, schedule or start;
* the observer started but some folders got no watch. watchdog 7 swallows a failure to watch a
  subfolder (only the root's failure is raised), so a store larger than the watch limit would
  otherwise look live while its deeper folders were silently unwatched. `unwatched_dirs`
  compares the observer's watches with the bucket folders on disk.

The poller lists only the four buckets at the top level, so `.git/` (which a checkout fills with
thousands of objects) and `.memhtml/` cost nothing per poll.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Callable

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from memhtml_desktop.domain.paths import BUCKETS
from memhtml_desktop.watch.events import EVENT_FILTER
from memhtml_desktop.watch.poller import StatPoller

log = logging.getLogger(__name__)

LIVE, POLLING = "live", "polling"

#: Filesystems on which a change made by another machine (or the VM host) raises no local event.
NO_EVENT_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "afs",
        "coda",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "9p",
        "drvfs",
        "virtiofs",
        "vboxsf",
        "davfs",
        "fuse.sshfs",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.gcsfuse",
        "fuse.glusterfs",
        "fuse.davfs2",
        "fuse.vmhgfs-fuse",
        "fuse.smbnetfs",
    }
)

ObserverFactory = Callable[[], BaseObserver]


def _unescape_mount(field: str) -> str:
    # /proc/mounts writes space, tab, newline and backslash in mount points as octal escapes.
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def filesystem_of(path: str, mounts: str = "/proc/self/mounts") -> str | None:
    """The filesystem type of the mount holding `path` (Linux), or None when unknown."""
    real = os.path.realpath(path)
    best, best_type = "", None
    try:
        with open(mounts, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        point, fstype = _unescape_mount(parts[1]), parts[2]
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, best_type = point, fstype
    return best_type


def no_events_reason(root: str, mounts: str = "/proc/self/mounts") -> str | None:
    fstype = filesystem_of(root, mounts)
    if fstype in NO_EVENT_FILESYSTEMS:
        return f"the store is on a {fstype} filesystem, which does not report changes made elsewhere"
    return None


def unwatched_dirs(observer: BaseObserver, root: str) -> list[str] | None:
    """Bucket folders the inotify observer holds no watch for; None when it cannot be inspected.

    Reads watchdog's private bookkeeping (`emitter._inotify._active_callbacks_by_path`), so any
    other observer, or a watchdog that renamed it, answers None and is trusted.
    """
    watched: set[str] = set()
    emitters = list(getattr(observer, "emitters", ()))
    if not emitters:
        return None
    for emitter in emitters:
        group = getattr(emitter, "_inotify", None)
        by_path = getattr(group, "_active_callbacks_by_path", None)
        if not isinstance(by_path, dict):
            return None
        watched.update(os.fsdecode(p) for p in dict(by_path))
    missing = []
    for bucket in BUCKETS:
        top = os.path.join(root, bucket)
        if not os.path.isdir(top) or os.path.islink(top):
            continue
        for directory, dirnames, _ in os.walk(top):
            dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(directory, d))]
            if directory not in watched and os.path.isdir(directory):
                missing.append(os.path.relpath(directory, root))
    return missing


def settled_unwatched_dirs(observer: BaseObserver, root: str, tries: int = 3, pause_s: float = 0.1) -> list[str]:
    """`unwatched_dirs`, asked again after a pause while it finds any.

    A folder created a moment ago may not have its watch yet (the observer adds it when the
    creation event arrives), so one look could mistake it for the watch limit.
    """
    missing: list[str] | None = []
    for attempt in range(tries):
        missing = unwatched_dirs(observer, root)
        if not missing:
            return []
        if attempt + 1 < tries:
            time.sleep(pause_s)
    return missing or []


def shutdown(observer: BaseObserver | None, timeout: float = 5.0) -> None:
    """Stop an observer and join its threads, whether or not it ever started."""
    if observer is None:
        return
    try:
        observer.stop()
    except Exception:  # noqa: BLE001 - stopping must not raise on the way out
        log.debug("observer stop failed", exc_info=True)
    if observer.is_alive() or observer.ident is not None:
        observer.join(timeout)


def start_polling(root: str, handler: FileSystemEventHandler, interval: float) -> BaseObserver:
    """A started `StatPoller` (watch/poller.py): folders stat'ed every poll, files swept in turn."""
    poller = StatPoller(interval)
    try:
        poller.schedule(handler, root, recursive=True)
        poller.start()
    except BaseException:
        shutdown(poller)
        raise
    return poller


def start_observer(
    root: str,
    handler: FileSystemEventHandler,
    *,
    force_polling: bool = False,
    poll_interval: float = 0.5,
    factory: ObserverFactory | None = None,
    mounts: str = "/proc/self/mounts",
) -> tuple[BaseObserver, str, str]:
    """A started observer on `root`, its mode ("live" or "polling") and, for polling, why.

    Raises FileNotFoundError when the store directory is gone (the caller stops and waits).
    """
    every = f"checking for changes every {poll_interval:g} s"
    if force_polling:
        reason = f"polling was asked for; {every}"
    elif (why := no_events_reason(root, mounts)) is not None:
        reason = f"{why}; {every}"
    else:
        observer: BaseObserver | None = None
        try:
            observer = (factory or Observer)()
            observer.schedule(handler, root, recursive=True, event_filter=EVENT_FILTER)
            observer.start()
        except OSError as exc:
            shutdown(observer)
            if exc.errno == errno.ENOENT:
                raise FileNotFoundError(errno.ENOENT, "store directory not found", root) from exc
            if exc.errno == errno.ENOSPC:
                reason = (
                    f"the inotify watch limit is reached (raise fs.inotify.max_user_watches for live updates); {every}"
                )
            elif exc.errno == errno.EMFILE:
                reason = (
                    "the inotify instance limit is reached (raise fs.inotify.max_user_instances for live "
                    f"updates); {every}"
                )
            else:
                reason = f"change events are unavailable ({exc.strerror or exc}); {every}"
            log.warning("watching %s by polling: %s", root, reason)
        else:
            missing = settled_unwatched_dirs(observer, root)
            if not missing:
                return observer, LIVE, ""
            shutdown(observer)
            reason = (
                f"{len(missing)} folder(s) could not be watched, first {missing[0]} (the inotify watch limit; "
                f"raise fs.inotify.max_user_watches for live updates); {every}"
            )
            log.warning("watching %s by polling: %s", root, reason)
    return start_polling(root, handler, poll_interval), POLLING, reason
