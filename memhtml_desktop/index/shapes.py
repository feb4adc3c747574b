"""The other pack shapes over a store: quota ledgers, the catalogue, expand, and all of them at once.

Each is built on the calls the window and the CLI already make, as they are: the quota pack folds
the very candidates `Store.recall` folds (its pool, in its order: the pack's memories, then its
arcs, so a synthesis never outranks the evidence it summarises), plus the resident ledgers' own
memories; the catalogue lists `Store.search`'s page of k. Only the facts those calls do not return
are read here (index/shape_reads.py), and nothing is written: no shape counts as a read.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from memhtml_desktop.domain.catalogue import LEAD, Catalogue, CatalogueEntry, list_within, one_line, question_kind
from memhtml_desktop.domain.disclosure import smallest_capsule
from memhtml_desktop.domain.fts_query import FtsQuery
from memhtml_desktop.domain.quotas import SEED, LedgerMap, QuotaCandidate, QuotaPack, fold_quotas
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.domain.shapes import ShapeComparison, costs
from memhtml_desktop.domain.types import RecallPack, Scope, SearchResult
from memhtml_desktop.index import shape_reads

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import RankingStore

CATALOGUE_K = 10


def read_ledger_map(root, path=None, *, lenient: bool = False, notice=None) -> LedgerMap:
    """The map at `path` (a file the user named: anywhere, but a regular file under the cap), else
    the store's `.memhtml-desktop/ledgers.json` (through the store's guard: inside the store, a
    regular file, at most 1 MB), else the seed's when the store has none.

    Whatever keeps a map from being used is a LedgerMapError naming the file (and the line, when it
    is in the text): never an OSError, a RecursionError or a plain ValueError, never a hang on a FIFO,
    never a read of /dev/zero or of a 100 MB file. `lenient` (the window): the seed's map instead,
    its `note` saying why, and the same sentence once to `notice`. The CLI is strict: a map asked
    for and not usable is an error, so a curator's broken file is never silently replaced."""
    from memhtml_desktop.domain.quotas import MAX_FILE_BYTES, STORE_FILE, LedgerMapError, parse_ledger_map
    from memhtml_desktop.guarded import Unreadable, read_guarded

    source = STORE_FILE if path is None else str(path)
    try:
        try:
            if path is None:
                data = read_guarded(STORE_FILE, root=root, cap=MAX_FILE_BYTES, what=STORE_FILE)
            else:
                data = read_guarded(path, cap=MAX_FILE_BYTES, what=source)
        except FileNotFoundError:
            if path is None:
                return SEED  # no map of the store's own: the seed's, nothing to say
            raise LedgerMapError("no such file", 0, source) from None
        except Unreadable as exc:
            raise LedgerMapError(str(exc).removeprefix(source + " "), 0, source) from None
        except OSError as exc:
            raise LedgerMapError(f"cannot be read ({exc.strerror or exc})", 0, source) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise LedgerMapError("not UTF-8 text (a ledger map is a JSON object)", 0, source) from None
        return parse_ledger_map(text, source=source)
    except LedgerMapError as error:
        if not lenient:
            raise
        said = f"{error}; the seed's ledger map is used instead"
        if notice is not None:
            notice(said)
        return replace(SEED, note=said)


def _pool_ranks(pack: RecallPack) -> dict[str, int]:
    order = [i.path for i in pack.memories.items] + [i.path for i in pack.arcs.items]
    return {path: rank for rank, path in enumerate(order, start=1)}


def quotas_from(
    store: RankingStore, pack: RecallPack, budget: int, ledger_map: LedgerMap, profile: RankingProfile
) -> tuple[QuotaPack, list[QuotaCandidate]]:
    """Fold `pack`'s candidates and the resident ledgers into four ledgers under `budget`; also
    the pool's candidates, in the pack's order."""
    conn = store.reader()
    ranks = _pool_ranks(pack)
    with conn:  # one snapshot for the pool's facts and the resident memories
        found = shape_reads.candidates(conn, list(ranks), ranks)
        resident, totals = shape_reads.resident(
            conn, pack.scope, ledger_map, cache_key=str(store.index_path), cache=store.caches.resident
        )
    pool = [found[p] for p in ranks if p in found]
    folded = fold_quotas(
        pack.query,
        pool,
        resident,
        totals,
        budget,
        ledger_map,
        max_per_entity=profile.max_per_entity,
        scope=pack.scope,
        degraded_reasons=pack.degraded_reasons,
        ranking=pack.ranking,
    )
    return folded, pool


def quota_pack(
    store: RankingStore,
    query: str,
    scope: Scope | None,
    *,
    budget: int | None,
    limit: int,
    ranking: RankingProfile | None,
    ledgers: LedgerMap | None,
) -> QuotaPack:
    started = time.perf_counter()
    profile = ranking or store.ranking
    budget = profile.recall_budget if budget is None else max(0, int(budget))
    pack = store.recall(query, scope, budget=budget, limit=limit, ranking=profile)
    out, _ = quotas_from(store, pack, budget, ledgers or SEED, profile)
    return replace(out, elapsed_ms=(time.perf_counter() - started) * 1000)


def catalogue_from(
    store: RankingStore,
    result: SearchResult,
    *,
    k: int,
    budget: int,
    profile: RankingProfile | None = None,
    fts: FtsQuery | None = None,
) -> Catalogue:
    """The catalogue of a search page: each hit's line and what expanding it costs, under `budget`;
    whether the question is specific or vague, from what it matched under `profile` (the page's;
    `fts`: the query as the page's Answer parsed it, so it is not parsed again)."""
    paths = [h.path for h in result.hits]
    expanded = shape_reads.expansions(store.reader(), paths)
    entries = [
        CatalogueEntry(
            rank,
            h.path,
            one_line(h.title),
            one_line(h.gist),
            h.memory_type,
            expanded[h.path].cost if h.path in expanded else 0,
        )
        for rank, h in enumerate(result.hits, start=1)
    ]
    profile = profile or store.ranking
    every = store.retriever().every_word_count(result.query, result.scope, profile, fts=fts)
    kind, why = question_kind(
        every.form,
        every.count + int(every.capped),
        k,
        [h.score for h in result.hits],
        LEAD.get(profile.fusion, LEAD["rrf"]).get(getattr(store.embedder, "model_id", None)),
    )
    return Catalogue(
        result.query,
        result.scope,
        k,
        max(0, int(budget)),
        list_within(entries, budget),
        result.degraded_reasons,
        result.ranking,
        kind,
        why,
    )


def catalogue(
    store: RankingStore, query: str, scope: Scope | None, *, k: int, budget: int | None, ranking: RankingProfile | None
) -> Catalogue:
    started = time.perf_counter()
    profile = ranking or store.ranking
    budget = profile.recall_budget if budget is None else max(0, int(budget))
    result = store.search(query, scope, limit=k, ranking=profile)
    out = catalogue_from(store, result, k=k, budget=budget, profile=profile)
    return replace(out, elapsed_ms=(time.perf_counter() - started) * 1000)


def compare(
    store: RankingStore,
    query: str,
    scope: Scope | None,
    *,
    budget: int | None,
    limit: int,
    k: int,
    ranking: RankingProfile | None,
    ledgers: LedgerMap | None,
    answer: Answer | None = None,
) -> ShapeComparison:
    """Every shape for one query and budget: one recall (memhtml's pack and the quota ledgers fold
    the same candidates) and one search (the catalogue), then the costs side by side.

    `answer`: the window's search of this query (domain/results.py). Its parsed query serves the
    recall, and its page is the catalogue's when it was ranked `k` deep by this profile (no second
    search)."""
    profile = ranking or store.ranking
    budget = profile.recall_budget if budget is None else max(0, int(budget))
    fts = answer.fts if answer is not None else None
    pack = store.recall(query, scope, budget=budget, limit=limit, ranking=profile, fts=fts)
    quotas, pool = quotas_from(store, pack, budget, ledgers or SEED, profile)
    page = (
        answer.result
        if answer is not None and answer.limit == k and answer.result.ranking == profile.name
        else store.search(query, scope, limit=k, ranking=profile)
    )
    cat = catalogue_from(store, page, k=k, budget=budget, profile=profile, fts=fts)
    memories = {i.path for i in pack.memories.items}
    smallest = smallest_capsule([c.fold for c in pool if c.path in memories])
    return ShapeComparison(pack.query, budget, pack, quotas, cat, costs(pack, quotas, cat, smallest=smallest))
