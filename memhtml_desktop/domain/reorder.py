"""After fusion: polarity, twin resolution, MMR and newer first over the fused pool, as a profile says.

One pure function shared by search and recall (and by the evaluation runner), so a ranking change
cannot reach one entry point and miss another. Each step is a knob of the `RankingProfile`:

1. polarity (the seeds' step): a near-twin saying the opposite of the query sinks below the
   twin that agrees;
2. twin resolution (`domain.twins`): near-twins are re-seated in their own slots by how far each
   one's headline (title and claim: what a memory says about itself in a line) deviates from the
   query's words;
3. MMR (`domain.mmr`): the greedy trade of relevance against redundancy. Relevance is the rank
   proxy `1 / (position + 1)` memhtml uses, carried by the slot (so a twin that took the top slot
   takes its relevance too), halved-or-less for a polarity-demoted twin. With the
   `near_duplicate` redundancy only similarity above the twin threshold is redundancy, and arcs
   are exempt;
4. newer first (`domain.newer_first`): of two memories that contradict each other, the newer (or
   the one whose value the query names) goes first, over the whole pool in its order so far (MMR's
   picks, then the candidates it did not pick), so a newer memory below the page is lifted to just
   above its older on it.

Every position change is recorded as a `Move` with its reason, so the explanation the window
shows is what the code did, not a reconstruction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import regex

from memhtml_desktop.domain import text_memo
from memhtml_desktop.domain.contradiction import Statement
from memhtml_desktop.domain.mmr import CosineTable, MmrCandidate, apply_mmr
from memhtml_desktop.domain.newer_first import Pair, contradicting_pairs, newer_first
from memhtml_desktop.domain.polarity import PolarityCandidate, polarity_reorder
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.signals import Move
from memhtml_desktop.domain.stopwords import STOPWORD_SET
from memhtml_desktop.domain.twins import TwinCandidate, resolve_twins


@dataclass(frozen=True)
class PoolItem:
    """A fused candidate, in fused order: its key (the path), claim, vector, whether it is an arc,
    and what the contradiction rule reads of it (None: it takes part in no contradiction)."""

    key: str
    claim: str
    vector: np.ndarray | None
    arc: bool = False
    title: str = ""
    statement: Statement | None = None


@dataclass
class Reordered:
    """`order`: indexes into the pool, the first `limit` after every step. `moves[i]`: the steps
    that changed item i's position, in order. `before_mmr`: the full pool order MMR was given."""

    order: list[int]
    moves: dict[int, list[Move]] = field(default_factory=dict)
    before_mmr: list[int] = field(default_factory=list)


_WORD = regex.compile(r"[\p{L}\p{N}]+")


@text_memo.per_text
def _content_words(text: str) -> frozenset[str]:
    """The sanitised words (the lexical arm's words) that are not function words; cached, since
    the same titles and claims come back search after search, and a workbench run or optimizer
    trial meets tens of thousands of them (the three text caches hold 32,768 entries each)."""
    return frozenset(w for w in text_memo.words(_WORD.findall(text.lower())) if w not in STOPWORD_SET)


def known_items(query: str, items: Sequence[PoolItem]) -> list[bool]:
    """Which items hold every content word of the query in their claim or title.

    Those are what a person looking for one memory they know types: the words they remember are
    its title's or its claim's. MMR keeps such an item where it stood (`mmr_keeps_known_items`).
    A query with no content word names no item.
    """
    wanted = _content_words(query)
    if not wanted:
        return [False] * len(items)
    return [wanted <= _content_words(f"{it.title} {it.claim}") for it in items]


def _record(moves: dict[int, list[Move]], old: list[int], new: list[int], make) -> None:
    at = {item: p for p, item in enumerate(old, start=1)}
    for p, item in enumerate(new, start=1):
        if at.get(item, p) != p:
            moves.setdefault(item, []).append(make(item, at[item], p))


def reorder(
    query: str,
    items: Sequence[PoolItem],
    profile: RankingProfile,
    *,
    model_id: str | None,
    limit: int,
    table: CosineTable | None = None,
    pairs: Sequence[Pair] | None = None,
) -> Reordered:
    """Run the profile's post-fusion steps over `items` (fused order) and keep `limit` of them.

    `table` may carry the items' cosines already computed (in item order): the workbench's
    re-ranker reuses one table per probe across configurations (`CosineTable.subset`). `pairs`:
    the items' contradicting pairs already judged (`newer_first.contradicting_pairs`, which the
    search needs for its marks under every profile); None judges them here when the step runs."""
    n = len(items)
    order = list(range(n))
    moves: dict[int, list[Move]] = {}
    if limit <= 0 or n == 0:
        return Reordered([], moves, order)
    relevance = [1.0 / (p + 1) for p in range(n)]  # per item, by fused position
    if table is None:
        table = CosineTable([it.vector for it in items])  # every pair once, shared by the three steps
    if profile.polarity:
        out = polarity_reorder(
            query,
            [PolarityCandidate(it.key, it.claim, relevance[i], it.vector) for i, it in enumerate(items)],
            cosine=profile.polarity_cosine.get(model_id),
            demotion=profile.polarity_demotion,
            table=table,
        )
        _record(
            moves,
            order,
            out.order,
            lambda i, a, b: Move("polarity", a, b, twin=items[out.demoted[i]].key if i in out.demoted else None),
        )
        order, relevance = list(out.order), list(out.relevance)
    slot_relevance = [relevance[i] for i in order]  # relevance belongs to the slot from here on
    if profile.twins:
        out_t = resolve_twins(
            query,
            [TwinCandidate(items[i].key, f"{items[i].title}\n{items[i].claim}", items[i].vector) for i in order],
            profile.twin_cosine.get(model_id),
            profile.twin_overlap,
            table.view(order),
        )
        seated = [order[j] for j in out_t.order]
        decisions = {order[j]: d for j, d in out_t.decisions.items()}

        def twin_move(i: int, a: int, b: int) -> Move:
            d = decisions.get(i)
            if d is None:
                return Move("twins", a, b)
            return Move(
                "twins",
                a,
                b,
                twin=items[order[d.twin]].key,
                lacks=d.lacks,
                adds=d.adds,
                matches=d.matches,
                twin_adds=d.twin_adds,
            )

        _record(moves, order, seated, twin_move)
        order = seated
    before_mmr = list(order)
    if profile.mmr_lambda < 1.0:
        near = profile.mmr_redundancy == "near_duplicate"
        known = known_items(query, items) if profile.mmr_keeps_known_items else []
        picks = apply_mmr(
            [MmrCandidate(items[i].key, slot_relevance[p], items[i].vector) for p, i in enumerate(order)],
            limit,
            profile.mmr_lambda,
            floor=profile.twin_cosine.get(model_id) if near else 0.0,
            exempt=[items[i].arc for i in order] if near else None,
            fixed=[known[i] for i in order] if profile.mmr_keeps_known_items else None,
            table=table.view(order),
        )
        chosen = [order[p] for p in picks]
        _record(moves, order, chosen, lambda i, a, b: Move("mmr", a, b))
        picked = set(chosen)
        order = chosen + [i for i in before_mmr if i not in picked]  # the page, then what MMR left
    if profile.newer_first:
        if pairs is None:
            pairs = contradicting_pairs([it.statement for it in items], vectors=[it.vector for it in items])
        out_n = newer_first(query, order, pairs, [it.key for it in items])
        for i, move in out_n.moves.items():
            moves.setdefault(i, []).append(move)
        order = out_n.order
    return Reordered(order[:limit], moves, before_mmr)
