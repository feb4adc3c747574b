"""The words above the list: the legend of the arms, the count line and the relevance floor's line."""

from __future__ import annotations

import html
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


def summary_text(result: SearchResult, pool: Any) -> str:
    """"10 of 1,284 matching all the words · 47 ms", "10 of 47 in scope …": how many memories in
    scope hold the query's words (the answer's own count, `SearchResult.matches`, until the pool
    arrives with the in-scope total)."""
    n = len(result.hits)
    ms = f"{result.elapsed_ms:.0f} ms"
    index = getattr(result, "index", None)
    if index is not None and not index.complete:
        # the first index is under way: "no memory holds the words" would be a verdict on a half-read store
        so_far = f"{index.files or 0:,} of {index.seen:,}" if index.seen else f"{index.files or 0:,}"
        return f"{counted(n, 'hit')} so far \u00b7 the index is still being built ({so_far} files) \u00b7 {ms}"
    if result.scope_empty:  # the archived banner takes the list's place: the header agrees with it
        n_arch = result.archived_matches
        also = f"; {counted(n_arch, 'archived memory', 'archived memories', verb=('matches', 'match'))} them (below)" if n_arch else ""
        return f"0 hits \u00b7 no live memory in these filters{also} \u00b7 {ms}"
    if pool is not None:
        matches, capped, form = pool.matches, pool.matches_capped, pool.fts_form
    else:
        count = getattr(result, "matches", None)
        if count is None or count.form is None:
            return f"{counted(n, 'hit')} \u00b7 {ms}"
        matches, capped, form = count.count, count.capped, count.form
    if matches is None:
        return f"{n} of {pool.in_scope:,} in scope (no words: by recency and salience) \u00b7 {ms}"
    if matches == 0:
        return f"{counted(n, 'hit')} \u00b7 no memory holds the words \u00b7 {ms}"
    more = "+" if capped else ""
    form = "all the words" if form == "all" else "any word"
    if matches < n:
        return f"{counted(n, 'hit')} \u00b7 only {matches:,} match {form} \u00b7 {ms}"
    return f"{n} of {matches:,}{more} matching {form} \u00b7 {ms}"


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
    head = (f"{below} of {n} below the relevance floor" if below
            else "every hit meets the relevance floor")
    text = f"{head} \u00b7 top cosine {c(summary.top_cosine)} \u00b7 median {c(summary.median_cosine)}"
    tip = (f"The relevance floor marks a hit that meets none of its raw signals: a word of the query in it, "
           f"a raw cosine of at least {summary.floor_cosine:g} (this embedder's floor), a tag or entity the "
           "query names. Marked hits stay where the ranking put them (an agent receives them too).\n"
           f"Top and median raw cosine over the {summary.candidates} fused candidates: a small gap means the "
           "pool sits in one similarity band.")
    return text, tip
