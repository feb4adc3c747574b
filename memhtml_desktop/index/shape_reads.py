"""What the other pack shapes read beyond a recall or a search: ledger facts, resident memories,
expansions (body, neighbours, supersession chain, evidence chain).

Reads only: nothing here touches the state plane, so previewing a quota pack, listing a catalogue
and expanding a memory never count as a read (salience moves only when a person opens a memory).
Every statement binds its paths as one carray, so the cost is a statement per kind of fact, never
one per memory (the supersession chain walks one level per statement).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import apsw

from memhtml_desktop.domain.catalogue import Evidence, Expansion, Neighbour, Version
from memhtml_desktop.domain.disclosure import FoldCandidate
from memhtml_desktop.domain.quotas import LEDGER_NAMES, SPECS, LedgerMap, MemoryFacts, QuotaCandidate, Rule
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.scope import assemble_scope

CHAIN_DEPTH = 32
"""The longest supersession chain walked each way (a cycle, which memhtml's doctor reports, stops
at a memory already seen)."""

# The stamp "most recent" sorts by: the UTC instant of `updated`, and nothing ('' sorts last) for a
# memory claiming an update in the future, as the recency arm treats it.
_RECENT = (
    "CASE WHEN f.updated_utc <= (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', memhtml_now())) THEN f.updated_utc ELSE '' END"
)


def _carray(paths: Sequence[str]) -> apsw.CArrayBinding:
    return apsw.carray(tuple(paths))


class _Binder:
    """Numbered placeholders from `start`, so rule values follow the scope's."""

    def __init__(self, start: int) -> None:
        self.next, self.params = start, []

    def bind(self, values: Sequence[Any]) -> str:
        markers = []
        for value in values:
            markers.append(f"?{self.next}")
            self.params.append(value)
            self.next += 1
        return ", ".join(markers)


def rule_sql(rule: Rule, binder: _Binder) -> str:
    """One rule as a condition on `f` (files), the same test `Rule.matches` makes in Python."""
    conds = []
    if rule.types:
        conds.append(f"f.memory_type IN ({binder.bind(rule.types)})")
    if rule.task_status:
        conds.append(f"f.task_status IN ({binder.bind(rule.task_status)})")
    if rule.needs_revision is not None:
        conds.append(f"f.needs_revision = {1 if rule.needs_revision else 0}")
    if rule.entity_types:
        conds.append(
            f"f.path IN (SELECT e.path FROM file_entities e WHERE e.entity_type IN ({binder.bind(rule.entity_types)}))"
        )
    if rule.tags:
        conds.append(f"f.path IN (SELECT t.path FROM file_tags t WHERE t.tag IN ({binder.bind(rule.tags)}))")
    if rule.path_prefixes:
        conds.append(
            "(" + " OR ".join(f"substr(f.path, 1, {len(p)}) = {binder.bind([p])}" for p in rule.path_prefixes) + ")"
        )
    return "(" + " AND ".join(conds or ["1"]) + ")"


def resident_scope(scope: Scope) -> Scope:
    """Where and when the query asks, without what it is about: a resident ledger is standing
    context, so types, tags, an entity and facets do not narrow it; the workspace, the PARA bucket,
    the archive flag and an as-of instant do."""
    return Scope(workspace=scope.workspace, para=scope.para, include_archived=scope.include_archived, as_of=scope.as_of)


def _driver(rule: Rule, binder: _Binder, live: bool) -> str:
    """Paths a superset of `rule`'s memories, found through an index (never a walk of `files`,
    whose rows are long: ~200 ms at 20,000). The rule itself is tested again on every candidate."""
    if rule.path_prefixes:
        return " UNION ".join(
            f"SELECT path FROM files WHERE path >= {binder.bind([p])} AND path < {binder.bind([p[:-1] + chr(ord(p[-1]) + 1)])}"
            for p in rule.path_prefixes
        )
    if rule.entity_types:
        return f"SELECT path FROM file_entities WHERE entity_type IN ({binder.bind(rule.entity_types)})"
    if rule.tags:
        return f"SELECT path FROM file_tags WHERE tag IN ({binder.bind(rule.tags)})"
    if rule.needs_revision:
        return "SELECT path FROM files WHERE needs_revision = 1"  # files_needs_revision (migration 0008)
    if live and rule.task_status:  # files_task_status: a partial index over live tasks
        return (
            f"SELECT path FROM files WHERE memory_type = 'task' AND archived = 0 "
            f"AND task_status IN ({binder.bind(rule.task_status)})"
        )
    if live and rule.types:  # files_type_active
        return f"SELECT path FROM files WHERE archived = 0 AND memory_type IN ({binder.bind(rule.types)})"
    return "SELECT path FROM files"


class ResidentCache:
    """The resident ledgers per index version: they do not depend on the query, so a recall pays for
    them once per write to the index (`index_state.vectors_version` moves with every one), per scope,
    map and minute of the clock (a memory dated in the future sorts by nothing until its time)."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._items: dict[tuple, tuple[dict[str, list[QuotaCandidate]], dict[str, int]]] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple):
        with self._lock:
            return self._items.get(key)

    def put(self, key: tuple, value) -> None:
        with self._lock:
            if len(self._items) >= self.size:
                self._items.pop(next(iter(self._items)))
            self._items[key] = value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def resident(
    conn: apsw.Connection,
    scope: Scope,
    ledger_map: LedgerMap,
    *,
    cache_key: str = "",
    cache: ResidentCache | None = None,
) -> tuple[dict[str, list[QuotaCandidate]], dict[str, int]]:
    """Per resident ledger, its first `window` memories in the ledger's order and how many it has.

    The ledger of each memory is the map's first matching rule, computed in SQL as a CASE over the
    rules in order (tests hold it equal to `LedgerMap.ledger_of`), over the candidates the resident
    rules' drivers find through indexes. Tasks are in: an open task is the pending ledger's whole
    point, though search leaves tasks out unless asked. With `cache_key` (the index's path) the
    answer is kept in `cache` (the Store's, index/caches.py) until the index changes.
    """
    rscope = resident_scope(scope)
    key = None
    if cache_key and cache is not None:
        (version,) = conn.execute("SELECT vectors_version FROM index_state WHERE id = 1").fetchone()
        (now,) = conn.execute("SELECT substr(memhtml_now(), 1, 16)").fetchone()
        key = (cache_key, version, now, repr(rscope), json.dumps(ledger_map.to_json(), sort_keys=True))
        hit = cache.get(key)
        if hit is not None:
            return {name: list(paths) for name, paths in hit[0].items()}, dict(hit[1])
    wanted = [name for name in LEDGER_NAMES if SPECS[name].resident]
    scope_sql = assemble_scope(rscope, start=1)
    where = "".join(f"\n AND {cond}" for axis, cond in scope_sql.axes if axis != "tasks").replace("{alias}", "f")
    binder = _Binder(len(scope_sql.params) + 1)
    cases = " ".join(f"WHEN {rule_sql(rule, binder)} THEN {binder.bind([rule.ledger])}" for rule in ledger_map.rules)
    otherwise = binder.bind([ledger_map.otherwise])
    ledger_expr = f"CASE {cases} ELSE {otherwise} END" if cases else otherwise
    live = not (rscope.include_archived or rscope.as_of)
    if ledger_map.otherwise in wanted:
        drivers = "SELECT path FROM files"
    else:
        drivers = " UNION ".join(_driver(rule, binder, live) for rule in ledger_map.rules if rule.ledger in wanted)
    resident_list = binder.bind(wanted)
    stable = binder.bind([n for n in wanted if SPECS[n].order == "stability"] or [""])
    window = binder.bind([ledger_map.window])
    sql = f"""
    SELECT path, ledger, total FROM (
      SELECT path, ledger, count(*) OVER (PARTITION BY ledger) AS total,
             ROW_NUMBER() OVER (PARTITION BY ledger ORDER BY
               CASE WHEN ledger IN ({stable}) THEN -importance ELSE 0 END, rec DESC, path ASC) AS n
      FROM (SELECT f.path AS path, f.importance AS importance, {_RECENT} AS rec, {ledger_expr} AS ledger
            FROM files f WHERE f.path IN ({drivers or "SELECT NULL WHERE 0"}){where})
      WHERE ledger IN ({resident_list}))
    WHERE n <= {window} ORDER BY ledger, n"""
    rows = conn.execute(sql, (*scope_sql.params, *binder.params)).fetchall()
    totals = {name: 0 for name in wanted}
    order: dict[str, list[str]] = {name: [] for name in wanted}
    for path, ledger, total in rows:
        totals[ledger] = int(total)
        order[ledger].append(path)
    found = candidates(conn, [p for paths in order.values() for p in paths])
    out = {name: [found[p] for p in paths if p in found] for name, paths in order.items()}
    if key is not None and cache is not None:
        cache.put(key, (out, totals))
    return {name: list(paths) for name, paths in out.items()}, dict(totals)


def candidates(
    conn: apsw.Connection, paths: Sequence[str], ranks: dict[str, int] | None = None
) -> dict[str, QuotaCandidate]:
    """A QuotaCandidate per indexed path: its fold texts, the facts the rules read, how it sorts."""
    if not paths:
        return {}
    ranks = ranks or {}
    arr = _carray(paths)
    rows = conn.execute(
        f"SELECT f.path, f.title, f.memory_type, f.disclosure_text, f.gist, f.task_status, f.needs_revision, "
        f"f.importance, {_RECENT} FROM files f WHERE f.path IN carray(?1)",
        (arr,),
    ).fetchall()
    names: dict[str, list[str]] = {}
    kinds: dict[str, set[str]] = {}
    for path, etype, ename in conn.execute(
        "SELECT path, entity_type, entity_name FROM file_entities WHERE path IN carray(?1) "
        "ORDER BY path, entity_type, entity_name",
        (arr,),
    ):
        names.setdefault(path, []).append(ename)
        kinds.setdefault(path, set()).add(etype)
    tags: dict[str, set[str]] = {}
    for path, tag in conn.execute("SELECT path, tag FROM file_tags WHERE path IN carray(?1)", (arr,)):
        tags.setdefault(path, set()).add(tag)
    out = {}
    for path, title, mtype, disclosure_text, gist, status, revision, importance, rec in rows:
        out[path] = QuotaCandidate(
            fold=FoldCandidate(path, title or "", mtype, disclosure_text or "", gist or "", tuple(names.get(path, ()))),
            facts=MemoryFacts(
                path, mtype, status, bool(revision), frozenset(kinds.get(path, ())), frozenset(tags.get(path, ()))
            ),
            importance=int(importance if importance is not None else 5),
            recency=rec or "",
            rank=ranks.get(path),
        )
    return out


# -- expand ---------------------------------------------------------------------------------------


def _known(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, tuple[str, bool]]:
    if not paths:
        return {}
    return {
        p: (t or "", bool(a))
        for p, t, a in conn.execute(
            "SELECT path, title, archived FROM files WHERE path IN carray(?1)", (_carray(sorted(set(paths))),)
        )
    }


def _chains(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
    """Per path, (path, step) of every version linked to it by authored `supersedes` edges: older
    versions negative, newer positive, the path itself at 0. Walked one level per statement for
    all paths at once, each way (a cycle stops at a version already seen)."""
    seen: dict[str, dict[str, int]] = {p: {p: 0} for p in paths}
    for sign, sql in (
        (
            -1,
            "SELECT src_path, dst_path FROM edges INDEXED BY edges_src WHERE src_path IN carray(?1) "
            "AND rel = 'supersedes' AND derived = 0",
        ),
        (
            1,
            "SELECT dst_path, src_path FROM edges INDEXED BY edges_dst WHERE dst_path IN carray(?1) "
            "AND rel = 'supersedes' AND derived = 0",
        ),
    ):
        frontier = {p: [p] for p in paths}  # origin -> the versions reached at this depth
        for depth in range(1, CHAIN_DEPTH + 1):
            nodes = sorted({n for level in frontier.values() for n in level})
            if not nodes:
                break
            step: dict[str, set[str]] = {}
            for here, there in conn.execute(sql, (_carray(nodes),)):
                step.setdefault(here, set()).add(there)
            nxt: dict[str, list[str]] = {}
            for origin, level in frontier.items():
                found = sorted({t for n in level for t in step.get(n, ())} - set(seen[origin]))
                for p in found:
                    seen[origin][p] = sign * depth
                if found:
                    nxt[origin] = found
            frontier = nxt
    return {p: sorted(versions.items(), key=lambda item: (item[1], item[0])) for p, versions in seen.items()}


def expansions(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, Expansion]:
    """What expanding each path returns (an unindexed path is left out). Reads the index only."""
    paths = list(dict.fromkeys(paths))
    if not paths:
        return {}
    arr = _carray(paths)
    with conn:  # one read transaction: every statement sees the same snapshot
        rows = conn.execute(
            "SELECT path, title, memory_type, body_text FROM files WHERE path IN carray(?1)", (arr,)
        ).fetchall()
        # Two statements, not one with OR, each on its own index: left to itself the planner walks
        # `edges_derived` (every authored edge; 50 ms at 20,000 memories) instead.
        edges = sorted(
            {
                *conn.execute(
                    "SELECT src_path, rel, dst_path FROM edges INDEXED BY edges_src WHERE src_path IN carray(?1) "
                    "AND derived = 0 AND rel <> 'supersedes'",
                    (arr,),
                ),
                *conn.execute(
                    "SELECT src_path, rel, dst_path FROM edges INDEXED BY edges_dst WHERE dst_path IN carray(?1) "
                    "AND derived = 0 AND rel <> 'supersedes'",
                    (arr,),
                ),
            }
        )
        cites = conn.execute(
            "SELECT path, text, href FROM file_citations WHERE path IN carray(?1) ORDER BY path, rowid", (arr,)
        ).fetchall()
        chains = _chains(conn, [row[0] for row in rows])
        hrefs = [_href_path(h) for _, _, h in cites if h]
        ends = (
            [p for s, _, d in edges for p in (s, d)]
            + [p for c in chains.values() for p, _ in c]
            + [h for h in hrefs if h]
        )
        known = _known(conn, ends)
    wanted = set(paths)
    out: dict[str, Expansion] = {}
    for path, title, mtype, body in rows:
        neighbours = []
        for src, rel, dst in edges:
            for me, other, direction in ((src, dst, "out"), (dst, src, "in")):
                if me == path and other != path:
                    t, archived = known.get(other, ("", other.startswith("archive/")))
                    neighbours.append(Neighbour(rel, direction, other, t, other in known, archived))
        neighbours.sort(key=lambda n: (n.direction != "out", n.rel, n.path))
        chain = tuple(
            Version(p, known.get(p, ("", False))[0], step, known.get(p, ("", False))[1], p in known)
            for p, step in chains[path]
        )
        evidence = []
        for src, text, href in cites:
            if src == path:
                target = _href_path(href) if href else None
                hit = target if target in known else None
                evidence.append(Evidence(text, href, hit, known[hit][0] if hit else ""))
        out[path] = Expansion(path, title or "", mtype, body or "", tuple(neighbours), chain, tuple(evidence))
    return {p: out[p] for p in paths if p in out and p in wanted}


def _href_path(href: str) -> str | None:
    """The store path a `q cite` href names (`/areas/x.html`, `memhtml:areas/x.html`), if it is one."""
    text = href.strip()
    if text.startswith("memhtml:"):
        text = text[len("memhtml:") :]
    if not text.startswith("/") or text.startswith("//"):
        return None
    text = text.lstrip("/").split("#", 1)[0].split("?", 1)[0]
    return text if text.endswith(".html") else None
