"""The words above the list: the legend of the arms, the count line and the relevance floor's line."""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.domain.types import SearchResult
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.results.results_model import ARM_NAMES


def legend_html(profile: RankingProfile = DEFAULT) -> str:
    """The arms' colours and the active profile's weights."""
    items = []
    for arm in ARM_NAMES:
        color = palette.ARM_COLORS.get(arm, "#777")
        items.append(
            f'<span style="color:{color}">\u25a0</span>&nbsp;{html.escape(palette.ARM_LABELS.get(arm, arm))}'
            f'&nbsp;<span style="color:{palette.muted_color().name()}">\u00d7{profile.weight(arm):g}</span>'
        )
    return "&nbsp;&nbsp; ".join(items)


def summary_text(result: SearchResult, pool: Any, indexing: tuple[int, int] | None = None) -> str:
    """The count line, its parts joined (see `summary_parts`)."""
    return SEP.join(summary_parts(result, pool, indexing))


SEP = " \u00b7 "


def summary_parts(result: SearchResult, pool: Any, indexing: tuple[int, int] | None = None) -> list[str]:
    """ "10 of 1,284 matching all the words", "47 ms": the count line in the parts a narrow header
    drops from the end (a part is never cut in the middle: at 1024 px the line was cut to "(…").
    How many memories in scope hold the query's words is the answer's own count
    (`SearchResult.matches`) until the pool arrives with the in-scope total.

    `indexing`: (files indexed, files found) of a first index running now, newer than the answer's
    own figures (issue 41: the line stayed at "1,500 of 20,000" while the status bar said 15,500)."""
    n = len(result.hits)
    ms = f"{result.elapsed_ms:.0f} ms"
    index = getattr(result, "index", None)
    if index is not None and not index.complete:
        # the first index is under way: "no memory holds the words" would be a verdict on a half-read store
        done, seen = indexing if indexing else (index.files or 0, index.seen)
        so_far = f"{done:,} of {counted(seen, 'file')}" if seen else counted(done, "file")
        parts = [f"{counted(n, 'hit')} so far", f"the index is still being built ({so_far})"]
        if indexing and (index.files or 0) < done:
            parts.append(f"listed at {index.files or 0:,}")
        return parts + [ms]
    if result.scope_empty:  # the archived banner takes the list's place: the header agrees with it
        n_arch = result.archived_matches
        also = (
            f"; {counted(n_arch, 'archived memory', 'archived memories', verb=('matches', 'match'))} them (below)"
            if n_arch
            else ""
        )
        return ["0 hits", f"no live memory in these filters{also}", ms]
    if pool is not None:
        matches, capped, form = pool.matches, pool.matches_capped, pool.fts_form
    else:
        count = getattr(result, "matches", None)
        if count is None or count.form is None:
            return [counted(n, "hit"), ms]
        matches, capped, form = count.count, count.capped, count.form
    if matches is None:
        return [f"{n} of {pool.in_scope:,} in scope", "no words: by recency and salience", ms]
    if matches == 0:
        return [counted(n, "hit"), "no memory holds the words", ms]
    more = "+" if capped else ""
    form = "all the words" if form == "all" else "any word"
    if matches < n:
        return [counted(n, "hit"), f"only {matches:,} match {form}", ms]
    return [f"{n} of {matches:,}{more} matching {form}", ms]


def index_reason(reasons: tuple[str, ...], index: Any, indexing: tuple[int, int] | None) -> tuple[str, ...]:
    """The answer's degraded reasons, its "index: incomplete" one with the first index's figures now."""
    if not indexing or index is None or index.complete:
        return tuple(reasons)
    old = index.reason()
    now = replace(index, files=indexing[0], seen=indexing[1]).reason()
    if (index.files or 0) < indexing[0]:
        now = now.removesuffix(")") + f"; listed at {index.files or 0:,})"
    return tuple(now if r == old else r for r in reasons)


def floor_text(result: SearchResult) -> tuple[str, str]:
    """The relevance floor's diagnostics (seed 003, 6.6) as the header's second line, and its tooltip:
    "2 of 10 below the relevance floor · top cosine 0.612 · median 0.318"."""
    summary = getattr(result, "relevance", None)
    if summary is None or not result.hits:
        return "", ""
    n = len(result.hits)

    def c(value: float | None) -> str:
        return "\u2014" if value is None else f"{value:.3f}"

    below = summary.below_floor
    head = f"{below} of {n} below the relevance floor" if below else "every hit meets the relevance floor"
    text = f"{head} \u00b7 top cosine {c(summary.top_cosine)} \u00b7 median {c(summary.median_cosine)}"
    tip = (
        f"The relevance floor marks a hit that meets none of its raw signals: a word of the query in it, "
        f"a raw cosine of at least {summary.floor_cosine:g} (this embedder's floor), a tag or entity the "
        "query names. Marked hits stay where the ranking put them (an agent receives them too).\n"
        f"Top and median raw cosine over the {summary.candidates} fused candidates: a small gap means the "
        "pool sits in one similarity band."
    )
    return text, tip
