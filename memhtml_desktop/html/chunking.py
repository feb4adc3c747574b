"""Chunking of `body_text` and the chunk id (`index/src/chunking.ts`, spec §5).

Lengths are JS lengths, i.e. UTF-16 code units, everywhere: the 1800 ceiling, the packing test,
the hard cut and `char_count`. For text with characters above U+FFFF the work happens on a
surrogate-split copy (`to_utf16_units`) so a hard cut can split a pair exactly as `String.slice`
does; the half pair is stored as U+FFFD, which is what node writes for a lone surrogate.

There is no overlap. A memory is one fact, so the usual case is a single chunk 0 holding the whole
trimmed body, and the embedding is a function of the article.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from memhtml_desktop.html.jsnum import (
    JS_SPACE_CLASS,
    JS_WHITESPACE,
    from_utf16_units,
    to_utf16_units,
    utf16_len,
)

CHUNK_MAX_CHARS = 1800
_SENTENCE_GAP = re.compile(r"(?<=[.!?])" + JS_SPACE_CLASS + "+")


@dataclass(frozen=True, slots=True)
class Chunk:
    chunk_id: str
    ordinal: int
    text: str
    char_count: int  # UTF-16 code units


def chunk_id_for(content_hash: str, ordinal: int) -> str:
    """`sha256_hex(f"{content_hash}:{ordinal}")`; the hash keeps its `sha256:` prefix here."""
    return hashlib.sha256(f"{content_hash}:{ordinal}".encode()).hexdigest()


def chunk_text(text: str, content_hash: str, max_chars: int = CHUNK_MAX_CHARS) -> list[Chunk]:
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        return []
    if utf16_len(trimmed) <= max_chars:
        pieces = [(trimmed, utf16_len(trimmed))]
    else:
        units = to_utf16_units(trimmed)
        pieces = [(from_utf16_units(p), len(p)) for p in _pack(_split(units, max_chars), max_chars)]
    return [
        Chunk(chunk_id_for(content_hash, ordinal), ordinal, piece, count)
        for ordinal, (piece, count) in enumerate(pieces)
    ]


def _split(units: str, max_chars: int) -> list[str]:
    """Sentence-ish pieces, JS-trimmed, blanks dropped, each hard-cut to at most `max_chars`."""
    out = []
    for sentence in _SENTENCE_GAP.split(units):
        piece = sentence.strip(JS_WHITESPACE)
        if not piece:
            continue
        if len(piece) <= max_chars:
            out.append(piece)
        else:
            out.extend(piece[at : at + max_chars] for at in range(0, len(piece), max_chars))
    return out


def _pack(units: list[str], max_chars: int) -> list[str]:
    """Greedy packing joined by one space, never exceeding `max_chars`."""
    chunks = []
    current = ""
    for unit in units:
        candidate = unit if current == "" else f"{current} {unit}"
        if len(candidate) <= max_chars:
            current = candidate
            continue
        if current:
            chunks.append(current)
        current = unit
    if current:
        chunks.append(current)
    return chunks
