"""Row-level rules of `index/src/project.ts`: word count, disclosure, entities, edges, dedup.

Pure functions over already-extracted values, shared by `project.py` (index rows) and
`detail.py` (the reader pane), so both show the same entities and edges for the same file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from memhtml_desktop.domain.paths import normalize_path
from memhtml_desktop.html.constraints import Head
from memhtml_desktop.html.extract import ArticleFacts
from memhtml_desktop.html.jsnum import JS_SPACE_RUN, js_trim
from memhtml_desktop.html.vocabulary import rel_for_token

T = TypeVar("T")

_SPLIT_DISAGREES = re.compile("[\x1c-\x1f\x85\ufeff]")

#: Separator inside the first-occurrence dedup keys of entities, facets and edges (spec §3.4,
#: §3.5, §3.7). The TypeScript builds these keys as one template string per row.
KEY_SEP = " "


def word_count(body_text: str) -> int:
    """Pieces of the JS-trimmed body split on JS whitespace runs; NBSP splits words here.

    Python's `str.split()` agrees with JS `\\s` except on U+001C-U+001F and U+0085 (Python only)
    and U+FEFF (JS only), so it is the fast path whenever none of those occurs.
    """
    if _SPLIT_DISAGREES.search(body_text) is None:
        return len(body_text.split())
    trimmed = js_trim(body_text)
    return 0 if trimmed == "" else len(JS_SPACE_RUN.split(trimmed))


def disclosure_text(facts: ArticleFacts) -> str:
    """What recall may quote: gist, summaries, every facet and citation (not deduplicated).

    Details bodies, asides and figcaptions never appear: a fold is provenance, an aside a caveat.
    """
    lines = [facts.gist, *facts.summary_texts]
    lines += [f"{name}: {value}" for name, value, _ in facts.facets]
    lines += [text for text, _ in facts.citations]
    return "\n".join(line for line in map(js_trim, lines) if line != "")


def parse_entity(entity: str) -> tuple[str, str]:
    """Split at the first `:`; no colon, or a colon first or last, is `("unknown", entity)`."""
    at = entity.find(":")
    if at <= 0 or at == len(entity) - 1:
        return "unknown", entity
    return entity[:at], entity[at + 1 :]


def entity_rows(meta_entities: list[str], facts: ArticleFacts) -> list[tuple[str, str]]:
    """Meta entities, then `concept:` per `<dfn>`, then `lang:` per `<code data-lang>`; deduped."""
    rows = [parse_entity(e) for e in (js_trim(value) for value in meta_entities) if e != ""]
    rows += [("concept", t) for t in (js_trim(term) for term in facts.defined_terms) if t != ""]
    rows += [("lang", lang) for lang in facts.code_langs]
    return dedupe_by(rows, lambda row: row[0] + KEY_SEP + row[1])


def authored_edges(head: Head, path: str) -> list[tuple[str, str]]:
    """`(rel, dst_path)` per valid head link; self-loops and empty targets dropped, deduped."""
    edges = []
    for link in head.links:
        token = link.attrs.get("rel")
        href = link.attrs.get("href")
        if token is None or href is None:
            continue
        rel = rel_for_token(token)
        if rel is None:
            continue
        dst = normalize_path(href)
        if dst and dst != path:
            edges.append((rel, dst))
    return dedupe_by(edges, lambda edge: edge[0] + KEY_SEP + edge[1])


def dedupe(values: Iterable[str]) -> list[str]:
    """Exact, case-sensitive dedup; the first occurrence wins and order is kept."""
    return list(dict.fromkeys(values))


def dedupe_by(values: Iterable[T], key: Callable[[T], str]) -> list[T]:
    """First occurrence per key, order kept. Done here, not by the database: a duplicate primary
    key would fail the whole write batch, not just this row."""
    seen: set[str] = set()
    out = []
    for value in values:
        k = key(value)
        if k not in seen:
            seen.add(k)
            out.append(value)
    return out
