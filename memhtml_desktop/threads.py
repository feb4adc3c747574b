"""The threads of numpy's BLAS: one per process (see `one_blas_thread`).

(Per-thread niceness lived here until the engine took the store's work out of the window's
process: the watcher's thread no longer shares an interpreter lock with the GUI thread, and the
engine process is one of its own, `engine/process.py` ENGINE_NICE.)
"""

from __future__ import annotations

import os

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Run numpy's BLAS on one thread in this process and its children, unless the environment
    already says otherwise. Call it before numpy is imported (the command's `main` does).

    The products this app makes per search are matrix-vector ones (the vector arm's 20,000 x 384 or
    100,000 x 384 product, the post-fusion steps' 160 x 384 tables): memory-bound, so a second thread
    gains little, while OpenBLAS's threads spin after each call and, on a loaded two-core machine,
    contend with the thread that waits for them. Measured (bench/search_bench.py, 20,000 memories):
    a search's CPU 34.5 -> 18.2 ms, the vector arm's product 7.4 -> 2.1 ms of CPU. What it costs:
    the conflicts scan (an all-pairs product, compute-bound) runs on one core, about twice its
    wall time on an otherwise idle machine (docs/benchmarks.md).
    """
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


_OPENBLAS_COUNTS = (
    "scipy_openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)


def blas_threads() -> int | None:
    """How many threads the OpenBLAS numpy loaded runs, asked of the library itself (found among the
    libraries this process mapped); None when numpy is not loaded, or its BLAS is not OpenBLAS or
    does not say. Whether a product split into blocks of rows gives the same bits as one product
    depends on it (index/vector_file.py `Pages`): one thread computes each row alone."""
    import sys

    if "numpy" not in sys.modules:
        return None
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as handle:
            paths = {
                line.split(None, 5)[5].strip()
                for line in handle
                if "openblas" in line.lower() and len(line.split(None, 5)) == 6
            }
    except OSError:
        return None
    import ctypes

    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        for name in _OPENBLAS_COUNTS:
            count = getattr(lib, name, None)
            if count is not None:
                count.restype = ctypes.c_int
                return int(count())
    return None
