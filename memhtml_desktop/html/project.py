"""Bytes in, index rows out: the projection memhtml's TypeScript indexer writes, byte for byte.

`project()` is the one entry point the index layer calls per file. It decodes the bytes the way a
rebuild does, parses with a WHATWG tree builder, validates (`constraints.py`), and, only for a
valid file, builds every row of `files`, `file_tags`, `file_entities`, `file_facets`,
`file_citations`, `chunks` and `edges` in insert order (`index/src/project.ts`).

It never raises. A file that cannot be read becomes a Projection with an "unreadable: ..."
violation, so one broken file never stops an index run; memhtml likewise skips invalid files and
writes nothing for them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memhtml_desktop.domain.paths import normalize_path, origin_path_of, para_of, workspace_of
from memhtml_desktop.html.canonical import body_and_hash
from memhtml_desktop.html.chunking import chunk_text
from memhtml_desktop.html.constraints import Head, check, read_head
from memhtml_desktop.html.extract import ArticleFacts, read_article, read_meta_columns, title_of
from memhtml_desktop.html.frame import frame_key_of
from memhtml_desktop.html.jsnum import js_trim
from memhtml_desktop.html.rows import (
    KEY_SEP,
    authored_edges,
    dedupe,
    dedupe_by,
    disclosure_text,
    entity_rows,
    word_count,
)
from memhtml_desktop.html.tree import DocumentTooComplex, Tree, parse_html
from memhtml_desktop.html.vocabulary import REL_CLASS

TABLES = ("files", "file_tags", "file_entities", "file_facets", "file_citations", "chunks", "edges")


@dataclass
class Projection:
    """The outcome for one file. `tables` is filled only when `ok`; rows are in insert order."""

    path: str
    ok: bool
    violations: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    meta_content_hash: str | None = None
    blob_sha: str = ""
    tables: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        """memhtml's `InvalidMemory.reason`: the violations joined with "; "."""
        return "; ".join(self.violations)


def decode(data: bytes) -> str:
    """UTF-8 with one leading BOM stripped and invalid bytes as U+FFFD, like `TextDecoder`."""
    return data.decode("utf-8-sig", errors="replace")


def blob_sha_of(data: bytes) -> str:
    """git's blob id: sha1 over `blob <len>\\0` + the bytes."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def project(path: str, data: bytes, indexed_at: str, *, blob_sha: str | None = None) -> Projection:
    """Validate one memory file and, when valid, build its rows. Never raises.

    `blob_sha`: the bytes' git blob id when the caller has it already (the indexer hashes first, to
    skip unchanged bytes), so a changed file is hashed once, not twice.
    """
    try:
        blob_sha = blob_sha if blob_sha is not None else blob_sha_of(bytes(data))
    except Exception as exc:  # noqa: BLE001 - not bytes at all; still a per-file failure
        return Projection(path=path, ok=False, violations=[_unreadable(exc)])
    try:
        return _project(path, data, indexed_at, blob_sha)
    except DocumentTooComplex as exc:
        return Projection(path, False, [f"unreadable: {exc}"], blob_sha=blob_sha)
    except RecursionError:
        return Projection(path, False, ["unreadable: the document nests too deeply"], blob_sha=blob_sha)
    except MemoryError:
        return Projection(path, False, ["unreadable: the document is too large"], blob_sha=blob_sha)
    except Exception as exc:  # noqa: BLE001 - one broken file must never stop an index run
        return Projection(path, False, [_unreadable(exc)], blob_sha=blob_sha)


def gate_hash(data: bytes) -> str | None:
    """The content hash of a valid memory file, None when `project` would refuse it: its checks and
    its hash without building the rows (a write's draft is checked and hashed, rendered again with
    the hash, and only that final text is projected). Never raises; `project` says why."""
    try:
        tree = parse_html(decode(data))
        head = read_head(tree)
        article, violations, _ = check(tree, head)
        if violations or article is None:
            return None
        return body_and_hash(tree, article)[1]
    except Exception:  # noqa: BLE001 - the caller asks `project` for the words
        return None


def _unreadable(exc: BaseException) -> str:
    detail = str(exc).strip() or "no detail"
    return f"unreadable: {type(exc).__name__}: {detail[:200]}"


def _project(path: str, data: bytes, indexed_at: str, blob_sha: str) -> Projection:
    tree = parse_html(decode(data))
    head = read_head(tree)
    article, violations, warnings = check(tree, head)
    result = Projection(
        path=path,
        ok=not violations and article is not None,
        violations=violations,
        warnings=warnings,
        aliases=head.repeated("memhtml-alias"),
        meta_content_hash=head.single("memhtml-content-hash"),
        blob_sha=blob_sha,
    )
    if result.ok and article is not None:
        body_text, digest = body_and_hash(tree, article)
        facts = read_article(tree, article, body_text)
        result.tables = build_rows(normalize_path(path), tree, head, facts, digest, blob_sha, indexed_at)
    elif not violations:  # cannot happen with the checks above; kept so ok=False always explains itself
        result.violations = ["head metadata is incomplete"]
    return result


def build_rows(
    path: str,
    tree: Tree,
    head: Head,
    facts: ArticleFacts,
    digest: str,
    blob_sha: str,
    indexed_at: str,
) -> dict[str, list[dict]]:
    """Every row a valid file contributes, keyed by table, columns in memhtml's bind order."""
    metas = read_meta_columns(head)
    title = title_of(tree)
    para = para_of(path)
    archived = para == "archive"
    body = facts.body_text
    files_row = {
        "path": path,
        "blob_sha": blob_sha,
        "content_hash": digest,
        "memory_type": metas.memory_type,
        "title": title,
        "body_text": body,
        "gist": facts.gist,
        "fts_text": "\n".join(part for part in (title, facts.gist, body) if part != ""),
        "disclosure_text": disclosure_text(facts),
        "para": para,
        "workspace": workspace_of(path),
        "confidence": metas.confidence,
        "importance": metas.importance,
        "archived": 1 if archived else 0,
        "origin_path": origin_path_of(path) if archived else None,
        "word_count": word_count(body),
        "created_at": metas.created_at,
        "updated_at": metas.updated_at,
        "event_at": facts.event_at,
        "archived_at": metas.archived_at,
        "valid_from": metas.valid_from,
        "valid_until": metas.valid_until,
        "reprieves": metas.reprieves,
        "needs_revision": metas.needs_revision,
        "author": metas.author,
        "session_id": metas.session_id,
        "prompt_id": metas.prompt_id,
        "turn_uuid": metas.turn_uuid,
        "indexed_at": indexed_at,
        "task_status": metas.task_status,
        "due_at": metas.due_at,
        "frame_key": frame_key_of(facts.gist),
    }
    tags = dedupe(t for t in (js_trim(tag) for tag in head.repeated("memhtml-tag")) if t != "")
    return {
        "files": [files_row],
        "file_tags": [{"path": path, "tag": tag} for tag in tags],
        "file_entities": [
            {"path": path, "entity_type": kind, "entity_name": name}
            for kind, name in entity_rows(head.repeated("memhtml-entity"), facts)
        ],
        "file_facets": [
            {"path": path, "name": name, "value": value, "numeric_value": number}
            for name, value, number in dedupe_by(facts.facets, lambda f: f[0] + KEY_SEP + f[1])
        ],
        "file_citations": [
            {"path": path, "text": text, "href": href} for text, href in dedupe_by(facts.citations, lambda c: c[0])
        ],
        "chunks": [
            {
                "chunk_id": chunk.chunk_id,
                "path": path,
                "content_hash": digest,
                "ordinal": chunk.ordinal,
                "text": chunk.text,
                "char_count": chunk.char_count,
            }
            for chunk in chunk_text(body, digest)
        ],  # fmt: skip
        "edges": [
            {
                "src_path": path,
                "rel": rel,
                "dst_path": dst,
                "edge_class": REL_CLASS[rel],
                "derived": 0,
                "strength": 1.0,
                "provenance": "authored",
                "src_hash": digest,
                "created_at": indexed_at,
            }
            for rel, dst in authored_edges(head, path)
        ],  # fmt: skip
    }
