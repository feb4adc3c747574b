"""Where the workbench keeps things, and why there.

Two homes, chosen by who must see them:

- **In the store** (`<store>/.memhtml-desktop/`), shared with the team through git: probe sets
  (`probes/<name>.jsonl`) and what-if configurations (`configs/<name>.json`). A hidden folder of
  this app's own at the store root, outside the memory folders and outside `.memhtml/` (memhtml's
  own). memhtml's index, doctor, publish, write and sleep ignore it, but its doctor calls any
  uncommitted change there a dirty tree and its next commit would sweep a staged one in, so every
  change the app makes there is its own commit at once (`store_files.py`). A `.gitignore` inside
  keeps temporary files out of git, and no file there is named `index.html` or `sitemap.xml`
  (memhtml's `.gitattributes` merges those with `ours`).
- **In the app's data directory** (`$MEMHTML_DESKTOP_DATA`, else platformdirs' user data dir,
  `workbench/<store>-<hash>/`), private to this machine: the run history and implicit judgments.
  A run is a measurement, not a curation: a commit per run would flood the user's history, and a
  search log is personal. Not the cache directory either, where the index lives: deleting the
  index (it is disposable) must not lose the history.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

WORKBENCH_DIR = ".memhtml-desktop"
PROBES_DIR = f"{WORKBENCH_DIR}/probes"
CONFIGS_DIR = f"{WORKBENCH_DIR}/configs"
GITIGNORE = f"{WORKBENCH_DIR}/.gitignore"
PROBE_SUFFIX = ".jsonl"
CONFIG_SUFFIX = ".json"

GITIGNORE_TEXT = (
    "# memhtml-desktop's workbench: probe sets and configurations are committed; temporary files are not\n"
    "*.tmp\n.*.tmp\n*~\n*.swp\n"
)

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
RESERVED = frozenset({"index", "sitemap"})
"""`index.html` and `sitemap.xml` are merged with `ours` by memhtml's `.gitattributes`; no name
that could become one (or look like one) is allowed."""


class BadName(ValueError):
    """A probe-set or configuration name the workbench will not use as a file name."""


def check_name(name: str, what: str = "name") -> str:
    """`name` if it is a safe file stem (letters, digits, `.`, `_`, `-`; up to 80; not `index`,
    `sitemap`, not `memhtml` or `default`, which name the shipped configurations); ValueError
    otherwise, saying which characters are allowed."""
    if not isinstance(name, str) or not NAME_RE.match(name) or name.endswith("."):
        raise BadName(
            f"{what} {name!r}: use letters, digits, '.', '_' and '-' (up to 80, starting with a letter or digit)"
        )
    stem = name.lower().split(".")[0]
    if stem in RESERVED or name.lower() in ("index.html", "sitemap.xml"):
        raise BadName(f"{what} {name!r} is reserved (memhtml merges index.html and sitemap.xml with 'ours')")
    return name


def probe_path(name: str) -> str:
    """The store path of probe set `name`."""
    return f"{PROBES_DIR}/{check_name(name, 'probe set')}{PROBE_SUFFIX}"


def config_path(name: str) -> str:
    """The store path of what-if configuration `name`."""
    if name in ("memhtml", "default"):
        raise BadName(f"configuration {name!r} is shipped and read-only; save a what-if under another name")
    return f"{CONFIGS_DIR}/{check_name(name, 'configuration')}{CONFIG_SUFFIX}"


def data_root() -> Path:
    """The app's private data directory: `$MEMHTML_DESKTOP_DATA`, else the user data dir."""
    override = os.environ.get("MEMHTML_DESKTOP_DATA")
    if override:
        return Path(override)
    from platformdirs import user_data_dir

    return Path(user_data_dir("memhtml-desktop", appauthor=False))


def store_data_dir(store_root: str | os.PathLike[str]) -> Path:
    """`<data>/workbench/<store name>-<hash of its real path>/`: one per store, never inside it."""
    real = os.path.realpath(store_root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in Path(real).name) or "store"
    return data_root() / "workbench" / f"{name}-{digest}"
