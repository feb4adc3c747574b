"""The process's memory as the C library sees it: glibc's allocator tuned and trimmed for the engine,
and a report of where the memory is (the soak samples it). Where the C library has no such calls
(musl, macOS) each does nothing and says so."""

from __future__ import annotations

import ctypes
import gc
from typing import Any

MALLINFO2_FIELDS = (
    "arena",
    "ordblks",
    "smblks",
    "hblks",
    "hblkhd",
    "usmblks",
    "fsmblks",
    "uordblks",
    "fordblks",
    "keepcost",
)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in MALLINFO2_FIELDS]


def libc(name: str) -> Any:
    """The C library's function `name`, or None where it has none."""
    try:
        return getattr(ctypes.CDLL(None), name)
    except (AttributeError, OSError):
        return None


def heap_report() -> dict[str, float | int]:
    """glibc's heap in use, free in its arenas and in pages of their own (MB; absent where there is no
    `mallinfo2`), and how many objects Python's collector tracks."""
    report: dict[str, float | int] = {"objects": len(gc.get_objects())}
    mallinfo2 = libc("mallinfo2")
    if mallinfo2 is not None:
        mallinfo2.restype = _Mallinfo2
        info = mallinfo2()
        report["heap_in_use_mb"] = round(info.uordblks / 2**20, 2)
        report["heap_free_mb"] = round(info.fordblks / 2**20, 2)
        report["mapped_mb"] = round(info.hblkhd / 2**20, 2)
    return report
