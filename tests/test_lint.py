"""ruff's lint and formatter hold for the package, the tests and the benchmarks (`[tool.ruff]` in
pyproject.toml).

Each check has a twin that copies pyproject.toml beside modules that break it and checks that the same
command reports them, so a configuration that silently selected nothing (or formatted nothing) would show.
A tree that is not formatted: `ruff check --select I --fix memhtml_desktop tests bench` and
`ruff format memhtml_desktop tests bench` (the test extra's ruff).
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
    assert importlib.util.find_spec("ruff"), (
        "ruff is not installed here: pip install -e '.[test]' (the test extra has it)"
    )
    # `--no-cache`: no .ruff_cache left in the tree; the package's ruff, not whichever is on PATH
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def ruff_format_check(root: Path, *paths: str) -> subprocess.CompletedProcess:
    assert importlib.util.find_spec("ruff"), (
        "ruff is not installed here: pip install -e '.[test]' (the test extra has it)"
    )
    return subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ruff_finds_nothing_in_the_package_the_tests_and_the_benchmarks():
    proc = ruff_check(ROOT, *CHECKED)
    assert proc.returncode == 0, f"ruff check {' '.join(CHECKED)}:\n{proc.stdout}{proc.stderr}"


BROKEN = """\
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
"""


def test_the_configuration_selects_the_rules_it_names(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "unparsable.py").write_text("def f(:\n", encoding="utf-8")
    proc = ruff_check(tmp_path, ".")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = set(re.findall(r"^\S+:\d+:\d+: ([A-Z]+\d+) ", proc.stdout, re.MULTILINE))
    assert {"F401", "F821", "F841", "TC004"} <= found, proc.stdout
    assert re.search(r"^unparsable\.py:\d+:\d+: ", proc.stdout, re.MULTILINE), (
        proc.stdout
    )  # E9: a file that does not parse


def test_the_package_the_tests_and_the_benchmarks_are_formatted():
    proc = ruff_format_check(ROOT, *CHECKED)
    fix = f"ruff check --select I --fix {' '.join(CHECKED)}; ruff format {' '.join(CHECKED)}"
    assert proc.returncode == 0, f"not formatted (run: {fix}):\n{proc.stdout}{proc.stderr}"


UNFORMATTED = """\
import sys
import os

table = { 'a':1,
  'b':2 }


def f(x) :
    return (x+1, os.sep, sys.argv)
"""


FORMATTED = """\
import os
import sys

table = {"a": 1, "b": 2}


def f(x):
    return (x + 1, os.sep, sys.argv)
"""


def test_the_formatter_and_the_import_order_are_checked(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "unformatted.py").write_text(UNFORMATTED, encoding="utf-8")
    (tmp_path / "formatted.py").write_text(FORMATTED, encoding="utf-8")
    proc = ruff_format_check(tmp_path, ".")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "unformatted.py" in proc.stdout and "formatted.py" not in proc.stdout.replace("unformatted.py", ""), (
        proc.stdout
    )
    lint = ruff_check(tmp_path, ".")
    found = re.findall(r"^(\S+):\d+:\d+: ([A-Z]+\d+) ", lint.stdout, re.MULTILINE)
    assert ("unformatted.py", "I001") in found and not any(name == "formatted.py" for name, _ in found), lint.stdout
