"""The bytes of a new memory file, exactly as memhtml's template and serializer write them.

`html/src/template.ts` + `serialize.ts` (write-paths §1.5): a fixed document skeleton, the metas in
META_ORDER (repeatables one line per value, in input order), LF only, one trailing newline, no
indentation. The article is either prose (`--claim` + `--body`) or canonicalised markup
(`--article-html`, see `markup.py`).

One deliberate difference: memhtml runs highlight.js over an unlabeled code fence and stamps the
language it guesses (`data-lang="sql"`). A guess is not a fact the author gave, and a wrong one
becomes a `lang:` entity the index files the memory under, so an unlabeled fence stays unlabeled
here. A labeled one keeps its label exactly as memhtml keeps it (no alias folding).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from memhtml_desktop.html.jsnum import JS_WHITESPACE, js_trim
from memhtml_desktop.html.vocabulary import META_ORDER
from memhtml_desktop.write.markup import canonical_article, escape_attr, escape_text

_ORDER = {name: i for i, name in enumerate(META_ORDER)}
LANG_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]*")
_OPEN_FENCE = re.compile(r"(`{3,})([^`]*)")
_CLOSE_FENCE = re.compile(r"(`{3,})[ \t]*")


@dataclass(frozen=True)
class NewMemory:
    """What a new file says. Numbers stay the raw text the caller typed (memhtml parses them)."""

    title: str
    memory_type: str
    claim: str | None = None
    article_html: str | None = None
    bodies: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: str | None = None
    confidence: str | None = None
    session: str | None = None
    prompt: str | None = None
    turn: str | None = None
    task_status: str | None = None
    due: str | None = None
    extra_metas: tuple[tuple[str, str], ...] = field(default=())
    facets: tuple[tuple, ...] = ()  # (name, value[, number]): see `facets_block`


# -- JavaScript number parsing (the CLI's `parseInt` / `parseFloat` / `toFixed`) ----------------

_PARSE_FLOAT = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_PARSE_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|[0-9]+)")


def js_parse_float(text: str) -> float:
    """`parseFloat`: the longest decimal prefix after leading whitespace; NaN when there is none."""
    match = _PARSE_FLOAT.match(text.lstrip(JS_WHITESPACE))
    if not match:
        return math.nan
    token = match.group(0)
    if token.lstrip("+-") == "Infinity":
        return -math.inf if token.startswith("-") else math.inf
    return float(token)


def js_parse_int(text: str) -> float:
    """`parseInt(text)` without a radix (so `0x` prefixes are hexadecimal); NaN when no digits."""
    match = _PARSE_INT.match(text.lstrip(JS_WHITESPACE))
    if not match:
        return math.nan
    sign, digits = match.groups()
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    return float(-value if sign == "-" else value)


def js_number_text(value: float) -> str:
    """A number as JavaScript prints it (`String(x)`): `7`, not `7.0`."""
    from memhtml_desktop.index.curation import js_number

    return js_number(value)


def js_to_fixed_2(value: float) -> str:
    """`Number.prototype.toFixed(2)`: half rounds away from zero on the exact binary value."""
    if abs(value) >= 1e21:
        return js_number_text(value)
    if value == 0:
        return "0.00"  # -0 prints as 0
    return str(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def confidence_text(raw: str | None) -> str | None:
    if raw is None:
        return None
    value = js_parse_float(raw)
    return js_to_fixed_2(value) if math.isfinite(value) else None


def importance_text(raw: str | None) -> str | None:
    if raw is None:
        return None
    value = js_parse_int(raw)
    return str(int(math.trunc(value))) if math.isfinite(value) else None


# -- the article ------------------------------------------------------------------------------


def fenced_block(body: str) -> tuple[str | None, str] | None:
    """`(lang or None, code)` when the body is exactly one fenced code block, else None."""
    lines = js_trim(body).split("\n")
    if len(lines) < 2:
        return None
    opening = _OPEN_FENCE.fullmatch(lines[0])
    closing = _CLOSE_FENCE.fullmatch(lines[-1])
    if not opening or not closing or len(closing.group(1)) < len(opening.group(1)):
        return None
    info = js_trim(opening.group(2)).split()
    lang = info[0].lower() if info and LANG_TOKEN.fullmatch(info[0]) else None
    return lang, "\n".join(lines[1:-1])


def _figure(lang: str | None, code: str) -> str:
    attr = f' data-lang="{escape_attr(lang)}"' if lang else ""
    return f"<figure><pre><code{attr}>{escape_text(code)}</code></pre></figure>"


def prose_blocks(claim: str, bodies: tuple[str, ...] | list[str]) -> list[str]:
    """`articleHtmlFor`'s blocks: the claim in a `<mark>` opening the first paragraph, then one per body."""
    blocks: list[str] = []
    mark = f"<mark>{escape_text(js_trim(claim))}</mark>"
    kept = [b for b in bodies if js_trim(b) != ""]
    rendered = [(fenced_block(b), b) for b in kept]
    if rendered and rendered[0][0] is None:
        blocks.append(f"<p>{mark} {escape_text(js_trim(rendered[0][1]))}</p>")
        rendered = rendered[1:]
    else:
        blocks.append(f"<p>{mark}</p>")
    for fence, body in rendered:
        blocks.append(_figure(*fence) if fence is not None else f"<p>{escape_text(js_trim(body))}</p>")
    return blocks


def prose_article(claim: str, bodies: tuple[str, ...] | list[str]) -> str:
    """`articleHtmlFor`: the blocks, one per line."""
    return "\n".join(prose_blocks(claim, bodies))


def facet_rows(facets) -> list[tuple[str, str, str | None]]:
    """Facets as `(name, value, number or None)`, trimmed; an empty name or value is refused."""
    rows = []
    for facet in facets:
        name, value = js_trim(str(facet[0])), js_trim(str(facet[1]))
        number = js_trim(str(facet[2])) if len(facet) > 2 and facet[2] is not None else ""
        if not name or not value:
            raise ValueError(f"a facet needs a name and a value: {name or '(no name)'} = {value or '(no value)'}")
        if number and not math.isfinite(js_parse_float(number)):
            raise ValueError(f"facet {name}: {number!r} is not a number")
        rows.append((name, value, number or None))
    return rows


def facets_block(facets) -> str:
    """One `<dl>`: a `<dt>` per name (repeated names share it), a `<dd>` per value."""
    lines = ["<dl>"]
    last = None
    for name, value, number in facet_rows(facets):
        dd = (
            escape_text(value) if number is None else f'<data value="{escape_attr(number)}">{escape_text(value)}</data>'
        )
        lines.append((f"<dt>{escape_text(name)}</dt>" if name != last else "") + f"<dd>{dd}</dd>")
        last = name
    return "\n".join(lines + ["</dl>"])


def article_of(memory: NewMemory) -> str:
    """The article's markup; facets, when given, follow the first block (the claim's paragraph)."""
    if memory.article_html is not None:
        markup = memory.article_html
        if memory.facets:
            markup = js_trim(markup) + "\n" + facets_block(memory.facets)
        return canonical_article(markup)
    blocks = prose_blocks(memory.claim or "", memory.bodies)
    if memory.facets:
        blocks.insert(1, facets_block(memory.facets))
    return "\n".join(blocks)


# -- the document -----------------------------------------------------------------------------


def metas_of(memory: NewMemory, now_text: str, content_hash: str) -> list[tuple[str, str]]:
    """The head metas in serializer order; empty optional values are left out."""
    metas: list[tuple[str, str]] = [
        ("memhtml-type", memory.memory_type),
        ("memhtml-status", "active"),
        ("memhtml-created", now_text),
        ("memhtml-updated", now_text),
    ]
    optional = (
        ("memhtml-confidence", confidence_text(memory.confidence)),
        ("memhtml-importance", importance_text(memory.importance)),
        ("memhtml-content-hash", content_hash),
        ("memhtml-session", memory.session),
        ("memhtml-prompt", memory.prompt),
        ("memhtml-turn", memory.turn),
    )
    metas += [(name, value) for name, value in optional if value]
    if memory.memory_type == "task":
        metas.append(("memhtml-task-status", memory.task_status or "todo"))
        if memory.due:
            metas.append(("memhtml-due", memory.due))
    metas += list(memory.extra_metas)
    metas += [("memhtml-entity", e) for e in memory.entities if e != ""]
    metas += [("memhtml-tag", t) for t in memory.tags if t != ""]
    return sorted(metas, key=lambda m: _ORDER.get(m[0], len(_ORDER)))  # stable: repeatables keep order


def document(title: str, metas: list[tuple[str, str]], article: str) -> str:
    head = "".join(f'<meta name="{escape_attr(n)}" content="{escape_attr(v)}">\n' for n, v in metas)
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape_text(js_trim(title))}</title>\n{head}</head>\n<body>\n<article>\n"
        f"{article}\n</article>\n</body>\n</html>\n"
    )


def render(memory: NewMemory, now_text: str, content_hash: str) -> str:
    """The file's text; the content hash is the article's (see `hash_of_article`), passed in."""
    return document(memory.title, metas_of(memory, now_text, content_hash), article_of(memory))
