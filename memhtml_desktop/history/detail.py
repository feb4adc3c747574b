"""The diff that matters for one change: the claim before and after, the fields that changed.

Not raw HTML: both versions are read with the reader's own parser (`html/detail.py`), and what a
curator judges is compared field by field — the title, the claim (`<mark>`), the type and status,
tags, entities, facets, typed links, the other `memhtml-` metas — and whether the rest of the
article changed. A version git cannot give (a shallow clone, a file over the cap) is said to be
unavailable, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memhtml_desktop.history.events import Change
from memhtml_desktop.history.gitlog import read_blobs
from memhtml_desktop.write.git import Git

#: Metas shown by their own line (or that change with every edit): not listed as "fields".
_OWN = {"memhtml-type", "memhtml-status", "memhtml-tag", "memhtml-entity", "memhtml-updated", "memhtml-content-hash"}


@dataclass(frozen=True)
class FieldChange:
    name: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class ChangeDetail:
    change: Change
    title_before: str | None
    title_after: str | None
    claim_before: str | None
    claim_after: str | None
    fields: tuple[FieldChange, ...] = ()
    links_added: tuple[str, ...] = ()
    links_removed: tuple[str, ...] = ()
    article_changed: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {
            "change": self.change.to_json(), "title_before": self.title_before, "title_after": self.title_after,
            "claim_before": self.claim_before, "claim_after": self.claim_after,
            "fields": [vars(f) for f in self.fields], "links_added": list(self.links_added),
            "links_removed": list(self.links_removed), "article_changed": self.article_changed,
            "notes": list(self.notes),
        }  # fmt: skip


def _doc(path: str, data: bytes | None):
    from memhtml_desktop.html.detail import read_document

    return read_document(path, data) if data is not None else None


def _listed(values) -> str | None:
    items = [v for v in values if v]
    return ", ".join(items) if items else None


def _fields(before, after) -> list[FieldChange]:
    out: list[FieldChange] = []

    def metas(doc) -> dict[str, str]:
        found: dict[str, list[str]] = {}
        for name, value in doc.metas if doc is not None else []:
            found.setdefault(name, []).append(value)
        return {k: ", ".join(v) for k, v in found.items()}

    m0, m1 = metas(before), metas(after)
    for name in ("memhtml-type", "memhtml-status"):
        if m0.get(name) != m1.get(name):
            out.append(FieldChange(name.removeprefix("memhtml-"), m0.get(name), m1.get(name)))
    for label, get in (("tags", lambda d: d.tags), ("entities", lambda d: [f"{t}:{n}" for t, n in d.entities]),
                       ("facets", lambda d: [f"{n} = {v}" for n, v, _ in d.facets])):  # fmt: skip
        a = _listed(get(before)) if before is not None else None
        b = _listed(get(after)) if after is not None else None
        if a != b:
            out.append(FieldChange(label, a, b))
    for name in sorted(set(m0) | set(m1)):
        if name in _OWN or m0.get(name) == m1.get(name):
            continue
        out.append(FieldChange(name.removeprefix("memhtml-"), m0.get(name), m1.get(name)))
    return out


def _links(doc) -> set[str]:
    return {f"{link['rel']} \u2192 {link['href']}" for link in doc.links} if doc is not None else set()


def change_detail(git: Git, change: Change) -> ChangeDetail:
    """Both versions of the changed memory, compared (see the module docstring)."""
    blobs = read_blobs(git, [b for b in (change.old_blob, change.new_blob) if b])
    notes = []
    old_data = blobs.get(change.old_blob) if change.old_blob else None
    new_data = blobs.get(change.new_blob) if change.new_blob else None
    if change.old_blob and old_data is None:
        notes.append("the version before is not in this repository (a shallow clone?) or too large to read")
    if change.new_blob and new_data is None:
        notes.append("the version after is not in this repository or too large to read")
    before = _doc(change.old_path_blob_path or change.old_path or change.path, old_data)
    after = _doc(change.path, new_data)
    l0, l1 = _links(before), _links(after)
    article_changed = (before is not None and after is not None
                       and before.article_text != after.article_text)  # fmt: skip
    return ChangeDetail(
        change=change,
        title_before=before.title if before is not None else None,
        title_after=after.title if after is not None else None,
        claim_before=(before.gist or None) if before is not None else None,
        claim_after=(after.gist or None) if after is not None else None,
        fields=tuple(_fields(before, after)),
        links_added=tuple(sorted(l1 - l0)),
        links_removed=tuple(sorted(l0 - l1)),
        article_changed=article_changed,
        notes=tuple(notes),
    )
