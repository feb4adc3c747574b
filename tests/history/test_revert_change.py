"""Revert this change: one event's own paths, through the write core, refused when a later commit
touched them. Real repositories; the agent's changes made through memhtml's verbs."""

from __future__ import annotations

import json

import pytest

from history.support import (
    AGENT,
    ARC,
    EDITED,
    LINK_SRC,
    MEMORY,
    PERSON,
    agent_session,
    cli,
    git,
    isolate,
    seed,
)  # fmt: skip


@pytest.fixture
def day(tmp_path, monkeypatch, capsys):
    """A store after the agent's day, the person's identity in the environment, and its events."""
    isolate(monkeypatch, tmp_path)
    root = seed(tmp_path)
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    agent_session(root, capsys, monkeypatch)
    for key, value in PERSON.items():
        monkeypatch.setenv(key, value)
    from memhtml_desktop.history import Git, list_changes, review_range

    git_ = Git(root)
    changes: dict = {}
    for change in list_changes(git_, review_range(git_)):
        changes.setdefault(change.kind, change)  # the first of each kind (the first write, with a session)
    return root, changes


def curator(root):
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.curator import Curator

    return Curator(Store(root))


def revert(root, change):
    from memhtml_desktop.write.requests import RevertRequest

    return curator(root).run(RevertRequest(change.commit, change.paths))


def test_each_kind_is_reverted_by_a_commit_of_its_own_paths(day) -> None:
    root, changes = day
    linked_before = (root / LINK_SRC).read_bytes()
    seed_sha = git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    for kind in ("linked", "archived", "corrected", "new"):
        change = changes[kind]
        applied = revert(root, change)
        shown = git(root, "show", "--name-status", "-M", "--format=%an%n%s%n%b", applied.commit_sha)
        assert shown.startswith('Robin Curator\nRevert "') and f"This reverts commit {change.commit}" in shown
        touched = {line.split("\t")[-1] for line in shown.splitlines() if "\t" in line}
        touched |= {line.split("\t")[1] for line in shown.splitlines() if line.startswith("R") and "\t" in line}
        assert touched <= set(change.paths), (kind, touched, change.paths)
    # what the agent did to these paths is undone, byte for byte as before it
    for path in (MEMORY, ARC, LINK_SRC):
        assert git(root, "show", f"{seed_sha}:{path}").encode() == (root / path).read_bytes()
    assert not (root / changes["corrected"].path).exists() and not (root / changes["new"].path).exists()
    assert linked_before != (root / LINK_SRC).read_bytes()
    assert git(root, "status", "--porcelain").strip() == ""
    # the other new memory (the second write) is untouched
    assert (root / "areas/inbox/billing-retries-webhooks-twice.html").exists()


def test_refused_when_a_later_commit_touched_its_paths_naming_it(day) -> None:
    from memhtml_desktop.write.errors import WriteError

    root, changes = day
    head = git(root, "rev-parse", "HEAD").strip()
    edited = changes["edited"]
    path = root / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry", b"then retry", 1))
    git(root, "commit", "-q", "-am", "a later edit", who=AGENT)
    later = git(root, "rev-parse", "--short", "HEAD").strip()
    with pytest.raises(WriteError) as refused:
        revert(root, edited)
    assert EDITED in str(refused.value) and "a later edit" in str(refused.value) and later in str(refused.value)
    assert git(root, "rev-parse", "HEAD~1").strip() == head and git(root, "status", "--porcelain").strip() == ""


def test_refused_on_uncommitted_edits_and_merges_nothing_touched(day, monkeypatch) -> None:
    from memhtml_desktop.write.errors import WriteError

    root, changes = day
    (root / LINK_SRC).write_bytes((root / LINK_SRC).read_bytes() + b"\n")
    with pytest.raises(WriteError, match="uncommitted changes"):
        revert(root, changes["linked"])
    git(root, "checkout", "-q", "--", LINK_SRC)
    git(root, "checkout", "-q", "-b", "side", "HEAD~1")
    git(root, "commit", "-q", "--allow-empty", "-m", "side", who=AGENT)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side", who=PERSON)
    merge = git(root, "rev-parse", "HEAD").strip()
    from memhtml_desktop.write.requests import RevertRequest

    with pytest.raises(WriteError, match="merge commit"):
        curator(root).run(RevertRequest(merge, (LINK_SRC,)))
    with pytest.raises(WriteError, match="not changed by"):
        curator(root).run(RevertRequest(changes["linked"].commit, (EDITED,)))
    assert git(root, "rev-parse", "HEAD").strip() == merge


def test_one_change_of_a_batch_commit_leaves_the_others(tmp_path, monkeypatch, capsys) -> None:
    isolate(monkeypatch, tmp_path)
    root = seed(tmp_path)
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(json.dumps({"op": "write", "title": t, "type": "semantic", "body": f"{t} holds."})
                               for t in ("First batch fact", "Second batch fact")) + "\n")  # fmt: skip
    code, _, err = cli(["--repo", str(root), "apply", "--file", str(batch)], capsys, monkeypatch, AGENT)
    assert code == 0, err
    from memhtml_desktop.history import Git, list_changes, review_range

    for key, value in PERSON.items():
        monkeypatch.setenv(key, value)
    git_ = Git(root)
    first, second = [c for c in list_changes(git_, review_range(git_)) if c.author_name == "memory-agent"]
    applied = revert(root, first)
    assert not (root / first.path).exists() and (root / second.path).exists()
    body = git(root, "log", "-1", "--format=%B")
    assert f"on {first.path} only; its other changes stay" in body
    # Edit → Undo reverts the revert
    undone = curator(root).undo()
    assert (root / first.path).exists() and undone.result["reverted"] == applied.commit_sha
