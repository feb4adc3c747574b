"""kill -9 trials against the CLI indexer (item 3): a store, its index, seeded state rows, and the checks.

Used by tests/hardening/test_crash_safety.py (4 trials) and bench/reliability_bench.py (20).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw
from hardening_support import PYTHON, child_env, read_state, run_cli, wait_until
from index_invariants import failed_paths, index_problems, path_hashes


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
    missed: list[float] = field(default_factory=list)  # earlier delays that fell after the run had ended

    @property
    def ok(self) -> bool:
        return not (
            self.problems_after_kill
            or self.notices
            or self.problems_after_finish
            or not self.equal_to_rebuild
            or self.state_problems
        )

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
        self.count = count
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
        # Calibration: how long an uninterrupted warm run takes, so warm kills land inside one.
        self.mutate()
        self.warm_seconds = self._index_in_process(self.index, rebuild=False)
        self._reference = None

    # -- setup --------------------------------------------------------------------------------

    def _store(self, index: Path):
        from memhtml_desktop.index.store import Store

        return Store(self.root, index_path=index)

    def _index_in_process(self, index: Path, *, rebuild: bool) -> float:
        started = time.perf_counter()
        proc = run_cli(
            ["index", "--store", str(self.root), "--index", str(index)] + (["--rebuild"] if rebuild else []),
            timeout=600,
        )
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

    #: Each kind of change a warm trial makes, for 3,000 memories (the bench's store); a smaller store
    #: gets as large a share of each.
    CHANGES = {"moves": 400, "edits": 700, "deletes": 60, "adds": 60, "twins": 30}

    def mutate(self) -> None:
        """Change the tree the way agents and `git mv` do; every name a seeded file had is remembered."""
        share = {kind: max(1, round(n * self.count / 3000)) for kind, n in self.CHANGES.items()}
        moves, edits, deletes, adds, twins = (share[k] for k in ("moves", "edits", "deletes", "adds", "twins"))
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
            target.write_bytes(
                target.read_bytes().replace(b"</article>", f"<p>Edited in trial {tag}.</p>\n</article>".encode(), 1)
            )
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
        # The window opens after interpreter start-up and closes at the end of an uninterrupted run
        # of the same kind (measured at set-up). A run's length moves with the machine's load, so a
        # delay can fall after the run has ended: that miss is recorded and the trial is tried again
        # with half the delay (the store changed again for a warm one), up to three times in all.
        seconds = self.warm_seconds if mode == "warm" else self.cold_seconds
        # the first third of the window is mostly interpreter start-up: kills land past it
        hi = max(0.5, seconds)
        lo, hi = delay_range or (0.25 + (hi - 0.25) / 3, hi)
        delay = self.rng.uniform(lo, hi)
        missed: list[float] = []
        for _attempt in range(3):
            running = self._run_and_kill(mode, delay)
            if running:
                break
            missed.append(round(delay, 3))
            delay = max(lo / 2, delay / 2)
        result = CrashTrial(number, mode, round(delay, 3), running, missed=missed)

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
            result.problems_after_finish.append(
                f"follow-up index exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}"
            )
        store = self._store(self.index)
        conn = store.reader()
        result.problems_after_finish += index_problems(conn, complete=True, space=space_of(store.embedder))
        got, got_failed = path_hashes(conn), failed_paths(conn)
        store.close_thread_connection()
        want, want_failed = self.reference()
        result.equal_to_rebuild = got == want and got_failed == want_failed
        if not result.equal_to_rebuild:
            result.difference = (
                f"missing {sorted(want - got)[:3]} extra {sorted(got - want)[:3]} "
                f"failed-diff {sorted(want_failed ^ got_failed)[:3]}"
            )
        result.state_problems += self._state_problems(before_follow_up=False)
        result.stranded_state_rows = self._stranded()
        return result

    def _run_and_kill(self, mode: str, delay: float) -> bool:
        """Start an index run of `mode`, SIGKILL its process group after `delay` s; was it still running?"""
        args = ["index", "--store", str(self.root), "--index", str(self.index)]
        if mode == "cold":
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.index) + suffix).unlink(missing_ok=True)
        elif mode == "rebuild":
            args.append("--rebuild")
        else:
            self.mutate()
        argv = [PYTHON, "-m", "memhtml_desktop", *args]
        child = subprocess.Popen(
            argv, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        time.sleep(delay)  # the deliberate random moment of the crash
        running = child.poll() is None
        try:
            os.killpg(child.pid, signal.SIGKILL)  # the run and its parse workers, as a power cut would
        except ProcessLookupError:
            pass
        child.wait(timeout=30)
        wait_until(lambda: not _group_alive(child.pid), timeout=10)
        return running

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
        return sum(
            1 for origin, names in self.names.items() if (self.root / names[-1]).exists() and names[-1] not in rows
        )


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
        "missed_delays_s": [d for t in trials for d in t.missed],
        "files_at_kill": [t.files_after_kill for t in trials],
        "failures": [t.to_json() for t in trials if not t.ok],
    }
