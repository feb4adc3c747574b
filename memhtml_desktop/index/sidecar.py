"""The committed sidecar `.memhtml/state/access.jsonl`: the state plane's only durable copy.

`state.db` is gitignored and cannot be rebuilt from the tree, so memhtml commits this file (its
nightly sleep cycle and `memhtml state export` both write it) and a fresh clone restores the plane
with `memhtml state import`. This app writes and reads the same file, so it must write the SAME
BYTES memhtml would for the same plane: two writers producing two byte sequences for one plane
would churn the file, and a commit, on every alternate export.

memhtml's writer (`renderSidecar` in packages/index/src/sidecar.ts) is, and this module matches it:

* rows ordered by `path ASC` in SQL (BINARY collation: code point order);
* one `JSON.stringify` object per line, keys in the order `path, accessCount, reinforcementCount,
  outcomeScore, lastAccessedAt, lastReinforcedAt, updatedAt`, compact separators, non-ASCII
  written raw as UTF-8;
* `outcomeScore` = `Math.round(score * 10000) / 10000` with `-0` normalized to `0`, printed as a JS
  Number prints: `1` not `1.0`, `0.4`, `-0.0001` (see `js_number`);
* lines joined with `\\n` plus one trailing `\\n`; an empty plane is the empty file (not `"\\n"`).

Byte-stable: an unchanged plane exports identical bytes, so a commit of an unchanged plane is a no-op.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import apsw

from memhtml_desktop.atomic import write_atomically
from memhtml_desktop.domain.results import ImportReport
from memhtml_desktop.guarded import Unreadable, read_guarded
from memhtml_desktop.index.state import (
    StateError,
    StateUnavailable,
    require_writable,
    state_mode,
    write_with_retry,
)

log = logging.getLogger(__name__)

SIDECAR_RELPATH = Path(".memhtml") / "state" / "access.jsonl"
SIDECAR_PRECISION = 4
MAX_REPORTED_ERRORS = 100
MAX_PATH_BYTES = 4096

KEYS = (
    "path",
    "accessCount",
    "reinforcementCount",
    "outcomeScore",
    "lastAccessedAt",
    "lastReinforcedAt",
    "updatedAt",
)


class SidecarWouldEmpty(StateError):
    """Exporting an empty plane over a sidecar that holds rows (refused unless forced)."""


class SidecarUnreadable(StateError):
    """The sidecar is not a file the app reads: a link out of the store, a FIFO, over the cap."""


# --------------------------------------------------------------------------------------------------
# JavaScript number and string formatting


def js_round(value: float) -> float:
    """ECMAScript `Math.round`: the nearest integer, ties toward +infinity (not Python's half-even).

    `floor(y + 0.5)` is NOT the same (0.49999999999999994 + 0.5 rounds up to 1.0 in binary); the
    fractional part `y - floor(y)` is exact for every double, so comparing it with 0.5 is.
    """
    if not math.isfinite(value):
        return value
    whole = math.floor(value)
    return float(whole + 1 if value - whole >= 0.5 else whole)


def round4(value: float) -> float:
    """memhtml's `round4`: `Math.round(value * 10^4) / 10^4`, and `-0` becomes `0`.

    Four decimals because that is the grid memhtml's fixed-point EWMA lives on; a fifth digit would
    be float noise that changes the file's bytes without changing its meaning.
    """
    factor = float(10**SIDECAR_PRECISION)
    rounded = js_round(float(value) * factor) / factor
    return 0.0 if rounded == 0 else rounded


def js_number(value: float | int) -> str:
    """A finite number as ECMAScript `Number.prototype.toString` (and so `JSON.stringify`) writes it.

    Both languages print the shortest digit string that round-trips (Python's `repr`), so only the
    layout differs: JS drops `.0` from integral values, writes `-0` as `0`, and switches to an
    exponent only below 1e-6 or from 1e21 up (Python: below 1e-4, from 1e16). Non-finite numbers
    are `null`, as JSON.stringify writes them.
    """
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number here")
    if isinstance(value, int):
        value = float(value) if abs(value) >= 2**53 else value
        if isinstance(value, int):
            return str(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" not in text:  # plain positional notation: Python and JS print the same digits
        return text
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()[1:]
    digits = "".join(str(d) for d in digits_tuple)
    k = len(digits)
    n = exponent + k  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


_JS_ESCAPES = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\\ud800-\udfff]')


def js_string(text: str) -> str:
    """A string as `JSON.stringify` quotes it: the seven short escapes, other C0 controls and lone
    surrogates as lowercase `\\u00xx`, everything else (U+007F, U+2028, non-ASCII) raw."""
    if not _NEEDS_ESCAPE.search(text):
        return f'"{text}"'
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _JS_ESCAPES:
            out.append(_JS_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _js_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (int, float)):
        return js_number(value)
    return js_string(str(value))


# --------------------------------------------------------------------------------------------------
# Export

_EXPORT_SQL = """
SELECT path, access_count, reinforcement_count, outcome_score,
       last_accessed_at, last_reinforced_at, updated_at
FROM state.access ORDER BY path ASC
"""


def render_line(row: tuple[Any, ...]) -> str:
    """One `state.access` row (export column order) as memhtml's sidecar line, without the newline."""
    path, access, reinforcement, outcome, last_accessed, last_reinforced, updated = row
    values = (
        path,
        access,
        reinforcement,
        round4(outcome if outcome is not None else 0.0),
        last_accessed,
        last_reinforced,
        updated,
    )
    return "{" + ",".join(f'"{key}":{_js_value(v)}' for key, v in zip(KEYS, values)) + "}"


def export_access(conn: apsw.Connection) -> bytes:
    """The whole plane as sidecar bytes. No state plane exports the empty file, like memhtml.

    One SELECT, so the export is one consistent snapshot even while memhtml bumps rows.
    """
    if state_mode(conn) is None:
        return b""
    lines = [render_line(tuple(row)) for row in conn.execute(_EXPORT_SQL)]
    if not lines:
        return b""
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def write_export(conn: apsw.Connection, store_root: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write the export to `<store>/.memhtml/state/access.jsonl` atomically; returns the path.

    Atomic (a temp file in the same directory, fsync, `os.replace`, fsync of the directory) because
    the sidecar is the only durable copy: a crash mid-write must leave the old file, not half a new
    one. An identical file is left untouched (no new mtime for watchers, nothing for git to see).

    Refuses (StateUnavailable / SidecarWouldEmpty) in the two cases where writing would destroy the
    durable copy instead of refreshing it: no state plane attached (the export would be empty for
    lack of a plane, not of rows), and an empty plane over a sidecar that has rows (the typical
    fresh clone that has not run `import` yet). `force=True` overrides the second.
    """
    if state_mode(conn) is None:
        raise StateUnavailable("no state plane: refusing to overwrite the sidecar with an empty export")
    target = Path(store_root) / SIDECAR_RELPATH
    data = export_access(conn)
    existing = read_sidecar(store_root)
    if existing == data:
        return target
    if not data and existing and existing.strip() and not force:
        raise SidecarWouldEmpty(
            f"the state plane is empty but {SIDECAR_RELPATH} holds rows; import it first "
            "(or force the export to empty it)"
        )
    write_atomically(target, data)
    log.info("exported %d access rows to %s", data.count(b"\n"), target)
    return target


# --------------------------------------------------------------------------------------------------
# Import


@dataclass(frozen=True)
class SidecarEntry:
    path: str
    access_count: int
    reinforcement_count: int
    outcome_score: float
    last_accessed_at: str | None
    last_reinforced_at: str | None
    updated_at: str | None  # None: derive from the stamps (see import_access)


class _Invalid(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _Invalid(f"{name} is not JSON")  # JSON.parse refuses NaN and Infinity too


def _count(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Invalid(f"{key} is not a number")
    if isinstance(value, float):
        if not value.is_integer():
            raise _Invalid(f"{key} is not an integer")
        value = int(value)
    if value < 0:
        raise _Invalid(f"{key} is negative")
    if value > 2**63 - 1:  # SQLite's INTEGER range: past it the bind itself would fail
        raise _Invalid(f"{key} is out of range")
    return value


def _score(obj: dict[str, Any]) -> float:
    value = obj.get("outcomeScore", 0)
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Invalid("outcomeScore is not a number")
    value = float(value)
    if not -1.0 <= value <= 1.0:
        raise _Invalid("outcomeScore is outside [-1, 1]")
    return round4(value)


def _stamp(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or value == "":  # '' is what memhtml's own import writes for "never"
        return None
    if not isinstance(value, str):
        raise _Invalid(f"{key} is not a string")
    return value


def parse_line(line: bytes) -> SidecarEntry | None:
    """One sidecar line, or None for a blank line. Raises _Invalid with a reason for a bad one.

    Stricter than memhtml's `parseSidecar`, which coerces a wrong-typed count to 0: a line whose
    values are present but wrong is corrupt, and importing it as zeros would restore a row that
    never existed. Absent optional keys still default as memhtml's do. A BOM is tolerated.
    """
    text = line.decode("utf-8")  # UnicodeDecodeError is a ValueError: the caller counts the line
    text = text.lstrip("\ufeff")
    if not text.strip():
        return None
    obj = json.loads(text, parse_constant=_reject_constant)
    if not isinstance(obj, dict):
        raise _Invalid("not a JSON object")
    path = obj.get("path")
    if not isinstance(path, str) or path == "":
        raise _Invalid("path is missing or not a non-empty string")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError:
        raise _Invalid("path holds a lone surrogate") from None
    if len(encoded) > MAX_PATH_BYTES:
        # No file system holds such a path (Linux: 4,096 bytes), so it names no memory; importing it
        # would put a row of any size into the plane every reader of salience scans.
        raise _Invalid(f"path is longer than {MAX_PATH_BYTES:,} bytes ({len(encoded):,}); no memory has such a path")
    updated = obj.get("updatedAt")
    if updated is not None and not isinstance(updated, str):
        raise _Invalid("updatedAt is not a string")
    return SidecarEntry(
        path=path,
        access_count=_count(obj, "accessCount"),
        reinforcement_count=_count(obj, "reinforcementCount"),
        outcome_score=_score(obj),
        last_accessed_at=_stamp(obj, "lastAccessedAt"),
        last_reinforced_at=_stamp(obj, "lastReinforcedAt"),
        updated_at=updated or None,
    )


def _ts(expr: str) -> str:
    return f"unixepoch({expr}, 'subsec')"


def _later(new: str, old: str) -> str:
    """SQL: `new` is a readable instant strictly after `old` (an unreadable or NULL `old` is "never")."""
    return f"({_ts(new)} IS NOT NULL AND ({_ts(old)} IS NULL OR {_ts(new)} > {_ts(old)}))"


def _pick_later(col: str) -> str:
    return f"CASE WHEN {_later('excluded.' + col, 'access.' + col)} THEN excluded.{col} ELSE access.{col} END"


_IMPORT_SQL = f"""
INSERT INTO state.access
  (path, access_count, reinforcement_count, outcome_score, last_accessed_at, last_reinforced_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT(path) DO UPDATE SET
  access_count        = max(access.access_count, excluded.access_count),
  reinforcement_count = max(access.reinforcement_count, excluded.reinforcement_count),
  outcome_score       = CASE
      WHEN {_later("excluded.last_reinforced_at", "access.last_reinforced_at")}
        OR ({_ts("excluded.last_reinforced_at")} IS {_ts("access.last_reinforced_at")}
            AND {_later("excluded.updated_at", "access.updated_at")})
      THEN excluded.outcome_score ELSE access.outcome_score END,
  last_accessed_at    = {_pick_later("last_accessed_at")},
  last_reinforced_at  = {_pick_later("last_reinforced_at")},
  updated_at          = {_pick_later("updated_at")}
WHERE excluded.access_count > access.access_count
   OR excluded.reinforcement_count > access.reinforcement_count
   OR {_later("excluded.last_accessed_at", "access.last_accessed_at")}
   OR {_later("excluded.last_reinforced_at", "access.last_reinforced_at")}
   OR {_later("excluded.updated_at", "access.updated_at")}
RETURNING path
"""


_CANONICAL_STAMP = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,3})?Z"
)


def _readable(conn: apsw.Connection, stamp: str | None) -> bool:
    if stamp is None:
        return False
    if _CANONICAL_STAMP.fullmatch(stamp):  # memhtml's own form: skip the round trip to SQLite
        return True
    return conn.execute("SELECT unixepoch(?)", (stamp,)).fetchone()[0] is not None


def _latest(conn: apsw.Connection, stamps: list[str]) -> str | None:
    readable = [s for s in stamps if _readable(conn, s)]
    if not readable:
        return None
    return max(readable, key=lambda s: conn.execute(f"SELECT {_ts('?')}", (s,)).fetchone()[0])


def _checked(conn: apsw.Connection, entry: SidecarEntry) -> SidecarEntry:
    """Timestamps are judged by SQLite's own `unixepoch`, the function every cooldown reads them with."""
    for key, stamp in (("lastAccessedAt", entry.last_accessed_at), ("lastReinforcedAt", entry.last_reinforced_at)):
        if stamp is not None and not _readable(conn, stamp):
            raise _Invalid(f"{key} {stamp!r} is not an instant")
    updated = entry.updated_at
    if updated is not None and not _readable(conn, updated):
        raise _Invalid(f"updatedAt {updated!r} is not an instant")
    if updated is None:
        updated = _latest(conn, [s for s in (entry.last_accessed_at, entry.last_reinforced_at) if s])
        if updated is None:
            raise _Invalid("no updatedAt and no other timestamp to take it from")
    return SidecarEntry(
        entry.path,
        entry.access_count,
        entry.reinforcement_count,
        entry.outcome_score,
        entry.last_accessed_at,
        entry.last_reinforced_at,
        updated,
    )


def import_access(conn: apsw.Connection, data: bytes) -> ImportReport:
    """Merge a sidecar into `state.access`; a bad line is skipped and counted, never fatal.

    Defensive per line for memhtml's reason: the sidecar is the only durable copy, so a file cut
    short by an interrupted write must restore every row it does hold.

    The merge rule, per field, when the plane already has the path:

    * `access_count`, `reinforcement_count`: the MAXIMUM. They only ever grow, so max is the merge
      that cannot lose a bump. Whole-row "later `updated_at` wins" can: a clone that was read twice
      before anyone imported would keep its fresh row with count 2 over the sidecar's 40.
    * `last_accessed_at`, `last_reinforced_at`, `updated_at`: the LATER instant (compared with
      `unixepoch`, not as strings; a NULL or unreadable stamp is "never").
    * `outcome_score`: from the side whose `last_reinforced_at` is later, since the EWMA is the state
      left by the latest signal; on a tie, from the side with the later `updated_at` (memhtml's sleep
      decays the score and stamps `updated_at` without a new signal).

    So importing a stale sidecar onto a live plane changes nothing, importing the same file twice
    is the same as once, and importing into an empty plane restores every row exactly. memhtml's own
    import (apps/cli/src/state.ts) also takes max counts, but overwrites `outcome_score` and
    `updated_at` with the sidecar's even when they are older, and turns a missing stamp into `''`;
    this one does neither.

    One transaction for the whole file, retried as a whole when the plane is busy. Raises
    StateUnavailable / StateReadOnly when there is no writable plane (there is nowhere to import to).
    """
    require_writable(conn)
    entries: list[tuple[int, SidecarEntry]] = []
    errors: list[str] = []
    skipped = 0

    def reject(number: int, reason: str) -> None:
        nonlocal skipped
        skipped += 1
        if len(errors) < MAX_REPORTED_ERRORS:
            errors.append(f"line {number}: {reason}")

    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            entry = parse_line(raw)
        except UnicodeDecodeError:
            reject(number, "not UTF-8")
            continue
        except _Invalid as exc:
            reject(number, str(exc))
            continue
        except (ValueError, RecursionError) as exc:  # json.JSONDecodeError; absurd nesting
            reject(number, f"not JSON ({getattr(exc, 'msg', exc)})")
            continue
        if entry is not None:
            entries.append((number, entry))

    checked: list[SidecarEntry] = []
    for number, entry in entries:
        try:
            checked.append(_checked(conn, entry))
        except _Invalid as exc:
            reject(number, str(exc))

    def work() -> int:
        written = 0
        for entry in checked:
            params = (
                entry.path,
                entry.access_count,
                entry.reinforcement_count,
                entry.outcome_score,
                entry.last_accessed_at,
                entry.last_reinforced_at,
                entry.updated_at,
            )
            if conn.execute(_IMPORT_SQL, params).fetchone() is not None:
                written += 1
        return written

    imported = write_with_retry(conn, work, what="import access sidecar") if checked else 0
    if skipped > len(errors):
        errors.append(f"... and {skipped - len(errors)} more")
    log.info("imported %d access rows (%d unchanged, %d lines skipped)", imported, len(checked) - imported, skipped)
    return ImportReport(imported=imported, skipped_lines=skipped, errors=errors, unchanged=len(checked) - imported)


def read_sidecar(store_root: str | os.PathLike[str]) -> bytes | None:
    """The committed sidecar's bytes, read through the guard every store file goes through
    (`guarded.read_guarded`: inside the store, a regular file, at most 16 MB); None when absent.
    A sidecar that is a link out of the store, a FIFO or a huge file is refused (SidecarUnreadable)."""
    try:
        return read_guarded(SIDECAR_RELPATH, root=store_root, what=SIDECAR_RELPATH.as_posix())
    except FileNotFoundError:
        return None
    except Unreadable as exc:
        raise SidecarUnreadable(str(exc)) from None


def import_file(conn: apsw.Connection, store_root: str | os.PathLike[str]) -> ImportReport | None:
    """Import `<store>/.memhtml/state/access.jsonl` when it exists; None when the store has none."""
    data = read_sidecar(store_root)
    if data is None:
        return None
    return import_access(conn, data)
