"""The process's memory as the C library sees it: its functions looked up (the engine's allocator
tuning and trims, `engine/core.py`) and where the memory is (`heap_report`, which the soak samples
in the window and asks of the engine). Where the C library has no such call (musl, macOS) the
lookup gives None and the report leaves glibc's figures out."""

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


def glibc_heap() -> dict[str, float]:
    """glibc's own view of the heap (`mallinfo2`, MB): in use (a heap that uses more and more keeps
    allocations), free in its arenas (one that holds more and more free memory is fragmented), and
    mapped apart (allocations from MMAP_THRESHOLD up). Empty without `mallinfo2`."""
    mallinfo2 = libc("mallinfo2")
    if mallinfo2 is None:
        return {}
    mallinfo2.restype = _Mallinfo2
    info = mallinfo2()
    return {
        "heap_in_use_mb": round(info.uordblks / 2**20, 2),
        "heap_free_mb": round(info.fordblks / 2**20, 2),
        "mapped_mb": round(info.hblkhd / 2**20, 2),
    }


def heap_report() -> dict[str, float | int]:
    """`glibc_heap`, and how many objects Python's collector tracks."""
    return {"objects": len(gc.get_objects()), **glibc_heap()}
