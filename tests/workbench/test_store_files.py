"""Probe sets and configurations in the store: each change its own commit, only its own paths, and
on any failure the files and git's index exactly as they were (real git repositories)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from memhtml_desktop.domain.configs import ConfigError
from memhtml_desktop.domain.probes import EvalProbe
from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.workbench import WorkbenchFiles
from memhtml_desktop.workbench.locations import GITIGNORE, BadName
from memhtml_desktop.write.errors import Conflict, GitFailed, Refused
from workbench.support import git, init_repo


def _store(tmp_path: Path, name: str = "s") -> Path:
    root = tmp_path / name
    (root / "areas" / "a").mkdir(parents=True)
    (root / "areas" / "a" / "one.html").write_text("<html></html>\n")
    return init_repo(root)


def _snapshot(root: Path) -> dict:
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith(".git/")
    }
    return {
        "files": files,
        "status": git(root, "status", "--porcelain=v1", "--untracked-files=all"),
        "index": git(root, "ls-files", "-s"),
        "cached": git(root, "diff", "--cached"),
        "head": git(root, "rev-parse", "HEAD").strip(),
    }


def _refuse_commits(root: Path, words: str) -> Path:
    """A pre-commit hook that refuses every commit, saying `words`."""
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho '{words}' >&2\nexit 1\n")
    hook.chmod(0o755)
    return hook


P1 = EvalProbe("drain the vip", "areas/a/one.html", ("areas/a/two.html",), note="the runbook")
P2 = EvalProbe("rotate the keys", "areas/b/keys.html")


def test_adding_a_probe_is_one_commit_of_its_own_paths(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    saved = files.add_probe("oncall", P1)
    assert git(root, "rev-parse", "HEAD").strip() == saved.commit_sha
    changed = git(root, "show", "--name-status", "--format=%s", "HEAD").split("\n")
    assert changed[0].startswith('memhtml-desktop(probes): add "drain the vip" to oncall')
    assert sorted(line for line in changed[1:] if line) == [
        "A\t.memhtml-desktop/.gitignore",
        "A\t.memhtml-desktop/probes/oncall.jsonl",
    ]
    assert git(root, "status", "--porcelain=v1", "--untracked-files=all") == ""
    assert "*.tmp" in (root / GITIGNORE).read_text()
    # the second change carries the set alone (the .gitignore is there)
    second = files.add_probe("oncall", P2)
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [".memhtml-desktop/probes/oncall.jsonl"]
    assert second.commit_sha != saved.commit_sha
    read = files.read_probe_set("oncall")
    assert [p.query for p in read.probes] == ["drain the vip", "rotate the keys"] and not read.problems
    assert read.probes[0].note == "the runbook" and read.probes[0].controls == ("areas/a/two.html",)
    assert files.probe_sets() == ["oncall"]


def test_the_same_probe_twice_is_refused_and_nothing_moves(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)
    before = _snapshot(root)
    with pytest.raises(Refused, match="already has this probe"):
        files.add_probe("oncall", replace(P1, note="another note, same question"))
    assert _snapshot(root) == before


def test_removing_keeps_every_other_line_byte_for_byte(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    path = root / ".memhtml-desktop" / "probes" / "team.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        "# our probes, hand-written",
        json.dumps({"query": "a b", "target": "x.html", "owner": "kim"}),
        P1.to_line(),
        "{broken",
        json.dumps({"query": "c d", "target": "y.html"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "team probes")
    read = files.read_probe_set("team")
    assert [p.line for p in read.probes] == [2, 3, 5]
    assert [(p.line, "not JSON" in p.message) for p in read.problems] == [(4, True)]
    assert str(read.problems[0]).startswith(".memhtml-desktop/probes/team.jsonl:4: not JSON")
    files.remove_probe("team", P1.key)
    assert path.read_text() == "\n".join(lines[:2] + lines[3:]) + "\n"
    assert dict(files.read_probe_set("team").probes[0].extra) == {"owner": "kim"}


def test_other_staged_changes_stay_staged_and_out_of_the_commit(tmp_path):
    root = _store(tmp_path)
    (root / "areas" / "a" / "one.html").write_text("<html>edited</html>\n")
    git(root, "add", "areas/a/one.html")
    saved = WorkbenchFiles(root).add_probe("oncall", P1)
    shown = git(root, "show", "--name-only", "--format=", saved.commit_sha).split()
    assert "areas/a/one.html" not in shown and ".memhtml-desktop/probes/oncall.jsonl" in shown
    assert saved.commit_sha == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "diff", "--cached", "--name-only").split() == ["areas/a/one.html"]
    assert git(root, "show", ":areas/a/one.html") == "<html>edited</html>\n"


def test_a_staged_change_to_the_probe_set_itself_is_refused(tmp_path):
    root = _store(tmp_path)
    WorkbenchFiles(root).add_probe("oncall", P1)
    probe = root / ".memhtml-desktop" / "probes" / "oncall.jsonl"
    probe.write_text(probe.read_text() + "# a hand edit\n")
    git(root, "add", str(probe.relative_to(root)))
    before = _snapshot(root)
    with pytest.raises(Conflict, match="oncall.jsonl"):
        WorkbenchFiles(root).add_probe("oncall", P2)
    assert _snapshot(root) == before


def test_a_hook_that_rejects_the_commit_leaves_files_and_index_as_they_were(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)
    _refuse_commits(root, "no commits today")
    before = _snapshot(root)
    with pytest.raises(GitFailed, match="no commits today"):
        files.add_probe("oncall", P2)
    assert _snapshot(root) == before
    with pytest.raises(GitFailed):
        files.save_configuration("light", replace(DEFAULT, mmr_lambda=0.7))
    assert _snapshot(root) == before
    assert not (root / ".memhtml-desktop" / "configs").exists(), "the folder it created is gone too"


def test_a_first_commit_that_fails_removes_the_gitignore_and_folder_too(tmp_path):
    root = _store(tmp_path)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    before = _snapshot(root)
    with pytest.raises(GitFailed):
        WorkbenchFiles(root).add_probe("oncall", P1)
    assert _snapshot(root) == before and not (root / ".memhtml-desktop").exists()


def test_git_index_lock_held_is_refused_after_a_wait(tmp_path):
    root = _store(tmp_path)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    before = _snapshot(root)
    with pytest.raises(GitFailed, match="index.lock"):
        WorkbenchFiles(root, git_lock_wait_s=0.2).add_probe("oncall", P1)
    lock.unlink()
    assert _snapshot(root) == before


def test_uncommitted_edits_of_a_set_are_refused(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)
    path = root / ".memhtml-desktop" / "probes" / "oncall.jsonl"
    path.write_text(path.read_text() + P2.to_line() + "\n")
    before = _snapshot(root)
    with pytest.raises(Conflict, match="oncall.jsonl"):
        files.add_probe("oncall", EvalProbe("third", "z.html"))
    assert _snapshot(root) == before


def test_not_a_repository_and_detached_head_are_refused_before_anything_is_written(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitFailed, match="not a git repository"):
        WorkbenchFiles(plain).add_probe("oncall", P1)
    assert list(plain.iterdir()) == []
    root = _store(tmp_path)
    git(root, "checkout", "-q", "--detach")
    with pytest.raises(GitFailed, match="detached"):
        WorkbenchFiles(root).add_probe("oncall", P1)
    assert not (root / ".memhtml-desktop").exists()


@pytest.mark.parametrize("name", ["index", "sitemap", "index.html", "../up", "a/b", "", ".hidden", "x" * 81])
def test_unsafe_or_reserved_names_are_refused(tmp_path, name):
    root = _store(tmp_path)
    with pytest.raises(BadName):
        WorkbenchFiles(root).add_probe(name, P1)
    assert not (root / ".memhtml-desktop").exists()


def test_shipped_configurations_cannot_be_overwritten(tmp_path):
    root = _store(tmp_path)
    with pytest.raises(BadName, match="read-only"):
        WorkbenchFiles(root).save_configuration("default", DEFAULT)


def test_configurations_round_trip_and_a_bad_file_is_named_while_the_rest_load(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.save_configuration("light", replace(DEFAULT, mmr_lambda=0.7, rrf_k=30), note="less MMR")
    bad = root / ".memhtml-desktop" / "configs" / "typo.json"
    bad.write_text('{\n  "base": "default",\n  "mmr_lamda": 0.7\n}\n')
    worse = root / ".memhtml-desktop" / "configs" / "heavy.json"
    worse.write_text('{\n  "base": "memhtml",\n  "arms": {\n    "fts": 1.0,\n    "recency": 99\n  }\n}\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "by hand")
    listing = files.configurations()
    assert [c.name for c in listing.configurations] == ["memhtml", "default", "light"]
    light = listing.named("light")
    assert light.profile.mmr_lambda == 0.7 and light.profile.rrf_k == 30 and light.note == "less MMR"
    assert not light.read_only and listing.named("memhtml").read_only
    messages = sorted(str(p) for p in listing.problems)
    assert messages[0].startswith(".memhtml-desktop/configs/heavy.json:5: ") and "recency" in messages[0]
    assert "out of range" in messages[0]
    assert messages[1].startswith(".memhtml-desktop/configs/typo.json:3: unknown configuration key 'mmr_lamda'")
    with pytest.raises(ConfigError, match="typo.json:3"):
        files.read_configuration("typo")


def test_a_saved_floor_reads_back(tmp_path):
    from memhtml_desktop.domain.configs import with_floor

    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.save_configuration("floored", with_floor(DEFAULT, "memhtml-desktop-hash-v1", 0.3))
    assert files.read_configuration("floored").profile.floor_cosine.get("memhtml-desktop-hash-v1") == 0.3
    assert files.read_configuration("floored").profile.floor_cosine.get("other") == DEFAULT.floor_cosine.default


def test_a_write_waits_for_the_app_lock_and_files_stay_private_to_the_store(tmp_path):
    root = _store(tmp_path)
    files = WorkbenchFiles(root, lock_wait_s=0.2)
    with files.lock:  # another of this app's writes holds the store's write lock
        import threading

        errors = []
        thread = threading.Thread(
            target=lambda: errors.append(_try(lambda: WorkbenchFiles(root, lock_wait_s=0.2).add_probe("x", P1)))
        )
        thread.start()
        thread.join()
    assert errors and isinstance(errors[0], Refused)
    assert not (root / ".memhtml-desktop").exists()
    assert not any(".memhtml-desktop" in str(p) for p in Path(os.environ["MEMHTML_DESKTOP_CACHE"]).rglob("*"))


def _try(action):
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - returned to the test
        return exc
    return None


# -- through the write core's door (issue 24): faults beside another writer -----------------------


def test_git_refusing_beside_another_writers_staged_and_unstaged_work_loses_nothing(tmp_path):
    """Another writer has a staged edit and an unstaged new file when git refuses our commit: their
    work stays exactly as it was (staged stays staged, with its bytes), and ours leaves no trace."""
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)
    (root / "areas" / "a" / "one.html").write_text("<html>theirs, staged</html>\n")
    git(root, "add", "areas/a/one.html")
    (root / "areas" / "a" / "draft.html").write_text("<html>theirs, not yet added</html>\n")
    hook = _refuse_commits(root, "refused by policy")
    before = _snapshot(root)
    with pytest.raises(GitFailed, match="refused by policy"):
        files.add_probe("oncall", P2)
    with pytest.raises(GitFailed, match="refused by policy"):
        files.save_configuration("light", replace(DEFAULT, mmr_lambda=0.7))
    assert _snapshot(root) == before
    assert git(root, "show", ":areas/a/one.html") == "<html>theirs, staged</html>\n"
    hook.unlink()
    saved = files.add_probe("oncall", P2)  # and once git agrees, only our file is committed
    assert git(root, "show", "--name-only", "--format=", saved.commit_sha).split() == [
        ".memhtml-desktop/probes/oncall.jsonl"
    ]
    assert git(root, "diff", "--cached", "--name-only").split() == ["areas/a/one.html"]
    assert (root / "areas" / "a" / "draft.html").read_text() == "<html>theirs, not yet added</html>\n"


def test_another_writers_commit_during_ours_is_kept_and_ours_lands_on_top(tmp_path):
    """Another writer commits while our files are being written (the write core's checkpoint): the
    branch keeps their commit, ours is re-parented onto it, nothing of theirs is reverted."""
    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)

    def another_writer(step: str) -> None:
        if step == "journal":
            files.committer.checkpoint = None
            (root / "areas" / "a" / "two.html").write_text("<html>theirs</html>\n")
            git(root, "add", "areas/a/two.html")
            git(root, "commit", "-q", "-m", "their commit")

    files.committer.checkpoint = another_writer
    saved = files.add_probe("oncall", P2)
    log = git(root, "log", "--format=%s", "-3").splitlines()
    assert log[0].startswith("memhtml-desktop(probes)") and log[1] == "their commit"
    assert git(root, "rev-parse", f"{saved.commit_sha}^").strip() == git(root, "rev-parse", "HEAD~1").strip()
    assert git(root, "show", "HEAD:areas/a/two.html") == "<html>theirs</html>\n"
    assert git(root, "status", "--porcelain=v1") == ""
    assert [p.key for p in files.read_probe_set("oncall").probes] == [P1.key, P2.key]


def test_an_interrupted_memory_write_is_refused_until_it_is_finished(tmp_path):
    """The door without the index cannot finish a crashed memory write: it refuses, writing nothing."""
    from memhtml_desktop.write.journal import JOURNALS

    root = _store(tmp_path)
    files = WorkbenchFiles(root)
    files.add_probe("oncall", P1)
    orphan = root / ".git" / JOURNALS / "12345-dead"
    orphan.mkdir(parents=True)
    (orphan / "owner").write_text("")  # its writer is gone: nobody holds the owner lock
    (orphan / "journal.json").write_text(json.dumps({"subject": "memhtml(archive): x"}))
    before = _snapshot(root)
    with pytest.raises(Refused, match="interrupted write"):
        files.add_probe("oncall", P2)
    assert _snapshot(root) == before
