"""Correcting a memory from the real window keeps its place in the graph (issue 39, step 4).

The drain runbook of the golden store is `part-of` an arc and `about-person` Sanju, holds a
`<dfn>` entity and four facets, was read 23 times, and three memories link to it: the issue's
example. A person finds it, opens it (the 24th read), presses Ctrl+E, types the corrected claim,
unticks one link, and confirms. Real git repositories, the real MainWindow offscreen, the write on
the window's writer; another writer through plain git or this app's memhtml-compatible CLI.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt

from memhtml_desktop.index.state import access_stats
from write.support import git, pin_git, seed, snapshot, status

WAIT = 20000
RUNBOOK = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
LINKERS = (
    "areas/inbox/grep-the-deploy-log-for-deregistration-to-find-rollbacks.html",
    "projects/checkout-api/20260728-checkout-api-sev2-pinned-connections-after-a-revert.html",
    "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html",
)
ARC, SANJU = "areas/arcs/reversibility-first.html", "resources/people/sanju.html"
CLAIM = "If a prod rollback is issued, drain the VIP for 60 seconds before reverting the deploy."
AGENT = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
}


@pytest.fixture
def repo(tmp_path, monkeypatch) -> object:
    pin_git(monkeypatch, tmp_path)
    return seed(tmp_path)


def open_by_search(qtbot, win, words: str, path: str) -> None:
    """Type the words, move to the row, press Enter: a person's read."""
    field = win.search_bar.field
    field.setFocus()
    field.clear()
    qtbot.keyClicks(field, words)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: path in [h.path for h in (win.results.model.result() or ()).hits]
                    if win.results.model.result() is not None else False, timeout=WAIT)  # fmt: skip
    row = [h.path for h in win.results.model.result().hits].index(path)
    win.results.set_current_row(row)
    win.results.table.setFocus()
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == path):
        qtbot.keyClick(win.results.table, Qt.Key.Key_Return)


def correct_dialog(qtbot, win):
    """Ctrl+E on the window, as Edit → Correct… says."""
    curate = win.controllers["curate"]
    with qtbot.waitSignal(curate.dialog_opened, timeout=WAIT) as opened:
        qtbot.keyClick(win, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    return opened.args[0]


def type_claim(qtbot, dialog, claim: str) -> None:
    box = dialog.fields.claim
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(box, claim)


def planned(qtbot, dialog) -> None:
    qtbot.waitUntil(lambda: not dialog.planning() and (dialog.confirm_button.isEnabled()
                                                       or dialog.message_kind() in ("error", "stale")),
                    timeout=WAIT)  # fmt: skip


def untick(qtbot, view, text: str) -> None:
    """Select the row holding `text` and press Space (a person's untick)."""
    row = next(i for i in range(view.count()) if text in view.item(i).text())
    view.setFocus()
    view.setCurrentRow(row)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert view.item(row).checkState() == Qt.CheckState.Unchecked


def confirm(qtbot, win, dialog):
    with qtbot.waitSignal(win.controllers["curate"].written, timeout=WAIT) as written:
        qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    return written.args[0]


def test_correcting_the_runbook_from_the_window_keeps_its_links_entities_facets_backlinks_and_reads(
        qtbot, win, repo, git_store):  # fmt: skip
    open_by_search(qtbot, win, "drain the vip", RUNBOOK)
    qtbot.waitUntil(lambda: (access_stats(git_store.reader(), RUNBOOK) or {}).get("access_count") == 24, timeout=WAIT)
    head = git(repo, "rev-parse", "HEAD").strip()
    dialog = correct_dialog(qtbot, win)
    # the dialog says what the correction would otherwise lose
    summary = dialog.graph.summary.text()
    assert "3 memories linking to it" in summary and "24 reads" in summary and "1 from <dfn>" in summary
    assert "concept:connection draining" in dialog.fields.entities.text()
    kept = {
        dialog.graph.links.item(i).text(): dialog.graph.links.item(i).checkState()
        for i in range(dialog.graph.links.count())
    }
    assert [state for text, state in kept.items() if "supersedes \u2192" in text] == [Qt.CheckState.Unchecked]
    assert dialog.graph.inbound.count() == 3 and dialog.graph.reads.isChecked()
    assert "24 reads" in dialog.graph.reads.text()
    untick(qtbot, dialog.graph.links, "about_person")
    type_claim(qtbot, dialog, CLAIM)
    planned(qtbot, dialog)
    preview = dialog.preview.preview()
    assert sorted(c.path for c in preview.plan.changes if c.action == "modify") == sorted(LINKERS)
    assert dialog.preview.files.count() == 5, "every repointed memory is listed with its diff"
    assert (
        "move from" in dialog.preview.notes_label.text() and "to the new version" in dialog.preview.notes_label.text()
    )
    applied = confirm(qtbot, win, dialog)
    new = applied.result["path"]
    assert new.startswith("areas/oncall/") and new != RUNBOOK
    text = (repo / new).read_text(encoding="utf-8")
    assert f'<link rel="memhtml-part-of" href="/{ARC}">' in text
    assert "memhtml-about-person" not in text, "removed in the dialog"
    assert '<meta name="memhtml-entity" content="concept:connection draining">' in text
    assert '<meta name="memhtml-entity" content="person:sanju">' in text
    assert "<dt>Failure window</dt>" in text and "<dt>tier</dt>" in text
    for path in LINKERS:
        assert f'href="/{new}"' in (repo / path).read_text(encoding="utf-8")
    assert git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1" and status(repo) == ""
    stats = access_stats(git_store.reader(), new)
    assert stats is not None and stats["access_count"] == 24
    # the reader follows: the new version, read 24 times, linked from the three
    qtbot.waitUntil(lambda: win.reader.current_path() == new and win.reader.state() == "detail", timeout=WAIT)
    qtbot.waitUntil(lambda: win.reader.backlinks_model.rowCount() == 3, timeout=WAIT)
    assert "Read 24" in win.reader.stats_label.text()
    # the archived copy says where its reads went
    archived = applied.result["archived_path"]
    with qtbot.waitSignal(win.memory_shown, timeout=WAIT, check_params_cb=lambda d: d.path == archived):
        win.open_memory(archived, bump=False)
    assert win.reader.stats_label.text().startswith(
        f"Not read yet as this version: reads are counted on {new}, which superseded it \u00b7 and read 6\u00d7 as "
        "the version it supersedes (archive/2026/areas/oncall/rollback-order.html)"
    )


def test_a_plain_git_commit_over_a_linking_memory_before_confirm_is_refused_then_reloaded(qtbot, win, repo, git_store):
    open_by_search(qtbot, win, "drain the vip", RUNBOOK)
    dialog = correct_dialog(qtbot, win)
    type_claim(qtbot, dialog, CLAIM)
    planned(qtbot, dialog)
    assert dialog.confirm_button.isEnabled()
    # an agent edits one of the three linking memories and commits it with plain git
    target = repo / LINKERS[2]
    target.write_text(target.read_text(encoding="utf-8").replace("</article>", "<p>An agent's note.</p>\n</article>"))
    env = {**os.environ, **AGENT}
    git(repo, "commit", "-qam", "agent: a note on the delay", env=env)
    theirs = git(repo, "rev-parse", "HEAD").strip()
    before = snapshot(repo)
    qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.message_kind() == "stale", timeout=WAIT)
    assert LINKERS[2] in dialog.message.text() and "Nothing was written" in dialog.message.text()
    assert snapshot(repo) == before and git(repo, "rev-parse", "HEAD").strip() == theirs
    # reload: the dialog reads the files again, keeps what was typed, and the write lands on theirs
    qtbot.mouseClick(dialog.reload_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.message_kind() != "stale", timeout=WAIT)
    planned(qtbot, dialog)
    assert dialog.confirm_button.isEnabled(), dialog.message.text()
    applied = confirm(qtbot, win, dialog)
    assert git(repo, "rev-parse", "HEAD~1").strip() == theirs and status(repo) == ""
    assert "An agent's note." in target.read_text(encoding="utf-8"), "their note kept"
    assert f'href="/{applied.result["path"]}"' in target.read_text(encoding="utf-8")


def test_a_memhtml_compatible_cli_write_meanwhile_is_kept_and_nothing_is_swept(qtbot, win, repo, git_store):
    open_by_search(qtbot, win, "drain the vip", RUNBOOK)
    dialog = correct_dialog(qtbot, win)
    type_claim(qtbot, dialog, CLAIM)
    planned(qtbot, dialog)
    env = {**os.environ, **AGENT, "MEMHTML_DESKTOP_CACHE": str(repo.parent / "cli-cache")}
    cli = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(repo), "write", "--type", "semantic",
                          "--title", "The CLI wrote this meanwhile", "--claim", "The CLI wrote this meanwhile."],
                         capture_output=True, text=True, env=env)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    staged = repo / "areas" / "inbox" / "staged-by-the-agent.html"
    staged.write_text((repo / LINKERS[0]).read_text(encoding="utf-8").replace("<title>", "<title>Staged "))
    git(repo, "add", str(staged))
    applied = confirm(qtbot, win, dialog)
    subjects = git(repo, "log", "-2", "--format=%s").splitlines()
    assert subjects[1] == "memhtml(write): The CLI wrote this meanwhile" and subjects[0].startswith("memhtml(correct):")
    assert "staged-by-the-agent" not in git(repo, "show", "--name-only", "--format=", "HEAD"), "nothing swept"
    assert status(repo).splitlines() == ["A  areas/inbox/staged-by-the-agent.html"]
    assert (access_stats(git_store.reader(), applied.result["path"]) or {}).get("access_count") == 24


def test_a_memhtml_compatible_cli_link_on_a_linking_memory_meanwhile_is_refused_with_the_reason(
        qtbot, win, repo, git_store):  # fmt: skip
    open_by_search(qtbot, win, "drain the vip", RUNBOOK)
    dialog = correct_dialog(qtbot, win)
    type_claim(qtbot, dialog, CLAIM)
    planned(qtbot, dialog)
    env = {**os.environ, **AGENT, "MEMHTML_DESKTOP_CACHE": str(repo.parent / "cli-cache")}
    cli = subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(repo), "link", LINKERS[0],
                          "relates_to", ARC], capture_output=True, text=True, env=env)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    theirs = git(repo, "rev-parse", "HEAD").strip()
    before = snapshot(repo)
    qtbot.mouseClick(dialog.confirm_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.message_kind() == "stale", timeout=WAIT)
    assert LINKERS[0] in dialog.message.text()
    assert snapshot(repo) == before and git(repo, "rev-parse", "HEAD").strip() == theirs, (
        "their link kept, nothing written"
    )
    assert f'href="/{ARC}"' in (repo / LINKERS[0]).read_text(encoding="utf-8")
    assert (access_stats(git_store.reader(), RUNBOOK) or {}).get("access_count") == 24, "the reads did not move"
