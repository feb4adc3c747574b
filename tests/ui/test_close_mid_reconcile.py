"""Closing the window while its watcher's start-up reconciliation runs (issue 24): the child stops
taking commands, cancels the pass, joins its watcher, shuts its parse pool and leaves by itself;
nothing is logged about futures refused after a shutdown, and no process is left behind."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.indexer import POOL_THRESHOLD
from memhtml_desktop.index.store import Store
from tests.ui.conftest import PROCEDURAL, write_golden_store

WAIT = 60000


def _alive(pid: int) -> bool:
    """Running (a zombie does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            out |= {child} | _descendants(child)
    return out


# A cold run's batches grow 500 -> 1,000 -> 2,000 (indexer.COLD_BATCH_GROWTH): this many notes make
# three of them, so a close after the first lands before the last.
NOTES = 6 * POOL_THRESHOLD


@pytest.fixture
def unindexed(tmp_path: Path):
    """A store of the golden cases plus enough notes that the reconcile parses in worker processes
    and writes several batches (so there is a 'middle' to close in)."""
    root = write_golden_store(tmp_path / "store")
    template = (root / PROCEDURAL).read_text(encoding="utf-8")
    for i in range(NOTES):
        folder = root / "areas" / f"bulk{i // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:04d}.html").write_text(
            template.replace("</h1>", f" marmot{i} burrows</h1>", 1), encoding="utf-8"
        )
    store = Store(root, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    yield store
    store.close_thread_connection()


def test_closing_mid_reconcile_is_orderly(qtbot, make_window, unindexed, caplog):
    caplog.set_level(logging.INFO)
    window = make_window(unindexed, watch=True, settle=False)
    client = window.runner.client
    assert window.bridge.watching and not client.in_process, "the watcher runs in the engine's process"
    phases: list = []
    window.bridge.status_changed.connect(lambda s: phases.append(s.progress))
    qtbot.waitUntil(lambda: any(p and p[0] == "index" and 0 < p[1] < p[2] for p in phases), timeout=WAIT)
    child = client.pid
    workers = _descendants(child)
    assert workers, "the reconcile parses in worker processes of the engine"

    transport = client._transport
    started = time.monotonic()
    window.close()
    took = time.monotonic() - started

    assert not client.running and transport._proc.exitcode == 0, (
        f"the engine left by itself (exit {transport._proc.exitcode}), not killed after a timeout"
    )
    assert took < 8, f"closing waited {took:.1f} s"
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in workers | {child}) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in workers | {child} if _alive(p)], "no process is left behind"
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "cannot schedule new futures" not in text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and "watch" in r.name], text
    assert unindexed.stats()["memories"] < NOTES, "it was closed in the middle, not after"


def test_the_window_leaves_the_screen_before_the_engine_is_waited_for(qtbot, make_window, store):
    """Beside two busy processes the engine's close took the whole 15 s the window waits for it
    (bench/event_loop_gaps.py: "the engine did not leave within 15 s"), with the window frozen on
    the screen meanwhile: it is hidden first, its state saved before that, and the engine closed."""
    window = make_window(store)
    seen: list[bool] = []
    shutdown = window.runner.shutdown

    def waited(*args, **kwargs):
        seen.append(window.isVisible())
        return shutdown(*args, **kwargs)

    window.runner.shutdown = waited
    client = window.runner.client
    assert window.isVisible()
    window.close()
    assert seen == [False], "the window was on the screen while the engine was waited for"
    assert not client.running
    assert window.qsettings.contains("window/geometry"), "its state was saved before it was hidden"
