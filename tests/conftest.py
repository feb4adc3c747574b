"""Shared test setup. Qt must see the offscreen platform before any QApplication exists."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEMHTML_DESKTOP_NO_USER_CONFIG", "1")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DATA = Path(__file__).resolve().parent / "data"

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


def one_blas_thread_as_the_command_runs() -> None:
    """numpy's BLAS on one thread in the workers and every process they start, as the command pins
    it for itself and its children (memhtml_desktop/threads.py), before anything loads numpy.

    Without it the suite ran numpy as the app never does: two OpenBLAS threads in each of two
    workers (and in each engine and CLI child), spinning after every product on two cores. The
    ranking gates' files (tests/index/test_quality_gate.py, test_newer_first_search.py), alone, one
    after the other in one process: 180.8 s wall and 183 s of CPU (37 s of it the kernel's) with
    two threads, 88.7 s and 101 s with one. (The whole suite on two workers, where no core sits
    idle for the spinning threads to take, was no faster: 646 s against 638 s.)
    tests/test_blas_threads.py fails when this comes too late.
    """
    from memhtml_desktop.threads import one_blas_thread

    one_blas_thread()


one_blas_thread_as_the_command_runs()


def keep_bytecode() -> Path | None:
    """Compiled bytecode for every process of the run, kept in one private folder outside the checkout.

    This machine (and CI's) sets PYTHONDONTWRITEBYTECODE, and the checkout has no `__pycache__`: every
    process the suite starts — two workers, an engine forkserver each, hundreds of CLI children run
    with PYTHONPATH on the checkout — compiled the app from source again (about 0.25 s of CPU each for
    the window's imports), and each worker rewrote every test module's asserts again. The cache is
    the interpreter's own (`PYTHONPYCACHEPREFIX`), so the checkout stays as it is; a folder that is not
    this user's alone is not used (a stranger's bytecode would run as ours).
    """
    if os.environ.get("MEMHTML_DESKTOP_TEST_NO_PYCACHE"):  # to measure what the cache saves
        return None
    folder = Path(tempfile.gettempdir()) / f"memhtml-desktop-pycache-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(folder)
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
    return folder


PYCACHE = keep_bytecode()
