"""Fuzz inputs for the parser: raw bytes, hostile markup fragments, and mutated real memories.

Shared by the hypothesis tests (`test_fuzz.py`) and the long-running `fuzz_parser.py` script, so
both exercise the same shapes of breakage.
"""

from __future__ import annotations

import random
import re

from html_support import CASES

HOSTILE_TOKENS = [
    "<p>", "</p>", "<div>", "</div>", "<pre>", "</pre>", "\n", "\r\n", "\r", "  ", "\t", "x",
    "y z", "<table>", "<tr>", "<td>", "</td>", "</table>", "<svg>", "</svg>", "<math>",
    "<foreignObject>", "<template>", "</template>", "<noscript>", "</noscript>", "<select>",
    "<option>", "<b>", "</b>", "<a href=javascript:x>", "</a>", "<li>", "<ul>", "</ul>", "<dl>",
    "<dt>", "<dd>", "<mark>", "</mark>", "<code data-lang=' c# '>", "</code>", "<article>",
    "</article>", "<head>", "<body>", "</body>", "</html>", "<title>", "</title>",
    '<meta name="memhtml-type" content="task">', '<meta name="memhtml-confidence" content="0x1">',
    '<meta name="memhtml-task-status" content="doing">', '<meta name="memhtml-due" content="2026-02-30">',
    '<link rel="memhtml-supports" href="/a/../b">', '<link rel="memhtml-blocks" href="/p/t.html">',
    "&amp;", "&nbsp;", "&#0;", "&#x1F600;", "&#xD800;", "&notit;", "\x00", "<!--c-->", "<!--",
    "<![CDATA[z]]>", "<textarea>", "<script>", "</script>", "<style>", "</style>", "<iframe>",
    "<xmp>", "<plaintext>", "<frameset>", "<img src=x onerror=alert(1)>", "<br>", "</br>",
    '<time datetime="2026-07-28">', "<time>", "<p class=a ONCLICK=b>", "<data value=''>",
    "<q cite=u>", "<cite>", "<dfn>", "<details><summary>", "</details>", "<aside>", "<figure>",
    "<span>", "😀", "é", "\ufeff", "\u2028", "\u00a0", "<!doctype html>", "<?pi?>", "</x>",
    "<base href=http://evil/>", "<object data=x>", "<embed src=x>", "<image>", "<h1>",
]  # fmt: skip


def golden_documents() -> list[bytes]:
    return [path.read_bytes() for path in sorted(CASES.glob("*.html"))]


def random_markup(rng: random.Random, tokens: int = 40) -> bytes:
    return "".join(rng.choice(HOSTILE_TOKENS) for _ in range(rng.randint(0, tokens))).encode()


def mutate(rng: random.Random, data: bytes, rounds: int = 6) -> bytes:
    """Byte- and token-level edits: insert markup, delete, duplicate, flip bytes, cut."""
    out = bytearray(data)
    for _ in range(rng.randint(1, rounds)):
        at = rng.randint(0, len(out))
        span = rng.randint(0, 40)
        op = rng.random()
        if op < 0.35:
            out[at:at] = rng.choice(HOSTILE_TOKENS).encode()
        elif op < 0.55:
            del out[at : at + span]
        elif op < 0.7:
            out[at:at] = out[at : at + span]
        elif op < 0.85 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif op < 0.95:
            tag = rng.choice([b"p", b"li", b"mark", b"article", b"dl", b"pre", b"time", b"title"])
            swap = b"<" + rng.choice([b"aside", b"div", b"x"])
            out = bytearray(re.sub(rb"<" + tag + rb"\b", swap, bytes(out), count=1))
        else:
            del out[at:]
    return bytes(out)


def fuzz_input(rng: random.Random, golden: list[bytes]) -> bytes:
    roll = rng.random()
    if roll < 0.15:
        return rng.randbytes(rng.randint(0, 3000))
    if roll < 0.4:
        return random_markup(rng)
    return mutate(rng, rng.choice(golden))
