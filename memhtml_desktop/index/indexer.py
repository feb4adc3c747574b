"""Keeping the index in step with the store on disk.

A full `scan` compares the tree with what the index last saw (`sources`: size, mtime, blob sha)
and touches only what moved: a file is re-read only when its size or mtime changed and re-parsed
only when its bytes did. `update_paths` does the same for the handful of paths a watcher reports.
Both end in `_apply`, which is where moves are recognised: a file that vanished and a file that
appeared with the same article (content hash) are one memory moved, so the row, its chunks and
its vectors follow the path and nothing is re-embedded. Writes commit in batches, so a run that
is killed leaves the index consistent as of its last batch; chunks still lacking a vector are
picked up by the next run.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw
import numpy as np

from memhtml_desktop.domain.embedder import Embedder, space_of
from memhtml_desktop.index import changes, kept_walk, writer
from memhtml_desktop.index.db import iso_z, utc_now, writing
from memhtml_desktop.index.scanner import DiskFile, Skipped, read_bytes, stat_one, stat_walk
from memhtml_desktop.index.vectors import encode_vec

if TYPE_CHECKING:
    from memhtml_desktop.html.project import Projection
    from memhtml_desktop.index.parse_pool import _Parsed

log = logging.getLogger(__name__)

# The parser (html/) and the parse pool (multiprocessing) are imported when a file is to be read:
# a pass with nothing to do, `memhtml-desktop index` on an unchanged store, needs neither (about
# 30 ms of the command's start). Their names stay importable from here, as they always were.
_FROM_PARSE_POOL = frozenset(
    {"PARSE_AHEAD", "POOL_THRESHOLD", "_Parsed", "_shared_pool", "parse_file", "parse_pool", "shutdown_pool"}
)


def __getattr__(name: str):
    if name in _FROM_PARSE_POOL:
        from memhtml_desktop.index import parse_pool as module

        return getattr(module, name)
    if name == "blob_sha":
        from memhtml_desktop.html.project import blob_sha_of

        return blob_sha_of
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


BATCH_FILES = 500
BATCH_EMBED = 256

Progress = Callable[[str, int, int], None]  # (phase, done, total)
Cancelled = Callable[[], bool]


@dataclass
class IndexReport:
    seen: int = 0
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    failed: int = 0
    embedded: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    embed_error: str | None = None
    failures: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    moves: list[tuple[str, str]] = field(default_factory=list)

    @property
    def indexed(self) -> int:
        return self.added + self.changed + self.moved

    @property
    def touched(self) -> bool:
        return bool(self.added or self.changed or self.moved or self.removed or self.failed or self.embedded)

    def merge(self, other: "IndexReport") -> None:
        for name in ("seen", "added", "changed", "unchanged", "moved", "removed", "failed", "embedded"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures.extend(other.failures)
        self.skipped.extend(other.skipped)
        self.moves.extend(other.moves)
        self.cancelled = self.cancelled or other.cancelled
        self.embed_error = self.embed_error or other.embed_error

    def to_json(self) -> dict[str, Any]:
        return {
            "seen": self.seen,
            "indexed": self.indexed,
            "added": self.added,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "moved": self.moved,
            "removed": self.removed,
            "failed": self.failed,
            "embedded": self.embedded,
            "seconds": round(self.seconds, 3),
            "cancelled": self.cancelled,
            "embed_error": self.embed_error,
            "failures": [{"path": p, "reason": r} for p, r in self.failures],
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
        }


def _with_projections(parse_batch, root: Path, projected: dict[str, Projection]):
    """`parse_batch` with the files a write projected already taken from `projected` (when their
    bytes still hash to the projection's blob: else another writer changed them, and they are parsed)."""
    from memhtml_desktop.html.project import blob_sha_of as blob_sha  # git's blob id: the change key
    from memhtml_desktop.index.parse_pool import parsed

    def parse(disks: Sequence[DiskFile], at: str) -> list[_Parsed]:
        out: dict[str, _Parsed] = {}
        rest = []
        for disk in disks:
            projection = projected.get(disk.path)
            try:
                data = read_bytes(root, disk.path) if projection is not None else None
            except (OSError, ValueError):
                data = None
            if data is not None and blob_sha(data) == projection.blob_sha:
                out[disk.path] = parsed(disk, projection.blob_sha, projection)
            else:
                rest.append(disk)
        for item in parse_batch(rest, at) if rest else ():
            out[item.disk.path] = item
        return [out[d.path] for d in disks]

    return parse


COLD_BATCH_GROWTH = 4
"""A build from nothing doubles its batches up to this many times `batch_files`: the first
words are searchable after one small batch, and the rest commit in large ones. Every commit
rewrites the pages its rows touched in each of the files table's indexes; at 20,000 memories,
batches of 500 wrote 1.1 GB for a 200 MB index, batches growing to 2,000 about 600 MB."""


def _batches(candidates: Sequence[DiskFile], size: int, *, grow: bool = False) -> list[Sequence[DiskFile]]:
    out, at, largest = [], 0, size * (COLD_BATCH_GROWTH if grow else 1)
    while at < len(candidates):
        out.append(candidates[at : at + size])
        at += size
        size = min(size * 2, largest)
    return out


class Indexer:
    """The one writer of an index. Give it its own connection; never share that across threads."""

    def __init__(
        self,
        conn: apsw.Connection,
        root: Path,
        embedder: Embedder,
        *,
        clock: Callable[[], Any] = utc_now,
        batch_files: int = BATCH_FILES,
    ) -> None:
        self.conn = conn
        self.root = Path(root)
        self.embedder = embedder
        self.space = space_of(embedder)
        self.clock = clock
        self.batch_files = batch_files
        self._cold = False
        self._force = False
        self._rows: writer.Rows | None = None  # a cold batch's rows, gathered (_bulk)
        self.embed_error: str | None = None

    # -- public entry points ------------------------------------------------------------------

    def scan(
        self,
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
    ) -> IndexReport:
        """Bring the whole index in step with the tree.

        `rebuild` re-reads and re-projects every file IN PLACE, then drops every row whose file is
        gone and rebuilds the FTS index. It never empties the index first: a reader (the window,
        memhtml's CLI counting a read) meanwhile sees the old rows, never a hole.
        """
        started = time.perf_counter()
        report = IndexReport()
        # The walk: one `stat` per memory file, the floor of a scan with nothing to do.
        walked: kept_walk.Walk = []
        for item in stat_walk(self.root, on_skip=report.skipped.append, cancelled=cancelled):
            walked.append(item)
            if progress is not None and len(walked) % 1000 == 0:
                progress("scan", len(walked), 0)
        if cancelled is not None and cancelled():
            report.cancelled = True
            report.seconds = time.perf_counter() - started
            return report
        seen = len(walked)
        index_file = self.conn.db_filename("main")
        before = changes.mark(self.conn)
        walk_digest = kept_walk.digest(walked) if index_file and not rebuild else ""
        known: dict[str, tuple[int, int, str, str]] = {}  # `sources` rows of the files to read again or gone
        if walk_digest and kept_walk.same(index_file, self.root, before.version, before.uid, walk_digest):
            rest: dict[str, tuple[int, int, str, str]] = {}  # the walk of the last pass with nothing to do: none now
            candidates: list[DiskFile] = []
            keep = False
        else:
            # Each file on disk compared with its row: the rows left over are the files gone. The
            # rows of the files to read again are kept for the pass (`known`): one read of `sources`.
            rest = {row[0]: row[1:] for row in self.conn.execute(
                "SELECT path, size, mtime_ns, blob_sha, status FROM sources")}  # fmt: skip
            candidates = []
            for path, size, mtime_ns in walked:
                old = rest.pop(path, None)
                if old is None or old[0] != size or old[1] != mtime_ns or rebuild:
                    candidates.append(DiskFile(path, size, mtime_ns))
                    if old is not None:
                        known[path] = old
            keep = bool(walk_digest) and not candidates and not rest
        report.seen = seen
        report.unchanged = seen - len(candidates)
        with self.conn:  # readers can tell a first build in progress from a finished index
            self.conn.execute(
                "UPDATE index_state SET scan_started_at = ?, scan_seen = ? WHERE id = 1",
                (iso_z(self.clock()), report.seen),
            )
        vanished = set(rest)
        if rebuild:
            on_disk = {disk.path for disk in candidates}
            vanished |= {row[0] for row in self.conn.execute("SELECT path FROM files")} - on_disk
        known.update(rest)
        self._apply(candidates, sorted(vanished), (), report, progress, cancelled, force=rebuild, known=known)
        if rebuild and not report.cancelled:
            with writing(self.conn):
                self.conn.execute("INSERT INTO files_fts (files_fts) VALUES ('rebuild')")
                self.conn.execute("INSERT INTO files_fts_stemmed (files_fts_stemmed) VALUES ('rebuild')")
        if not report.cancelled:
            # Every file's words are in: the index is complete for the lexical arm now, and says so
            # (a cold store is searchable by words while its vectors are made, newest first; the
            # header then says how many memories have them: retrieval.coverage_sentence).
            with writing(self.conn):
                self.conn.execute("UPDATE index_state SET scanned_at = ? WHERE id = 1", (iso_z(self.clock()),))
            report.embedded += self.embed_missing(progress=progress, cancelled=cancelled)
            report.embed_error = self.embed_error
        self._finish(report, rebuilt=rebuild, scanned=not report.cancelled)
        after = changes.mark(self.conn)
        if keep and after.version == before.version and after.uid == before.uid:
            kept_walk.keep(index_file, self.root, after.version, after.uid, walk_digest)
        report.seconds = time.perf_counter() - started
        return report

    def update_paths(
        self,
        paths: Iterable[str],
        moves: Sequence[tuple[str, str]] = (),
        *,
        progress: Progress | None = None,
        cancelled: Cancelled | None = None,
        projected: dict[str, Projection] | None = None,
    ) -> IndexReport:
        """Re-examine the given store paths (and explicit moves) only: what a watcher reports.

        `projected`: projections a write made of the files it wrote (by path); a file whose bytes
        still hash to its projection's blob is written from it, not parsed again."""
        started = time.perf_counter()
        report = IndexReport()
        # Both ends of every move are re-examined. A move counts only while its source is gone: a
        # new file written at the old path since must be indexed as itself, not have its rows
        # carried off to the destination.
        wanted = list(dict.fromkeys([*paths, *(p for move in moves for p in move)]))
        # Only these paths' rows: loading all of `sources` made a one-file update O(store) (a
        # quarter of a second at 20,000 files), and a write reindexes its paths this way.
        known = self._sources(wanted)
        candidates: list[DiskFile] = []
        moves = [(src, dst) for src, dst in moves if stat_one(self.root, src) is None]
        vanished: list[str] = [src for src, _ in moves if src in known]
        for path in wanted:
            disk = stat_one(self.root, path)
            if disk is None:
                if path in known:
                    vanished.append(path)
                continue
            report.seen += 1
            candidates.append(disk)
        self._apply(candidates, sorted(set(vanished)), moves, report, progress, cancelled, known=known,
                    projected=projected)  # fmt: skip
        if not report.cancelled:
            report.embedded += self.embed_missing(progress=progress, cancelled=cancelled)
            report.embed_error = self.embed_error
        self._finish(report, rebuilt=False)
        report.seconds = time.perf_counter() - started
        return report

    def paths_under(self, prefix: str) -> list[str]:
        """Every path the index knows below a directory (for a folder deleted or moved at once)."""
        prefix = prefix.rstrip("/") + "/"
        rows = self.conn.execute(
            "SELECT path FROM sources WHERE substr(path, 1, ?) = ? ORDER BY path", (len(prefix), prefix)
        ).fetchall()
        return [r[0] for r in rows]

    def embed_missing(self, *, progress: Progress | None = None, cancelled: Cancelled | None = None) -> int:
        """Embed every chunk lacking a vector in the configured space; batches commit on their own."""
        # Most passes find none, which two counts over narrow indexes tell (the foreign key keeps every
        # vector on a chunk, so as many vectors in the space as chunks means none lacks one): the
        # ordered query below reads every chunk's text and path, ~50 ms at 20,000 memories, on
        # every write's reindex.
        (lacking,) = self.conn.execute(
            "SELECT (SELECT count(*) FROM chunks) > (SELECT count(*) FROM embeddings WHERE model = ?)", (self.space,)
        ).fetchone()
        if not lacking:
            return 0
        # Newest memories first (a cold store gains meaning where it is most likely asked for), each
        # memory's chunks together; every batch commits, so search uses the vectors made so far.
        rows = self.conn.execute(
            "SELECT c.chunk_id, c.text FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id "
            "LEFT JOIN files f ON f.path = c.path "
            "WHERE e.chunk_id IS NULL OR e.model <> ? "
            "ORDER BY unixepoch(f.updated_at) DESC NULLS LAST, c.path, c.ordinal, c.chunk_id",
            (self.space,),
        ).fetchall()
        if not rows:
            return 0  # (a pass with nothing to do imports no parse pool)
        from memhtml_desktop.index.parse_pool import embed_batches

        done = 0
        batches = [rows[start : start + BATCH_EMBED] for start in range(0, len(rows), BATCH_EMBED)]
        # The hash embedder's batches are embedded in the parse processes, ahead of this loop's writes.

        with closing(embed_batches(self.embedder, [[text for _, text in batch] for batch in batches])) as embedded:
            for batch in batches:
                if cancelled is not None and cancelled():
                    break
                try:
                    vectors = np.asarray(next(embedded), dtype=np.float32)
                except Exception as exc:  # noqa: BLE001 - a broken embedder must not fail indexing
                    # The rows stay indexed without vectors; search says so (degraded) and the next
                    # run picks the chunks up again.
                    self.embed_error = f"{type(exc).__name__}: {exc}"
                    log.warning("embedding stopped after %d chunks: %s", done, self.embed_error)
                    break
                done += self._write_vectors(batch, vectors)
                if progress is not None:
                    progress("embed", done, len(rows))
        return done

    def _write_vectors(self, batch: list[tuple[str, str]], vectors: np.ndarray) -> int:
        at = iso_z(self.clock())
        with writing(self.conn):
            self.conn.executemany(
                "INSERT INTO embeddings (chunk_id, model, dim, vec, created_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(chunk_id) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
                "vec = excluded.vec, created_at = excluded.created_at",
                [(cid, self.space, self.embedder.dim, encode_vec(vec), at) for (cid, _), vec in zip(batch, vectors)],
            )
            self._bump_version()
        return len(batch)

    # -- internals ----------------------------------------------------------------------------

    def _sources(self, paths: Sequence[str] | None = None) -> dict[str, tuple[int, int, str, str]]:
        """`sources` rows by path: all of them, or only those of `paths`."""
        if paths is None:
            rows = self.conn.execute("SELECT path, size, mtime_ns, blob_sha, status FROM sources")
        else:
            rows = self.conn.execute(
                "SELECT path, size, mtime_ns, blob_sha, status FROM sources WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(list(paths), ensure_ascii=False),),
            )
        return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}

    @contextmanager
    def _bulk(self):
        """One batch of a build from nothing, inside the caller's transaction: its rows are
        gathered (`writer.Rows`) and written a table at a time, the insert triggers standing aside
        (migration 0011); then the batch's new rows reach the change log and both FTS tables in
        one statement each, one FTS segment per batch instead of one per memory. A cold run only
        inserts (nothing was there to update or delete), and a new rowid is above the table's
        highest, so the batch's rows are those above the highest before it."""
        conn = self.conn
        (top,) = conn.execute("SELECT coalesce(max(rowid), 0) FROM files").fetchone()
        self._rows = writer.Rows()
        try:
            yield
            conn.execute("UPDATE index_state SET bulk = 1 WHERE id = 1")
            self._rows.write(conn)
            conn.execute("UPDATE index_state SET bulk = 0 WHERE id = 1")
        finally:
            self._rows = None
        # What the change log's insert triggers would have written: the new files' rowids. (A new
        # chunk's content is carried by new files only: content that a file indexed before carries
        # is an existing chunk row, which the batch's upsert re-points without logging.)
        conn.execute(
            "INSERT INTO index_changes (version, file_rowid) "
            "SELECT (SELECT vectors_version FROM index_state WHERE id = 1), rowid FROM files WHERE rowid > ?",
            (top,),
        )
        conn.execute(
            "INSERT INTO files_fts (rowid, fts_text) SELECT rowid, fts_text FROM files WHERE rowid > ?", (top,)
        )
        conn.execute(
            "INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) "
            "SELECT rowid, title, gist, body_text FROM files WHERE rowid > ?",
            (top,),
        )

    def _bump_version(self) -> None:
        self.conn.execute("UPDATE index_state SET vectors_version = vectors_version + 1 WHERE id = 1")

    def _apply(
        self,
        candidates: Sequence[DiskFile],
        vanished: Sequence[str],
        explicit_moves: Sequence[tuple[str, str]],
        report: IndexReport,
        progress: Progress | None,
        cancelled: Cancelled | None,
        *,
        force: bool = False,
        known: dict[str, tuple[int, int, str, str]] | None = None,
        projected: dict[str, Projection] | None = None,
    ) -> None:
        known = self._sources() if known is None else known
        self._force = force
        self._follow_state()  # what a killed run committed and never followed, first
        # A cold run (nothing indexed yet) writes without first deleting what cannot be there.
        self._cold = not known and self.conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None
        pending_vanished = set(vanished)
        moved_from = {dst: src for src, dst in explicit_moves if src in pending_vanished}
        by_hash: dict[str, list[str]] = {}
        if pending_vanished:
            for path, content_hash in self.conn.execute(
                "SELECT path, content_hash FROM files WHERE path IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted(pending_vanished), ensure_ascii=False),),
            ):
                by_hash.setdefault(content_hash, []).append(path)
        total = len(candidates)
        batches = _batches(candidates, self.batch_files, grow=self._cold)
        unchanged = {} if force else {path: old[2] for path, old in known.items() if old[3] == "indexed"}
        handed = [d for d in candidates if projected and d.path in projected]
        if batches:
            self._parse_and_write(
                batches,
                total,
                handed,
                unchanged,
                known,
                pending_vanished,
                moved_from,
                by_hash,
                report,
                progress,
                cancelled,
                projected,
            )
            if report.cancelled:
                return
        if pending_vanished:
            # A deleted memory's state.access row is left alone: it is not the index's to drop,
            # and memhtml's doctor reports orphans for a human to decide.
            with writing(self.conn):
                for path in sorted(pending_vanished):
                    writer.forget_path(self.conn, path)
                    report.removed += 1
                self._bump_version()

    def _parse_and_write(
        self,
        batches,
        total: int,
        handed: list[DiskFile],
        unchanged: dict[str, str],
        known: dict,
        pending_vanished: set[str],
        moved_from: dict[str, str],
        by_hash: dict[str, list[str]],
        report: IndexReport,
        progress: Progress | None,
        cancelled: Cancelled | None,
        projected: dict[str, Projection] | None,
    ) -> None:
        """Parse `batches` (through the parse pool when they are many) and write each in its own
        transaction."""
        from memhtml_desktop.index.parse_pool import PARSE_AHEAD, parse_pool

        with parse_pool(self.root, total - len(handed), unchanged) as parse_batch:
            if handed:
                parse_batch = _with_projections(parse_batch, self.root, projected or {})
            prefetch = getattr(parse_batch, "prefetch", None)
            ahead = 1  # the next batch not yet handed to the parse workers
            done = 0
            for number, batch in enumerate(batches):
                if cancelled is not None and cancelled():
                    report.cancelled = True
                    return
                at = iso_z(self.clock())
                parsed = parse_batch(batch, at)
                while prefetch is not None and ahead < min(number + 1 + PARSE_AHEAD, len(batches)):
                    prefetch(batches[ahead], at)
                    ahead += 1
                with writing(self.conn):  # not `with conn:`: its commit holds the GIL (db.writing)
                    before = (report.added, report.changed, report.moved, report.failed)
                    with self._bulk() if self._cold else nullcontext():
                        for item in parsed:
                            self._write_one(item, known, pending_vanished, moved_from, by_hash, report, at)
                    if (report.added, report.changed, report.moved, report.failed) != before:
                        # Only a batch that changed rows moves the version: the watcher's pass over
                        # files the app itself just indexed (same bytes) then leaves the vector
                        # snapshot and the salience list as they are (no second rebuild per write).
                        self._bump_version()
                self._follow_state()
                if progress is not None:
                    done += len(batch)
                    progress("index", done, total)

    def _write_one(
        self,
        item: _Parsed,
        known: dict[str, tuple[int, int, str, str]],
        pending_vanished: set[str],
        moved_from: dict[str, str],
        by_hash: dict[str, list[str]],
        report: IndexReport,
        at: str,
    ) -> None:
        disk, conn = item.disk, self.conn
        old = known.get(disk.path)
        if item.projection is None:
            if item.error == "unchanged":
                writer.record_source(conn, disk.path, disk.size, disk.mtime_ns, item.sha, "indexed", at)
                report.unchanged += 1
                return
            if item.error == "vanished":
                if old is not None:
                    pending_vanished.add(disk.path)
                return
            self._failed(disk, "unreadable", [item.error or "unreadable"], [], item.sha or "-", at)
            report.failed += 1
            report.failures.append((disk.path, item.error or "unreadable"))
            return
        projection = item.projection
        if (
            not self._force
            and old is not None
            and old[2] == item.sha
            and old[3] == "indexed"
            and disk.path not in moved_from
        ):
            writer.record_source(conn, disk.path, disk.size, disk.mtime_ns, item.sha, "indexed", at)
            report.unchanged += 1
            return
        if not projection.ok:
            self._failed(disk, "invalid", projection.violations, projection.warnings, item.sha, at)
            report.failed += 1
            report.failures.append((disk.path, "; ".join(projection.violations)))
            return
        bound = item.rows
        assert bound is not None  # a valid projection's rows (parse_pool.parsed)
        content_hash = bound[0][writer.CONTENT_HASH]
        source = moved_from.get(disk.path)
        if source is None and old is None:
            twins = [p for p in by_hash.get(content_hash, ()) if p in pending_vanished]
            source = likeliest_source(twins, disk.path)
        if source is not None and source in pending_vanished:
            writer.move_file(conn, source, disk.path)
            conn.execute("DELETE FROM sources WHERE path = ?", (source,))
            writer.clear_problem(conn, source)
            pending_vanished.discard(source)
            conn.execute("INSERT INTO state_moves (src, dst) VALUES (?, ?)", (source, disk.path))
            report.moved += 1
            report.moves.append((source, disk.path))
            fresh = False
        elif old is None:
            report.added += 1
            fresh = self._cold
        else:
            report.changed += 1
            fresh = False
        rows = self._rows
        if rows is not None and fresh:  # a cold batch: nothing to clear, written a table at a time
            rows.add_bound(bound)
            if projection.warnings:
                rows.problem(disk.path, "warnings", [], projection.warnings, at)
            rows.source(disk.path, disk.size, disk.mtime_ns, item.sha, "indexed", at)
            return
        writer.write_bound(conn, bound, fresh=fresh)
        if projection.warnings:
            writer.record_problem(conn, disk.path, "warnings", [], projection.warnings, at)
        else:
            writer.clear_problem(conn, disk.path)
        writer.record_source(conn, disk.path, disk.size, disk.mtime_ns, item.sha, "indexed", at)

    def _failed(
        self, disk: DiskFile, kind: str, violations: Sequence[str], warnings: Sequence[str], sha: str, at: str
    ) -> None:
        """A file that cannot be a memory: its rows go (none in a cold batch), its problem is kept."""
        rows = self._rows
        if rows is not None:
            rows.problem(disk.path, kind, violations, warnings, at)
            rows.source(disk.path, disk.size, disk.mtime_ns, sha, "failed", at)
            return
        writer.delete_file(self.conn, disk.path)
        writer.record_problem(self.conn, disk.path, kind, violations, warnings, at)
        writer.record_source(self.conn, disk.path, disk.size, disk.mtime_ns, sha, "failed", at)

    def _follow_state(self) -> None:
        """State rows follow moved memories, after the index batch committed.

        Outside the index transaction on purpose: holding state.db's write lock for a whole
        batch would make a concurrent memhtml bump wait, and a busy state plane must never roll
        back index work. A destination that already has a row keeps it (memhtml's own CLI moves
        the row itself when it does the move).

        The moves come from the index's `state_moves` table, written with the moves themselves:
        what a killed run committed and never followed is followed by the next one, in the order
        it happened (a memory moved twice follows both steps). A move whose state plane is busy
        stays there for the next batch or run.
        """
        from memhtml_desktop.index.state import StateError, move_access

        if getattr(self.conn, "state_busy", False):
            return  # another process holds the plane: the moves wait for a run that can write it
        pending = self.conn.execute("SELECT id, src, dst FROM state_moves ORDER BY id").fetchall()
        done: list[int] = []
        for move_id, src, dst in pending:
            try:
                move_access(self.conn, src, dst)
            except (StateError, apsw.Error) as exc:
                log.warning("state row for %s did not follow to %s yet: %s", src, dst, exc)
                break  # later moves may chain on this one: they wait with it
            done.append(move_id)
        if done:
            with writing(self.conn):
                self.conn.execute(
                    "DELETE FROM state_moves WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(done),)
                )

    def _finish(self, report: IndexReport, *, rebuilt: bool, scanned: bool = False) -> None:
        at = iso_z(self.clock())
        with writing(self.conn):
            self.conn.execute(
                "UPDATE index_state SET store_root = ?, embed_model = ?, embed_dim = ?, updated_at = ?, "
                "rebuilt_at = CASE WHEN ? THEN ? ELSE rebuilt_at END, "
                "scanned_at = CASE WHEN ? THEN ? ELSE scanned_at END WHERE id = 1",
                (str(self.root), self.space, self.embedder.dim, at, int(rebuilt), at, int(scanned), at),
            )
            changes.prune(self.conn)


def likeliest_source(twins: Sequence[str], path: str) -> str | None:
    """Which vanished file, of byte-identical ones, the new file at `path` is: the one whose path
    ends like it (its name, then its folders from the inside out), else the first in path order.

    A scan has no inodes, only contents; when a memory and its byte-identical twin both move in one
    pass, the first twin in the list took the first new path, and the memory's reads (its state
    row) followed to its twin's new name. A move (`git mv`, a folder renamed) keeps the file's
    name; a copy made elsewhere rarely does.
    """
    if not twins:
        return None
    parts = path.split("/")

    def shared_tail(other: str) -> int:
        count = 0
        for mine, theirs in zip(reversed(parts), reversed(other.split("/")), strict=False):
            if mine != theirs:
                break
            count += 1
        return count

    return min(sorted(twins), key=lambda twin: -shared_tail(twin))
