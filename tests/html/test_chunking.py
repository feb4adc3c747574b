"""Chunking in UTF-16 code units (spec §5)."""

from __future__ import annotations

import hashlib

from memhtml_desktop.html.chunking import CHUNK_MAX_CHARS, chunk_id_for, chunk_text

HASH = "sha256:" + "0" * 64


def test_empty_and_blank_give_no_chunks() -> None:
    assert chunk_text("", HASH) == []
    assert chunk_text(" \u00a0\n", HASH) == []


def test_short_body_is_one_trimmed_chunk() -> None:
    [chunk] = chunk_text("  One fact.  ", HASH)
    assert (chunk.ordinal, chunk.text, chunk.char_count) == (0, "One fact.", 9)
    assert chunk.chunk_id == hashlib.sha256(f"{HASH}:0".encode()).hexdigest()
    assert chunk_id_for(HASH, 3) == hashlib.sha256(f"{HASH}:3".encode()).hexdigest()


def test_exactly_the_ceiling_is_one_chunk() -> None:
    assert len(chunk_text("a" * CHUNK_MAX_CHARS, HASH)) == 1
    assert [c.char_count for c in chunk_text("a" * (CHUNK_MAX_CHARS + 1), HASH)] == [1800, 1]


def test_sentences_pack_greedily_without_overlap() -> None:
    sentence = "x" * 899 + "."
    chunks = chunk_text(" ".join([sentence] * 5), HASH)
    # Two 900-char sentences joined by a space are 1801 > 1800, so each chunk holds one.
    assert [c.char_count for c in chunks] == [900] * 5
    short = "Ab. " * 600
    chunks = chunk_text(short, HASH)
    assert all(c.char_count <= CHUNK_MAX_CHARS for c in chunks)
    assert " ".join(c.text for c in chunks) == short.strip()


def test_astral_characters_count_twice_and_hard_cuts_split_pairs() -> None:
    body = "😀" * 1000  # 2000 UTF-16 units, no sentence breaks: one hard cut at 1800 units
    chunks = chunk_text(body, HASH)
    assert [c.char_count for c in chunks] == [1800, 200]
    assert chunks[0].text == "😀" * 900
    odd = "a" + "😀" * 1000  # the cut at 1800 lands between the halves of a pair
    first, second = chunk_text(odd, HASH)
    assert (first.char_count, second.char_count) == (1800, 201)
    assert first.text.endswith("\ufffd") and second.text.startswith("\ufffd")


def test_split_uses_js_whitespace() -> None:
    body = ("y" * 1000 + ".\u3000") + ("z" * 1000 + ".")
    assert [c.char_count for c in chunk_text(body, HASH)] == [1001, 1001]
    body = ("y" * 1000 + ".\x1c") + ("z" * 1000 + ".")  # U+001C is not JS whitespace
    assert [c.char_count for c in chunk_text(body, HASH)] == [1800, 203]
