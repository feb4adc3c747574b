"""Ranking probes as data: the JSON-lines probe file `eval` reads, `gen_store` writes and the
relevance workbench keeps in the store (`.memhtml-desktop/probes/*.jsonl`).

One probe a line:

    {"query": "...", "target": "store/path.html", "controls": ["...", ...], "scope": {...}, "note": "..."}

- `target` is the memory that should come first; `targets` (a list) names several, any of which
  may (the first is the probe's primary target, the one its rank among the controls is about).
- `controls` may be empty (a known-item probe: only the rank in the list means anything); each
  control must rank below the target.
- `scope` is optional, with `Scope.build`'s keys (`memory_types`, `workspace`, `tags`, `entity`,
  `facets`, `include_archived`, `as_of`).
- `within` (default 1): the probe passes when a target is among the first `within` hits ("first",
  or "on the first page": 10) and no control ranks above it.
- `note` is the curator's why ("the runbook, not the incident"), free text.
- Other keys (`kind`, `families`, as `gen_store` writes them) label the probe; any other key is
  kept when the app rewrites the line, so a team's own annotations survive.

Blank lines and lines starting with `#` are skipped. `read_probe_set` is lenient: a bad line
becomes a `ProbeProblem` naming its line and the rest of the set still loads; `parse_probes`
(the old strict reader) raises on the first. Parsing is pure (text in, probes out); reading the
file is the caller's, who adds its name to the problems.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from memhtml_desktop.domain import safe_json
from memhtml_desktop.domain.types import Scope

SCOPE_KEYS = ("memory_types", "workspace", "tags", "entity", "facets", "include_archived", "as_of")
KNOWN_KEYS = frozenset({"query", "target", "targets", "controls", "scope", "note", "within", "kind", "families"})
MAX_QUERY_CHARS = 2000
MAX_WITHIN = 100


class ProbeFileError(ValueError):
    """A probe file that cannot be read: the message names the line and what is wrong."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.detail = message


@dataclass(frozen=True)
class EvalProbe:
    """One probe. `target` is the primary target; `targets` every accepted one (the primary first)."""

    query: str
    target: str
    controls: tuple[str, ...] = ()
    scope: Scope | None = None
    kind: str = ""
    families: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    note: str = ""
    within: int = 1
    line: int = 0
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        targets = tuple(dict.fromkeys((self.target, *self.targets)))
        object.__setattr__(self, "targets", targets)

    @property
    def key(self) -> str:
        """A stable id for history and comparisons: the query, the targets and the scope, hashed
        (line numbers move when a set is edited; what the probe asks does not)."""
        scope = json.dumps(scope_to_json(self.scope), sort_keys=True) if self.scope else ""
        text = "\0".join((self.query, *sorted(self.targets), scope))
        return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query}
        if len(self.targets) > 1:
            out["targets"] = list(self.targets)
        else:
            out["target"] = self.target
        out["controls"] = list(self.controls)
        if self.scope is not None:
            out["scope"] = scope_to_json(self.scope)
        if self.note:
            out["note"] = self.note
        if self.within != 1:
            out["within"] = self.within
        if self.kind:
            out["kind"] = self.kind
        if self.families:
            out["families"] = list(self.families)
        out.update(dict(self.extra))
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


@dataclass(frozen=True)
class ProbeProblem:
    """A line of a probe set that was left out, and why (`line` 0: the file as a whole)."""

    line: int
    message: str
    source: str = ""

    def __str__(self) -> str:
        where = f"{self.source}:" if self.source else ""
        return f"{where}{self.line}: {self.message}" if self.line else f"{where} {self.message}".strip()

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class ProbeSet:
    """A probe file as read: its probes and the lines that could not be used."""

    name: str
    probes: tuple[EvalProbe, ...]
    problems: tuple[ProbeProblem, ...] = ()
    source: str = ""  # the file it came from, as problems name it


def scope_to_json(scope: Scope | None) -> dict[str, Any]:
    """The keys of `Scope.build` that differ from an empty scope (what a probe line stores)."""
    if scope is None:
        return {}
    out: dict[str, Any] = {}
    if scope.memory_types:
        out["memory_types"] = list(scope.memory_types)
    if scope.workspace:
        out["workspace"] = scope.workspace
    if scope.tags:
        out["tags"] = list(scope.tags)
    if scope.entity:
        out["entity"] = scope.entity
    if scope.facets:
        out["facets"] = [f"{n}={v}" for n, v in scope.facets]
    if scope.include_archived:
        out["include_archived"] = True
    if scope.as_of:
        out["as_of"] = scope.as_of
    return out


def _paths(value: Any, what: str, number: int) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        raise ProbeFileError(f"'{what}' must be a list of store paths", number)
    return tuple(dict.fromkeys(c.strip().lstrip("/") for c in value))


def parse_probe(line: str, number: int = 1) -> EvalProbe:
    """One probe line; ProbeFileError naming the line and the fault otherwise."""
    try:
        data = safe_json.loads(line)
    except json.JSONDecodeError as exc:
        raise ProbeFileError(f"not JSON ({exc.msg}); a probe is one JSON object a line", number) from None
    if not isinstance(data, dict):
        raise ProbeFileError("a probe is a JSON object", number)
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ProbeFileError("'query' must be a non-empty string", number)
    if len(query) > MAX_QUERY_CHARS:
        raise ProbeFileError(f"'query' is longer than {MAX_QUERY_CHARS} characters", number)
    target, targets = data.get("target"), data.get("targets")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise ProbeFileError("'target' must be a store path", number)
    many = _paths(targets, "targets", number) if targets is not None else ()
    if target is None and not many:
        raise ProbeFileError("a probe needs a 'target' (or 'targets'): the memory that should come first", number)
    primary = target.strip().lstrip("/") if isinstance(target, str) else many[0]
    controls = _paths(data.get("controls", []), "controls", number)
    overlap = sorted(set(controls) & {primary, *many})
    if overlap:
        raise ProbeFileError(f"{overlap[0]} is both a target and a control", number)
    scope = None
    if data.get("scope") is not None:
        raw = data["scope"]
        if not isinstance(raw, dict) or set(raw) - set(SCOPE_KEYS):
            raise ProbeFileError(f"'scope' takes only {', '.join(SCOPE_KEYS)}", number)
        try:
            scope = Scope.build(**raw)
        except (TypeError, ValueError) as exc:
            raise ProbeFileError(f"bad scope ({exc})", number) from None
    note = data.get("note", "")
    if not isinstance(note, str):
        raise ProbeFileError("'note' must be a string", number)
    within = data.get("within", 1)
    if isinstance(within, bool) or not isinstance(within, int) or not 1 <= within <= MAX_WITHIN:
        raise ProbeFileError(f"'within' must be a whole number from 1 to {MAX_WITHIN}, got {within!r}", number)
    families = data.get("families") or ()
    extra = tuple((k, v) for k, v in data.items() if k not in KNOWN_KEYS)
    return EvalProbe(
        query=query,
        target=primary,
        controls=controls,
        scope=scope,
        kind=str(data.get("kind") or ""),
        families=tuple(str(f) for f in families) if isinstance(families, list) else (),
        targets=many,
        note=note,
        within=within,
        line=number,
        extra=extra,
    )


def read_probe_set(text: str, name: str = "") -> ProbeSet:
    """Every usable probe of a JSON-lines text, and a `ProbeProblem` for each line that is not.

    A JSON array (the old gen_store format) is read too. Two lines asking the same thing (same
    query, targets and scope) keep the first and name the second.
    """
    probes: list[EvalProbe] = []
    problems: list[ProbeProblem] = []
    stripped = text.lstrip("\ufeff").lstrip()
    if stripped.startswith("["):
        try:
            items = safe_json.loads(stripped)
        except json.JSONDecodeError as exc:
            return ProbeSet(
                name, (), (ProbeProblem(exc.lineno, f"not a JSON array of probes ({exc.msg})", name),), name
            )
        lines = [(i, json.dumps(item)) for i, item in enumerate(items if isinstance(items, list) else [], start=1)]
    else:
        lines = [
            (n, line)
            for n, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
    seen: dict[str, int] = {}
    for number, line in lines:
        try:
            probe = parse_probe(line, number)
        except ProbeFileError as exc:
            problems.append(ProbeProblem(number, exc.detail, name))
            continue
        if probe.key in seen:
            problems.append(ProbeProblem(number, f"the same probe as line {seen[probe.key]} (left out)", name))
            continue
        seen[probe.key] = number
        probes.append(probe)
    return ProbeSet(name, tuple(probes), tuple(problems), name)


def read_probe_bytes(raw: bytes, name: str = "") -> ProbeSet:
    """`read_probe_set` over a file's bytes: a line that is not UTF-8 is a problem naming it, and the
    other lines still load (the whole set used to be refused for one bad byte)."""
    try:
        return read_probe_set(raw.decode("utf-8"), name)
    except UnicodeDecodeError:
        pass
    lines: list[str] = []
    problems: list[ProbeProblem] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(ProbeProblem(number, f"not UTF-8 text (byte {exc.start + 1} of the line); left out", name))
            lines.append("")  # keeps the numbers of the lines after it
    parsed = read_probe_set("\n".join(lines), name)
    merged = tuple(sorted((*problems, *parsed.problems), key=lambda p: p.line))
    return ProbeSet(parsed.name, parsed.probes, merged, name)


def parse_probes(text: str) -> list[EvalProbe]:
    """Every probe in a JSON-lines text; ProbeFileError on the first bad line (strict)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = safe_json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ProbeFileError(f"not a JSON array of probes ({exc.msg})") from None
        return [parse_probe(json.dumps(item), i) for i, item in enumerate(items, start=1)]
    probes = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            probes.append(parse_probe(line, number))
    return probes


def format_probe_set(probes: list[EvalProbe] | tuple[EvalProbe, ...], header: str = "") -> str:
    """A set as the file the app writes: an optional `#` header, then one line a probe."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()] if header else []
    lines += [p.to_line() for p in probes]
    return "".join(line + "\n" for line in lines)
