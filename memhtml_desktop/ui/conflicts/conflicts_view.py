"""The conflicts window: the pairs on top, the chosen pair below, side by side, the differing words
highlighted, and the one-step resolutions.

"This one is right" under a side supersedes the other (the write core archives it with
superseded-by and links this one `supersedes` to it). "Both hold" links them (a relation that
settles the pair) or corrects one side to give it its own scope. Every act goes through a
dialog that previews the commit. The window does no I/O: data in, signals out.

Claims come from memory files, so a claim is escaped before the highlight spans (the only markup)
are wrapped around the differing words.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.conflicts.conflicts_model import ConflictsModel
from memhtml_desktop.ui.conflicts.queue_bar import QueueBar
from memhtml_desktop.ui.kit.palette import mark_color
from memhtml_desktop.ui.kit.screen_fit import fit_to_screen


def highlighted(text: str, spans) -> str:
    """`text` escaped, with each (start, end) span wrapped in a highlight; plain text otherwise."""
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at or end > len(text):
            continue
        out.append(html.escape(text[at:start]))
        out.append(
            f'<span style="background-color:{mark_color()}; font-weight:600">{html.escape(text[start:end])}</span>'
        )
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def _label(parent: QWidget, *, rich: bool = False, muted: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class SideCard(QFrame):
    """One memory of the pair: title, path, the claim with its differing words marked, its acts."""

    open_requested = Signal()
    right_requested = Signal()
    scope_requested = Signal()

    def __init__(self, letter: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"side{letter}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.letter = _label(self, muted=True)
        self.letter.setText(f"Memory {letter}")
        self.title = _label(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setWeight(QFont.Weight.DemiBold)
        self.title.setFont(font)
        self.path = _label(self, muted=True)
        self.path.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.claim = _label(self, rich=True)
        self.claim.setObjectName(f"claim{letter}")
        font = self.claim.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.claim.setFont(font)
        self.facts = _label(self, muted=True)
        self.facts.setObjectName(f"facts{letter}")
        self.article = _label(self)
        self.article.setObjectName(f"article{letter}")
        self.article.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.right_button = QPushButton("This one is right", self)
        self.right_button.setObjectName(f"right{letter}")
        self.right_button.setToolTip("Supersede the other memory by this one: it is archived, linked and dated")
        self.scope_button = QPushButton("Give it its own scope\u2026", self)
        self.scope_button.setObjectName(f"scope{letter}")
        self.scope_button.setToolTip("Correct this memory so it says where it holds (a qualifier, a workspace, tags)")
        self.open_button = QPushButton("Open", self)
        self.open_button.setToolTip("Open it in the reader")
        self.right_button.clicked.connect(self.right_requested)
        self.scope_button.clicked.connect(self.scope_requested)
        self.open_button.clicked.connect(self.open_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.right_button)
        buttons.addWidget(self.scope_button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.letter)
        layout.addWidget(self.title)
        layout.addWidget(self.path)
        layout.addSpacing(4)
        layout.addWidget(self.claim)
        layout.addWidget(self.facts)
        layout.addWidget(self.article, 1)
        layout.addLayout(buttons)

    def show_side(self, side, spans, age: str = "") -> None:
        """`age`: "newer" or "older" (what N and O act on), "" when neither is."""
        letter = self.objectName()[-1]
        self.letter.setText(f"Memory {letter}" + (f" \u2014 {age}, {side.when[:10]}" if age and side.when else ""))
        self.title.setText(side.title or side.path)
        self.path.setText(side.path)
        self.claim.setText(highlighted(side.claim, spans))
        self.facts.setText("")
        self.article.setText("")

    def show_details(self, facts: str, article: str) -> None:
        """What helps judge which is right: type and dates, and the rest of the article."""
        self.facts.setText(facts)
        self.article.setText(article)


class ConflictsWindow(QDialog):
    """The pairs (a table), the chosen pair side by side, scan progress, and the resolutions."""

    scan_requested = Signal()
    cancel_requested = Signal()
    open_requested = Signal(str)
    right_requested = Signal(object, object)  # winner (path, title), loser (path, title)
    link_requested = Signal(object, object, str)  # a (path, title), b (path, title), rel
    dismiss_requested = Signal(object, object, bool)  # a (path, title), b (path, title), restore
    scope_requested = Signal(str)
    pair_shown = Signal(str, str)  # a path, b path: the pair now side by side (details are asked for)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictsWindow")
        self.setWindowTitle("Conflicts \u2014 facts that changed, newest first")
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.model = ConflictsModel(self)
        self.scan_button = QPushButton("Scan", self)
        self.scan_button.setObjectName("scanButton")
        self.scan_button.clicked.connect(self.scan_requested)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("cancelScanButton")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.hide()
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.summary = _label(self)
        self.summary.setObjectName("conflictsSummary")
        self.settled_box = QCheckBox("Show settled pairs", self)
        self.settled_box.setToolTip("Pairs someone linked as both holding (any relation but contradicts)")
        self.settled_box.toggled.connect(self._show_settled)
        self.dismissed_box = QCheckBox("Show dismissed pairs", self)
        self.dismissed_box.setObjectName("showDismissed")
        self.dismissed_box.setToolTip("Pairs a curator said are not a conflict (R restores one)")
        self.dismissed_box.toggled.connect(self.model.set_show_dismissed)
        top = QHBoxLayout()
        for widget in (self.scan_button, self.cancel_button, self.progress):
            top.addWidget(widget)
        top.addWidget(self.summary, 1)
        top.addWidget(self.settled_box)
        top.addWidget(self.dismissed_box)

        self.table = QTableView(self)
        self.table.setObjectName("conflictsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        # Fixed widths: ResizeToContents asks every row for its size at each reset (0.15 s at 200 pairs).
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        metrics = self.table.fontMetrics()
        for col, sample in ((2, "negation, number, qualifier"), (3, "A \u00b7 2026-06-25"), (4, "Alike 0.000")):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(col, metrics.horizontalAdvance(sample) + 24)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _: self._show_pair(current.row()))
        self.model.modelReset.connect(self._after_reset)

        self.pair_box = QWidget(self)
        self.kinds = _label(self.pair_box)
        self.kinds.setObjectName("pairKinds")
        self.side_a, self.side_b = SideCard("A", self.pair_box), SideCard("B", self.pair_box)
        self.side_a.right_requested.connect(lambda: self._right(True))
        self.side_b.right_requested.connect(lambda: self._right(False))
        self.side_a.scope_requested.connect(lambda: self._emit_side(self.scope_requested, True))
        self.side_b.scope_requested.connect(lambda: self._emit_side(self.scope_requested, False))
        self.side_a.open_requested.connect(lambda: self._emit_side(self.open_requested, True))
        self.side_b.open_requested.connect(lambda: self._emit_side(self.open_requested, False))
        sides = QHBoxLayout()
        sides.addWidget(self.side_a, 1)
        sides.addWidget(self.side_b, 1)
        self.queue = QueueBar(self.pair_box)
        self.queue.attach_keys(self)
        self.rel, self.link_button = self.queue.rel, self.queue.link_button
        self.queue.newer_right.connect(lambda: self._by_age(newer_wins=True))
        self.queue.older_right.connect(lambda: self._by_age(newer_wins=False))
        self.queue.both_hold.connect(self._link)
        self.queue.dismiss.connect(lambda: self._dismiss(False))
        self.queue.restore.connect(lambda: self._dismiss(True))
        pair_layout = QVBoxLayout(self.pair_box)
        pair_layout.setContentsMargins(0, 0, 0, 0)
        pair_layout.addWidget(self.kinds)
        pair_layout.addLayout(sides, 1)
        pair_layout.addWidget(self.queue)
        self.empty = _label(self, muted=True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)

        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.pair_box, 1)
        lower_layout.addWidget(self.empty, 1)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        split.setSizes([240, 420])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        fit_to_screen(self, 1100, 720)
        self._show_pair(-1)

    # -- state shown ------------------------------------------------------------------------------

    def set_scanning(self, scanning: bool) -> None:
        self.scan_button.setEnabled(not scanning)
        self.cancel_button.setVisible(scanning)
        self.progress.setVisible(scanning)
        if scanning:
            self.progress.setRange(0, 0)
            self.summary.setText("Comparing every pair of memories\u2026")

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{done:,} / {total:,}")

    def set_report(self, report, *, keep: tuple[str, str] | None = None) -> None:
        self.set_scanning(False)
        self.scan_button.setText("Rescan")
        self.model.set_pairs(report.pairs)
        self.set_summary(report)
        if keep is not None and self.model.row_of(*keep) >= 0:
            self.select_row(self.model.row_of(*keep))

    def set_summary(self, report, note: str = "") -> None:
        open_pairs = sum(1 for p in self.model.pairs() if not p.settled and not p.dismissed)
        settled, dismissed = self.model.settled_count(), self.model.dismissed_count()
        text = (f"{counted(open_pairs, 'conflicting pair')}"
                + (f" (+{settled} settled)" if settled else "")
                + (f" (+{dismissed} dismissed)" if dismissed else "")
                + f" among {counted(report.compared, 'memory')} \u00b7 {report.seconds:.2f} s")  # fmt: skip
        self.summary.setText(text + (f" \u00b7 {note}" if note else ""))

    def say(self, text: str) -> None:
        self.set_scanning(False)
        self.summary.setText(text)

    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.table.selectRow(row)
            self.table.setCurrentIndex(self.model.index(row, 0))

    def current_pair(self):
        return self.model.pair(self.table.currentIndex().row()) if self.table.currentIndex().isValid() else None

    # -- reactions --------------------------------------------------------------------------------

    def _after_reset(self) -> None:
        if self.model.rowCount():
            self.select_row(0)
        else:
            self._show_pair(-1)

    def _show_settled(self, on: bool) -> None:
        self.model.set_show_settled(on)

    def _show_pair(self, row: int) -> None:
        pair = self.model.pair(row)
        self.pair_box.setVisible(pair is not None)
        self.empty.setVisible(pair is None)
        self.queue.show_pair(pair)
        if pair is None:
            self.empty.setText("No conflicting pair." if self.model.pairs() or self.scan_button.text() == "Rescan"
                               else "Scan the store to list near-twin memories whose claims disagree.")  # fmt: skip
            return
        kinds = " and ".join(pair.diff.kinds)
        linked = f" \u00b7 linked: {', '.join(pair.links)}" if pair.links else ""
        alike = "" if pair.cosine is None else f" \u00b7 cosine {pair.cosine:.3f}"
        why = pair.reason.detail if pair.reason is not None else f"They disagree in {kinds}"
        self.kinds.setText(f"{why}{alike}{linked}")
        age = {pair.newer: "newer", pair.older: "older"} if pair.newer else {}
        self.side_a.show_side(pair.a, pair.diff.spans_a, age.get(pair.a.path, ""))
        self.side_b.show_side(pair.b, pair.diff.spans_b, age.get(pair.b.path, ""))
        self.pair_shown.emit(pair.a.path, pair.b.path)

    def show_details(self, details: dict) -> None:
        """`{path: (facts, article)}` for the pair shown (a late answer for another pair is ignored)."""
        pair = self.current_pair()
        if pair is None:
            return
        for side, card in ((pair.a, self.side_a), (pair.b, self.side_b)):
            if side.path in details:
                card.show_details(*details[side.path])

    def _sides(self, first: bool):
        pair = self.current_pair()
        if pair is None:
            return None
        return (pair.a, pair.b) if first else (pair.b, pair.a)

    def _right(self, a_is_right: bool) -> None:
        sides = self._sides(a_is_right)
        if sides:
            winner, loser = sides
            self.right_requested.emit((winner.path, winner.title), (loser.path, loser.title))

    def _emit_side(self, signal, first: bool) -> None:
        sides = self._sides(first)
        if sides:
            signal.emit(sides[0].path)

    def _link(self, rel: str = "") -> None:
        pair = self.current_pair()
        if pair is not None:
            self.link_requested.emit((pair.a.path, pair.a.title), (pair.b.path, pair.b.title),
                                     rel or self.rel.currentText())  # fmt: skip

    def _by_age(self, *, newer_wins: bool) -> None:
        """N / O: the newer (older) side supersedes the other."""
        pair = self.current_pair()
        if pair is None or pair.newer is None:
            return
        newer, older = pair.side(pair.newer), pair.side(pair.older)
        winner, loser = (newer, older) if newer_wins else (older, newer)
        self.right_requested.emit((winner.path, winner.title), (loser.path, loser.title))

    def _dismiss(self, restore: bool) -> None:
        pair = self.current_pair()
        if pair is not None:
            self.dismiss_requested.emit((pair.a.path, pair.a.title), (pair.b.path, pair.b.title), restore)
