"""The layering is enforced by import-linter: the contracts in pyproject.toml hold, and they can fail.

The contracts (`[tool.importlinter]`): domain < html < index, embedders < watch, write < workbench,
history (independent of each other) < ui < cli; no Qt below ui/; no apsw or sqlite3 in ui/, watch/, workbench/ or
history/; the Store and its doors (index/doors.py) the only way into index/ from ui/ and cli/, the history
package the only door into history/; write/ and workbench/ reach index/ only through the doors and their own
SQL module (curation.py, arm_lists.py); devtools/ never imported by the app; domain/ pure. The second half of this file
copies the package to a temporary directory, adds one module that breaks a contract, and checks
that `lint-imports` says so, so a contract that silently matched nothing would show here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("importlinter")


def lint(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; "
            "sys.argv = ['lint-imports', '--no-cache']; lint_imports_command()",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_import_contracts_are_kept():
    proc = lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout and "13 kept" in proc.stdout


@pytest.fixture(scope="module")
def copy_root(tmp_path_factory) -> Path:
    """The package and pyproject.toml, copied (a scratch tree to break on purpose)."""
    root = tmp_path_factory.mktemp("contracts")
    shutil.copytree(
        ROOT / "memhtml_desktop", root / "memhtml_desktop", ignore=shutil.ignore_patterns("__pycache__", "_data")
    )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


BREAKS = {
    "qt-in-index": ("memhtml_desktop/index/leak.py", "from PySide6.QtCore import QObject\n", "No Qt below ui/"),
    "ui-past-the-door": (
        "memhtml_desktop/ui/results/side_door.py",
        "from memhtml_desktop.index.facets import filter_counts\n",
        "The Store and its doors: the only way",
    ),
    "sql-in-watch": ("memhtml_desktop/watch/raw.py", "import apsw\n", "No apsw or sqlite3"),
    "domain-up": ("memhtml_desktop/domain/upward.py", "from memhtml_desktop.index import scope\n", "Layers"),
    "app-uses-devtools": (
        "memhtml_desktop/cli/gen.py",
        "from memhtml_desktop.devtools import gen_store\n",
        "devtools/",
    ),
    "sql-in-workbench": ("memhtml_desktop/workbench/raw.py", "import apsw\n", "No apsw or sqlite3 in workbench/"),
    "write-uses-workbench": (
        "memhtml_desktop/write/upward.py",
        "from memhtml_desktop.workbench import runs\n",
        "Layers",
    ),
    "ui-past-the-curator": (
        "memhtml_desktop/ui/curate/side_door.py",
        "from memhtml_desktop.write.git import Git\n",
        "The Curator is the only door",
    ),
    "cli-past-the-workbench": (
        "memhtml_desktop/cli/side_door.py",
        "from memhtml_desktop.workbench.runs import check_probe_paths\n",
        "The workbench's package is the only door",
    ),
    "sql-in-history": ("memhtml_desktop/history/raw.py", "import apsw\n", "No apsw or sqlite3 in history/"),
    "ui-past-the-history": (
        "memhtml_desktop/ui/shell/side_door.py",
        "from memhtml_desktop.history.review import review_range\n",
        "The history package is the only door",
    ),
    "history-up": ("memhtml_desktop/history/upward.py", "from memhtml_desktop.ops import jobs\n", "Layers"),
    "workbench-uses-history": (
        "memhtml_desktop/workbench/sideways.py",
        "from memhtml_desktop import history\n",
        "Layers",
    ),
    "write-into-the-vectors": (
        "memhtml_desktop/write/side_door.py",
        "from memhtml_desktop.index.vectors import VectorCache\n",
        "write/ reaches index/ only through",
    ),
    "write-into-the-scanner": (
        "memhtml_desktop/write/side_door.py",
        "from memhtml_desktop.index.scanner import MAX_FILE_BYTES\n",
        "write/ reaches index/ only through",
    ),
    "workbench-into-the-answers": (
        "memhtml_desktop/workbench/side_door.py",
        "from memhtml_desktop.index.answers import word_docs\n",
        "workbench/ reaches index/ only through",
    ),
    "write-with-qt": (
        "memhtml_desktop/write/__init__.py",
        "from memhtml_desktop.index import store\nfrom PySide6.QtCore import QObject\n",
        "No Qt below ui/",
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_contract_breaks_when_a_module_breaks_it(copy_root, name):
    path, source, contract = BREAKS[name]
    target = copy_root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    existed = target.exists()
    target.write_text(source, encoding="utf-8")
    try:
        proc = lint(copy_root)
    finally:
        if not existed:
            target.unlink()
    assert proc.returncode != 0, proc.stdout
    broken = [line for line in proc.stdout.splitlines() if " BROKEN" in line]
    assert any(line.startswith(contract) for line in broken), proc.stdout


def test_a_qt_free_write_package_beside_index_fits(copy_root):
    """issue 15's write/ package: may use index (through its doors), html and domain; the contracts hold."""
    package = copy_root / "memhtml_desktop" / "write"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(
        "from memhtml_desktop.index import curation, doors\nfrom memhtml_desktop.html import project\n"
    )
    try:
        proc = lint(copy_root)
    finally:
        shutil.rmtree(package)
    assert proc.returncode == 0, proc.stdout
