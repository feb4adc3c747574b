"""The workbench for `memhtml-desktop screenshot --view workbench [--tab NAME]`.

A batch tool, so it may wait (it pumps the event loop until each answer has arrived). A fresh
demo copy gets a repository (the curation shots' throwaway commit) and, when it has no probe set,
a `demo` set made from its own memories — a few hand-picked probes with near-twin controls and
known-item probes from claims — committed through the core as the window would. The history
and judgments go to a scratch data directory, never the user's. Then A (`memhtml`) and B
(`default`) are compared on the set and on `--query`, and A is run once more, so the history
has points.
"""

from __future__ import annotations

import time
from typing import Any

TABS = ("probes", "compare", "configs", "history", "optimizer", "diagnostics", "judgments")
DEMO_PROBES = (
    (
        "compactor overlapping intervals",
        "projects/billing-service/nightly-compactor-merges-overlapping-intervals.html",
        ("projects/billing-service/compactor-leaves-overlapping-usage-rows-alone.html",),
    ),
    ("deregistration delay", "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html", ()),
    (
        "drain the vip before rollback",
        "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html",
        (),
    ),
)


def _pump(until, timeout: float = 60.0) -> bool:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if until():
            for _ in range(10):
                app.processEvents()
            return True
        time.sleep(0.01)
    return False


def demo_set(store: Any) -> None:
    """A `demo` probe set committed to the store (the screenshot tool's own `Store`), unless it has
    a set already."""
    from memhtml_desktop.domain.probes import EvalProbe
    from memhtml_desktop.ops.workbench import workbench_for

    wb = workbench_for(store)
    if wb.files.probe_sets():
        return
    probes = [
        EvalProbe(q, t, c, note="picked for the screenshot") for q, t, c in DEMO_PROBES if (store.root / t).exists()
    ]
    known = {p.target for p in probes}
    for hit in store.search("", None, limit=40).hits:
        words = hit.gist.split()
        if len(words) >= 4 and hit.path not in known and len(probes) < 24:
            probes.append(EvalProbe(" ".join(words[:4]), hit.path))
            known.add(hit.path)
    wb.files.save_probe_set("demo", probes)


def workbench_view(window: Any, store: Any, args: Any, size: tuple[int, int], scratch: Any) -> Any:
    demo_set(store)
    controller = window.controllers["workbench"]
    shown = controller.show()
    shown.resize(*size)
    _pump(lambda: controller.listing is not None and shown.sets.count() > 0)
    query = getattr(args, "query", "") or "deregistration delay"
    shown.compare.query_field.setText(query)
    done: list[Any] = []
    controller.compared.connect(done.append)
    controller.runs.compare()
    _pump(lambda: bool(done) and controller.window.compare.query_comparison is not None)
    ran: list[Any] = []
    controller.ran.connect(ran.append)
    controller.runs.run()
    _pump(lambda: bool(ran))
    _pump(lambda: len(shown.history.chart.runs) >= 3, timeout=10)
    tab = getattr(args, "tab", None) or "compare"
    target = {"configs": shown.configs}.get(tab) or getattr(shown, tab)
    shown.tabs.setCurrentWidget(target)
    if tab == "compare":
        side = shown.compare.a
        row = next((i for i, r in enumerate(side.model.rows) if r[2] is not None and r[2] != i), 0)
        side.table.setCurrentIndex(side.model.index(row, 0))
    elif tab == "probes":
        model = shown.probes.model
        row = next((i for i, v in enumerate(model.rows) if not getattr(v, "passed", True)), 0)
        shown.probes.table.setCurrentIndex(model.index(row, 0))
    elif tab == "diagnostics":
        scans: list[Any] = []
        controller.floor_scanned.connect(scans.append)
        controller.crowders_found.connect(scans.append)
        controller.diagnostics.floor()
        _pump(lambda: len(scans) >= 1)
        controller.diagnostics.crowders()
        _pump(lambda: len(scans) >= 2)
    elif tab == "optimizer":
        results: list[Any] = []
        controller.optimized.connect(results.append)
        controller.optimizer.optimize(200, 0.3)
        _pump(lambda: bool(results), timeout=120)
    elif tab == "configs":
        shown.configs.list.setCurrentRow(1)
        shown.configs.arms["recency"].setValue(0.5)
    _pump(lambda: not window.runner.is_busy(), timeout=30)
    return shown
