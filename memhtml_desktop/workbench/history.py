"""The run history: every run recorded, the trend, and which probe broke between which commits.

Where: the app's data directory, one folder per store (`locations.store_data_dir`), never the store
and never the cache. A run is a measurement: a commit per run would flood the user's history with
figures nobody curates, and two people running the same set would conflict on it; the cache holds
the index, which is disposable, and deleting it must not lose the trend. The run names the
store's commit it measured (`head`), so "which store change broke this probe" is read from two
runs' heads, and a history copied to another machine still means the same thing.

Layout: `runs/<id>.json`, each run whole (its configuration, figures and every probe's verdict),
written atomically; `runs.jsonl`, one summary line a run, appended, so listing a history of
hundreds of runs reads one small file. A summary line that does not parse (a torn append) is
skipped; the run's own file still has it, and `rebuild()` rewrites the summary from the files.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from memhtml_desktop.atomic import write_atomically
from memhtml_desktop.domain.judging import RunFigures
from memhtml_desktop.workbench.runs import Run


@dataclass(frozen=True)
class RunSummary:
    """One history line: what ran, on what, at which commit, with which figures."""

    id: str
    started: str
    set_name: str
    config_name: str
    head: str | None
    embedder: str | None
    figures: RunFigures

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started": self.started,
            "set": self.set_name,
            "config": self.config_name,
            "head": self.head,
            "embedder": self.embedder,
            "figures": self.figures.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RunSummary":
        return cls(
            str(data["id"]),
            str(data.get("started", "")),
            str(data.get("set", "")),
            str(data.get("config", "")),
            data.get("head"),
            data.get("embedder"),
            RunFigures.from_json(data["figures"]),
        )

    @classmethod
    def of(cls, run: Run) -> "RunSummary":
        return cls(run.id, run.started, run.set_name, run.config_name, run.head, run.embedder, run.figures)


@dataclass(frozen=True)
class ProbeChange:
    """One probe between two runs. `status`: `broke` (passed, now fails), `fixed`, `moved` (same
    verdict, another rank), `added` / `removed` (in one run only)."""

    key: str
    query: str
    target: str
    status: str
    rank_before: int | None
    rank_after: int | None
    passed_before: bool | None
    passed_after: bool | None
    lost_by: str = ""

    @property
    def delta(self) -> int | None:
        """Positions gained (positive: the target rose). None when either side has no rank."""
        if self.rank_before is None or self.rank_after is None:
            return None
        return self.rank_before - self.rank_after

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "query": self.query,
            "target": self.target,
            "status": self.status,
            "rank_before": self.rank_before,
            "rank_after": self.rank_after,
            "delta": self.delta,
            "passed_before": self.passed_before,
            "passed_after": self.passed_after,
            "lost_by": self.lost_by,
        }


@dataclass(frozen=True)
class RunDiff:
    """Two runs probe by probe: what changed, between which commits and configurations."""

    before: RunSummary
    after: RunSummary
    changes: tuple[ProbeChange, ...]

    @property
    def broke(self) -> tuple[ProbeChange, ...]:
        return tuple(c for c in self.changes if c.status == "broke")

    @property
    def fixed(self) -> tuple[ProbeChange, ...]:
        return tuple(c for c in self.changes if c.status == "fixed")

    def describe(self) -> list[str]:
        """One line a change: "broke between abc123 and def456: 'query' (rank 1 -> 7, lost by vector)"."""
        a, b = (self.before.head or "?")[:12], (self.after.head or "?")[:12]
        out = []
        for c in self.changes:
            ranks = f"rank {c.rank_before or '-'} -> {c.rank_after or '-'}"
            why = f", lost by {c.lost_by}" if c.lost_by and c.status == "broke" else ""
            out.append(f"{c.status} between {a} and {b}: {c.query!r} ({ranks}{why})")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "changes": [c.to_json() for c in self.changes],
        }


def diff_runs(before: Run, after: Run) -> RunDiff:
    """Every probe whose verdict or rank differs between `before` and `after` (matched by key)."""
    a = {v.key: v for v in before.verdicts}
    b = {v.key: v for v in after.verdicts}
    changes: list[ProbeChange] = []
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = a.get(key), b.get(key)
        if x is not None and y is not None:
            if x.passed and not y.passed:
                status = "broke"
            elif not x.passed and y.passed:
                status = "fixed"
            elif x.rank != y.rank:
                status = "moved"
            else:
                continue
        else:
            status = "removed" if y is None else "added"
        v = y or x
        changes.append(
            ProbeChange(
                key,
                v.query,
                v.target,
                status,
                x.rank if x else None,
                y.rank if y else None,
                x.passed if x else None,
                y.passed if y else None,
                (y.lost_by if y else ""),
            )
        )
    order = {"broke": 0, "fixed": 1, "moved": 2, "added": 3, "removed": 4}
    changes.sort(key=lambda c: (order[c.status], -(abs(c.delta or 0)), c.query))
    return RunDiff(RunSummary.of(before), RunSummary.of(after), tuple(changes))


class RunHistory:
    """The runs of one store (`directory`: `store_data_dir(root)`). Thread-safe enough for one
    writer per process: a run file is written whole before its summary line is appended."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.runs_dir = self.directory / "runs"
        self.index = self.directory / "runs.jsonl"

    def record(self, run: Run) -> Path:
        """Keep `run`; returns its file."""
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        target = write_atomically(
            self.runs_dir / f"{run.id}.json", (chunk.encode("utf-8") for chunk in run.json_chunks())
        )  # a verdict at a time
        line = json.dumps(RunSummary.of(run).to_json(), ensure_ascii=False) + "\n"
        fd = os.open(self.index, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        return target

    def list(self, *, set_name: str | None = None, config_name: str | None = None) -> list[RunSummary]:
        """The recorded runs, oldest first, optionally of one set and/or configuration."""
        try:
            text = self.index.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # none yet, or a data directory that cannot be read
            return []
        out: list[RunSummary] = []
        seen: set[str] = set()
        for line in text.splitlines():
            try:
                summary = RunSummary.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError):
                continue
            if summary.id in seen:
                continue
            seen.add(summary.id)
            if set_name is not None and summary.set_name != set_name:
                continue
            if config_name is not None and summary.config_name != config_name:
                continue
            out.append(summary)
        out.sort(key=lambda s: s.started)  # stable: runs of one instant stay in the order recorded
        return out

    def load(self, run_id: str) -> Run:
        """A recorded run in full; KeyError when there is none by that id."""
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise KeyError(run_id)
        try:
            return Run.from_json(json.loads((self.runs_dir / f"{run_id}.json").read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise KeyError(run_id) from None

    def latest(self, *, set_name: str | None = None, config_name: str | None = None) -> Run | None:
        runs = self.list(set_name=set_name, config_name=config_name)
        return self.load(runs[-1].id) if runs else None

    def diff(self, before_id: str, after_id: str) -> RunDiff:
        return diff_runs(self.load(before_id), self.load(after_id))

    def rebuild(self) -> int:
        """Rewrite `runs.jsonl` from the run files (after a torn append); returns the count."""
        summaries = []
        for file in sorted(self.runs_dir.glob("*.json")):
            try:
                summaries.append(RunSummary.of(Run.from_json(json.loads(file.read_text(encoding="utf-8")))))
            except (ValueError, KeyError, TypeError, OSError):
                continue
        summaries.sort(key=lambda s: (s.started, s.id))
        text = "".join(json.dumps(s.to_json(), ensure_ascii=False) + "\n" for s in summaries)
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomically(self.index, text.encode("utf-8"))
        return len(summaries)
