"""The window says when a memory's salience row could not follow it (issue 21, row 9, the window half).

`state.db` is made immutable (`chattr +i`: even root may not write it), so the window reads the
state plane read-only. Archiving a memory that has an access row then cannot move that row. The
write still lands; the window must say, in its "Written, with a note" message, that the row did not
follow, that it is recorded, and that it moves later. Opening the store again once the plane is
writable moves it (the recovery pass every window runs when it opens a store).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from tests.ui.test_curation_window import (
    DELAY,
    WAIT,
    confirm,
    dialog_from,
    open_in_reader,
    planned,
    repo,  # noqa: F401 - the seeded git repository fixture
)


def _chattr(flag: str, path) -> bool:
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


def _rows(store: Store, *paths: str) -> dict[str, int]:
    marks = ", ".join("?" for _ in paths)
    sql = f"SELECT path, access_count FROM state.access WHERE path IN ({marks})"
    return dict(store.reader().execute(sql, paths).fetchall())


def test_a_row_that_cannot_follow_its_memory_is_said_in_the_window_and_moves_on_reopening(
    qtbot, make_window, repo, tmp_path
):
    store = Store(repo, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    store.import_sidecar()
    store.index()
    before = _rows(store, DELAY)
    assert before, "the seed's sidecar gives the memory a read history"
    store.close_thread_connection()
    state_db = repo / ".memhtml" / "state.db"
    if not _chattr("+i", state_db):
        pytest.skip("chattr +i is not available here (needs root and a filesystem with the flag)")
    try:
        win = make_window(store)
        open_in_reader(qtbot, win, DELAY)
        dialog = dialog_from(qtbot, win, win.reader.curate_actions["archive"].trigger)
        qtbot.keyClicks(dialog.reason, "retired with the old ALB")
        planned(qtbot, dialog)
        applied = confirm(qtbot, win, dialog)
        archived = applied.result["archive_path"]
        assert not (repo / DELAY).exists() and (repo / archived).exists(), "the write itself landed"
        qtbot.waitUntil(lambda: getattr(win, "_message_box", None) is not None, timeout=WAIT)
        box = win._message_box
        assert box.windowTitle() == "Written, with a note"
        text = box.text()
        assert f"the access row of {DELAY} could not follow it to {archived}" in text
        assert "moves on the next write or when the store is opened again" in text
        recorded = json.loads((repo / ".git" / "memhtml-desktop" / "state-moves.json").read_text())
        assert [(m["src"], m["dst"]) for m in recorded] == [(DELAY, archived)]
        box.close()
        win.close()
    finally:
        _chattr("-i", state_db)
    assert _rows(store, DELAY, archived) == before, "nothing moved, nothing lost while the plane was read-only"
    store.close_thread_connection()
    # The plane is writable again: a window opening the store moves the row.
    again = Store(repo, index_path=tmp_path / "index" / "index.db", embedder=HashEmbedder())
    make_window(again)
    qtbot.waitUntil(lambda: not (repo / ".git" / "memhtml-desktop" / "state-moves.json").exists(), timeout=WAIT)
    assert _rows(again, DELAY, archived) == {archived: before[DELAY]}
    again.close_thread_connection()
