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

import pathlib
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QMessageBox,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.types import MemoryDetail, ReinforceResult
from memhtml_desktop.ui.kit.editor import launch as launch_editor
from memhtml_desktop.ui.kit.editor import plan_edit
from memhtml_desktop.ui.kit.palette import mark_color
from memhtml_desktop.ui.reader.detail_page import (
    CURATE_TIPS,
    build_detail_page,
    build_footer,
    fill_citations,
    fill_facets,
    fill_header,
    fill_metas,
    fill_strips,
)
from memhtml_desktop.ui.reader.reader_parts import (
    EXTERNAL_SCHEMES,
    _muted,
    _plain_label,
    _Strip,
    memory_path_of,
    reads_line,
    safe_relative,
)
from memhtml_desktop.ui.reader.signal_text import bump_note, reinforce_note

EMPTY_TEXT = "Open a memory to read it here."


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
    curate_requested = Signal(str, str)  # action key (detail_page.CURATE_ACTIONS), path

    def __init__(self, parent: QWidget | None = None, *, clock: Callable[[], datetime] | None = None) -> None:
        super().__init__(parent)
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.confirm_external: Callable[[QUrl], bool] = self._ask_external
        self.url_opener: Callable[[QUrl], Any] = QDesktopServices.openUrl
        self.editor_launcher: Callable[[list[str]], bool] = launch_editor
        self._root: pathlib.Path | None = None
        self._curation_off: str | None = None
        self._path: str | None = None
        self._detail: MemoryDetail | None = None
        self._state = "empty"
        self._citation_hrefs: list[str] = []
        self._facet_keys: list[str] = []
        self._header_targets: list[str] = []
        self._safe_html = ""

        self.stack = QStackedWidget(self)
        self.empty_label = _muted(_plain_label(self, wrap=True))
        self.empty_label.setText(EMPTY_TEXT)
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
        self.stack.addWidget(build_detail_page(self))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.stack, 1)
        layout.addWidget(build_footer(self))
        self.clear()

    # -- construction -------------------------------------------------------------------------

    # -- contract -----------------------------------------------------------------------------

    def add_section(self, widget: QWidget) -> None:
        """A strip another pane fills (the review's provenance), between the memory and the footer."""
        layout = self.layout()
        layout.insertWidget(layout.count() - 1, widget)

    def set_store_root(self, root: pathlib.Path, curation_off: str | None = None) -> None:
        """`curation_off`: why the store cannot be curated (no git of its own); the Curate menu's
        writes are greyed out with it as their tip."""
        self._root = pathlib.Path(root)
        self._curation_off = curation_off
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
        fill_header(self, detail)
        fill_strips(self, detail)
        self.claim_label.setText(detail.gist)
        self.claim_label.setVisible(bool(detail.gist))
        fill_facets(self, detail)
        self.entity_chips.set_chips([(e, e) for e in detail.entities])
        self.tag_chips.set_chips([(t, t) for t in detail.tags])
        self.entities_title.setVisible(bool(detail.entities))
        self.entity_chips.setVisible(bool(detail.entities))
        self.tags_title.setVisible(bool(detail.tags))
        self.tag_chips.setVisible(bool(detail.tags))
        self.links_model.set_links(detail.links)
        self.backlinks_model.set_links(detail.backlinks)
        for title, view, links in (
            (self.links_title, self.links_view, detail.links),
            (self.backlinks_title, self.backlinks_view, detail.backlinks),
        ):
            title.setVisible(bool(links))
            view.setVisible(bool(links))
        self._safe_html = safe_html
        self._set_article(detail)
        self.article_title.setVisible(bool(safe_html or detail.text))
        self.article.setVisible(bool(safe_html or detail.text))
        self.hover_label.setText("")
        self.hover_label.hide()
        fill_citations(self, detail)
        fill_metas(self, detail)
        self.stats_label.setText(reads_line(detail, self.clock()))
        self.note_label.setText(bump_note(detail))
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
        self.empty_label.setText(EMPTY_TEXT)
        self.stack.setCurrentIndex(0)
        self.stats_label.setText("")
        self.note_label.setText("")
        self.note_label.hide()
        self._update_actions()

    def show_note(self, text: str) -> None:
        """Nothing to show, and why: an undo removed the memory that was shown (not an error)."""
        self.clear()
        self.empty_label.setText(text)

    # -- additions ----------------------------------------------------------------------------

    def current_path(self) -> str | None:
        return self._path

    def detail(self) -> MemoryDetail | None:
        """The memory shown (None while loading, on an error or when empty)."""
        return self._detail if self._state == "detail" else None

    def state(self) -> str:
        """`empty`, `loading`, `error` or `detail`."""
        return self._state

    def show_reinforce(
        self,
        result: ReinforceResult,
        previous: str | None = None,
        before: dict | None = None,
        after: dict | None = None,
    ) -> None:
        """Say what a Helpful / Not helpful click did (`ui/reader/signal_text.py`): `previous` is the
        person's own earlier signal it replaced or withdrew; `before`/`after` the row around it."""
        self.note_label.setText(reinforce_note(result, self._path, previous, before, after))
        self.note_label.show()

    def show_signal(self, signal: str | None) -> None:
        """Check the button of the person's current signal on this memory (none: both unchecked)."""
        self.helpful_action.setChecked(signal == "positive")
        self.not_helpful_action.setChecked(signal == "negative")

    def open_in_editor(self, path: str | None = None) -> None:
        """$VISUAL or $EDITOR (in a terminal when it needs one); never the .html default handler.

        `path`: another memory than the one shown (a result row's "Open in editor").
        """
        target = self._local_file(path)
        if target is None:
            return
        plan = plan_edit(target)
        if plan.argv is not None and self.editor_launcher(plan.argv):
            return
        message = plan.message or f"Could not start {plan.argv[0] if plan.argv else 'the editor'}."
        if plan.reveal:
            self.reveal_in_file_manager(path)
        self.note_label.setText(message)
        self.note_label.show()
        QToolTip.showText(self.mapToGlobal(self.rect().center()), message, self)

    def reveal_in_file_manager(self, path: str | None = None) -> None:
        target = self._local_file(path)
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

    def _curate(self, key: str) -> None:
        if self._path and self._state == "detail":
            self.curate_requested.emit(key, self._path)

    def _ask_external(self, url: QUrl) -> bool:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Open an outside link?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"This link leaves memhtml and opens outside the app:\n\n{url.toDisplayString()}")
        box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Open

    def _local_file(self, path: str | None = None) -> pathlib.Path | None:
        path = path or self._path
        if self._root is None or not path:
            return None
        relative = safe_relative(path)
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
        live = indexed and not self._detail.archived and not str(self._path).startswith("archive/")
        task = live and self._detail.memory_type == "task"
        off = self._curation_off
        for key, made in self.curate_actions.items():
            made.setEnabled({"correct": live, "archive": live, "link": live, "doing": task, "done": task,
                             "timeline": has_detail}[key] and (key == "timeline" or not off))  # fmt: skip
            made.setToolTip(f"Curation is off: {off}" if off and key != "timeline" else CURATE_TIPS[key])
            made.setVisible(key not in ("doing", "done") or task)
        self.curate_button.setEnabled(has_detail)

    def _restyle(self) -> None:
        self.claim_label.setStyleSheet(
            f"QLabel#claim {{ background: {mark_color()}; border-radius: 4px; padding: 8px 10px; }}"
        )
        for strip in (
            getattr(self, n, None) for n in ("violation_strip", "warning_strip", "error_strip", "contradiction_strip")
        ):
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
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and hasattr(
            self, "article"
        ):
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
