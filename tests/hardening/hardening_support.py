"""Shared pieces of the hardening tests (issue 9) and of `bench/reliability_bench.py`.

The tests run short versions; the bench imports the same functions and runs the long ones, so a
figure in docs/reliability.md and a red test always mean the same check. Nothing here mocks the
database: every check opens the real index or state file.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import apsw

ROOT = Path(__file__).resolve().parents[2]
DEMO_STORE = ROOT / "resources" / "demo-store"
PYTHON = sys.executable


# -- stores and processes ------------------------------------------------------------------------


def copy_demo(dest: Path) -> Path:
    """A fresh copy of the bundled demo store (64 real memories), without any index or state db."""
    shutil.copytree(DEMO_STORE, dest, ignore=shutil.ignore_patterns("index.db*", "state.db*", ".git"))
    return dest


def demo_memories() -> list[tuple[str, bytes]]:
    """Every memory file of the demo store as (store path, bytes), in path order."""
    return [
        (path.relative_to(DEMO_STORE).as_posix(), path.read_bytes())
        for path in sorted(DEMO_STORE.rglob("*.html"))
        if path.relative_to(DEMO_STORE).parts[0] in ("projects", "areas", "resources", "archive")
    ]


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI child: this checkout first on the path, no user configuration."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["MEMHTML_DESKTOP_NO_USER_CONFIG"] = "1"
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.update(extra)
    return env


def run_cli(args: list[str | bytes], *, timeout: float = 120, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[bytes]:
    """`python -m memhtml_desktop ARGS`, bytes in and out (argv may hold undecodable bytes)."""
    argv = [PYTHON.encode(), b"-m", b"memhtml_desktop"] + [a if isinstance(a, bytes) else a.encode() for a in args]
    return subprocess.run(argv, capture_output=True, timeout=timeout, env=env or child_env())


def peak_rss_kb() -> int:
    """This process's peak resident set (VmHWM, kB) from /proc; 0 where /proc is absent."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.01) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; True when it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


# -- index consistency ---------------------------------------------------------------------------

# Each check is a query that must return 0. Chunks are keyed by content, so a file's chunks are the
# rows whose content_hash is the file's (two files with one body share them; `chunks.path` names
# whichever twin owns them).
CONSISTENCY_QUERIES = {
    "chunk without its file":
        "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = c.path)",
    "chunk whose hash is not its file's":
        "SELECT count(*) FROM chunks c JOIN files f ON f.path = c.path WHERE f.content_hash <> c.content_hash",
    "file without its chunks (non-empty body)":
        "SELECT count(*) FROM files f WHERE trim(f.body_text) <> '' "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = f.content_hash)",
    "embedding without a chunk":
        "SELECT count(*) FROM embeddings e WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.chunk_id = e.chunk_id)",
    "file without a sources row":
        "SELECT count(*) FROM files f WHERE NOT EXISTS "
        "(SELECT 1 FROM sources s WHERE s.path = f.path AND s.status = 'indexed')",
    "indexed sources row without its file":
        "SELECT count(*) FROM sources s WHERE s.status = 'indexed' "
        "AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path = s.path)",
    "failed sources row without its problem":
        "SELECT count(*) FROM sources s WHERE s.status = 'failed' "
        "AND NOT EXISTS (SELECT 1 FROM problems p WHERE p.path = s.path AND p.kind IN ('invalid', 'unreadable'))",
    "problem without a sources row":
        "SELECT count(*) FROM problems p WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.path = p.path)",
    "orphan FTS row (docsize without a file)":
        "SELECT count(*) FROM files_fts_docsize d WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.rowid = d.id)",
    "file missing from FTS (no docsize row)":
        "SELECT count(*) FROM files f WHERE NOT EXISTS (SELECT 1 FROM files_fts_docsize d WHERE d.id = f.rowid)",
    "child row without its file":
        "SELECT (SELECT count(*) FROM file_tags t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
        " + (SELECT count(*) FROM file_entities t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
        " + (SELECT count(*) FROM file_facets t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
        " + (SELECT count(*) FROM file_citations t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))",
    "index_state row missing":
        "SELECT 1 - count(*) FROM index_state WHERE id = 1",
}


def index_problems(conn: apsw.Connection, *, complete: bool = False, space: str | None = None) -> list[str]:
    """Every broken invariant of the index plane on `conn` (empty list: consistent).

    `complete` also demands what a finished run leaves: every chunk embedded in `space`.
    """
    found: list[str] = []
    rows = [r[0] for r in conn.execute("PRAGMA main.integrity_check")]
    if rows != ["ok"]:
        found.append(f"integrity_check: {rows[:5]}")
        return found  # the rest would only echo the damage
    fk = conn.execute("PRAGMA main.foreign_key_check").fetchall()
    if fk:
        found.append(f"foreign_key_check: {len(fk)} rows, first {fk[:3]}")
    try:
        # rank = 1: also compare the FTS index with its external content table (files.fts_text).
        conn.execute("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
    except apsw.Error as exc:
        found.append(f"files_fts integrity-check: {type(exc).__name__}: {exc}")
    (fts_docs,) = conn.execute("SELECT count(*) FROM files_fts_docsize").fetchone()
    (files,) = conn.execute("SELECT count(*) FROM files").fetchone()
    if fts_docs != files:
        found.append(f"FTS holds {fts_docs} documents for {files} files")
    for name, sql in CONSISTENCY_QUERIES.items():
        (count,) = conn.execute(sql).fetchone()
        if count:
            found.append(f"{name}: {count}")
    if complete:
        (missing,) = conn.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id "
            "WHERE e.chunk_id IS NULL OR e.model <> ?", (space,)
        ).fetchone()
        if missing:
            found.append(f"chunks without a vector in {space}: {missing}")
    return found


def path_hashes(conn: apsw.Connection) -> set[tuple[str, str]]:
    return set(conn.execute("SELECT path, content_hash FROM files"))


def failed_paths(conn: apsw.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT path FROM sources WHERE status = 'failed'")}


# -- the state plane -----------------------------------------------------------------------------

ACCESS_COLUMNS = "path, access_count, reinforcement_count, outcome_score, last_accessed_at, last_reinforced_at, updated_at"


def read_state(state_db: Path) -> tuple[list[str], dict[str, tuple]]:
    """(integrity_check rows, {path: access row}) read with a connection of its own."""
    conn = apsw.Connection(str(state_db), flags=apsw.SQLITE_OPEN_READWRITE)
    conn.set_busy_timeout(10_000)
    try:
        check = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        rows = {r[0]: tuple(r[1:]) for r in conn.execute(f"SELECT {ACCESS_COLUMNS} FROM access")}
    finally:
        conn.close()
    return check, rows


def ledger(state_db: Path) -> list[tuple[str, str]]:
    """The state plane's migration ledger: a rebuilt plane would carry new applied_at stamps."""
    conn = apsw.Connection(str(state_db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return list(conn.execute("SELECT name, applied_at FROM schema_migrations ORDER BY name"))
    finally:
        conn.close()


# -- crash trials (item 3) -----------------------------------------------------------------------


@dataclass
class CrashTrial:
    number: int
    mode: str
    delay_s: float
    killed_running: bool
    problems_after_kill: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    problems_after_finish: list[str] = field(default_factory=list)
    equal_to_rebuild: bool = False
    difference: str = ""
    state_problems: list[str] = field(default_factory=list)
    stranded_state_rows: int = 0
    files_after_kill: int = 0
    follow_up_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.problems_after_kill or self.notices or self.problems_after_finish
                    or not self.equal_to_rebuild or self.state_problems)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["ok"] = self.ok
        return out


class CrashHarness:
    """A generated store, its index, seeded state rows, and kill -9 trials against the CLI indexer.

    Trials rotate through three kinds of run, so a kill lands in different code paths: `cold` (no
    index: the cold-run writes), `rebuild` (`--rebuild` over a complete index: one big DELETE
    transaction, then a cold run) and `warm` (after moving, editing, deleting, adding and twinning
    files: move detection, chunk release to twins, state rows following their files).
    """

    MODES = ("cold", "warm", "rebuild", "warm")

    def __init__(self, workdir: Path, *, count: int = 3000, seed: int = 9, state_rows: int = 400) -> None:
        from memhtml_desktop.devtools.gen_store import generate_store

        self.workdir = Path(workdir)
        self.root = self.workdir / "store"
        self.index = self.workdir / "index" / "index.db"
        self.generated = generate_store(self.root, count, seed)
        self.rng = random.Random(seed)
        self.state_db = self.root / ".memhtml" / "state.db"
        self.expected_state: dict[str, tuple] = {}
        self.names: dict[str, list[str]] = {}  # seeded path -> every name its file has had, in order
        self._reference: tuple[set, set] | None = None
        self._counter = 0
        self.cold_seconds = self._index_in_process(self.index, rebuild=True)
        self._seed_state(state_rows)

    # -- setup --------------------------------------------------------------------------------

    def _store(self, index: Path):
        from memhtml_desktop.index.store import Store

        return Store(self.root, index_path=index)

    def _index_in_process(self, index: Path, *, rebuild: bool) -> float:
        started = time.perf_counter()
        proc = run_cli(["index", "--store", str(self.root), "--index", str(index)] + (["--rebuild"] if rebuild else []),
                       timeout=600)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        return time.perf_counter() - started

    def _seed_state(self, rows: int) -> None:
        store = self._store(self.index)
        conn = store.reader()
        paths = sorted(p for (p,) in conn.execute("SELECT path FROM files WHERE archived = 0"))
        chosen = self.rng.sample(paths, min(rows, len(paths)))
        for i in range(0, len(chosen), 50):
            signal_name = ("positive", "negative", "neutral")[(i // 50) % 3]
            store.reinforce(chosen[i : i + 50], signal_name)
        store.close_thread_connection()
        check, self.expected_state = read_state(self.state_db)
        assert check == ["ok"] and len(self.expected_state) == len(chosen)

    # -- store mutations (warm trials) ----------------------------------------------------------

    def _memory_files(self) -> list[str]:
        from memhtml_desktop.domain.paths import is_indexable

        found = (p.relative_to(self.root).as_posix() for p in self.root.rglob("*.html"))
        return sorted(p for p in found if is_indexable(p))

    def _where(self, origin: str) -> str:
        return self.names[origin][-1] if origin in self.names else origin

    def mutate(self, *, moves: int = 250, edits: int = 250, deletes: int = 40, adds: int = 40, twins: int = 20) -> None:
        """Change the tree the way agents and `git mv` do; every name a seeded file had is remembered."""
        files = self._memory_files()
        self.rng.shuffle(files)
        holders = {self._where(o): o for o in self.expected_state}
        with_state = [p for p in files if p in holders]
        without = [p for p in files if p not in holders]
        picked = with_state[: moves // 2] + without[: moves - moves // 2]
        taken = set(picked)
        rest = [p for p in files if p not in taken]
        self._counter += 1
        tag = self._counter
        for src in picked:
            bucket, _, tail = src.partition("/")
            dst = f"{bucket}/moved{tag}/{tail}"
            (self.root / dst).parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / src, self.root / dst)
            if src in holders:
                self.names.setdefault(holders[src], [holders[src]]).append(dst)
        for path in rest[:edits]:  # a new paragraph: a changed body that stays valid
            target = self.root / path
            target.write_bytes(target.read_bytes().replace(
                b"</article>", f"<p>Edited in trial {tag}.</p>\n</article>".encode(), 1))
        for path in rest[edits : edits + deletes]:
            (self.root / path).unlink()  # a deleted memory's state row stays where it is
        for i, path in enumerate(rest[edits + deletes : edits + deletes + adds + twins]):
            bucket, _, tail = path.partition("/")
            new = self.root / f"{bucket}/added{tag}/{i}-{tail.replace('/', '-')}"
            new.parent.mkdir(parents=True, exist_ok=True)
            data = (self.root / path).read_bytes()
            if i < adds:  # a new memory; the rest are byte-identical twins (chunk rows are shared)
                data = data.replace(b"</article>", f"<p>Added copy {tag}-{i}.</p>\n</article>".encode(), 1)
            new.write_bytes(data)
        self._reference = None

    # -- the reference ------------------------------------------------------------------------

    def reference(self) -> tuple[set[tuple[str, str]], set[str]]:
        """(path, content_hash) pairs and failed paths of a fresh rebuild of the tree as it is now."""
        if self._reference is None:
            ref = self.workdir / "reference" / f"ref-{self._counter}.db"
            if ref.parent.exists():
                shutil.rmtree(ref.parent)
            self._index_in_process(ref, rebuild=True)
            conn = apsw.Connection(str(ref), flags=apsw.SQLITE_OPEN_READONLY)
            self._reference = (path_hashes(conn), failed_paths(conn))
            conn.close()
        return self._reference

    # -- one trial ----------------------------------------------------------------------------

    def trial(self, number: int, delay_range: tuple[float, float] | None = None) -> CrashTrial:
        from memhtml_desktop.domain.embedder import space_of

        mode = self.MODES[number % len(self.MODES)]
        args = ["index", "--store", str(self.root), "--index", str(self.index)]
        if mode == "cold":
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.index) + suffix).unlink(missing_ok=True)
        elif mode == "rebuild":
            args.append("--rebuild")
        else:
            self.mutate()
        lo, hi = delay_range or (0.25, max(0.6, 1.1 * self.cold_seconds if mode != "warm" else 1.5))
        delay = self.rng.uniform(lo, hi)
        argv = [PYTHON, "-m", "memhtml_desktop", *args]
        child = subprocess.Popen(argv, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 start_new_session=True)
        time.sleep(delay)  # the deliberate random moment of the crash
        running = child.poll() is None
        try:
            os.killpg(child.pid, signal.SIGKILL)  # the run and its parse workers, as a power cut would
        except ProcessLookupError:
            pass
        child.wait(timeout=30)
        wait_until(lambda: not _group_alive(child.pid), timeout=10)
        result = CrashTrial(number, mode, round(delay, 3), running)

        # The next start: the store opens its index as the app does, then the invariants.
        store = self._store(self.index)
        conn = store.reader()
        result.notices = list(store.notices)
        result.problems_after_kill = index_problems(conn)
        (result.files_after_kill,) = conn.execute("SELECT count(*) FROM files").fetchone()
        store.close_thread_connection()
        result.state_problems = self._state_problems(before_follow_up=True)

        # ... and it finishes: a follow-up run ends where a fresh rebuild of the same tree ends.
        started = time.perf_counter()
        proc = run_cli(["index", "--store", str(self.root), "--index", str(self.index)], timeout=600)
        result.follow_up_s = round(time.perf_counter() - started, 2)
        if proc.returncode != 0:
            result.problems_after_finish.append(f"follow-up index exited {proc.returncode}: "
                                                f"{proc.stderr.decode(errors='replace')[-300:]}")
        store = self._store(self.index)
        conn = store.reader()
        result.problems_after_finish += index_problems(conn, complete=True, space=space_of(store.embedder))
        got, got_failed = path_hashes(conn), failed_paths(conn)
        store.close_thread_connection()
        want, want_failed = self.reference()
        result.equal_to_rebuild = got == want and got_failed == want_failed
        if not result.equal_to_rebuild:
            result.difference = (f"missing {sorted(want - got)[:3]} extra {sorted(got - want)[:3]} "
                                 f"failed-diff {sorted(want_failed ^ got_failed)[:3]}")
        result.state_problems += self._state_problems(before_follow_up=False)
        result.stranded_state_rows = self._stranded()
        return result

    def _state_problems(self, *, before_follow_up: bool) -> list[str]:
        """The state plane is never damaged: integrity ok, every seeded row intact under one of its file's names."""
        check, rows = read_state(self.state_db)
        found = [] if check == ["ok"] else [f"state integrity_check: {check[:3]}"]
        for origin, values in self.expected_state.items():
            holders = [name for name in self.names.get(origin, [origin]) if name in rows]
            if not holders:
                found.append(f"state row for {origin} lost")
            elif len(holders) > 1:
                found.append(f"state row for {origin} duplicated at {holders}")
            elif rows[holders[0]] != values:
                found.append(f"state row for {origin} changed: {values} -> {rows[holders[0]]}")
        if len(rows) != len(self.expected_state):
            found.append(f"state rows: {len(rows)}, seeded {len(self.expected_state)}")
        return found

    def _stranded(self) -> int:
        """Rows left under an old name while their file lives on under a new one (did not follow)."""
        _, rows = read_state(self.state_db)
        return sum(1 for origin, names in self.names.items()
                   if (self.root / names[-1]).exists() and names[-1] not in rows)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def summarize_trials(trials: list[CrashTrial]) -> dict[str, Any]:
    return {
        "trials": len(trials),
        "killed_while_running": sum(t.killed_running for t in trials),
        "consistent_after_kill": sum(not t.problems_after_kill and not t.notices for t in trials),
        "finished_equal_to_rebuild": sum(t.equal_to_rebuild and not t.problems_after_finish for t in trials),
        "state_plane_intact": sum(not t.state_problems for t in trials),
        "stranded_state_rows": sum(t.stranded_state_rows for t in trials),
        "by_mode": {m: sum(t.mode == m for t in trials) for m in ("cold", "warm", "rebuild")},
        "delays_s": [t.delay_s for t in trials],
        "files_at_kill": [t.files_after_kill for t in trials],
        "failures": [t.to_json() for t in trials if not t.ok],
    }


def to_json_line(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=True, sort_keys=True)


# -- hostile queries and scopes (item 2) ---------------------------------------------------------

FIXED_QUERIES = (
    "", " ", '"', '""', '"""', "'", "''", ":", "::", "-", "--", "-deploy", "---x", "a-b-c", "NOT", "AND", "OR",
    "NEAR", "near", "AND OR NOT", "a AND", "OR b", "NOT NOT", "NEAR(a b)", 'NEAR("a" "b", 3)', "NEAR/3",
    "*", "a*", "*a", "^", "^a", "a^b", "(", ")", "((a)", "a)", "()", "(a OR b) AND NOT c", "{fts_text}: x",
    "fts_text:deploy", "files_fts:deploy", "col:term", "service:checkout-api", "rank:1", "rowid", "bm25(files_fts)",
    "'; DROP TABLE files; --", "\" OR 1=1 --", "1; DELETE FROM files", "?1", "?999", ":name", "@x", "$x", "%", "_",
    "%_%", "\\", "\\\\", "/", "//", "x" * 10_000, "deploy " * 1_500, "a b " * 3_000, "\x00", "\x00deploy",
    "deploy\x00rollback", "\x1b[31mred\x1b[0m", "\x07\x08\x0b\x0c", "\r\n\t", "\x7f", "\u0085\u2028\u2029",
    "\u202edeploy", "\ufeff", "\ufffd", "😀", "👩‍👩‍👧 deploy", "déployé", "ΣΊΣΥΦΟΣ", "ß" * 5_000, "İstanbul",
    "ﬁle", "中文 查询", "العربية", "\U0010ffff", "deploy 😀 \"vip drain\" -rollback NOT (x) ^y *",
)

_FTS_BITS = ('"', "'", ":", "-", "AND", "OR", "NOT", "NEAR", "NEAR(", "*", "^", "(", ")", "{", "}", ",", "+",
             "/", "\\", ";", "--", "/*", "*/", "?1", ":x", "@y", "$z", "%", "_", "=", "<>", "\x00", "\t", "\n")
_WORDS = ("deploy", "rollback", "vip", "drain", "checkout", "api", "service", "oncall", "the", "a", "files",
          "SELECT", "DROP", "TABLE", "files_fts", "rank", "match", "rowid", "sqlite_schema", "memhtml_fold")
_UNICODE = ("é", "😀", "\u200b", "\u202e", "\ufeff", "ß", "İ", "\u0301", "中", "\U0001f3f3\ufe0f\u200d\U0001f308",
            "\x7f", "\x1b", "\x85", "\u2028", "\ufffd")
SURROGATES = ("\ud800", "\udfff", "\udcff", "\udc80", "\ud83d")


def hostile_query(rng: random.Random, *, surrogates: bool = False) -> str:
    """One query built from FTS5/SQL syntax, words, odd Unicode and control characters."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(FIXED_QUERIES)
    if roll < 0.2:
        return rng.choice(_WORDS + _FTS_BITS) * rng.randint(500, 10_000)
    parts = []
    for _ in range(rng.randint(1, 12)):
        kind = rng.random()
        if kind < 0.4:
            parts.append(rng.choice(_FTS_BITS))
        elif kind < 0.75:
            parts.append(rng.choice(_WORDS))
        elif kind < 0.9:
            parts.append(rng.choice(_UNICODE))
        else:
            parts.append(chr(rng.randint(0, 0x2FFF)) if not surrogates else rng.choice(SURROGATES))
        parts.append(rng.choice(("", " ", " ", "  ")))
    text = "".join(parts)
    if not surrogates:
        text = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)
    return text


_JUNK = ("", " ", "..", "../..", "/", "\\", "%", "_", "%_", "'", "\"", "a'b", 'a"b', ":", "a:b:c", "x=y",
         "\x00", "a\x00b", "*", "^", "NEAR", "' OR 1=1 --", "😀", "\u202e", "x" * 2_000, "NULL", "null", "0")
ENTITIES = ("service:checkout-api", "SERVICE:CHECKOUT-API", "person:Zoë", "a'b:c\"d", "x:%", "%:%", "_:_",
            "::", ":", "a:", ":b", "service:checkout-api\x00", "\x00", "service:%checkout%", "' OR 1=1 --:x")
FACETS = ("doc-type=runbook", "tier=1", "no-equals-sign", "a=b=c", "x=", "=y", "=", "==", "name= value with spaces ",
          "tier=1 OR 1=1", "%=%", "_=_", "a'b=c\"d", "n=\x00", "\x00=v", "Owner=Sanju", "tier==1")
AS_OF = ("2026-01-01", "2026-01-01T00:00:00Z", "not a date", "9999-99-99", "0000-00-00", "", "\x00",
         "2026-13-45T99:99:99Z", "' OR 1=1 --", "1e309", "-1", "😀", "x" * 500, "2026-02-30")
PARAS = ("projects", "areas", "resources", "archive", "junk", "", "..", "ARCHIVE", "\x00", "%", "projects/x")
TYPES = ("semantic", "procedural", "task", "arc", "bogus", "", "SEMANTIC", "task'", "\x00", "%", "episodic ")


def hostile_scope_kwargs(rng: random.Random) -> dict[str, Any]:
    """Keyword arguments for `Scope.build`, every value a string (or a list of strings) someone could send."""
    kwargs: dict[str, Any] = {}
    if rng.random() < 0.4:
        kwargs["memory_types"] = [rng.choice(TYPES) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.4:
        kwargs["workspace"] = rng.choice(_JUNK + ("checkout-api",))
    if rng.random() < 0.4:
        if rng.random() < 0.1:
            kwargs["tags"] = [f"t{i}" for i in range(rng.choice((1_000, 5_000)))]
        else:
            kwargs["tags"] = [rng.choice(_JUNK + ("deploy", "oncall")) for _ in range(rng.randint(0, 6))]
    if rng.random() < 0.4:
        kwargs["entity"] = rng.choice(ENTITIES + _JUNK)
    if rng.random() < 0.4:
        kwargs["facets"] = [rng.choice(FACETS) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.3:
        kwargs["as_of"] = rng.choice(AS_OF)
    if rng.random() < 0.3:
        kwargs["para"] = rng.choice(PARAS)
    if rng.random() < 0.3:
        kwargs["include_archived"] = rng.choice((True, False, "yes", 0, 1))
    return kwargs


@dataclass
class QueryOutcome:
    op: str
    ok: bool
    refused: bool = False  # Scope.build said no with a ValueError (a message, at the door)
    error: str = ""


def json_roundtrip(payload: Any) -> None:
    """Valid JSON a client can read: serialises, encodes as strict UTF-8, parses back equal."""
    text = json.dumps(payload, ensure_ascii=False)
    data = text.encode("utf-8")  # strict: a lone surrogate cannot be written to a pipe
    assert json.loads(data.decode("utf-8")) == json.loads(text)


def run_query_case(store, query: str, scope_kwargs: dict[str, Any], *, cursor: str | None = None) -> list[QueryOutcome]:
    """search, recall and list with one hostile input; each either works or is refused at Scope.build."""
    from memhtml_desktop.domain.types import Scope

    try:
        scope = Scope.build(**scope_kwargs)
    except ValueError as exc:
        return [QueryOutcome("scope", True, refused=True, error=str(exc))]
    outcomes = []
    for op in ("search", "recall", "list"):
        try:
            if op == "search":
                value = store.search(query, scope, limit=10)
                assert len(value.hits) <= 10
            elif op == "recall":
                value = store.recall(query, scope, limit=10)
            else:
                value = store.list(scope, limit=20, cursor=cursor)
            json_roundtrip(value.to_json())
            outcomes.append(QueryOutcome(op, True))
        except Exception as exc:  # noqa: BLE001 - the point is to catch everything
            outcomes.append(QueryOutcome(op, False, error=f"{type(exc).__name__}: {str(exc)[:200]}"))
    return outcomes
