""" "Why not this one?": where one memory stood for a query, arm by arm, and what kept it out.

Shows a `WhyNot` report as given: the file's status, the reasons (which scope axis excluded it),
one table row per arm (its rank out of how many it ranked, whether that rank was inside the
candidate window the fusion reads, what it contributed, its raw signal), the fused position and
the position on the result page. It computes nothing.

The memory is chosen by its title (or path) in the field at the top, with completions the window
finds as the person types (`find_requested(text)` → `set_matches`). A memory the index does not
hold is said once, plainly, with nothing to open and no empty table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QStringListModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.reader.why_arms import STATUS_TEXT, ArmsModel
from memhtml_desktop.ui.reader.why_choice import looks_like_path, resolve_typed
from memhtml_desktop.ui.reader.why_text import (
    completion_text,
    excluded_text,
    fused_text,
    move_text,
    ranking_text,
    verdict_text,
)

if TYPE_CHECKING:
    from memhtml_desktop.domain.results import WhyNot


def _plain(parent: QWidget, *, wrap: bool = True) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


FIND_DEBOUNCE_MS = 150
OPENABLE = ("indexed", "invalid", "unreadable")
"""Statuses with a file to open (an invalid file opens in the reader with its violations)."""


class WhyDialog(QDialog):
    """The report for one memory and query; `open_requested(path)` opens the memory.

    `why_requested(path)` asks for the report on another memory (chosen in the field);
    `find_requested(text)` asks for memories whose title or path holds `text`.
    """

    open_requested = Signal(str)
    why_requested = Signal(str)
    find_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Why not this one?")
        self.setObjectName("whyDialog")
        self.resize(760, 480)
        self._report: WhyNot | None = None
        self._profile: RankingProfile = DEFAULT
        self._paths: dict[str, str] = {}  # completion text -> path
        layout = QVBoxLayout(self)
        layout.setSpacing(6)

        chooser = QHBoxLayout()
        self.memory_field = QLineEdit(self)
        self.memory_field.setObjectName("whyMemory")
        self.memory_field.setPlaceholderText("Type a memory's title or path \u2026")
        self.memory_field.setAccessibleName("Memory to explain")
        self.memory_field.setClearButtonEnabled(True)
        self.matches = QStringListModel(self)
        completer = QCompleter(self.matches, self)
        completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setMaxVisibleItems(12)
        completer.activated[str].connect(self._chosen)
        self.memory_field.setCompleter(completer)
        self.memory_field.textEdited.connect(self._edited)
        self.memory_field.returnPressed.connect(self._ask)
        self._find_timer = QTimer(self)
        self._find_timer.setSingleShot(True)
        self._find_timer.setInterval(FIND_DEBOUNCE_MS)
        self._find_timer.timeout.connect(lambda: self.find_requested.emit(self.memory_field.text().strip()))
        self.ask_button = QPushButton("Explain", self)
        self.ask_button.setAutoDefault(False)
        self.ask_button.clicked.connect(self._ask)
        chooser.addWidget(self.memory_field, 1)
        chooser.addWidget(self.ask_button)
        layout.addLayout(chooser)
        self.choice_note = _plain(self)  # a typed title that names no memory, or several
        self.choice_note.setObjectName("whyChoice")
        self.choice_note.hide()
        layout.addWidget(self.choice_note)
        self._matched_for: str | None = None  # the text the completions were found for
        self._pending: str | None = None  # Enter on a title whose completions are on their way
        self._refs: list = []  # the memories found for `_matched_for`

        self.path_label = _plain(self)
        font = self.path_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setWeight(QFont.Weight.DemiBold)
        self.path_label.setFont(font)
        self.query_label = _plain(self)
        self.query_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.status_label = _plain(self)
        self.verdict_label = _plain(self)
        bold = self.verdict_label.font()
        bold.setBold(True)
        self.verdict_label.setFont(bold)
        self.reasons_label = _plain(self)
        self.reasons_label.setObjectName("reasons")
        self.relaxed_label = _plain(self)
        self.relaxed_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for widget in (
            self.path_label,
            self.query_label,
            self.status_label,
            self.verdict_label,
            self.reasons_label,
            self.relaxed_label,
        ):
            layout.addWidget(widget)

        self.arms_model = ArmsModel(self)
        self.arms_view = QTableView(self)
        self.arms_view.setObjectName("whyArms")
        self.arms_view.setAccessibleName("Where it stood in each arm")
        self.arms_view.setModel(self.arms_model)
        self.arms_view.verticalHeader().hide()
        self.arms_view.setShowGrid(False)
        self.arms_view.setAlternatingRowColors(True)
        self.arms_view.setTabKeyNavigation(False)
        self.arms_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.arms_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.arms_view.setWordWrap(True)
        header = self.arms_view.horizontalHeader()
        for col in range(len(ArmsModel.COLUMNS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ArmsModel.RAW, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(lambda *_: self._fit_table())  # wrapped raw signals
        # The table is as tall as its rows, always (issue 41: it showed 2.5 rows and scrolled while
        # the prose below took the room); the prose scrolls instead, in the room that is left.
        self.arms_view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.arms_view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.arms_view)
        prose = QWidget(self)
        prose_layout = QVBoxLayout(prose)
        prose_layout.setContentsMargins(0, 0, 0, 0)
        self.fused_label = _plain(prose)
        self.moves_label = _plain(prose)
        self.moves_label.setObjectName("whyMoves")
        self.moves_label.setAccessibleName("What moved it after fusion")
        self.ranking_label = _plain(prose)
        self.ranking_label.setObjectName("whyRanking")
        self.differs_label = _plain(prose)
        self.differs_label.setObjectName("whyDiffers")
        self.differs_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for label in (self.fused_label, self.moves_label, self.ranking_label, self.differs_label):
            prose_layout.addWidget(label)
        prose_layout.addStretch(1)
        self.prose = QScrollArea(self)
        self.prose.setObjectName("whyProse")
        self.prose.setWidgetResizable(True)
        self.prose.setFrameShape(QFrame.Shape.NoFrame)
        self.prose.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.prose.setWidget(prose)
        layout.addWidget(self.prose, 1)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(
            False
        )  # Enter in the field asks; never closes
        self.open_button = buttons.addButton("Open memory", QDialogButtonBox.ButtonRole.ActionRole)
        self.open_button.setAutoDefault(False)
        self.open_button.clicked.connect(self._open)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.show_report(None)

    # -- choosing a memory -----------------------------------------------------------------------

    def _edited(self, text: str) -> None:
        if text.strip():
            self._find_timer.start()

    def set_matches(self, refs: list, text: str | None = None) -> None:
        """Completions for the field: "Title — path" per memory found (for `text`, when known)."""
        self._matched_for, self._refs = text, list(refs)
        if text is not None and self._pending == text:
            self._pending = None
            self._resolve(text)
            return
        self._paths = {}
        for ref in refs:
            label = completion_text(ref.title, ref.path) + (" (archived)" if getattr(ref, "archived", False) else "")
            self._paths[label] = ref.path
        self.matches.setStringList(list(self._paths))
        if self._paths and self.memory_field.hasFocus():
            self.memory_field.completer().complete()

    def _chosen(self, text: str) -> None:
        path = self._paths.get(text, text.rsplit(" \u2014 ", 1)[-1].removesuffix(" (archived)"))
        if path:
            self.memory_field.setText(path)
            self.why_requested.emit(path)

    def _ask(self) -> None:
        """Enter or Explain: a completion, a path, or a title (or its start) resolved (why_choice.py)."""
        text = self.memory_field.text().strip()
        self.choice_note.hide()
        if not text:
            return
        if text in self._paths:
            self._chosen(text)
        elif looks_like_path(text):
            self.why_requested.emit(text)
        elif self._matched_for == text:
            self._resolve(text)
        else:  # the completions for what was typed are not here yet: ask for them now, then resolve
            self._pending = text
            self._find_timer.stop()
            self.find_requested.emit(text)

    def _resolve(self, text: str) -> None:
        path, note = resolve_typed(text, self._refs)
        if path is not None:
            self.memory_field.setText(path)
            self.why_requested.emit(path)
            return
        self.choice_note.setText(note)
        self.choice_note.show()
        if self._refs and self.memory_field.hasFocus():
            self.set_matches(self._refs)

    def choose(self, path: str | None = None) -> None:
        """Ready to pick a memory: the field holds `path` (or nothing) and has the focus."""
        self.memory_field.setText(path or "")
        self.memory_field.setFocus(Qt.FocusReason.OtherFocusReason)
        self.memory_field.selectAll()

    # -- the report ----------------------------------------------------------------------------

    def set_profile(self, profile: RankingProfile | None) -> None:
        """The active ranking profile: its arm window and the steps the report names."""
        self._profile = profile or DEFAULT
        self.arms_model.window = self._profile.arm_window
        if self._report is not None:
            self.show_report(self._report)

    def show_loading(self, path: str) -> None:
        """While the window computes the report."""
        self.path_label.setText(path)
        self.status_label.setText("Working it out\u2026")
        for label in (
            self.verdict_label,
            self.reasons_label,
            self.relaxed_label,
            self.fused_label,
            self.moves_label,
            self.ranking_label,
            self.differs_label,
        ):
            label.hide()

    def _table(self, shown: bool) -> None:
        self.arms_view.setVisible(shown)
        if shown:
            self._fit_table()

    def _fit_table(self) -> None:
        """Rows wrapped to the columns' widths, then the table exactly as tall as header and rows."""
        view = self.arms_view
        view.resizeRowsToContents()
        rows = sum(view.rowHeight(r) for r in range(self.arms_model.rowCount()))
        bar = view.horizontalScrollBar()
        extra = bar.sizeHint().height() if bar.isVisible() else 0
        view.setFixedHeight(view.horizontalHeader().height() + rows + 2 * view.frameWidth() + extra)

    def show_report(self, report: "WhyNot | None") -> None:
        self._report = report
        self.open_button.setEnabled(report is not None and report.status in OPENABLE)
        if report is None:
            self.path_label.setText("No memory chosen")
            self.query_label.setText("Type a title or a path above, or right-click a result \u2192 Why not?")
            self.status_label.setText("")
            for label in (
                self.status_label,
                self.verdict_label,
                self.reasons_label,
                self.relaxed_label,
                self.fused_label,
                self.moves_label,
                self.ranking_label,
                self.differs_label,
            ):
                label.hide()
            self.arms_model.set_arms({})
            self._table(False)
            return
        indexed = report.status == "indexed"
        self.path_label.setText(report.path)
        self.query_label.setText(f"for the query \u201c{report.query}\u201d" if report.query else "for an empty query")
        self.status_label.setText(STATUS_TEXT.get(report.status, report.status))
        self.status_label.show()
        self.verdict_label.setText(verdict_text(report))
        self.verdict_label.setVisible(indexed)
        # An indexed memory's reasons say what kept it out; for any other status the status line
        # already says it, and only the file's own violations add anything.
        lines = list(report.reasons) if indexed else list(report.problems)
        self.reasons_label.setText("\n".join(f"\u2022 {line}" for line in lines))
        self.reasons_label.setStyleSheet(
            f"QLabel#reasons {{ background: {palette.warning_color()}; border-radius: 4px; padding: 6px 8px; }}"
        )
        self.reasons_label.setVisible(bool(lines))
        if report.excluded_by:
            self.relaxed_label.setText(excluded_text(report))
        self.relaxed_label.setVisible(bool(report.excluded_by))
        self.arms_model.set_arms(report.arms)
        self.arms_view.setCurrentIndex(self.arms_model.index(-1, -1))
        self._table(bool(report.arms))
        if indexed:
            self.fused_label.setText(fused_text(report))
        self.fused_label.setVisible(indexed)
        moves = [move_text(m) for m in (report.moves or [])]
        self.moves_label.setText("\n".join(f"\u2022 {line}" for line in moves))
        self.moves_label.setVisible(indexed and bool(moves))
        head, differs = ranking_text(report, self._profile)
        self.ranking_label.setText(head)
        self.ranking_label.setVisible(indexed)
        self.differs_label.setText(differs)
        self.differs_label.setVisible(indexed and bool(differs))

    def showEvent(self, event: Any) -> None:  # noqa: N802
        super().showEvent(event)
        QTimer.singleShot(0, self._fit_table)  # wrap against the laid-out widths

    def report(self) -> "WhyNot | None":
        return self._report

    def _open(self) -> None:
        if self._report is not None and self._report.status in OPENABLE:
            self.open_requested.emit(self._report.path)
