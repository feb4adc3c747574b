"""Running ranking probes against a store: the discrimination gate and known-item search.

Qt-free and front-end-free: the `eval` command (through `Store.evaluate` and
`Store.known_item_report`), the gate in the test suite and a later relevance workbench all run
`run_probes` and `run_known_items` with a store and a `RankingProfile`, and read the figures from
`domain.metrics`. Probes are `domain.probes.EvalProbe` values; `load_probes` reads a file of them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from random import Random
from typing import Sequence

import numpy as np

from memhtml_desktop.domain.fts_query import parse_fts_query
from memhtml_desktop.domain.metrics import (
    GateReport,
    KnownItem,
    KnownItemReport,
    known_item_summary,
    probe_outcome,
    summarize,
)
from memhtml_desktop.domain.probes import EvalProbe, ProbeFileError, parse_probes  # noqa: F401 - re-exported
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.stopwords import STOPWORD_SET

EVAL_LIMIT = 40
"""memhtml's gate searches with `limit 40`."""

KNOWN_ITEM_WORDS = 3


def load_probes(path: str | Path) -> list[EvalProbe]:
    """Every probe in a JSON-lines file (see `domain.probes`)."""
    return parse_probes(Path(path).read_text(encoding="utf-8"))


def run_probes(
    store, probes: Sequence[EvalProbe], *, ranking: RankingProfile | None = None, limit: int = EVAL_LIMIT
) -> GateReport:
    """Search each probe's query (its scope, `limit` hits) and rank its target among its controls."""
    outcomes = []
    profile = ranking or store.ranking
    for probe in probes:
        result = store.search(probe.query, probe.scope, limit=limit, ranking=profile)
        paths = [h.path for h in result.hits]
        outcomes.append(
            probe_outcome(
                probe.query,
                paths,
                probe.target,
                probe.controls,
                families=probe.families,
                degraded=result.degraded,
                kind=probe.kind,
            )
        )
    return GateReport(profile.name, limit, outcomes, summarize([o for o in outcomes if o is not None]))


# -- known items ----------------------------------------------------------------------------------


def _content_words(text: str) -> list[str]:
    """Words that are not function words. Negations and qualifiers count: they are the claim's
    words (a person looking for "the compactor does not merge" may well type "not")."""
    return [w for w in parse_fts_query(text.replace('"', " ")).words if w not in STOPWORD_SET]


def _stable_rng(seed: int, path: str) -> Random:
    return Random(int.from_bytes(hashlib.sha1(f"{seed}:{path}".encode()).digest()[:8], "big"))


def twinned_paths(store, paths: Sequence[str], cosine: float) -> set[str]:
    """Which of `paths` have another live memory at cosine >= `cosine` (the twin threshold),
    comparing the vectors twin resolution compares (each file's first embedded chunk)."""
    conn = store.reader()
    with conn:
        snapshot = store.vector_snapshot(conn)
        rows = conn.execute("SELECT path, rowid FROM files WHERE archived = 0 AND memory_type <> 'task'").fetchall()
    vectors = {p: snapshot.file_vector(r) for p, r in rows}
    live = [p for p, v in vectors.items() if v is not None]
    if not live:
        return set()
    matrix = np.stack([vectors[p] for p in live]).astype(np.float64)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    at = {p: i for i, p in enumerate(live)}
    out = set()
    for path in paths:
        if path not in at:
            continue
        sims = matrix @ matrix[at[path]]
        sims[at[path]] = -1.0
        if float(sims.max(initial=-1.0)) >= cosine:
            out.add(path)
    return out


def known_items(
    store, count: int, *, seed: int = 1, words: int = KNOWN_ITEM_WORDS, twin_cosine: float | None = None
) -> list[KnownItem]:
    """`count` memories sampled (seeded) from the default scope, each with a query of `words`
    content words from its claim and another from its title, kept in their order.

    A memory with fewer content words than that gives no query of that source. With
    `twin_cosine`, each item says whether its memory has a near-twin in the store.
    """
    conn = store.reader()
    with conn:
        rows = conn.execute(
            "SELECT path, gist, title FROM files WHERE archived = 0 AND memory_type <> 'task' ORDER BY path"
        ).fetchall()
    picked = Random(seed).sample(rows, min(count, len(rows))) if count < len(rows) else list(rows)
    twins = twinned_paths(store, [r[0] for r in picked], twin_cosine) if twin_cosine is not None else set()
    items: list[KnownItem] = []
    for source, column in (("claim", 1), ("title", 2)):
        for row in picked:
            pool = list(dict.fromkeys(_content_words(row[column] or "")))
            if len(pool) < words:
                continue
            rng = _stable_rng(seed, f"{source}:{row[0]}")
            chosen = sorted(rng.sample(range(len(pool)), words))
            items.append(KnownItem(source, " ".join(pool[i] for i in chosen), row[0], row[0] in twins))
    return items


def run_known_items(
    store, items: Sequence[KnownItem], *, ranking: RankingProfile | None = None, k: int = 10
) -> KnownItemReport:
    """Search each query for one page (`k` hits) and note where its memory landed (MRR@k)."""
    profile = ranking or store.ranking
    ranks: list[tuple[KnownItem, int | None]] = []
    for item in items:
        paths = [h.path for h in store.search(item.query, limit=k, ranking=profile).hits]
        ranks.append((item, paths.index(item.target) + 1 if item.target in paths else None))
    return KnownItemReport(profile.name, known_item_summaries(ranks, k), ranks)


def known_item_summaries(ranks: Sequence[tuple[KnownItem, int | None]], k: int) -> dict:
    """Each source's summary (MRR@k, misses, the twin-free share) of `(item, rank)` pairs."""
    return {
        s: known_item_summary(
            s, [r for it, r in ranks if it.source == s], k, [it.twinned for it, _ in ranks if it.source == s]
        )
        for s in sorted({item.source for item, _ in ranks})
    }
