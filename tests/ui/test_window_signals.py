"""What the ranking says about itself, in the window: the active profile (shown, switched live,
kept), moves with their reasons, the relevance floor, honest headers, the whole recall pack, and
issue 17's signals (future dates, a lost bump, the store's notices).

Real MainWindows over stores copied or generated into tmp dirs, driven by typing and clicking.
Generated stores vary their seed and the embedder where the ranking depends on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from memfiles import write_memory
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.ranking import DEFAULT, MEMHTML
from memhtml_desktop.index.store import Store
from memhtml_desktop.settings import load_settings
from memhtml_desktop.ui.results.results_model import Column, Role
from tests.ui.test_main_window import WAIT, type_query, wait_for_query

ROOT = Path(__file__).resolve().parents[2]


def _generated(tmp_path: Path, seed: int, embedder: str = "hash") -> tuple[Store, object]:
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.embedders.registry import make_embedder

    if embedder == "minilm":
        pytest.importorskip("onnxruntime")
    made = generate_store(tmp_path / f"gen-{seed}", 300, seed, probes=12, state=True, control_names="target_last")
    store = Store(made.root, index_path=tmp_path / f"gen-{seed}.db", embedder=make_embedder(embedder))
    store.index()
    return store, made


def choose_ranking(qtbot, window, name: str) -> None:
    """Pick a profile in the search bar's selector with the keyboard, as a person does."""
    combo = window.search_bar.ranking
    combo.setFocus()
    target = combo.findData(name)
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, key)


def wait_ranked(qtbot, window, name: str):
    qtbot.waitUntil(
        lambda: (
            window.results.model.result() is not None
            and window.results.model.result().ranking == name
            and not window.runner.is_busy()
        ),
        timeout=WAIT,
    )
    return window.results.model.result()


def row_of(window, path: str) -> int:
    row = window.results.model.row_of(path)
    assert row >= 0, path
    return row


# -- the active profile ---------------------------------------------------------------------------


@pytest.mark.parametrize("start", [DEFAULT, MEMHTML], ids=["default", "memhtml"])
def test_the_ranking_profile_is_shown_switched_live_and_kept(qtbot, make_window, store_dir, tmp_path, qsettings, start):
    store = Store(store_dir, index_path=tmp_path / "i.db", embedder=HashEmbedder(), ranking=start)
    store.index()
    window = make_window(store)
    bar = window.search_bar
    assert bar.ranking.isVisibleTo(window) and bar.ranking_name() == start.name
    assert bar.ranking.currentText() == f"Ranking: {start.name}"
    type_query(qtbot, window, "drain the vip")
    assert wait_for_query(qtbot, window, "drain the vip").ranking == start.name
    other = MEMHTML if start is DEFAULT else DEFAULT
    choose_ranking(qtbot, window, other.name)
    result = wait_ranked(qtbot, window, other.name)  # the current search re-ran, nothing typed
    assert result.query == "drain the vip" and result.steps == other.steps
    assert window.session.ranking is other  # every job that ranks carries it to the engine
    assert window.results.model.profile() is other
    # kept: the next start builds its store with it (the same path app.py takes)
    from memhtml_desktop.ui.app import store_spec
    from memhtml_desktop.ui.shell.settings_store import load_persisted

    qsettings.sync()
    saved = load_settings(persisted=load_persisted(qsettings), environ={})
    assert saved.ranking == other.name
    reopened = store_spec(store_dir, saved.with_(index=str(tmp_path / "i.db")))
    assert reopened.ranking is other


def test_the_settings_dialog_change_applies_live(qtbot, window):
    type_query(qtbot, window, "drain the vip")
    wait_for_query(qtbot, window, "drain the vip")
    window.dialogs.apply_settings({"ranking": "memhtml"})
    assert wait_ranked(qtbot, window, "memhtml").query == "drain the vip"
    assert window.search_bar.ranking_name() == "memhtml"


# -- moves, explained -----------------------------------------------------------------------------


def _moved_probe(store, made):
    """A probe query whose default-profile page holds a hit twin resolution moved."""
    for probe in made.probes:
        result = store.search(probe.query, limit=10, ranking=DEFAULT)
        for hit in result.hits:
            twin = [m for m in hit.moves if m.step == "twins"]
            if twin:
                return probe.query, hit, twin[0]
    raise AssertionError("no probe of this store has a twin-resolution move: the fixture lost its twins")


@pytest.mark.parametrize("seed,embedder", [(5, "hash"), (11, "hash"), (7, "minilm")])
def test_a_hit_moved_by_twin_resolution_says_so_and_why(qtbot, make_window, tmp_path, seed, embedder):
    store, made = _generated(tmp_path, seed, embedder)
    query, hit, move = _moved_probe(store, made)
    window = make_window(store)
    type_query(qtbot, window, query)
    wait_for_query(qtbot, window, query)
    model = window.results.model
    row = row_of(window, hit.path)
    title = model.index(row, Column.Title)
    described = move.describe()
    assert described.startswith(f"moved by twin resolution from {move.from_position}: ")
    assert any(b.endswith(f"moved by twin resolution from {hit.moved_from}") for b in title.data(Role.Badges))
    assert described in title.data(Qt.ItemDataRole.ToolTipRole)
    assert described in title.data(Qt.ItemDataRole.AccessibleTextRole)
    # right-click → Why not this one?
    menu = window.results.context_menu(row)
    why = next(a for a in menu.actions() if a.text().replace("&", "").startswith("Why not"))
    with qtbot.waitSignal(window.why_shown, timeout=WAIT):
        why.trigger()
    dialog = window.controllers["why"].dialog
    assert described in dialog.moves_label.text() and dialog.moves_label.isVisibleTo(dialog)
    assert dialog.ranking_label.text().startswith("Ranked with the default profile")
    assert "twin resolution: on here; off in memhtml" in dialog.differs_label.text()
    assert f"inside the {DEFAULT.arm_window}" in "".join(
        str(dialog.arms_model.index(r, 2).data()) for r in range(dialog.arms_model.rowCount())
    )
    # switching the profile asks the open report again, under memhtml
    with qtbot.waitSignal(window.why_shown, timeout=WAIT) as shown:
        choose_ranking(qtbot, window, "memhtml")
    assert shown.args[0].ranking == "memhtml"
    assert dialog.ranking_label.text().startswith("Ranked with the memhtml profile")
    assert "twin resolution: off here; on in default" in dialog.differs_label.text()
    assert "twin resolution" not in dialog.moves_label.text()
    dialog.close()


# -- the relevance floor and honest headers --------------------------------------------------------


@pytest.mark.parametrize("seed", [5, 23])
def test_low_relevance_hits_are_muted_marked_and_the_header_gives_the_floor(qtbot, make_window, tmp_path, seed):
    store, _ = _generated(tmp_path, seed)
    window = make_window(store)
    # a query no memory holds in words (kafka is a tag and an entity some memories name): the
    # page mixes hits that meet the floor by what they name with hits that meet nothing
    query = "walrus kafka"
    type_query(qtbot, window, query)
    result = wait_for_query(qtbot, window, query)
    low = [h for h in result.hits if h.low_relevance]
    assert low, "the fixture must put hits below the floor"
    assert len(low) < len(result.hits), "and keep some above it (the words hold in a few memories)"
    model = window.results.model
    for hit in result.hits:
        title = model.index(row_of(window, hit.path), Column.Title)
        assert ("low relevance" in title.data(Role.Badges)) == hit.low_relevance
        assert ("low relevance" in title.data(Qt.ItemDataRole.AccessibleTextRole)) == hit.low_relevance
        fg = model.index(row_of(window, hit.path), Column.Score).data(Qt.ItemDataRole.ForegroundRole)
        assert (fg is not None) == hit.low_relevance  # muted, and said in words, not by colour alone
    summary = result.relevance
    text = window.results.floor.text()
    assert window.results.floor.isVisibleTo(window)
    assert f"{summary.below_floor} of {len(result.hits)} below the relevance floor" in text
    assert summary.below_floor == len(low)
    assert f"top cosine {summary.top_cosine:.3f}" in text and f"median {summary.median_cosine:.3f}" in text
    assert f"{summary.floor_cosine:g}" in window.results.floor.toolTip()


def test_the_header_counts_the_memories_holding_the_words(qtbot, window):
    type_query(qtbot, window, "drain the vip")
    result = wait_for_query(qtbot, window, "drain the vip")
    # The default binds any of the content words (docs/ranking.md): the count is of memories holding one.
    assert result.matches.form == "any" and result.matches.count >= 1
    words = (
        f"only {result.matches.count:,} match any word"
        if result.matches.count < len(result.hits)
        else f"of {result.matches.count:,} matching any word"
    )
    assert words in window.results.summary.text()  # from the answer itself, before the pool arrives
    qtbot.waitUntil(lambda: window.results.model.pool() is not None, timeout=WAIT)
    assert words in window.results.summary.text()
    type_query(qtbot, window, "zzzqqq")
    wait_for_query(qtbot, window, "zzzqqq")
    qtbot.waitUntil(lambda: "no memory holds the words" in window.results.summary.text(), timeout=WAIT)


def test_a_search_on_an_incomplete_index_is_degraded_with_the_reason(qtbot, make_window, store_dir, tmp_path):
    """`read` on a fresh index leaves it incomplete: until the window's first scan has run, every
    search says so, with the reason and the counts; after it, the warning goes."""
    import contextlib

    from memhtml_desktop.index import writelock

    store = Store(store_dir, index_path=tmp_path / "fresh.db", embedder=HashEmbedder())
    store.read("areas/oncall/format-md-procedural.html", bump=False)
    # Another process's pass holds the index's write lock: the window's first scan waits for it.
    holding = contextlib.ExitStack()
    assert holding.enter_context(writelock.hold(store.index_path, "a test holding the window's first scan back"))
    window = make_window(store, watch=False, settle=False)
    try:
        type_query(qtbot, window, "drain")
        qtbot.waitUntil(
            lambda: window.results.model.result() is not None and window.results.model.result().query == "drain",
            timeout=WAIT,
        )
        result = window.results.model.result()
        assert not result.index.complete and result.degraded
        assert any(r.startswith("index: incomplete") for r in result.degraded_reasons)
        strip = window.results.degraded
        assert strip.isVisibleTo(window) and "index: incomplete" in strip.text() and "files so far)" in strip.text()
        assert "degraded" in window.search_bar.info.text()
    finally:
        holding.close()
    qtbot.waitUntil(lambda: window.results.model.result().index.complete, timeout=WAIT)
    assert not any(r.startswith("index:") for r in window.results.model.result().degraded_reasons)
    assert "index: incomplete" not in window.results.degraded.text()


# -- the whole recall pack --------------------------------------------------------------------------


def _pane_pack(pane) -> dict:
    pack = pane.pack()
    return {
        name: [(i.path, i.tier) for i in section.items]
        for name, section in (("memories", pack.memories), ("arcs", pack.arcs))
    }


@pytest.mark.parametrize("ranking", ["default", "memhtml"])
def test_the_recall_pane_previews_the_pack_recall_json_gives(qtbot, make_window, demo_store_dir, tmp_path, ranking):
    index = tmp_path / "demo.db"
    store = Store(demo_store_dir, index_path=index, embedder=HashEmbedder())
    store.import_sidecar()
    store.index()
    window = make_window(store)
    if ranking != "default":
        choose_ranking(qtbot, window, ranking)
        wait_ranked(qtbot, window, ranking)
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT):
        qtbot.mouseClick(window.search_bar.recall_button, Qt.MouseButton.LeftButton)
    query = "drain the vip"
    with qtbot.waitSignal(window.recall_shown, timeout=WAIT, check_params_cb=lambda pack: pack.query == query):
        type_query(qtbot, window, query)
    shown = window.recall.pack()
    assert shown.ranking == ranking
    assert window.recall.query_label.text().endswith(f"({ranking} ranking)")
    window.shutdown()
    store.close_thread_connection()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop",
            "recall",
            query,
            "--store",
            str(demo_store_dir),
            "--index",
            str(index),
            "--json",
            "--ranking",
            ranking,
            "--budget",
            str(window.session.budget),
            "--no-refresh",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    cli = json.loads(proc.stdout)
    assert cli["ranking"] == ranking

    def listed(section):
        return [(i["path"], i["tier"]) for i in section["items"]]

    assert _pane_pack(window.recall) == {"memories": listed(cli["memories"]), "arcs": listed(cli["arcs"])}
    assert len(shown.memories.items) + len(shown.arcs.items) > 10, "the whole pool is folded, not one page"


# -- issue 17: future dates, a lost bump, the store's notices ----------------------------------------


@pytest.mark.parametrize("future", ["9999-12-31", "2999-01-01T00:00:00Z"])
def test_a_future_date_is_marked_on_the_hit_and_in_the_reader(qtbot, make_window, tmp_path, future):
    root = tmp_path / "store"
    write_memory(
        root,
        "areas/ops/pinned.html",
        title="Pinned release train",
        claim="The release train leaves at noon.",
        created="2026-01-05T00:00:00Z",
        event=future,
    )
    write_memory(
        root,
        "areas/ops/honest.html",
        title="Honest release train",
        claim="The release train is weekly.",
        created="2026-03-01T00:00:00Z",
    )
    store = Store(root, index_path=tmp_path / "i.db", embedder=HashEmbedder())
    store.index()
    window = make_window(store)
    type_query(qtbot, window, "release train")
    result = wait_for_query(qtbot, window, "release train")
    flagged = {h.path: h.suspicious_date for h in result.hits}
    assert flagged["areas/ops/pinned.html"] and flagged["areas/ops/honest.html"] is None
    model = window.results.model
    pinned = model.index(row_of(window, "areas/ops/pinned.html"), Column.Title)
    honest = model.index(row_of(window, "areas/ops/honest.html"), Column.Title)
    assert "future date" in pinned.data(Role.Badges) and "future date" not in honest.data(Role.Badges)
    assert "dated in the future" in pinned.data(Qt.ItemDataRole.ToolTipRole)
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory("areas/ops/pinned.html", bump=False)
    strip = window.reader.warning_strip
    assert strip.isVisibleTo(window.reader)
    assert "dated in the future" in strip.body.text() and "recency ranks it by its updated stamp" in strip.body.text()
    with qtbot.waitSignal(window.memory_shown, timeout=WAIT):
        window.open_memory("areas/ops/honest.html", bump=False)
    assert "dated in the future" not in strip.body.text()


def test_a_bump_the_locked_plane_cannot_take_is_kept_and_said_in_the_reader(qtbot, make_window, tmp_path, monkeypatch):
    """A read whose bump meets a plane held by another process through every retry. It was lost
    and said so (issue 17); it is now kept and counted once the plane is free (issue 40)."""
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.index import db as dbmod
    from tests.hardening.lock_holder import hold, release

    made = generate_store(tmp_path / "gen", 120, 3, state=True)
    store = Store(made.root, index_path=tmp_path / "gen.db", embedder=HashEmbedder())
    store.index()
    store.close_thread_connection()
    original = dbmod.polling_busy_handler
    monkeypatch.setattr(dbmod, "polling_busy_handler", lambda timeout_ms=100: original(100))  # short waits
    window = make_window(store, local_engine=True)  # the engine on threads here, where the short waits are patched
    path = made.paths[0]
    holder = hold(made.root / ".memhtml" / "state.db", 60)
    try:
        with qtbot.waitSignal(window.memory_shown, timeout=60000) as shown:
            window.open_memory(path)  # a person's open: a read that tries to count
    finally:
        release(holder)
    detail = shown.args[0]
    assert detail.bump is not None and detail.bump.queued and not detail.bump.lost and detail.bump.refused
    note = window.reader.note_label
    assert note.isVisibleTo(window.reader)
    assert "This read is not counted yet" in note.text() and detail.bump.refused in note.text()
    assert "kept and counted" in note.text()
    assert store.state_plane().waiting == 0, "the plane free again: the kept read is written"
    assert store.read(path, bump=False).access["access_count"] >= 1


def test_store_notices_reach_the_status_bar(qtbot, make_window, store_dir, tmp_path):
    """A notice added after the store was announced (a damaged index met by a later job's
    connection) still reaches the status bar, not only those present when the store opened."""
    index = tmp_path / "i.db"
    store = Store(store_dir, index_path=index, embedder=HashEmbedder())
    store.index()
    store.close_thread_connection()
    window = make_window(store)
    assert store.notices == []
    window.wait_idle()
    data = bytearray(index.read_bytes())
    data[:100] = b"not a database " * 6 + b"x" * 10  # the header is gone: the file is not SQLite
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    os.replace(damaged, index)  # another file at the index's path: the engine's kept connections reopen
    time.sleep(1.1)  # they look at the file's identity at most once a second
    type_query(qtbot, window, "drain the vip")  # the search job's connection meets the damage
    qtbot.waitUntil(lambda: "The index was damaged" in window.status.currentMessage(), timeout=WAIT)
    assert any(n.startswith("The index was damaged") for n in window.store.notices)  # the engine's, heard


def test_profile_differences_are_read_from_the_knobs():
    from dataclasses import replace

    from memhtml_desktop.ui.kit.ranking_text import profile_differences, steps_text

    assert profile_differences(DEFAULT, DEFAULT) == []
    lines = profile_differences(DEFAULT, MEMHTML)
    assert "twin resolution: on here; off in memhtml" in lines
    assert any(line.startswith("known items keep their place: on here; off in memhtml") for line in lines)
    what_if = replace(DEFAULT, name="what-if", rrf_k=20, twins=False)
    assert profile_differences(what_if, DEFAULT) == [
        "twin resolution: off here; on in default",
        "RRF k: 20 here; 60 in default",
    ]
    assert steps_text(DEFAULT) == "twin resolution, then MMR, then newer first" and steps_text(MEMHTML) == "MMR"
    assert "newer first (of two memories that contradict each other): on here; off in memhtml" in lines
    assert steps_text(replace(MEMHTML, mmr_lambda=1.0)) == "none: the fused order"
