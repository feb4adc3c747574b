"""What the other pack shapes read beyond a recall or a search: ledger facts, resident memories,
expansions (body, neighbours, supersession chain, evidence chain).

Reads only: nothing here touches the state plane, so previewing a quota pack, listing a catalogue
and expanding a memory never count as a read (salience moves only when a person opens a memory).
Every statement binds its paths as one carray, so the cost is a statement per kind of fact, never
one per memory (the supersession chain walks one level per statement).
"""

from __future__ import annotations

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
_RECENT = "CASE WHEN f.updated_utc <= (SELECT strftime('%Y-%m-%dT%H:%M:%fZ', memhtml_now())) THEN f.updated_utc ELSE '' END"


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
        conds.append(f"f.path IN (SELECT e.path FROM file_entities e WHERE e.entity_type IN ({binder.bind(rule.entity_types)}))")
    if rule.tags:
        conds.append(f"f.path IN (SELECT t.path FROM file_tags t WHERE t.tag IN ({binder.bind(rule.tags)}))")
    if rule.path_prefixes:
        conds.append("(" + " OR ".join(
            f"substr(f.path, 1, {len(p)}) = {binder.bind([p])}" for p in rule.path_prefixes) + ")")
    return "(" + " AND ".join(conds or ["1"]) + ")"


def resident_scope(scope: Scope) -> Scope:
    """Where and when the query asks, without what it is about: a resident ledger is standing
    context, so types, tags, an entity and facets do not narrow it; the workspace, the PARA bucket,
    the archive flag and an as-of instant do."""
    return Scope(workspace=scope.workspace, para=scope.para, include_archived=scope.include_archived, as_of=scope.as_of)


def resident(
    conn: apsw.Connection, scope: Scope, ledger_map: LedgerMap
) -> tuple[dict[str, list[QuotaCandidate]], dict[str, int]]:
    """Per resident ledger, its first `window` memories in the ledger's order and how many it has.

    The ledger of each memory is the map's first matching rule, computed in SQL as a CASE over the
    rules in order (tests hold it equal to `LedgerMap.ledger_of`). Tasks are in: an open task is the
    pending ledger's whole point, though search leaves tasks out unless asked.
    """
    wanted = [name for name in LEDGER_NAMES if SPECS[name].resident]
    scope_sql = assemble_scope(resident_scope(scope), start=1)
    where = "".join(f"\n AND {cond}" for axis, cond in scope_sql.axes if axis != "tasks").replace("{alias}", "f")
    binder = _Binder(len(scope_sql.params) + 1)
    cases = " ".join(f"WHEN {rule_sql(rule, binder)} THEN {binder.bind([rule.ledger])}" for rule in ledger_map.rules)
    otherwise = binder.bind([ledger_map.otherwise])
    ledger_expr = f"CASE {cases} ELSE {otherwise} END" if cases else otherwise
    # Only rows some resident rule could take are classified (unless `otherwise` is resident itself).
    pre = [rule_sql(rule, binder) for rule in ledger_map.rules if rule.ledger in wanted]
    prefilter = "" if ledger_map.otherwise in wanted else f"\n AND ({' OR '.join(pre) or '0'})"
    resident_list = binder.bind(wanted)
    stable = binder.bind([n for n in wanted if SPECS[n].order == "stability"] or [""])
    window = binder.bind([ledger_map.window])
    sql = f"""
    SELECT path, ledger, total FROM (
      SELECT path, ledger, count(*) OVER (PARTITION BY ledger) AS total,
             ROW_NUMBER() OVER (PARTITION BY ledger ORDER BY
               CASE WHEN ledger IN ({stable}) THEN -importance ELSE 0 END, rec DESC, path ASC) AS n
      FROM (SELECT f.path AS path, f.importance AS importance, {_RECENT} AS rec, {ledger_expr} AS ledger
            FROM files f WHERE 1 = 1{where}{prefilter})
      WHERE ledger IN ({resident_list}))
    WHERE n <= {window} ORDER BY ledger, n"""
    rows = conn.execute(sql, (*scope_sql.params, *binder.params)).fetchall()
    totals = {name: 0 for name in wanted}
    order: dict[str, list[str]] = {name: [] for name in wanted}
    for path, ledger, total in rows:
        totals[ledger] = int(total)
        order[ledger].append(path)
    found = candidates(conn, [p for paths in order.values() for p in paths])
    return {name: [found[p] for p in paths if p in found] for name, paths in order.items()}, totals


def candidates(conn: apsw.Connection, paths: Sequence[str], ranks: dict[str, int] | None = None) -> dict[str, QuotaCandidate]:
    """A QuotaCandidate per indexed path: its fold texts, the facts the rules read, how it sorts."""
    if not paths:
        return {}
    ranks = ranks or {}
    arr = _carray(paths)
    rows = conn.execute(
        f"SELECT f.path, f.title, f.memory_type, f.disclosure_text, f.gist, f.task_status, f.needs_revision, "
        f"f.importance, {_RECENT} FROM files f WHERE f.path IN carray(?1)", (arr,)).fetchall()
    names: dict[str, list[str]] = {}
    kinds: dict[str, set[str]] = {}
    for path, etype, ename in conn.execute(
            "SELECT path, entity_type, entity_name FROM file_entities WHERE path IN carray(?1) "
            "ORDER BY path, entity_type, entity_name", (arr,)):
        names.setdefault(path, []).append(ename)
        kinds.setdefault(path, set()).add(etype)
    tags: dict[str, set[str]] = {}
    for path, tag in conn.execute("SELECT path, tag FROM file_tags WHERE path IN carray(?1)", (arr,)):
        tags.setdefault(path, set()).add(tag)
    out = {}
    for path, title, mtype, disclosure_text, gist, status, revision, importance, rec in rows:
        out[path] = QuotaCandidate(
            fold=FoldCandidate(path, title or "", mtype, disclosure_text or "", gist or "", tuple(names.get(path, ()))),
            facts=MemoryFacts(path, mtype, status, bool(revision), frozenset(kinds.get(path, ())),
                              frozenset(tags.get(path, ()))),
            importance=int(importance if importance is not None else 5), recency=rec or "", rank=ranks.get(path),
        )
    return out


# -- expand ---------------------------------------------------------------------------------------

def _known(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, tuple[str, bool]]:
    if not paths:
        return {}
    return {p: (t or "", bool(a)) for p, t, a in conn.execute(
        "SELECT path, title, archived FROM files WHERE path IN carray(?1)", (_carray(sorted(set(paths))),))}


def _chains(conn: apsw.Connection, paths: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
    """Per path, (path, step) of every version linked to it by authored `supersedes` edges: older
    versions negative, newer positive, the path itself at 0. Walked one level per statement for
    all paths at once, each way (a cycle stops at a version already seen)."""
    seen: dict[str, dict[str, int]] = {p: {p: 0} for p in paths}
    for sign, sql in ((-1, "SELECT src_path, dst_path FROM edges WHERE src_path IN carray(?1) "
                           "AND rel = 'supersedes' AND derived = 0"),
                      (1, "SELECT dst_path, src_path FROM edges WHERE dst_path IN carray(?1) "
                          "AND rel = 'supersedes' AND derived = 0")):
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
        rows = conn.execute("SELECT path, title, memory_type, body_text FROM files WHERE path IN carray(?1)",
                            (arr,)).fetchall()
        # Two statements, not one with OR: each side is served by its own index of edges.
        edges = sorted({*conn.execute(
            "SELECT src_path, rel, dst_path FROM edges WHERE src_path IN carray(?1) AND derived = 0 "
            "AND rel <> 'supersedes'", (arr,)), *conn.execute(
            "SELECT src_path, rel, dst_path FROM edges WHERE dst_path IN carray(?1) AND derived = 0 "
            "AND rel <> 'supersedes'", (arr,))})
        cites = conn.execute("SELECT path, text, href FROM file_citations WHERE path IN carray(?1) ORDER BY path, rowid",
                             (arr,)).fetchall()
        chains = _chains(conn, [row[0] for row in rows])
        hrefs = [_href_path(h) for _, _, h in cites if h]
        ends = [p for s, _, d in edges for p in (s, d)] + [p for c in chains.values() for p, _ in c] + [h for h in hrefs if h]
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
        chain = tuple(Version(p, known.get(p, ("", False))[0], step, known.get(p, ("", False))[1], p in known)
                      for p, step in chains[path])
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
        text = text[len("memhtml:"):]
    if not text.startswith("/") or text.startswith("//"):
        return None
    text = text.lstrip("/").split("#", 1)[0].split("?", 1)[0]
    return text if text.endswith(".html") else None
