"""While a first index runs and the list is empty, the window searches again — less and less often.

`SessionDriver.follow_indexing` re-runs the search so hits appear as soon as files are committed.
On a machine the index starves it searched every second for minutes; each search that still finds
nothing now doubles the wait (1, 2, 4 s, then every 4 s), a new index pass starts quick again, no
search is asked while one is on its way, and none once hits are listed. The real window, its real
engine; only the driver's clock is stepped.
"""

from __future__ import annotations

from memhtml_desktop.ui.session.driver import INDEXING_REFRESH_MAX_S, INDEXING_REFRESH_S
from memhtml_desktop.watch.status import LIVE, WatchStatus

WAIT = 15000
INDEXING = WatchStatus(mode=LIVE, busy=True, progress=("index", 10, 100))
DONE = WatchStatus(mode=LIVE)


def _stepped(window, query: str, qtbot, *, tag: str | None = None):
    """The driver's clock at 0 and a search for `query` (in a tag no memory has yet: an empty list)."""
    now = [0.0]
    window.driver.clock = lambda: now[0]
    if tag:
        window.session.toggle_filter("tag", tag, True)
    window.set_query(query)
    _settle(qtbot, window)
    return now


def _settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.runner.is_busy() and not window.driver.pending(), timeout=WAIT)


def _refreshes(qtbot, window, now, until: float, status=INDEXING, step: float = 0.5) -> list[float]:
    """Step the clock to `until`, a status at each step; the clock's value at each search asked."""
    asked: list[float] = []

    def heard(ask) -> None:
        asked.append(now[0])

    window.driver.asked.connect(heard)
    try:
        while now[0] < until:
            now[0] = round(now[0] + step, 3)
            window.driver.follow_indexing(status)
            _settle(qtbot, window)
    finally:
        window.driver.asked.disconnect(heard)  # only ours: the window's own listeners stay
    return asked


def test_an_empty_list_is_searched_again_less_and_less_often(qtbot, window):
    now = _stepped(window, "drain the vip", qtbot, tag="written-later")
    assert not window.driver.answer.hits
    asked = _refreshes(qtbot, window, now, 20.0)
    # each wait is the last doubled (1, 2, 4 s) up to the cap, counted from the last search
    assert asked == [1.5, 4.0, 8.5, 13.0, 17.5], asked
    assert INDEXING_REFRESH_S == 1.0 and INDEXING_REFRESH_MAX_S == 4.0
    gaps = [b - a for a, b in zip(asked, asked[1:])]
    assert max(gaps) <= INDEXING_REFRESH_MAX_S + 0.5
    # the pass ends: the next pass starts at the first wait again
    assert _refreshes(qtbot, window, now, 21.0, status=DONE) == []
    # the first step of the new pass searches (it is 4 s since the last), the next after 2 s, not 4
    assert _refreshes(qtbot, window, now, 25.0) == [21.5, 24.0], "a new pass starts the ladder again"


def test_no_search_is_asked_once_hits_are_listed(qtbot, window):
    now = _stepped(window, "drain the vip", qtbot)
    assert window.driver.answer.hits
    assert _refreshes(qtbot, window, now, 12.0) == []


def test_no_search_is_asked_while_one_is_on_its_way(qtbot, window):
    now = _stepped(window, "drain the vip", qtbot, tag="written-later")
    window.driver.debounce.start(60_000)  # typing: the search waits for the debounce
    asked: list[float] = []
    window.driver.asked.connect(lambda ask: asked.append(now[0]))
    for _ in range(10):
        now[0] += 1.5
        window.driver.follow_indexing(INDEXING)
    window.driver.debounce.stop()
    assert asked == []
