"""A deterministic memhtml store generator for tests, benchmarks and the ranking quality gate.

    python -m memhtml_desktop.devtools.gen_store DIR --count N --seed S [--invalid K]
        [--probes FILE] [--probe-count P] [--state] [--git] [--force]

Writes exactly N memory files (every `.html` under a PARA bucket), plus a scaffold `README.html`
and `.gitignore`. Same seed and count give byte-identical files: all randomness comes from one
`random.Random(seed)` consumed in a fixed order, and every timestamp is an offset into a fixed
year (2025-09-01 … 2026-08-31), never the wall clock.

What a store holds, mirroring memhtml's `packages/eval/src/corpus.ts` in spirit:
- person files under `resources/people/`, arcs under `areas/arcs/`, tasks under
  `projects/<ws>/tasks/` (a few under `areas/inbox/tasks/`) with statuses, due dates and
  `blocks`/`subtask_of` links, and base memories of the other eight types across 16 invented
  services with disjoint vocabularies;
- facets (`doc-type`, `tier`, a numeric metric, `Owner`) and rotating element kits (time,
  cite/q, dfn, figure/pre/code, details, aside, table/abbr, section/ul/a);
- supersedes chains whose losers live under `archive/<YYYY>/<original path>` (every fourth
  chain has length 3), and done tasks archived the same way;
- deliberately invalid files, one violation family each (`store_render.INVALID_FAMILIES`);
- probes: targets with three near-twin controls each (negation, numeric, variant), in the
  same folder with the same type, stamped no later than the target. `--control-names` decides how
  the four file names are handed out (`store_build.CONTROL_NAMES`), so a gate can make sure path
  order never helps a target. `--probes FILE` writes them as JSON lines, the format
  `memhtml-desktop eval` reads: `query`, `target`, `controls`, plus `kind` and `families`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

from memhtml_desktop.devtools.store_build import CONTROL_NAMES, Builder, Probe
from memhtml_desktop.devtools.store_render import Spec, render, render_invalid

DEFAULT_INVALID_RATE = 0.002
DEFAULT_PROBES = 36
MIN_COUNT = 40
BUCKETS = ("projects", "areas", "resources", "archive")
LAST_READ = 385 * 86400  # 2026-09-21, three weeks after the corpus year ends

README_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>memhtml store</title>
</head>
<body>
<h1>memhtml store</h1>
<p>A generated memhtml store: one memory per HTML file under projects/, areas/, resources/ and
archive/. Written by memhtml_desktop.devtools.gen_store (seed {seed}, {count} memories).</p>
</body>
</html>
"""
GITIGNORE = ".memhtml/index.db*\n.memhtml/state.db*\n"


@dataclass(frozen=True)
class InvalidFile:
    path: str
    family: str
    violations: tuple[str, ...]


@dataclass(frozen=True)
class GeneratedStore:
    root: Path
    seed: int
    paths: tuple[str, ...]
    probes: tuple[Probe, ...]
    invalid: tuple[InvalidFile, ...]
    types: dict[str, int] = field(default_factory=dict)
    archived: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    state_rows: int = 0
    seconds: float = 0.0

    @property
    def invalid_paths(self) -> dict[str, tuple[str, ...]]:
        return {item.path: item.violations for item in self.invalid}

    @property
    def controls(self) -> tuple[str, ...]:
        return tuple(path for probe in self.probes for path in probe.controls)


def _js_number(value: float) -> int | float:
    rounded = round(value, 4)
    if rounded == int(rounded):
        return int(rounded)
    return rounded


def state_lines(specs: list[Spec], seed: int, iso) -> list[str]:
    """`.memhtml/state/access.jsonl` rows, memhtml's sidecar format, path-ordered.

    Query-blind and long-tailed (count = 1/(0.08 + u)), like memhtml's `buildAccess`; controls,
    archived and invalid files get no row: a control was never in the corpus, so it cannot have
    been read.
    """
    rng = Random(seed ^ 0x5F3759DF)
    rows = []
    for spec in specs:
        u = rng.random()
        if spec.role in ("control", "invalid") or spec.status != "active" or u > 0.6:
            continue
        count = max(1, round(1 / (0.08 + u)))
        reinforced = min(count, int(u * 8))
        outcome = _js_number(rng.uniform(-0.7, 1.0)) if reinforced else 0
        # read after it was written, and before the end of the corpus year (+3 weeks)
        accessed = spec.when + 3600 + rng.randrange(max(86400, LAST_READ - spec.when))
        touched = max(spec.when + 3600, accessed - rng.randrange(3 * 86400))
        rows.append(
            (
                spec.path,
                {
                    "path": spec.path,
                    "accessCount": count,
                    "reinforcementCount": reinforced,
                    "outcomeScore": outcome,
                    "lastAccessedAt": iso(accessed),
                    "lastReinforcedAt": iso(touched) if reinforced else None,
                    "updatedAt": iso(accessed),
                },
            )
        )
    rows.sort(key=lambda row: row[0])
    return [json.dumps(obj, separators=(",", ":"), ensure_ascii=False) for _, obj in rows]


def _prepare(root: Path, force: bool) -> None:
    if root.exists():
        entries = [p.name for p in root.iterdir() if p.name != ".git"]
        if entries and not force:
            raise FileExistsError(f"{root} is not empty (pass force=True / --force to replace)")
        for name in (*BUCKETS, ".memhtml"):
            target = root / name
            if target.is_dir():
                shutil.rmtree(target)
    root.mkdir(parents=True, exist_ok=True)


def generate_store(
    root: Path,
    count: int,
    seed: int,
    *,
    invalid: int | None = None,
    probes: int = DEFAULT_PROBES,
    state: bool = False,
    force: bool = False,
    control_names: str = "memhtml",
) -> GeneratedStore:
    """Write a store of exactly `count` memory files under `root` and describe what was written."""
    started = time.perf_counter()
    if count < MIN_COUNT:
        raise ValueError(f"count must be at least {MIN_COUNT}, got {count}")
    if invalid is None:
        invalid = max(1, round(count * DEFAULT_INVALID_RATE))
    invalid = max(0, min(invalid, count // 10))
    root = Path(root)
    builder = Builder(count, seed, invalid, max(0, probes), control_names)
    builder.build()
    _prepare(root, force)

    made: set[str] = set()
    paths: list[str] = []
    broken: list[InvalidFile] = []
    types: dict[str, int] = {}
    for spec in builder.specs:
        directory = spec.path.rpartition("/")[0]
        if directory not in made:
            os.makedirs(root / directory, exist_ok=True)
            made.add(directory)
        if spec.role == "invalid":
            data, violations = render_invalid(spec, builder.families[spec.path])
            broken.append(InvalidFile(spec.path, builder.families[spec.path], violations))
        else:
            data = render(spec)
            types[spec.type] = types.get(spec.type, 0) + 1
        with open(root / spec.path, "wb") as handle:
            handle.write(data)
        paths.append(spec.path)

    (root / "README.html").write_text(README_HTML.format(seed=seed, count=count), encoding="utf-8")
    (root / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    rows = 0
    if state:
        lines = state_lines(builder.specs, seed, builder.iso)
        (root / ".memhtml" / "state").mkdir(parents=True, exist_ok=True)
        (root / ".memhtml" / "state" / "access.jsonl").write_text(
            "".join(line + "\n" for line in lines), encoding="utf-8"
        )
        rows = len(lines)
    return GeneratedStore(
        root=root,
        seed=seed,
        paths=tuple(paths),
        probes=tuple(builder.probes),
        invalid=tuple(broken),
        types=dict(sorted(types.items())),
        archived=tuple(s.path for s in builder.specs if s.path.startswith("archive/")),
        people=tuple(s.path for s in builder.specs if s.role == "person"),
        state_rows=rows,
        seconds=time.perf_counter() - started,
    )


def write_probes(store: GeneratedStore, target: Path) -> None:
    """One probe a line (JSON lines), the format `memhtml-desktop eval` reads."""
    lines = [json.dumps(probe.to_json(), ensure_ascii=False) for probe in store.probes]
    target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def git_commit(root: Path) -> None:
    """One commit of the whole tree at a fixed date and identity, so the commit id is reproducible."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="gen_store",
        GIT_AUTHOR_EMAIL="gen-store@example.invalid",
        GIT_COMMITTER_NAME="gen_store",
        GIT_COMMITTER_EMAIL="gen-store@example.invalid",
        GIT_AUTHOR_DATE="2026-09-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-09-01T00:00:00Z",
    )
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(root), "-c", "commit.gpgsign=false", "commit", "-q", "-m", "generated store"],
        check=True,
        env=env,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memhtml_desktop.devtools.gen_store", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("dir", type=Path)
    parser.add_argument("--count", type=int, required=True, help="memory files to write (>= 40)")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--invalid", type=int, default=None, help="invalid files (default 0.2%%)")
    parser.add_argument(
        "--probes",
        type=Path,
        default=None,
        help="write the probes here (JSON lines, the format `memhtml-desktop eval` reads)",
    )
    parser.add_argument("--probe-count", type=int, default=DEFAULT_PROBES)
    parser.add_argument(
        "--control-names",
        choices=CONTROL_NAMES,
        default="memhtml",
        help="how a probe's target and controls are named (default: memhtml's prefixes)",
    )
    parser.add_argument("--state", action="store_true", help="write .memhtml/state/access.jsonl")
    parser.add_argument("--git", action="store_true", help="git init and commit the tree")
    parser.add_argument("--force", action="store_true", help="replace an existing store's buckets")
    args = parser.parse_args(argv)
    try:
        store = generate_store(
            args.dir,
            args.count,
            args.seed,
            invalid=args.invalid,
            probes=args.probe_count,
            state=args.state,
            force=args.force,
            control_names=args.control_names,
        )
    except (ValueError, FileExistsError) as error:
        parser.error(str(error))
    if args.probes is not None:
        write_probes(store, args.probes)
    if args.git:
        git_commit(args.dir)
    print(
        f"gen_store: wrote {len(store.paths)} memories ({len(store.invalid)} invalid, "
        f"{len(store.archived)} archived, {len(store.probes)} probes, {store.state_rows} state rows)"
        f" to {args.dir} in {store.seconds:.2f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
