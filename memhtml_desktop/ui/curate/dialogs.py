"""The curation dialogs: Correct, New memory, Archive, Link to, Mark task, This one is right.

Each is a `WriteDialog` (write_dialog.py): a form whose request the write core plans live, a
preview of the commit and the diffs, one confirm button. What they add is the form and the
request it makes. The file a dialog edits is pinned by its git blob id (`expected`), read when
the dialog opened, so a change on disk meanwhile is refused as stale and offered for reload.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QStringListModel, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QCompleter, QLabel, QLineEdit, QWidget

from memhtml_desktop.ops.curate import FindJob
from memhtml_desktop.ui.curate.fields import MemoryFields
from memhtml_desktop.ui.curate.graph_fields import GraphFields
from memhtml_desktop.ui.curate.write_dialog import WriteDialog
from memhtml_desktop.write.drafts import FORM_TASK_STATUSES, MEMORY_RELATIONS, TASK_RELATIONS, MemoryDraft
from memhtml_desktop.write.requests import (
    ArchiveRequest,
    CorrectRequest,
    LinkRequest,
    SupersedeRequest,
    TaskStatusRequest,
    WriteRequest,
)

FIND_DELAY_MS = 120


def _plain_label(text: str, parent: QWidget, *, muted: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setText(text)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def _describe(title: str, path: str) -> str:
    return f"{title}\n{path}" if title and title != path else path


class CorrectDialog(WriteDialog):
    """Correct…: a new version written from the fields, the old one archived, linked `supersedes`.

    memhtml's `correct` drops everything but the title and the claim; the fields here start from
    the memory as it is (a draft read from the file) and are passed explicitly.
    """

    confirm_text = "Correct"
    side_by_side = True

    def __init__(self, runner: Any, draft: MemoryDraft, parent: QWidget | None = None, **options: Any) -> None:
        super().__init__(runner, parent, title=f"Correct \u2014 {draft.title or draft.path}", **options)
        self.draft = draft
        self.expected = {draft.path: draft.expected}
        self.fields = MemoryFields(self.form, self.form_box)
        self.reason = QLineEdit(self.form_box)
        self.reason.setObjectName("reasonField")
        self.reason.setPlaceholderText("why it was wrong (kept as a commit trailer)")
        self.form.addRow("&Reason", self.reason)
        self.fields.fill(draft)
        # its place in the graph (write/graph.py): the <dfn> terms join the entities, the links and the
        # reads are ticked to follow; memhtml's own correct keeps none of it
        self.entities = tuple(draft.graph.all_entities()) if draft.graph is not None else tuple(draft.entities)
        self.fields.entities.setText(", ".join(self.entities))
        at = self.form.getWidgetPosition(self.fields.claim)[0] + 1  # under the claim: seen as it is typed
        self.graph = GraphFields(self.form, self.form_box, at=at)
        if draft.graph is not None:
            self.graph.fill(draft.graph, concepts=len(draft.graph.concepts), facets=len(draft.facets))
            self.expected.update({ref.src: ref.expected for ref in draft.graph.inbound if ref.repoint})
        self.fields.changed.connect(self.changed)
        self.graph.changed.connect(self.changed)
        self.reason.textChanged.connect(self.changed)
        self.finish_layout(
            f"Correcting {draft.path}. The new version is written from these fields; the old one moves to "
            "archive/ and the new one says it supersedes it. It keeps the memory's place: its links, entities "
            "(a <dfn> as a concept: entity) and facets, the links of the memories that point at it, and its reads, "
            "unless you untick them. Inline markup of the old article (times, code, data) becomes plain text "
            "here; the archived version keeps every byte."
        )
        self.changed()

    def with_expected(self) -> None:
        self.graph.set_expected(self.expected)

    def unchanged(self, values: dict) -> bool:
        d = self.draft
        before = (d.title, d.memory_type, d.claim, tuple(d.bodies), tuple(d.tags), self.entities,
                  tuple((n, v, x) for n, v, x in d.facets), d.workspace, d.importance, d.confidence)  # fmt: skip
        after = tuple(values[k] for k in ("title", "memory_type", "claim", "bodies", "tags", "entities", "facets",
                                         "workspace", "importance", "confidence"))  # fmt: skip
        return before == after

    def request(self) -> CorrectRequest:
        values = self.fields.values()
        if self.unchanged(values):
            raise ValueError("Change what was wrong: the correction is written from these fields, "
                             "and they still say what the memory says.")  # fmt: skip
        d = self.draft
        same_kind = values["memory_type"] == d.memory_type
        # the correction keeps the memory's place while its type and workspace stay (memhtml's
        # rule would file it by its first tag or entity: an arc under resources/, say)
        folder = d.path.rsplit("/", 1)[0] if same_kind and values["workspace"] == d.workspace else None
        return CorrectRequest(
            d.path, values["title"], claim=values["claim"], bodies=values["bodies"],
            memory_type=values["memory_type"], reason=self.reason.text().strip() or None,
            workspace=values["workspace"], tags=values["tags"], entities=values["entities"],
            importance=values["importance"], confidence=values["confidence"], facets=values["facets"],
            expected=self.expected.get(d.path), folder=folder,
            task_status=d.task_status if same_kind and d.memory_type == "task" else None,
            links=self.graph.kept_links(), repoint=self.graph.repoints(), reads_follow=self.graph.reads_follow(),
        )  # fmt: skip


class NewMemoryDialog(WriteDialog):
    """File → New memory: memhtml's `write` (or `task add` for a task) from the fields."""

    confirm_text = "Write"
    side_by_side = True

    def __init__(self, runner: Any, parent: QWidget | None = None, **options: Any) -> None:
        super().__init__(runner, parent, title="New memory", **options)
        self.fields = MemoryFields(self.form, self.form_box)
        self.fields.changed.connect(self.changed)
        self.finish_layout("A new memory file, placed where memhtml would place it, in one commit.")
        self.changed()

    def request(self) -> WriteRequest:
        values = self.fields.values()
        return WriteRequest(**values)


class ArchiveDialog(WriteDialog):
    """Archive…: `git mv` into archive/<year>/ with the archive stamps; the reason is the subject."""

    confirm_text = "Archive"

    def __init__(self, runner: Any, path: str, title: str, expected: str | None, parent: QWidget | None = None,
                 **options: Any) -> None:  # fmt: skip
        super().__init__(runner, parent, title=f"Archive \u2014 {title or path}", **options)
        self.path = path
        self.expected = {path: expected}
        self.reason = QLineEdit(self.form_box)
        self.reason.setObjectName("reasonField")
        self.reason.setPlaceholderText(
            "required: why this memory no longer holds (kept whole even where the subject cuts it)"
        )
        self.form.addRow("Memory", _plain_label(_describe(title, path), self.form_box))
        self.form.addRow("&Reason", self.reason)
        self.reason.textChanged.connect(self.changed)
        self.finish_layout()
        self.changed()

    def request(self) -> ArchiveRequest:
        reason = self.reason.text().strip()
        if not reason:
            raise ValueError("An archive needs a reason: it becomes the commit's subject.")
        return ArchiveRequest(self.path, reason, expected=self.expected.get(self.path))


class TaskStatusDialog(WriteDialog):
    """Mark task doing / done (`done` archives the task, with an optional reason)."""

    def __init__(self, runner: Any, path: str, title: str, status: str, expected: str | None,
                 parent: QWidget | None = None, **options: Any) -> None:  # fmt: skip
        super().__init__(runner, parent, title=f"Mark task {status} \u2014 {title or path}", **options)
        self.confirm_button.setText(f"Mark {status}")
        self.path = path
        self.expected = {path: expected}
        self.status = QComboBox(self.form_box)
        self.status.setObjectName("statusField")
        self.status.addItems(list(FORM_TASK_STATUSES))
        self.status.setCurrentText(status)
        self.reason = QLineEdit(self.form_box)
        self.reason.setObjectName("reasonField")
        self.reason.setPlaceholderText("optional; a done task is archived with it (default: task done)")
        self.form.addRow("Task", _plain_label(_describe(title, path), self.form_box))
        self.form.addRow("&Status", self.status)
        self.form.addRow("&Reason", self.reason)
        self.status.currentTextChanged.connect(self._status_changed)
        self.reason.textChanged.connect(self.changed)
        self.finish_layout()
        self.changed()

    def _status_changed(self, status: str) -> None:
        self.confirm_button.setText(f"Mark {status}")
        self.changed()

    def request(self) -> TaskStatusRequest:
        return TaskStatusRequest(self.path, self.status.currentText(), reason=self.reason.text().strip() or None,
                                 expected=self.expected.get(self.path))  # fmt: skip


class LinkDialog(WriteDialog):
    """Link to…: a typed link in this memory's head; the target is found by its title as you type."""

    confirm_text = "Link"

    def __init__(self, runner: Any, src: str, title: str, expected: str | None, *, is_task: bool = False,
                 target: str = "", rel: str | None = None, parent: QWidget | None = None,
                 **options: Any) -> None:  # fmt: skip
        super().__init__(runner, parent, title=f"Link \u2014 {title or src}", **options)
        self.src = src
        self.expected = {src: expected}
        self._find_kind = f"find-{self._plan_kind}"
        self._paths: dict[str, str] = {}  # completion text -> path
        self.rel = QComboBox(self.form_box)
        self.rel.setObjectName("relField")
        rels = TASK_RELATIONS if is_task else MEMORY_RELATIONS
        self.rel.addItems(list(rels))
        self.rel.setCurrentText(rel or (rels[0] if is_task else "relates_to"))
        self.target = QLineEdit(self.form_box)
        self.target.setObjectName("targetField")
        self.target.setPlaceholderText("type a few words of its title, or its path")
        self.completions = QStringListModel(self)
        self.completer = QCompleter(self.completions, self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated[str].connect(self.choose)
        self.target.setCompleter(self.completer)
        self.target_title = _plain_label("", self.form_box, muted=True)
        self.form.addRow("From", _plain_label(_describe(title, src), self.form_box))
        self.form.addRow("&Relation", self.rel)
        self.form.addRow("&To", self.target)
        self.form.addRow("", self.target_title)
        self.find_timer = QTimer(self)
        self.find_timer.setSingleShot(True)
        self.find_timer.setInterval(FIND_DELAY_MS)
        self.find_timer.timeout.connect(self.find)
        self.target.textEdited.connect(lambda _: self.find_timer.start())
        self.target.textChanged.connect(self.changed)
        self.rel.currentTextChanged.connect(self.changed)
        self.finish_layout()
        if target:
            self.target.setText(target)
        self.changed()

    def extra_kinds(self) -> tuple[str, ...]:
        return (self._find_kind,)

    def find(self) -> None:
        text = self.target.text().strip()
        if len(text) < 2:
            return
        job = FindJob(kind=self._find_kind, text=text, limit=12).success(self._found)
        self.runner.run(job.failure(lambda msg: None))

    def _found(self, refs: list) -> None:
        self._paths = {}
        for ref in refs:
            if ref.archived or ref.path == self.src:
                continue  # an archived target is refused; a self-link too
            self._paths[f"{ref.title} \u2014 {ref.path}" if ref.title else ref.path] = ref.path
        self.completions.setStringList(list(self._paths))
        if self._paths and self.target.hasFocus():
            self.completer.setCompletionPrefix(self.target.text())
            self.completer.complete()

    def choose(self, text: str) -> None:
        """A completion was picked: the field holds its path, the title shows below."""
        path = self._paths.get(text)
        if path is None:
            return
        QTimer.singleShot(0, lambda: self.target.setText(path))  # after QCompleter writes its own text
        self.target_title.setText(text.rsplit(" \u2014 ", 1)[0])

    def target_path(self) -> str:
        text = self.target.text().strip()
        return self._paths.get(text, text).lstrip("/")

    def request(self) -> LinkRequest:
        target = self.target_path()
        if not target:
            raise ValueError("Choose the memory to link to: type a few words of its title.")
        return LinkRequest(self.src, self.rel.currentText(), target, expected=self.expected.get(self.src))


class SupersedeDialog(WriteDialog):
    """The conflicts view's "this one is right": the winner supersedes the loser, which is archived,
    and the loser's place in the graph (links, entities, facets, the links to it) follows the winner."""

    confirm_text = "Supersede"
    side_by_side = True

    def __init__(self, runner: Any, winner: tuple[str, str], loser: tuple[str, str], keep: tuple,
                 parent: QWidget | None = None, **options: Any) -> None:  # fmt: skip
        super().__init__(runner, parent, title="This one is right", **options)
        (self.winner, winner_title), (self.loser, loser_title) = winner, loser
        kept, graph = keep  # the keeping SupersedeRequest and the loser's graph (SupersedeDraftJob)
        self.expected = {self.winner: kept.expected_winner, self.loser: kept.expected_loser}
        self.expected.update({ref.src: ref.expected for ref in graph.inbound if ref.repoint})
        self.reason = QLineEdit(self.form_box)
        self.reason.setObjectName("reasonField")
        self.reason.setPlaceholderText("optional: why (kept as a commit trailer)")
        self.form.addRow("Right", _plain_label(_describe(winner_title, self.winner), self.form_box))
        self.form.addRow("Superseded", _plain_label(_describe(loser_title, self.loser), self.form_box))
        self.form.addRow("&Reason", self.reason)
        self.graph = GraphFields(self.form, self.form_box, verb="the memory that is right")
        winner_path = self.winner
        shown = replace(graph, links=tuple(link for link in graph.links if link.path != winner_path),
                        inbound=tuple(ref for ref in graph.inbound if ref.src != winner_path))  # fmt: skip
        self.graph.fill(shown, facets=len(kept.facets), reads="stay")
        self.graph.fill_added(kept.entities, kept.facets)
        self.graph.changed.connect(self.changed)
        self.reason.textChanged.connect(self.changed)
        self.finish_layout("The superseded memory moves to archive/ with superseded-by and valid-until; the "
                           "right one links supersedes to it, and takes over its place: its links, the entities and "
                           "facets it lacks, the links of the memories that point at it (untick what should not "
                           "follow). One commit.")  # fmt: skip
        self.changed()

    def with_expected(self) -> None:
        self.graph.set_expected(self.expected)

    def request(self) -> SupersedeRequest:
        return SupersedeRequest(self.winner, self.loser, reason=self.reason.text().strip() or None,
                                expected_winner=self.expected.get(self.winner),
                                expected_loser=self.expected.get(self.loser),
                                links=self.graph.kept_links(), entities=self.graph.added_entities(),
                                facets=self.graph.added_facets(), repoint=self.graph.repoints(),
                                keep_graph=True)  # fmt: skip
