"""Fullwidth and accented queries (issue 41, item 7), on real stores and real SQLite.

"ｄｒａｉｎ ｔｈｅ ｖｉｐ" found nothing: unicode61 (both lexical indexes' tokenizer, memhtml's
too) strips accents but folds no compatibility character, and the query was read as typed. The
query's words are now NFKC-folded, with the unfolded reading bound beside them (so a memory
written in fullwidth is still found by a fullwidth query, as memhtml finds it); the index is left
exactly as memhtml projects it. Both profiles, the hash and the vector-free lexical arm alone.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from tests.memfiles import write_memory

DRAIN = "areas/oncall/drain.html"
CAFE = "areas/food/cafe.html"
KIOSK = "areas/food/kiosk.html"


def lexical_only(profile):
    return replace(
        profile,
        arms=tuple(replace(a, weight=a.weight if a.name == "fts" else 0.0) for a in profile.arms),
        gate_priors=False,
    )


@pytest.fixture
def store(store_root, make_store):
    write_memory(
        store_root,
        DRAIN,
        title="Prod rollbacks drain the VIP",
        claim="If a prod rollback is issued, drain the VIP before reverting the deploy.",
    )
    write_memory(
        store_root, CAFE, title="The café opens at nine", claim="The café on the corner serves breakfast from nine."
    )
    write_memory(store_root, KIOSK, title="ｋｉｏｓｋ ｈｏｕｒｓ", claim="The ｋｉｏｓｋ opens at ｓｅｖｅｎ.")
    write_memory(store_root, "areas/misc/other.html", title="Pager etiquette", claim="Acknowledge a page quickly.")
    made = make_store(store_root, embedder=HashEmbedder())
    made.index()
    return made


def fts_paths(store, query, profile):
    result = store.search(query, limit=10, ranking=lexical_only(profile))
    return [h.path for h in result.hits if any(a.arm == "fts" and a.rank is not None for a in h.arms)]


@pytest.mark.parametrize("profile", [DEFAULT, MEMHTML], ids=lambda p: p.name)
@pytest.mark.parametrize("query", ["ｄｒａｉｎ ｔｈｅ ｖｉｐ", "ＤＲＡＩＮ the ｖｉｐ", "drain the vip"])
def test_fullwidth_finds_what_ascii_finds(store, profile, query):
    assert fts_paths(store, query, profile)[:1] == [DRAIN]


@pytest.mark.parametrize("profile", [DEFAULT, MEMHTML], ids=lambda p: p.name)
@pytest.mark.parametrize("query", ["café", "cafe", "CAFÉ", "cafe\u0301", "ｃａｆｅ"])
def test_accents_and_their_absence_meet(store, profile, query):
    assert fts_paths(store, query, profile)[:1] == [CAFE]


@pytest.mark.parametrize("profile", [DEFAULT, MEMHTML], ids=lambda p: p.name)
def test_a_memory_written_in_fullwidth_is_still_found_as_memhtml_finds_it(store, profile):
    assert fts_paths(store, "ｋｉｏｓｋ", profile)[:1] == [KIOSK]


def test_the_fold_changes_only_the_query():
    fts = parse_fts_query("ｄｒａｉｎ ｔｈｅ ｖｉｐ")
    assert fts.words == ("drain", "the", "vip") and fts.raw is not None and fts.raw.words[0] == "ｄｒａｉｎ"
    assert fts.all_form == '("drain" AND "vip") OR ("ｄｒａｉｎ" AND "ｔｈｅ" AND "ｖｉｐ")'
    plain = parse_fts_query("drain the vip")
    assert plain.raw is None and plain.all_form == '"drain" AND "vip"'  # an ASCII query binds as before
    assert parse_fts_query("ﬁle x²").words == ("file", "x2")
    assert parse_fts_query(" ".join(f"ｗ{i}" for i in range(100))).first(3).raw.terms == (("ｗ0",), ("ｗ1",), ("ｗ2",))
