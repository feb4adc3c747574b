"""The window's API: plan (touches nothing), apply, undo, supersede, conflicts, history."""

from __future__ import annotations

import pytest

from write.support import access_rows, git, open_store, pin_git, seed, snapshot

MEMORY = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"  # has a state.access row
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    return Curator(open_store(root))


def _write_dir_state(curator) -> list[str]:
    d = curator.directory
    return sorted(p.name for p in d.rglob("*")) if d.exists() else []


def test_plan_touches_nothing_and_says_what_it_will_do(curator) -> None:
    from memhtml_desktop.write.requests import CorrectRequest

    root = curator.root
    before, journal = snapshot(root, curator.store), _write_dir_state(curator)
    plan = curator.plan(CorrectRequest(MEMORY, "Delay is 300 seconds",
                                       claim="The prod ALB target groups use a 300-second deregistration delay.",
                                       reason="raised", tags=("infra",), entities=("system:aws-alb",)))  # fmt: skip
    assert snapshot(root, curator.store) == before and _write_dir_state(curator) == journal
    assert [(c.action, c.path, c.source) for c in plan.changes] == [
        ("create", "resources/infra/delay-is-300-seconds.html", None),
        ("move", "archive/2026/" + MEMORY, MEMORY),
    ]
    assert plan.subject == "memhtml(correct): Delay is 300 seconds"
    assert plan.trailers == (("Memhtml-Reason", "raised"),)
    assert plan.state_moves == ((MEMORY, "archive/2026/" + MEMORY),)
    assert plan.describe()[:3] == [
        "create resources/infra/delay-is-300-seconds.html",
        f"move   {MEMORY} -> archive/2026/{MEMORY} (head edited)",
        "commit memhtml(correct): Delay is 300 seconds",
    ]
    # The window passes what memhtml's correct drops: tags and entities are in the new file.
    new = plan.changes[0].after.decode()
    assert '<meta name="memhtml-tag" content="infra">' in new and "system:aws-alb" in new
    applied = curator.apply(plan)
    assert applied.commit_sha == git(root, "rev-parse", "HEAD").strip()
    assert applied.result["path"] == "resources/infra/delay-is-300-seconds.html"


def test_undo_reverts_the_last_commit_and_moves_the_state_row_back(curator) -> None:
    from memhtml_desktop.write.requests import ArchiveRequest

    root, store = curator.root, curator.store
    before = snapshot(root, store)
    archived = "archive/2026/" + MEMORY
    curator.run(ArchiveRequest(MEMORY, "retired"))
    assert archived in access_rows(store) and MEMORY not in access_rows(store)
    ok, why = curator.undo_status()
    assert ok and "memhtml(archive)" in why
    applied = curator.undo()
    assert git(root, "log", "-1", "--format=%s").startswith('Revert "memhtml(archive): ')
    after = snapshot(root, store)
    assert after["files"] == before["files"] and after["status"] == "" and after["state"] == before["state"]
    conn = store.reader()
    assert conn.execute("SELECT 1 FROM files WHERE path = ?", (MEMORY,)).fetchone() is not None
    assert conn.execute("SELECT 1 FROM files WHERE path = ?", (archived,)).fetchone() is None
    assert applied.result["reverted"] != applied.commit_sha
    ok, why = curator.undo_status()
    assert not ok and "nothing to undo" in why


def test_undo_refuses_while_its_paths_changed_and_ignores_other_writers_paths(curator) -> None:
    from memhtml_desktop.write.errors import Refused
    from memhtml_desktop.write.requests import LinkRequest

    root = curator.root
    applied = curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    # An edit of the very file the commit changed: refused, named.
    original = (root / MERGES).read_text()
    (root / MERGES).write_text(original + "<!-- dirty -->\n")
    ok, why = curator.undo_status()
    assert not ok and "uncommitted changes" in why and MERGES in why
    with pytest.raises(Refused, match="uncommitted changes"):
        curator.undo()
    (root / MERGES).write_text(original)
    # Another writer's edit and commit of ANOTHER file is not in the way: the revert touches none of it.
    (root / MEMORY).write_text((root / MEMORY).read_text() + "<!-- someone else -->\n")
    git(root, "commit", "-qam", "someone else's commit")
    theirs = git(root, "rev-parse", "HEAD").strip()
    ok, why = curator.undo_status()
    assert ok, why
    undone = curator.undo()
    assert (
        git(root, "rev-parse", "HEAD~1").strip() == theirs
        and undone.commit_sha == git(root, "rev-parse", "HEAD").strip()
    )
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [MERGES]
    assert "<!-- someone else -->" in (root / MEMORY).read_text() and (root / MERGES).read_text() == git(
        root, "show", f"{applied.commit_sha}~1:{MERGES}"
    )
    assert git(root, "log", "-1", "--format=%B") == (
        f'Revert "{applied.plan.subject}"\n\nThis reverts commit {applied.commit_sha}.\n\n'
    )
    # A commit that changes the commit's path again makes the undo refuse (it would undo theirs).
    again = curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    (root / MERGES).write_text((root / MERGES).read_text() + "<!-- theirs -->\n")
    git(root, "commit", "-qam", "someone else's edit of the same file")
    ok, why = curator.undo_status()
    assert not ok and "changed since" in why and MERGES in why and again.commit_sha[:12] in why
    head = git(root, "rev-parse", "HEAD")
    with pytest.raises(Refused):
        curator.undo()
    assert git(root, "rev-parse", "HEAD") == head


def test_supersede_resolves_a_conflict_in_one_commit(curator) -> None:
    from memhtml_desktop.write.requests import SupersedeRequest

    root, store = curator.root, curator.store
    report = curator.conflicts()
    (pair,) = [p for p in report.pairs if {p.a.path, p.b.path} == {MERGES, DOES_NOT}]
    assert pair.diff.kinds == ("negation",) and pair.cosine >= 0.9
    applied = curator.run(SupersedeRequest(DOES_NOT, MERGES, reason="the compactor was fixed"))
    archived = "archive/2026/" + MERGES
    assert applied.result["superseded_path"] == archived
    show = git(root, "show", "--name-status", "--format=%B", "HEAD")
    assert show.startswith(f"memhtml(consolidate): {DOES_NOT[:40]}")
    assert "R" in show and archived in show and f"M\t{DOES_NOT}" in show
    winner = (root / DOES_NOT).read_text()
    assert f'<link rel="memhtml-supersedes" href="/{archived}">' in winner
    loser = (root / archived).read_text()
    assert f'<meta name="memhtml-superseded-by" content="/{DOES_NOT}">' in loser
    assert archived in access_rows(store)
    assert not [p for p in curator.conflicts().pairs if MERGES in (p.a.path, p.b.path)]
    chain = curator.history(DOES_NOT)
    assert [v.path for v in chain.versions] == [archived, DOES_NOT]  # by when each began to hold
    assert chain.older_than_focus == [archived] and chain.edges == [(DOES_NOT, archived)]


def test_history_follows_the_chain_both_ways(curator) -> None:
    focus = "archive/2026/areas/oncall/rollback-order.html"
    chain = curator.history(focus)
    assert [v.path for v in chain.versions] == [
        "archive/2025/areas/oncall/rollback-revert-only.html",
        focus,
        "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html",
    ]
    assert chain.older_than_focus == ["archive/2025/areas/oncall/rollback-revert-only.html"]
    assert chain.newer_than_focus == ["areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"]
    assert all(v.known and v.start for v in chain.versions)
    assert (
        curator.history("areas/arcs/reversibility-first.html").versions[0].path == "areas/arcs/reversibility-first.html"
    )


def test_a_correction_shows_up_in_the_chain(curator) -> None:
    from memhtml_desktop.write.requests import CorrectRequest

    applied = curator.run(CorrectRequest(MEMORY, "Delay is 300 seconds",
                                         claim="The prod ALB target groups use a 300-second deregistration delay."))  # fmt: skip
    chain = curator.history(applied.result["path"])
    assert [v.path for v in chain.versions] == ["archive/2026/" + MEMORY, applied.result["path"]]
    old, new = chain.versions
    assert old.archived and old.valid_until == new.valid_from == "2026-12-01T12:00:00Z"


def test_refresh_index_catches_a_duplicate_the_index_has_not_seen(curator) -> None:
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import WriteRequest

    root = curator.root
    request = WriteRequest("Fresh fact", "semantic", claim="A fact written behind the index's back.")
    first = Curator(curator.store).plan(request).changes[0].after
    (root / "areas" / "inbox" / "behind-the-back.html").write_bytes(first)  # same article, not indexed yet
    git(root, "add", "-A")
    git(root, "commit", "-qm", "written by another tool")
    applied = Curator(curator.store, refresh_index=True).run(request)
    assert applied.result["deduped"] is True and applied.commit_sha is None
    assert applied.result["existing_path"] == "areas/inbox/behind-the-back.html"
