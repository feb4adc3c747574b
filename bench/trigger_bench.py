"""The FTS update triggers before and after migration 0013, on one index's copies (issue 43).

    python bench/trigger_bench.py INDEX [--rows 1000] [--rounds 5]

Two copies of INDEX (migrated by this tree, so with 0013's triggers): one keeps them, the other has the triggers of 0003/0009 put back (they fired whenever the upsert named the columns). In
turns, each copy upserts the same `rows` files rows as the indexer does for a memory re-read with
the same words (a new blob sha, every other value as it was), in one transaction; prints CPU and wall
per side (median) and their ratio.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw  # noqa: E402

from memhtml_desktop.index import writer  # noqa: E402
from memhtml_desktop.index.db import open_index  # noqa: E402

OLD = [
    "DROP TRIGGER files_fts_au",
    "CREATE TRIGGER files_fts_au AFTER UPDATE OF fts_text ON files BEGIN "
    "INSERT INTO files_fts (files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text); "
    "INSERT INTO files_fts (rowid, fts_text) VALUES (new.rowid, new.fts_text); END",
    "DROP TRIGGER files_fts_stemmed_au",
    "CREATE TRIGGER files_fts_stemmed_au AFTER UPDATE OF title, gist, body_text ON files BEGIN "
    "INSERT INTO files_fts_stemmed (files_fts_stemmed, rowid, title, gist, body_text) "
    "VALUES ('delete', old.rowid, old.title, old.gist, old.body_text); "
    "INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) VALUES (new.rowid, new.title, new.gist, new.body_text); END",
]


def one(path: Path, rows: int, round_no: int) -> tuple[float, float]:
    conn = open_index(str(path), state_path=str(path) + ".state.db")
    cols = writer._WRITTEN
    got = conn.execute(f"SELECT {', '.join(cols)} FROM files ORDER BY path LIMIT ? OFFSET ?",
                       (rows, rows * round_no)).fetchall()  # fmt: skip
    bound = [r[:1] + (f"{round_no:040d}",) + r[2:] for r in got]
    cpu, wall = time.process_time(), time.perf_counter()
    with conn:
        conn.executemany(writer._UPSERT_FILE, bound)
    out = time.process_time() - cpu, time.perf_counter() - wall
    conn.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="trigger-bench-"))
    try:
        sides = {"0013 (words changed only)": work / "new.db", "before 0013 (columns named)": work / "old.db"}
        for path in sides.values():
            source = apsw.Connection(str(args.index))
            target = apsw.Connection(str(path))
            with target.backup("main", source, "main") as copy:
                copy.step()
            source.close()
            target.close()
            open_index(str(path), state_path=str(path) + ".state.db").close()  # migrated first: 0013 is in
        conn = apsw.Connection(str(sides["before 0013 (columns named)"]))
        for statement in OLD:
            conn.execute(statement)
        conn.close()
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        wall: dict[str, list[float]] = {name: [] for name in sides}
        for round_no in range(args.rounds):
            for name, path in sides.items():
                c, w = one(path, args.rows, round_no)
                cpu[name].append(c)
                wall[name].append(w)
        for name in sides:
            print(
                f"{name:28s} {args.rows} same-words upserts: CPU median {1000 * statistics.median(cpu[name]):.0f} ms, "
                f"wall median {1000 * statistics.median(wall[name]):.0f} ms"
            )
        new, old = (statistics.median(cpu[n]) for n in sides)
        print(f"CPU ratio (0013 / before): {new / old:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
