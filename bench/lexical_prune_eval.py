"""Would an exact MaxScore pre-filter make the lexical arm cheaper? Measured, not built into the arm.

    python bench/lexical_prune_eval.py --store DIR --index FILE [--rounds 3] [--window 160]

The default profile's lexical arm binds the any-of form (`"a" OR "b" OR ...`), which matches a fifth
of a store, and FTS5's bm25 scores every match (~0.6 µs each: 90 % of the statement). A term's share
of any row's bm25 is below (k1 + 1) × idf, so the rows holding only terms whose bounds add up to less
than the window's n-th best score θ cannot reach the window (MaxScore). Two ways to know θ are tried,
each exact (every variant's top-n is checked against the plain statement's, ties at the n-th aside):

- **seed**: the full MATCH scored over the rows of the rarest terms (`+rowid IN` their MATCH), θ its
  n-th best; the rows holding a remaining term are scored again unless the seed already holds them.
- **partial**: the rarest terms' own MATCH scored alone (a lower bound of each row's score), θ its
  n-th best; then the restricted full MATCH.

Each variant pays the phrases' row counts, its θ statement, and a full MATCH restricted by
`+rowid IN (...)`: the restriction is tested on every match, and a hit costs about what scoring it
would. Prints per query the plain statement's CPU and each variant's, then the totals (one JSON line).
Findings (issue 43, docs/benchmarks.md): neither pays at 20,000 or 100,000 memories.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from pathlib import Path

ANY_OF = re.compile(r'"[^"]*"(?: OR "[^"]*")+')
PHRASE = re.compile(r'"[^"]*"')
K1 = 1.2


def row_count(conn, table: str) -> int:
    """FTS5's row count (its averages record, `%_data` id 1, starts with a varint)."""
    blob = bytes(conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()[0])
    value = 0
    for i, byte in enumerate(blob[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return value


class Variants:
    def __init__(self, conn, table: str, weights: str) -> None:
        self.conn, self.table = conn, table
        self.plain = (
            f"SELECT rowid, bm25({table}{weights}) AS score FROM {table} WHERE {table} MATCH ?1 "
            f"ORDER BY score ASC LIMIT ?2"
        )
        self.within = self.plain.replace(
            " ORDER BY", f" AND +rowid IN (SELECT rowid FROM {table} WHERE {table} MATCH ?3) ORDER BY"
        )
        self.rows = row_count(conn, table)

    def terms(self, match: str):
        """(phrases by bound, rarest last; their bounds; their row counts) or None."""
        if ANY_OF.fullmatch(match) is None:
            return None
        phrases = PHRASE.findall(match)
        docs = [
            self.conn.execute(f"SELECT count(*) FROM {self.table} WHERE {self.table} MATCH ?1", (p,)).fetchone()[0]
            for p in phrases
        ]
        bounds = [(K1 + 1.0) * max(math.log((self.rows - n + 0.5) / (n + 0.5)), 1e-6) * (1 + 1e-9) for n in docs]
        order = sorted(range(len(phrases)), key=lambda i: (bounds[i], -i))
        return [phrases[i] for i in order], [bounds[i] for i in order], [docs[i] for i in order]

    def seed_suffix(self, docs, n):
        first, held = len(docs), 0
        while first > 1 and held < 2 * n:
            first -= 1
            held += docs[first]
        return first

    def dropped(self, bounds, theta):
        total, k = 0.0, 0
        for bound in bounds[:-1]:
            if total + bound >= theta:
                break
            total, k = total + bound, k + 1
        return k

    def seed(self, match, n):
        terms = self.terms(match)
        if terms is None:
            return self.conn.execute(self.plain, (match, n)).fetchall()
        phrases, bounds, docs = terms
        first = self.seed_suffix(docs, n)
        seed = self.conn.execute(self.within, (match, n, " OR ".join(phrases[first:]))).fetchall()
        if len(seed) < n:
            return self.conn.execute(self.plain, (match, n)).fetchall()
        k = self.dropped(bounds, -seed[-1][1])
        if not k:
            return self.conn.execute(self.plain, (match, n)).fetchall()
        if k >= first:
            return seed
        return self.conn.execute(self.within, (match, n, " OR ".join(phrases[k:]))).fetchall()

    def partial(self, match, n):
        terms = self.terms(match)
        if terms is None:
            return self.conn.execute(self.plain, (match, n)).fetchall()
        phrases, bounds, docs = terms
        first = self.seed_suffix(docs, n)
        part = self.conn.execute(self.plain, (" OR ".join(phrases[first:]), n)).fetchall()
        k = self.dropped(bounds, -part[-1][1] * (1 - 1e-9)) if len(part) >= n else 0
        if not k:
            return self.conn.execute(self.plain, (match, n)).fetchall()
        return self.conn.execute(self.within, (match, n, " OR ".join(phrases[k:]))).fetchall()


def same_top(plain, got, n) -> bool:
    cut = plain[-1][1] if len(plain) == n else math.inf
    return sorted(r for r in plain if r[1] < cut) == sorted(r for r in got if r[1] < cut)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--index", type=Path, required=True)
    p.add_argument("--queries", type=Path, default=Path(__file__).resolve().parent / "queries.txt")
    p.add_argument("--rounds", type=int, default=3, help="best CPU of this many runs per query and variant")
    p.add_argument("--window", type=int, default=160, help="rows the arm's statement keeps (4 x the arm window)")
    args = p.parse_args(argv)
    from memhtml_desktop.domain.ranking import DEFAULT
    from memhtml_desktop.index import retrieval
    from memhtml_desktop.index.retrieval_sql import FTS_TABLES, lexical_weights
    from memhtml_desktop.index.store import Store

    store = Store(args.store, index_path=args.index)
    matches = []
    original = retrieval.Retriever.lexical_param

    def spy(self, match, scope_sql, profile):
        matches.append(match)
        return original(self, match, scope_sql, profile)

    retrieval.Retriever.lexical_param = spy
    for query in [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]:
        store.search(query, limit=10)
    retrieval.Retriever.lexical_param = original
    conn = store.reader()
    variants = Variants(conn, FTS_TABLES[DEFAULT.lexical], lexical_weights(DEFAULT.field_weights))

    def best(fn, match):
        low, out = math.inf, None
        for _ in range(args.rounds):
            started = time.process_time()
            out = fn(match, args.window)
            low = min(low, time.process_time() - started)
        return low * 1000, out

    totals = {"plain": 0.0, "seed": 0.0, "partial": 0.0}
    worse = {"seed": 0, "partial": 0}
    for match in matches:
        plain_ms, plain = best(lambda m, n: conn.execute(variants.plain, (m, n)).fetchall(), match)
        totals["plain"] += plain_ms
        line = f"plain {plain_ms:7.2f}"
        for name in ("seed", "partial"):
            ms, got = best(getattr(variants, name), match)
            assert same_top(plain, got, args.window), (name, match)
            totals[name] += ms
            worse[name] += ms > plain_ms
            line += f"  {name} {ms:7.2f}"
        print(f"{line}  {match[:60]}")
    print(
        json.dumps(
            {"queries": len(matches), "cpu_ms": {k: round(v, 1) for k, v in totals.items()}, "slower_than_plain": worse}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
