"""Where a new memory goes: memhtml's placement rule, slug and collision ordinal (store-format §1).

Pure functions on strings. Which candidate path is actually free is a question for the disk and
is asked by the planner; this module only says, for ordinal n, what the n-th candidate is.
"""

from __future__ import annotations

import datetime as _dt

from memhtml_desktop.domain.paths import BUCKETS, slugify
from memhtml_desktop.html.jsnum import js_trim

SLUG_LIMIT = 80
MAX_ORDINAL = 1000

#: Types whose first tag names a `resources/<topic>/` folder; other types go to the inbox.
TOPIC_TYPES = frozenset({"semantic", "procedural", "precedent"})


def clean_explicit_path(path: str) -> str:
    """An explicit `--path` with its leading `/`s stripped (memhtml's `normalizePath` rule)."""
    return path.lstrip("/")


def is_valid_memory_path(path: str) -> bool:
    """memhtml's `isValidMemoryPath`: a bucket first, `.html` last, two segments or more, no
    empty, `.` or `..` segment. Checked on the path with its leading `/` stripped."""
    clean = clean_explicit_path(path)
    parts = clean.split("/")
    if len(parts) < 2 or parts[0] not in BUCKETS or not clean.endswith(".html"):
        return False
    return all(part not in ("", ".", "..") for part in parts)


def _first_nonblank(values: list[str]) -> str | None:
    for value in values:
        if js_trim(value) != "":
            return value
    return None


def directory_for(memory_type: str, *, workspace: str | None, tags: list[str], entities: list[str]) -> str:
    """The folder memhtml files a new memory under; first match wins (contracts/src/paths.ts)."""
    ws = workspace if workspace is not None and js_trim(workspace) != "" else None
    if memory_type == "arc":
        return "areas/arcs"
    if memory_type == "task":
        return f"projects/{slugify(ws)}/tasks" if ws else "areas/inbox/tasks"
    if memory_type == "semantic" and any(js_trim(e).startswith("person:") for e in entities):
        return "resources/people"
    if ws:
        return f"projects/{slugify(ws)}"
    tag = _first_nonblank(tags) if memory_type in TOPIC_TYPES else None
    if tag is not None:
        return f"resources/{slugify(tag)}"
    return "areas/inbox"


def with_collision_ordinal(slug: str, n: int) -> str:
    """The n-th candidate slug: the slug itself, then `-2`, `-3`, … kept within 80 characters."""
    if n <= 1:
        return slug
    suffix = f"-{n}"
    return slug[: SLUG_LIMIT - len(suffix)].rstrip("-") + suffix


def candidate_path(title: str, memory_type: str, directory: str, now: _dt.datetime, n: int) -> str:
    """The n-th path to try for a new memory (episodic files start with the UTC date)."""
    name = with_collision_ordinal(slugify(js_trim(title), SLUG_LIMIT), n)
    if memory_type == "episodic":
        name = now.astimezone(_dt.timezone.utc).strftime("%Y%m%d") + "-" + name
    return f"{directory}/{name}.html"
