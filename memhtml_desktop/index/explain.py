""" "Why not this one?": where one memory stood for a query, and what kept it out.

The answer has three parts. Whether the file is a memory the index holds at all (or failed to
parse, or is not indexed yet). Which scope axis excluded it, evaluated with the very conditions the
search used. And its rank in every arm with no candidate window (`LIMIT -1`), under the scope with
the excluding axes relaxed, so a person sees that it was, say, 57th lexically and therefore outside
the 40 the fusion looks at.
"""

from __future__ import annotations

import json
from typing import Any

import apsw
import numpy as np

from memhtml_desktop.domain.fts_query import FtsQuery, parse_fts_query
from memhtml_desktop.domain.paths import MEMORY_TYPES, is_indexable
from memhtml_desktop.domain.priors import PRIOR_ARMS, why_not_counted
from memhtml_desktop.domain.ranking import RankingProfile
from memhtml_desktop.domain.results import WhyNot
from memhtml_desktop.domain.rrf import active_arms
from memhtml_desktop.domain.signals import STEP_NAMES
from memhtml_desktop.domain.types import Scope, bounded_query
from memhtml_desktop.index import arm_rank
from memhtml_desktop.index.db import has_state
from memhtml_desktop.index.retrieval import DEFAULT_SEARCH_LIMIT, Retriever
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_sql, build_rrf_sql
from memhtml_desktop.index.scope import assemble_scope

_AXIS_TEXT = {
    "archived": "it is archived, and the scope holds live memories only (include archived to see it)",
    "as_of": "it was not valid at the scope's as-of instant",
    "tasks": "it is a task, and tasks are excluded unless the type filter names 'task'",
    "types": "its memory type is not among the selected types",
    "workspace": "it is not in the selected workspace",
    "para": "it is not in the selected PARA bucket",
    "tags": "it carries none of the selected tags",
    "entity": "it does not name the selected entity",
}


def relax(scope: Scope, axes: list[str]) -> Scope:
    """The scope with the named axes switched off (the default exclusions included)."""
    changes: dict[str, Any] = {}
    for axis in axes:
        if axis in ("archived", "as_of"):
            changes.update(include_archived=True, as_of=None)
        elif axis == "tasks":
            changes["memory_types"] = MEMORY_TYPES
        elif axis == "types":
            changes["memory_types"] = MEMORY_TYPES
        elif axis == "workspace":
            changes["workspace"] = None
        elif axis == "para":
            changes["para"] = None
        elif axis == "tags":
            changes["tags"] = ()
        elif axis == "entity":
            changes["entity"] = None
        elif axis.startswith("facet:"):
            name = axis.split(":", 1)[1]
            current = changes.get("facets", scope.facets)
            changes["facets"] = tuple((n, v) for n, v in current if n.strip() != name)
    return scope.with_(**changes) if changes else scope


def _excluding_axes(conn, scope: Scope, path: str) -> list[str]:
    scope_sql = assemble_scope(scope, start=1)
    if not scope_sql.axes:
        return []
    conditions = ", ".join(f"({cond.replace('{alias}', 'f')})" for _, cond in scope_sql.axes)
    marker = len(scope_sql.params) + 1
    row = conn.execute(
        f"SELECT {conditions} FROM files f WHERE f.path = ?{marker}", (*scope_sql.params, path)
    ).fetchone()
    return [name for (name, _), ok in zip(scope_sql.axes, row) if not ok]


def why_not(
    retriever: Retriever,
    query: str,
    scope: Scope,
    path: str,
    *,
    limit: int = DEFAULT_SEARCH_LIMIT,
    ranking: RankingProfile | None = None,
    fts: FtsQuery | None = None,
) -> WhyNot:
    """Explain `path` for `query` in `scope`, against the page a search of `limit` hits shows.

    `retriever` is the reader's (Store.why hands it over); everything here goes through its public
    face (`fts_form`, `vector_param`, `space`, `search`), so the explanation ranks exactly as the
    search does, and a page longer than ten is the page asked about. `ranking` (default: the
    retriever's profile) decides the arms, windows and steps, as it does for the search. `fts`: the
    query already parsed (the window's Answer carries it); parsed here once otherwise.
    """
    query = bounded_query(query)[0]  # a 50 MB paste is cut at the door, as search cuts it
    fts = parse_fts_query(query) if fts is None else fts
    profile = ranking or retriever.profile
    conn = retriever.conn
    report = WhyNot(path=path, query=query, status="indexed", ranking=profile.name)
    with conn:
        if not is_indexable(path):
            report.status = "not_a_memory"
            report.reasons.append("the path is not a memory file (wrong folder, extension or a scaffold page)")
            return report
        row = conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            problem = conn.execute("SELECT kind, violations FROM problems WHERE path = ?", (path,)).fetchone()
            if problem is not None and problem[0] != "warnings":
                report.status = problem[0]
                report.problems = json.loads(problem[1])
                report.reasons.append(
                    "the file failed to parse, so it is not in the index: " + "; ".join(report.problems)
                )
            else:
                report.status = "not_indexed"
                report.reasons.append("the index has no such memory (missing on disk, or not indexed yet)")
            return report
        report.excluded_by = _excluding_axes(conn, scope, path)
        for axis in report.excluded_by:
            text = _AXIS_TEXT.get(axis) or f"it has no facet value selected under '{axis.split(':', 1)[1]}'"
            report.reasons.append("excluded by the scope: " + text)
        effective = relax(scope, report.excluded_by)
        report.ranks_relaxed = bool(report.excluded_by)
        _arm_ranks(retriever, query, fts, effective, path, report, profile)
    result = retriever.search(query, scope, limit=limit, ranking=profile, fts=fts)
    for hit in result.hits:
        if hit.path == path:
            report.search_position = hit.position
            report.moves = [m.to_json() for m in hit.moves]
    if not report.excluded_by and report.search_position is None:
        if report.fused_position is None:
            report.reasons.append(f"no arm ranked it inside its {profile.arm_window}-candidate window")
        else:
            steps = "/".join(STEP_NAMES.get(s, s) for s in profile.steps)
            report.reasons.append(
                f"fused position {report.fused_position}: below the pool the {limit}-hit page is chosen from"
                + (f" (or set aside by {steps} for a near-duplicate)" if steps else "")
            )
    return report


def _arm_ranks(
    retriever: Retriever, query: str, fts: FtsQuery, scope: Scope, path: str, report: WhyNot, profile: RankingProfile
) -> None:
    conn = retriever.conn
    qvec, _ = retriever.query_vector(query)
    arms = active_arms(profile.arms, has_vector=qvec is not None, has_state=has_state(conn), has_terms=not fts.empty)
    scope_sql = assemble_scope(scope)
    match, form = retriever.fts_form(fts, scope_sql, profile)
    snapshot = retriever.vector_snapshot() if qvec is not None else None
    ranked = None  # every file by (distance, path), as the numpy backend binds the whole vector arm
    if qvec is not None and retriever.vector_backend == "numpy" and snapshot is not None \
            and snapshot.file_rowids.shape[0]:  # fmt: skip
        ranked, dists = snapshot.ranked_files(qvec, int(snapshot.file_rowids.shape[0]))
        vector_param = apsw.carray(np.ascontiguousarray(ranked, dtype=np.int64))
    else:
        vector_param, dists = retriever.vector_param(qvec, snapshot, scope_sql, profile.arm_window, whole=True)
    key = retriever.cache_key or conn.db_filename("main")
    for arm in arms:
        # Each whole arm counted, not listed (index/arm_rank.py): its length, the memory's rank and raw.
        if arm.name == "fts":
            standing = arm_rank.lexical(
                conn,
                key,
                match,
                scope_sql,
                path,
                lexical=profile.lexical,
                field_weights=profile.field_weights,
                scope_rows=retriever.caches.scope_rows,
            )
        elif arm.name == "vector" and ranked is not None:
            standing = arm_rank.vector(conn, key, ranked, scope_sql, path, scope_rows=retriever.caches.scope_rows)
        elif arm.name in ("recency", "salience"):
            standing = arm_rank.prior(conn, arm.name, scope_sql, path)
        else:  # the vector arm in SQL (sqlite-vec): its statement, only the memory's row read back
            sql = build_arm_sql(
                arm.name,
                scope_sql.filter,
                vector_backend=retriever.vector_backend,
                model=retriever.space(),
                lexical=profile.lexical,
                field_weights=profile.field_weights,
            )
            params = bind_params(sql, (match, -1, -1, vector_param), scope_sql.params)
            marker = len(params) + 1
            standing = arm_rank.Standing(
                *conn.execute(
                    f"SELECT count(*), max(CASE WHEN path = ?{marker} THEN rank END), "
                    f"max(CASE WHEN path = ?{marker} THEN raw END) FROM ({sql})",
                    (*params, path),
                ).fetchone()
            )
        total = standing.ranked
        found = None if standing.rank is None else (int(standing.rank), standing.raw)
        entry: dict[str, Any] = {"ranked": total, "weight": arm.weight}
        if arm.name == "fts":
            entry["form"] = form
        if found is None:
            entry.update(rank=None, in_window=False, contribution=0.0)
        else:
            rank, raw = found
            inside = rank <= profile.arm_window
            entry.update(
                rank=rank, in_window=inside, contribution=arm.weight / (rank + profile.rrf_k) if inside else 0.0
            )
            if arm.name == "vector" and dists is not None:
                entry["distance"] = float(dists[int(raw) - 1])
            elif arm.name == "salience":
                entry["raw"] = json.loads(raw)
            else:
                entry["raw"] = raw
        report.arms[arm.name] = entry
    # The fused list as the search binds it: the lexical window ranked on the FTS table alone and the
    # salience arm's bound candidates (index/lexical_window.py, index/salience.py), not the statement
    # forms that join every match, or score every accessed memory (the same rows, ranks and values).
    window = (
        retriever.lexical_param(match, scope_sql, profile)
        if match is not None and any(a.name == "fts" and a.weight > 0 for a in arms)
        else None
    )
    bound = retriever.salience_bound and any(a.name == "salience" and a.weight > 0 for a in arms)
    sql = build_rrf_sql(
        arms,
        scope_sql.filter,
        vector_backend=retriever.vector_backend,
        model=retriever.space(),
        k=profile.rrf_k,
        lexical=profile.lexical,
        field_weights=profile.field_weights,
        salience_bound=bound,
        lexical_bound=window is not None,
    )
    if sql is None:
        return
    salience = retriever.salience_param(scope_sql, profile.arm_window) if bound else None
    if ranked is not None:  # the nearest files the search binds, not every file (joined to `files` one by one)
        vector_param, dists = retriever.vector_param(qvec, snapshot, scope_sql, profile.arm_window)
    params = bind_params(
        sql,
        (window.binding() if window is not None else match, profile.arm_window, -1, vector_param, salience),
        scope_sql.params,
    )
    fused = retriever._run_fused(
        sql, params, dists, profile, hydrated=False, bm25=window.scores if window is not None else None
    )
    if profile.fusion == "convex":
        fused = retriever.convex(fused, profile)
        parts = {c.path: [(p.arm, p.contribution) for p in (c.scored or {}).values()] for c in fused}
        for c in fused:
            if c.path == path:  # the target's scored arms: what the convex fusion made of their scores
                retriever.settle([c], profile)
                for a in c.arms:
                    if a.arm in report.arms and a.norm is not None:
                        report.arms[a.arm].update(contribution=a.contribution, weight=a.weight, normalised=a.norm)
                    elif a.arm in report.arms and a.arm in PRIOR_ARMS and a.weight == 0.0:  # `undivided`
                        report.arms[a.arm].update(contribution=0.0, weight=0.0)
                        report.reasons.append(
                            f"{a.arm} lists every memory in its window alike "
                            "(one time or one score): it orders nothing for this query"
                        )
    else:
        parts = {c.path: [(a.arm, a.contribution) for a in c.arms] for c in fused}
    if profile.gate_priors and qvec is not None and any(a.name in PRIOR_ARMS for a in arms):
        lexical = [p for p, v in parts.items() if any(a == "fts" for a, _ in v)]
        every = retriever.every_word(fts, form, profile, lexical)
        _gated_position(retriever, parts, path, report, profile, qvec, snapshot, every)
        return
    for c in fused:
        if c.path == path:
            report.fused_position, report.fused_score = c.fused_position, c.score


def _gated_position(
    retriever: Retriever,
    parts: dict[str, list[tuple[str, float]]],
    path: str,
    report: WhyNot,
    profile: RankingProfile,
    qvec: Any,
    snapshot: Any,
    every: frozenset[str],
) -> None:
    """The fused position under gated priors (`domain/priors.py`), as the search ranks it; the
    target's prior arms say when they did not count, and why."""
    if not parts:
        return
    order, counted, cosines = retriever.gated(parts, qvec, snapshot, every, profile)
    for position, (score, row_path) in enumerate(order, start=1):
        if row_path == path:
            report.fused_position, report.fused_score = position, score
    floor = profile.floor_cosine.get(getattr(retriever.embedder, "model_id", None))
    if path in counted and not counted[path]:
        for name in PRIOR_ARMS:
            entry = report.arms.get(name)
            if entry is not None and entry.get("in_window"):
                entry.update(contribution=0.0, counted=False)
        report.reasons.append(why_not_counted(cosines.get(path), floor))
