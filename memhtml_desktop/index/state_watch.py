"""The Store's eye on its state plane: the file followed, not the handle (issue 40).

A `Store` keeps one `PlaneWatch`. It remembers the identity of the `state.db` its connections last
attached (index/state_file.py) and:

* `attached(conn)`, on every new connection: a different file than the one seen before (replaced,
  deleted, moved away, newly made, turned into a FIFO) is said once, in the store's notices (the
  CLI prints them, the window shows them in the status bar), with what became of the plane;
* `stale(conn)`, from `Store.reader()` at most every `LOOK_S` per connection: whether the path
  names another file than this connection attached, so a long-lived connection (a `watch`, the
  engine process, a library user's Store) is reopened instead of reading an unlinked file for the
  rest of its life and failing every write with "attempt to write a readonly database";
* `keep(conn, result, at)`: a bump that could not be written for a reason a later moment may clear
  is kept in the pending file and written later, with its own instant (index/pending_reads.py);
  `replay(conn)` writes what is kept once the plane is writable;
* `schema_gone(conn)`: an `SQLError` met mid-session because the plane's schema changed under it (a
  newer memhtml renamed a column) detaches the plane with the reason instead of failing the search;
* `status(reader)`: the plane for the window's status bar, cheaply (one `stat` and one `lstat`
  while all is well and nobody wrote the file since; else a connection is asked).

Identity across connections is the file's `(st_dev, st_ino, type)` and its birth stamp (the first
migration's `applied_at` in the plane's own ledger): with no connection holding a deleted plane open,
its inode number is free, and the new file made next can get the same one.

Deciding what a deleted `state.db` should become. memhtml's CLI opens the state plane on every
command and SQLite creates a missing file, so after a deletion memhtml's next command makes a new,
empty one; this app's commands always did the same at open (`create_state`). A window that notices
the deletion does what a fresh open does: the new connection makes a new, empty plane (or, when the
store was opened without `create_state`, runs without one), and the notice says the old file's
reads and judgements are not in it. It does not bring the old file back from the handle it still
holds: a deleted plane is most often deliberate (`rm -rf .memhtml` to reset memhtml, a fresh
start), undeleting it would overrule the person or agent who removed it, and a copy taken from a
handle mid-write could be torn.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import apsw

from memhtml_desktop.index import state_file
from memhtml_desktop.index.pending_reads import PendingReads

if TYPE_CHECKING:
    from memhtml_desktop.domain.results import StatePlane
    from memhtml_desktop.domain.types import ReinforceResult

log = logging.getLogger(__name__)

#: How often a connection looks whether the path still names the file it attached (seconds).
LOOK_S = 0.25
_UNSEEN = ("unseen",)


class PlaneWatch:
    def __init__(self, state_path: Any, notice: Callable[[str], None]) -> None:
        self.state_path = state_path
        self.notice = notice
        self.pending = PendingReads(state_path)
        self._seen: Any = _UNSEEN
        self._lock = threading.Lock()
        self._status: tuple[Any, StatePlane] | None = None  # (the file's stat signature, its status)

    # -- following the file ----------------------------------------------------------------------

    def attached(self, conn) -> None:
        """A new connection attached (or could not attach) the plane: say a change of file once."""
        now = (conn.state_ident, getattr(conn, "state_birth", None))
        with self._lock:
            before, self._seen = self._seen, now
        if before is not _UNSEEN and before != now:
            self._say_changed(before[0], conn)
        self.replay(conn)

    def stale(self, conn) -> bool:
        """Whether `conn`'s plane is no longer the file at the path (looked at most every LOOK_S)."""
        now = time.monotonic()
        if now - getattr(conn, "plane_looked", 0.0) < LOOK_S:
            return False
        conn.plane_looked = now
        return state_file.ident_of(self.state_path) != conn.state_ident

    def _say_changed(self, before: Any, conn) -> None:
        if getattr(conn, "state_created", False):
            words = "was deleted or moved away"  # what was there before this connection made a new one
        else:
            words = state_file.change_words(before, state_file.examine(self.state_path))
        if conn.state_error:
            error = conn.state_error
            named = f"{self.state_path} "
            then = ("it " + error[len(named) :] if error.startswith(named) else error) + (
                "; reads are kept and counted once it can be written"
            )
        elif getattr(conn, "state_created", False):
            then = ("a new, empty state.db was made, as memhtml's CLI makes one on its next command (the reads and "
                    "judgements of the old file are not in it)")  # fmt: skip
        elif conn.state_mode is None:
            then = "salience is off until there is one again"
        else:
            then = "it was opened again: salience reads the new file from now on"
        # the time makes each change its own notice (the store says a notice once: a second deletion is news too)
        self.notice(f"{self.state_path} {words} while the store was open (seen at {time.strftime('%H:%M:%S')}): {then}")

    # -- the schema changing under an open connection -------------------------------------------

    def schema_gone(self, conn) -> bool:
        """After an SQLError: True when the plane's schema is no longer one this app knows (it is
        detached, with the reason and a notice; the caller runs again without it)."""
        from memhtml_desktop.index.db import _unknown_schema, state_schema_problem

        if conn.state_mode is None:
            return False
        problem = state_schema_problem(conn)
        if problem is None:
            return False
        _unknown_schema(conn, self.state_path, problem)
        self.notice(conn.state_error)
        return True

    # -- bumps that could not be written ----------------------------------------------------------

    def keep(self, conn, result: ReinforceResult, at: str) -> ReinforceResult:
        """A bump the plane could not take now, for a reason a later moment may clear (a lock, a
        full disk, a replaced or deleted file, a refused one, an unknown schema), kept for later.
        A refusal by design (a read-only store, a store opened without a plane) is not."""
        waits = result.lost or (
            result.refused and (getattr(conn, "state_error", None) or getattr(conn, "state_note", None))
        )
        if not waits or not result.cooled_down:
            return result
        try:
            self.pending.add(result.cooled_down, result.signal, at, result.refused or "")
        except OSError as exc:
            return replace(result, refused=f"{result.refused}; it could not be kept for later either ({exc})")
        log.info("%d bump(s) kept for later: %s", len(result.cooled_down), result.refused)
        return replace(result, lost=False, queued=True)

    def replay(self, conn) -> None:
        """Write the kept bumps, oldest first, when this connection's plane can take them."""
        if getattr(conn, "state_mode", None) != "rw" or not self.pending.exists():
            return
        from memhtml_desktop.index.state import StateError, reinforce

        def write(paths: list[str], signal: str, at: str) -> tuple[int, int]:
            result = reinforce(conn, paths, signal, at, retries=0)
            if result.refused:
                raise StateError(result.refused)
            moved = set(result.bumped) | set(result.signal_applied)
            return len(moved), len(paths) - len(moved)

        try:
            done = self.pending.replay(write)
        except apsw.Error as exc:  # pragma: no cover - replay catches per write; this is the lock or the file
            log.warning("kept reads could not be written yet: %s", exc)
            return
        if done.landed or done.cooled:
            self.notice(f"{done.landed + done.cooled:,} read(s) kept while state.db could not be written are "
                        f"written now ({done.landed:,} counted, {done.cooled:,} inside their cooldown)"
                        + (f"; {done.left:,} still wait ({done.reason})" if done.left else ""))  # fmt: skip

    # -- what the window shows ------------------------------------------------------------------

    def status(self, reader: Callable[[], Any]) -> StatePlane:
        """The plane now. While it was healthy and the file is the one seen, one `stat` and one
        `lstat` answer; otherwise a connection is asked (which follows a changed file and writes
        what is kept)."""
        signature = state_file.signature_of(self.state_path)
        cached = self._status
        if cached is not None and cached[0] == signature and cached[1].healthy and not self.pending.exists():
            return cached[1]  # the very file this status was found on, unwritten since, and it was well
        from memhtml_desktop.domain.results import StatePlane  # the window's and `doctor`'s: not a search's import

        conn = reader()
        self.replay(conn)
        status = StatePlane(conn.state_mode, conn.state_error or conn.state_note or "", self.pending.waiting())
        self._status = (signature, status)
        return status
