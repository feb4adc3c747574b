"""JavaScript string and number semantics that memhtml's TypeScript relies on.

memhtml's indexer is TypeScript, so "trim", "whitespace", "a number" and "a length" mean what they
mean in JS. Python disagrees on each in ways that change stored rows:

- `str.strip()` strips U+001C..U+001F and U+0085 but not U+FEFF; JS `trim()` is the reverse.
- `float()` accepts `1_0`, `inf`, `nan` and rejects `0xA`; JS `Number()` is the reverse, and turns
  `""` into 0.
- `len()` counts code points; JS `.length` counts UTF-16 code units, so an emoji is 2.
- Python's `\\s` (Unicode mode) includes U+001C..U+001F and U+0085; JS `\\s` does not.

Everything here is a pure function on `str`.
"""

from __future__ import annotations

import math
import re

#: JS WhiteSpace + LineTerminator: what `trim()` strips and what `\s` matches.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: A regex character class equivalent to JS `\s`.
JS_SPACE_CLASS = "[\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
JS_SPACE_RUN = re.compile(JS_SPACE_CLASS + "+")

#: HTML's ASCII whitespace. Only these collapse in canonical text; NBSP is content.
ASCII_SPACE_RUN = re.compile("[ \t\n\x0c\r]+")

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?Infinity")
_RADIX = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
_RADIX_DIGITS = {16: re.compile(r"[0-9a-fA-F]+"), 8: re.compile(r"[0-7]+"), 2: re.compile(r"[01]+")}


def js_trim(text: str) -> str:
    """`String.prototype.trim`: strips JS whitespace, which is not Python's `strip()` set."""
    return text.strip(JS_WHITESPACE)


#: Characters on which Python's `str.split()` and HTML's ASCII whitespace (or JS trim) disagree.
#: Without any of them, `" ".join(text.split())` is exactly `collapse(text)`, about 4x faster
#: than the regex on a 2 KB body.
_SPLIT_UNSAFE = re.compile("[\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def collapse(text: str) -> str:
    """memhtml's `collapse`: ASCII whitespace runs become one space, then JS-trim."""
    if _SPLIT_UNSAFE.search(text) is None:
        return " ".join(text.split())
    return ASCII_SPACE_RUN.sub(" ", text).strip(JS_WHITESPACE)


def squeeze_edges_trimmed(text: str) -> str:
    """ASCII whitespace runs become one space, then at most one space is cut at each end.

    This is the canonical string of a subtree that is one collapsible segment (no `<pre>`).
    """
    if _SPLIT_UNSAFE.search(text) is None:
        return " ".join(text.split())
    squeezed = ASCII_SPACE_RUN.sub(" ", text)
    if squeezed.startswith(" "):
        squeezed = squeezed[1:]
    return squeezed[:-1] if squeezed.endswith(" ") else squeezed


def js_number(text: str) -> float:
    """JS `Number(text)` for a string: a float, `nan` when JS gives NaN, `±inf` for `±Infinity`.

    Unlike `float()`: blank is 0, `0x`/`0o`/`0b` integers are accepted (unsigned only), and
    `1_0`, `inf`, `nan`, `1e` are NaN. Only ASCII digits count.
    """
    body = text.strip(JS_WHITESPACE)
    if not body:
        return 0.0
    if len(body) > 2 and body[0] == "0" and body[1] in _RADIX:
        radix = _RADIX[body[1]]
        digits = body[2:]
        if not _RADIX_DIGITS[radix].fullmatch(digits):
            return math.nan
        try:
            return float(int(digits, radix))
        except OverflowError:
            return math.inf
    if not _DECIMAL.fullmatch(body):
        return math.nan
    return float(body.replace("Infinity", "inf"))


def utf16_len(text: str) -> int:
    """JS `.length`: UTF-16 code units, so each code point above U+FFFF counts twice."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_utf16_units(text: str) -> str:
    """`text` with every astral code point split into its two surrogates.

    Slicing, `len` and regexes on the result behave like JS on the original, so a hard cut can land
    between the halves of a pair exactly as `String.slice` does.
    """
    if text.isascii() or max(text) <= "\uffff":
        return text
    out = []
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(chr(0xD800 + (cp >> 10)))
            out.append(chr(0xDC00 + (cp & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


def from_utf16_units(units: str) -> str:
    """Inverse of `to_utf16_units`: pairs recombine; a lone surrogate becomes U+FFFD.

    U+FFFD is what node writes when a string holding a lone surrogate is encoded as UTF-8 (for
    SQLite or JSON), so the stored text keeps the JS `.length` of the slice that produced it.
    """
    if units.isascii():
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def js_slice_units(text: str, stop: int) -> str:
    """`text.slice(0, stop)` in UTF-16 units, a dangling half pair replaced by U+FFFD."""
    if text.isascii():
        return text[:stop]
    return from_utf16_units(to_utf16_units(text)[:stop])
