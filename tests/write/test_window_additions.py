"""What the window's curation needs from the write core beyond memhtml's verbs: facets passed
explicitly, a correction's draft read from the file, links named on conflict pairs, completion by
title. Real repositories (the golden seed store), real index."""

from __future__ import annotations

import pytest

from write.support import git, open_store, pin_git, seed, snapshot

RUNBOOK = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
MERGES = "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html"
DOES_NOT = "projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html"


@pytest.fixture
def curator(tmp_path, monkeypatch):
    from memhtml_desktop.write.curator import Curator

    pin_git(monkeypatch, tmp_path)
    return Curator(open_store(seed(tmp_path)))


def test_a_draft_carries_what_memhtml_correct_drops(curator) -> None:
    from memhtml_desktop.html.project import blob_sha_of
    from memhtml_desktop.write.drafts import memory_draft

    draft = memory_draft(curator.store, RUNBOOK)
    assert draft.title == "Prod rollbacks drain the VIP before the deploy is reverted"
    assert draft.claim == "If a prod rollback is issued, drain the VIP before reverting the deploy."
    assert draft.tags == ("deploy", "oncall", "rollback")
    assert draft.entities == ("service:checkout-api", "person:sanju", "team:payments")
    assert ("doc-type", "runbook", None) in draft.facets
    assert ("Failure window", "about two minutes of pinned connections", "120") in draft.facets
    assert draft.importance == "8" and draft.confidence == "0.90" and draft.memory_type == "procedural"
    assert draft.expected == blob_sha_of((curator.root / RUNBOOK).read_bytes())
    # the rest of the article: the claim's paragraph without the claim, the list, the code block
    assert draft.bodies[0].startswith("The revert alone leaves in-flight connections")
    assert any(b.startswith("- Announce the rollback") for b in draft.bodies)
    assert any(b.startswith("```bash\naws elbv2") and b.endswith("\n```") for b in draft.bodies)
    assert not any("If a prod rollback is issued" in b for b in draft.bodies)


def test_a_correction_from_a_draft_keeps_facets_tags_and_entities(curator) -> None:
    from memhtml_desktop.html.project import project
    from memhtml_desktop.write.drafts import memory_draft
    from memhtml_desktop.write.requests import CorrectRequest

    draft = memory_draft(curator.store, RUNBOOK)
    request = CorrectRequest(RUNBOOK, draft.title, claim="If a prod rollback is issued, drain the VIP first.",
                             bodies=draft.bodies, tags=draft.tags, entities=draft.entities, facets=draft.facets,
                             importance=draft.importance, confidence=draft.confidence, reason="shorter",
                             expected=draft.expected)  # fmt: skip
    applied = curator.run(request)
    new_path = applied.result["path"]
    data = (curator.root / new_path).read_bytes()
    projection = project(new_path, data, "2026-12-01T12:00:00Z")
    assert projection.ok, projection.violations
    facets = {(r["name"], r["value"]) for r in projection.tables["file_facets"]}
    assert {
        ("doc-type", "runbook"),
        ("tier", "1"),
        ("Failure window", "about two minutes of pinned connections"),
    } <= facets
    assert b'<dd><data value="120">about two minutes of pinned connections</data></dd>' in data
    assert {r["tag"] for r in projection.tables["file_tags"]} == {"deploy", "oncall", "rollback"}
    assert b'<meta name="memhtml-importance" content="8">' in data
    # the facets follow the claim's paragraph; the bodies follow them
    article = data.decode().split("<article>\n", 1)[1]
    assert article.index("<mark>") < article.index("<dl>") < article.index("connection draining")
    assert git(curator.root, "log", "-1", "--format=%s").strip().startswith("memhtml(correct): ")


def test_facets_with_no_value_are_refused_before_anything_is_written(curator) -> None:
    from memhtml_desktop.write.errors import InvalidMemory
    from memhtml_desktop.write.requests import CorrectRequest, WriteRequest

    before = snapshot(curator.root, curator.store)
    with pytest.raises(InvalidMemory, match="a facet needs a name and a value"):
        curator.run(CorrectRequest(RUNBOOK, "T", claim="A claim.", facets=(("tier", " "),)))
    with pytest.raises(InvalidMemory, match="not a number"):
        curator.plan(WriteRequest("T", "semantic", claim="A claim.", facets=(("tier", "one", "one"),)))
    assert snapshot(curator.root, curator.store) == before


def test_a_new_memory_without_facets_is_byte_for_byte_memhtmls(curator) -> None:
    from memhtml_desktop.write.requests import WriteRequest

    plain = curator.plan(WriteRequest("Tea", "semantic", claim="Tea is hot.", bodies=("Mostly.",)))
    with_facets = curator.plan(WriteRequest("Tea", "semantic", claim="Tea is hot.", bodies=("Mostly.",),
                                            facets=(("kind", "drink"),)))  # fmt: skip
    assert b"<dl>" not in plain.changes[0].after
    assert plain.changes[0].after.replace(b"<p><mark>Tea is hot.</mark> Mostly.</p>\n",
                                          b"") != with_facets.changes[0].after  # fmt: skip
    assert (
        b"<p><mark>Tea is hot.</mark> Mostly.</p>\n<dl>\n<dt>kind</dt><dd>drink</dd>\n</dl>\n</article>"
        in with_facets.changes[0].after
    )


def test_a_linked_conflict_pair_says_so(curator) -> None:
    from memhtml_desktop.write.requests import LinkRequest

    pair = next(p for p in curator.conflicts().pairs if p.a.path == DOES_NOT)
    # the demo store already records the disagreement: `contradicts` names it, it does not settle it
    assert (pair.a.path, pair.b.path) == (DOES_NOT, MERGES) and pair.links == ("contradicts",) and not pair.settled
    curator.run(LinkRequest(MERGES, "relates_to", DOES_NOT))
    pair = next(p for p in curator.conflicts().pairs if p.a.path == DOES_NOT)
    assert set(pair.links) == {"contradicts", "relates_to"} and pair.settled
    (partial,) = curator.conflicts(paths=[MERGES]).pairs
    assert partial.settled


def test_find_memories_by_title_for_completion(curator) -> None:
    found = curator.store.find_memories("compactor")
    assert {m.path for m in found} >= {MERGES, DOES_NOT}
    assert found[0].title.lower().startswith("compactor") or "compactor" in found[0].title.lower()
    assert curator.store.find_memories("%") == [] or all(
        "%" in m.title + m.path for m in curator.store.find_memories("%")
    )
    assert curator.store.find_memories("   ") == []
