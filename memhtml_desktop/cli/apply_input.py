"""`apply`'s input: JSONL from `--file` or stdin, checked whole before anything runs (§4).

Each non-blank line is one JSON object with `op: "write"`, a non-empty `title` and `type`, and
optional string fields, numbers (or numeric strings) for `importance`/`confidence`, and tags and
entities as a string or a list. A shape error anywhere refuses the whole batch with exit 2 and
`apply: line <n>: <reason>` (blank lines count); per-op problems (an unknown type, a bad due date, a
failed render) are the batch's to report op by op.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from memhtml_desktop.cli.memhtml_argv import Parsed, UsageError
from memhtml_desktop.domain import safe_json
from memhtml_desktop.write.errors import INVALID_FLAG, PATH_NOT_FOUND

STRING_FIELDS = ("body", "article_html", "path", "workspace", "session_id", "prompt_id", "turn_uuid", "status", "due")
SUGGESTION = ('memhtml apply --file ops.jsonl, one object per line: '
              '{"op":"write","title":"…","type":"semantic","body":"…"}')  # fmt: skip


def _usage(message: str, code: str = INVALID_FLAG) -> UsageError:
    return UsageError(message, code, [SUGGESTION])


def read_input(parsed: Parsed) -> bytes:
    """The batch's bytes (decoded line by line, so a bad byte is reported with its line)."""
    source = parsed.get("file")
    if source is None and parsed.positionals and parsed.positionals[0] != "-":
        source = parsed.positionals[0]
    if source is None or source == "-":
        stream = getattr(sys.stdin, "buffer", None)
        return stream.read() if stream is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise _usage(f"apply: cannot read {source}: {exc.strerror or exc}", PATH_NOT_FOUND) from exc


def _lines(data: bytes):
    """(line number, text) of every line; a line that is not UTF-8 is refused with its number."""
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _usage(
                f"apply: line {number}: not UTF-8 text (byte {exc.start + 1} of the line, "
                f"0x{raw[exc.start]:02x}); the batch is UTF-8 JSON lines"
            ) from None


def _check_strings(obj: dict, line: int) -> None:
    """A control character or an unpaired surrogate in any string of the op refuses the batch."""
    from memhtml_desktop.write.curator import text_problem

    for name, value in obj.items():
        for text in value if isinstance(value, list) else [value]:
            problem = text_problem(text) if isinstance(text, str) else None
            if problem:
                raise _usage(f"apply: line {line}: {name} {problem}")


def _strings(value: Any, name: str, line: int) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value != "" else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v for v in value if v != ""]
    raise _usage(f"apply: line {line}: {name} must be a string or an array of strings")


def _number(value: Any, name: str, line: int) -> str | None:
    from memhtml_desktop.html.jsnum import js_number
    from memhtml_desktop.write.curator import js_number_text as js_print

    if value is None:
        return None
    if isinstance(value, bool):
        raise _usage(f"apply: line {line}: {name} must be a number")
    number = (
        float(value) if isinstance(value, (int, float)) else js_number(value) if isinstance(value, str) else math.nan
    )
    if not math.isfinite(number):
        raise _usage(f"apply: line {line}: {name} must be a finite number")
    return js_print(number)


def decode_line(obj: Any, line: int, parsed: Parsed):
    from memhtml_desktop.write.curator import BatchOp, split_prose
    from memhtml_desktop.write.requests import WriteRequest

    if not isinstance(obj, dict):
        raise _usage(f"apply: line {line}: not a JSON object")
    _check_strings(obj, line)
    if obj.get("op") != "write":
        raise _usage(f'apply: line {line}: op must be "write"')
    for name in ("title", "type"):
        if not isinstance(obj.get(name), str) or obj[name] == "":
            raise _usage(f"apply: line {line}: {name} must be a non-empty string")
    for name in STRING_FIELDS:
        if obj.get(name) is not None and not isinstance(obj[name], str):
            raise _usage(f"apply: line {line}: {name} must be a string")
    tags = _strings(obj.get("tag"), "tag", line) + _strings(obj.get("tags"), "tags", line)
    entities = _strings(obj.get("entity"), "entity", line) + _strings(obj.get("entities"), "entities", line)
    importance = _number(obj.get("importance"), "importance", line)
    confidence = _number(obj.get("confidence"), "confidence", line)
    article = obj.get("article_html")
    claim, bodies = ("", []) if article is not None else split_prose(obj.get("body") or "")

    def pick(own: str, batch: str) -> str | None:
        return obj.get(own) if obj.get(own) is not None else parsed.get(batch)

    request = WriteRequest(
        title=obj["title"], memory_type=obj["type"], claim=None if article is not None else claim,
        article_html=article, bodies=tuple(bodies), path=obj.get("path"), workspace=obj.get("workspace"),
        tags=tuple(tags), entities=tuple(entities), importance=importance, confidence=confidence,
        session=pick("session_id", "session-id"), prompt=pick("prompt_id", "prompt-id"),
        turn=pick("turn_uuid", "turn-uuid"), task_status=obj.get("status") if obj["type"] == "task" else None,
        due=obj.get("due") if obj["type"] == "task" else None,
    )  # fmt: skip
    return BatchOp(request, claim if article is None else "")


def read_batch(parsed: Parsed):
    from memhtml_desktop.write.curator import ApplyRequest

    ops = []
    for number, line in _lines(read_input(parsed)):
        if line.strip() == "":
            continue
        try:
            obj = safe_json.loads(line)
        except ValueError as exc:
            raise _usage(
                f"apply: line {number}: not valid JSON ({exc}). Every line is one complete JSON object; "
                "a pretty-printed object spanning several lines is not JSONL"
            ) from exc
        ops.append(decode_line(obj, number, parsed))
    if not ops:
        raise _usage("apply: no operations: the input holds no JSON lines")
    return ApplyRequest(
        ops=tuple(ops), continue_on_error=bool(parsed.get("continue-on-error", False)),
        detect_conflicts=bool(parsed.get("detect-conflicts", False)), consolidate=parsed.get("consolidate"),
    )  # fmt: skip


def describe_batch(r: dict[str, Any]) -> str:
    lines = []
    for item in r["results"]:
        if item["skipped"]:
            what = "skipped"
        elif item["error"]:
            what = f"failed: {item['error']}"
        elif item["consolidated_into"] is not None:
            what = f"folded into op {item['consolidated_into']}"
        elif item["deduped"]:
            what = f"already stored as {item['existing_path']}"
        else:
            what = f"wrote {item['path']}"
        if item["superseded_path"]:
            what += f"; superseded {item['superseded_path']}"
        if item["conflict"]:
            c = item["conflict"]
            what += f"; same frame as {c['path'] or 'op ' + str(c['batch_index'])}: {c['claim']}"
        lines.append(f"op {item['index']}: {what}")
    s = r["summary"]
    lines.append(f"{s['written']} written, {s['deduped']} deduped, {s['failed']} failed, {s['skipped']} skipped, "
                 f"{s['consolidated']} consolidated" + (f" (commit {r['commit_sha'][:12]})" if r["commit_sha"] else ""))  # fmt: skip
    return "\n".join(lines)
