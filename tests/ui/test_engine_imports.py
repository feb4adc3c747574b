"""An engine forked from the forkserver answers the window's first calls without importing anything:
what those calls need is in `ops/spec.py` PRELOAD, imported once by the forkserver. (Each engine
imported 64 of the app's modules on its first calls before, 0.2-0.5 s before its last first answer,
at every store opened — and in every window test.)"""

from __future__ import annotations

import subprocess
import sys

from memhtml_desktop.ops import spec
from tests.conftest import ROOT
from tests.engine.helpers import ModulesJob


def _preloaded() -> set[str]:
    code = "import sys\n" + "".join(f"import {m}\n" for m in spec.PRELOAD)
    code += "print('\\n'.join(m for m in sys.modules if m.startswith('memhtml_desktop')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_the_window_s_first_calls_import_nothing_in_the_engine(qtbot, window):
    answer: list = []
    window.runner.run(ModulesJob().success(answer.append))
    qtbot.waitUntil(lambda: bool(answer), timeout=15000)
    pid, modules = answer[0]
    assert pid == window.runner.client.pid  # asked of the engine process, not this one
    missing = sorted(set(modules) - _preloaded())
    assert not missing, f"the engine imported these after its fork; add them to PRELOAD: {missing}"
