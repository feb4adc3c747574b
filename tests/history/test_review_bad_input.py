"""The review on repositories in unusual states: a clear message or a correct list, exit 0, nothing written.

A mark whose commit is gone, a shallow clone, an unborn branch, a detached HEAD, a commit of 10,000
files, binary and non-memory files, a merge, a history rewritten under the mark, hostile commit
messages. Each listing is checked to leave the repository exactly as it was.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from history.support import AGENT, AGENT_AUTHOR, EDITED, PERSON, agent_session, cli, git, isolate, review, seed
from history.test_review_cli import repo_state


@pytest.fixture
def root(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    return seed(tmp_path)


def listed_ok(root, capsys, monkeypatch, *extra):
    before = repo_state(root)
    code, listed, err = review(root, capsys, monkeypatch, *extra)
    assert code == 0, err
    assert "Traceback" not in err and "unexpected error" not in err
    assert repo_state(root) == before
    return listed, err


def memory_html(title: str, claim: str) -> bytes:
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{title}</title>\n'
            '<meta name="memhtml-type" content="semantic">\n<meta name="memhtml-status" content="active">\n'
            '<meta name="memhtml-created" content="2026-12-01T00:00:00Z">\n'
            '<meta name="memhtml-updated" content="2026-12-01T00:00:00Z">\n</head>\n<body>\n<article>\n'
            f'<p><mark>{claim}</mark></p>\n</article>\n</body>\n</html>\n').encode()  # fmt: skip


def test_a_mark_whose_commit_is_gone_lists_the_last_week_and_says_so(root, capsys, monkeypatch) -> None:
    agent_session(root, capsys, monkeypatch)
    gone = "1234567890abcdef1234567890abcdef12345678"
    ref = root / ".git" / "refs" / "memhtml-desktop" / "review-mark"
    ref.parent.mkdir(parents=True)
    ref.write_text(gone + "\n")
    listed, err = listed_ok(root, capsys, monkeypatch)
    assert "no longer has (1234567890ab)" in err and "last 7 days" in err
    assert listed["mark"] == gone and len([c for c in listed["changes"] if c["author"] == AGENT_AUTHOR]) == 6
    # `review done` repairs it
    code, _, err = cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    assert code == 0, err
    listed, err = listed_ok(root, capsys, monkeypatch)
    assert listed["changes"] == [] and listed["mark"] == git(root, "rev-parse", "HEAD").strip()


def test_a_shallow_clone_leaves_out_its_edge_and_says_so(root, tmp_path, capsys, monkeypatch) -> None:
    agent_session(root, capsys, monkeypatch)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{root}", str(clone))
    listed, err = listed_ok(clone, capsys, monkeypatch)
    assert "shallow clone: 1 commit(s) at its edge" in err
    # the edge (the archive commit, the third from the tip) would otherwise show every file as new
    assert [c["kind"] for c in listed["changes"]] == ["linked", "edited"]
    code, _, err = cli(["--repo", str(clone), "review", "done"], capsys, monkeypatch, PERSON)
    assert code == 0, err
    assert listed_ok(clone, capsys, monkeypatch)[0]["changes"] == []


def test_an_unborn_branch_has_nothing_to_review(tmp_path, capsys, monkeypatch) -> None:
    isolate(monkeypatch, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    listed, err = listed_ok(empty, capsys, monkeypatch)
    assert listed == {"mark": None, "head": None, "history_rewritten": False, "changes": []}
    assert "no commit yet" in err
    before = repo_state(empty)
    code, out, err = cli(["--repo", str(empty), "review", "done", "--json"], capsys, monkeypatch, PERSON)
    assert code == 0 and "no commit yet" in err and repo_state(empty) == before


def test_a_detached_head_lists_what_leads_to_it(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    agent_session(root, capsys, monkeypatch)
    git(root, "checkout", "-q", "--detach", "HEAD~2")
    listed, err = listed_ok(root, capsys, monkeypatch)
    assert "HEAD is detached" in err
    assert [c["kind"] for c in listed["changes"]] == ["new", "new", "corrected", "archived"]


@pytest.mark.slow
def test_a_commit_of_ten_thousand_files(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    folder = root / "resources" / "bulk"
    folder.mkdir()
    for i in range(10_000):
        (folder / f"fact-{i:05d}.html").write_bytes(memory_html(f"Bulk fact {i}", f"Bulk fact {i} holds."))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "import 10,000 facts", who=AGENT)
    listed, err = listed_ok(root, capsys, monkeypatch)
    changes = listed["changes"]
    assert len(changes) == 10_000 and {c["kind"] for c in changes} == {"new"}
    assert changes[7]["title"] == "Bulk fact 7" and changes[7]["path"] == "resources/bulk/fact-00007.html"


def test_binary_and_non_memory_files_are_not_events(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    (root / "areas" / "oncall" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(2048))
    (root / "README.md").write_text("# notes\n")
    (root / "areas" / "oncall" / "index.html").write_bytes(b"<html>listing</html>")
    (root / ".memhtml-desktop").mkdir()
    (root / ".memhtml-desktop" / "probes.json").write_text("{}")
    (root / "areas" / "oncall" / "binary.html").write_bytes(b"\x00\x01\xff\xfe" * 500)
    (root / "areas" / "oncall" / "real.html").write_bytes(memory_html("A real one", "A real one is listed."))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "mixed bag", who=AGENT)
    listed, _ = listed_ok(root, capsys, monkeypatch)
    assert sorted((c["path"], c["title"]) for c in listed["changes"]) == [
        ("areas/oncall/binary.html", "binary"),
        ("areas/oncall/real.html", "A real one"),
    ]
    git(root, "rm", "-q", "areas/oncall/real.html", "README.md")
    git(root, "commit", "-q", "-m", "removed by hand", who=PERSON)
    listed, _ = listed_ok(root, capsys, monkeypatch)
    assert [(c["kind"], c["path"], c["title"]) for c in listed["changes"][-1:]] == [
        ("removed", "areas/oncall/real.html", "A real one")
    ]


def test_a_merge_lists_both_sides_and_nothing_of_its_own(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    git(root, "checkout", "-q", "-b", "agent-branch")
    (root / "areas" / "oncall" / "side.html").write_bytes(memory_html("From the side", "The side branch wrote this."))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "side write", who=AGENT)
    git(root, "checkout", "-q", "main")
    path = root / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry on timeout", b"and retry on every timeout", 1))
    git(root, "commit", "-q", "-am", "main edit", who=PERSON)
    git(root, "merge", "-q", "--no-ff", "-m", "merge the agent's branch", "agent-branch", who=PERSON)
    listed, _ = listed_ok(root, capsys, monkeypatch)
    assert sorted((c["kind"], c["subject"]) for c in listed["changes"]) == [
        ("edited", "main edit"),
        ("new", "side write"),
    ]


def test_a_history_rewritten_under_the_mark_lists_from_where_they_meet(root, capsys, monkeypatch) -> None:
    agent_session(root, capsys, monkeypatch)
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    marked = git(root, "rev-parse", "HEAD").strip()
    git(root, "reset", "-q", "--hard", "HEAD~2")  # drop the link and the edit
    meet = git(root, "rev-parse", "HEAD").strip()
    path = root / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry on timeout", b"and retry twice", 1))
    git(root, "commit", "-q", "-am", "the edit, done again", who=AGENT)
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    assert git(root, "cat-file", "-t", marked).strip() == "commit"  # the mark's ref kept it
    listed, err = listed_ok(root, capsys, monkeypatch)
    assert listed["history_rewritten"] is True and listed["mark"] == marked
    assert "was rewritten" in err and meet[:12] in err
    assert [(c["kind"], c["subject"]) for c in listed["changes"]] == [("edited", "the edit, done again")]
    git(root, "reset", "-q", "--hard", meet)
    listed, err = listed_ok(root, capsys, monkeypatch)
    assert listed["history_rewritten"] is True and listed["changes"] == [] and "behind the review mark" in err


def test_hostile_commit_messages_and_paths(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    name = "areas/oncall/tab\tand\x1bnewline.html"
    (root / name).write_bytes(memory_html("Esc \x1b[2J title", "A hostile one."))
    git(root, "add", "-A")
    message = "subject \x1e\x1f with \x1b]0;pwned\x07 bytes\n\nMemhtml-Reason: because \x1f\nMemhtml-Session: s\x1e1\n"
    subprocess.run([git.__globals__["GIT"], "-C", str(root), "commit", "-q", "-F", "-"], input=message.encode(),
                   env={**os.environ, **AGENT}, check=True)  # fmt: skip
    listed, _ = listed_ok(root, capsys, monkeypatch)
    (change,) = listed["changes"]
    assert change["path"] == name and change["kind"] == "new" and change["author"] == AGENT_AUTHOR
    assert change["subject"].startswith("subject \x1e\x1f with")
    code, out, _ = cli(["--repo", str(root), "review"], capsys, monkeypatch, PERSON)
    assert code == 0 and "\x1b" not in out and "\x07" not in out


def test_a_linked_worktree_has_a_mark_of_its_own_that_gc_keeps(root, tmp_path, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    main_mark = git(root, "rev-parse", "refs/memhtml-desktop/review-mark").strip()
    other = tmp_path / "other"
    git(root, "worktree", "add", "-q", "-b", "side", str(other))
    path = other / EDITED
    path.write_bytes(path.read_bytes().replace(b"and retry on timeout", b"and retry once", 1))
    git(other, "commit", "-q", "-am", "side edit", who=AGENT)
    listed, _ = listed_ok(other, capsys, monkeypatch)
    assert listed["mark"] is None and "side edit" in {c["subject"] for c in listed["changes"]}
    code, _, err = cli(["--repo", str(other), "review", "done"], capsys, monkeypatch, PERSON)
    assert code == 0, err
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/memhtml-desktop/").split()
    assert refs == ["refs/memhtml-desktop/review-mark", "refs/memhtml-desktop/review-mark-worktrees/other"]
    assert git(root, "rev-parse", "refs/memhtml-desktop/review-mark").strip() == main_mark
    side_mark = git(root, "rev-parse", "refs/memhtml-desktop/review-mark-worktrees/other").strip()
    git(other, "checkout", "-q", "--detach", main_mark)
    git(root, "branch", "-q", "-D", "side")
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    assert git(root, "cat-file", "-t", side_mark).strip() == "commit"
