"""The archive click after its preview: the plan is not made again and `git` runs at most 8 times.

Counted on the real code path: `subprocess.run` is wrapped to count the `git` processes started
(each still runs); nothing else is replaced. Varied over memories in different folders, and over a
repository whose refs are packed (HEAD's tip read from packed-refs, not a loose ref file).
"""

from __future__ import annotations

import subprocess

import pytest

from write.support import git, open_store, pin_git, seed

TARGETS = (
    "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html",
    "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html",
)


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def _counting(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = subprocess.run

    def counted(args, *a, **k):
        if isinstance(args, (list, tuple)) and args and str(args[0]).endswith("git"):
            calls.append([str(x) for x in args[3:5]])
        return real(args, *a, **k)

    monkeypatch.setattr(subprocess, "run", counted)
    return calls


@pytest.mark.parametrize("packed", [False, True])
def test_an_archive_after_its_preview_runs_git_at_most_8_times(curator, monkeypatch, packed) -> None:
    from memhtml_desktop.write.requests import ArchiveRequest

    if packed:
        git(curator.root, "pack-refs", "--all")
        assert not (curator.root / ".git" / "refs" / "heads" / "main").exists()
    for target in TARGETS:
        head = git(curator.root, "rev-parse", "HEAD").strip()
        plan = curator.plan(ArchiveRequest(target, reason="done"))
        calls = _counting(monkeypatch)
        applied = curator.apply(plan)
        monkeypatch.undo()
        assert len(calls) <= 8, calls
        assert git(curator.root, "rev-parse", "HEAD~1").strip() == head
        assert applied.commit_sha == git(curator.root, "rev-parse", "HEAD").strip()
        assert git(curator.root, "status", "--porcelain") == ""
        assert git(curator.root, "log", "-1", "--format=%s").startswith("memhtml(archive): ")


def test_a_signing_setting_made_after_the_preview_is_seen(curator, monkeypatch) -> None:
    """git's answers are remembered only while its config files are unchanged."""
    from memhtml_desktop.write.errors import WriteError
    from memhtml_desktop.write.requests import ArchiveRequest

    plan = curator.plan(ArchiveRequest(TARGETS[0], reason="done"))
    git(curator.root, "config", "commit.gpgsign", "true")
    git(curator.root, "config", "gpg.program", "/nonexistent/gpg")
    head = git(curator.root, "rev-parse", "HEAD").strip()
    with pytest.raises(WriteError):
        curator.apply(plan)  # signing asked for, and the signer missing: refused, nothing committed
    assert git(curator.root, "rev-parse", "HEAD").strip() == head
    assert (curator.root / TARGETS[0]).exists()
