"""The PySide6 canary: the binding must not lose references to True, False or None.

PySide6-Essentials 6.12.0 drops a reference to `True` for every `True` a signal delivers to a
Python slot (and to `None` for every built-in `clicked(bool)` / `toggled(bool)`); on Python 3.11
those singletons are not immortal, so the window aborted with `Fatal Python error: bool_dealloc`
after about 1,400 memory opens (issue 40). pyproject.toml keeps 6.12 out; this test makes the
next binding that breaks the same way fail CI instead of a curator's afternoon.

The paths are the window's own: `Runner.busy_changed(str, bool)` on every job, the answer signals
`Signal(object)` (which carry None as well), the filters' `toggled(str, str, bool)`, and Qt's own
checkbox / button / action signals. The measurement runs in a child process, because a broken
binding aborts the interpreter that runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TIMES = 20000
"""More than the ~570 references True starts with, so a lost reference per emit aborts the child."""
DRIFT = 50
"""What interning and caches may move a count by over a whole run (6.11: at most a few)."""


def run_canary(times: int = TIMES) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, str(HERE / "singleton_canary.py"), str(times)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def losses(stdout: str, times: int) -> list[str]:
    """Every (path, singleton) whose reference count moved by more than DRIFT, in words."""
    said = []
    for line in stdout.splitlines():
        if line == "ok":
            continue
        name, *deltas = line.split()
        for singleton, delta in zip(("True", "False", "None"), map(int, deltas)):
            if abs(delta) > DRIFT:
                said.append(f"{name}: {singleton}'s reference count moved by {delta} over {times} calls")
    return said


def test_true_false_and_none_survive_tens_of_thousands_of_signals():
    proc = run_canary()
    assert proc.returncode == 0, (
        f"the canary child ended with {proc.returncode} (a binding that loses references to True/False/None "
        f"aborts Python 3.11 with bool_dealloc): {proc.stderr[-800:]}\n{proc.stdout}"
    )
    lines = proc.stdout.splitlines()
    assert lines[-1] == "ok" and len(lines) == 12, proc.stdout
    assert losses(proc.stdout, TIMES) == []


LEAKY_SLOT = """
import ctypes, sys
sys.path.insert(0, {here!r})
import singleton_canary as canary
drop = ctypes.pythonapi.Py_DecRef
drop.argtypes = [ctypes.py_object]
dropped = [0]
def one(self, value):
    if value is False and dropped[0] < 300:  # a binding that forgets a Py_INCREF (False's count survives 300)
        dropped[0] += 1
        drop(value)
canary.Slots.one = one
sys.argv[1:] = ["300"]
try:
    canary.main()
finally:
    give = ctypes.pythonapi.Py_IncRef
    give.argtypes = [ctypes.py_object]
    for _ in range(300):
        give(False)
"""


def test_the_canary_sees_a_slot_that_loses_references():
    """The measurement can fail: a slot that drops a reference per call is reported."""
    proc = subprocess.run(
        [sys.executable, "-c", LEAKY_SLOT.format(here=str(HERE))],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    said = losses(proc.stdout, 300)
    assert said == ["signal-bool-false: False's reference count moved by -300 over 300 calls"], proc.stdout


def test_the_pyside_range_excludes_the_broken_release():
    """pyproject.toml's range keeps 6.12.x out until a release passes this canary."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    spec = next(d for d in pyproject["project"]["dependencies"] if d.startswith("PySide6-Essentials"))
    assert "<6.12" in spec.replace(" ", ""), spec


def test_the_installed_pyside_is_inside_the_range():
    from importlib.metadata import version

    from packaging.specifiers import SpecifierSet

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    spec = next(d for d in pyproject["project"]["dependencies"] if d.startswith("PySide6-Essentials"))
    assert version("PySide6-Essentials") in SpecifierSet(spec[len("PySide6-Essentials") :]), spec


def test_every_dependency_has_a_tested_range():
    """A lower and an upper bound on every runtime, test and embedder dependency: a new release line
    reaches users only after someone ran the suite on it and moved the bound."""
    from packaging.requirements import Requirement

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    declared = [
        *project["dependencies"],
        *project["optional-dependencies"]["test"],
        *project["optional-dependencies"]["minilm"],
    ]
    unbounded = []
    for text in declared:
        operators = {spec.operator for spec in Requirement(text).specifier}
        if not (operators & {">=", ">", "=="}) or not (operators & {"<", "<=", "=="}):
            unbounded.append(text)
    assert unbounded == []


LOSE_TRUE = """
import ctypes, sys
{guard}
drop = ctypes.pythonapi.Py_DecRef
drop.argtypes = [ctypes.py_object]
for _ in range(5000):  # a binding losing a reference per emit, 5,000 emits (True starts near 600)
    drop(True)
    drop(None)
print("survived")
"""


def test_the_windows_guard_keeps_the_singletons_alive_beside_a_losing_binding():
    """The second wall: importing the ui package (what the window does first) gives True, False and
    None counts no session can exhaust, so a broken binding installed anyway does not abort it."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    guarded = subprocess.run(
        [sys.executable, "-c", LOSE_TRUE.format(guard="import memhtml_desktop.ui")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert guarded.returncode == 0 and guarded.stdout.strip() == "survived", guarded.stderr[-600:]
    bare = subprocess.run(
        [sys.executable, "-c", LOSE_TRUE.format(guard="")], env=env, capture_output=True, text=True, timeout=120
    )
    assert bare.returncode != 0 and "dealloc" in bare.stderr  # what the guard prevents
