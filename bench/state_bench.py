"""How fast the state plane writes and exports: reinforce latency, a bulk batch, sidecar round trip.

Run: .venv/bin/python bench/state_bench.py [rows]. Prints a Store connection's open and close (what
every window job pays: the state plane's path examined, its schema and birth stamp read; issue 40),
one read bump (the reader pane's neutral reinforce on open, which must stay far below a frame), a
recall-sized batch of 40, a bulk batch, and export / import of a plane of `rows` rows (default 10,000).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.index.db import open_index  # noqa: E402
from memhtml_desktop.index.sidecar import export_access, import_access  # noqa: E402
from memhtml_desktop.index.state import reinforce  # noqa: E402


def _at(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_785_000_000 + seconds))


def main(rows: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "store").mkdir()  # without it there was no plane to write (`.memhtml/` is made, never the store)
        conn = open_index(root / "index.db", state_path=root / "store" / ".memhtml" / "state.db")
        from memhtml_desktop.index.store import Store

        store = Store(root / "store", index_path=root / "index.db")
        store.reader()
        store.close_thread_connection()
        best = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(100):
                store.reader()
                store.close_thread_connection()
            best.append((time.perf_counter() - start) / 100)
        print(f"connection open + close  {1000 * min(best):8.3f} ms (best of 5 x 100)")

        n = 500
        start = time.perf_counter()
        for i in range(n):
            reinforce(conn, [f"areas/bench/one-{i}.html"], "neutral", _at(0))
        print(f"single neutral bump      {1000 * (time.perf_counter() - start) / n:8.3f} ms")

        start = time.perf_counter()
        for i in range(50):
            reinforce(conn, [f"areas/bench/r{i}-{j}.html" for j in range(40)], "positive", _at(0))
        print(f"40-path positive batch   {1000 * (time.perf_counter() - start) / 50:8.3f} ms")

        paths = [f"areas/bench/bulk-{i:06d}.html" for i in range(rows)]
        start = time.perf_counter()
        reinforce(conn, paths, "positive", _at(0))
        print(f"{rows}-path batch        {1000 * (time.perf_counter() - start):8.1f} ms")

        start = time.perf_counter()
        data = export_access(conn)
        lines = data.count(b"\n")
        print(f"export {lines} rows         {1000 * (time.perf_counter() - start):8.1f} ms ({len(data)} bytes)")

        (root / "clone").mkdir()
        fresh = open_index(root / "fresh.db", state_path=root / "clone" / ".memhtml" / "state.db")
        start = time.perf_counter()
        report = import_access(fresh, data)
        print(f"import into empty plane  {1000 * (time.perf_counter() - start):8.1f} ms ({report.imported} rows)")
        start = time.perf_counter()
        report = import_access(fresh, data)
        print(f"re-import (no-op)        {1000 * (time.perf_counter() - start):8.1f} ms ({report.unchanged} unchanged)")
        assert export_access(fresh) == data
        fresh.close()
        conn.close()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="?", default=10_000)
    main(parser.parse_args().rows)
