"""Search and recall: the fused statement, then polarity, MMR, snippets and the explanation.

search and recall share one path down to the diversified candidate list (`_candidates`), so a
ranking change cannot reach one and miss the other. Degradation drops arms and never fails: an
embedder that raises is logged and the vector arm leaves the fold; a store without a state plane
loses the salience arm; a query with no letters or digits loses the lexical arm. Each is named in
`degraded_reasons`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import apsw
import numpy as np

from memhtml_desktop.domain import disclosure
from memhtml_desktop.domain.embedder import Embedder, space_of, unavailable_reason
from memhtml_desktop.domain.fts_query import FtsQuery, fold_text, parse_fts_query
from memhtml_desktop.domain.fusion import Part, convex_parts, order_of, prior_signal
from memhtml_desktop.domain.priors import PRIOR_ARMS, gated_order, matches_query
from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.domain.reorder import PoolItem, reorder
from memhtml_desktop.domain.rrf import active_arms
from memhtml_desktop.domain.signals import IndexStatus, MatchCount, Move, RelevanceSummary
from memhtml_desktop.domain.stopwords import QUESTION_WORDS
from memhtml_desktop.domain.types import ArchivedPointer, ArmScore, Hit, RecallPack, Scope, SearchResult, bounded_query
from memhtml_desktop.index import disagreements, hydrate, relevance
from memhtml_desktop.index.answers import word_docs
from memhtml_desktop.index.caches import StoreCaches
from memhtml_desktop.index.db import has_state
from memhtml_desktop.index.lexical_window import LexicalWindow, lexical_window
from memhtml_desktop.index.retrieval_sql import bind_params, build_fts_probe_sql, build_rrf_sql
from memhtml_desktop.index.scope import ScopeSql, assemble_scope
from memhtml_desktop.index.vectors import VectorSnapshot, decode_vec
from memhtml_desktop.index.word_docs import WordDocs

log = logging.getLogger(__name__)

DEFAULT_SEARCH_LIMIT = 10
MAX_LIMIT = 500
# A pasted page must not become a 2,000-term MATCH: past this many terms the rest are dropped
# (the vector arm still sees the whole text).
MAX_FTS_TERMS = 64


@dataclass
class Candidate:
    """A fused candidate as it moves through polarity and MMR."""

    path: str
    rowid: int
    score: float
    fused_position: int
    arms: list[ArmScore]
    row: dict[str, Any]
    vector: np.ndarray | None = None
    moves: list[Move] = field(default_factory=list)
    scored: dict[str, Part] | None = None  # a convex fusion's parts per arm, not yet applied to `arms` (`settle`)


@dataclass
class Pool:
    """What `_candidates` hands to search or recall."""

    query: str
    scope: Scope
    fts_form: str | None
    arms: tuple[str, ...]
    degraded_reasons: tuple[str, ...]
    ordered: list[Candidate]  # final order (after the profile's steps), already cut to the limit
    profile: RankingProfile = DEFAULT
    fused: list[Candidate] = field(default_factory=list)  # the whole fused pool, fused order
    query_vector: np.ndarray | None = None
    snapshot: VectorSnapshot | None = None
    fts: FtsQuery | None = None
    match: str | None = None  # the MATCH text bound to the lexical arm
    scope_sql: ScopeSql | None = None
    index: IndexStatus = IndexStatus()
    cosines: dict[str, float] | None = None  # raw best-chunk cosines of the fused paths, once measured
    pairs: list | None = None  # the fused candidates' contradicting pairs (`domain.newer_first.Pair`)
    window: LexicalWindow | None = None  # the lexical arm's window, as bound to the fused statement

    def match_count(self, conn: apsw.Connection) -> MatchCount:
        """In-scope memories matching the bound MATCH text, capped (`relevance.match_count`): read off
        the lexical window when it saw enough of them, counted in SQL otherwise."""
        known = relevance.counted(self.window.matched, self.window.whole) if self.window is not None else None
        if known is not None:
            return replace(known, form=self.fts_form)
        return relevance.match_count(conn, self.match, self.fts_form, self.scope_sql, self.profile.lexical)


def matchable(fts: FtsQuery) -> FtsQuery:
    """The parsed query the lexical arm binds: its first MAX_FTS_TERMS terms."""
    return fts.first(MAX_FTS_TERMS)


def coverage_sentence(done: int, total: int) -> str:
    """What the header says while vectors are being made: "vectors for 4,210 of 20,000; search
    is words-only for the rest"."""
    return f"vectors for {done:,} of {total:,}; search is words-only for the rest"


class Retriever:
    """Search, recall and explanation over one reader connection (one thread)."""

    def __init__(
        self,
        conn: apsw.Connection,
        embedder: Embedder | None,
        *,
        cache_key: str = "",
        caches: StoreCaches | None = None,
        vector_backend: str = "numpy",
        profile: RankingProfile = DEFAULT,
        salience_bound: bool = True,
    ) -> None:
        self.conn = conn
        # The salience arm scores only its bound list's candidates (index/salience.py); False scans
        # the scope as memhtml's statement does (the tests pin the two together).
        self.salience_bound = salience_bound
        self.embedder = embedder
        # The Store's caches (index/caches.py); a Retriever made without a Store keeps its own.
        self.caches = caches if caches is not None else StoreCaches()
        self.cache = self.caches.vectors
        self.cache_key = cache_key
        # sqlite-vec is only an option where the extension loaded; numpy needs nothing.
        self.vector_backend = (
            "sqlite-vec" if vector_backend == "sqlite-vec" and getattr(conn, "has_vec", False) else "numpy"
        )
        self.profile = profile

    # -- entry points -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        limit: int = DEFAULT_SEARCH_LIMIT,
        ranking: RankingProfile | None = None,
        keep: list | None = None,
        fts: FtsQuery | None = None,
    ) -> SearchResult:
        """`keep`: a list the candidate Pool is appended to (index/pool.py lists it without fusing again);
        `fts`: the query already parsed (`parse_fts_query` of the bounded query: an Answer's)."""
        started = time.perf_counter()
        query, cut = bounded_query(query)
        scope = scope or Scope()
        limit = max(0, min(int(limit), MAX_LIMIT))
        profile = ranking or self.profile
        with self.conn:  # one read transaction: every statement sees the same snapshot
            pool = self._candidates(query, scope, limit, profile, fts=fts)
            pool.degraded_reasons = (cut, *pool.degraded_reasons) if cut else pool.degraded_reasons
            if keep is not None:
                keep.append(pool)
            hits, summary = self._hits(pool)
            matches = MatchCount(pool.fts_form)
            if pool.scope_sql is not None and limit > 0:
                matches = pool.match_count(self.conn)
            scope_empty = not hits and scope.narrowed
            archived_count, archived = (0, ())
            if scope_empty:
                archived_count, archived = self.archived_pointers(scope, limit=max(limit, 1))
        return SearchResult(
            query=query,
            scope=scope,
            fts_form=pool.fts_form,
            arms=pool.arms,
            degraded=bool(pool.degraded_reasons),
            degraded_reasons=pool.degraded_reasons,
            scope_empty=scope_empty,
            archived_matches=archived_count,
            archived=archived,
            hits=tuple(hits),
            elapsed_ms=(time.perf_counter() - started) * 1000,
            ranking=profile.name,
            steps=profile.steps,
            matches=matches,
            index=pool.index,
            relevance=summary,
        )

    def recall(
        self,
        query: str,
        scope: Scope | None = None,
        *,
        budget: int | None = None,
        limit: int = DEFAULT_SEARCH_LIMIT,
        ranking: RankingProfile | None = None,
        fts: FtsQuery | None = None,
    ) -> RecallPack:
        """The pack an agent would receive: the whole pool (`limit` x the pool factor), folded
        (`fts`: the query already parsed, as search takes it).

        memhtml folds all of its fused candidates, so this does too: under the `default` profile
        the pool is first reordered by the same steps as search (the seeds: "recall diversifies
        too"), under `memhtml` it is folded in fused order.
        """
        started = time.perf_counter()
        query, cut = bounded_query(query)
        scope = scope or Scope()
        profile = ranking or self.profile
        budget = profile.recall_budget if budget is None else max(0, int(budget))
        limit = max(0, min(int(limit), MAX_LIMIT))
        with self.conn:
            pool = self._candidates(query, scope, limit, profile, whole_pool=True, fts=fts)
            pool.degraded_reasons = (cut, *pool.degraded_reasons) if cut else pool.degraded_reasons
            paths = [c.path for c in pool.ordered]
            names = hydrate.entity_names(self.conn, paths)
            marks = disagreements.marks(self.conn, pool.fused, pool.ordered, pool.pairs, pool.query)
        arcs, memories = [], []
        for c in pool.ordered:
            candidate = disclosure.FoldCandidate(
                path=c.path,
                title=c.row["title"],
                memory_type=c.row["memory_type"],
                disclosure_text=c.row["disclosure_text"],
                gist=c.row["gist"],
                entity_names=tuple(names.get(c.path, ())),
                contradictions=marks.get(c.path, ()),
            )
            (arcs if c.row["memory_type"] == "arc" else memories).append(candidate)
        return RecallPack(
            query=query,
            scope=scope,
            degraded=bool(pool.degraded_reasons),
            degraded_reasons=pool.degraded_reasons,
            memories=disclosure.fold(
                memories,
                budget,
                name="memories",
                max_per_entity=profile.max_per_entity,
                disclosure_tier=profile.recall_disclosure_tier,
            ),
            arcs=disclosure.fold(
                arcs,
                profile.arc_budget,
                name="arcs",
                max_per_entity=profile.max_per_entity,
                disclosure_tier=profile.recall_disclosure_tier,
            ),
            elapsed_ms=(time.perf_counter() - started) * 1000,
            ranking=profile.name,
            contradiction_notes=profile.newer_first,
        )

    def archived_pointers(self, scope: Scope, *, limit: int) -> tuple[int, tuple[ArchivedPointer, ...]]:
        """Re-run the SAME scope with the archived flag flipped: what the emptied scope used to match."""
        flipped = assemble_scope(scope, start=1, archived="flipped")
        where = flipped.for_alias("f")
        (count,) = self.conn.execute(f"SELECT count(*) FROM files f WHERE 1 = 1{where}", flipped.params).fetchone()
        if not count:
            return 0, ()
        marker = len(flipped.params) + 1
        rows = self.conn.execute(
            f"SELECT f.path, f.title FROM files f WHERE 1 = 1{where} ORDER BY f.path LIMIT ?{marker}",
            (*flipped.params, limit),
        ).fetchall()
        successors = hydrate.superseded_by(self.conn, [r[0] for r in rows])
        return int(count), tuple(ArchivedPointer(p, t, successors.get(p)) for p, t in rows)

    # -- the shared pipeline ------------------------------------------------------------------

    def query_vector(self, query: str) -> tuple[np.ndarray | None, str | None]:
        """Embed the query (NFKC-folded, as its words are: a fullwidth `ｄｒａｉｎ` asks what `drain`
        asks; the hash embedder folds on its own, MiniLM's tokenizer does not); an embedder failure
        is caught, logged and becomes a reason."""
        if self.embedder is None:
            return None, "vector: no embedder configured"
        if not query.strip():
            return None, None
        try:
            vec = np.asarray(self.embedder.embed([fold_text(query)]), dtype=np.float32)[0]
        except Exception as exc:  # noqa: BLE001 - any embedder failure degrades, never fails
            log.warning("embedder failed; searching without the vector arm: %s", exc)
            return None, f"vector: embedder failed ({type(exc).__name__}: {exc})"
        if not np.any(vec):
            return None, None
        return vec, None

    def _candidates(
        self,
        query: str,
        scope: Scope,
        limit: int,
        profile: RankingProfile,
        *,
        whole_pool: bool = False,
        fts: FtsQuery | None = None,
    ) -> Pool:
        """Fuse `limit` x the pool factor, then run the profile's steps over the pool.

        Search keeps `limit` of the reordered pool. Recall (`whole_pool`) keeps all of it: reordered
        when the profile says so, in fused order otherwise. `fts`: `query` already parsed.
        """
        fts = matchable(parse_fts_query(query) if fts is None else fts)
        reasons: list[str] = []
        index = relevance.index_status(self.conn)
        if self._words_first(index):
            qvec, why = None, self._coverage_reason()  # nothing to compare the query with yet
        else:
            qvec, why = self.query_vector(query)
        if why:
            reasons.append(why)
        if not index.complete:
            reasons.append(index.reason())
        state = has_state(self.conn)
        if not state:
            damaged = getattr(self.conn, "state_error", None)
            reasons.append(
                f"salience: {damaged}" if damaged else "salience: no state plane (.memhtml/state.db) attached"
            )
        snapshot = None
        if qvec is not None and self.embedder is not None:
            coverage = self._coverage_reason()
            if coverage:
                reasons.append(coverage)
            snapshot = self.vector_snapshot()
        arms = active_arms(profile.arms, has_vector=qvec is not None, has_state=state, has_terms=not fts.empty)
        scope_sql = assemble_scope(scope)
        pool = Pool(
            query,
            scope,
            None,
            tuple(a.name for a in arms),
            tuple(reasons),
            [],
            profile,
            [],
            qvec,
            snapshot,
            fts=fts,
            scope_sql=scope_sql,
            index=index,
        )
        if limit <= 0:
            return pool
        match, pool.fts_form = self.fts_form(fts, scope_sql, profile)
        pool.match = match
        bound = self.salience_bound and any(a.name == "salience" and a.weight > 0 for a in arms)
        lexical = any(a.name == "fts" and a.weight > 0 for a in arms) and match is not None
        # The vector arm's product and the lexical arm's window are the two big parts of a search (10
        # and 11 ms at 100,000 memories) and need nothing of each other: the product runs on a thread
        # beside the window's statement (both leave the interpreter lock: BLAS, SQLite).
        nearest = self._nearest_beside(qvec, snapshot, profile.arm_window) if lexical else None
        window = self.lexical_param(match, scope_sql, profile) if lexical else None
        pool.window = window
        # Gated priors, and a convex fusion, can lift a candidate from anywhere in the arms' windows, so
        # all of them are fused. A convex fusion re-scores and sorts them all (score, path) itself, so
        # the statement only lists the arms' rows for it. Gated priors over RRF keep the statement's
        # order: the pool's cosines are read in candidate order, and a product's last bit can depend
        # on where a row stands in it (index/vectors.py `best_similarities`).
        gate = profile.gate_priors and qvec is not None and any(a.name in PRIOR_ARMS for a in arms)
        whole = gate or profile.fusion == "convex"
        sql = build_rrf_sql(arms, scope_sql.filter, vector_backend=self.vector_backend, model=self.space(),
                            k=profile.rrf_k, lexical=profile.lexical, field_weights=profile.field_weights,
                            salience_bound=bound, lexical_bound=window is not None,
                            fused=profile.fusion != "convex")  # fmt: skip
        if sql is None:
            return pool
        vector_param, dists = self.vector_param(
            qvec, snapshot, scope_sql, profile.arm_window, first=nearest.result() if nearest is not None else None
        )
        salience_param = self.salience_param(scope_sql, profile.arm_window) if bound else None
        size = profile.pool_size(limit)
        lexical_param = window.binding() if window is not None else match
        params = bind_params(sql, (lexical_param, profile.arm_window, -1 if whole else size, vector_param,
                                   salience_param), scope_sql.params)  # fmt: skip
        fused = self._run_fused(
            sql, params, dists, profile, hydrated=not whole, bm25=window.scores if window is not None else None
        )
        if profile.fusion == "convex":
            fused = self.convex(fused, profile)
        if gate:
            fused = self._gate_priors(fused, pool, size)
        elif whole:
            fused = fused[:size]
            self.settle(fused, profile)
        if whole:
            self._hydrate(fused)
        self._attach_vectors(fused, snapshot)
        pool.fused = fused
        # Under every profile: the marks need them, whether or not the profile reorders by them.
        pool.pairs = disagreements.pool_pairs(
            self.conn, [disagreements.statement_of(c.row) for c in fused], [c.vector for c in fused]
        )
        if whole_pool and profile.recall_pool == "fused":
            pool.ordered = list(fused)
        else:
            pool.ordered = self._reorder(query, fused, len(fused) if whole_pool else limit, profile, pool.pairs)
        return pool

    def lexical_param(self, match: str, scope_sql: ScopeSql, profile: RankingProfile) -> LexicalWindow:
        """The lexical arm's window, ranked on the FTS table alone and cut to the scope
        (index/lexical_window.py): what `?1` binds in place of the MATCH text."""
        key = self.cache_key or self.conn.db_filename("main")
        return lexical_window(
            self.conn,
            match,
            profile.arm_window,
            lexical=profile.lexical,
            field_weights=profile.field_weights,
            in_scope=lambda rowids: self.caches.scope_rows.mask(self.conn, key, rowids, scope_sql),
        )

    def salience_param(self, scope_sql: ScopeSql, window: int) -> Any:
        """What `?5` binds: the memories that can be among the salience arm's top `window` in scope,
        from the bound list kept between state changes (index/salience.py)."""
        key = self.cache_key or self.conn.db_filename("main")
        rowids = self.caches.salience.candidates(self.conn, key, window, scope_sql)
        return apsw.carray(rowids)

    def vector_snapshot(self) -> VectorSnapshot | None:
        """The in-memory vectors of this index (numpy backend), or None (sqlite-vec, no embedder)."""
        if self.vector_backend != "numpy" or self.embedder is None:
            return None
        return self.cache.snapshot(self.conn, self.cache_key, space_of(self.embedder), self.embedder.dim)

    def space(self) -> str:
        """The embedding space the vector arm compares in (`model@dim`), or "" without an embedder."""
        return space_of(self.embedder) if self.embedder is not None else ""

    def _words_first(self, index: IndexStatus) -> bool:
        """No vector yet in this space, and nothing gained by embedding the query: it is not
        embedded (the header says how many memories have vectors). That is so while a first index
        still puts its words in, and, once it is complete, while the embedder is a model not loaded
        in this process that says it could load (MiniLM: 1.2 s of CPU to load, the words answer
        held for it, the vectors being made newest first by the index). An embedder that is loaded,
        or cannot load, embeds the query with no vector made: one that fails must say so (the
        header names its error)."""
        if self.embedder is None:
            return False
        if index.complete and not self._unloaded_model():
            return False
        return (
            self.conn.execute(
                "SELECT NOT EXISTS (SELECT 1 FROM embeddings WHERE model = ?)", (self.space(),)
            ).fetchone()[0]
            == 1
        )

    def _unloaded_model(self) -> bool:
        """The embedder loads a model on first use, has not yet, and says it could (a cheap check)."""
        return not getattr(self.embedder, "is_loaded", True) and unavailable_reason(self.embedder) is None

    def _coverage_reason(self) -> str | None:
        """Say so when some memories still lack their vectors in this space (a cold store being
        embedded, newest first, or a re-embedding under way): the header shows this sentence."""
        total, done = self.cache.coverage(self.conn, self.cache_key, self.space())
        if total and done < total:
            return coverage_sentence(done, total)
        return None

    def fts_form(
        self, fts: FtsQuery, scope_sql: ScopeSql, profile: RankingProfile = DEFAULT
    ) -> tuple[str | None, str | None]:
        """The MATCH text to bind and its name (`all` or `any`), or (None, None) without words.

        `all` under the memhtml profile is every sanitised word (memhtml binds no other form).
        """
        if fts.empty:
            return None, None
        if profile.fts_forms == "all":
            return fts.every_word_form, "all"
        drop = QUESTION_WORDS if profile.question_words else frozenset()
        every = fts.all_form_without(drop)
        if len(fts.content_terms(drop)) == 1:
            return every, "all"
        if profile.fts_forms == "any":
            return fts.any_form_without(common_words(self.conn, fts.words, self.caches.words) | drop), "any"
        probe = build_fts_probe_sql(scope_sql.filter, profile.lexical)
        params = bind_params(probe, (every, None, None, None), scope_sql.params)
        if self.conn.execute(probe, params).fetchone() is not None:
            return every, "all"
        return fts.any_form_without(common_words(self.conn, fts.words, self.caches.words) | drop), "any"

    def vector_param(
        self,
        qvec: np.ndarray | None,
        snapshot: VectorSnapshot | None,
        scope_sql: ScopeSql,
        window: int,
        *,
        whole: bool = False,
        first: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> tuple[Any, np.ndarray | None]:
        """What `?4` binds: the query BLOB (sqlite-vec) or the nearest-first rowid carray (numpy).

        For numpy, the carray holds the top files by distance, widened until it holds at least
        `window` in-scope files (or all of them): a narrow scope must still see its 40 nearest.
        `whole` ranks every file (the explanation's `LIMIT -1`: where a memory stood past the window).
        `first`: the first `top` files already ranked (`_nearest_beside`), the same arrays
        `snapshot.ranked_files(qvec, top)` gives.
        """
        if qvec is None:
            return None, None
        if self.vector_backend != "numpy" or snapshot is None:
            return np.ascontiguousarray(qvec, dtype="<f4").tobytes(), None
        total = int(snapshot.file_rowids.shape[0])
        if total == 0:
            return apsw.carray(np.array([-1], dtype=np.int64)), np.zeros(1, dtype=np.float32)
        top = total if whole else min(total, window * 4)
        while True:
            rowids, dists = first if first is not None and not whole else snapshot.ranked_files(qvec, top)
            first = None
            if top >= total or self._count_in_scope(rowids, scope_sql) >= window:
                break
            top = min(total, top * 8)
        return apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64)), dists

    def _nearest_beside(self, qvec: np.ndarray | None, snapshot: VectorSnapshot | None, window: int) -> _Beside | None:
        """`vector_param`'s first ranking of the files (`ranked_files` of its first `top`), started on a
        thread of its own; None when there is nothing to rank (no query vector, sqlite-vec, no file)."""
        if qvec is None or snapshot is None or self.vector_backend != "numpy":
            return None
        total = int(snapshot.file_rowids.shape[0])
        if total == 0:
            return None
        return _Beside(lambda: snapshot.ranked_files(qvec, min(total, window * 4)))

    def _count_in_scope(self, rowids: np.ndarray, scope_sql: ScopeSql) -> int:
        key = self.cache_key or self.conn.db_filename("main")
        return int(self.caches.scope_rows.mask(self.conn, key, rowids, scope_sql).sum())

    def _run_fused(
        self,
        sql: str,
        params: tuple[Any, ...],
        dists: np.ndarray | None,
        profile: RankingProfile,
        *,
        hydrated: bool = True,
        bm25: np.ndarray | None = None,
    ) -> list[Candidate]:
        """The fused statement's rows as candidates; `dists` and `bm25` give the vector and lexical arms'
        raw signals when those arms were bound as ranked carrays (their `raw` is then a position)."""
        weights = {arm.name: arm.weight for arm in profile.arms}
        fold_order = {name: i for i, name in reversed(list(enumerate(profile.arm_names)))}  # as .index() finds them
        fused: dict[str, Candidate] = {}
        for path, score, arm, rank, raw, contribution in self.conn.execute(sql, params):
            candidate = fused.get(path)
            if candidate is None:  # no score: the statement listed the arms' rows unfused (`build_rrf_sql`)
                candidate = Candidate(path, 0, 0.0 if score is None else float(score), len(fused) + 1, [], {})
                fused[path] = candidate
            candidate.arms.append(
                ArmScore(
                    arm=arm,
                    rank=int(rank),
                    weight=weights[arm],
                    contribution=float(contribution),
                    raw=_raw(arm, raw, dists, bm25),
                )
            )
        order = list(fused.values())
        for c in order:
            c.arms.sort(key=lambda a: fold_order[a.arm])
        if hydrated:
            self._hydrate(order)
        return order

    def convex(self, fused: list[Candidate], profile: RankingProfile) -> list[Candidate]:
        """The candidates re-scored by the convex fusion (`domain/fusion.py`), best first: the scored
        arms' contributions become weight × share × normalised score, the priors' stay RRF's. Each
        candidate's parts wait in `scored` until `settle` writes them into the arms of those kept
        (a search keeps 30 of up to 160: rebuilding every candidate's explanation cost 12 % of it)."""
        ranked: dict[str, list[tuple[str, int, Any]]] = {}
        for c in fused:
            for a in c.arms:
                ranked.setdefault(a.arm, []).append((c.path, a.rank, _signal_raw(a)))
        for rows in ranked.values():
            rows.sort(key=lambda r: r[1])
        model = getattr(self.embedder, "model_id", None)
        weights = {a.name: float(f"{a.weight:.4f}") for a in profile.arms}  # as the fused statement inlines them
        parts = convex_parts(
            ranked,
            weights,
            lexical_share=profile.lexical_share.get(model),
            how=profile.convex_norm,
            k=profile.rrf_k,
            window=profile.arm_window,
            lexical_confidence=profile.lexical_confidence.get(model),
        )
        by_path = {c.path: c for c in fused}
        out = []
        for position, (score, path) in enumerate(order_of(parts), start=1):
            c = by_path[path]
            c.scored = {p.arm: p for p in parts[path]}
            c.score, c.fused_position = score, position
            out.append(c)
        return out

    def settle(self, kept: list[Candidate], profile: RankingProfile) -> None:
        """Write a convex fusion's parts into the arms of the candidates kept (see `convex`)."""
        for c in kept:
            if c.scored is None:
                continue
            parts = c.scored
            c.arms = [
                ArmScore(
                    a.arm, a.rank, parts[a.arm].weight, parts[a.arm].contribution, a.raw, a.counted, parts[a.arm].norm
                )
                for a in c.arms
                if a.arm in parts
            ]
            c.scored = None

    def _hydrate(self, order: list[Candidate]) -> None:
        rows = hydrate.file_rows(self.conn, [c.path for c in order])
        for c in order:
            c.row = rows[c.path]
            c.rowid = c.row["rowid"]

    def _attach_vectors(self, fused: list[Candidate], snapshot: VectorSnapshot | None) -> None:
        if not fused or self.embedder is None:
            return
        if snapshot is not None:
            for c in fused:
                c.vector = snapshot.file_vector(c.rowid)
            return
        vectors = hydrate.first_vectors(self.conn, [c.path for c in fused], self.space())
        for c in fused:
            c.vector = decode_vec(vectors.get(c.path))

    def _reorder(
        self, query: str, fused: list[Candidate], limit: int, profile: RankingProfile, pairs: list | None = None
    ) -> list[Candidate]:
        """Polarity, twin resolution, MMR and newer first as the profile says (`domain.reorder`),
        moves kept; `pairs`: the fused candidates' contradicting pairs, already judged."""
        if not fused:
            return []
        items = [
            PoolItem(
                c.path,
                c.row["gist"],
                c.vector,
                c.row["memory_type"] == "arc",
                c.row["title"],
                disagreements.statement_of(c.row),
            )
            for c in fused
        ]
        model = getattr(self.embedder, "model_id", None)
        out = reorder(query, items, profile, model_id=model, limit=limit, pairs=pairs)
        for i, moves in out.moves.items():
            fused[i].moves = moves
        return [fused[i] for i in out.order]

    def _cosines(self, fused: list[Candidate], pool: Pool) -> dict[str, float]:
        """The raw best-chunk cosine of each fused candidate to the query (none without a vector)."""
        # The vector arm already measured the candidates it ranked (raw distance = 1 - cosine).
        cosines: dict[str, float] = {}
        for c in fused:
            arm = next((a for a in c.arms if a.arm == "vector"), None)
            if arm is not None and arm.raw.get("distance") is not None:
                cosines[c.path] = 1.0 - float(arm.raw["distance"])
        cosines.update(
            relevance.pool_cosines(
                self.conn,
                {c.path: c.rowid for c in fused if c.path not in cosines},
                pool.query_vector,
                pool.snapshot,
                self.space(),
            )
        )
        return cosines

    def _gate_priors(self, fused: list[Candidate], pool: Pool, size: int) -> list[Candidate]:
        """Drop recency's and salience's contribution from candidates the query does not match
        (`domain/priors.py`), re-rank by what is left, keep the best `size`."""
        if not fused:
            pool.cosines = {}
            return fused
        parts = {
            c.path: [(a.arm, c.scored[a.arm].contribution if c.scored else a.contribution) for a in c.arms]
            for c in fused
        }
        lexical = [p for p, v in parts.items() if any(a == "fts" for a, _ in v)]
        every = self.every_word(pool.fts, pool.fts_form, pool.profile, lexical)
        order, counted, cosines = self.gated(parts, pool.query_vector, pool.snapshot, every, pool.profile)
        by_path = {c.path: c for c in fused}
        out = []
        for position, (score, path) in enumerate(order[:size] if size >= 0 else order, start=1):
            c = by_path[path]
            c.score, c.fused_position = score, position
            self.settle([c], pool.profile)
            if not counted[path]:
                c.arms = [replace(a, contribution=0.0, counted=False) if a.arm in PRIOR_ARMS else a for a in c.arms]
            out.append(c)
        pool.cosines = {c.path: cosines[c.path] for c in out if c.path in cosines}
        return out

    def gated(
        self,
        parts: dict[str, list[tuple[str, float]]],
        query_vector: np.ndarray | None,
        snapshot: VectorSnapshot | None,
        every_word: frozenset[str],
        profile: RankingProfile,
    ) -> tuple[list[tuple[float, str]], dict[str, bool], dict[str, float]]:
        """Fused candidates (`path -> [(arm, contribution)]`) under gated priors (`domain/priors.py`):
        the order, whether each one's priors counted, and the cosines that decided it. `every_word`:
        the candidates that hold every query word (`every_word()`).

        Cosines are measured from the chunks for every candidate (not the vector arm's distances),
        as the workbench's re-ranking measures them, so both draw the line at the same cosine.
        """
        floor = profile.floor_cosine.get(getattr(self.embedder, "model_id", None))
        rowids = dict(
            self.conn.execute(
                "SELECT path, rowid FROM files WHERE path IN carray(?1)", (apsw.carray(tuple(parts)),)
            ).fetchall()
        )
        cosines = relevance.pool_cosines(self.conn, rowids, query_vector, snapshot, self.space())
        counted = {p: matches_query(cosines.get(p), floor, p in every_word) for p in parts}
        return gated_order(parts, counted.__getitem__), counted, cosines

    def every_word_count(
        self, query: str, scope: Scope | None, profile: RankingProfile, fts: FtsQuery | None = None
    ) -> MatchCount:
        """How many in-scope memories hold every content word of `query` in the profile's lexical
        index, whatever form the profile binds (under `default` the arm binds any of the words, so
        its own count says nothing about how determinate the question is: the catalogue's verdict
        reads this one, domain/catalogue.py `question_kind`). Capped like `match_count`."""
        fts = matchable(parse_fts_query(bounded_query(query)[0]) if fts is None else fts)
        if fts.empty:
            return MatchCount(None)
        drop = QUESTION_WORDS if profile.question_words else frozenset()
        every = fts.every_word_form if profile.fts_forms == "all" else fts.all_form_without(drop)
        with self.conn:
            return relevance.match_count(self.conn, every, "all", assemble_scope(scope or Scope()), profile.lexical)

    def every_word(
        self, fts: FtsQuery | None, form: str | None, profile: RankingProfile, lexical: list[str]
    ) -> frozenset[str]:
        """Of the paths the lexical arm ranked, those holding every content word of the query: all of
        them when the arm bound the all-terms form; under the any-of form alone (`fts_forms = "any"`)
        the ones the all-terms form also matches (one look-up over those paths); none otherwise."""
        if not lexical or fts is None or fts.empty:
            return frozenset()
        if form == "all":
            return frozenset(lexical)
        if profile.fts_forms != "any":
            return frozenset()
        drop = QUESTION_WORDS if profile.question_words else frozenset()
        return relevance.holding(self.conn, fts.all_form_without(drop), lexical, profile.lexical)

    def _hits(self, pool: Pool) -> tuple[list[Hit], RelevanceSummary]:
        """The hits with their explanation, and the relevance floor's header diagnostics."""
        paths = [c.path for c in pool.ordered]
        floor = pool.profile.floor_cosine.get(getattr(self.embedder, "model_id", None))
        cosines = dict(pool.cosines or {})
        unmeasured = {c.path: c for c in (*pool.fused, *pool.ordered) if c.path not in cosines}
        if unmeasured:
            cosines.update(self._cosines(list(unmeasured.values()), pool))
        if not paths:
            return [], relevance.summary({}, cosines, floor)
        snippets = hydrate.snippets(self.conn, paths, pool.query_vector, pool.snapshot)
        entities = hydrate.entity_refs(self.conn, paths)
        successors = hydrate.superseded_by(self.conn, paths)
        lexical = frozenset(c.path for c in pool.ordered if any(a.arm == "fts" for a in c.arms))
        # No words to hold and nothing to compare with: a browse (an empty query lists by recency and
        # salience). The floor asks "relevant to what?" and has no answer, so it marks nothing.
        asked = bool(pool.query.strip()) and (bool(pool.fts and pool.fts.words) or bool(cosines))
        signals = (
            relevance.hit_signals(self.conn, pool.fts or FtsQuery(()), paths, cosines, floor, entities, lexical)
            if asked
            else {}
        )
        suspicious = hydrate.suspicious_dates(self.conn, {c.path: c.row for c in pool.ordered})
        marks = disagreements.marks(self.conn, pool.fused, pool.ordered, pool.pairs, pool.query)
        hits = []
        for position, c in enumerate(pool.ordered, start=1):
            last = c.moves[-1] if c.moves else None
            hits.append(
                Hit(
                    path=c.path,
                    title=c.row["title"],
                    gist=c.row["gist"],
                    memory_type=c.row["memory_type"],
                    score=c.score,
                    position=position,
                    fused_position=c.fused_position,
                    moved_by=last.step if last else None,
                    moved_from=last.from_position if last else None,
                    moves=tuple(c.moves),
                    signals=signals.get(c.path),
                    snippet=snippets.get(c.path, ""),
                    entities=tuple(entities.get(c.path, ())),
                    superseded_by=successors.get(c.path),
                    arms=tuple(c.arms),
                    confidence=float(c.row["confidence"]),
                    updated_at=c.row["updated_at"],
                    archived=bool(c.row["archived"]),
                    suspicious_date=suspicious.get(c.path),
                    contradictions=marks.get(c.path, ()),
                )
            )
        return hits, relevance.summary(signals, cosines, floor) if asked else None


class _Beside:
    """`work()` on a thread of its own while the caller does something else; `result()` waits for it
    and raises what it raised. A thread, not a pool: it lives for one search (about 0.1 ms to start,
    against the 2.5-10 ms product it runs beside the lexical window)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="search-nearest", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
            self._error = exc

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def common_words(conn: apsw.Connection, words: tuple[str, ...], memo: WordDocs | None = None) -> frozenset[str]:
    """Words held by at least half the indexed files: bm25 gives them no weight (see FtsQuery).
    `memo`: the counts kept for the index as it is (index/word_docs.py), the same answer."""
    if not words:
        return frozenset()
    if memo is not None:
        total, docs = memo.counts(conn, words)
    else:
        (total,) = conn.execute("SELECT count(*) FROM files").fetchone()
        docs = word_docs(conn, words) if total else {}
    if not total:
        return frozenset()
    return frozenset(term for term, held in docs.items() if 2 * held >= total)


def _signal_raw(score: ArmScore) -> Any:
    """What a convex fusion reads: the bm25 value, the cosine (1 − distance); a prior's time or score,
    to see whether its window is one tie (`domain.fusion.undivided`)."""
    if score.arm == "fts":
        return score.raw.get("bm25")
    if score.arm == "vector":
        distance = score.raw.get("distance")
        return None if distance is None else 1.0 - float(distance)
    return prior_signal(score.arm, score.raw)


def _raw(arm: str, raw: Any, dists: np.ndarray | None, bm25: np.ndarray | None = None) -> dict[str, Any]:
    """Each arm's own signal, named, for the explanation."""
    if arm == "fts":
        if bm25 is not None:  # bound window: raw is the 1-based position in it
            return {"bm25": float(bm25[int(raw) - 1])}
        return {"bm25": float(raw)}
    if arm == "vector":
        if dists is not None:  # numpy backend: raw is the 1-based position in the nearest-first list
            return {"distance": float(dists[int(raw) - 1])}
        return {"distance": None if raw is None else float(raw)}
    if arm == "recency":
        return {"time": raw}
    decay, popularity, outcome, hours = json.loads(raw)
    return {"decay": decay, "popularity": popularity, "outcome": outcome, "hours_since_access": hours}
