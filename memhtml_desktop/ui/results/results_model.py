"""The ranked hits as a table: one row per hit, one column per arm, and the breakdown as roles.

The model holds the `Answer` it was given (the agent's page, the `FusedPool` behind it and the
query's words to highlight, all of one search) and translates it; it never ranks, queries or
parses. One answer is one reset of the model; a deeper pool of the same answer (show more) relists. Rows come in two orders:

- the agent's order: the page as the agent receives it (after polarity and MMR), then, when the
  person asked to see more, the rest of the fused list below the page, in fused order;
- the fused order: the fused list itself, deep enough to hold every page row, so the rows the
  agent does NOT get (MMR passed them over) show where they stood, muted.

Any other column sorts the rows listed (score, date, type, path, title, an arm's rank). Delegates
read the custom roles (the hit, whether it is on the page, its per-arm scores, the words to
highlight, the scale of the bar) and paint from them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush

from memhtml_desktop.domain.ranking import DEFAULT, RankingProfile
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.domain.types import Hit, SearchResult
from memhtml_desktop.ui.kit import palette
from memhtml_desktop.ui.kit.chips import tooltip_text
from memhtml_desktop.ui.results.columns import (  # the roles as plain ints: data() runs hundreds of times a paint  # noqa: F401 - the columns and roles are part of this module's API
    ACCESSIBLE_ROLE,
    ALIGN_ROLE,
    ANSWERED_ROLES,
    ARM_SCORES_ROLE,
    BADGES_ROLE,
    BAR_COLUMN,
    COLUMN_COUNT,
    COLUMN_HELP,
    COLUMN_TITLES,
    CONTRIBUTION_ROLE,
    DESCENDING_FIRST,
    DESCRIPTION_ROLE,
    DISPLAY_ROLE,
    FIRST_ARM_COLUMN,
    FOREGROUND_ROLE,
    HIT_ROLE,
    LEFT_ALIGNED,
    LEFT_COLUMNS,
    MAX_SCORE_ROLE,
    MUTED_COLUMNS,
    NO_FLAGS,
    PAGE_ROLE,
    PATH_ROLE,
    RIGHT_ALIGNED,
    ROW_FLAGS,
    TERMS_ROLE,
    TOOLTIP_ROLE,
    USER_ROLE,
    Column,
    Role,
    arm_for_column,
)
from memhtml_desktop.ui.results.results_text import (  # noqa: F401 - moved_text is part of this module's API
    ARM_NAMES,
    accessible_arm,
    accessible_bar,
    accessible_title,
    arm_header_tooltip,
    arm_tooltip,
    badges,
    breakdown_tooltip,
    moved_text,
    title_tooltip,
)
from memhtml_desktop.ui.results.row_order import AGENT, FUSED, below_available, list_rows

# The bar's full length is the active profile's `max_score` (every arm ranks the hit first): a
# scale fixed per profile, not "the best hit of this query", so bars compare across queries and a
# short bar means weak agreement between arms. Weights and k come from the same profile.
DASH = "\u2014"
_ROOT = QModelIndex()


class ResultsModel(QAbstractTableModel):
    """A read-only table over one search's `Answer`: its page and the fused pool behind it."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._answer: Answer | None = None
        self._result: SearchResult | None = None
        self._pool: Any = None
        self._rows: list[tuple[Hit, int | None]] = []  # (hit, position on the agent's page or None)
        self._terms: tuple[str, ...] = ()
        self._active: frozenset[str] = frozenset(ARM_NAMES)
        self._degraded: dict[str, str] = {}
        self._order = AGENT
        self._extra = 0
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._no_word = False
        self._badges: dict[int, list[str]] = {}  # per row, for the painter (cleared with the rows)
        self._brush: tuple[int, QBrush] | None = None
        self._profile: RankingProfile = DEFAULT
        self.stamp = 0
        """Moves whenever what any cell shows may have changed (delegates key their caches on it)."""

    def set_profile(self, profile: RankingProfile | None) -> None:
        """The active ranking profile: its weights, k and scale are what the cells explain."""
        profile = profile or DEFAULT
        if profile == self._profile:
            return
        self._profile = profile
        self.stamp += 1
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, COLUMN_COUNT - 1))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, COLUMN_COUNT - 1)

    def profile(self) -> RankingProfile:
        return self._profile

    # -- content -------------------------------------------------------------------------------

    def set_answer(self, answer: Answer | None) -> None:
        """A search's answer: its page and the pool behind it, in the order chosen (one reset).
        A re-run of the same ask (the store changed) keeps the rows the person asked to see."""
        header = (self._active, self._degraded)
        self.beginResetModel()
        if answer is None or not answer.same_ask(self._answer):
            self._extra = 0
        self._answer = answer
        self._result, self._pool = (answer.result, answer.pool) if answer else (None, None)
        self._no_word = bool(self._pool is not None and self._pool.no_word_matched)
        self._terms = answer.highlight_words if answer else ()
        result = self._result
        self._active = frozenset(result.arms) if result else frozenset(ARM_NAMES)
        self._degraded = {}
        if result:
            for reason in result.degraded_reasons:
                arm, _, why = reason.partition(":")
                self._degraded[arm.strip()] = why.strip() or reason
        self._rebuild()
        self.endResetModel()
        if (self._active, self._degraded) != header:  # the header's marks: its repaint measures every section
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, COLUMN_COUNT - 1)

    def set_deeper(self, answer: Answer) -> None:
        """The answer listed, its pool deeper (show more; the driver sends only the listed one's)."""
        self._answer, self._pool = answer, answer.pool
        self._relist()

    def set_order(self, order: str) -> None:
        """AGENT (the page, then the pool below it) or FUSED (the fused list); clears a column sort."""
        if order not in (AGENT, FUSED):
            raise ValueError(f"unknown order {order!r}")
        self._order, self._sort = order, None
        self._relist()

    def set_extra(self, count: int) -> None:
        """How many rows of the fused list to show below the agent's page."""
        self._extra = max(0, int(count))
        self._relist()

    def _relist(self) -> None:
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        paths = [self._rows[i.row()][0].path if 0 <= i.row() < len(self._rows) else None for i in before]
        self._rebuild()
        rows = {hit.path: r for r, (hit, _) in enumerate(self._rows)}
        after = [self.index(rows[p], i.column()) if p in rows else QModelIndex() for p, i in zip(paths, before)]
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _could_match(self) -> bool:
        """Whether words or meaning could have placed a hit (with no words only recency and salience rank)."""
        result = self._result
        return result is not None and (result.fts_form is not None or "vector" in result.arms)

    def _muted_brush(self) -> QBrush:
        color = palette.muted_color()
        if self._brush is None or self._brush[0] != color.rgba():
            self._brush = (color.rgba(), QBrush(color))
        return self._brush[1]

    def _rebuild(self) -> None:
        self._badges = {}
        self.stamp += 1
        self._rows = list_rows(self._result, self._pool, order=self._order, extra=self._extra, sort=self._sort)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Header clicks: # is the agent's order, Fused the fused order, any other column sorts the rows."""
        if column == Column.Position and order == Qt.SortOrder.AscendingOrder:
            self.set_order(AGENT)
        elif column == Column.Fused and order == Qt.SortOrder.AscendingOrder:
            self.set_order(FUSED)
        elif 0 <= column < COLUMN_COUNT:
            self._sort = (column, order)
            self._relist()

    # -- questions -----------------------------------------------------------------------------

    def answer(self) -> Answer | None:
        return self._answer

    def result(self) -> SearchResult | None:
        return self._result

    def pool(self) -> Any:
        return self._pool

    def order(self) -> str:
        return self._order

    def sorted_by(self) -> tuple[int, Qt.SortOrder] | None:
        return self._sort

    def extra(self) -> int:
        return self._extra

    def hit(self, row: int) -> Hit | None:
        return self._rows[row][0] if 0 <= row < len(self._rows) else None

    def page_position(self, row: int) -> int | None:
        return self._rows[row][1] if 0 <= row < len(self._rows) else None

    def row_of(self, path: str) -> int:
        for row, (hit, _) in enumerate(self._rows):
            if hit.path == path:
                return row
        return -1

    def paths(self) -> list[str]:
        return [hit.path for hit, _ in self._rows]

    def below_available(self) -> int:
        """Rows of the fused list (already fetched) that are not listed yet."""
        return below_available(self._result, self._pool, set(self.paths()))

    def no_word_matched(self) -> bool:
        return self._no_word

    def terms(self) -> tuple[str, ...]:
        return self._terms

    def arm_active(self, arm: str) -> bool:
        return arm in self._active

    # -- Qt model API ----------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else COLUMN_COUNT

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return ROW_FLAGS if index.isValid() else NO_FLAGS

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY_ROLE) -> Any:
        role = int(role)
        if role < USER_ROLE and role not in ANSWERED_ROLES:
            return None
        row = index.row()
        if not index.isValid() or not (0 <= row < len(self._rows)):
            return None
        hit, page = self._rows[row]
        column = index.column()
        arm = arm_for_column(column)
        if role == DISPLAY_ROLE:
            return self._display(hit, page, column, arm)
        if role == TOOLTIP_ROLE:
            tip = self._tooltip(hit, page, column, arm)
            return tooltip_text(tip) if tip else None
        if role == ALIGN_ROLE:
            return LEFT_ALIGNED if column in LEFT_COLUMNS else RIGHT_ALIGNED
        if role == FOREGROUND_ROLE:
            if (
                page is None
                or getattr(hit, "low_relevance", False)
                or (arm is not None and hit.arm(arm) is None)
                or column in MUTED_COLUMNS
            ):
                return self._muted_brush()
            return None
        if role == ACCESSIBLE_ROLE:
            return self._accessible(hit, page, column, arm)
        if role == DESCRIPTION_ROLE and column == Column.Title:
            return hit.path
        if role == HIT_ROLE:
            return hit
        if role == PATH_ROLE:
            return hit.path
        if role == PAGE_ROLE:
            return page
        if role == BADGES_ROLE:
            if row not in self._badges:
                self._badges[row] = badges(
                    hit, page=page, no_word_matched=self._no_word, could_match=self._could_match()
                )
            return self._badges[row]
        if role == ARM_SCORES_ROLE:
            return tuple(s for name in ARM_NAMES if (s := hit.arm(name)) is not None)
        if role == CONTRIBUTION_ROLE:
            score = hit.arm(arm) if arm else None
            return score.contribution if score else None
        if role == TERMS_ROLE:
            return self._terms
        if role == MAX_SCORE_ROLE:
            return self._profile.max_score
        return None

    def _display(self, hit: Hit, page: int | None, column: int, arm: str | None) -> str | None:
        if column == Column.Position:
            return str(page) if page is not None else ""
        if column == Column.Fused:
            return str(hit.fused_position)
        if column == Column.Title:
            return hit.title or hit.path
        if column == Column.Type:
            return hit.memory_type
        if column == Column.Path:
            return hit.path
        if column == Column.Date:
            return (hit.updated_at or "")[:10]
        if column == Column.Score:
            return f"{hit.score:.4f}"
        if arm is not None:
            score = hit.arm(arm)
            if score is None:
                return DASH
            return str(score.rank) if score.counted else f"({score.rank})"  # (rank): ranked, not counted
        if column == BAR_COLUMN:
            return ""
        return None

    def _tooltip(self, hit: Hit, page: int | None, column: int, arm: str | None) -> str | None:
        if arm is not None:
            return arm_tooltip(arm, hit.arm(arm), self._profile.rrf_k)
        if column in (BAR_COLUMN, Column.Score):
            return breakdown_tooltip(hit, self._profile.rrf_k)
        if column in (Column.Title, Column.Path):
            return title_tooltip(hit, page=page, no_word_matched=self._no_word, could_match=self._could_match())
        if column in (Column.Position, Column.Fused):
            moved = moved_text(hit) if page is not None else None
            where = f"position {page} on the agent's page" if page is not None else "not on the agent's page"
            return f"{where}; fused position {hit.fused_position}" + (f" ({moved})" if moved else "")
        if column == Column.Date:
            return f"updated {hit.updated_at}" if hit.updated_at else None
        return None

    def _accessible(self, hit: Hit, page: int | None, column: int, arm: str | None) -> str | None:
        if column == Column.Title:
            return accessible_title(hit, page=page, no_word_matched=self._no_word, could_match=self._could_match())
        if arm is not None:
            return accessible_arm(arm, hit.arm(arm))
        if column in (BAR_COLUMN, Column.Score):
            return accessible_bar(hit)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < COLUMN_COUNT):
            return None
        arm = arm_for_column(section)
        if role == Qt.ItemDataRole.DisplayRole:
            if arm is not None:
                label = palette.ARM_LABELS.get(arm, arm)
                # a failure is flagged; an arm that simply had nothing to do (no words) is only muted
                return f"{label}\u26a0" if arm in self._degraded else label
            return COLUMN_TITLES.get(section, "")
        if role == Qt.ItemDataRole.ForegroundRole and arm is not None:
            return QBrush(palette.arm_text_color(arm) if self.arm_active(arm) else palette.muted_color())
        if role == Qt.ItemDataRole.ToolTipRole:
            if arm is not None:
                title, help_text = palette.ARM_TITLES.get(arm, arm), palette.ARM_HELP.get(arm, "")
                return tooltip_text(
                    arm_header_tooltip(
                        arm, title, help_text, self._profile, self._degraded.get(arm), active=self.arm_active(arm)
                    )
                )
            return COLUMN_HELP.get(section)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return palette.ARM_TITLES.get(arm, arm) if arm is not None else COLUMN_TITLES.get(section, "")
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if section in (Column.Title, Column.Type, Column.Path, BAR_COLUMN):
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.InitialSortOrderRole:  # a first click: best and newest first
            return Qt.SortOrder.DescendingOrder if section in DESCENDING_FIRST else Qt.SortOrder.AscendingOrder
        return None
