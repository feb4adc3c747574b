"""Item 5: a second process bumps state.access WHILE this process reads, searches, reinforces and indexes.

tests/index/test_state.py already races `state.reinforce` against a memhtml stand-in. What it does
not cover is the app's own entry points running together: here `Store.read` (which bumps),
`Store.search` and `Store.reinforce` run on the main thread while `Store.index` runs on a second
thread (its own connection: a rebuild, then a run that moves files whose state rows must follow)
and `state_bumper.py` writes the same rows from another process.

Checked: no exception escapes read/search/reinforce/index; every read was counted (a bump that a
busy plane swallowed would leave `detail.bump` empty and log "not counted"); nothing logged
"database is locked"; the stand-in never met a lock either; and each row ends at exactly
what both sides say they added (no lost update). The app's clock moves 1,000 s a call, so its
900 s cooldowns never hide a bump and the accounting is exact.
"""

from __future__ import annotations

import pytest
from writer_race import SteppingClock, concurrent_scenario

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.index.store import Store

SECONDS = 6.0


@pytest.mark.slow
def test_app_reads_searches_and_indexes_while_memhtml_bumps(tmp_path):
    # memhtml bumping every 2 ms is already far busier than its one-process-per-command CLI; the bench
    # also runs a tight loop (pause 0), where a read can wait out the whole 5 s busy timeout.
    figures = concurrent_scenario(tmp_path, pause_s=0.002, seconds=SECONDS)
    print(figures)
    assert not figures["index_errors"], figures["index_errors"]
    assert not figures["errors"], figures["errors"]
    assert figures["uncounted_reads"] == 0, "reads of indexed files were not counted"
    assert not figures["logged_locked"] and not figures["logged_not_counted"]
    assert figures["standin_busy"] == 0, "memhtml met a lock the app held too long"
    assert figures["state_integrity"] == ["ok"]
    assert not figures["mismatches"], figures["mismatches"]  # no lost update, on either side
    assert figures["overlap"]["bumper"] >= 10 and figures["overlap"]["indexer"] >= 1, figures["overlap"]
    assert figures["standin_rounds"] > 10 and figures["app_rounds"] >= 40


@pytest.mark.slow
def test_a_read_during_a_rebuild_is_counted(tmp_path):
    """A rebuild re-projects in place: mid-rebuild every memory is still there and a read counts.

    (It used to empty the index first, so every not-yet-re-added memory was missing and its read
    was not counted.)
    """
    root = tmp_path / "store"
    generate_store(root, 1200, 5)
    index = tmp_path / "index.db"
    writer = Store(root, index_path=index, clock=SteppingClock())
    writer.index()
    everything = {p for (p,) in writer.reader().execute("SELECT path FROM files WHERE archived = 0")}
    reader = Store(root, index_path=index, clock=SteppingClock())  # the window's reader, its own connection
    seen = []

    def progress(phase, done, total):
        if phase == "index" and not seen:  # the first batch of the rebuild has committed
            present = {p for (p,) in reader.reader().execute("SELECT path FROM files")}
            assert everything <= present, "no memory goes missing during a rebuild"
            seen.append(reader.read(max(everything)))

    writer.index(rebuild=True, progress=progress)
    (detail,) = seen
    assert detail.indexed and detail.bump is not None and detail.path in detail.bump.bumped
