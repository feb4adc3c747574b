"""Fuzz `project`, `read_document` and `render_safe_html` with many inputs; prove none raises.

    python tests/html/fuzz_parser.py --n 100000 [--seed 1]

Every rejected file must carry at least one violation, and every accepted one a full row set; no
violation may be an internal error that `project` merely contained.
Exits non-zero on the first broken invariant, printing the input that broke it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]

from fuzz_inputs import fuzz_input, golden_documents  # noqa: E402
from selectolax.lexbor import LexborHTMLParser  # noqa: E402

from memhtml_desktop.html.detail import read_document  # noqa: E402
from memhtml_desktop.html.project import TABLES, project  # noqa: E402
from memhtml_desktop.html.render import render_safe_html  # noqa: E402


def check_one(data: bytes, *, render: bool) -> bool:
    """Run every entry point on `data`; return True when the file was accepted."""
    result = project("areas/fuzz/input.html", data, "NOW")
    # project() contains every exception, so an internal bug would hide as a violation: only the
    # deliberate start-tag limit may say "unreadable".
    internal = [v for v in result.violations if v.startswith("unreadable:") and "start tags" not in v]
    assert not internal, internal
    if result.ok:
        assert not result.violations, result.violations
        assert tuple(result.tables) == TABLES
        assert len(result.tables["files"]) == 1
        assert all(c["char_count"] <= 1800 for c in result.tables["chunks"])
    else:
        assert result.violations, "a rejected file must say why"
        assert result.tables == {}
    document = read_document("areas/fuzz/input.html", data)
    assert document.violations == result.violations or document.violations[0].startswith("unreadable")
    if render:
        html = render_safe_html(data, highlight_terms=("claim", "x"))
        lowered = html.lower()
        assert "<script" not in lowered and "<img" not in lowered
        # "javascript:" may appear as text (escaped, inert); it must never reach an attribute,
        # however it is spelled (case, whitespace and control characters inside the scheme).
        for node in LexborHTMLParser(html).css("*"):
            for name, value in node.attributes.items():
                squeezed = "".join(ch for ch in (value or "") if ch > " ").lower()
                assert "javascript:" not in squeezed and "vbscript:" not in squeezed, (node.tag, name, value)
    return result.ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="number of inputs")
    parser.add_argument("--seed", type=int, default=20260802)
    parser.add_argument("--render-every", type=int, default=10, help="also render every k-th input")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    golden = golden_documents()
    accepted = rejected = 0
    started = time.perf_counter()
    for index in range(args.n):
        data = fuzz_input(rng, golden)
        try:
            ok = check_one(data, render=index % args.render_every == 0)
        except BaseException as exc:  # noqa: BLE001 - report the input, then fail
            print(f"FAILED on input #{index}: {type(exc).__name__}: {exc}", file=sys.stderr)
            print(repr(data[:2000]), file=sys.stderr)
            return 1
        accepted += ok
        rejected += not ok
    elapsed = time.perf_counter() - started
    print(f"ran {args.n} inputs in {elapsed:.1f}s: {accepted} accepted, {rejected} rejected "
          f"(each with at least one violation); no exception escaped")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
