"""Workarounds for PySide6 bugs, applied once when the ui package is imported."""

from __future__ import annotations

import sys


def guard_none_refcount() -> None:
    """Make `None` impossible to deallocate on CPython < 3.12 (idempotent).

    PySide6 6.12 drops one reference to `None` each time it hands Python an invalid QVariant:
    `index.data(role)` for a role with no value, `QSettings.value()` of a missing key, ... A window
    does that thousands of times, and when None's count reaches zero the interpreter aborts with
    "none_dealloc: deallocating None" (measured: 1,000 `index.data()` calls cost 1,000 references).
    CPython 3.12 made None immortal; on 3.11 we give it a count no session can exhaust. Our own
    code also avoids the conversion where it can (delegates read the model's Python objects).
    """
    if sys.version_info >= (3, 12) or getattr(guard_none_refcount, "done", False):
        return
    import ctypes

    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40
    guard_none_refcount.done = True  # type: ignore[attr-defined]
