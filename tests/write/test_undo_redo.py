"""Undo beyond one level, and Redo (issue 41): the app's own recent changes, each revertible while
none of its paths changed since; an undone one given back; another writer's commits never listed.

Real repositories (the golden base store), the app's writes through the Curator, another writer's
through plain `git commit` under a second identity.
"""

from __future__ import annotations

import json

import pytest

from write.support import access_rows, git, open_store, pin_git, seed, snapshot, status, tree_bytes

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"  # has a state.access row
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
AGENT = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
}


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    return Curator(open_store(root))


def agent_commit(root, path: str, text: str, message: str) -> str:
    """Another writer (an agent's plain `git commit`) edits and commits one file."""
    import os

    target = root / path
    target.write_text(target.read_text(encoding="utf-8") + text, encoding="utf-8")
    env = {**os.environ, **AGENT}
    git(root, "add", path, env=env)
    git(root, "commit", "-qm", message, env=env)
    return git(root, "rev-parse", "HEAD").strip()


def three_writes(curator):
    from memhtml_desktop.write.requests import ArchiveRequest, CorrectRequest, LinkRequest

    link = curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    archive = curator.run(ArchiveRequest(MEMORY, "retired"))
    correct = curator.run(CorrectRequest(DOES_NOT, "The compactor leaves overlapping rows alone on month-end",
                                         claim="The compactor leaves overlapping usage rows alone on month-end runs.",
                                         reason="month-end"))  # fmt: skip
    return link, archive, correct


def test_the_list_is_the_apps_own_changes_newest_first_with_why_each_cannot_run(curator) -> None:
    root = curator.root
    link, archive, correct = three_writes(curator)
    theirs = agent_commit(
        root,
        "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html",
        "<!-- the agent -->\n",
        "agent: a note of its own",
    )
    choices = curator.undo_choices()
    assert [c.sha for c, _ in choices] == [correct.commit_sha, archive.commit_sha, link.commit_sha]
    assert theirs not in {c.sha for c, _ in choices}, "another writer's commit is never offered"
    assert [why for _, why in choices] == [None, None, None]
    assert all(c.action == "undo" and not c.undone for c, _ in choices)
    # the agent commits over the linked memory: that change is refused, naming their commit
    over = agent_commit(root, MERGES, "<!-- the agent again -->\n", "agent: touched the compactor")
    why = dict((c.sha, w) for c, w in curator.undo_choices())[link.commit_sha]
    assert MERGES in why and over[:7] in why and "agent: touched the compactor" in why
    before = snapshot(root, curator.store)
    from memhtml_desktop.write.errors import Refused

    with pytest.raises(Refused, match="changed since"):
        curator.undo(link.commit_sha)
    assert snapshot(root, curator.store) == before, "a refused undo leaves everything as it was"


def test_undo_an_older_change_then_redo_it_then_undo_again(curator) -> None:
    root, store = curator.root, curator.store
    link, archive, correct = three_writes(curator)
    archived = "archive/2026/" + MEMORY
    row = access_rows(store)[archived]
    before_archive = tree_bytes(root)  # after all three, for the files archive did not touch
    # undo the middle change (archive): its paths are untouched since, the newest change stays
    plan = curator.plan_undo(archive.commit_sha)
    assert snapshot(root, store)["status"] == "" and (root / archived).exists(), "planning touches nothing"
    assert plan.op == "undo" and plan.subject == f'Revert "{archive.plan.subject}"'
    assert [(c.action, c.path, c.source) for c in plan.changes] == [("move", MEMORY, archived)]
    undone = curator.undo(archive.commit_sha, expect=plan)
    assert git(root, "log", "-1", "--format=%B") == (
        f'Revert "{archive.plan.subject}"\n\nThis reverts commit {archive.commit_sha}.\n\n'
    )
    assert (root / MEMORY).exists() and not (root / archived).exists() and status(root) == ""
    assert access_rows(store)[MEMORY][1:] == row[1:], "salience follows the memory back"
    assert (root / correct.result["path"]).exists(), "the newer change is not touched"
    listed = {c.sha: c for c, _ in curator.undo_choices()}
    assert listed[archive.commit_sha].undone and listed[archive.commit_sha].action == "redo"
    assert listed[archive.commit_sha].latest["sha"] == undone.commit_sha
    # redo: the undo reverted, the archived copy back with its bytes and its row
    redo_plan = curator.plan_undo(archive.commit_sha, redo=True)
    assert redo_plan.subject == f'Reapply "{archive.plan.subject}"'
    redone = curator.undo(archive.commit_sha, redo=True, expect=redo_plan)
    assert git(root, "log", "-1", "--format=%B") == (
        f'Reapply "{archive.plan.subject}"\n\nThis reverts commit {undone.commit_sha}.\n\n'
    )
    assert tree_bytes(root) == before_archive and access_rows(store)[archived][1:] == row[1:]
    assert redone.result["reverted"] == undone.commit_sha and redone.result["change"] == archive.commit_sha
    # undo again reverts the redo (the change's newest commit), not the original write
    again = curator.undo(archive.commit_sha)
    assert again.result["reverted"] == redone.commit_sha and (root / MEMORY).exists()
    # nothing left to redo but that one; the CLI's bare `undo` takes the newest applied change
    with pytest.raises(Exception, match="undone already"):
        curator.undo(archive.commit_sha)
    newest = curator.undo()
    assert newest.result["change"] == correct.commit_sha and not (root / correct.result["path"]).exists()
    assert (root / DOES_NOT).exists()


def test_a_preview_that_no_longer_holds_is_refused_as_stale(curator) -> None:
    from memhtml_desktop.write.errors import Refused, Stale
    from memhtml_desktop.write.requests import LinkRequest

    root = curator.root
    link = curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    plan = curator.plan_undo()
    # the change is undone (say, by the CLI) between the preview and the click
    curator.undo()
    with pytest.raises(Refused, match="nothing to undo"):
        curator.undo(expect=plan)
    curator.undo(redo=True)
    plan = curator.plan_undo(link.commit_sha)
    stale = plan.__class__(**{**plan.__dict__, "changes": plan.changes[:0]})
    with pytest.raises(Stale):
        curator.undo(link.commit_sha, expect=stale)
    assert status(root) == ""


def test_the_log_holds_only_the_apps_commits_and_survives_a_renamed_folder(curator, tmp_path) -> None:
    import shutil

    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.own_commits import FILE

    root = curator.root
    link, archive, _ = three_writes(curator)
    curator.undo(archive.commit_sha)
    git_dir = root / ".git"
    records = json.loads((git_dir / FILE).read_text(encoding="utf-8"))
    assert [r["op"] for r in records] == ["write", "write", "write", "undo"]
    assert records[-1]["of"] == archive.commit_sha and records[-1]["reverts"] == archive.commit_sha
    moved = tmp_path / "renamed"
    shutil.move(str(root), moved)
    again = Curator(open_store(moved))
    assert [c.sha for c, _ in again.undo_choices()][1] == archive.commit_sha
    again.undo(redo=True)
    assert (moved / ("archive/2026/" + MEMORY)).exists()


def test_cli_lists_undoes_and_redoes(curator, capsys) -> None:
    from memhtml_desktop.cli import main

    root = curator.root
    link, archive, correct = three_writes(curator)
    store = ["--store", str(root)]
    assert main([*store, "undo", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [c["sha"] for c in listed] == [correct.commit_sha, archive.commit_sha, link.commit_sha]
    assert all(c["refused"] is None and c["action"] == "undo" for c in listed)
    assert main([*store, "undo", archive.commit_sha[:10]]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"reverted {archive.commit_sha[:12]}") and (root / MEMORY).exists()
    assert main([*store, "redo"]) == 0
    assert capsys.readouterr().out.startswith(f"reapplied {archive.commit_sha[:12]}")
    assert main([*store, "redo"]) == 1
    err = capsys.readouterr().err
    assert "nothing to redo" in err and err.count("\n") == 1
    assert main([*store, "undo", "--list"]) == 0
    text = capsys.readouterr().out
    assert "applied" in text and "can undo" in text and archive.commit_sha[:12] in text
