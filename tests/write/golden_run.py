"""Replay one write-golden case against this app and record what it did, for comparison.

`run_case` builds the case's pre-state (write-golden README: seed, index and state, setup steps),
runs this app's CLI in-process with memhtml's argv (plus `--json`) and the clock pinned to the
case's `now.txt`, and returns every observable: exit code, stdout, files changed, commits in
`git.txt`'s format, renames, `git status`, and the state rows before and after.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from write.support import GOLDEN, access_rows, argv_of, git, open_store, seed, tree_bytes

SHA = re.compile(r"\b[0-9a-f]{40}\b")


@dataclass
class Expected:
    name: str
    exit_code: int
    stdout: dict
    before: dict[str, bytes]
    after: dict[str, bytes]
    git_text: str
    moves: list[str]
    status: str
    now: str
    state_removed: list[dict] = field(default_factory=list)
    state_added: list[dict] = field(default_factory=list)


@dataclass
class Run:
    root: Path
    exit_code: int
    stdout: dict | None
    stderr: str
    before: dict[str, bytes]
    after: dict[str, bytes]
    git_text: str
    moves: list[str]
    status: str
    state_before: dict[str, tuple]
    state_after: dict[str, tuple]
    store: object = None


def expected(name: str) -> Expected:
    case = GOLDEN / name

    def files(sub: str) -> dict[str, bytes]:
        base = case / sub
        if not base.exists():
            return {}
        return {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}

    removed, added = [], []
    side = (case / "side-effects.txt").read_text(encoding="utf-8") if (case / "side-effects.txt").exists() else ""
    for line in side.splitlines():
        if line.startswith("- {"):
            removed.append(json.loads(line[2:]))
        elif line.startswith("+ {") and "link_kind" not in line:
            added.append(json.loads(line[2:]))
    status_file = case / "git-status-after.txt"
    return Expected(
        name=name,
        exit_code=int((case / "exit_code.txt").read_text().strip()),
        stdout=json.loads((case / "stdout.json").read_text(encoding="utf-8")),
        before=files("before"),
        after=files("after"),
        git_text=(case / "git.txt").read_text(encoding="utf-8"),
        moves=[l for l in (case / "moves.txt").read_text(encoding="utf-8").splitlines() if l.strip()],
        status=status_file.read_text(encoding="utf-8") if status_file.exists() else "",
        now=(case / "now.txt").read_text().split()[0] if (case / "now.txt").exists() else "2026-12-01T11:00:00Z",
        state_removed=removed,
        state_added=added,
    )


def base_of(name: str) -> str:
    text = (GOLDEN / name / "command.txt").read_text(encoding="utf-8")
    if "not a git repository" in text:
        return "empty"
    if "no index, no state import" in text:
        return "noindex"
    return "indexed"


def git_text(root: Path, since: str | None) -> tuple[str, list[str]]:
    """The new commits as `git.txt` writes them, and the renames they carry (`old -> new`)."""
    if since is None:
        return "(no new commit)\n", []
    shas = git(root, "rev-list", "--reverse", f"{since}..HEAD").split()
    if not shas:
        return "(no new commit)\n", []
    parts, moves = [], []
    for i, sha in enumerate(shas, 1):
        body = git(root, "show", "-M", "--name-status", "--format=%B", sha)
        parts.append(f"### commit {i}/{len(shas)} {sha}\n{body}")
        for line in body.splitlines():
            if line.startswith("R") and "\t" in line:
                _, old, new = line.split("\t")
                moves.append(f"{old} -> {new}")
    return "".join(parts), moves


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    from memhtml_desktop.cli import main

    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _replay_setup(root: Path, steps: list[dict], now: str, monkeypatch, capsys) -> None:
    for step in steps:
        if "sh" in step:
            subprocess.run(["bash", "-c", step["sh"]], cwd=root, check=True, capture_output=True)
            continue
        args = [str(root) if a == "$STORE" else a for a in step["memhtml"]]
        if "reinforce" in args:
            store = open_store(root, now=now, index=False, state=False)
            at = args.index("reinforce")
            store.reinforce([args[at + 1]], args[args.index("--signal") + 1])
        elif "index" in args:
            open_store(root, now=now, state=False)
        else:
            monkeypatch.setenv("MEMHTML_DESKTOP_NOW", now)
            code, _, err = cli(args, capsys)
            assert code == 0, err


def run_case(name: str, tmp_path: Path, monkeypatch, capsys, *, argv_extra: tuple[str, ...] = ("--json",)) -> Run:
    case = GOLDEN / name
    exp = expected(name)
    base = base_of(name)
    if base == "empty":
        root = tmp_path / "store"
        root.mkdir()
    else:
        root = seed(tmp_path)
    if base == "indexed":
        open_store(root, now=exp.now)
    if (case / "setup.json").exists():
        _replay_setup(root, json.loads((case / "setup.json").read_text(encoding="utf-8")), exp.now, monkeypatch, capsys)
    head_before = git(root, "rev-parse", "HEAD").strip() if base != "empty" else None
    files_before = tree_bytes(root)
    store = open_store(root, now=exp.now, index=False, state=False) if base != "empty" else None
    state_before = access_rows(store) if store is not None and (root / ".memhtml/state.db").exists() else {}
    if store is not None:
        store.close_thread_connection()
    if (case / "env.json").exists():
        for key, value in json.loads((case / "env.json").read_text(encoding="utf-8")).items():
            if value is None:
                monkeypatch.delenv(key, raising=False)
            else:
                monkeypatch.setenv(key, value)
    monkeypatch.setenv("MEMHTML_DESKTOP_NOW", exp.now)
    stdin = case / "stdin.jsonl"
    if stdin.exists():
        import io
        import sys

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.read_bytes()), encoding="utf-8"))
    code, out, err = cli([*argv_of(case, root), *argv_extra], capsys)
    files_after = tree_bytes(root)
    changed_before = {p: b for p, b in files_before.items() if files_after.get(p) != b}
    changed_after = {p: b for p, b in files_after.items() if files_before.get(p) != b}
    text, moves = git_text(root, head_before)
    status = git(root, "status", "--porcelain=v1", "--untracked-files=all") if base != "empty" else ""
    state_after: dict[str, tuple] = {}
    after_store = None
    if base != "empty" and (root / ".memhtml/state.db").exists():
        after_store = open_store(root, now=exp.now, index=False, state=False)
        state_after = access_rows(after_store)
    try:
        stdout = json.loads(out) if out.strip() else None
    except ValueError:
        stdout = None
    return Run(root, code, stdout, err, changed_before, changed_after, text, moves, status,
               state_before, state_after, after_store)  # fmt: skip


# -- comparing --------------------------------------------------------------------------------


def snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def to_snake(value):
    if isinstance(value, dict):
        return {snake(k): to_snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_snake(v) for v in value]
    return value


def golden_data(exp: Expected) -> dict:
    """memhtml's envelope as this app prints it: `data` with snake_case keys, or the error."""
    if "error" in exp.stdout:
        # memhtml prefixes apply's input errors with its program name; this app's messages do not.
        error = re.sub(r"^memhtml apply:", "apply:", exp.stdout["error"])
        return {"error": parser_text_masked(error), "code": exp.stdout["code"]}
    return to_snake(exp.stdout["data"])


def parser_text_masked(error: str) -> str:
    """A JSON parser's own words (node's in the golden, Python's here) replaced by `…`."""
    return re.sub(r"not valid JSON \(.*\)\. Every line", "not valid JSON (…). Every line", error)


def state_changes(run: Run) -> tuple[list[dict], list[dict]]:
    cols = ("path", "access_count", "reinforcement_count", "outcome_score", "last_accessed_at",
            "last_reinforced_at", "updated_at")  # fmt: skip
    removed = [dict(zip(cols, r)) for p, r in sorted(run.state_before.items()) if run.state_after.get(p) != r]
    added = [dict(zip(cols, r)) for p, r in sorted(run.state_after.items()) if run.state_before.get(p) != r]
    return removed, added
