"""What a title typed into "Why not this one?" names, when Enter is pressed without a completion.

The field completes titles as the person types, but Enter on what was typed went to the store as a
path, and "Not a memory file (wrong folder, extension…)" came back for a title that was right
there (issue 41). Now what was typed is resolved against the memories whose title or path holds it
(`Store.find_memories`, asked for that very text): the memory whose title it is (any case), else
the one whose title starts with it, else the only one that holds it; a live memory is preferred to
its archived copies of the same name. None found, or several, is said, and nothing is asked.
"""

from __future__ import annotations

from typing import Any

from memhtml_desktop.domain.plural import counted


def looks_like_path(text: str) -> bool:
    return "/" in text or text.casefold().endswith(".html")


def resolve_typed(text: str, refs: list[Any]) -> tuple[str | None, str]:
    """(the path `text` names, "") or (None, what to tell the person)."""
    folded = " ".join(text.split()).casefold()
    tiers = (
        [r for r in refs if (r.title or "").casefold() == folded],
        [r for r in refs if (r.title or "").casefold().startswith(folded)],
        list(refs),
    )
    for candidates in tiers:
        if not candidates:
            continue
        live = [r for r in candidates if not getattr(r, "archived", False)] or candidates
        if len(live) == 1:
            return live[0].path, ""
        return (
            None,
            f"{counted(len(live), 'memory', verb=('holds', 'hold'))} \u201c{text}\u201d: pick one from the list.",
        )
    return None, f"No memory's title or path holds \u201c{text}\u201d."
