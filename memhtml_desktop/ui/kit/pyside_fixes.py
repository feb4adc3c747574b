"""Workarounds for PySide6 bugs, applied once when the ui package is imported."""

from __future__ import annotations

import sys


def guard_singleton_refcounts() -> None:
    """Make `None`, `True` and `False` impossible to deallocate on CPython < 3.12 (idempotent).

    PySide6 6.12.0 drops references to them: one to `None` each time it hands Python an invalid
    QVariant (`index.data(role)` for a role with no value, `QSettings.value()` of a missing key)
    and each time a built-in `clicked(bool)` / `toggled(bool)` reaches a Python slot; one to `True`
    each time a signal delivers `True` to a Python slot (`Signal(bool)`, `Signal(str, bool)`, even a
    tuple holding True through `Signal(object)`). When a count reaches zero the interpreter aborts
    ("bool_dealloc: deallocating True or False"): the window died after about 1,400 memory opens.

    pyproject.toml keeps 6.12 out and tests/deps/test_pyside_canary.py fails CI on a binding that
    loses these references; this is the second wall, for an environment that installs a broken
    binding anyway. CPython 3.12 made the singletons immortal; on 3.11 we give each a count no
    session can exhaust (2**40 references: a million losses a second for twelve days).
    """
    if sys.version_info >= (3, 12) or getattr(guard_singleton_refcounts, "done", False):
        return
    import ctypes

    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += 1 << 40
    guard_singleton_refcounts.done = True  # type: ignore[attr-defined]
