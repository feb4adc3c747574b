"""The command runs numpy's BLAS on one thread (memhtml_desktop/threads.py: one_blas_thread), set
before numpy loads, and its children inherit it; a value the user set is kept."""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import os, sys
from memhtml_desktop.cli import main
try:
    main(["--version"])
except SystemExit:
    pass
import numpy  # loaded after main set the variable, as every command's numpy is
print(os.environ.get("OPENBLAS_NUM_THREADS"), "numpy" in sys.modules)
"""


def _child(env_extra: dict[str, str]) -> str:
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split("\n")[-2]


def test_the_command_pins_one_blas_thread():
    assert _child({}) == "1 True"


def test_a_thread_count_the_user_set_is_kept():
    assert _child({"OPENBLAS_NUM_THREADS": "2"}) == "2 True"


def test_the_command_imports_no_numpy_before_it_pins_the_threads():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, memhtml_desktop.cli; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.stdout.strip() == "False", out.stderr


def test_the_suite_runs_numpy_as_the_command_does():
    """tests/conftest.py pins one BLAS thread before numpy loads: this process runs one, as the
    command does (an OpenBLAS that does not say is let be)."""
    import numpy  # noqa: F401  (loaded: the count is asked of the library)

    from memhtml_desktop.threads import blas_threads

    assert os.environ.get("OPENBLAS_NUM_THREADS") == "1"
    assert blas_threads() in (1, None)
