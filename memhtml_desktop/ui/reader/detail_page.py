"""How the reader's detail page is built and filled: the header, strips, facets, citations, metas
and the footer's actions, as functions of the ReaderPane they build into.

Apart from reader_pane.py so the pane reads as state and behaviour (show, clear, links, actions)
and this file as layout. The functions set the pane's widgets as its attributes (`pane.title`,
`pane.facets`, ...) and read the pane's link bookkeeping (`pane._header_targets`, ...), which
the pane's link handlers use.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QMenu,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memhtml_desktop.domain.paths import workspace_of
from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.types import MemoryDetail
from memhtml_desktop.ui.kit.action_button import ActionButton
from memhtml_desktop.ui.kit.chips import ChipBar, FlowLayout, tooltip_text
from memhtml_desktop.ui.reader.contradiction_strip import ContradictionStrip
from memhtml_desktop.ui.reader.reader_parts import (
    _SHOWN_ELSEWHERE,
    LinksModel,
    SafeTextBrowser,
    _clear_layout,
    _link_label,
    _LinkList,
    _muted,
    _plain_label,
    _section_title,
    _shrinkable,
    _Strip,
    relation_text,
)

#: The reader's curation actions (ui/curate does the work): key, menu text, tooltip.
CURATE_ACTIONS = (
    ("correct", "Correct\u2026", "Write a corrected version; this one is archived and superseded by it"),
    ("archive", "Archive\u2026", "Move this memory to archive/ with a reason"),
    ("link", "Link to\u2026", "Add a typed link from this memory to another"),
    ("doing", "Mark task doing\u2026", "Set this task's status to doing"),
    ("done", "Mark task done\u2026", "Set this task's status to done (it is archived)"),
    ("timeline", "Supersession timeline", "What this memory superseded and what superseded it, on a time axis"),
)
CURATE_TIPS = {key: tip for key, _, tip in CURATE_ACTIONS}


def build_detail_page(pane) -> QWidget:
    pane.scroll = QScrollArea(pane)
    pane.scroll.setAccessibleName("Memory")
    pane.scroll.setWidgetResizable(True)
    pane.scroll.setFrameShape(QFrame.Shape.NoFrame)
    pane.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    page = QWidget()
    page.setBackgroundRole(QPalette.ColorRole.Base)
    page.setAutoFillBackground(True)
    pane.page_layout = body = QVBoxLayout(page)
    body.setContentsMargins(16, 14, 16, 14)
    body.setSpacing(8)

    pane.title_label = _shrinkable(_plain_label(page, wrap=True, selectable=True))
    font = pane.title_label.font()
    font.setPointSizeF(font.pointSizeF() * 1.35)
    font.setWeight(QFont.Weight.DemiBold)
    pane.title_label.setFont(font)
    body.addWidget(pane.title_label)

    meta_row = QHBoxLayout()
    meta_row.setSpacing(6)
    pane.kind_chips = ChipBar(page)
    pane.kind_chips.chip_clicked.connect(pane._on_kind_chip)
    pane.archived_badge = _plain_label(page)
    pane.archived_badge.setText("ARCHIVED")
    pane.archived_badge.setStyleSheet(
        "QLabel { border: 1px solid palette(mid); border-radius: 3px; padding: 0px 5px; font-weight: bold; }"
    )
    meta_row.addWidget(pane.kind_chips, 0)
    meta_row.addWidget(pane.archived_badge, 0)
    meta_row.addStretch(1)
    body.addLayout(meta_row)
    pane.path_label = _shrinkable(_muted(_plain_label(page, wrap=True, selectable=True)))
    pane.path_label.setFont(QFont("monospace", max(pane.font().pointSize() - 1, 7)))
    body.addWidget(pane.path_label)
    pane.chain_label = _shrinkable(_link_label(page, pane._on_header_link))
    body.addWidget(pane.chain_label)
    pane.contradiction_strip = ContradictionStrip(page)  # filled by the controller from the list's marks
    pane.contradiction_strip.open_requested.connect(pane.open_requested)
    body.addWidget(pane.contradiction_strip)

    pane.violation_strip = _Strip(page, accent="violation")
    pane.warning_strip = _Strip(page)
    body.addWidget(pane.violation_strip)
    body.addWidget(pane.warning_strip)

    pane.claim_label = _shrinkable(_plain_label(page, wrap=True, selectable=True))
    pane.claim_label.setObjectName("claim")
    font = pane.claim_label.font()
    font.setPointSizeF(font.pointSizeF() * 1.1)
    pane.claim_label.setFont(font)
    body.addWidget(pane.claim_label)

    pane.facets_title = _section_title("Facets", page)
    pane.facets_box = QWidget(page)
    pane.facets_grid = QGridLayout(pane.facets_box)
    pane.facets_grid.setContentsMargins(0, 0, 0, 0)
    pane.facets_grid.setHorizontalSpacing(14)
    pane.facets_grid.setVerticalSpacing(2)
    body.addWidget(pane.facets_title)
    body.addWidget(pane.facets_box)

    pane.entities_title = _section_title("Entities", page)
    pane.entity_chips = ChipBar(page)
    pane.entity_chips.chip_clicked.connect(lambda key: pane.filter_requested.emit("entity", key))
    pane.tags_title = _section_title("Tags", page)
    pane.tag_chips = ChipBar(page)
    pane.tag_chips.chip_clicked.connect(lambda key: pane.filter_requested.emit("tag", key))
    for widget in (pane.entities_title, pane.entity_chips, pane.tags_title, pane.tag_chips):
        body.addWidget(widget)

    pane.links_model = LinksModel("→", pane)
    pane.backlinks_model = LinksModel("←", pane)
    pane.links_title = _section_title("Links", page)
    pane.links_view = _LinkList(pane.links_model, page)
    pane.links_view.setAccessibleName("Links")
    pane.backlinks_title = _section_title("Linked from", page)
    pane.backlinks_view = _LinkList(pane.backlinks_model, page)
    pane.backlinks_view.setAccessibleName("Linked from")
    for view in (pane.links_view, pane.backlinks_view):
        view.open_path.connect(pane.open_requested)
    for widget in (pane.links_title, pane.links_view, pane.backlinks_title, pane.backlinks_view):
        body.addWidget(widget)

    pane.article_title = _section_title("Memory", page)
    pane.article = SafeTextBrowser(page)
    pane.article.setAccessibleName("Memory text")
    pane.article.anchorClicked.connect(pane._on_anchor)
    pane.article.highlighted.connect(pane._on_hover_link)
    body.addWidget(pane.article_title)
    body.addWidget(pane.article)
    pane.hover_label = _muted(_plain_label(page))
    body.addWidget(pane.hover_label)

    pane.citations_title = _section_title("Citations", page)
    pane.citations_label = _shrinkable(_link_label(page, pane._on_citation_link))
    body.addWidget(pane.citations_title)
    body.addWidget(pane.citations_label)

    pane.metas_title = _section_title("Metadata", page)
    pane.metas_box = QWidget(page)
    pane.metas_grid = QGridLayout(pane.metas_box)
    pane.metas_grid.setContentsMargins(0, 0, 0, 0)
    pane.metas_grid.setHorizontalSpacing(14)
    pane.metas_grid.setVerticalSpacing(1)
    body.addWidget(pane.metas_title)
    body.addWidget(pane.metas_box)
    body.addStretch(1)

    pane.scroll.setWidget(page)
    pane._restyle()
    return pane.scroll


def build_footer(pane) -> QWidget:
    footer = QFrame(pane)
    footer.setFrameShape(QFrame.Shape.NoFrame)
    layout = QVBoxLayout(footer)
    layout.setContentsMargins(12, 6, 12, 8)
    layout.setSpacing(4)
    top = QFrame(footer)
    top.setFrameShape(QFrame.Shape.HLine)
    top.setForegroundRole(QPalette.ColorRole.Mid)
    layout.addWidget(top)
    pane.stats_label = _muted(_plain_label(footer, wrap=True))
    pane.note_label = _plain_label(footer, wrap=True)
    layout.addWidget(pane.stats_label)
    layout.addWidget(pane.note_label)

    pane.helpful_action = QAction("✓ Helpful", pane)
    pane.helpful_action.setToolTip(
        "This memory helped: a positive reinforcement signal "
        "(within 15 minutes, click again to withdraw it or click the other to change it)"
    )
    pane.helpful_action.setCheckable(True)
    pane.helpful_action.triggered.connect(lambda: pane._reinforce("positive"))
    pane.not_helpful_action = QAction("✗ Not helpful", pane)
    pane.not_helpful_action.setToolTip(
        "This memory misled or was useless: a negative reinforcement signal "
        "(within 15 minutes, click again to withdraw it or click the other to change it)"
    )
    pane.not_helpful_action.setCheckable(True)
    pane.not_helpful_action.triggered.connect(lambda: pane._reinforce("negative"))
    pane.why_action = QAction("Why not?", pane)
    pane.why_action.setToolTip("Where this memory stood for the current query, arm by arm")
    pane.why_action.triggered.connect(pane._why)
    pane.editor_action = QAction("Open in editor", pane)
    pane.editor_action.triggered.connect(lambda: pane.open_in_editor())
    pane.reveal_action = QAction("Reveal in file manager", pane)
    pane.reveal_action.triggered.connect(lambda: pane.reveal_in_file_manager())
    pane.copy_path_action = QAction("Copy path", pane)
    pane.copy_path_action.triggered.connect(pane.copy_path)
    pane.curate_actions = {}
    for key, text, tip in CURATE_ACTIONS:
        made = QAction(text, pane)
        made.setObjectName(f"curate_{key}")
        made.setToolTip(tip)
        made.triggered.connect(lambda _=False, k=key: pane._curate(k))
        pane.curate_actions[key] = made

    buttons = QWidget(footer)
    row = FlowLayout(buttons, spacing=4)  # wraps, so a narrow reader never forces the splitter wider
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    buttons.setSizePolicy(policy)
    for action in (pane.helpful_action, pane.not_helpful_action, pane.why_action, pane.editor_action):
        button = ActionButton(action, footer)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        row.addWidget(button)
    pane.curate_button = QToolButton(footer)
    pane.curate_button.setObjectName("curateButton")
    pane.curate_button.setText("Curate")
    pane.curate_button.setToolTip("Correct, archive or link this memory; mark a task; its supersession timeline")
    pane.curate_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    curate_menu = QMenu(pane.curate_button)
    for key, made in pane.curate_actions.items():
        if key in ("doing", "timeline"):
            curate_menu.addSeparator()
        curate_menu.addAction(made)
    pane.curate_button.setMenu(curate_menu)
    row.addWidget(pane.curate_button)
    pane.more_button = QToolButton(footer)
    pane.more_button.setText("⋯")
    pane.more_button.setToolTip("More")
    pane.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    pane.more_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
    menu = QMenu(pane.more_button)
    menu.addAction(pane.reveal_action)
    menu.addAction(pane.copy_path_action)
    pane.more_button.setMenu(menu)
    row.addWidget(pane.more_button)
    layout.addWidget(buttons)
    return footer


def fill_header(pane, detail: MemoryDetail) -> None:
    pane.title_label.setText(detail.title or detail.path)
    chips = []
    if detail.memory_type:
        chips.append((f"type:{detail.memory_type}", detail.memory_type))
    workspace = workspace_of(detail.path)
    if workspace:
        chips.append((f"workspace:{workspace}", f"workspace: {workspace}"))
    pane.kind_chips.set_chips(chips)
    pane.kind_chips.setVisible(bool(chips))
    pane.archived_badge.setVisible(detail.archived)
    pane.path_label.setText(detail.path)
    pane._header_targets = []
    parts = []
    if detail.superseded_by:
        parts.append("Superseded by " + header_anchor(pane, detail.superseded_by))
    for link in detail.backlinks:
        if relation_text(link.rel) == "supersedes" and link.path != detail.superseded_by:
            parts.append("Superseded by " + header_anchor(pane, link.path))
    older = [link.path for link in detail.links if relation_text(link.rel) == "supersedes"]
    if older:
        parts.append("Supersedes " + ", ".join(header_anchor(pane, p) for p in older))
    pane.chain_label.setText("<br>".join(parts))
    pane.chain_label.setVisible(bool(parts))


def header_anchor(pane, path: str) -> str:
    pane._header_targets.append(path)
    return f'<a href="#{len(pane._header_targets) - 1}">{html.escape(path)}</a>'


def fill_strips(pane, detail: MemoryDetail) -> None:
    if detail.violations:
        count = len(detail.violations)
        pane.violation_strip.set_lines(
            f"Invalid file: {counted(count, 'violation')}. "
            "It is not in the index, so search and recall never return it.",
            detail.violations,
        )
    elif not detail.indexed:
        pane.violation_strip.set_lines("Not in the index yet.", [])
    pane.violation_strip.setVisible(bool(detail.violations) or not detail.indexed)
    lines = list(detail.warnings)
    future = getattr(detail, "suspicious_date", None)
    if future:  # a claimed stamp after now: recency did not believe it (domain.instants.future_claim)
        lines.append(f"dated in the future ({future}): recency ranks it by its updated stamp")
    count = len(lines)
    pane.warning_strip.set_lines(counted(count, "warning"), lines)
    pane.warning_strip.setVisible(bool(lines))


def fill_facets(pane, detail: MemoryDetail) -> None:
    _clear_layout(pane.facets_grid)
    pane._facet_keys = []
    for row, (name, value, number) in enumerate(detail.facets):
        name_label = _muted(_plain_label(pane.facets_box, wrap=True))
        name_label.setText(name)
        value_label = _shrinkable(_link_label(pane.facets_box, pane._on_facet_link))
        pane._facet_keys.append(f"{name}={value}")
        value_label.setText(f'<a href="#{row}">{html.escape(value)}</a>')
        value_label.setToolTip(tooltip_text(f"Filter by {name} = {value}"))
        number_label = _muted(_plain_label(pane.facets_box))
        number_label.setText("" if number is None else f"{number:g}")
        number_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        pane.facets_grid.addWidget(name_label, row, 0, Qt.AlignmentFlag.AlignTop)
        pane.facets_grid.addWidget(value_label, row, 1, Qt.AlignmentFlag.AlignTop)
        pane.facets_grid.addWidget(number_label, row, 2, Qt.AlignmentFlag.AlignTop)
    pane.facets_grid.setColumnStretch(1, 1)
    pane.facets_title.setVisible(bool(detail.facets))
    pane.facets_box.setVisible(bool(detail.facets))


def fill_citations(pane, detail: MemoryDetail) -> None:
    pane._citation_hrefs = []
    lines = []
    for text, href in detail.citations:
        line = html.escape(text or "")
        if href:
            pane._citation_hrefs.append(href)
            line += f' — <a href="#{len(pane._citation_hrefs) - 1}">{html.escape(href)}</a>'
        lines.append(line)
    pane.citations_label.setText("<br>".join(lines))
    pane.citations_title.setVisible(bool(lines))
    pane.citations_label.setVisible(bool(lines))


def fill_metas(pane, detail: MemoryDetail) -> None:
    _clear_layout(pane.metas_grid)
    rows = [(n, v) for n, v in detail.metas if n not in _SHOWN_ELSEWHERE]
    for row, (name, value) in enumerate(rows):
        name_label = _muted(_plain_label(pane.metas_box))
        name_label.setText(name.removeprefix("memhtml-"))
        value_label = _shrinkable(_plain_label(pane.metas_box, wrap=True, selectable=True))
        value_label.setText(value)
        value_label.setToolTip(tooltip_text(value))
        pane.metas_grid.addWidget(name_label, row, 0, Qt.AlignmentFlag.AlignTop)
        pane.metas_grid.addWidget(value_label, row, 1, Qt.AlignmentFlag.AlignTop)
    pane.metas_grid.setColumnStretch(1, 1)
    pane.metas_title.setVisible(bool(rows))
    pane.metas_box.setVisible(bool(rows))
