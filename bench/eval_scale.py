"""`eval --set` on a very large probe set: wall time, peak memory and the progress it prints.

    python bench/eval_scale.py [--dir /tmp/eval-scale] [--count 2000] [--probes 100000] [--base 400]
                               [--embedder hash|minilm]

A generated store (gen_store, seed 31, `--count` memories, memhtml's seeded state plane imported) in
a git repository, indexed once; its `--base` generated probes are repeated with one extra word each
(`… alpha`, `… bravo`, then numbered) until the set holds `--probes` distinct probes, committed as
`.memhtml-desktop/probes/big.jsonl`. Then the real command runs in a child process, as a person
runs it:

    memhtml-desktop eval --set big --no-refresh --no-record --json > /dev/null

and the bench prints the child's wall time, its peak resident memory (the kernel's `ru_maxrss` for
that child alone, from `os.wait4`), its CPU time, the probes per second, and how many progress
lines it wrote to stderr (the first and last shown). Run it under `uptime`'s load and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memhtml_desktop.devtools.gen_store import generate_store  # noqa: E402

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def git(root: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def build(base: Path, count: int, probes: int, seed_probes: int, embedder: str) -> tuple[Path, Path]:
    root, index = base / "store", base / f"index-{embedder}.db"
    marker = base / f"built-{count}-{probes}-{seed_probes}"
    if marker.exists():
        return root, index
    made = generate_store(root, count, 31, probes=seed_probes, state=True, force=True, control_names="shuffled")
    lines = []
    for i in range(probes):
        probe = made.probes[i % len(made.probes)].to_json()
        round_ = i // len(made.probes)
        extra = WORDS[round_] if round_ < len(WORDS) else f"n{round_}"
        if round_:
            probe["query"] = f"{probe['query']} {extra}"
        lines.append(json.dumps(probe, ensure_ascii=False))
    folder = root / ".memhtml-desktop" / "probes"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "big.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bench: store and probe set")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memhtml_desktop", "index", "--store", str(root), "--index", str(index),
                    "--embedder", embedder], check=True, capture_output=True, env=child_env(base))  # fmt: skip
    print(f"built {count} memories and {probes} probes, indexed in {time.perf_counter() - started:.1f} s")
    marker.write_text("")
    return root, index


def child_env(base: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MEMHTML_DESKTOP_NO_USER_CONFIG="1",
               MEMHTML_DESKTOP_DATA=str(base / "data"), MEMHTML_DESKTOP_CACHE=str(base / "cache"))
    env.pop("MEMHTML_ROOT", None)
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/eval-scale"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--probes", type=int, default=100_000)
    parser.add_argument("--base", type=int, default=400, help="generated probes, repeated with an extra word")
    parser.add_argument("--embedder", default="hash", choices=("hash", "minilm"))
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    root, index = build(args.dir, args.count, args.probes, args.base, args.embedder)
    print(f"load before: {load()}")
    argv_ = [sys.executable, "-m", "memhtml_desktop", "eval", "--set", "big", "--store", str(root), "--index",
             str(index), "--embedder", args.embedder, "--no-refresh", "--no-record", "--json"]  # fmt: skip
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv_, stdout=sink, stderr=subprocess.PIPE, env=child_env(args.dir))
        err = child.stderr.read().decode("utf-8", "replace")
        _, code, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    progress = [line for line in err.replace("\r", "\n").splitlines() if "probes" in line and "%" in line]
    status = os.waitstatus_to_exitcode(code)
    print(f"exit {status}; {args.probes} probes on {args.count} memories ({args.embedder}): {wall:.1f} s wall, "
          f"{usage.ru_utime + usage.ru_stime:.1f} s CPU, peak RSS {usage.ru_maxrss / 1024:.0f} MB, "
          f"{args.probes / wall:.0f} probes/s")
    print(f"progress lines on stderr: {len(progress)}" + (f" (first {progress[0]!r}, last {progress[-1]!r})" if progress else ""))
    print(f"load after: {load()}")
    if status != 0:
        print(err[-2000:], file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
