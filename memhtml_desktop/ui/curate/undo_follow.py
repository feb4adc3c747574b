"""Where the reader goes after an undo or a redo: the memory, wherever the revert put it.

After a write the reader opens the memory where the write left it (`OPEN_AFTER`); an undo or a redo
is a plan like any other, so the reader follows the same way, from the plan's own changes:

- a redo opens the live memory it brings back (a correction, a new memory written again), as the
  write it redoes did;
- the memory shown moves (an archived memory moved back): the reader goes with it;
- the memory shown is deleted: the live memory the revert brings back opens (the original an
  undone correction had archived), and when there is none (an undone new memory) the reader says
  plainly that it is no longer in the store, not "could not open … (moved or deleted?)";
- anything else (a link undone on the memory shown, a change to other memories): the reader
  stays, and re-reads what it shows when the store change says so.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.paths import is_archived, is_indexable


def follow(plan: Any, shown: str | None) -> tuple[str, str | None]:
    """("open", path), ("gone", the path shown), or ("stay", None)."""
    changes = plan.changes
    arrived = [
        c.path for c in changes if c.action in ("create", "move") and is_indexable(c.path) and not is_archived(c.path)
    ]
    if plan.op == "redo" and arrived:
        return "open", arrived[0]
    moved = {c.source: c.path for c in changes if c.action == "move"}
    if shown in moved:
        return "open", moved[shown]
    if shown is not None and any(c.action == "delete" and c.path == shown for c in changes):
        return ("open", arrived[0]) if arrived else ("gone", shown)
    return "stay", None
