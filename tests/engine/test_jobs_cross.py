"""Every typed job can reach the engine: defined below ui/ (the engine imports no Qt) and picklable
as the runner sends it (`Job.portable()`: its handlers stay in the window).

A job class defined in a ui module would make the engine import PySide6 to unpickle it, and one
holding a lambda or a Qt object would fail to cross at all; both are caught here for every job
class in the package, including the ones a later pane adds."""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import pkgutil
import subprocess
import sys

import pytest

import memhtml_desktop
from memhtml_desktop.ops.jobs import Job


def all_job_classes() -> list[type]:
    for info in pkgutil.walk_packages(memhtml_desktop.__path__, "memhtml_desktop."):
        if info.name.startswith(("memhtml_desktop.devtools", "memhtml_desktop.embedders.minilm")):
            continue
        importlib.import_module(info.name)
    seen, todo = set(), [Job]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen and sub.__module__.startswith("memhtml_desktop."):
                seen.add(sub)
                todo.append(sub)
    return sorted(seen, key=lambda c: (c.__module__, c.__qualname__))


JOBS = all_job_classes()


def test_there_are_jobs_to_check():
    assert len(JOBS) > 40, [c.__name__ for c in JOBS]


@pytest.mark.parametrize("cls", JOBS, ids=lambda c: f"{c.__module__.rsplit('.', 1)[-1]}.{c.__name__}")
def test_a_job_is_defined_below_the_window_and_crosses_as_it_is_sent(cls):
    assert not cls.__module__.startswith("memhtml_desktop.ui."), (
        f"{cls.__qualname__} is defined in {cls.__module__}: the engine would import Qt to run it (put it in ops/)"
    )
    job = _an_instance(cls)
    if job is None:
        pytest.skip(f"{cls.__name__} needs arguments this test cannot make up")
    job = job.success(lambda value: None).failure(lambda message: None)
    sent = job.portable()
    assert sent.on_success is None and sent.on_failure is None and sent.on_progress is None
    again = pickle.loads(pickle.dumps(sent))
    assert type(again) is cls


def _an_instance(cls: type) -> Job | None:
    """A job of `cls` with plain stand-in values for its required fields."""
    values = {}
    for field in dataclasses.fields(cls):
        if (
            not field.init
            or field.default is not dataclasses.MISSING
            or field.default_factory is not dataclasses.MISSING
        ):  # type: ignore[misc]
            continue
        hint = str(field.type)  # the annotation as written (`from __future__ import annotations`)
        if "str" in hint:
            values[field.name] = "areas/x/y.html"
        elif "int" in hint:
            values[field.name] = 1
        elif "tuple" in hint:
            values[field.name] = ()
        elif "float" in hint:
            values[field.name] = 0.5
        elif "Scope" in hint:
            from memhtml_desktop.domain.types import Scope

            values[field.name] = Scope()
        else:
            values[field.name] = None
    try:
        return cls(**values)
    except Exception:  # noqa: BLE001 - a job whose fields need real values: skipped by name
        return None


def test_the_engine_runs_without_importing_qt():
    """An engine's process never imports PySide6: the jobs it unpickles and everything they import."""
    code = (
        "import sys, pickle\n"
        "import memhtml_desktop.engine.process, memhtml_desktop.ops.jobs, memhtml_desktop.ops.curate,"
        " memhtml_desktop.ops.workbench\n"
        "import memhtml_desktop.ops.review\n"
        "print('PySide6' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "False"
