""" "Not a conflict": remembered on a ref of the app's own, one commit each (issue 39, step 3).

Real repositories (the golden base store, whose two conflicting pairs the scan finds), the app's
dismissals through the Curator and the CLI; another window's through a second Curator.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from write.support import git, open_store, pin_git, seed, snapshot, status

POOL_60 = "projects/billing-service/pgbouncer-pool-size-for-billing.html"
POOL_40 = "resources/postgres/billing-pgbouncer-pool-holds-40-server-connections.html"
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"
REF = "refs/memhtml-desktop/conflicts-dismissed"


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def listed(curator) -> list[tuple[str, str, bool]]:
    return [(p.a.path, p.b.path, p.dismissed) for p in curator.conflicts().pairs]


def test_a_dismissal_is_one_commit_on_the_apps_ref_and_the_branch_and_tree_stay_as_they_were(curator) -> None:
    from memhtml_desktop.write.curator import DismissRequest

    root, store = curator.root, curator.store
    assert listed(curator) == [(DOES_NOT, MERGES, False), (POOL_60, POOL_40, False)]
    before = snapshot(root, store)
    plan = curator.plan(DismissRequest(POOL_40, POOL_60, note="two databases, two pools"))
    assert [c.path for c in plan.changes] == [f"{REF}:dismissed.json"] and plan.changes[0].before is None
    assert snapshot(root, store) == before, "a preview touches nothing"
    applied = curator.apply(plan)
    assert snapshot(root, store) == before, "the branch, the tree, git's index and the state rows are untouched"
    assert git(root, "rev-parse", REF).strip() == applied.commit_sha and applied.change is None
    subject, body = git(root, "log", "--format=%s%n%b", REF).strip().splitlines()
    assert subject.startswith(f"memhtml-desktop(conflicts): not a conflict: {POOL_60[:20]}") and len(subject) == 28 + 72
    assert body == "two databases, two pools"
    assert git(root, "branch", "--contains", applied.commit_sha) == "", "no branch holds it"
    data = json.loads(git(root, "show", f"{REF}:dismissed.json"))
    assert [(r["a"], r["b"], r.get("note")) for r in data["pairs"]] == [(POOL_60, POOL_40, "two databases, two pools")]
    assert listed(curator) == [(DOES_NOT, MERGES, False), (POOL_60, POOL_40, True)]
    # a second time: nothing to write; a restore is one more commit and lists it again
    again = curator.run(DismissRequest(POOL_60, POOL_40))
    assert again.commit_sha is None and "already" in again.plan.notes[0]
    restored = curator.run(DismissRequest(POOL_60, POOL_40, restore=True))
    assert git(root, "rev-parse", f"{REF}~1").strip() == applied.commit_sha and restored.commit_sha
    assert listed(curator)[1] == (POOL_60, POOL_40, False)


def test_a_move_keeps_the_judgement_and_an_edit_asks_again(curator) -> None:
    from memhtml_desktop.write.curator import DismissRequest

    root, store = curator.root, curator.store
    curator.run(DismissRequest(POOL_60, POOL_40))
    moved = "resources/postgres/pool-holds-40.html"
    git(root, "mv", POOL_40, moved)
    git(root, "commit", "-qm", "agent: renamed")
    store.index()
    assert [(p.b.path, p.dismissed) for p in curator.conflicts().pairs if p.a.path == POOL_60] == [(moved, True)]
    text = (root / moved).read_text(encoding="utf-8").replace("Postgres allows 200", "Postgres allows 300")
    (root / moved).write_text(text, encoding="utf-8")
    git(root, "commit", "-qam", "agent: edited")
    store.index()
    assert [(p.b.path, p.dismissed) for p in curator.conflicts().pairs if p.a.path == POOL_60] == [(moved, False)]


def test_another_window_dismissing_between_preview_and_confirm_is_kept_and_the_preview_refused(curator) -> None:
    from memhtml_desktop.write.curator import Curator, DismissRequest
    from memhtml_desktop.write.errors import Stale

    root = curator.root
    plan = curator.plan(DismissRequest(POOL_60, POOL_40))
    other = Curator(open_store(root))
    theirs = other.run(DismissRequest(MERGES, DOES_NOT, note="the other window")).commit_sha
    with pytest.raises(Stale, match="another window"):
        curator.apply(plan)
    assert git(root, "rev-parse", REF).strip() == theirs, "theirs is kept"
    mine = curator.run(DismissRequest(POOL_60, POOL_40)).commit_sha
    assert (
        git(root, "rev-parse", f"{REF}~1").strip() == theirs
        and len(json.loads(git(root, "show", f"{REF}:dismissed.json"))["pairs"]) == 2
        and mine
    )


def test_the_cli_hides_dismissed_pairs_and_dismisses_and_restores(curator) -> None:
    root = curator.root
    env = {**os.environ, "MEMHTML_DESKTOP_NOW": "2026-12-01T11:10:59Z"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "memhtml_desktop", "--repo", str(root), "conflicts", *args],
                              capture_output=True, text=True, env=env)  # fmt: skip

    done = cli("--dismiss", POOL_60, POOL_40, "--note", "two pools")
    assert done.returncode == 0 and "dismissed: not a conflict" in done.stdout, done.stderr
    report = json.loads(cli("--json").stdout)
    assert [p["a"]["path"] for p in report["pairs"]] == [DOES_NOT] and report["dismissed"] == 1
    assert "1 dismissed as not a conflict" in cli().stdout
    assert cli("--restore", POOL_60, POOL_40).returncode == 0
    assert json.loads(cli("--json").stdout)["dismissed"] == 0
    assert status(root) == "" and "memhtml-desktop" not in git(root, "log", "--format=%s", "HEAD")
    missing = cli("--dismiss", POOL_60, "areas/inbox/nothing-here.html")
    assert missing.returncode == 1 and "nothing-here" in missing.stderr and "Traceback" not in missing.stderr


def test_a_ref_that_is_not_the_apps_file_is_never_written_over(curator) -> None:
    from memhtml_desktop.write.curator import DismissRequest
    from memhtml_desktop.write.errors import Refused

    root = curator.root
    blob = subprocess.run(["git", "-C", str(root), "hash-object", "-w", "--stdin"], input=b"{not json",
                          capture_output=True, check=True).stdout.decode().strip()  # fmt: skip
    tree = subprocess.run(["git", "-C", str(root), "mktree"], input=f"100644 blob {blob}\tdismissed.json\n".encode(),
                          capture_output=True, check=True).stdout.decode().strip()  # fmt: skip
    commit = git(root, "commit-tree", tree, "-m", "hand-made").strip()
    git(root, "update-ref", REF, commit)
    assert [p.dismissed for p in curator.conflicts().pairs] == [False, False], "the scan reads it as none"
    with pytest.raises(Refused, match="not valid JSON"):
        curator.run(DismissRequest(POOL_60, POOL_40))
    assert git(root, "rev-parse", REF).strip() == commit, "left as it was"
