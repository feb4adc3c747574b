"""The benchmark suite: the user-facing figures, each beside its floor or peer from the same run.

    python bench/suite.py list
    python bench/suite.py run [--size tiny|standard] [--only NAME ...] [--rounds N] [--work DIR] [--no-save]
    python bench/suite.py table [--write]        # docs/benchmarks.md's table from bench/results/

A case (bench/suite_cases.py) measures one thing a person waits for, and in the same run the
floor (the least a program could do: bench/floors.py) or the peer (Recoll), interleaved A B A B so
a busy moment of a shared machine falls on both sides alike. It returns both sides and their
ratio; the runner adds the machine's load before and after, and saves the results per commit in
bench/results/<commit>.json (small: figures only, merged with what that commit already has).
`table` prints the newest standard-size result of every case as docs/benchmarks.md's table.

Sizes: `standard` is what docs/benchmarks.md reports (20,000 and 100,000 memories); `tiny` runs every
case that can run small in a few seconds, for tests/test_bench_suite.py, so the suite cannot rot
unnoticed. Stores and indexes are kept under --work (default: the system's temp folder) between
runs; an index is built by the code under test, per commit.

Why a runner of our own rather than pytest-benchmark or asv: the cases are whole processes (a CLI
call, a cold index, the window's event loop), not callables to be repeated in a loop; each must time
its floor or peer in the same run, interleaved, which neither tool does; asv builds an environment
per commit (minutes on two shared cores) and pytest-benchmark calibrates rounds for micro-timings.
What both give that matters here, results kept per commit and a table generated from them, is a
hundred lines.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- suite table: begin (bench/suite.py table --write) -->", "<!-- suite table: end -->"

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def commit() -> tuple[str, bool]:
    """(short commit, whether the tree has uncommitted changes to tracked files)."""
    try:
        sha = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown", True
    return sha, dirty


def run(
    names: list[str] | None, size: str, rounds: int | None, work: Path, save: bool, results_dir: Path = RESULTS
) -> list[dict]:
    from memhtml_desktop.threads import one_blas_thread

    one_blas_thread()  # as the command does, before numpy loads
    from suite_cases import CASES, Context

    chosen = [c for c in CASES if names is None or c.name in names]
    unknown = set(names or ()) - {c.name for c in CASES}
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))} (see: python bench/suite.py list)")
    sha, dirty = commit()
    ctx = Context(size=size, rounds=rounds, work=work, commit=sha)
    out = []
    for case in chosen:
        if size not in case.sizes:
            print(f"{case.name}: no {size} size (skipped)")
            continue
        before = _load()
        started = time.perf_counter()
        try:
            result = case.run(ctx, **case.sizes[size])
        except Exception as exc:  # noqa: BLE001 - a case that fails is reported, the others still run
            result = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"{case.name}: FAILED {result['error']}")
        result.update(
            case=case.name,
            size=size,
            params=case.sizes[size],
            load_before=before,
            load_after=_load(),
            seconds=round(time.perf_counter() - started, 1),
        )
        print(
            f"{case.name}: {result.get('headline', result.get('error', ''))} "
            f"(load {result['load_before']} -> {result['load_after']})"
        )
        out.append(result)
    if save and out:
        record(out, sha, dirty, results_dir)
    return out


def record(results: list[dict], sha: str, dirty: bool, results_dir: Path = RESULTS) -> Path:
    """Merge `results` into results_dir/<commit>.json (one entry per case and size, the newest kept)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{sha}{'-dirty' if dirty else ''}.json"
    data = json.loads(path.read_text()) if path.exists() else {"commit": sha, "dirty": dirty, "results": []}
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    keep = [r for r in data["results"] if (r["case"], r["size"]) not in {(n["case"], n["size"]) for n in results}]
    data["results"] = keep + [dict(r, date=stamp, cores=os.cpu_count()) for r in results]
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def newest(results_dir: Path = RESULTS, size: str = "standard") -> dict[str, dict]:
    """The newest result of each case at `size` over every saved commit (a dirty tree's too)."""
    best: dict[str, dict] = {}
    for path in sorted(results_dir.glob("*.json")):
        data = json.loads(path.read_text())
        for r in data.get("results", []):
            if r.get("size") != size or "error" in r:
                continue
            r = dict(r, commit=data.get("commit", path.stem) + ("-dirty" if data.get("dirty") else ""))
            if r["case"] not in best or r["date"] > best[r["case"]]["date"]:
                best[r["case"]] = r
    return best


def table(results_dir: Path = RESULTS, size: str = "standard") -> str:
    from suite_cases import CASES

    found = newest(results_dir, size)
    lines = [
        "| case | what | this app | floor / peer, same run | ratio | target | met | measured |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for case in CASES:
        r = found.get(case.name)
        if r is None:
            lines.append(f"| `{case.name}` | {case.what} | not yet measured | | | {case.target} | | |")
            continue
        met = {True: "yes", False: "**no**", None: ""}[r.get("met")]
        ratio = f"{r['ratio']:.2f}×" if isinstance(r.get("ratio"), (int, float)) else ""
        lines.append(
            f"| `{case.name}` | {case.what} | {r.get('ours_text', '')} | {r.get('other_text', '')} | {ratio} "
            f"| {case.target} | {met} | {r['date'][:10]}, `{r['commit']}`, load {r['load_before']}"
            f"–{r['load_after']} |"
        )
    return "\n".join(lines)


def write_table(doc: Path = DOC, results_dir: Path = RESULTS) -> None:
    text = doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{doc} has no {BEGIN!r} ... {END!r} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    doc.write_text(f"{head}{BEGIN}\n{table(results_dir)}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the cases and their sizes")
    p = sub.add_parser("run", help="run cases and save their results")
    p.add_argument("--size", default="standard", choices=("tiny", "standard"))
    p.add_argument("--only", nargs="+", metavar="NAME")
    p.add_argument("--rounds", type=int, help="rounds per case (each case has its own default)")
    p.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memhtml-bench-suite",
        help="where stores, indexes and floors are kept between runs",
    )
    p.add_argument("--no-save", action="store_true", help="print only; keep nothing in bench/results/")
    p = sub.add_parser("table", help="docs/benchmarks.md's table from the saved results")
    p.add_argument("--write", action="store_true", help="replace the table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    if args.command == "list":
        from suite_cases import CASES

        for case in CASES:
            print(f"{case.name:16s} {', '.join(case.sizes):16s} {case.what}")
        return 0
    if args.command == "table":
        if args.write:
            write_table()
        print(table())
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    results = run(args.only, args.size, args.rounds, args.work, not args.no_save)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
