"""The verb table (cli/verbs.py) and the parser built from it: the verb asked for is parsed by its own
module's subparser, the others stay unimported, and what a person sees is what the full parser says."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memhtml_desktop import cli
from memhtml_desktop.cli.verbs import HELP, MODULE, MODULES

ROOT = Path(__file__).resolve().parents[1]


def _listed(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(choice.dest, choice.help) for choice in sub._choices_actions]


def test_the_table_is_every_module_s_verbs_in_the_order_help_lists_them():
    full = cli.build_parser()
    assert _listed(full) == list(HELP.items())
    for module in MODULES:
        handlers = cli._group(module).COMMANDS
        assert list(handlers) == [verb for verb in HELP if MODULE[verb] == module], module
    assert set(cli.COMMANDS) == set(HELP)


def _outcome(parser_of, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result = vars(parser_of(argv))
        except SystemExit as exc:
            result = ("exit", exc.code)
    return result, out.getvalue(), err.getvalue()


ARGVS = [
    ["--help"],
    ["search", "--help"],
    ["--store", "/s", "search", "drain the vip", "--limit", "3", "--type", "procedural"],
    ["search", "q", "--store=/s", "--json"],
    ["--sto", "/s", "recall", "q", "--budget", "900"],
    ["state", "export", "--help"],
    ["probes", "add", "core", "--query", "q", "--target", "a.html"],
    ["task", "status", "p.html", "done"],
    ["bogus"],
    ["search"],
    ["search", "q", "--bogus"],
    ["--embedder", "nope", "list"],
    ["-v", "index", "--json"],
    [],
    ["--demo"],
    ["gui", "--demo-fresh"],
    ["review", "done", "--upto", "HEAD"],
    ["--help", "search"],
    ["state"],
    ["search", "write"],
    ["--store", "search", "search", "x"],
    ["screenshot", "--out", "a.png", "--view", "reader"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(a) or "(none)")
def test_the_lazy_parse_reads_argv_as_the_full_parser_does(argv):
    """Same namespace, same help, same usage error and exit code: only the building differs."""
    assert _outcome(cli.parse, argv) == _outcome(lambda a: cli.build_parser().parse_args(a), argv)


def _modules_after(argv: list[str], tmp_path: Path) -> set[str]:
    probe = (
        "import json, sys\nfrom memhtml_desktop.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('memhtml_desktop'))), file=sys.__stderr__)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_help_and_a_search_load_only_their_own_command_modules(tmp_path):
    loaded = _modules_after(["--help"], tmp_path)
    assert not {m for m in loaded if m.startswith("memhtml_desktop.cli.") and m.endswith(("_commands", "_command"))}
    assert "memhtml_desktop.cli.memhtml_argv" not in loaded
    loaded = _modules_after(["search", "--help"], tmp_path)
    commands = {m.rsplit(".", 1)[1] for m in loaded if m.endswith(("_commands", "_command"))}
    assert commands == {"read_commands", "shape_commands"}  # search's module, and recall's shapes it imports
