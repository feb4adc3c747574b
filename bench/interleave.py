"""Run commands in turns (A B A B ...) and print each run's wall time, CPU time, peak RSS and exit code.

    python -S bench/interleave.py SPEC.json      # {"commands": {name: argv}, "rounds": N, "warmup": N}

The suite's process cases run their commands through this small process rather than from the
runner itself: Linux keeps a process's peak RSS across `execve`, so a child forked from the runner
(which has loaded numpy, SQLite and a 100,000-memory index build) reported the runner's peak as its
own, whatever it used. Forked from this interpreter (no site, no imports beyond the standard
library's few), a child's peak starts at about 10 MB. Standard library only; prints one JSON line.
"""

import json
import os
import sys
import time


def run(argv: list[str], env: dict | None) -> tuple[float, float, int, float]:
    started = time.perf_counter()
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            env if env is not None else os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull, 0),
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ],
        )
    finally:
        os.close(devnull)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - started) * 1000
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    env = spec.get("env")
    for _ in range(spec.get("warmup", 0)):
        for argv in spec["commands"].values():
            run(argv, env)
    out = {name: {"ms": [], "rss_mb": [], "codes": [], "cpu_ms": []} for name in spec["commands"]}
    for _ in range(spec["rounds"]):
        for name, argv in spec["commands"].items():
            wall, rss, code, cpu = run(argv, env)
            out[name]["ms"].append(wall)
            out[name]["rss_mb"].append(rss)
            out[name]["codes"].append(code)
            out[name]["cpu_ms"].append(cpu)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
