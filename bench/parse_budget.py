"""What a file can cost the parser, with and without the parse budget (`html/budget.py`).

    python bench/parse_budget.py [--big]

For each shape: how long lexbor alone takes to parse it (only for shapes whose cost is bounded
enough to wait for; `--big` also runs the issue-40 file, 700,000 attributes, which took over 300 s,
cut off after 60 s here), how long `budget.check` takes, and its verdict. The shapes on either side
of each limit show the limit refuses only what it must, and what a file at the limit costs.
Single process, wall clock: a loaded machine moves the figures, not the verdicts.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memhtml_desktop.html import budget  # noqa: E402

HEAD = "<!doctype html><html><head><title>t</title></head><body><article>"


def _attrs(names) -> str:
    return " ".join(names)


def one_p(count: int, *, end_tag: bool = False, one_name: bool = False) -> str:
    """`count` attributes on one `<p>` (or on its end tag), distinct names unless `one_name`."""
    attributes = _attrs("a" if one_name else f"a{j}" for j in range(count))
    return HEAD + (f"<p>x</p {attributes}>" if end_tag else f"<p {attributes}>x</p>")


def elements(count: int, per: int, *, own_names: bool = False) -> str:
    """`count` `<i>` elements of `per` attributes each: shared names, or names of each one's own."""
    return HEAD + "".join(
        f"<i {_attrs(f'a{i}x{j}' if own_names else f'a{j}' for j in range(per))}>x</i>" for i in range(count)
    )


def shapes(big: bool) -> list[tuple[str, str]]:
    out = [
        ("10,000 attributes on one <p> (distinct)", one_p(10_000)),
        ("20,000 attributes on one <p> (distinct)", one_p(20_000)),
        ("20,000 attributes on one end tag", one_p(20_000, end_tag=True)),
        ("20,000 attributes on one <p>, one name", one_p(20_000, one_name=True)),
        ("25,000 elements, 4 names of their own each", elements(24_990, 4, own_names=True)),
        ("25,000 elements, 4 shared names each", elements(24_990, 4)),
        # at the limits, and one past
        ("1,000 attributes on one <p> (the element limit)", one_p(1_000)),
        ("1,001 attributes on one <p>", one_p(1_001)),
        ("50 elements x 1,000 attributes (the total limit)", elements(50, 1_000)),
        ("51 elements x 1,000 attributes", elements(51, 1_000)),
        ("10,000 distinct names (the names limit)", elements(10_000, 1, own_names=True)),
        ("10,001 distinct names", elements(10_001, 1, own_names=True)),
        ("20,000 nested <div>s (under the tag limit)", HEAD + "<div>" * 20_000),
        ("a 7 MB paragraph of prose", HEAD + "<p>" + "word " * 1_400_000 + "</p>"),
    ]
    if big:
        out.append(
            (
                "issue 40: 700,000 attributes on one <p> (6.9 MB)",
                HEAD + "<p " + _attrs(f'k{j:x}=""' for j in range(700_000)) + ">x</p>",
            )
        )
    return out


def _parse(text: str) -> None:
    from selectolax.lexbor import LexborHTMLParser

    LexborHTMLParser(text, scripting=True)


def lexbor_seconds(text: str, limit_s: float) -> float | None:
    """lexbor's parse time in a child, None when it ran past `limit_s` (the child is killed)."""
    ctx = multiprocessing.get_context("fork")
    started = time.perf_counter()
    child = ctx.Process(target=_parse, args=(text,))
    child.start()
    child.join(limit_s)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--big", action="store_true", help="also the 700,000-attribute file (a minute)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds to let lexbor run on one shape")
    args = ap.parse_args()
    rows = []
    print(f"{'shape':52s} {'MB':>5s} {'lexbor':>9s} {'check':>9s}  verdict")
    for name, text in shapes(args.big):
        started = time.perf_counter()
        try:
            budget.check(text)
            verdict = "parsed"
        except budget.DocumentTooComplex as exc:
            verdict = f"refused: {exc}"
        check_s = time.perf_counter() - started
        parse_s = lexbor_seconds(text, args.limit)
        shown = f"{parse_s:8.3f}s" if parse_s is not None else f">{args.limit:.0f} s".rjust(9)
        print(f"{name:52s} {len(text) / 1e6:5.1f} {shown} {check_s * 1000:7.1f}ms  {verdict}")
        rows.append(
            {
                "shape": name,
                "mb": round(len(text) / 1e6, 2),
                "lexbor_s": None if parse_s is None else round(parse_s, 4),
                "check_ms": round(check_s * 1000, 2),
                "verdict": verdict,
            }
        )
    print(
        json.dumps(
            {
                "limits": {
                    "start_tags": budget.MAX_START_TAGS,
                    "element_attributes": budget.MAX_ELEMENT_ATTRIBUTES,
                    "attributes": budget.MAX_ATTRIBUTES,
                    "attribute_names": budget.MAX_ATTRIBUTE_NAMES,
                },
                "shapes": rows,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
