"""What every planner reads through: the store's files, its index connection, one clock instant.

A planner never writes. It reads memory files from inside the store only (a symlink out of the
store is neither read nor written), asks the index through `index/curation.py`, and stamps
every time with the one instant the context was made at, so a command's stamps agree with each
other (memhtml reads its clock twice and could straddle a second).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass
from pathlib import Path

import apsw

from memhtml_desktop.domain.paths import normalize_path
from memhtml_desktop.guarded import TooLarge, Unreadable, read_guarded
from memhtml_desktop.html.jsnum import JS_SPACE_RUN, js_slice_units, js_trim, utf16_len
from memhtml_desktop.html.project import blob_sha_of, project
from memhtml_desktop.index.curation import MAX_FILE_BYTES, checked_store_path, iso_z, resolve_inside
from memhtml_desktop.write.errors import PathNotFound, Refused, Stale

SUBJECT_LIMIT = 72
_HEX40 = re.compile(r"[0-9a-f]{40}")


_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # not \v, \f: JS whitespace, folded below


def _visible(match: re.Match) -> str:
    """A control character as its Unicode picture (ESC -> U+241B), DEL and C1 as U+FFFD."""
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"


def commit_subject(op: str, text: str) -> str:
    """memhtml's subject: whitespace runs folded, trimmed, cut to 72 UTF-16 units with `…`.

    A control character never reaches git raw (the planners refuse them in the text they are
    given; a path may still hold one): it is shown as its picture, so `git log` cannot clear a
    terminal or retitle it.
    """
    s = js_trim(JS_SPACE_RUN.sub(" ", _CONTROLS.sub(_visible, text)))
    if utf16_len(s) > SUBJECT_LIMIT:
        # memhtml cuts at 71 UTF-16 units even inside a surrogate pair (node then writes U+FFFD);
        # the broken half is dropped here instead.
        s = js_trim(js_slice_units(s, SUBJECT_LIMIT - 1).rstrip("\ufffd")) + "\u2026"
    return f"memhtml({op}): {s or '(untitled)'}"


def clean_path(path: str) -> str:
    """A store path as git-tree text; refuses absolute escapes, `.`/`..` and empty segments."""
    try:
        safe = checked_store_path(path)
    except ValueError as exc:
        raise Refused(str(exc)) from exc
    return normalize_path(safe)


@dataclass
class PlanContext:
    root: Path
    conn: apsw.Connection
    now: _dt.datetime

    @property
    def now_text(self) -> str:
        return iso_z(self.now)

    @property
    def year(self) -> int:
        return self.now.astimezone(_dt.timezone.utc).year

    def real(self, path: str) -> str:
        target = resolve_inside(self.root, path)
        if target is None:
            raise Refused(f"{path} leads out of the store (a symbolic link?); not written")
        return target

    def exists(self, path: str) -> bool:
        return os.path.lexists(self.real(path))

    def read(self, path: str) -> bytes:
        """A file's bytes, or PathNotFound; through the guard every store read uses (inside the
        store, a regular file, at most a memory file's cap)."""
        self.real(path)
        try:
            return read_guarded(path, root=self.root, cap=MAX_FILE_BYTES, what=path)
        except FileNotFoundError:
            raise PathNotFound(path) from None
        except TooLarge:
            raise Refused(f"{path} is larger than a memory file may be; not edited") from None
        except Unreadable as exc:
            if "a directory" in str(exc):
                raise PathNotFound(path) from None
            raise Refused(f"{exc}; not edited") from None
        except IsADirectoryError:
            raise PathNotFound(path) from None
        except OSError as exc:
            raise Refused(f"{path} cannot be read: {exc.strerror or exc}") from exc

    def read_optional(self, path: str) -> bytes | None:
        try:
            return self.read(path)
        except PathNotFound:
            return None

    def check_expected(self, path: str, data: bytes, expected: str | None) -> None:
        """Refuse when the file is not the one the caller saw (see `requests.py`)."""
        if not expected:
            return
        if _HEX40.fullmatch(expected):
            actual = blob_sha_of(data)
        else:
            projection = project(path, data, self.now_text)
            actual = projection.tables["files"][0]["content_hash"] if projection.ok else None
        if actual != expected:
            raise Stale(
                f"{path} changed on disk since it was opened (someone else edited it); "
                "nothing was written: reopen it and try again"
            )
