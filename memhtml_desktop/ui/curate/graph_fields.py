"""A memory's place in the graph, in a form: what a correction or a supersession keeps.

Three lists a curator ticks: the memory's own links (carried onto the new version), the memories
linking to it (repointed at the new version in the same commit), and what happens to its reads. The
entities and facets are the form's own fields (`fields.py`); the summary above the lists counts
everything, so the dialog says what would be lost before anything is written (write/graph.py).
Titles and paths come from memory files: every text is plain, tooltips escaped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QListWidget, QListWidgetItem, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.kit.palette import warning_color

PATH_ROLE = Qt.ItemDataRole.UserRole


def _label(parent: QWidget, text: str = "") -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


def _list(parent: QWidget, name: str, accessible: str) -> QListWidget:
    view = QListWidget(parent)
    view.setObjectName(name)
    view.setAccessibleName(accessible)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return view


def _fit(view: QListWidget) -> None:
    rows = max(1, min(view.count(), 5))
    height = (view.sizeHintForRow(0) if view.count() else view.fontMetrics().height() + 6) * rows
    view.setFixedHeight(height + 2 * view.frameWidth() + 2)


def _item(view: QListWidget, text: str, data: Any, *, checked: bool, enabled: bool = True, tip: str = "") -> None:
    item = QListWidgetItem(text)
    item.setData(PATH_ROLE, data)
    flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable
    item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled if enabled else flags)
    item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
    if tip:
        item.setToolTip(tooltip_text(tip))
    view.addItem(item)


def _named(title: str, path: str) -> str:
    return f"{title} \u2014 {path}" if title else path


class GraphFields(QObject):
    """Adds the graph rows to a QFormLayout and reads back what is kept; `changed` on every tick."""

    changed = Signal()

    def __init__(self, form: QFormLayout, parent: QWidget, *, verb: str = "the new version", at: int = -1) -> None:
        super().__init__(parent)
        self.verb = verb
        self.form = form
        self.summary = _label(parent)
        self.summary.setObjectName("graphSummary")
        self.summary.setStyleSheet(f"QLabel#graphSummary {{ background: {warning_color()}; "
                                   "border-left: 4px solid #0072B2; padding: 4px; }")  # fmt: skip
        self.links = _list(parent, "keptLinks", "Links it keeps")
        self.inbound = _list(parent, "repointedLinks", "Memories whose links follow it")
        self.entities = _list(parent, "addedEntities", "Entities it adds")
        self.facets = _list(parent, "addedFacets", "Facets it adds")
        self.reads = QCheckBox(parent)
        self.reads.setObjectName("readsFollow")
        self.reads_note = _label(parent)
        self.reads_note.setObjectName("readsNote")
        rows = (("Its place", self.summary), ("&Links it keeps", self.links), ("E&ntities it adds", self.entities),
                ("&Facets it adds", self.facets), ("Links &to it", self.inbound), ("Rea&ds", self.reads),
                ("", self.reads_note))  # fmt: skip
        for i, (label, widget) in enumerate(rows):
            form.insertRow(at + i, label, widget) if at >= 0 else form.addRow(label, widget)
        for view in (self.entities, self.facets):
            form.setRowVisible(view, False)
        for view in (self.links, self.inbound, self.entities, self.facets):
            view.itemChanged.connect(lambda *_: self.changed.emit())
        self.reads.toggled.connect(lambda *_: self.changed.emit())
        self.reads.toggled.connect(self._update_notes)
        self._graph: Any = None
        self._reads_mode = "follow"
        self._said = ""

    def fill(self, graph: Any, *, concepts: int = 0, facets: int = 0, reads: str = "follow") -> None:
        """Show `graph` (write/graph.MemoryGraph). `reads`: "follow" (a correction: ticked, it may
        follow), or "stay" (a supersession: the loser's reads stay with its archived copy)."""
        self._graph = graph
        for view in (self.links, self.inbound):
            view.blockSignals(True)
            view.clear()
        for link in graph.links:
            text = f"{link.rel} \u2192 {_named(link.title, link.path)}"
            _item(
                self.links,
                ("(not kept by default) " if link.note else "") + text,
                (link.rel, link.path),
                checked=link.keep,
                tip=f"{link.rel} {link.path}" + (f"\n{link.note}" if link.note else ""),
            )
        for ref in graph.inbound:
            text = f"{ref.rel} \u2190 {_named(ref.title, ref.src)}"
            _item(self.inbound, (f"({ref.note}) " if ref.note else "") + text, (ref.src, ref.expected),
                  checked=ref.repoint, enabled=ref.repoint, tip=f"{ref.src} {ref.rel}\n" + (
                      ref.note or f"ticked: its link names {self.verb}; unticked: it keeps naming {graph.path}, "
                                  "which moves into archive/"))  # fmt: skip
        for view in (self.links, self.inbound):
            view.blockSignals(False)
            _fit(view)
        self.form.setRowVisible(self.links, bool(graph.links))
        self.form.setRowVisible(self.inbound, bool(graph.inbound))
        count = graph.read_count
        outcome = (graph.reads or {}).get("outcome_score")
        said = counted(count, "read") + (f" (outcome {float(outcome):+.2f})" if outcome else "")
        self.reads.blockSignals(True)
        if reads == "follow" and count:
            self.reads.setText(f"Its {said} follow {self.verb}")
            self.reads.setChecked(graph.reads_follow_by_default)
            self.form.setRowVisible(self.reads, True)
        else:
            self.reads.setChecked(False)
            self.form.setRowVisible(self.reads, False)
        self.reads.blockSignals(False)
        self._reads_mode = reads
        self._said = said
        self._update_notes()
        self.summary.setText(self._summary(graph, concepts, facets))

    def _summary(self, graph: Any, concepts: int, facets: int) -> str:
        parts = [counted(len(graph.links), "link")]
        if graph.entities or concepts:
            parts.append(counted(len(graph.entities) + concepts, "entity") + (
                f" ({concepts} from <dfn>, kept as concept: entities)" if concepts else ""))  # fmt: skip
        if facets:
            parts.append(counted(facets, "facet"))
        parts.append(counted(len(graph.inbound), "memory") + " linking to it")
        parts.append(counted(graph.read_count, "read"))
        return ("It has " + ", ".join(parts) + ". Untick what should not follow; the preview lists every file "
                "the commit changes.")  # fmt: skip

    def _update_notes(self, *_: Any) -> None:
        graph = self._graph
        if graph is None:
            return
        if self._reads_mode == "stay":
            text = (f"Its {self._said} stay with its archived copy: the other memory's reads are its own. The reader "
                    "of the memory that supersedes it says where they are." if graph.read_count
                    else "Not read yet: no reads to move.")  # fmt: skip
        elif not graph.read_count:
            text = "Not read yet: no reads to move."
        elif self.reads.isChecked():
            text = f"The reads move to {self.verb} in the same write; the archived copy keeps none."
        elif not graph.reads_follow_by_default:
            text = (
                "Its outcome is negative: those who read it found it unhelpful, perhaps because it was wrong. "
                "Left with the archived copy unless you tick it, so the correction does not start out penalised."
            )
        else:
            text = "The reads stay with the archived copy (as memhtml's correct leaves them)."
        self.reads_note.setText(text)

    def fill_added(self, entities, facets) -> None:
        """A supersession: the loser's entities and facets the winner lacks, each ticked to be added."""
        for view, values, text in ((self.entities, entities, str),
                                   (self.facets, facets, lambda f: f"{f[0]} = {f[1]}")):  # fmt: skip
            view.blockSignals(True)
            view.clear()
            for value in values:
                _item(view, text(value), tuple(value) if isinstance(value, (list, tuple)) else value, checked=True)
            view.blockSignals(False)
            _fit(view)
            self.form.setRowVisible(view, bool(values))

    # -- what is kept ---------------------------------------------------------------------------------

    def added_entities(self) -> tuple[str, ...]:
        return self._checked(self.entities)

    def added_facets(self) -> tuple[tuple, ...]:
        return tuple(tuple(x) for x in self._checked(self.facets))

    def _checked(self, view: QListWidget) -> tuple:
        return tuple(view.item(i).data(PATH_ROLE) for i in range(view.count())
                     if view.item(i).checkState() == Qt.CheckState.Checked
                     and view.item(i).flags() & Qt.ItemFlag.ItemIsEnabled)  # fmt: skip

    def kept_links(self) -> tuple[tuple[str, str], ...]:
        return tuple(tuple(x) for x in self._checked(self.links))

    def repoints(self) -> tuple[tuple[str, str | None], ...]:
        return tuple(tuple(x) for x in self._checked(self.inbound))

    def reads_follow(self) -> bool:
        return self._reads_mode == "follow" and bool(self._graph and self._graph.read_count) and self.reads.isChecked()

    def set_expected(self, hashes: dict) -> None:
        """New blob ids after a reload: the repointed memories are pinned to the files as they are now."""
        self.inbound.blockSignals(True)
        for i in range(self.inbound.count()):
            item = self.inbound.item(i)
            src, _ = item.data(PATH_ROLE)
            if src in hashes:
                item.setData(PATH_ROLE, (src, hashes[src]))
        self.inbound.blockSignals(False)
