"""Store path algebra: which paths are memories, and what a path says about its memory.

A memory's id is its path: repo-root-relative, `/`-separated, no leading slash. The path carries
state (`archive/<YYYY>/…` is archived whatever the status meta says), so every column derived here
is a pure function of the string.
"""

from __future__ import annotations

import re
import unicodedata

BUCKETS = ("projects", "areas", "resources", "archive")
MEMORY_TYPES = (
    "episodic",
    "semantic",
    "procedural",
    "agent_insight",
    "user_preference",
    "error_pattern",
    "verdict",
    "precedent",
    "arc",
    "task",
)
TASK_STATUSES = ("todo", "doing", "blocked", "done")
NOT_MEMORIES = ("index.html", "sitemap.xml")

_ARCHIVED = re.compile(r"^archive/(\d{4,})/(.+)$", re.DOTALL)
_ARCHIVED_ORIGIN = re.compile(r"^archive/\d{4,}/(.+)$", re.DOTALL)


def is_indexable(path: str) -> bool:
    """First segment a bucket, ends in `.html` (case-sensitive), last segment not a scaffold page."""
    parts = path.split("/")
    if len(parts) < 2 or parts[0] not in BUCKETS:
        return False
    if not path.endswith(".html"):
        return False
    return parts[-1] not in NOT_MEMORIES


def para_of(path: str) -> str:
    first = path.split("/", 1)[0]
    return first if first in BUCKETS else "areas"


def is_archived(path: str) -> bool:
    return para_of(path) == "archive"


def origin_path_of(path: str) -> str | None:
    if not is_archived(path):
        return None
    match = _ARCHIVED_ORIGIN.match(path)
    return match.group(1) if match else None


def workspace_of(path: str) -> str | None:
    """The segment after `projects/`, only when another `/` follows it."""
    if not path.startswith("projects/"):
        return None
    rest = path[len("projects/") :]
    slash = rest.find("/")
    if slash <= 0:
        return None
    return rest[:slash]


def normalize_path(href: str) -> str:
    """A `<link href>` as a git-tree path: no leading `/`, no doubled `/`, one trailing `/` dropped."""
    path = href.lstrip("/")
    path = re.sub(r"/{2,}", "/", path)
    if path.endswith("/"):
        path = path[:-1]
    return path


def archive_path_for(path: str, year: int) -> str:
    year_text = str(int(year))[-4:].zfill(4) if year >= 0 else "0000"
    return f"archive/{year_text}/{normalize_path(path)}"


def original_path_for(path: str) -> str | None:
    """Inverse of `archive_path_for`; removes exactly one `archive/<YYYY>/` prefix."""
    match = _ARCHIVED.match(path)
    return match.group(2) if match else None


def slugify(text: str, limit: int = 80) -> str:
    """memhtml's slug: NFKD, drop combining marks, lowercase, non-[a-z0-9] runs become `-`."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", stripped).strip("-")
    if not slug:
        return "untitled"
    if len(slug) > limit:
        slug = slug[:limit].rstrip("-")
    return slug
