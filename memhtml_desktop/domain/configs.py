"""Configurations: a ranking profile with a name and a note, read from a what-if file line by line.

The workbench compares *configurations*. Two are named and read-only, the shipped profiles
(`memhtml`: what an agent on memhtml receives; `default`: this app's); what-if configurations are
JSON files saved in the store (`.memhtml-desktop/configs/NAME.json`, see `workbench/locations.py`),
the very format `--ranking FILE.json` reads (docs/ranking.md):

    {"base": "default", "name": "recency-light", "summary": "why", "arms": {"recency": 0.2}, "mmr_lambda": 0.7}

Only the knobs a file names differ from its base. Reading is strict about what it cannot run and
says where: an unknown knob, a value of the wrong type or out of range each raise `ConfigError`
naming the file and the line of the offending key (`LIMITS` are the ranges; beyond them a knob
stops meaning anything: an arm weight past 10 outvotes the other three arms at any rank).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from memhtml_desktop.domain import safe_json
from memhtml_desktop.domain.ranking import (
    DEFAULT,
    LEXICAL_CONFIDENCE_MAX,
    PROFILES,
    PerEmbedder,
    RankingProfile,
    profile_named,
)

LIMITS: dict[str, tuple[float, float]] = {
    "arms": (0.0, 10.0),
    "rrf_k": (1, 1000),
    "arm_window": (1, 500),
    "pool_factor": (1, 20),
    "mmr_lambda": (0.0, 1.0),
    "polarity_demotion": (0.01, 1.0),
    "twin_overlap": (0.0, 1.0),
    "twin_cosine": (0.0, 1.0),
    "polarity_cosine": (0.0, 1.0),
    "floor_cosine": (-1.0, 1.0),
    "lexical_share": (0.0, 1.0),
    "lexical_confidence": (0.0, LEXICAL_CONFIDENCE_MAX),
    "field_weights": (0.0, 10.0),
    "recall_budget": (0, 1_000_000),
    "arc_budget": (0, 1_000_000),
    "max_per_entity": (1, 1000),
}
"""Allowed range per knob, inclusive (arms: each weight; per-embedder knobs: each value)."""


class ConfigError(ValueError):
    """A configuration that cannot be run: names the file and line of the fault."""

    def __init__(self, detail: str, line: int = 0, source: str = "") -> None:
        where = (
            f"{source}:{line}: "
            if source and line
            else (f"{source}: " if source else (f"line {line}: " if line else ""))
        )
        super().__init__(where + detail)
        self.detail, self.line, self.source = detail, line, source


@dataclass(frozen=True)
class Configuration:
    """A profile to run, its name and note, and where it came from (`source` "": a shipped one)."""

    name: str
    profile: RankingProfile
    note: str = ""
    source: str = ""
    base: str = "default"
    knobs: Mapping[str, Any] = field(default_factory=dict)  # what the file sets, as written

    @property
    def read_only(self) -> bool:
        return not self.source

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "note": self.note,
            "source": self.source,
            "base": self.base,
            "profile": self.profile.to_json(),
        }


def shipped() -> list[Configuration]:
    """The named, read-only configurations: `memhtml` first (what the agent receives), then `default`."""
    return [Configuration(p.name, p, p.summary) for p in (PROFILES["memhtml"], PROFILES["default"])]


def _line_of(text: str, key: str, start: int = 0) -> tuple[int, int]:
    """(line, offset) of `"key":` at or after `start`; (0, start) when not found."""
    match = re.compile(r'"' + re.escape(key) + r'"\s*:').search(text, start)
    if match is None:
        return 0, start
    return text.count("\n", 0, match.start()) + 1, match.start()


def _check_range(key: str, value: Any, what: str) -> None:
    low, high = LIMITS.get(key, (None, None))
    if low is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    if not low <= value <= high:
        raise ValueError(f"{what} is {value!r}, out of range (allowed {low:g} to {high:g})")


def _validate(key: str, value: Any, base: RankingProfile, text: str, source: str, at: int) -> None:
    line, offset = _line_of(text, key, at)
    try:
        if key == "arms" and isinstance(value, Mapping):
            for arm, weight in value.items():
                arm_line, _ = _line_of(text, arm, offset)
                try:
                    RankingProfile.from_json({"arms": {arm: weight}}, base=base)
                    _check_range("arms", weight, f"the weight of arm '{arm}'")
                except ValueError as exc:
                    raise ConfigError(str(exc), arm_line or line, source) from None
        elif key in (
            "twin_cosine",
            "floor_cosine",
            "polarity_cosine",
            "lexical_share",
            "lexical_confidence",
            "field_weights",
        ):
            RankingProfile.from_json({key: value}, base=base)
            values = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else [value]
            for v in values:
                _check_range(key, v, key)
        else:
            RankingProfile.from_json({key: value}, base=base)
            _check_range(key, value, key)
    except ConfigError:
        raise
    except (ValueError, TypeError) as exc:
        raise ConfigError(str(exc), line, source) from None


def parse_configuration(text: str, *, source: str = "", name: str | None = None) -> Configuration:
    """A what-if file's configuration; ConfigError naming the file and line otherwise."""
    try:
        data = safe_json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not JSON ({exc.msg})", exc.lineno, source) from None
    if not isinstance(data, dict):
        raise ConfigError("a configuration is a JSON object of ranking knobs", 1, source)
    data = dict(data)
    base_name = data.pop("base", None)
    try:
        base = profile_named(base_name if isinstance(base_name, str) else None)
    except ValueError as exc:
        raise ConfigError(str(exc), _line_of(text, "base")[0], source) from None
    if base_name is not None and not isinstance(base_name, str):
        raise ConfigError(
            "'base' must be the name of a shipped profile (memhtml or default)", _line_of(text, "base")[0], source
        )
    known = {f.name for f in fields(RankingProfile)}
    for key in data:
        if key not in known:
            line = _line_of(text, key)[0]
            hint = "; known knobs: " + ", ".join(sorted(known - {"name", "summary"}))
            raise ConfigError(f"unknown configuration key '{key}'{hint}", line, source)
    for key, value in data.items():
        _validate(key, value, base, text, source, 0)
    profile = RankingProfile.from_json(data, base=base)
    title = name or str(data.get("name") or "") or profile.name
    if title in PROFILES and not data.get("name"):
        title = f"{title} (what-if)"
    knobs = {k: v for k, v in data.items() if k not in ("name", "summary")}
    return Configuration(
        title, replace(profile, name=title), str(data.get("summary") or ""), source or "(text)", base.name, knobs
    )


def differences(profile: RankingProfile, base: RankingProfile) -> dict[str, Any]:
    """The knobs of `profile` that differ from `base`, as `to_json` writes them (arms: only the
    weights that differ; per-embedder values: the whole table)."""
    a, b = profile.to_json(), base.to_json()
    out: dict[str, Any] = {}
    for key, value in a.items():
        if key in ("name", "summary") or value == b.get(key):
            continue
        if key == "arms":
            out[key] = {arm: w for arm, w in value.items() if b["arms"].get(arm) != w}
        else:
            out[key] = value
    return out


def configuration_text(
    profile: RankingProfile, *, base: RankingProfile = DEFAULT, note: str = "", name: str | None = None
) -> str:
    """The file a what-if configuration is saved as: its base, name, note and the knobs that differ."""
    data: dict[str, Any] = {"base": base.name, "name": name or profile.name}
    if note:
        data["summary"] = note
    data.update(differences(profile, base))
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def with_floor(profile: RankingProfile, model_id: str | None, floor: float) -> RankingProfile:
    """The profile with the relevance floor for one embedder set (the floor calibration saves this);
    `model_id` None sets the fallback for every embedder not listed."""
    values = dict(profile.floor_cosine.values)
    if model_id is None or model_id == "*":
        return replace(profile, floor_cosine=PerEmbedder(tuple(values.items()), float(floor)))
    values[model_id] = float(floor)
    return replace(profile, floor_cosine=PerEmbedder(tuple(values.items()), profile.floor_cosine.default))
