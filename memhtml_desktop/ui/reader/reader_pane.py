"""The reader: one memory, calm and safe — the claim first, then facets, chips, links, the article.

Everything shown here was written by an agent, so nothing here is trusted. Text goes into labels as
plain text, tooltips are escaped (`chips.tooltip_text`), and the article is the sanitized rich text
from `html.render.render_safe_html` shown in a `SafeTextBrowser` that loads nothing: no remote
fetch, no file read. Links never navigate by themselves: `memhtml:/path` asks the window to open a
memory, web and mail links ask the person first, and every other scheme is ignored.

The pane does no I/O: data in (`show_detail`), signals out (`open_requested`, `filter_requested`,
`reinforce_requested`, `why_requested`). The only outward acts are the person's own: opening the
file in an editor, revealing its folder, copying its path, and following a confirmed web link.
"""

from __future__ import annotations

import html
import pathlib
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.paths import workspace_of
from memhtml_desktop.domain.types import MemoryDetail, ReinforceResult
from memhtml_desktop.ui.kit.chips import ChipBar, FlowLayout, tooltip_text
from memhtml_desktop.ui.kit.editor import editor_command
from memhtml_desktop.ui.kit.editor import launch as launch_editor
from memhtml_desktop.ui.kit.palette import mark_color

from memhtml_desktop.ui.reader.reader_parts import (  # noqa: F401  (re-exported for tests and callers)
    EXTERNAL_SCHEMES,
    _SHOWN_ELSEWHERE,
    _blank_image,
    SafeTextBrowser,
    LinksModel,
    relation_text,
    _link_markers,
    _LinkList,
    _Strip,
    _plain_label,
    _link_label,
    _shrinkable,
    _muted,
    _section_title,
    _clear_layout,
    humanize_ago,
    access_line,
    safe_relative,
    memory_path_of,
)


class ReaderPane(QWidget):
    """One memory, read safely. See the module docstring for what it shows and what it never does.

    Injectable for tests (and for a window that wants its own dialogs): `confirm_external(url) ->
    bool` asks before a web or mail link leaves the app; `url_opener(url)` opens a URL (defaults to
    QDesktopServices.openUrl); `clock()` gives "now" for "last read 2 d ago".
    """

    open_requested = Signal(str)
    filter_requested = Signal(str, str)
    reinforce_requested = Signal(str, str)
    why_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], datetime] | None = None) -> None:
        super().__init__(parent)
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.confirm_external: Callable[[QUrl], bool] = self._ask_external
        self.url_opener: Callable[[QUrl], Any] = QDesktopServices.openUrl
        self.editor_launcher: Callable[[list[str]], bool] = launch_editor
        self._root: pathlib.Path | None = None
        self._path: str | None = None
        self._detail: MemoryDetail | None = None
        self._state = "empty"
        self._citation_hrefs: list[str] = []
        self._facet_keys: list[str] = []
        self._header_targets: list[str] = []
        self._safe_html = ""

        self.stack = QStackedWidget(self)
        self.empty_label = _muted(_plain_label(self, wrap=True))
        self.empty_label.setText("Open a memory to read it here.")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading_label = _muted(_plain_label(self, wrap=True))
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_strip = _Strip(self, accent="violation")
        error_page = QWidget(self)
        error_layout = QVBoxLayout(error_page)
        error_layout.addWidget(self.error_strip)
        error_layout.addStretch(1)
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.loading_label)
        self.stack.addWidget(error_page)
        self.stack.addWidget(self._build_detail_page())

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self._build_footer())
        self.clear()

    # -- construction -------------------------------------------------------------------------

    def _build_detail_page(self) -> QWidget:
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        page.setBackgroundRole(QPalette.ColorRole.Base)
        page.setAutoFillBackground(True)
        self.page_layout = body = QVBoxLayout(page)
        body.setContentsMargins(16, 14, 16, 14)
        body.setSpacing(8)

        self.title_label = _shrinkable(_plain_label(page, wrap=True, selectable=True))
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setWeight(QFont.Weight.DemiBold)
        self.title_label.setFont(font)
        body.addWidget(self.title_label)

        meta_row = QHBoxLayout()
        meta_row.setSpacing(6)
        self.kind_chips = ChipBar(page)
        self.kind_chips.chip_clicked.connect(self._on_kind_chip)
        self.archived_badge = _plain_label(page)
        self.archived_badge.setText("ARCHIVED")
        self.archived_badge.setStyleSheet(
            "QLabel { border: 1px solid palette(mid); border-radius: 3px; padding: 0px 5px; font-weight: bold; }"
        )
        meta_row.addWidget(self.kind_chips, 0)
        meta_row.addWidget(self.archived_badge, 0)
        meta_row.addStretch(1)
        body.addLayout(meta_row)
        self.path_label = _shrinkable(_muted(_plain_label(page, wrap=True, selectable=True)))
        self.path_label.setFont(QFont("monospace", max(self.font().pointSize() - 1, 7)))
        body.addWidget(self.path_label)
        self.chain_label = _shrinkable(_link_label(page, self._on_header_link))
        body.addWidget(self.chain_label)

        self.violation_strip = _Strip(page, accent="violation")
        self.warning_strip = _Strip(page)
        body.addWidget(self.violation_strip)
        body.addWidget(self.warning_strip)

        self.claim_label = _shrinkable(_plain_label(page, wrap=True, selectable=True))
        self.claim_label.setObjectName("claim")
        font = self.claim_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.claim_label.setFont(font)
        body.addWidget(self.claim_label)

        self.facets_title = _section_title("Facets", page)
        self.facets_box = QWidget(page)
        self.facets_grid = QGridLayout(self.facets_box)
        self.facets_grid.setContentsMargins(0, 0, 0, 0)
        self.facets_grid.setHorizontalSpacing(14)
        self.facets_grid.setVerticalSpacing(2)
        body.addWidget(self.facets_title)
        body.addWidget(self.facets_box)

        self.entities_title = _section_title("Entities", page)
        self.entity_chips = ChipBar(page)
        self.entity_chips.chip_clicked.connect(lambda key: self.filter_requested.emit("entity", key))
        self.tags_title = _section_title("Tags", page)
        self.tag_chips = ChipBar(page)
        self.tag_chips.chip_clicked.connect(lambda key: self.filter_requested.emit("tag", key))
        for widget in (self.entities_title, self.entity_chips, self.tags_title, self.tag_chips):
            body.addWidget(widget)

        self.links_model = LinksModel("→", self)
        self.backlinks_model = LinksModel("←", self)
        self.links_title = _section_title("Links", page)
        self.links_view = _LinkList(self.links_model, page)
        self.backlinks_title = _section_title("Linked from", page)
        self.backlinks_view = _LinkList(self.backlinks_model, page)
        for view in (self.links_view, self.backlinks_view):
            view.open_path.connect(self.open_requested)
        for widget in (self.links_title, self.links_view, self.backlinks_title, self.backlinks_view):
            body.addWidget(widget)

        self.article_title = _section_title("Memory", page)
        self.article = SafeTextBrowser(page)
        self.article.anchorClicked.connect(self._on_anchor)
        self.article.highlighted.connect(self._on_hover_link)
        body.addWidget(self.article_title)
        body.addWidget(self.article)
        self.hover_label = _muted(_plain_label(page))
        body.addWidget(self.hover_label)

        self.citations_title = _section_title("Citations", page)
        self.citations_label = _shrinkable(_link_label(page, self._on_citation_link))
        body.addWidget(self.citations_title)
        body.addWidget(self.citations_label)

        self.metas_title = _section_title("Metadata", page)
        self.metas_box = QWidget(page)
        self.metas_grid = QGridLayout(self.metas_box)
        self.metas_grid.setContentsMargins(0, 0, 0, 0)
        self.metas_grid.setHorizontalSpacing(14)
        self.metas_grid.setVerticalSpacing(1)
        body.addWidget(self.metas_title)
        body.addWidget(self.metas_box)
        body.addStretch(1)

        self.scroll.setWidget(page)
        self._restyle()
        return self.scroll

    def _build_footer(self) -> QWidget:
        footer = QFrame(self)
        footer.setFrameShape(QFrame.Shape.NoFrame)
        layout = QVBoxLayout(footer)
        layout.setContentsMargins(12, 6, 12, 8)
        layout.setSpacing(4)
        top = QFrame(footer)
        top.setFrameShape(QFrame.Shape.HLine)
        top.setForegroundRole(QPalette.ColorRole.Mid)
        layout.addWidget(top)
        self.stats_label = _muted(_plain_label(footer, wrap=True))
        self.note_label = _plain_label(footer, wrap=True)
        layout.addWidget(self.stats_label)
        layout.addWidget(self.note_label)

        self.helpful_action = QAction("✓ Helpful", self)
        self.helpful_action.setToolTip("This memory helped: a positive reinforcement signal")
        self.helpful_action.triggered.connect(lambda: self._reinforce("positive"))
        self.not_helpful_action = QAction("✗ Not helpful", self)
        self.not_helpful_action.setToolTip("This memory misled or was useless: a negative reinforcement signal")
        self.not_helpful_action.triggered.connect(lambda: self._reinforce("negative"))
        self.why_action = QAction("Why not?", self)
        self.why_action.setToolTip("Where this memory stood for the current query, arm by arm")
        self.why_action.triggered.connect(self._why)
        self.editor_action = QAction("Open in editor", self)
        self.editor_action.triggered.connect(self.open_in_editor)
        self.reveal_action = QAction("Reveal in file manager", self)
        self.reveal_action.triggered.connect(self.reveal_in_file_manager)
        self.copy_path_action = QAction("Copy path", self)
        self.copy_path_action.triggered.connect(self.copy_path)

        buttons = QWidget(footer)
        row = FlowLayout(buttons, spacing=4)  # wraps, so a narrow reader never forces the splitter wider
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        buttons.setSizePolicy(policy)
        for action in (self.helpful_action, self.not_helpful_action, self.why_action, self.editor_action):
            button = QToolButton(footer)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            row.addWidget(button)
        self.more_button = QToolButton(footer)
        self.more_button.setText("⋯")
        self.more_button.setToolTip("More")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        menu = QMenu(self.more_button)
        menu.addAction(self.reveal_action)
        menu.addAction(self.copy_path_action)
        self.more_button.setMenu(menu)
        row.addWidget(self.more_button)
        layout.addWidget(buttons)
        return footer

    # -- contract -----------------------------------------------------------------------------

    def set_store_root(self, root: pathlib.Path) -> None:
        self._root = pathlib.Path(root)
        self._update_actions()

    def show_loading(self, path: str) -> None:
        self._path = path
        self._detail = None
        self._state = "loading"
        self.loading_label.setText(f"Opening {path}…")
        self.stack.setCurrentIndex(1)
        self.stats_label.setText("")
        self.note_label.setText("")
        self._update_actions()

    def show_detail(self, detail: MemoryDetail, safe_html: str) -> None:
        self._path = detail.path
        self._detail = detail
        self._state = "detail"
        self._fill_header(detail)
        self._fill_strips(detail)
        self.claim_label.setText(detail.gist)
        self.claim_label.setVisible(bool(detail.gist))
        self._fill_facets(detail)
        self.entity_chips.set_chips([(e, e) for e in detail.entities])
        self.tag_chips.set_chips([(t, t) for t in detail.tags])
        self.entities_title.setVisible(bool(detail.entities))
        self.entity_chips.setVisible(bool(detail.entities))
        self.tags_title.setVisible(bool(detail.tags))
        self.tag_chips.setVisible(bool(detail.tags))
        self.links_model.set_links(detail.links)
        self.backlinks_model.set_links(detail.backlinks)
        for title, view, links in ((self.links_title, self.links_view, detail.links),
                                   (self.backlinks_title, self.backlinks_view, detail.backlinks)):
            title.setVisible(bool(links))
            view.setVisible(bool(links))
        self._safe_html = safe_html
        self._set_article(detail)
        self.article_title.setVisible(bool(safe_html or detail.text))
        self.article.setVisible(bool(safe_html or detail.text))
        self.hover_label.setText("")
        self.hover_label.hide()
        self._fill_citations(detail)
        self._fill_metas(detail)
        self.stats_label.setText(access_line(detail.access, self.clock(), indexed=detail.indexed))
        self.note_label.setText(_bump_note(detail))
        self.note_label.setVisible(bool(self.note_label.text()))
        self.stack.setCurrentIndex(3)
        self.scroll.verticalScrollBar().setValue(0)
        self._update_actions()

    def show_error(self, path: str, message: str) -> None:
        self._path = path
        self._detail = None
        self._state = "error"
        self.error_strip.set_lines(f"Could not open {path}", [message] if message else [])
        self.stack.setCurrentIndex(2)
        self.stats_label.setText("")
        self.note_label.setText("")
        self._update_actions()

    def clear(self) -> None:
        self._path = None
        self._detail = None
        self._state = "empty"
        self.stack.setCurrentIndex(0)
        self.stats_label.setText("")
        self.note_label.setText("")
        self.note_label.hide()
        self._update_actions()

    # -- additions ----------------------------------------------------------------------------

    def current_path(self) -> str | None:
        return self._path

    def current_detail(self) -> MemoryDetail | None:
        return self._detail

    def state(self) -> str:
        """`empty`, `loading`, `error` or `detail`."""
        return self._state

    def show_reinforce(self, result: ReinforceResult) -> None:
        """Say what a Helpful / Not helpful click did (the window calls this with the library's answer)."""
        word = {"positive": "helpful", "negative": "not helpful"}.get(result.signal, result.signal)
        if result.refused:
            text = f"Not recorded: {result.refused}"
        elif self._path in result.signal_applied:
            text = f"Recorded as {word}."
        elif self._path in result.signal_cooled:
            text = f"Already marked recently; “{word}” was not applied again (cooldown)."
        else:
            text = f"Recorded: {word}."
        self.note_label.setText(text)
        self.note_label.show()

    def open_in_editor(self) -> None:
        """$VISUAL or $EDITOR; never the .html default handler (a browser would run the file)."""
        target = self._local_file()
        if target is None:
            return
        argv = editor_command(target)
        if argv is not None and self.editor_launcher(argv):
            return
        self.reveal_in_file_manager()
        QToolTip.showText(
            self.mapToGlobal(self.rect().center()),
            "Set $VISUAL or $EDITOR to open memories in your editor. "
            "The file manager opened instead: a web browser would run the file's scripts.",
            self,
        )

    def reveal_in_file_manager(self) -> None:
        target = self._local_file()
        if target is not None:
            self.url_opener(QUrl.fromLocalFile(str(target.parent)))

    def copy_path(self) -> None:
        if self._path:
            QGuiApplication.clipboard().setText(self._path)

    def handle_url(self, url: QUrl) -> None:
        """Route a clicked link: memory links open here, web/mail links ask first, others are ignored."""
        path = memory_path_of(url)
        if path is not None:
            self.open_requested.emit(path)
            return
        if url.scheme().lower() in EXTERNAL_SCHEMES and url.isValid() and self.confirm_external(url):
            self.url_opener(url)

    # -- filling ------------------------------------------------------------------------------

    def _set_article(self, detail: MemoryDetail) -> None:
        """The sanitized rich text, or — when there is none — the article's plain text, never raw HTML."""
        if self._safe_html:
            self.article.setHtml(self._safe_html)
        else:
            self.article.setPlainText(detail.text)

    def _fill_header(self, detail: MemoryDetail) -> None:
        self.title_label.setText(detail.title or detail.path)
        chips = []
        if detail.memory_type:
            chips.append((f"type:{detail.memory_type}", detail.memory_type))
        workspace = workspace_of(detail.path)
        if workspace:
            chips.append((f"workspace:{workspace}", f"workspace: {workspace}"))
        self.kind_chips.set_chips(chips)
        self.kind_chips.setVisible(bool(chips))
        self.archived_badge.setVisible(detail.archived)
        self.path_label.setText(detail.path)
        self._header_targets = []
        parts = []
        if detail.superseded_by:
            parts.append("Superseded by " + self._header_anchor(detail.superseded_by))
        for link in detail.backlinks:
            if relation_text(link.rel) == "supersedes" and link.path != detail.superseded_by:
                parts.append("Superseded by " + self._header_anchor(link.path))
        older = [link.path for link in detail.links if relation_text(link.rel) == "supersedes"]
        if older:
            parts.append("Supersedes " + ", ".join(self._header_anchor(p) for p in older))
        self.chain_label.setText("<br>".join(parts))
        self.chain_label.setVisible(bool(parts))

    def _header_anchor(self, path: str) -> str:
        self._header_targets.append(path)
        return f'<a href="#{len(self._header_targets) - 1}">{html.escape(path)}</a>'

    def _fill_strips(self, detail: MemoryDetail) -> None:
        if detail.violations:
            count = len(detail.violations)
            self.violation_strip.set_lines(
                f"Invalid file: {count} violation{'s' if count != 1 else ''}. "
                "It is not in the index, so search and recall never return it.",
                detail.violations,
            )
        elif not detail.indexed:
            self.violation_strip.set_lines("Not in the index yet.", [])
        self.violation_strip.setVisible(bool(detail.violations) or not detail.indexed)
        count = len(detail.warnings)
        self.warning_strip.set_lines(f"{count} warning{'s' if count != 1 else ''}", detail.warnings)
        self.warning_strip.setVisible(bool(detail.warnings))

    def _fill_facets(self, detail: MemoryDetail) -> None:
        _clear_layout(self.facets_grid)
        self._facet_keys = []
        for row, (name, value, number) in enumerate(detail.facets):
            name_label = _muted(_plain_label(self.facets_box, wrap=True))
            name_label.setText(name)
            value_label = _shrinkable(_link_label(self.facets_box, self._on_facet_link))
            self._facet_keys.append(f"{name}={value}")
            value_label.setText(f'<a href="#{row}">{html.escape(value)}</a>')
            value_label.setToolTip(tooltip_text(f"Filter by {name} = {value}"))
            number_label = _muted(_plain_label(self.facets_box))
            number_label.setText("" if number is None else f"{number:g}")
            number_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            self.facets_grid.addWidget(name_label, row, 0, Qt.AlignmentFlag.AlignTop)
            self.facets_grid.addWidget(value_label, row, 1, Qt.AlignmentFlag.AlignTop)
            self.facets_grid.addWidget(number_label, row, 2, Qt.AlignmentFlag.AlignTop)
        self.facets_grid.setColumnStretch(1, 1)
        self.facets_title.setVisible(bool(detail.facets))
        self.facets_box.setVisible(bool(detail.facets))

    def _fill_citations(self, detail: MemoryDetail) -> None:
        self._citation_hrefs = []
        lines = []
        for text, href in detail.citations:
            line = html.escape(text or "")
            if href:
                self._citation_hrefs.append(href)
                line += f' — <a href="#{len(self._citation_hrefs) - 1}">{html.escape(href)}</a>'
            lines.append(line)
        self.citations_label.setText("<br>".join(lines))
        self.citations_title.setVisible(bool(lines))
        self.citations_label.setVisible(bool(lines))

    def _fill_metas(self, detail: MemoryDetail) -> None:
        _clear_layout(self.metas_grid)
        rows = [(n, v) for n, v in detail.metas if n not in _SHOWN_ELSEWHERE]
        for row, (name, value) in enumerate(rows):
            name_label = _muted(_plain_label(self.metas_box))
            name_label.setText(name.removeprefix("memhtml-"))
            value_label = _shrinkable(_plain_label(self.metas_box, wrap=True, selectable=True))
            value_label.setText(value)
            value_label.setToolTip(tooltip_text(value))
            self.metas_grid.addWidget(name_label, row, 0, Qt.AlignmentFlag.AlignTop)
            self.metas_grid.addWidget(value_label, row, 1, Qt.AlignmentFlag.AlignTop)
        self.metas_grid.setColumnStretch(1, 1)
        self.metas_title.setVisible(bool(rows))
        self.metas_box.setVisible(bool(rows))

    # -- reactions ----------------------------------------------------------------------------

    def _on_kind_chip(self, key: str) -> None:
        axis, _, value = key.partition(":")
        self.filter_requested.emit(axis, value)

    def _on_header_link(self, href: str) -> None:
        index = _anchor_index(href, len(self._header_targets))
        if index is not None:
            self.open_requested.emit(self._header_targets[index])

    def _on_facet_link(self, href: str) -> None:
        index = _anchor_index(href, len(self._facet_keys))
        if index is not None:
            self.filter_requested.emit("facet", self._facet_keys[index])

    def _on_citation_link(self, href: str) -> None:
        index = _anchor_index(href, len(self._citation_hrefs))
        if index is None:
            return
        target = self._citation_hrefs[index]
        if target.startswith("/") and not target.startswith("//") and safe_relative(target):
            self.open_requested.emit(str(safe_relative(target)))
        else:
            self.handle_url(QUrl(target))

    def _on_anchor(self, url: QUrl) -> None:
        self.handle_url(url)

    def _on_hover_link(self, url: QUrl) -> None:
        text = url.toDisplayString() if not url.isEmpty() else ""
        self.hover_label.setText(f"→ {text}" if text else "")
        self.hover_label.setVisible(bool(text))

    def _reinforce(self, signal: str) -> None:
        if self._path and self._state == "detail":
            self.reinforce_requested.emit(self._path, signal)

    def _why(self) -> None:
        if self._path:
            self.why_requested.emit(self._path)

    def _ask_external(self, url: QUrl) -> bool:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Open an outside link?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"This link leaves memhtml and opens outside the app:\n\n{url.toDisplayString()}")
        box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Open

    def _local_file(self) -> pathlib.Path | None:
        if self._root is None or not self._path:
            return None
        relative = safe_relative(self._path)
        return self._root / relative if relative is not None else None

    def _update_actions(self) -> None:
        has_detail = self._state == "detail" and self._detail is not None
        has_path = bool(self._path) and self._state in ("detail", "error")
        indexed = bool(has_detail and self._detail.indexed)
        self.helpful_action.setEnabled(indexed)
        self.not_helpful_action.setEnabled(indexed)
        self.why_action.setEnabled(has_path)
        self.copy_path_action.setEnabled(has_path)
        can_open = has_path and self._local_file() is not None
        self.editor_action.setEnabled(can_open)
        self.reveal_action.setEnabled(can_open)

    def _restyle(self) -> None:
        self.claim_label.setStyleSheet(
            f"QLabel#claim {{ background: {mark_color()}; border-radius: 4px; padding: 8px 10px; }}"
        )
        for strip in (getattr(self, name, None) for name in ("violation_strip", "warning_strip", "error_strip")):
            if strip is not None:
                strip.restyle()
        alt = self.palette().color(QPalette.ColorRole.AlternateBase).name()
        self.article.document().setDefaultStyleSheet(
            f"mark {{ background-color: {mark_color()}; }}"
            f" pre {{ background-color: {alt}; }}"
            " code, pre { font-family: monospace; }"
            " p { margin-top: 0px; margin-bottom: 8px; }"
        )

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and hasattr(self, "article"):
            self._restyle()
            if self._detail is not None:  # the document's default style sheet applies at setHtml
                self._set_article(self._detail)
        super().changeEvent(event)


def _anchor_index(href: str, size: int) -> int | None:
    try:
        index = int(href.lstrip("#"))
    except ValueError:
        return None
    return index if 0 <= index < size else None


def _bump_note(detail: MemoryDetail) -> str:
    bump = detail.bump
    if bump is None:
        return ""
    if bump.refused:
        return f"This read was not counted: {bump.refused}."
    if detail.path in bump.bumped:
        return "This read counted toward salience."
    if detail.path in bump.cooled_down:
        return "Read again within the cooldown: not counted twice."
    return ""
