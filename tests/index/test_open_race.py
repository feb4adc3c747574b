"""Threads opening one fresh index at the same moment (CI run 27's failure: the first-run window's
prepare job and its first search both created the index, and one got "database is locked" from
`PRAGMA journal_mode=WAL`, which SQLite reports without asking the busy handler)."""

from __future__ import annotations

import threading

from memhtml_desktop.index import db as dbmod


def test_three_threads_opening_a_fresh_index_together_all_get_a_wal_connection(tmp_path):
    # Before the fix 11 of 40 such rounds lost an opener; 20 rounds make a pass by luck unlikely.
    for round_no in range(20):
        path = tmp_path / f"index-{round_no}.db"
        gate = threading.Barrier(3)
        modes: list[object] = []

        def open_it() -> None:
            gate.wait()
            try:
                conn = dbmod.open_index(path, state_path=None)
                modes.append(conn.execute("PRAGMA journal_mode").fetchall()[0][0])
                conn.close()
            except Exception as exc:  # noqa: BLE001 - the assertion names what went wrong
                modes.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert modes == ["wal", "wal", "wal"], f"round {round_no}: {modes}"
