"""The reader's contradiction strip: the memories of the list this one contradicts, each a link.

Search marks every hit that contradicts another memory of its pool (`Hit.contradictions`,
domain/newer_first.py); the list shows a badge, and the reader, opened on such a hit, says the same
at the top of the memory: which memory says otherwise, what each says, which is newer, and a link
that opens the other. Nothing here reads the store: the marks come with the list's `Answer`.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from memhtml_desktop.domain.contradiction import kind_words
from memhtml_desktop.domain.signals import NEWER, OLDER, Disagreement
from memhtml_desktop.ui.reader.reader_parts import _plain_label, _shrinkable, _Strip

HEADINGS = {  # _Strip.set_lines puts "⚠ " before a heading; these are set whole
    OLDER: "\u26a0 Contradicted by a newer memory",
    NEWER: "\u26a0 Contradicts an older memory: this one is newer",
}
SAME = "\u26a0 Contradicts a memory of the same date"
FOOT = (
    "Both were among this search's hits; neither was changed. Reconcile them in View \u2192 Conflicts (Ctrl+Shift+C)."
)


def marks_for(answer: Any, path: str) -> tuple[Disagreement, ...]:
    """The marks the list's answer gave `path` (a hit on the page or an entry of its pool), or ()."""
    if answer is None:
        return ()
    pool = getattr(answer, "pool", None)
    for hit in (*answer.hits, *(pool.entries if pool is not None else ())):
        if hit.path == path:
            return tuple(getattr(hit, "contradictions", ()))
    return ()


def heading(marks: Sequence[Disagreement]) -> str:
    sides = {m.side for m in marks}
    return HEADINGS[OLDER] if OLDER in sides else HEADINGS[NEWER] if NEWER in sides else SAME


def _day(when: str) -> str:
    return when[:10] if when else "undated"


def _value(value: str) -> str:
    return "nothing there" if value in ("", "\u2014") else f"\u201c{html.escape(value)}\u201d"


def line(index: int, mark: Disagreement) -> str:
    """One mark as rich text WE write: every word from the store escaped, one anchor `#index`."""
    who = html.escape(mark.other_title or mark.other)
    side = {OLDER: "newer", NEWER: "older"}.get(mark.side, "same date")
    return (
        f'\u2022 <a href="#{index}">{who}</a> ({side}, {_day(mark.other_when)}; '
        f"<span>{html.escape(mark.other)}</span>) says {_value(mark.other_value)} where this one says "
        f"{_value(mark.value)}: {html.escape(kind_words(mark.kind))}, this one {_day(mark.when)}."
    )


class ContradictionStrip(_Strip):
    """A warning strip over the memory: a heading, one linked line per memory it contradicts."""

    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, on_link=self._on_link)
        self.setAccessibleName("Contradictions")
        self.foot = _shrinkable(_plain_label(self, wrap=True))  # the strip's text colour: muted grey did not read on it
        self.foot.setText(FOOT)
        self.layout().addWidget(self.foot)
        self._others: list[str] = []
        self.marks: tuple[Disagreement, ...] = ()
        self.hide()

    def show_marks(self, marks: Sequence[Disagreement]) -> None:
        """The marks of the memory on show (none: the strip hides)."""
        self.marks = tuple(marks)
        self._others = [m.other for m in self.marks]
        if not self.marks:
            self.hide()
            return
        self.heading.setText(heading(self.marks))
        self.body.setText("<br>".join(line(i, m) for i, m in enumerate(self.marks)))
        self.body.show()
        self.setAccessibleDescription(" ".join(m.describe() for m in self.marks))
        self.show()

    def _on_link(self, href: str) -> None:
        try:
            index = int(href.lstrip("#"))
        except ValueError:
            return
        if 0 <= index < len(self._others):
            self.open_requested.emit(self._others[index])
