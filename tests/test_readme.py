"""The README's first lines are the two commands a newcomer runs, and CI runs the second one."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from memhtml_desktop.settings import SETTINGS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _command_after(marker: str) -> str:
    lines = README.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(marker))
    return lines[index + 1]


def test_two_commands_come_first():
    head = "\n".join(README.splitlines()[:14])
    assert "# 1. install and start the app on the bundled demo store" in head
    assert "# 2. install and run the tests" in head
    assert "memhtml-desktop --demo" in _command_after("# 1.")
    assert "pip install '.[test" in _command_after("# 2.") and "pytest" in _command_after("# 2.")


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "venv" in _command_after("# 2.")
    assert "grep -A1 '^# 2\\. install and run the tests' README.md" in script
    extracted = subprocess.run(
        ["bash", "-c", "grep -A1 '^# 2\\. install and run the tests' README.md | tail -n 1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert extracted == _command_after("# 2.")


def test_the_test_command_runs_on_two_workers_from_the_test_extra():
    import tomllib

    assert _command_after("# 2.").endswith(".venv/bin/python -m pytest -q -n 2")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(re.match(r"pytest-xdist\W", requirement) for requirement in extra["test"]), extra["test"]


def test_every_setting_is_documented():
    table = README.split("## Settings", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M))
    assert documented == {s.name for s in SETTINGS}
    for setting in SETTINGS:
        if setting.env:
            assert setting.env in README


def test_every_command_is_documented():
    from memhtml_desktop.cli import COMMANDS

    section = README.split("## Command line", 1)[1].split("\n## ", 1)[0]
    for name in COMMANDS:
        assert f"`{name}" in section or f"/ `{name}" in section, name
