import time, functools
import pytest
from tests.ui.test_responsiveness import GapMeter, big_store_dir  # noqa
from memhtml_desktop.index.store import Store
from memhtml_desktop.domain.hash_embedder import HashEmbedder

def test_dbg(qtbot, make_window, big_store_dir, tmp_path):
    store = Store(big_store_dir, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    from memhtml_desktop.ui.main_window import MainWindow
    from memhtml_desktop.ui.filters_panel import FiltersPanel
    from memhtml_desktop.ui.results_view import ResultsView
    from memhtml_desktop.ui.status_bar import StatusBar
    log = []
    def wrap(cls, name):
        orig = getattr(cls, name)
        @functools.wraps(orig)
        def w(*a, **k):
            t = time.perf_counter(); r = orig(*a, **k); d=(time.perf_counter()-t)*1000
            if d > 5: log.append((round(time.perf_counter()*1000), name, round(d,1)))
            return r
        setattr(cls, name, w)
    for cls, names in ((FiltersPanel, ["set_universe","set_counts","set_scope"]), (ResultsView, ["set_result"]),
                       (StatusBar, ["set_watch","set_stats"]), (MainWindow, ["refresh","_watch_status","_batch_indexed","_search_done"])):
        for n in names: wrap(cls, n)
    import gc
    gcs=[]; st={}
    def cb(phase, info):
        if phase=="start": st["t"]=time.perf_counter()
        else:
            d=(time.perf_counter()-st["t"])*1000
            if d>5: gcs.append((round(time.perf_counter()*1000), info["generation"], round(d,1)))
    gc.callbacks.append(cb)
    from memhtml_desktop.ui.results_view import ResultsTable
    from PySide6.QtWidgets import QTableView, QTreeView
    orig_pe = QTableView.paintEvent
    def pe(self, ev):
        t=time.perf_counter(); orig_pe(self, ev); d=(time.perf_counter()-t)*1000
        if d>5: log.append((round(time.perf_counter()*1000), "table.paint", round(d,1)))
    ResultsTable.paintEvent = pe
    from memhtml_desktop.ui import filters_panel as fp
    orig_tp = QTreeView.paintEvent
    def tpe(self, ev):
        t=time.perf_counter(); orig_tp(self, ev); d=(time.perf_counter()-t)*1000
        if d>5: log.append((round(time.perf_counter()*1000), "tree.paint", round(d,1)))
    fp._FiltersTree.paintEvent = tpe
    window = make_window(store, watch=True, settle=False)
    from memhtml_desktop.ui.app import settle_gc
    settle_gc()  # what run_app does once the window is up
    meter = GapMeter(); meter.start()
    stamps=[]
    orig_tick = meter._tick
    def tick():
        now=time.perf_counter(); gap=(now-meter.last)*1000
        if gap>30: stamps.append((round(now*1000), round(gap,1)))
        orig_tick()
    meter.timer.timeout.disconnect(); meter.timer.timeout.connect(tick)
    qtbot.waitUntil(lambda: window.bridge.status().busy, timeout=10000)
    for text in ("invoice", "invoice pdf", "drain the vip"):
        window.set_query(text, immediate=False); qtbot.wait(150)
    qtbot.waitUntil(lambda: window.bridge.status().mode in ("live", "polling") and not window.bridge.status().busy, timeout=120000)
    qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=30000)
    meter.stop()
    print("GAPS", stamps)
    print("SLOW", log)
    print("GC", gcs)
    gc.callbacks.remove(cb)
