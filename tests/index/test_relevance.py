"""Honest headers and the relevance floor over a real store: match counts, an incomplete index,
low-relevance marks and the floor's diagnostics."""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.domain.types import Scope


def build(root):
    write_memory(
        root,
        "areas/oncall/drain.html",
        title="Prod rollbacks drain the VIP",
        claim="If a prod rollback is issued, drain the VIP before reverting the deploy.",
        entities=["service:checkout-api"],
        tags=["oncall"],
        memory_type="procedural",
    )
    write_memory(
        root,
        "areas/oncall/drain-staging.html",
        title="Staging drains too",
        claim="Staging rollbacks drain the staging VIP as well.",
        tags=["oncall"],
    )
    write_memory(
        root,
        "resources/billing/invoices.html",
        title="Invoices",
        claim="Invoices close on the first day.",
        tags=["billing"],
        entities=["service:billing-service"],
    )
    for i in range(14):
        write_memory(
            root,
            f"areas/misc/cafeteria-{i:02d}.html",
            title=f"Cafeteria {i}",
            claim=f"The cafeteria serves soup number {i} on weekdays.",
            created=f"2026-0{1 + i % 9}-01T00:00:00Z",
        )


@pytest.fixture
def store(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    store.index()
    return store


def _holds(text: str, words: set[str]) -> bool:
    return words <= set(re.findall(r"\w+", text.lower()))


def test_match_count_is_the_in_scope_count_in_the_bound_form(store):
    rows = store.reader().execute("SELECT path, fts_text, archived FROM files").fetchall()
    # The seeds' two forms over memhtml's unstemmed index, so the count can be checked word for word.
    both = replace(DEFAULT, fts_forms="all_any", lexical="memhtml", question_words=False)
    default = store.search("drain vip")  # the default binds any of the words, in its stemmed index
    assert default.matches.form == "any" and default.matches.count >= 2
    result = store.search("drain vip", ranking=both)
    assert result.matches.form == "all"
    assert (
        result.matches.count
        == sum(1 for _, text, archived in rows if _holds(text, {"drain", "vip"}) and not archived)
        == 2
    )
    assert result.matches.any
    any_form = store.search("drain invoices", ranking=both)
    assert any_form.matches.form == "any" and any_form.matches.count == 3
    scoped = store.search("drain vip", Scope.build(memory_types=["procedural"]), ranking=both)
    assert scoped.matches.count == 1
    nothing = store.search("zeppelin quorum")
    assert nothing.matches.form == "any" and nothing.matches.count == 0 and not nothing.matches.any
    assert nothing.hits, "recency and salience still rank; the header says no memory holds the words"
    no_words = store.search("!!!")
    assert no_words.matches.form is None and no_words.to_json()["matches"] == {
        "form": None,
        "count": 0,
        "capped": False,
        "any": False,
    }


def test_memhtml_form_requires_every_word_even_function_words(store):
    result = store.search("drain the vip before", ranking=MEMHTML)
    assert result.matches.form == "all" and result.matches.count == 1  # only one claim says "before"


def test_an_index_no_full_scan_has_completed_is_degraded(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    store.update_paths(["areas/oncall/drain.html"])  # what `read` does on a fresh index
    result = store.search("drain vip")
    assert result.degraded and not result.index.complete
    reason = [r for r in result.degraded_reasons if r.startswith("index:")]
    assert reason == ["index: incomplete, the store has not been indexed in full yet (1 files so far)"]
    assert store.recall("drain vip").degraded
    store.index()
    after = store.search("drain vip")
    assert after.index.complete and not any(r.startswith("index:") for r in after.degraded_reasons)


def test_a_first_build_in_progress_says_how_far_it_got(store_root, make_store):
    build(store_root)
    store = make_store(store_root)
    from memhtml_desktop.index.indexer import Indexer

    watcher = store.connect()  # another reader: it sees what the build has committed

    def cancel_after_first_batch() -> bool:
        return watcher.execute("SELECT count(*) FROM files").fetchone()[0] >= 5

    Indexer(store.reader(), store.root, store.embedder, clock=store.clock, batch_files=5).scan(
        cancelled=cancel_after_first_batch
    )
    status = store.search("drain").index
    assert not status.complete and status.seen == 17 and 0 < status.files < 17
    assert "of 17 files so far" in status.reason()
    watcher.close()


def test_low_relevance_is_marked_never_moved(store):
    result = store.search("drain vip", limit=10)
    by_path = {h.path: h for h in result.hits}
    drain = by_path["areas/oncall/drain.html"]
    assert not drain.low_relevance and "words" in drain.signals.met
    soups = [h for h in result.hits if h.path.startswith("areas/misc/")]
    assert soups and all(h.low_relevance for h in soups), "no query word, cosine under the floor, nothing named"
    assert result.relevance.below_floor == sum(h.low_relevance for h in result.hits)
    plain = store.search("drain vip", limit=10, ranking=MEMHTML)
    assert [h.path for h in plain.hits] == [h.path for h in plain.hits], "deterministic"
    assert {h.path for h in result.hits if h.low_relevance} == {h.path for h in result.hits if not h.signals.met}


@pytest.mark.parametrize("query", ["", "   ", "!!! ??"])
def test_a_browse_without_words_marks_nothing_low(store, query):
    """An empty (or wordless) query lists by recency and salience: there is nothing to be relevant
    to, so the floor marks no hit and the header carries no floor line (the window showed every
    row of a browse muted as "low relevance")."""
    result = store.search(query, limit=10)
    assert result.hits, "a browse still lists memories"
    assert not any(h.low_relevance for h in result.hits)
    assert result.relevance is None
    asked = store.search("drain vip", limit=10)
    assert asked.relevance is not None and any(h.low_relevance for h in asked.hits)


def test_a_tag_or_entity_the_query_names_meets_the_floor(store):
    result = store.search("billing service", limit=20)
    invoices = next(h for h in result.hits if h.path == "resources/billing/invoices.html")
    assert "service:billing-service" in invoices.signals.named
    tagged = store.search("oncall", limit=20)
    staging = next(h for h in tagged.hits if h.path == "areas/oncall/drain-staging.html")
    assert staging.signals.named == ("oncall",)


def test_header_diagnostics_are_over_the_candidates(store):
    result = store.search("drain vip", limit=5)
    cosines = [h.signals.cosine for h in result.hits if h.signals.cosine is not None]
    r = result.relevance
    assert r.candidates >= len(result.hits)
    assert r.top_cosine >= max(cosines)
    assert min(cosines) <= r.top_cosine and r.median_cosine <= r.top_cosine
    assert r.floor_cosine == 0.45  # the hash embedder's calibrated floor
    data = result.to_json()["relevance"]
    assert set(data) == {"floor_cosine", "below_floor", "top_cosine", "median_cosine", "candidates"}
    assert statistics.median(cosines) <= r.top_cosine


def test_without_a_query_vector_the_floor_reads_words_and_names(store_root, make_store):
    from .conftest import FailingEmbedder

    build(store_root)
    store = make_store(store_root, embedder=FailingEmbedder())
    store.index()
    result = store.search("drain vip")
    assert result.degraded and result.relevance.top_cosine is None
    assert all(h.signals.cosine is None for h in result.hits)
    assert not next(h for h in result.hits if h.path == "areas/oncall/drain.html").low_relevance


def test_match_count_stops_at_its_cap(store, monkeypatch):
    from memhtml_desktop.index import relevance

    monkeypatch.setattr(relevance, "MATCH_COUNT_CAP", 5)
    result = store.search("cafeteria soup")
    assert result.matches.count == 5 and result.matches.capped
    assert store.search("drain vip").matches.capped is False
