"""The floors the suite's cases measure against, and the Recoll peer: the least a program could do.

    python bench/floors.py index STORE DB            # selectolax text + one FTS5 table, one transaction
    python bench/floors.py update STORE DB PATHS...  # those files' rows replaced, one transaction
    python bench/floors.py search DB QUERY           # one bm25 query, ten paths printed
    python bench/floors.py walk STORE                # stat every memory file (what a no-op rescan must do)

The index floor reads every `.html` under the four buckets, takes its text with selectolax (the
parser the app uses) and writes one row per file into one FTS5 table (porter, like the default
profile's lexical index) in one transaction: no validation, no projection, no vectors, no change
log; beside it one narrow table names each row's path, so that an update finds a file's row by its
path (an FTS5 column cannot be indexed: `DELETE ... WHERE path = ?` read the whole table for each
file, 15 s for 1,000 files at 20,000, which is no floor). The search floor binds the query's words OR-ed (the default profile's any-of form) and ranks
with bm25: one statement, no scope, no fusion, no explanation. A floor is a yardstick, not a
product: the app does more than either, and a case prints both sides so the ratio says how much
more it costs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BUCKETS = ("projects", "areas", "resources", "archive")
_WORD = re.compile(r"[^\W_]+")


def memory_files(root: Path) -> list[str]:
    out = []
    for bucket in BUCKETS:
        top = root / bucket
        for directory, _, names in os.walk(top):
            out.extend(os.path.join(directory, n) for n in names if n.endswith(".html"))
    return sorted(out)


def _text(path: str) -> str:
    from selectolax.lexbor import LexborHTMLParser

    with open(path, "rb") as handle:
        tree = LexborHTMLParser(handle.read())
    return tree.body.text(separator=" ") if tree.body is not None else ""


def _connect(db: Path):
    import apsw

    return apsw.Connection(str(db))


def build_index(root: Path, db: Path) -> int:
    """Every memory's text into one FTS5 table, in one transaction. Returns the row count."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    conn = _connect(db)
    conn.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, body, tokenize='porter unicode61')")
    conn.execute("CREATE TABLE paths (path TEXT PRIMARY KEY, id INTEGER NOT NULL)")
    files = memory_files(root)
    with conn:
        for number, full in enumerate(files, 1):
            rel = os.path.relpath(full, root)
            conn.execute("INSERT INTO docs (rowid, path, body) VALUES (?, ?, ?)", (number, rel, _text(full)))
            conn.execute("INSERT INTO paths (path, id) VALUES (?, ?)", (rel, number))
    conn.close()
    return len(files)


def update_index(root: Path, db: Path, paths: list[str]) -> int:
    """The rows of `paths` (store-relative) replaced from their files, in one transaction."""
    conn = _connect(db)
    with conn:
        (top,) = conn.execute("SELECT coalesce(max(id), 0) FROM paths").fetchone()
        for rel in paths:
            row = conn.execute("SELECT id FROM paths WHERE path = ?", (rel,)).fetchone()
            if row is not None:
                conn.execute("DELETE FROM docs WHERE rowid = ?", row)
            full = root / rel
            if full.exists():
                if row is None:
                    top += 1
                    row = (top,)
                    conn.execute("INSERT INTO paths (path, id) VALUES (?, ?)", (rel, top))
                conn.execute("INSERT INTO docs (rowid, path, body) VALUES (?, ?, ?)", (row[0], rel, _text(str(full))))
            elif row is not None:
                conn.execute("DELETE FROM paths WHERE path = ?", (rel,))
    conn.close()
    return len(paths)


def any_form(query: str) -> str | None:
    words = _WORD.findall(query.lower())
    return " OR ".join(f'"{w}"' for w in words) if words else None


def search(conn, query: str, limit: int = 10) -> list[str]:
    match = any_form(query)
    if match is None:
        return []
    return [
        r[0]
        for r in conn.execute("SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?", (match, limit))
    ]


def walk(root: Path) -> int:
    count = 0
    for path in memory_files(root):
        os.stat(path)
        count += 1
    return count


# -- Recoll, the peer ---------------------------------------------------------------------------

RECOLL_PYTHON = "/usr/bin/python3"  # Debian's python3-recoll lives in the system interpreter


def recoll_available() -> str | None:
    """None when recollindex, recollq and the Python module are there; otherwise why not."""
    for tool in ("recollindex", "recollq"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install recoll)"
    probe = subprocess.run([RECOLL_PYTHON, "-c", "from recoll import recoll"], capture_output=True)
    if probe.returncode != 0:
        return "the recoll Python module is not installed (Debian: python3-recoll)"
    return None


def recoll_config(root: Path, confdir: Path) -> Path:
    """A Recoll configuration indexing only `root`'s buckets' HTML, in `confdir`."""
    confdir.mkdir(parents=True, exist_ok=True)
    (confdir / "recoll.conf").write_text(
        f"topdirs = {' '.join(str(root / b) for b in BUCKETS if (root / b).is_dir())}\n"
        "skippedNames = .git .memhtml\nindexedmimetypes = text/html\nloglevel = 1\n"
        "idxflushmb = 50\nthrTCounts = 2 2 2\n",
        encoding="utf-8",
    )
    return confdir


RECOLL_TIMER = r"""
import json, sys, time
from recoll import recoll
db = recoll.connect(confdir=sys.argv[1])
queries = [q.strip() for q in open(sys.argv[2], encoding="utf-8") if q.strip()]
rounds = int(sys.argv[3])
def one(q):
    query = db.query()
    query.execute(" OR ".join(q.split()), stemming=1)
    return query.fetchmany(10)
for q in queries:
    one(q)
times = []
for _ in range(rounds):
    for q in queries:
        t = time.perf_counter(); one(q); times.append((time.perf_counter() - t) * 1000)
print(json.dumps(times))
"""


def recoll_search_times(confdir: Path, queries: Path, rounds: int) -> list[float]:
    """Warm in-process Recoll query times (ms), measured in Debian's Python by its own module."""
    import json

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(RECOLL_TIMER)
    try:
        out = subprocess.run(
            [RECOLL_PYTHON, handle.name, str(confdir), str(queries), str(rounds)],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(handle.name)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("index", help="build the index floor")
    p.add_argument("store", type=Path)
    p.add_argument("db", type=Path)
    p = sub.add_parser("update", help="replace some files' rows")
    p.add_argument("store", type=Path)
    p.add_argument("db", type=Path)
    p.add_argument("paths", nargs="*")
    p.add_argument("--from-file", type=Path, help="store-relative paths, one a line")
    p = sub.add_parser("search", help="one bm25 query")
    p.add_argument("db", type=Path)
    p.add_argument("query")
    p = sub.add_parser("walk", help="stat every memory file")
    p.add_argument("store", type=Path)
    args = parser.parse_args(argv)
    if args.what == "index":
        print(build_index(args.store, args.db))
    elif args.what == "update":
        paths = list(args.paths) + (args.from_file.read_text().split() if args.from_file else [])
        print(update_index(args.store, args.db, paths))
    elif args.what == "search":
        conn = _connect(args.db)
        print("\n".join(search(conn, args.query)))
    else:
        print(walk(args.store))
    return 0


if __name__ == "__main__":
    sys.exit(main())
