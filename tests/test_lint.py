"""ruff's lint holds for the package, the tests and the benchmarks (`[tool.ruff]` in pyproject.toml).

The second test copies pyproject.toml beside a module with one finding of each selected kind and checks
that the same command reports each, so a configuration that silently selected nothing would show here.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("memhtml_desktop", "tests", "bench")


def ruff_check(root: Path, *paths: str) -> subprocess.CompletedProcess:
    assert importlib.util.find_spec("ruff"), "ruff is not installed here: pip install -e '.[test]' (the test extra has it)"
    # `--no-cache`: no .ruff_cache left in the tree; the package's ruff, not whichever is on PATH
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *paths],
                          cwd=root, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing_in_the_package_the_tests_and_the_benchmarks():
    proc = ruff_check(ROOT, *CHECKED)
    assert proc.returncode == 0, f"ruff check {' '.join(CHECKED)}:\n{proc.stdout}{proc.stderr}"


BROKEN = '''\
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def made() -> Path:
    return Path("x")


def missing():
    return undefined_name


def unused():
    value = 1
'''


def test_the_configuration_selects_the_rules_it_names(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "unparsable.py").write_text("def f(:\n", encoding="utf-8")
    proc = ruff_check(tmp_path, ".")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = set(re.findall(r"^\S+:\d+:\d+: ([A-Z]+\d+) ", proc.stdout, re.MULTILINE))
    assert {"F401", "F821", "F841", "TC004"} <= found, proc.stdout
    assert re.search(r"^unparsable\.py:\d+:\d+: ", proc.stdout, re.MULTILINE), proc.stdout  # E9: a file that does not parse
