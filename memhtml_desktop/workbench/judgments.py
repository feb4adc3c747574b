"""Implicit judgments: a search followed by opening a memory, remembered locally, offered as probes.

Opt-in (the `implicit_judgments` setting, off by default) and local: the log lives in the app's
data directory for this store (`locations.store_data_dir`), never in the store, because what a
person searched for is theirs, not the team's. Each record is (query, memory path, the position
it was listed at, the scope, when). `candidates()` folds the log into pairs (query, memory) with
how often and how high; `accept` turns one into a probe (the caller commits it to a set with
`WorkbenchFiles.add_probe`), `discard` drops it. Decisions are appended as events, so the log is
one append-only JSON-lines file; a torn line is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from memhtml_desktop.domain.probes import EvalProbe, scope_to_json
from memhtml_desktop.domain.types import Scope

MAX_QUERY = 500


@dataclass(frozen=True)
class Judgment:
    """A candidate probe: `query` was followed by opening `path`, `count` times, best at `best_position`."""

    id: str
    query: str
    path: str
    count: int
    best_position: int
    last_seen: str
    scope: dict[str, Any]

    def to_probe(self, *, controls: Sequence[str] = (), note: str = "") -> EvalProbe:
        scope = Scope.build(**self.scope) if self.scope else None
        return EvalProbe(
            query=self.query,
            target=self.path,
            controls=tuple(controls),
            scope=scope,
            note=note or f"opened after this search {self.count}x (best at position {self.best_position})",
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "path": self.path,
            "count": self.count,
            "best_position": self.best_position,
            "last_seen": self.last_seen,
            "scope": self.scope,
        }


def judgment_id(query: str, path: str, scope: dict[str, Any]) -> str:
    text = "\0".join((" ".join(query.split()).lower(), path, json.dumps(scope, sort_keys=True)))
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class JudgmentLog:
    """The implicit-judgment log of one store (`directory`: `store_data_dir(root)`)."""

    def __init__(self, directory: str | os.PathLike[str], *, enabled: bool = False) -> None:
        self.directory = Path(directory)
        self.file = self.directory / "judgments.jsonl"
        self.enabled = enabled

    def _append(self, record: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False) + "\n"
        fd = os.open(self.file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)

    def record(self, query: str, path: str, position: int, scope: Scope | None = None) -> str | None:
        """Remember that `query`'s hit at 1-based `position`, `path`, was opened. Does nothing (None)
        while the setting is off, or for an empty query; returns the candidate's id otherwise."""
        query = " ".join(str(query).split())[:MAX_QUERY]
        if not self.enabled or not query or not path:
            return None
        scope_json = scope_to_json(scope)
        jid = judgment_id(query, path, scope_json)
        self._append(
            {
                "event": "opened",
                "id": jid,
                "query": query,
                "path": path,
                "position": int(position),
                "scope": scope_json,
                "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
        )
        return jid

    def _events(self) -> list[dict[str, Any]]:
        try:
            text = self.file.read_text(encoding="utf-8", errors="replace")
        except OSError:  # none yet, or a data directory that cannot be read
            return []
        out = []
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and isinstance(event.get("id"), str):
                out.append(event)
        return out

    def candidates(self) -> list[Judgment]:
        """Pairs not yet accepted or discarded, most often opened first."""
        folded: dict[str, dict[str, Any]] = {}
        decided: set[str] = set()
        for e in self._events():
            if e.get("event") in ("accepted", "discarded"):
                decided.add(e["id"])
                folded.pop(e["id"], None)
                continue
            if e.get("event") != "opened":
                continue
            if e["id"] in decided:
                decided.discard(e["id"])  # opened again after a decision: a fresh candidate
            f = folded.setdefault(
                e["id"],
                {
                    "query": e.get("query", ""),
                    "path": e.get("path", ""),
                    "count": 0,
                    "best": 10**6,
                    "last": "",
                    "scope": e.get("scope") or {},
                },
            )
            f["count"] += 1
            f["best"] = min(f["best"], int(e.get("position") or 10**6))
            f["last"] = max(f["last"], str(e.get("at", "")))
        out = [
            Judgment(jid, f["query"], f["path"], f["count"], f["best"], f["last"], f["scope"])
            for jid, f in folded.items()
            if jid not in decided
        ]
        out.sort(key=lambda j: (-j.count, j.best_position, j.query, j.path))
        return out

    def get(self, judgment_id_: str) -> Judgment:
        for j in self.candidates():
            if j.id == judgment_id_:
                return j
        raise KeyError(judgment_id_)

    def accept(self, judgment_id_: str, *, controls: Sequence[str] = (), note: str = "") -> EvalProbe:
        """The candidate as a probe, marked accepted (commit it with `WorkbenchFiles.add_probe`)."""
        probe = self.get(judgment_id_).to_probe(controls=controls, note=note)
        self._append({"event": "accepted", "id": judgment_id_})
        return probe

    def discard(self, judgment_id_: str) -> None:
        self.get(judgment_id_)
        self._append({"event": "discarded", "id": judgment_id_})

    def clear(self) -> None:
        """Forget everything (the setting's "clear" button)."""
        self.file.unlink(missing_ok=True)
