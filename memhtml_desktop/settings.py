"""Every setting in one declarative table, loaded into a frozen object that is passed in.

Precedence, highest first: command-line flags, environment variables, the persisted user settings
(QSettings, GUI only), the defaults below. Nothing reads a setting as a global: the composition
root (cli.py for commands, ui/app.py for the window) builds one `Settings` and hands it down.
`tests/test_docs.py` fails when a setting here is missing from the README's settings table.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Setting:
    """One row of the table. The settings dialog builds its editor from this row alone.

    `kind` says what a text value names: "dir" and "file" get a Browse button, "text" does not.
    `bounds` is `(minimum, maximum, step)` for an integer setting's spin box, `unit` its suffix.
    """

    name: str
    default: Any
    help: str
    env: str | None = None
    choices: tuple[str, ...] = ()
    kind: str = "text"
    bounds: tuple[int, int, int] | None = None
    unit: str = ""


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "store",
        "",
        "The memhtml store to open (a directory). Empty: $MEMHTML_ROOT, then ~/memhtml.",
        env="MEMHTML_ROOT",
        kind="dir",
    ),
    Setting(
        "index",
        "",
        "The index file. Empty: one file per store under the user cache directory.",
        env="MEMHTML_DESKTOP_INDEX",
        kind="file",
    ),
    Setting(
        "embedder",
        "hash",
        "The embedding model for the vector arm: hash (built in) or minilm (optional extra).",
        env="MEMHTML_DESKTOP_EMBEDDER",
        choices=("hash", "minilm"),
    ),
    Setting(
        "vector_backend",
        "numpy",
        "How the vector arm searches: numpy (in-memory matrix, fastest) or sqlite-vec (SQL over the BLOBs).",
        env="MEMHTML_DESKTOP_VECTOR_BACKEND",
        choices=("numpy", "sqlite-vec"),
    ),
    Setting(
        "ranking",
        "default",
        "The ranking profile: default (the seeds' design with measured improvements) or memhtml "
        "(what memhtml 0.4 does, so you see what an agent on memhtml receives).",
        env="MEMHTML_DESKTOP_RANKING",
        choices=("default", "memhtml"),
    ),
    Setting(
        "recall_budget",
        16000,
        "Characters the recall pack may spend on memories (arcs have their own 9,000).",
        bounds=(0, 32000, 250),
        unit="chars",
    ),
    Setting(
        "search_limit",
        10,
        "Hits a search returns (the fused pool is three times this).",
        bounds=(1, 200, 1),
        unit="hits",
    ),
    Setting(
        "debounce_ms",
        150,
        "Quiet time after typing before the search runs, in milliseconds.",
        bounds=(0, 2000, 10),
        unit="ms",
    ),
    Setting(
        "theme", "system", "Colours: system (follow the desktop), light or dark.", choices=("system", "light", "dark")
    ),
    Setting("watch", True, "Follow changes on disk (inotify, or polling where events are unavailable)."),
    Setting(
        "implicit_judgments",
        False,
        "Remember which memory you open after a search (query, memory, position), in this app's data "
        "directory, never in the store, and offer those pairs as candidate probes in the workbench.",
    ),
)


@dataclass(frozen=True)
class Settings:
    store: str = ""
    index: str = ""
    embedder: str = "hash"
    vector_backend: str = "numpy"
    ranking: str = "default"
    recall_budget: int = 16000
    search_limit: int = 10
    debounce_ms: int = 150
    theme: str = "system"
    watch: bool = True
    implicit_judgments: bool = False

    def with_(self, **changes: Any) -> "Settings":
        clean = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **clean)


def _coerce(setting: Setting, value: Any) -> Any:
    default = setting.default
    if isinstance(default, bool):
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)
    if isinstance(default, int):
        return int(value)
    value = str(value)
    if setting.choices and value not in setting.choices:
        raise ValueError(f"{setting.name} must be one of {', '.join(setting.choices)}, not {value!r}")
    return value


def load_settings(
    overrides: dict[str, Any] | None = None,
    *,
    persisted: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Defaults <- persisted <- environment <- overrides (None values in overrides are ignored)."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        value = setting.default
        if persisted and persisted.get(setting.name) not in (None, ""):
            value = persisted[setting.name]
        if setting.env and env.get(setting.env):
            value = env[setting.env]
        if overrides and overrides.get(setting.name) is not None:
            value = overrides[setting.name]
        values[setting.name] = _coerce(setting, value)
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in values.items() if k in known})


def resolve_store(settings: Settings) -> Path:
    """The store directory: the setting, else ~/memhtml."""
    if settings.store:
        return Path(settings.store).expanduser()
    return Path.home() / "memhtml"


def cache_root() -> Path:
    override = os.environ.get("MEMHTML_DESKTOP_CACHE")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("memhtml-desktop", appauthor=False))


def default_index_path(store: Path) -> Path:
    """One index per store, under the user cache (never inside the store): disposable."""
    real = os.path.realpath(store)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in Path(real).name) or "store"
    return cache_root() / "indexes" / f"{name}-{digest}.db"


def resolve_index(settings: Settings, store: Path) -> Path:
    if settings.index:
        return Path(settings.index).expanduser()
    return default_index_path(store)
