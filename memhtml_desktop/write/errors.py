"""What a refused or failed write says: a message for a person and memhtml's error code.

The codes are memhtml's (`cli/src/errors.ts`), so a script that branched on memhtml's envelope can
branch on ours; `ERR_CONFLICT` and `ERR_REFUSED` are this app's, for the refusals memhtml never
makes (someone else's staged changes, a file changed since it was opened, an archived target).
Every refusal is raised before anything is touched, or after everything touched was put back.
"""

from __future__ import annotations

INVALID_MEMORY = "ERR_INVALID_MEMORY"
PATH_NOT_FOUND = "ERR_PATH_NOT_FOUND"
GIT = "ERR_GIT"
STORAGE = "ERR_STORAGE"
CONFLICT = "ERR_CONFLICT"
REFUSED = "ERR_REFUSED"
INVALID_FLAG = "ERR_INVALID_FLAG"
MISSING_ARGUMENT = "ERR_MISSING_ARGUMENT"


#: What to try next, per code, as memhtml's envelope suggests it (`cli/src/errors.ts`): its search and
#: list are this app's too; the format's rules are memhtml's own (`memhtml manifest`).
SUGGESTIONS = {
    PATH_NOT_FOUND: ("memhtml-desktop search <what you were looking for>", "memhtml-desktop list"),
    INVALID_MEMORY: ("memhtml manifest",),
}


def suggestions_for(code: str) -> list[str]:
    return list(SUGGESTIONS.get(code, ()))


class WriteError(Exception):
    """A write that did not happen. `code` is memhtml's vocabulary (plus ours, above)."""

    code = STORAGE

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self)


class InvalidMemory(WriteError):
    """memhtml's `InvalidMemory`: the message reads `invalid memory: <reason>`."""

    code = INVALID_MEMORY

    def __init__(self, reason: str) -> None:
        super().__init__(f"invalid memory: {reason}")
        self.reason = reason


class PathNotFound(WriteError):
    code = PATH_NOT_FOUND

    def __init__(self, path: str) -> None:
        super().__init__(f"no memory at {path}")
        self.path = path


class GitFailed(WriteError):
    code = GIT


class Refused(WriteError):
    """A precondition this app insists on and memhtml does not check."""

    code = REFUSED


class Conflict(WriteError):
    """Someone else's change is in the way: staged files, a file edited since it was opened."""

    code = CONFLICT


class Stale(Conflict):
    """The file (or the store) is no longer what the caller read: reading it again may resolve it.

    Raised when an expected hash no longer matches and when a previewed plan no longer matches
    the store at apply time; a window offers to reload. Staged or uncommitted changes of someone
    else are a plain `Conflict`: reloading would not help.
    """
