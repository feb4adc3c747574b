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
lines it wrote to stderr (the first and last shown); every 30 s it prints the child's CPU time and
resident memory so far. `--checkout DIR` runs another checkout's code on the same store and set
(the code before a change), `--stop-after S` stops the child after S seconds (for code that would
not finish). Run it under `uptime`'s load and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
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


def child_env(base: Path, code: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(code), PYTHONDONTWRITEBYTECODE="1", MEMHTML_DESKTOP_NO_USER_CONFIG="1",
               MEMHTML_DESKTOP_DATA=str(base / "data"), MEMHTML_DESKTOP_CACHE=str(base / "cache"))
    env.pop("MEMHTML_ROOT", None)
    return env


def sample(pid: int) -> str:
    """The child's CPU seconds and resident memory so far, from /proc."""
    try:
        rss = int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) // 1024
        ticks = sum(int(x) for x in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13])
        return f"{ticks / os.sysconf('SC_CLK_TCK'):.0f} s CPU, {rss} MB resident"
    except (OSError, IndexError, ValueError):
        return "gone"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/eval-scale"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--probes", type=int, default=100_000)
    parser.add_argument("--base", type=int, default=400, help="generated probes, repeated with an extra word")
    parser.add_argument("--embedder", default="hash", choices=("hash", "minilm"))
    parser.add_argument("--checkout", type=Path, default=ROOT, help="run this checkout's code (default: this one)")
    parser.add_argument("--stop-after", type=float, default=0, help="stop the child after this many seconds")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    root, index = build(args.dir, args.count, args.probes, args.base, args.embedder)
    print(f"load before: {load()}")
    argv_ = [sys.executable, "-m", "memhtml_desktop", "eval", "--set", "big", "--store", str(root), "--index",
             str(index), "--embedder", args.embedder, "--no-refresh", "--no-record", "--json"]  # fmt: skip
    started = time.perf_counter()
    chunks: list[bytes] = []
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(argv_, stdout=sink, stderr=subprocess.PIPE, env=child_env(args.dir, args.checkout),
                                 cwd="/tmp")  # fmt: skip
        reader = threading.Thread(target=lambda: chunks.append(child.stderr.read()), daemon=True)
        reader.start()
        next_sample = 30.0
        while True:
            pid, code, usage = os.wait4(child.pid, os.WNOHANG)  # reaps it, with its own rusage
            if pid:
                break
            time.sleep(0.5)
            elapsed = time.perf_counter() - started
            if elapsed >= next_sample:
                print(f"  {elapsed:5.0f} s: {sample(child.pid)}, load {load()}", flush=True)
                next_sample += 30.0
            if args.stop_after and elapsed > args.stop_after:
                os.kill(child.pid, signal.SIGKILL)  # not Popen.kill: its poll() would reap the child first
        reader.join()
    err = b"".join(chunks).decode("utf-8", "replace")
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
