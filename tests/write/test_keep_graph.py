"""Keeping a memory's place in the graph when it is corrected or superseded (issue 39, step 4).

The golden base store's drain runbook is `part-of` an arc and `about-person` Sanju, holds a `<dfn>`
(the `concept:connection draining` entity), four facets, 23 reads, and three memories link to it.
memhtml's `correct` (and this app's, unless asked) drops the links and the concept, leaves the
three links naming a path that moved into archive/, and the reads on the archived copy. Real
repositories, the app's writes through the Curator or the CLI, another writer through plain git.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from write.agents import memhtml_write, memory_text
from write.support import access_rows, git, open_store, pin_git, seed, snapshot, status

RUNBOOK = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
ARCHIVED = "archive/2026/" + RUNBOOK
LINKERS = (
    "areas/inbox/grep-the-deploy-log-for-deregistration-to-find-rollbacks.html",  # relates_to
    "projects/checkout-api/20260728-checkout-api-sev2-pinned-connections-after-a-revert.html",  # leads_to
    "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html",  # supports
)
ARC, SANJU = "areas/arcs/reversibility-first.html", "resources/people/sanju.html"
POOL_40 = "resources/postgres/billing-pgbouncer-pool-holds-40-server-connections.html"
POOL_60 = "projects/billing-service/pgbouncer-pool-size-for-billing.html"
AGENT = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
}
TITLE = "Prod rollbacks drain the VIP for a minute first"
CLAIM = "If a prod rollback is issued, drain the VIP for 60 seconds before reverting the deploy."


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def keeping(curator, **changes):
    """The window's request: the draft's fields, the graph carried, what the test changes."""
    from memhtml_desktop.write.drafts import memory_draft
    from memhtml_desktop.write.requests import CorrectRequest

    draft, graph = memory_draft(curator.store, RUNBOOK), curator.graph(RUNBOOK)
    fields = dict(
        title=TITLE,
        claim=CLAIM,
        bodies=draft.bodies,
        memory_type=draft.memory_type,
        tags=draft.tags,
        entities=graph.all_entities(),
        facets=draft.facets,
        folder="areas/oncall",
        expected=draft.expected,
        links=graph.kept_links(),
        repoint=graph.repoints(),
        reads_follow=True,
    )
    fields.update(changes)
    return CorrectRequest(RUNBOOK, **fields)


def edges_to(store, path: str) -> list[tuple[str, str]]:
    return [
        (r[0], r[1])
        for r in store.reader().execute(
            "SELECT src_path, rel FROM edges WHERE dst_path = ? AND derived = 0 ORDER BY src_path", (path,)
        )
    ]


def test_the_graph_of_the_runbook_is_what_a_correction_would_lose(curator) -> None:
    graph = curator.graph(RUNBOOK)
    assert [(l.rel, l.path, l.keep) for l in graph.links] == [
        ("supersedes", "archive/2026/areas/oncall/rollback-order.html", False),
        ("part_of", ARC, True),
        ("about_person", SANJU, True),
    ]
    assert "chain" in graph.links[0].note
    assert graph.entities == ("service:checkout-api", "person:sanju", "team:payments")
    assert graph.concepts == ("connection draining",) and "concept:connection draining" in graph.all_entities()
    assert sorted(i.src for i in graph.inbound) == sorted(LINKERS)
    assert all(i.repoint and len(i.expected) == 40 for i in graph.inbound)
    assert graph.read_count == 23


def test_a_graph_keeping_correction_carries_links_entities_facets_repoints_and_moves_the_reads(curator) -> None:
    root, store = curator.root, curator.store
    head = git(root, "rev-parse", "HEAD").strip()
    row = access_rows(store)[RUNBOOK]
    applied = curator.run(keeping(curator))
    new = applied.result["path"]
    assert new == "areas/oncall/prod-rollbacks-drain-the-vip-for-a-minute-first.html"
    text = (root / new).read_text(encoding="utf-8")
    assert f'<link rel="memhtml-part-of" href="/{ARC}">' in text
    assert f'<link rel="memhtml-about-person" href="/{SANJU}">' in text
    assert f'<link rel="memhtml-supersedes" href="/{ARCHIVED}">' in text
    assert "rollback-order" not in text, "the old version's predecessor is not the new one's"
    assert '<meta name="memhtml-entity" content="concept:connection draining">' in text
    assert "<dt>Failure window</dt>" in text
    # one commit, the three linking memories in it, nothing left over
    assert git(root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    carried = set(git(root, "show", "--name-only", "--format=", "HEAD").split())
    assert set(LINKERS) <= carried and new in carried and status(root) == ""
    for path in LINKERS:
        linker = (root / path).read_text(encoding="utf-8")
        assert f'href="/{new}"' in linker and RUNBOOK not in linker
    # the index: the new version's links and backlinks; the entity; nothing points at the old path
    assert sorted(src for src, _ in edges_to(store, new)) == sorted(LINKERS)
    assert edges_to(store, RUNBOOK) == []
    assert ("concept", "connection draining") in [
        tuple(r)
        for r in store.reader().execute("SELECT entity_type, entity_name FROM file_entities WHERE path = ?", (new,))
    ]
    # the reads follow the live memory; the archived copy has none
    rows = access_rows(store)
    assert rows[new][1:] == row[1:] and RUNBOOK not in rows and ARCHIVED not in rows
    assert applied.result["kept"] == {
        "links": [["part_of", ARC], ["about_person", SANJU]],
        "repointed": sorted(LINKERS),
        "reads": new,
    }


def test_what_the_curator_removes_stays_behind(curator) -> None:
    root, store = curator.root, curator.store
    graph = curator.graph(RUNBOOK)
    one = [r for r in graph.repoints() if r[0] == LINKERS[0]]
    applied = curator.run(keeping(curator, links=(("part_of", ARC),), repoint=tuple(one), reads_follow=False,
                                  entities=graph.entities))  # fmt: skip
    new = applied.result["path"]
    text = (root / new).read_text(encoding="utf-8")
    assert ARC in text and "memhtml-about-person" not in text
    assert "concept:connection draining" not in text
    assert f'href="/{new}"' in (root / LINKERS[0]).read_text(encoding="utf-8")
    for path in LINKERS[1:]:
        assert f'href="/{RUNBOOK}"' in (root / path).read_text(encoding="utf-8"), "left as it was"
    rows = access_rows(store)
    assert ARCHIVED in rows and new not in rows, "without reads_follow the row follows the archived copy"


def test_a_linking_memory_changed_since_the_preview_is_refused_and_nothing_is_written(curator) -> None:
    from memhtml_desktop.write.errors import Stale

    root, store = curator.root, curator.store
    plan = curator.plan(keeping(curator))  # the preview
    target = root / LINKERS[2]
    target.write_text(
        target.read_text(encoding="utf-8").replace("</article>", "<p>An agent's note.</p>\n</article>"),
        encoding="utf-8",
    )
    env = {**os.environ, **AGENT}
    git(root, "commit", "-qam", "agent: a note on the deregistration delay", env=env)
    before = snapshot(root, store)
    with pytest.raises(Stale) as refused:
        curator.apply(plan)
    assert LINKERS[2] in str(refused.value)
    assert snapshot(root, store) == before, "nothing written, nothing reverted"
    assert git(root, "log", "-1", "--format=%s").strip() == "agent: a note on the deregistration delay"


def test_a_memhtml_write_between_preview_and_confirm_is_kept_and_the_correction_lands_on_it(curator) -> None:
    root = curator.root
    plan = curator.plan(keeping(curator))
    theirs = "areas/inbox/memhtml-wrote-this-meanwhile.html"
    assert (
        memhtml_write(
            root,
            theirs,
            memory_text("Meanwhile", "memhtml wrote this meanwhile."),
            "memhtml(write): Meanwhile",
            env=AGENT,
        ).returncode
        == 0
    )
    staged = "areas/inbox/the-agent-staged-this.html"
    (root / staged).write_text(memory_text("Staged", "The agent staged this and did not commit."))
    git(root, "add", staged)
    applied = curator.apply(plan)
    assert git(root, "log", "-2", "--format=%s").splitlines() == [
        f"memhtml(correct): {TITLE}",
        "memhtml(write): Meanwhile",
    ]
    assert staged not in git(root, "show", "--name-only", "--format=", "HEAD"), "nothing swept"
    assert status(root).splitlines() == [f"A  {staged}"], "their staged file stays staged"
    assert (root / theirs).exists() and applied.result["path"] in git(root, "ls-files")


def test_undo_and_redo_move_the_reads_back_and_forth(curator) -> None:
    root, store = curator.root, curator.store
    row = access_rows(store)[RUNBOOK]
    new = curator.run(keeping(curator)).result["path"]
    curator.undo()
    rows = access_rows(store)
    assert rows[RUNBOOK][1:] == row[1:] and new not in rows
    assert f'href="/{RUNBOOK}"' in (root / LINKERS[0]).read_text(encoding="utf-8")
    curator.undo(redo=True)
    rows = access_rows(store)
    assert rows[new][1:] == row[1:] and RUNBOOK not in rows and status(root) == ""


def test_a_failed_commit_puts_the_reads_and_every_file_back(curator) -> None:
    from memhtml_desktop.write.errors import GitFailed
    from write.agents import hook

    root, store = curator.root, curator.store
    hook(root, "pre-commit", "echo 'no commits today' >&2; exit 1\n")
    before = snapshot(root, store)
    with pytest.raises(GitFailed, match="pre-commit hook refused"):
        curator.run(keeping(curator))
    assert snapshot(root, store) == before


def test_a_carried_memory_rel_is_refused_on_a_task(curator) -> None:
    from memhtml_desktop.write.errors import InvalidMemory

    with pytest.raises(InvalidMemory, match="part_of is a memory rel and the new version is a task"):
        curator.plan(keeping(curator, memory_type="task", repoint=()))


def _cli(root, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memhtml_desktop", "--repo", str(root), *args, "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMHTML_DESKTOP_NOW": "2026-12-01T11:10:59Z"},
    )


def test_the_cli_keeps_memhtmls_correct_unless_asked(curator) -> None:
    root, store = curator.root, curator.store
    plain = _cli(root, "correct", RUNBOOK, "--title", TITLE, "--claim", CLAIM)
    assert plain.returncode == 0, plain.stderr
    result = json.loads(plain.stdout)
    assert "kept" not in result and result["path"].startswith("areas/inbox/"), "memhtml's placement, memhtml's keys"
    text = (root / result["path"]).read_text(encoding="utf-8")
    assert "memhtml-part-of" not in text and "concept:" not in text
    assert all(f'href="/{RUNBOOK}"' in (root / p).read_text(encoding="utf-8") for p in LINKERS), "left dangling"
    store.update_paths([result["path"], ARCHIVED])
    assert store.read(result["path"], bump=False).earlier_reads == ((ARCHIVED, 23),), "the reader says where they are"
    assert status(root) == ""
    undone = _cli(root, "undo")
    assert undone.returncode == 0, undone.stderr
    keep = _cli(root, "correct", RUNBOOK, "--title", TITLE, "--claim", CLAIM, "--keep-graph")
    assert keep.returncode == 0, keep.stderr
    result = json.loads(keep.stdout)
    new = result["path"]
    assert new.startswith("areas/oncall/"), "its folder is kept"
    assert result["kept"]["reads"] == new and sorted(result["kept"]["repointed"]) == sorted(LINKERS)
    text = (root / new).read_text(encoding="utf-8")
    assert "memhtml-part-of" in text and "concept:connection draining" in text and "<dt>tier</dt>" in text
    assert status(root) == ""


def test_supersede_keeping_the_graph_carries_the_losers_place_onto_the_winner(curator) -> None:
    from memhtml_desktop.write.requests import SupersedeRequest

    root, store = curator.root, curator.store
    loser_graph = curator.graph(POOL_40)
    request = curator.keeping_graph(SupersedeRequest(POOL_60, POOL_40))
    assert request.keep_graph and request.links == loser_graph.kept_links()
    head = git(root, "rev-parse", "HEAD").strip()
    winner_row = access_rows(store).get(POOL_60)
    applied = curator.run(request)
    archived = applied.result["superseded_path"]
    text = (root / POOL_60).read_text(encoding="utf-8")
    for rel, dst in loser_graph.kept_links():
        assert f'href="/{dst}"' in text
    for entity in request.entities:
        assert f'content="{entity}"' in text
    for name, _, _ in request.facets:
        assert f"<dt>{name}</dt>" in text
    assert git(root, "rev-list", "--count", f"{head}..HEAD").strip() == "1" and status(root) == ""
    assert edges_to(store, POOL_40) == [], "nothing points at the old path any more"
    assert access_rows(store).get(POOL_60) == winner_row, "the winner's reads are its own"
    assert archived in access_rows(store) or POOL_40 not in access_rows(store)


HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>T</title>
<meta name="memhtml-type" content="semantic">
<meta name="memhtml-status" content="active">
<meta name="memhtml-entity" content="service:a">
<meta name="memhtml-tag" content="x">
<link rel="memhtml-supersedes" href="/old.html">
<link rel="memhtml-relates-to" href="/old.html"><link rel="memhtml-supports" href="/other.html">
<link rel="memhtml-part-of" href="//old.html">
<link rel="memhtml-part-of" href="/new.html">
</head>
<body><article><p><mark>C.</mark></p></article></body>
</html>
"""


def test_repointing_replaces_each_link_in_place_and_never_duplicates_one() -> None:
    from memhtml_desktop.write import head_edit

    out = head_edit.repoint_links(HEAD, "old.html", "/new.html", skip_rels=frozenset({"memhtml-supersedes"}))
    assert '<link rel="memhtml-supersedes" href="/old.html">' in out, "a supersedes link names that version"
    assert '<link rel="memhtml-relates-to" href="/new.html"><link rel="memhtml-supports" href="/other.html">' in out
    assert out.count('href="/new.html"') == 2, "part-of already named the new one: the old element goes"
    assert "//old.html" not in out and out.count("\n") == HEAD.count("\n") - 1


def test_a_repeated_meta_is_added_after_its_kind_once() -> None:
    from memhtml_desktop.write import head_edit

    out = head_edit.add_repeated_meta(HEAD, "memhtml-entity", "concept:draining")
    assert (
        '<meta name="memhtml-entity" content="service:a">\n'
        '<meta name="memhtml-entity" content="concept:draining">\n<meta name="memhtml-tag"'
    ) in out
    assert head_edit.add_repeated_meta(out, "memhtml-entity", "concept:draining") == out


def test_a_memory_found_unhelpful_keeps_its_reads_on_the_archived_copy_unless_asked(curator) -> None:
    from memhtml_desktop.write.requests import CorrectRequest

    merges = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
    graph = curator.graph(merges)
    assert graph.read_count == 9 and graph.reads["outcome_score"] < 0 and not graph.reads_follow_by_default
    request = curator.keeping_graph(
        CorrectRequest(merges, "Merges except month-end", claim="It merges, except month-end.")
    )
    assert request.reads_follow is False and curator.graph(RUNBOOK).reads_follow_by_default


#: Memories of the base store with a place in the graph, of several kinds: an arc many memories are
#: part of, a person many are about, a task other tasks are subtasks of (task rels), an incident
#: others were caused by, a memory that only links out.
VARIED = (
    "areas/arcs/reversibility-first.html",
    "resources/people/sanju.html",
    "projects/checkout-api/tasks/harden-the-rollback-path.html",
    "projects/billing-service/20260415-invoice-run-double-charged-annual-plans.html",
    "projects/mobile-app/roll-back-a-bad-mobile-release-with-the-kill-switch.html",
)


@pytest.mark.parametrize("path", VARIED)
def test_any_memory_keeps_its_place_whatever_its_kind(curator, path) -> None:
    from memhtml_desktop.write.drafts import memory_draft
    from memhtml_desktop.write.requests import CorrectRequest

    root, store = curator.root, curator.store
    graph = curator.graph(path)
    assert graph.links or graph.inbound, "a memory with a place in the graph"
    draft = memory_draft(store, path)
    row = access_rows(store).get(path)
    request = curator.keeping_graph(CorrectRequest(path, draft.title + " (corrected)",
                                                   claim=(draft.claim or draft.title) + " Corrected.",
                                                   task_status=draft.task_status))  # fmt: skip
    head = git(root, "rev-parse", "HEAD").strip()
    applied = curator.run(request)
    new = applied.result["path"]
    text = (root / new).read_text(encoding="utf-8")
    assert new.rsplit("/", 1)[0] == path.rsplit("/", 1)[0], "its folder kept"
    for rel, dst in graph.kept_links():
        assert f'href="/{dst}"' in text, (rel, dst)
    for entity in graph.all_entities():
        assert f'content="{entity}"' in text
    for ref in graph.inbound:
        linker = (root / ref.src).read_text(encoding="utf-8")
        assert (f'href="/{new}"' in linker) == ref.repoint, ref
    assert [src for src, _ in edges_to(store, path)] == [r.src for r in graph.inbound if not r.repoint]
    assert git(root, "rev-list", "--count", f"{head}..HEAD").strip() == "1" and status(root) == ""
    rows = access_rows(store)
    if row is not None and graph.reads_follow_by_default:
        assert rows[new][1:] == row[1:] and path not in rows
    curator.undo()
    assert status(root) == "" and (root / path).exists() and not (root / new).exists()
    assert access_rows(store).get(path) == row, "undo puts the reads back where they were"


def test_the_review_inboxs_revert_of_a_graph_keeping_correction_moves_its_reads_back(curator) -> None:
    from memhtml_desktop.write.requests import RevertRequest

    root, store = curator.root, curator.store
    row = access_rows(store)[RUNBOOK]
    applied = curator.run(keeping(curator))
    new = applied.result["path"]
    paths = tuple(git(root, "show", "--name-only", "--format=", applied.commit_sha).split())
    curator.run(RevertRequest(applied.commit_sha, (*paths, RUNBOOK)))
    rows = access_rows(store)
    assert rows[RUNBOOK][1:] == row[1:] and new not in rows and status(root) == ""


def test_the_jobs_and_their_answers_cross_a_process_boundary(curator) -> None:
    """The window's jobs move into an engine process (issue 42): they and what they answer pickle."""
    import pickle

    from memhtml_desktop.ops.curate import DraftJob, PlanJob, SupersedeDraftJob
    from memhtml_desktop.write.curator import DismissRequest

    store = curator.store
    for job in (
        DraftJob(path=RUNBOOK, graph=True),
        SupersedeDraftJob(winner=POOL_60, loser=POOL_40),
        PlanJob(request=DismissRequest(POOL_60, POOL_40)),
    ):
        copy = pickle.loads(pickle.dumps(job.portable()))
        answer = copy.run(store, lambda: False, lambda *_: None)
        assert answer.ok, answer.error
        back = pickle.loads(pickle.dumps(answer))
        assert back.ok and type(back.value) is type(answer.value)
    draft = DraftJob(path=RUNBOOK, graph=True).run(store, lambda: False, lambda *_: None).value
    assert pickle.loads(pickle.dumps(draft)).graph.read_count == 23
