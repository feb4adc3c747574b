"""The reader's provenance strip follows the memory shown: its history is read off the GUI thread
(`ProvenanceJob`: a path-limited `git log`, and one more per move) each time the reader shows a memory."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from memhtml_desktop.ops.review import ProvenanceJob
from memhtml_desktop.ui.review.provenance_panel import ProvenancePanel
from memhtml_desktop.ui.session.context import PaneContext


class ProvenanceFollower(QObject):
    def __init__(self, ctx: PaneContext, reader: Any, shown: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.panel = ProvenancePanel()
        reader.add_section(self.panel)
        shown.connect(self.follow)
        ctx.events.changed.connect(lambda change: self.panel.clear() if change.reopened else None)

    def follow(self, detail: Any) -> None:
        path = getattr(detail, "path", None)
        if not path:
            self.panel.clear()
            return
        if path != self.panel.path:
            self.panel.show_loading(path)
        job = ProvenanceJob(path=path).success(self.panel.show_provenance)
        self.ctx.runner.run(job.failure(lambda message, p=path: self.panel.show_error(p, message)))
