"""`memhtml-desktop review` and `review done` on real repositories, a person and an agent.

The agent writes through memhtml's verbs (this app's CLI reproduces them byte for byte) and a plain
`git commit`; the person reviews. Listing never writes: every listing test compares the whole
repository (refs, objects, working tree, git's index) before and after.
"""

from __future__ import annotations

import os

import pytest

from history.support import (
    AGENT_AUTHOR,
    ARC,
    EDITED,
    LINK_SRC,
    MEMORY,
    PERSON,
    PERSON_AUTHOR,
    agent_session,
    cli,
    git,
    isolate,
    review,
    seed,
)  # fmt: skip

KEYS = {"kind", "path", "old_path", "title", "commit", "author", "at", "subject", "session"}


@pytest.fixture
def root(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    return seed(tmp_path)


def repo_state(root) -> dict:
    """Everything a listing must leave as it was."""
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
             if p.is_file() and ".git" not in p.relative_to(root).parts}  # fmt: skip
    return {
        "refs": git(root, "for-each-ref", "--format=%(refname) %(objectname)"),
        "status": git(root, "status", "--porcelain", "--ignored"),
        "index": git(root, "ls-files", "-s"),
        "files": files,
        "gitfiles": _git_files(root / ".git"),
    }


def _git_files(git_dir) -> list[str]:
    """The git directory's files (objects and git's index aside: git may pack or refresh them)."""
    found = []
    for folder, dirs, names in os.walk(git_dir):
        dirs[:] = [d for d in dirs if d != "objects"]
        found += [os.path.relpath(os.path.join(folder, n), git_dir) for n in names if n != "index"]
    return sorted(found)


def test_the_agents_day_is_six_events_of_the_right_kinds_and_done_empties_the_list(root, capsys, monkeypatch) -> None:
    code, _, err = cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    assert code == 0, err
    seed_sha = git(root, "rev-parse", "HEAD").strip()
    agent_session(root, capsys, monkeypatch)
    before = repo_state(root)
    code, listed, err = review(root, capsys, monkeypatch)
    assert code == 0, err
    assert repo_state(root) == before  # nothing written by listing
    assert set(listed) == {"mark", "head", "history_rewritten", "changes"}
    assert listed["mark"] == seed_sha and listed["head"] == git(root, "rev-parse", "HEAD").strip()
    assert listed["history_rewritten"] is False
    changes = listed["changes"]
    assert all(set(c) == KEYS for c in changes)
    assert [c["kind"] for c in changes] == ["new", "new", "corrected", "archived", "linked", "edited"]
    assert {c["author"] for c in changes} == {AGENT_AUTHOR}
    assert [c["session"] for c in changes[:2]] == ["sess-0042", None]
    corrected, archived, linked, edited = changes[2:]
    assert corrected["old_path"] == MEMORY and corrected["title"] == "The prod ALB deregistration delay is 300 seconds"
    assert corrected["subject"] == "memhtml(correct): The prod ALB deregistration delay is 300 seconds"
    assert (
        archived["path"].endswith("/" + ARC) and archived["path"].startswith("archive/") and archived["old_path"] == ARC
    )
    assert linked["path"] == LINK_SRC and linked["old_path"] is None
    assert edited["path"] == EDITED and edited["subject"] == "tune the lock timeout"
    assert changes[0]["title"] == "Checkout API p99 budget is 800 ms"
    assert len({c["commit"] for c in changes}) == 6
    log = git(root, "log", "--format=%H %aI", "-6").split("\n")
    assert {line.split()[0] for line in log if line} == {c["commit"] for c in changes}

    code, out, err = cli(["--repo", str(root), "review", "done", "--json"], capsys, monkeypatch, PERSON)
    assert code == 0, err
    code, listed, _ = review(root, capsys, monkeypatch)
    assert code == 0 and listed["changes"] == [] and listed["mark"] == listed["head"]
    # the mark is a ref of the app's own, not a commit of the store's
    assert git(root, "for-each-ref", "--format=%(refname)", "refs/memhtml-desktop/").strip() == \
        "refs/memhtml-desktop/review-mark"  # fmt: skip
    assert git(root, "log", "--format=%s", "-1").strip() == "tune the lock timeout"


def test_author_filter_and_the_persons_own_change(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    agent_session(root, capsys, monkeypatch)
    path = root / LINK_SRC
    path.write_bytes(path.read_bytes().replace(b"one state file per service", b"one state file per service.", 1))
    git(root, "commit", "-q", "-am", "typo", who=PERSON)
    _, everyone, _ = review(root, capsys, monkeypatch)
    _, agent, _ = review(root, capsys, monkeypatch, "--author", "memory-agent")
    _, person, _ = review(root, capsys, monkeypatch, "--author", "ROBIN@example")
    assert len(everyone["changes"]) == 7
    assert len(agent["changes"]) == 6 and {c["author"] for c in person["changes"]} == {PERSON_AUTHOR}
    assert [c["subject"] for c in person["changes"]] == ["typo"]


def test_human_output_says_what_and_all_caught_up(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    code, out, _ = cli(["--repo", str(root), "review"], capsys, monkeypatch, PERSON)
    assert code == 0 and out.startswith("all caught up: nothing to review since the review mark")
    agent_session(root, capsys, monkeypatch)
    code, out, _ = cli(["--repo", str(root), "review"], capsys, monkeypatch, PERSON)
    assert out.splitlines()[0].startswith("6 changes to review since the review mark")
    assert "session sess-0042" in out and "delay raised" in out and "arc retired" in out


def test_no_mark_lists_the_last_seven_days_and_says_so(root, capsys, monkeypatch) -> None:
    old = {"GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"}
    path = root / EDITED
    path.write_bytes(path.read_bytes() + b"\n")
    git(root, "commit", "-q", "-am", "long ago", who=PERSON, env=old)
    agent_session(root, capsys, monkeypatch)
    before = repo_state(root)
    code, listed, err = review(root, capsys, monkeypatch)
    assert code == 0 and "no review mark yet: showing the last 7 days" in err
    assert listed["mark"] is None and repo_state(root) == before
    assert "long ago" not in {c["subject"] for c in listed["changes"]}
    assert [c["kind"] for c in listed["changes"] if c["author"] == AGENT_AUTHOR] == \
        ["new", "new", "corrected", "archived", "linked", "edited"]  # fmt: skip


def test_since_a_commit_or_a_date_overrides_the_mark_and_writes_nothing(root, capsys, monkeypatch) -> None:
    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    agent_session(root, capsys, monkeypatch)
    third = git(root, "rev-list", "--reverse", "HEAD").split()[3]  # seed, write, write, correct
    before = repo_state(root)
    code, listed, _ = review(root, capsys, monkeypatch, "--since", third)
    assert code == 0 and [c["kind"] for c in listed["changes"]] == ["archived", "linked", "edited"]
    code, listed, _ = review(root, capsys, monkeypatch, "--since", "2000-01-01")
    assert code == 0 and len(listed["changes"]) > 60  # the seed's memories too
    code, out, err = cli(["--repo", str(root), "review", "--since", "not-a-thing"], capsys, monkeypatch, PERSON)
    assert code == 2 and "neither a commit" in err and "Traceback" not in err
    assert repo_state(root) == before


def test_done_upto_a_commit_and_refusals(root, capsys, monkeypatch) -> None:
    agent_session(root, capsys, monkeypatch)
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    code, out, err = cli(["--repo", str(root), "review", "done", "--upto", shas[2], "--json"], capsys, monkeypatch)
    assert code == 0, err
    _, listed, _ = review(root, capsys, monkeypatch)
    assert [c["kind"] for c in listed["changes"]] == ["corrected", "archived", "linked", "edited"]
    before = repo_state(root)
    code, _, err = cli(["--repo", str(root), "review", "done", "--upto", "nope"], capsys, monkeypatch)
    assert code == 1 and "not a commit" in err
    git(root, "checkout", "-q", "-b", "side", shas[1])
    git(root, "commit", "-q", "--allow-empty", "-m", "elsewhere", who=PERSON)
    side = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    before = repo_state(root)
    code, _, err = cli(["--repo", str(root), "review", "done", "--upto", side], capsys, monkeypatch)
    assert code == 1 and "not in this branch's history" in err and repo_state(root) == before


def test_not_a_repository_is_one_clear_line(tmp_path, capsys, monkeypatch) -> None:
    isolate(monkeypatch, tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    code, out, err = cli(["--repo", str(plain), "review"], capsys, monkeypatch)
    assert code == 1 and err.startswith("memhtml-desktop: not a git repository") and len(err.splitlines()) == 1
    assert not (plain / ".memhtml").exists()


TASK = "projects/checkout-api/tasks/alarm-on-canary-p99-above-800-ms.html"
WINNER = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
LOSER = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"


def test_task_status_and_a_supersede_are_their_kinds(root, capsys, monkeypatch) -> None:
    from history.support import AGENT

    cli(["--repo", str(root), "review", "done"], capsys, monkeypatch, PERSON)
    for argv in (
        ["task", "status", TASK, "doing"],
        ["task", "status", TASK, "done", "--reason", "alarm shipped"],
        ["supersede", WINNER, LOSER, "--reason", "the merge is the rule"],
    ):
        code, _, err = cli(["--repo", str(root), *argv], capsys, monkeypatch, AGENT)
        assert code == 0, err
    _, listed, _ = review(root, capsys, monkeypatch)
    doing, done, superseded = listed["changes"]
    assert (doing["kind"], doing["path"], doing["old_path"]) == ("task", TASK, None)
    assert done["kind"] == "task" and done["old_path"] == TASK and done["path"].endswith("/" + TASK)
    assert done["path"].startswith("archive/")
    assert (superseded["kind"], superseded["path"], superseded["old_path"]) == ("corrected", WINNER, LOSER)
    assert superseded["subject"].startswith("memhtml(consolidate): ")


def test_a_store_inside_another_repository_is_one_clear_line(tmp_path, capsys, monkeypatch) -> None:
    from write.support import copy_base

    isolate(monkeypatch, tmp_path)
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    store = copy_base(outer / "store")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "a store inside", who=PERSON)
    code, out, err = cli(["--repo", str(store), "review", "--json"], capsys, monkeypatch, PERSON)
    assert code == 1 and "is inside the git repository" in err and out == "" and len(err.splitlines()) == 1
    assert not (outer / ".git" / "refs" / "memhtml-desktop").exists()
