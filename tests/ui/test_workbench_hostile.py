"""Issue 26's workbench items in the window: a line that is not UTF-8 is named and the rest runs; a
history that cannot be written keeps the run on screen and says it was not recorded."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from tests.ui.test_workbench_window import (
    DELAY,
    MERGES,
    WAIT,
    open_workbench,
    repo,  # noqa: F401 - the fixture: a seeded git repository
)
from write.support import git


def test_a_latin1_line_is_named_and_an_unwritable_history_keeps_the_run(
    qtbot, make_window, git_store, repo, monkeypatch, tmp_path
):
    folder = repo / ".memhtml-desktop" / "probes"
    folder.mkdir(parents=True)
    lines = [
        json.dumps({"query": "deregistration delay", "target": DELAY}).encode(),
        b'{"query": "caf\xe9 compactor", "target": "' + MERGES.encode() + b'"}',
        json.dumps({"query": "compactor overlapping intervals", "target": MERGES}).encode(),
    ]
    (folder / "mixed.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a set with a Latin-1 line")
    blocker = tmp_path / "data-is-a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MEMHTML_DESKTOP_DATA", str(blocker / "data"))  # before the window and its engine
    win = make_window(git_store)
    wb, w = open_workbench(qtbot, win)
    with qtbot.waitSignal(wb.ran, timeout=WAIT) as ran:
        qtbot.mouseClick(w.run_button, Qt.MouseButton.LeftButton)
    run = ran.args[0]
    assert sorted(v.target for v in run.verdicts) == sorted([DELAY, MERGES])
    problems = [w.probes.problems.item(i).text() for i in range(w.probes.problems.count())]
    assert any(".memhtml-desktop/probes/mixed.jsonl:2:" in p and "not UTF-8" in p for p in problems), problems
    assert run.not_recorded and "\u26a0 The run was not recorded" in w.status.text()
