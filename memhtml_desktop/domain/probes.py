"""Ranking probes as data: the JSON-lines probe file `eval` reads and `gen_store` writes.

One probe a line:

    {"query": "...", "target": "store/path.html", "controls": ["...", ...], "scope": {...}}

`controls` may be empty (a known-item probe: only the corpus rank means anything). `scope` is
optional, with `Scope.build`'s keys (`memory_types`, `workspace`, `tags`, `entity`, `facets`,
`include_archived`, `as_of`). Other keys (`kind`, `families`, as `gen_store` writes them) label
the probe. Blank lines and lines starting with `#` are skipped. Parsing is pure (text in, probes
out); reading the file is the caller's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from memhtml_desktop.domain.types import Scope

SCOPE_KEYS = ("memory_types", "workspace", "tags", "entity", "facets", "include_archived", "as_of")


class ProbeFileError(ValueError):
    """A probe file that cannot be read: the message names the line and what is wrong."""


@dataclass(frozen=True)
class EvalProbe:
    query: str
    target: str
    controls: tuple[str, ...] = ()
    scope: Scope | None = None
    kind: str = ""
    families: tuple[str, ...] = ()


def parse_probe(line: str, number: int = 1) -> EvalProbe:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ProbeFileError(f"line {number}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ProbeFileError(f"line {number}: a probe is a JSON object")
    query, target, controls = data.get("query"), data.get("target"), data.get("controls", [])
    if not isinstance(query, str):
        raise ProbeFileError(f"line {number}: 'query' must be a string")
    if not isinstance(target, str) or not target.strip():
        raise ProbeFileError(f"line {number}: 'target' must be a store path")
    if not isinstance(controls, list) or not all(isinstance(c, str) for c in controls):
        raise ProbeFileError(f"line {number}: 'controls' must be a list of store paths")
    scope = None
    if data.get("scope") is not None:
        raw = data["scope"]
        if not isinstance(raw, dict) or set(raw) - set(SCOPE_KEYS):
            raise ProbeFileError(f"line {number}: 'scope' takes only {', '.join(SCOPE_KEYS)}")
        try:
            scope = Scope.build(**raw)
        except (TypeError, ValueError) as exc:
            raise ProbeFileError(f"line {number}: bad scope ({exc})") from None
    families = data.get("families") or ()
    return EvalProbe(
        query=query, target=target.lstrip("/"), controls=tuple(c.lstrip("/") for c in controls), scope=scope,
        kind=str(data.get("kind") or ""), families=tuple(str(f) for f in families) if isinstance(families, list) else (),
    )


def parse_probes(text: str) -> list[EvalProbe]:
    """Every probe in a JSON-lines text. A JSON array (the old gen_store format) is read too."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ProbeFileError(f"not a JSON array of probes ({exc.msg})") from None
        return [parse_probe(json.dumps(item), i) for i, item in enumerate(items, start=1)]
    probes = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            probes.append(parse_probe(line, number))
    return probes
