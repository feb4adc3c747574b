"""Four quota ledgers (seed 003, 6.5, table 6-2): the budget split into accounts that never lend.

| ledger       | share | holds                                        | cut first on overrun          |
| ------------ | ----- | -------------------------------------------- | ----------------------------- |
| `profile`    | 30%   | stable identity, preferences, constraints    | not cut (degrades, stays)     |
| `task`       | 35%   | this query's hits                            | by marginal value (rank)      |
| `experience` | 20%   | reusable methods, negative memories          | lowest applicability (rank)   |
| `pending`    | 15%   | to be confirmed, to be followed up           | keep only the most recent     |

The point of separate accounts: without them the hits of one long session squeeze the pending
items out of the pack, which are what most needs raising next time. The price is deliberate:
budget a short ledger does not spend stays unspent (reported as such) and is never moved to
another, so every pack has the same structure.

Which memory goes to which ledger is data (`LedgerMap`): rules over a memory's type, task status,
needs-revision flag, entity types, tags and path, first match wins, the rest to `otherwise`. A
curator changes it as they change a ranking profile, with a JSON file (`parse_ledger_map`; the
store's `.memhtml-desktop/ledgers.json` when it has one). What a ledger does with its memories is
the seed's and fixed (`LEDGERS`): the resident ledgers (profile, pending) hold their memories
whatever the query asks, the other two hold the query's candidates; inside every ledger the
three-level degradation of the recall fold applies (quote, claim alone, index line: never a cut
sentence), with the ledger's own order and cut rule.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from memhtml_desktop.domain.disclosure import (
    _PREAMBLE,
    FoldCandidate,
    _attr,
    _render_item,
    fold,
    smallest_capsule,
    utf16_len,
)
from memhtml_desktop.domain.paths import MEMORY_TYPES
from memhtml_desktop.domain.types import RecallSection, Scope

TASK_STATUSES = ("todo", "doing", "blocked", "done")
STORE_FILE = ".memhtml-desktop/ledgers.json"
"""Where a store keeps its curator's map, beside the workbench's probes and configurations (committed
with the store, so the team shares it; docs/recall.md)."""

# What a map may hold. A curator's map has a handful of rules; these bounds are far above any real
# one and keep a map within what reading it and the resident ledgers' SQL can take: SQLite joins at
# most 500 SELECTs in one compound (each rule, and each path prefix, is one of the drivers' UNION),
# and binds at most 32,766 values (each value is bound twice: in the CASE and in a driver).
MAX_FILE_BYTES = 1024 * 1024  # a map is read whole: a 100 MB file is refused before it is read
MAX_RULES = 100
MAX_PREFIXES = 300  # path prefixes in all the rules together
MAX_VALUES = 1000  # values in one rule's list
MAX_ALL_VALUES = 5000  # values in all the rules together
MAX_NAME = 100  # characters of the map's name (it is shown in headers)
MAX_TEXT = 500  # characters of a rule's why, or of one value


@dataclass(frozen=True)
class LedgerSpec:
    """What one ledger is, as the seed defines it (not a curator's knob)."""

    name: str
    label: str
    holds: str
    resident: bool  # True: its memories whatever the query; False: the query's candidates
    order: str  # "stability", "rank" or "recency"
    cut: str  # the fold's cut: "skip" or "prefix"
    entity_cap: bool  # the profile's quotes-per-entity cap applies (query ledgers only)
    cut_rule: str


LEDGERS: tuple[LedgerSpec, ...] = (
    LedgerSpec(
        "profile",
        "Resident profile",
        "stable identity, preferences, constraints",
        True,
        "stability",
        "skip",
        False,
        "not cut: every profile memory stays, at worst as its index line (an overrun is said)",
    ),
    LedgerSpec(
        "task",
        "Task-relevant",
        "this query's hits",
        False,
        "rank",
        "skip",
        True,
        "by marginal value: the lowest-ranked lose their text first",
    ),
    LedgerSpec(
        "experience",
        "Experience and taboos",
        "reusable methods, negative memories",
        False,
        "rank",
        "skip",
        True,
        "by lowest applicability: ranked by the query, the least applicable lose their text first",
    ),
    LedgerSpec(
        "pending",
        "Pending items",
        "to be confirmed, to be followed up",
        True,
        "recency",
        "prefix",
        False,
        "keep only the most recent: after the first that does not fit, older ones are index lines",
    ),
)
LEDGER_NAMES = tuple(spec.name for spec in LEDGERS)
SPECS = {spec.name: spec for spec in LEDGERS}


@dataclass(frozen=True)
class MemoryFacts:
    """What the rules look at."""

    path: str
    memory_type: str
    task_status: str | None = None
    needs_revision: bool = False
    entity_types: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Rule:
    """Memories that meet every condition given go to `ledger` (values in one list are any-of)."""

    ledger: str
    types: tuple[str, ...] = ()
    task_status: tuple[str, ...] = ()
    needs_revision: bool | None = None
    entity_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    path_prefixes: tuple[str, ...] = ()
    why: str = ""

    def matches(self, m: MemoryFacts) -> bool:
        return (
            (not self.types or m.memory_type in self.types)
            and (not self.task_status or m.task_status in self.task_status)
            and (self.needs_revision is None or m.needs_revision == self.needs_revision)
            and (not self.entity_types or bool(m.entity_types.intersection(self.entity_types)))
            and (not self.tags or bool(m.tags.intersection(self.tags)))
            and (not self.path_prefixes or any(m.path.startswith(p) for p in self.path_prefixes))
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ledger": self.ledger}
        for key in ("types", "task_status", "entity_types", "tags", "path_prefixes"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        if self.needs_revision is not None:
            out["needs_revision"] = self.needs_revision
        if self.why:
            out["why"] = self.why
        return out


RULE_LISTS = ("types", "task_status", "entity_types", "tags", "path_prefixes")


@dataclass(frozen=True)
class LedgerMap:
    """The shares (whole percents, at most 100 in all) and the rules that place memories."""

    name: str = "seed-003"
    shares: tuple[tuple[str, int], ...] = (("profile", 30), ("task", 35), ("experience", 20), ("pending", 15))
    rules: tuple[Rule, ...] = ()
    otherwise: str = "task"
    window: int = 10  # resident memories listed per resident ledger (the rest are counted, `beyond`)
    source: str = ""  # the file it came from; "" for the shipped map
    # Why this map is used instead of the one a store's file asks for (that file could not be used:
    # the seed's map stands in, and this says so wherever the map is named). Not part of the map.
    note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        shares = dict(self.shares)
        if set(shares) != set(LEDGER_NAMES):
            raise ValueError(f"shares: give exactly {', '.join(LEDGER_NAMES)}")
        for name, share in shares.items():
            if isinstance(share, bool) or not isinstance(share, int) or not 0 <= share <= 100:
                raise ValueError(f"shares.{name}: a whole percent from 0 to 100, got {share!r}")
        if sum(shares.values()) > 100:
            raise ValueError(f"shares add up to {sum(shares.values())}%, more than the whole budget")
        object.__setattr__(self, "shares", tuple((n, shares[n]) for n in LEDGER_NAMES))
        if self.otherwise not in LEDGER_NAMES:
            raise ValueError(f"otherwise: one of {', '.join(LEDGER_NAMES)}, got {self.otherwise!r}")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or not 1 <= self.window <= 500:
            raise ValueError(f"window: a whole number from 1 to 500, got {self.window!r}")
        for rule in self.rules:
            if rule.ledger not in LEDGER_NAMES:
                raise ValueError(f"rule ledger: one of {', '.join(LEDGER_NAMES)}, got {rule.ledger!r}")

    def share(self, ledger: str) -> int:
        return dict(self.shares)[ledger]

    def ledger_of(self, m: MemoryFacts) -> str:
        for rule in self.rules:
            if rule.matches(m):
                return rule.ledger
        return self.otherwise

    def limits(self, budget: int) -> tuple[dict[str, int], int]:
        """Each ledger's limit (its share of `budget`, rounded down) and what no ledger holds: the
        rounding remainder and any share under 100%. Nothing moves it into a ledger."""
        budget = max(0, int(budget))
        limits = {name: budget * share // 100 for name, share in self.shares}
        return limits, budget - sum(limits.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "shares": dict(self.shares),
            "rules": [r.to_json() for r in self.rules],
            "otherwise": self.otherwise,
            "window": self.window,
        }


SEED_RULES = (
    Rule(
        "pending",
        types=("task",),
        task_status=("todo", "doing", "blocked"),
        why="an open task is to be followed up: what most needs raising next conversation",
    ),
    Rule("pending", needs_revision=True, why="a memory flagged for revision is to be confirmed before it is relied on"),
    Rule("profile", types=("user_preference",), why="a preference is stable and about the person the agent serves"),
    Rule(
        "profile",
        path_prefixes=("resources/people/",),
        why="a person record is identity: who someone is, what they own",
    ),
    Rule(
        "experience",
        types=("procedural", "error_pattern", "precedent", "verdict", "agent_insight"),
        why="methods, failures and judgements are reused across tasks: experience and taboos",
    ),
)
"""The shipped mapping (docs/recall.md gives the reasons). Everything else (episodic, semantic, arc,
a done task) is a task-relevant candidate of this query."""

SEED = LedgerMap(rules=SEED_RULES)


# -- reading a map from JSON --------------------------------------------------------------------


class LedgerMapError(ValueError):
    """A ledger map that cannot be used: names the file and line of the fault."""

    def __init__(self, detail: str, line: int = 0, source: str = "") -> None:
        where = f"{source}:{line}: " if source and line else (f"{source}: " if source else "")
        super().__init__(where + detail)
        self.detail, self.line, self.source = detail, line, source


class _Fault(ValueError):
    """A fault and where it is: a path of keys and list positions (`("rules", 2, "types")`)."""

    def __init__(self, detail: str, *where: str | int) -> None:
        super().__init__(detail)
        self.where = where


def _element(text: str, pos: int, n: int) -> int:
    """The offset of the `n`-th element of the first JSON array at or after `pos`."""
    start = text.find("[", pos)
    if start < 0:
        return pos
    depth, count, i, in_string = 0, 0, start, False
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                break
        elif ch == "," and depth == 1:
            count += 1
        if depth == 1 and count == n and not ch.isspace() and ch not in "[,":
            return i
        i += 1
    return start


def _line_of(text: str, where: tuple[str | int, ...]) -> int:
    """The line of the value at `where`; 0 when the text does not show it."""
    pos, found = 0, False
    for part in where:
        if isinstance(part, int):
            pos = _element(text, pos, part)
            continue
        match = re.compile(r'"' + re.escape(part) + r'"\s*:').search(text, pos)
        if match is None:
            break
        pos, found = match.start(), True
    return text.count("\n", 0, pos) + 1 if found else 0


def _shown(value: Any, limit: int = 40) -> str:
    """A value from the file, as a message may echo it: its repr, clipped."""
    text = repr(value) if not isinstance(value, str) else repr(value[: limit + 1])
    return text if len(text) <= limit + 2 else text[:limit] + "…"


def _strings(value: Any, what: str, *where: str | int) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _Fault(f"{what}: a list of non-empty strings", *where)
    if len(value) > MAX_VALUES:
        raise _Fault(f"{what}: at most {MAX_VALUES:,} values (got {len(value):,})", *where)
    long = next((v for v in value if len(v) > MAX_TEXT), None)
    if long is not None:
        raise _Fault(f"{what}: a value of {len(long):,} characters; at most {MAX_TEXT:,}", *where)
    return tuple(dict.fromkeys(value))


def _rule(data: Any, index: int) -> Rule:
    what, at = f"rules[{index}]", ("rules", index)
    if not isinstance(data, Mapping):
        raise _Fault(f"{what}: an object with a ledger and conditions", *at)
    known = {"ledger", "why", "needs_revision", *RULE_LISTS}
    unknown = sorted(set(data) - known)
    if unknown:
        raise _Fault(f"{what}: unknown key(s) {_keys(unknown)}; known: {', '.join(sorted(known))}", *at, unknown[0])
    ledger = data.get("ledger")
    if ledger not in LEDGER_NAMES:
        raise _Fault(f"{what}.ledger: one of {', '.join(LEDGER_NAMES)}, got {_shown(ledger)}", *at, "ledger")
    lists = {key: _strings(data[key], f"{what}.{key}", *at, key) for key in RULE_LISTS if key in data}
    bad = [t for t in lists.get("types", ()) if t not in MEMORY_TYPES]
    if bad:
        raise _Fault(f"{what}.types: not a memhtml type: {_keys(bad)}", *at, "types")
    bad = [t for t in lists.get("task_status", ()) if t not in TASK_STATUSES]
    if bad:
        raise _Fault(f"{what}.task_status: not a task status: {_keys(bad)}", *at, "task_status")
    revision = data.get("needs_revision")
    if revision is not None and not isinstance(revision, bool):
        raise _Fault(f"{what}.needs_revision: true or false", *at, "needs_revision")
    if not lists and revision is None:
        raise _Fault(f"{what}: a rule with no condition would take every memory; use 'otherwise'", *at)
    why = data.get("why") or ""
    if not isinstance(why, str) or len(why) > MAX_TEXT:
        raise _Fault(f"{what}.why: a sentence of at most {MAX_TEXT:,} characters", *at, "why")
    return Rule(ledger, needs_revision=revision, why=why, **lists)


def _keys(names: Sequence[Any]) -> str:
    """Names from the file, as a message lists them: each clipped, at most five."""
    shown = ", ".join(str(_shown(n)).strip("'") for n in names[:5])
    return shown + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")


def _bounded(rules: list[Rule]) -> None:
    """The map's size within what the resident ledgers' SQL can take (see MAX_RULES)."""
    prefixes = sum(len(r.path_prefixes) for r in rules)
    if prefixes > MAX_PREFIXES:
        raise _Fault(f"rules: at most {MAX_PREFIXES:,} path prefixes in all (got {prefixes:,})", "rules")
    values = sum(len(getattr(r, key)) for r in rules for key in RULE_LISTS)
    if values > MAX_ALL_VALUES:
        raise _Fault(f"rules: at most {MAX_ALL_VALUES:,} values in all (got {values:,})", "rules")


def ledger_map_from_json(data: Any, *, source: str = "") -> LedgerMap:
    """A map from a JSON object; keys it leaves out keep the shipped map's values."""
    if not isinstance(data, Mapping):
        raise _Fault("a ledger map is a JSON object (name, shares, rules, otherwise, window)")
    unknown = sorted(set(data) - {"name", "shares", "rules", "otherwise", "window"})
    if unknown:
        raise _Fault(f"unknown key(s) {_keys(unknown)}; known: name, shares, rules, otherwise, window", unknown[0])
    name = data.get("name") or "custom"
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise _Fault(f"name: a name of at most {MAX_NAME} characters", "name")
    shares = data.get("shares", dict(SEED.shares))
    if not isinstance(shares, Mapping):
        raise _Fault("shares: an object of ledger -> percent", "shares")
    unknown = sorted(str(k) for k in shares if k not in LEDGER_NAMES)
    if unknown:
        raise _Fault(f"shares: give exactly {', '.join(LEDGER_NAMES)} (not {_keys(unknown)})", "shares")
    rules = data.get("rules", [r.to_json() for r in SEED.rules])
    if not isinstance(rules, list):
        raise _Fault("rules: a list of rules, first match wins", "rules")
    if len(rules) > MAX_RULES:
        raise _Fault(f"rules: at most {MAX_RULES} (got {len(rules):,}); a map that needs more is better "
                     "written with fewer, wider rules", "rules")  # fmt: skip
    parsed = tuple(_rule(r, i) for i, r in enumerate(rules))
    _bounded(list(parsed))
    for key in ("shares", "otherwise", "window"):
        try:
            LedgerMap(**{"shares": tuple(shares.items()), "rules": parsed, key: data.get(key, getattr(SEED, key))})
        except ValueError as exc:
            raise _Fault(_clipped(str(exc)), key) from None
    return LedgerMap(
        name=name,
        shares=tuple(shares.items()),
        rules=parsed,
        otherwise=data.get("otherwise", SEED.otherwise),
        window=data.get("window", SEED.window),
        source=source,
    )


def _clipped(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_LONG_NUMBER = re.compile(r"\d{4300}")


def parse_ledger_map(text: str, *, source: str = "") -> LedgerMap:
    """A ledger-map file's map; LedgerMapError naming the file and line otherwise (never another
    exception: a curator's typo, an agent's hostile file and a truncated write all end here)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LedgerMapError(f"not JSON ({exc.msg})", exc.lineno, source) from None
    except RecursionError:
        raise LedgerMapError("nested too deeply to read (a ledger map is an object holding a list of rules, "
                             "a few levels deep)", 1, source) from None  # fmt: skip
    except ValueError:  # a number past Python's 4,300-digit limit for integers
        match = _LONG_NUMBER.search(text)
        line = text.count("\n", 0, match.start()) + 1 if match else 1
        raise LedgerMapError("a number of more than 4,300 digits; no value of a ledger map is that long",
                             line, source) from None  # fmt: skip
    try:
        return ledger_map_from_json(data, source=source)
    except _Fault as exc:
        raise LedgerMapError(str(exc), _line_of(text, exc.where) or 1, source) from None


# -- folding ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuotaCandidate:
    """A memory that may go into a ledger: what the fold needs, what the rules see, how it sorts.

    `rank`: its place in the query's candidate pool (None for a resident memory the query did not
    reach). `recency`: a UTC instant that sorts as text ("" when it claims none, or claims the future).
    """

    fold: FoldCandidate
    facts: MemoryFacts
    importance: int = 5
    recency: str = ""
    rank: int | None = None

    @property
    def path(self) -> str:
        return self.fold.path


@dataclass(frozen=True)
class Ledger:
    """One account: its limit, what it holds (tiers, costs, reasons, in its order) and what it cut."""

    spec: LedgerSpec
    share: int
    limit: int
    section: RecallSection
    candidates: int  # every memory this ledger could hold (resident: the whole class in scope)
    smallest_capsule: int | None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def used(self) -> int:
        return self.section.spent

    @property
    def unspent(self) -> int:
        return self.limit - self.used

    @property
    def beyond(self) -> int:
        """Memories of this class the ledger did not list (past the resident window)."""
        return max(0, self.candidates - len(self.section.items))

    @property
    def dropped(self) -> int:
        return self.section.counts["index"]

    @property
    def degraded(self) -> int:
        return self.section.counts["disclosure"]

    @property
    def does_not_fit(self) -> bool:
        """It has memories and its limit is below the cheapest content any of them has."""
        return self.smallest_capsule is not None and self.limit < self.smallest_capsule

    @property
    def overrun(self) -> bool:
        """The profile outgrew its share: some of it is held as less than its whole text."""
        return self.spec.name == "profile" and self.section.truncated

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.spec.label,
            "holds": self.spec.holds,
            "share": self.share,
            "limit": self.limit,
            "used": self.used,
            "unspent": self.unspent,
            "dropped": self.dropped,
            "degraded": self.degraded,
            "cut_rule": self.spec.cut_rule,
            "resident": self.spec.resident,
            "candidates": self.candidates,
            "beyond": self.beyond,
            "smallest_capsule": self.smallest_capsule,
            "does_not_fit": self.does_not_fit,
            "overrun": self.overrun,
            "counts": self.section.counts,
            "items": [i.to_json() for i in self.section.items],
        }


@dataclass(frozen=True)
class QuotaPack:
    """The pack in four ledgers. `unallocated`: budget no ledger was given (rounding, shares < 100)."""

    query: str
    scope: Scope
    budget: int
    ledgers: tuple[Ledger, ...]
    unallocated: int
    map_name: str = SEED.name
    map_source: str = ""
    map_note: str = ""  # why the seed's map stands in for the store's (LedgerMap.note)
    degraded: bool = False
    degraded_reasons: tuple[str, ...] = ()
    ranking: str = "default"
    elapsed_ms: float = field(default=0.0, compare=False)

    def ledger(self, name: str) -> Ledger:
        return next(ledger for ledger in self.ledgers if ledger.name == name)

    @property
    def used(self) -> int:
        return sum(ledger.used for ledger in self.ledgers)

    @property
    def unspent(self) -> int:
        """Everything not spent: each ledger's unspent part and the unallocated rest, never moved."""
        return self.budget - self.used

    @property
    def smallest_capsule(self) -> int | None:
        sizes = [ledger.smallest_capsule for ledger in self.ledgers if ledger.smallest_capsule is not None]
        return min(sizes, default=None)

    @property
    def does_not_fit(self) -> bool:
        """The whole budget is below the cheapest content of any candidate: only the index is returned."""
        return self.smallest_capsule is not None and self.budget < self.smallest_capsule

    @property
    def truncated(self) -> bool:
        return any(ledger.section.truncated for ledger in self.ledgers)

    def fit_note(self) -> str:
        if self.does_not_fit:
            return (
                f"does not fit: the budget ({self.budget:,}) is smaller than the smallest capsule "
                f"({self.smallest_capsule:,} chars); only the index is returned"
            )
        tight = [ledger.spec.label for ledger in self.ledgers if ledger.does_not_fit]
        return f"{', '.join(tight)}: limit below the smallest capsule, index lines only" if tight else ""

    def to_json(self) -> dict[str, Any]:
        """Everything but the timing, so the same store, query and budget give the same bytes."""
        return {
            "shape": "quotas",
            "query": self.query,
            "ranking": self.ranking,
            "scope": self.scope.to_json(),
            "map": {
                "name": self.map_name,
                "source": self.map_source,
                **({"note": self.map_note} if self.map_note else {}),
            },
            "budget": self.budget,
            "used": self.used,
            "unspent": self.unspent,
            "unallocated": self.unallocated,
            "truncated": self.truncated,
            "does_not_fit": self.does_not_fit,
            "smallest_capsule": self.smallest_capsule,
            "fit_note": self.fit_note(),
            "degraded": self.degraded,
            "degraded_reasons": list(self.degraded_reasons),
            "ledgers": [ledger.to_json() for ledger in self.ledgers],
        }


def _ordered(spec: LedgerSpec, candidates: list[QuotaCandidate]) -> list[QuotaCandidate]:
    """The ledger's own order; every order ends on the path, so ties never depend on input order."""
    out = sorted(candidates, key=lambda c: c.path)
    if spec.order == "rank":
        return sorted(out, key=lambda c: (c.rank is None, c.rank or 0))
    out = sorted(out, key=lambda c: c.recency, reverse=True)  # newest first (stable: path breaks ties)
    if spec.order == "stability":
        out = sorted(out, key=lambda c: -c.importance)  # most important first, then newest
    return out


def fold_quotas(
    query: str,
    pool: Sequence[QuotaCandidate],
    resident: Mapping[str, Sequence[QuotaCandidate]],
    resident_totals: Mapping[str, int],
    budget: int,
    ledger_map: LedgerMap = SEED,
    *,
    max_per_entity: int,
    scope: Scope | None = None,
    degraded_reasons: tuple[str, ...] = (),
    ranking: str = "default",
) -> QuotaPack:
    """Fold the query's `pool` (in rank order) and the resident memories into four ledgers.

    Each pool memory goes to the ledger the map gives it; a resident ledger also holds `resident`
    (its class in scope, first `window` in its order, whose total is `resident_totals`). Every memory
    lands in one ledger at most; each ledger folds under its own limit and never sees another's.
    """
    budget = max(0, int(budget))
    limits, unallocated = ledger_map.limits(budget)
    placed: dict[str, dict[str, QuotaCandidate]] = {name: {} for name in LEDGER_NAMES}
    for name in LEDGER_NAMES:
        if SPECS[name].resident:
            for c in resident.get(name, ()):
                placed[name].setdefault(c.path, c)
    taken = {path for bucket in placed.values() for path in bucket}
    for c in pool:
        name = ledger_map.ledger_of(c.facts)
        if c.path in placed[name]:
            placed[name][c.path] = c  # the pool's copy carries its rank
        elif c.path not in taken:
            placed[name][c.path] = c
            taken.add(c.path)
    ledgers = []
    for spec in LEDGERS:
        members = _ordered(spec, list(placed[spec.name].values()))
        folds = [c.fold for c in members]
        section = fold(
            folds,
            limits[spec.name],
            name=spec.name,
            max_per_entity=max_per_entity if spec.entity_cap else len(folds) + 1,
            disclosure_tier=True,
            cut=spec.cut,
        )
        # The resident scope holds the query's (it drops only the topical axes), so a pool member of
        # a resident class is already in its total.
        total = max(resident_totals.get(spec.name, 0), len(members)) if spec.resident else len(members)
        ledgers.append(
            Ledger(spec, ledger_map.share(spec.name), limits[spec.name], section, total, smallest_capsule(folds))
        )
    return QuotaPack(
        query=query,
        scope=scope or Scope(),
        budget=budget,
        ledgers=tuple(ledgers),
        unallocated=unallocated,
        map_name=ledger_map.name,
        map_source=ledger_map.source,
        map_note=ledger_map.note,
        degraded=bool(degraded_reasons),
        degraded_reasons=tuple(degraded_reasons),
        ranking=ranking,
    )


def delivered(section: RecallSection) -> int:
    """What a section hands over in characters: its charged texts and its (uncharged) index lines."""
    return section.spent + sum(utf16_len(i.text) for i in section.items if i.tier == "index")


def render_quota_text(pack: QuotaPack) -> str:
    """The quota pack as an agent receives it: one section per ledger, escaped as the pack is."""
    lines = [f'<recall query="{_attr(pack.query)}" shape="quotas">', _PREAMBLE]
    for ledger in pack.ledgers:
        lines.append(
            f'<ledger name="{ledger.name}" limit="{ledger.limit}" used="{ledger.used}" unspent="{ledger.unspent}">'
        )
        lines.extend(_render_item(item) for item in ledger.section.items)
        lines.append("</ledger>")
    lines.append("</recall>")
    parts = ", ".join(f"{ledger.name} {ledger.used}/{ledger.limit}" for ledger in pack.ledgers)
    note = pack.fit_note()
    lines.append(
        f"ledger: budget {pack.budget} ({parts}, unallocated {pack.unallocated}), used {pack.used}, "
        f"unspent {pack.unspent}, truncated {'yes' if pack.truncated else 'no'}" + (f"; {note}" if note else "")
    )
    return "\n".join(lines)
