"""When the filters pane counts: while it has nothing to list a count never waits for the store to
be quiet, a recount does, and counts asked before a change of the store are shown but not taken
as current.

The window is real and its jobs run on its own runner over a real indexed store; a change of the
store is announced the way the watcher announces one (`runner.events.announce`), and the quiet
timer is made long so that only the code under test can count before it runs out.
"""

from __future__ import annotations

from memhtml_desktop.domain.changes import StoreChange
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store
from memhtml_desktop.ui.filters.flat_counts import flatten
from tests.ui.conftest import write_golden_store

WAIT = 15000
LONG_QUIET_MS = 600_000  # never runs out during a test


def settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.runner.is_busy() and not window.driver.pending(), timeout=WAIT)


def type_counts(window) -> int:
    model = window.filters.model
    return sum(model.count("type", t) for t in ("semantic", "procedural", "episodic"))


def test_a_store_first_indexed_under_the_window_lists_its_values_before_the_pass_is_over(qtbot, make_window, tmp_path):
    """The window opens on a store with nothing in it yet (its first counts: nothing), then
    memories arrive and the index fills while the store keeps changing: the values are counted
    with the first answer that has hits, not after RECOUNT_QUIET_MS of quiet (on the demo store:
    rows 0.5 s after the first hits instead of 2 s; on a 20,000-memory first index, minutes)."""
    root = tmp_path / "store"
    (root / "projects").mkdir(parents=True)
    store = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    try:
        window = make_window(store)
        filters = window.controllers["filters"]
        settle(qtbot, window)
        assert not window.results.model.result().hits and type_counts(window) == 0
        filters.quiet.setInterval(LONG_QUIET_MS)
        write_golden_store(root)
        store.index()  # what the watcher's first batch does
        window.runner.events.announce(StoreChange(index=True, problems=True))
        qtbot.waitUntil(lambda: type_counts(window) > 0, timeout=WAIT)
        assert filters.quiet.isActive()  # counted before the store was quiet
        assert window.filters.model.rowCount() > 0
        window.runner.events.announce(StoreChange(index=True, problems=True))  # the next batch
        settle(qtbot, window)
        assert filters.counted is None  # a recount waits for the quiet again
    finally:
        store.close_thread_connection()


def test_a_first_count_is_made_while_the_store_keeps_changing(qtbot, make_window, store):
    """A store's first index changes it batch after batch for minutes: the pane must not stay
    empty until the whole pass is over (it waited for RECOUNT_QUIET_MS of quiet)."""
    window = make_window(store, settle=False)
    filters = window.controllers["filters"]
    filters.quiet.setInterval(LONG_QUIET_MS)
    window.runner.events.announce(StoreChange(index=True, problems=True))  # an index batch landed
    assert filters.quiet.isActive()
    qtbot.waitUntil(lambda: type_counts(window) > 0, timeout=WAIT)
    assert filters.quiet.isActive()  # counted before the quiet, not after it
    expected = flatten(store.counts("", Scope()))
    assert {key: window.filters.model.count(*key) for key in expected} == expected


def test_a_recount_still_waits_for_the_store_to_be_quiet(qtbot, window):
    filters = window.controllers["filters"]
    settle(qtbot, window)
    assert filters.counted == Scope()
    filters.quiet.setInterval(LONG_QUIET_MS)
    window.runner.events.announce(StoreChange(index=True, problems=True))
    settle(qtbot, window)  # the search ran again; the counts did not
    assert filters.counted is None and filters.quiet.isActive()
    filters.quiet.setInterval(1)
    filters.quiet.start()
    qtbot.waitUntil(lambda: filters.counted == Scope(), timeout=WAIT)


def test_counts_asked_before_a_change_are_not_taken_as_current(qtbot, window):
    """Counts in flight when the store changes describe the store before it: shown (better than
    nothing), but the pane still counts again once the store is quiet."""
    filters = window.controllers["filters"]
    settle(qtbot, window)
    filters.quiet.setInterval(LONG_QUIET_MS)
    window.runner.events.announce(StoreChange(index=True, problems=True))
    settle(qtbot, window)
    assert filters.counted is None
    filters._recount()  # the quiet ran out: the store is counted...
    window.runner.events.announce(StoreChange(index=True, problems=True))  # ...and changes meanwhile
    settle(qtbot, window)
    assert filters.counted is None, "counts of the store before a change were taken as current"
    assert filters.quiet.isActive()
    assert type_counts(window) > 0  # what was counted is shown
    filters.quiet.setInterval(1)
    filters.quiet.start()
    qtbot.waitUntil(lambda: filters.counted == Scope(), timeout=WAIT)
