"""The read half of a search, once per probe: each arm's candidates, for re-ranking in memory.

`prepare_queries` reads, for each (query, scope), what `Retriever._candidates` reads before it
fuses: the lexical form and its bm25 candidates, the query vector and the nearest files, the
recency and salience candidates, and the claim, title, vector and arc flag of every candidate,
using the retriever's own pieces (`fts_form`, `query_vector`, `vector_param`, the arm SQL of
`retrieval_sql`), so the lists are the ones a search would fuse. `domain/refusion.py` then fuses
and reorders them under any configuration without another statement.

Three things make a probe set cheap to read. Recency and salience do not depend on the query,
only on the scope, so their lists are read once per distinct scope (the salience arm alone costs
~0.1 s at 20,000 files). Queries are embedded in batches (MiniLM's cost is per call). And one
read transaction serves the whole set, so every probe sees the same index.

It is the workbench's one door into index/ besides the Store's protocols (index/doors.py), as
`curation.py` is the write core's: what else the workbench reads is named here (the answer lookup
of a question-answer import, `index/answers.py`), so `workbench/` imports this module and the doors
alone (import-linter: "workbench-through-its-doors").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from memhtml_desktop.domain.fts_query import FtsQuery, parse_fts_query
from memhtml_desktop.domain.fusion import prior_signal
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.refusion import Candidate, PreparedQuery
from memhtml_desktop.domain.types import Scope, clean_text
from memhtml_desktop.index import disagreements, hydrate, relevance
from memhtml_desktop.index.answers import answer_candidates, existing  # noqa: F401  (the door: qa_import)
from memhtml_desktop.index.db import has_state
from memhtml_desktop.index.retrieval import MAX_FTS_TERMS, Retriever
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql
from memhtml_desktop.index.scope import ScopeSql, assemble_scope
from memhtml_desktop.index.vectors import decode_vec

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore

log = logging.getLogger(__name__)

EMBED_BATCH = 64
"""Queries embedded per call: MiniLM pays per call as much as per text, hash nothing either way."""


class PrepareCancelled(Exception):
    """The caller's cancel flag was raised while reading; nothing was kept."""


def _embed_all(retriever: Retriever, queries: Sequence[str]) -> dict[str, tuple[np.ndarray | None, str | None]]:
    """Each distinct query's vector (or why none), embedding in batches; a failing batch is retried
    one query at a time so one bad query costs only its own vector."""
    out: dict[str, tuple[np.ndarray | None, str | None]] = {}
    distinct = [q for q in dict.fromkeys(queries) if q.strip()]
    embedder = retriever.embedder
    for start in range(0, len(distinct), EMBED_BATCH):
        batch = distinct[start : start + EMBED_BATCH]
        try:
            if embedder is None:
                raise RuntimeError("no embedder")
            vectors = np.asarray(embedder.embed(batch), dtype=np.float32)
        except Exception:  # noqa: BLE001 - per query below, with the retriever's own wording
            for query in batch:
                out[query] = retriever.query_vector(query)
            continue
        for query, vec in zip(batch, vectors):
            out[query] = (vec, None) if np.any(vec) else (None, None)
    for query in queries:
        out.setdefault(query, (None, None))
    return out


class _Reader:
    """One read transaction's worth of state shared by every probe of a set."""

    def __init__(self, store: WorkbenchStore, profile: RankingProfile, window: int) -> None:
        self.store, self.profile, self.window = store, profile, window
        self.retriever: Retriever = store.retriever()
        self.conn = self.retriever.conn
        self.snapshot = None
        self.shared_reasons: list[str] = []
        self.state = False
        self.scopes: dict[Scope, tuple[ScopeSql, dict[str, tuple[str, ...]]]] = {}
        self.prior_signals: dict[Scope, dict[str, tuple[Any, ...]]] = {}  # per scope, aligned with its lists
        self.candidates: dict[str, Candidate] = {}
        self.rowids: dict[str, int] = {}
        self.last_signals: tuple[float | None, ...] = ()  # the raw scores of the last lexical or vector list

    def begin(self) -> None:
        index = relevance.index_status(self.conn)
        if not index.complete:
            self.shared_reasons.append(index.reason())
        self.state = has_state(self.conn)
        if not self.state:
            damaged = getattr(self.conn, "state_error", None)
            self.shared_reasons.append(
                f"salience: {damaged}" if damaged else "salience: no state plane (.memhtml/state.db) attached"
            )
        if self.retriever.embedder is not None:
            self.snapshot = self.retriever.vector_snapshot()

    def scope(self, scope: Scope) -> tuple[ScopeSql, dict[str, tuple[str, ...]]]:
        """The scope's SQL and its query-independent lists (recency, salience), read once."""
        if scope not in self.scopes:
            scope_sql = assemble_scope(scope)
            lists: dict[str, tuple[str, ...]] = {}
            signals: dict[str, tuple[Any, ...]] = {}
            arms = ["recency"] + (["salience"] if self.state else [])
            for arm in arms:
                sql = build_arm_sql(arm, scope_sql.filter)
                params = bind_params(sql, (None, self.window, None, None), scope_sql.params)
                rows = self.conn.execute(sql, params).fetchall()
                lists[arm] = tuple(row[0] for row in rows)
                signals[arm] = tuple(prior_signal(arm, row[2]) for row in rows)
            self.scopes[scope] = (scope_sql, lists)
            self.prior_signals[scope] = signals
        return self.scopes[scope]

    def lexical(self, fts: FtsQuery, scope_sql: ScopeSql) -> tuple[tuple[str, ...], str | None]:
        """The lexical arm's candidates and the form it bound (`all` or `any`)."""
        match, form = self.retriever.fts_form(fts, scope_sql, self.profile)
        if not match:
            self.last_signals = ()
            return (), form
        sql = build_arm_sql(
            "fts", scope_sql.filter, lexical=self.profile.lexical, field_weights=self.profile.field_weights
        )
        params = bind_params(sql, (match, self.window, None, None), scope_sql.params)
        rows = self.conn.execute(sql, params).fetchall()
        self.last_signals = tuple(float(row[2]) for row in rows)
        return tuple(row[0] for row in rows), form

    def nearest(self, qvec: np.ndarray, scope_sql: ScopeSql) -> tuple[str, ...]:
        """The nearest files, best first; `last_signals` their cosines (what a convex fusion weighs)."""
        binding, dists = self.retriever.vector_param(qvec, self.snapshot, scope_sql, self.window)
        sql = build_arm_sql(
            "vector", scope_sql.filter, vector_backend=self.retriever.vector_backend, model=self.retriever.space()
        )
        params = bind_params(sql, (None, self.window, None, binding), scope_sql.params)
        rows = self.conn.execute(sql, params).fetchall()
        # numpy: raw is the 1-based position in the nearest-first list; sqlite-vec: the distance itself
        self.last_signals = tuple(
            None if raw is None else 1.0 - float(dists[int(raw) - 1] if dists is not None else raw)
            for _, _, raw in rows
        )
        return tuple(row[0] for row in rows)

    def hydrate(self, paths: Sequence[str]) -> None:
        """Claim, title, arc flag and vector of each path not read yet (one statement each)."""
        missing = [p for p in dict.fromkeys(paths) if p not in self.candidates]
        if not missing:
            return
        rows = hydrate.file_rows(self.conn, missing)
        vectors: dict[str, Any] = {}
        if self.snapshot is None and self.retriever.embedder is not None:
            vectors = hydrate.first_vectors(self.conn, list(rows), self.retriever.space())
        for path, row in rows.items():
            self.rowids[path] = row["rowid"]
            vector = (
                self.snapshot.file_vector(row["rowid"]) if self.snapshot is not None else decode_vec(vectors.get(path))
            )
            self.candidates[path] = Candidate(
                path, row["title"], row["gist"], row["memory_type"] == "arc", vector, disagreements.statement_of(row)
            )

    def cosines(self, qvec: np.ndarray | None, paths: Sequence[str]) -> dict[str, float]:
        if qvec is None:
            return {}
        unknown = [p for p in dict.fromkeys(paths) if p not in self.rowids]
        if unknown:
            self.rowids.update({p: r["rowid"] for p, r in hydrate.file_rows(self.conn, unknown).items()})
        rowids = {p: self.rowids[p] for p in paths if p in self.rowids}
        return relevance.pool_cosines(self.conn, rowids, qvec, self.snapshot, self.retriever.space())


def prepare_queries(
    store: WorkbenchStore,
    asks: Sequence[tuple[str, Scope | None, Sequence[str]]],
    profile: RankingProfile,
    *,
    window: int | None = None,
    with_cosines: bool = False,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[PreparedQuery]:
    """One `PreparedQuery` per `(query, scope, also)`. With `with_cosines` each carries the raw
    best-chunk cosine of its candidates and of `also` (a probe's targets and controls), for the
    floor calibration; a plain run does not need them.

    `window` (default: the profile's) is how many candidates each arm lists; a re-ranking may use
    any arm window up to it. Raises PrepareCancelled when `cancelled()` turns true.
    """
    window = max(window or profile.arm_window, 1)
    reader = _Reader(store, profile, window)
    out: list[PreparedQuery] = []
    conn = reader.conn
    with conn:  # one read transaction: every probe sees the same index
        reader.begin()
        coverage = reader.retriever._coverage_reason() if reader.retriever.embedder is not None else None
        vectors = _embed_all(reader.retriever, [clean_text(q) for q, _, _ in asks])
        for i, (raw_query, scope, also) in enumerate(asks):
            if cancelled is not None and cancelled():
                raise PrepareCancelled()
            query = clean_text(raw_query)
            scope_sql, shared = reader.scope(scope or Scope())
            fts = parse_fts_query(query)
            if len(fts.terms) > MAX_FTS_TERMS:
                fts = fts.first(MAX_FTS_TERMS)
            qvec, why = vectors[query]
            reasons = [why] if why else []
            reasons += reader.shared_reasons
            if qvec is not None and coverage:
                reasons.append(coverage)
            lists: dict[str, tuple[str, ...]] = dict(shared)
            signals: dict[str, tuple[Any, ...]] = dict(reader.prior_signals[scope or Scope()])
            available = {"recency"} | ({"salience"} if reader.state else set())
            form = None
            every: frozenset[str] | None = None
            if not fts.empty:
                available.add("fts")
                lists["fts"], form = reader.lexical(fts, scope_sql)
                signals["fts"] = reader.last_signals
                every = reader.retriever.every_word(fts, form, profile, list(lists["fts"]))
            if qvec is not None:
                available.add("vector")
                lists["vector"] = reader.nearest(qvec, scope_sql)
                signals["vector"] = reader.last_signals
            listed = [p for arm in lists.values() for p in arm]
            reader.hydrate(listed)
            # Every listed candidate's cosine: gated priors (`domain/priors.py`) read them, and the
            # floor calibration also reads the probe's targets and controls (`also`).
            cosines = reader.cosines(qvec, [*listed, *also] if with_cosines else listed)
            out.append(
                PreparedQuery(
                    query=query,
                    fts_forms=profile.fts_forms,
                    lexical_key=profile.lexical_key,
                    window=window,
                    lists=lists,
                    available=frozenset(available),
                    candidates={p: reader.candidates[p] for p in listed},
                    reasons=tuple(reasons),
                    cosines=cosines,
                    fts_form=form,
                    signals=signals,
                    every_word=every,
                    settled=disagreements.left_out(
                        conn, [reader.candidates[p].statement for p in dict.fromkeys(listed)]
                    ),
                )
            )
            if progress is not None:
                progress("reading", i + 1, len(asks))
    return out


def existing_paths(store: WorkbenchStore, paths: Sequence[str]) -> set[str]:
    """Which of `paths` the index holds (live or archived): a probe naming a memory that no longer
    exists is reported, not run."""
    return set(path_states(store, paths))


def path_states(store: WorkbenchStore, paths: Sequence[str]) -> dict[str, bool]:
    """Of `paths`, those the index holds, each with whether it is archived."""
    conn = store.reader()
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return {}
    with conn:
        return {p: bool(row["archived"]) for p, row in hydrate.file_rows(conn, wanted).items()}


def live_claims(store: WorkbenchStore, *, sample: int | None = None, seed: int = 1) -> list[tuple[str, str]]:
    """(path, claim) of live memories (not archived, not tasks), path order; a seeded `sample` of
    them when given (the coverage diagnostics query each memory's own claim)."""
    import random

    conn = store.reader()
    with conn:
        rows = [
            (str(p), str(g or ""))
            for p, g in conn.execute(
                "SELECT path, gist FROM files WHERE archived = 0 AND memory_type <> 'task' ORDER BY path"
            )
        ]
    if sample is not None and sample < len(rows):
        rows = sorted(random.Random(seed).sample(rows, sample))
    return rows


def candidates_of(store: WorkbenchStore, paths: Sequence[str]) -> dict[str, Candidate]:
    """The post-fusion view (`Candidate`: title, claim, arc flag, vector) of `paths`, whether or not
    a query listed them (pinning a probe needs its target's even when no arm reached it)."""
    reader = _Reader(store, store.ranking, 1)
    with reader.conn:
        if reader.retriever.embedder is not None:
            reader.snapshot = reader.retriever.vector_snapshot()
        reader.hydrate(list(paths))
    return {p: reader.candidates[p] for p in paths if p in reader.candidates}
