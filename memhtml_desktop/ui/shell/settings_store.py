"""The persisted settings: `settings/<name>` keys in QSettings, stamped with a schema version.

Only values that differ from the table's default are written; a value set back to its default is
removed, so a later release can change a default and reach everyone who never touched it.

Versions (`settings/schema_version`, `settings.SCHEMA_VERSION`):

* 0 — written before the version was stamped: the same `settings/<name>` keys, values as
  QSettings kept them (an INI file turns every value into a string). Migrating it is stamping it;
  values that no longer validate (an embedder or theme the table does not know) are dropped.
* 1 — the current layout.

A migration is a function from the raw `settings/` group of version N to that of N+1, kept in
`MIGRATIONS`. A file stamped with a version NEWER than this app knows (the user ran a newer
release, then this one) is read for the names this app knows and never restamped, so going back
to the newer release loses nothing.

Every read asks `contains()` first: `QSettings.value()` of a missing key hands PySide6 an invalid
QVariant, which costs a reference to `None` (see `ui.pyside_fixes.guard_singleton_refcounts`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QSettings

from memhtml_desktop.settings import SCHEMA_VERSION, SETTINGS, Settings, _coerce

log = logging.getLogger(__name__)

GROUP = "settings"
VERSION_KEY = f"{GROUP}/schema_version"

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _from_unversioned(raw: dict[str, Any]) -> dict[str, Any]:
    """0 → 1: the keys did not change; stamping the version is the migration."""
    return dict(raw)


#: version N -> the function that turns a version-N group into a version-(N+1) group.
MIGRATIONS: dict[int, Migration] = {0: _from_unversioned}


def stored_version(qsettings: QSettings) -> int:
    """The schema version the file was written with (0 when it was never stamped)."""
    if not qsettings.contains(VERSION_KEY):
        return 0
    try:
        return int(qsettings.value(VERSION_KEY))
    except (TypeError, ValueError):
        log.warning(
            "settings schema version %r is not a number; reading it as unversioned", qsettings.value(VERSION_KEY)
        )
        return 0


def _raw_group(qsettings: QSettings) -> dict[str, Any]:
    qsettings.beginGroup(GROUP)
    try:
        keys = [k for k in qsettings.childKeys() if k != "schema_version"]
        return {key: qsettings.value(key) for key in keys if qsettings.contains(key)}
    finally:
        qsettings.endGroup()


def migrate(
    raw: dict[str, Any], version: int, *, target: int = SCHEMA_VERSION, migrations: Mapping[int, Migration] = MIGRATIONS
) -> dict[str, Any]:
    """Apply the migrations from `version` up to `target`, in order. A newer `raw` is returned as is."""
    for step in range(version, target):
        migration = migrations.get(step)
        if migration is None:
            raise ValueError(f"no settings migration from version {step} to {step + 1}")
        raw = migration(raw)
    return raw


def load_persisted(
    qsettings: QSettings, *, target: int = SCHEMA_VERSION, migrations: Mapping[int, Migration] = MIGRATIONS
) -> dict[str, Any]:
    """The persisted values, migrated and typed: `{name: value}` for each valid, non-empty one.

    Values that do not validate against the table are left out (with a warning), never raised:
    a hand-edited file must not keep the window from opening.
    """
    version = stored_version(qsettings)
    raw = _raw_group(qsettings)
    if version > target:
        log.warning(
            "settings were written by a newer release (schema %d > %d); reading what this one knows", version, target
        )
    else:
        raw = migrate(raw, version, target=target, migrations=migrations)
    out: dict[str, Any] = {}
    for setting in SETTINGS:
        value = raw.get(setting.name)
        if value in (None, ""):
            continue
        try:
            out[setting.name] = _coerce(setting, value)
        except (TypeError, ValueError) as exc:
            log.warning("ignoring the saved %s: %s", setting.name, exc)
    return out


def save_persisted(qsettings: QSettings, settings: Settings, *, target: int = SCHEMA_VERSION) -> None:
    """Write every setting that differs from its default, remove the rest, stamp the version."""
    version = stored_version(qsettings)
    for setting in SETTINGS:
        key = f"{GROUP}/{setting.name}"
        value = getattr(settings, setting.name)
        if value == setting.default:
            qsettings.remove(key)
        elif isinstance(value, bool):
            qsettings.setValue(key, "true" if value else "false")
        else:
            qsettings.setValue(key, value)
    if version <= target:
        known = {s.name for s in SETTINGS}
        for key in _raw_group(qsettings):
            if key not in known:  # left behind by a migration or a removed setting
                qsettings.remove(f"{GROUP}/{key}")
        qsettings.setValue(VERSION_KEY, target)
    qsettings.sync()
