"""The app's own recent commits in a store: what Undo can list, and what Redo can give back.

Every commit this app makes through the write core (a write, an undo, a redo) appends one record
to `<git dir>/memhtml-desktop/own-commits.json` under the write lock: its sha, subject, paths,
moves and time, and for an undo or a redo the commit it reverted and the change it belongs to.
The file lives in the git directory (as `last.json` does), so it goes where the repository goes,
and it holds only this app's commits: a commit of memhtml's CLI, an agent's `git commit` or a
second copy of the app with another git directory is never listed, so never offered for undo.

A *change* is a write and the undos and redos that followed it. Its newest commit says its state:
a write or a redo leaves it applied (Undo reverts that newest commit), an undo leaves it undone
(Redo reverts the undo). Reverting the newest commit rather than the write itself is what keeps
a change's paths "unchanged since" the commit being reverted, the write core's rule for reverting
anything (`undo.undo_plan`): a change someone committed over since is listed with that reason.

The newest `KEEP` records are kept; older changes drop off the list (git still holds them).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE = "memhtml-desktop/own-commits.json"
KEEP = 200
"""Records kept (writes, undos and redos together): the list shows the newest changes among them."""


@dataclass(frozen=True)
class OwnChange:
    """One change this app made (a write), followed through its undos and redos."""

    sha: str  # the write's commit: the change's name
    subject: str  # the write's subject
    when: str  # the write's time (ISO, UTC)
    paths: tuple[str, ...]  # the store paths the write's commit carried
    latest: dict[str, Any]  # the record of the change's newest commit (the write, an undo or a redo)

    @property
    def undone(self) -> bool:
        return self.latest.get("op") == "undo"

    @property
    def action(self) -> str:
        """What can be done to it now: "undo" (it is applied) or "redo" (it was undone)."""
        return "redo" if self.undone else "undo"

    def to_json(self) -> dict[str, Any]:
        return {
            "sha": self.sha,
            "subject": self.subject,
            "when": self.when,
            "paths": list(self.paths),
            "state": "undone" if self.undone else "applied",
            "latest": self.latest.get("sha"),
            "action": self.action,
        }


def load(git_dir: Path | None) -> list[dict[str, Any]]:
    """Every record kept, oldest first (none when the file is missing or unreadable)."""
    if git_dir is None:
        return []
    try:
        records = json.loads((git_dir / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return (
        [r for r in records if isinstance(r, dict) and isinstance(r.get("sha"), str)]
        if isinstance(records, list)
        else []
    )


def append(git_dir: Path, record: dict[str, Any]) -> None:
    """Add `record` (the caller holds the write lock); the file is replaced whole, durably."""
    from memhtml_desktop.write.journal import _write_durably

    records = [r for r in load(git_dir) if r.get("sha") != record.get("sha")] + [record]
    target = git_dir / FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".json.tmp")
    _write_durably(tmp, json.dumps(records[-KEEP:], indent=1).encode("utf-8"))
    os.replace(tmp, target)


def changes(records: list[dict[str, Any]], legacy: dict[str, Any] | None = None) -> list[OwnChange]:
    """The changes the records describe, newest write first. `legacy`: the last commit an earlier
    version remembered (`last.json`), listed as a write when no record names it."""
    if legacy and legacy.get("sha") and not any(r.get("sha") == legacy["sha"] for r in records):
        records = [{**legacy, "op": "write"}] + records
    writes: dict[str, dict[str, Any]] = {}
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.get("op", "write") == "write":
            writes[record["sha"]] = latest[record["sha"]] = record
        elif record.get("of") in writes:
            latest[record["of"]] = record
    out = [
        OwnChange(sha, w.get("subject", ""), w.get("when", ""), tuple(w.get("paths", [])), latest[sha])
        for sha, w in writes.items()
    ]
    return out[::-1]


def find(listed: list[OwnChange], sha: str | None, action: str) -> OwnChange | None:
    """The change named by `sha` (its write, or any of its commits; a prefix of 7+ characters
    will do), or with none named the newest change `action` ("undo"/"redo") applies to."""
    if sha is None:
        return next((c for c in listed if c.action == action), None)
    sha = sha.strip().lower()
    for change in listed:
        if change.sha.startswith(sha) or str(change.latest.get("sha", "")).startswith(sha):
            return change
    return None
