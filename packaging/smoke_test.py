"""Check a BUILT one-folder app, the way a person's machine would run it: headless, from elsewhere.

    python packaging/smoke_test.py dist/memhtml-desktop [--python .venv/bin/python]

Standard library only, and the app runs with a scrubbed environment (no PYTHONPATH, no virtualenv,
a throwaway HOME and cache, the working directory outside the source tree), so a check can only
pass on what the bundle itself carries. Each check prints one line with its time; the exit status
is the number of failed checks (0: all passed).

Checks: `--version` (and that it equals `python -m memhtml_desktop --version` from the source);
the bundled data (migrations, the demo store with its dotfiles, the icons, the sqlite-vec, apsw and
selectolax binaries); indexing a copy of the bundled demo store; the same search, with both vector
backends, giving the same list as the source tree does; a store larger than the indexer's pool
threshold, which makes the frozen app start spawned parse processes; `doctor`; and an offscreen
screenshot whose PNG has the asked-for size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERY = "drain the vip"
EXPECTED_HIT = "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html"
POOL_FILES = 480  # above index/indexer.py POOL_THRESHOLD (400): the parse pool starts


class Checks:
    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0

    def run(self, name: str, fn) -> object:
        started = time.perf_counter()
        try:
            detail = fn()
        except Exception as exc:  # noqa: BLE001 - report and go on to the next check
            print(f"FAIL  {name} ({time.perf_counter() - started:.2f} s): {exc}")
            self.failed.append(name)
            return None
        self.passed += 1
        print(f"ok    {name} ({time.perf_counter() - started:.2f} s){': ' + str(detail) if detail else ''}")
        return detail


def app_env(tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    (tmp / "runtime").mkdir(mode=0o700, exist_ok=True)  # Qt wants a private runtime folder
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "MEMHTML_DESKTOP_CACHE": str(tmp / "cache"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "XDG_RUNTIME_DIR": str(tmp / "runtime"),
    }


def run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:3])}... exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
    return proc.stdout


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def source_version() -> str:
    text = (ROOT / "memhtml_desktop" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def make_pool_store(demo: Path, target: Path, count: int) -> int:
    """`count` distinct memory files made from the demo store's valid ones (distinct claims)."""
    memories = sorted(p for p in demo.rglob("*.html") if p.relative_to(demo).parts[0] in ("areas", "resources")
                      and b"<mark>" in p.read_bytes() and p.read_bytes().count(b"<mark>") == 1)
    for i in range(count):
        source = memories[i % len(memories)]
        data = source.read_bytes().replace(b"<mark>", f"<mark>Copy {i}: ".encode(), 1)
        out = target / "areas" / f"bulk-{i // 100:02d}" / f"{i:04d}-{source.name}"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app_dir", type=Path)
    parser.add_argument("--python", help="the source tree's interpreter, to compare --version and search")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    app_dir = args.app_dir.resolve()
    app = app_dir / "memhtml-desktop"
    internal = app_dir / "_internal"
    data = internal / "memhtml_desktop" / "_data"
    tmp = Path(tempfile.mkdtemp(prefix="memhtml-smoke-"))
    env = app_env(tmp)
    checks = Checks()
    print(f"checking {app} (scratch: {tmp})")

    def version():
        out = run([str(app), "--version"], env, tmp).strip()
        if out != f"memhtml-desktop {source_version()}":
            raise AssertionError(f"--version said {out!r}")
        if args.python:
            source = subprocess.run([args.python, "-m", "memhtml_desktop", "--version"], cwd=ROOT,
                                    capture_output=True, text=True, check=True).stdout.strip()
            if source != out:
                raise AssertionError(f"python -m memhtml_desktop --version said {source!r}, the app {out!r}")
        return out

    def bundled_data():
        must = [
            data / "resources" / "demo-store" / ".gitignore",
            data / "resources" / "demo-store" / ".memhtml" / "state" / "access.jsonl",
            data / "resources" / "icons" / "memhtml-desktop.svg",
            data / "resources" / "icons" / "memhtml-desktop-16.png",
            internal / "sqlite_vec" / "vec0.so",
        ]
        missing = [str(p.relative_to(app_dir)) for p in must if not p.is_file()]
        migrations = sorted(p.name for p in (data / "migrations").rglob("*.sql"))
        for package, pattern in (("apsw", "__init__*.so"), ("selectolax", "lexbor*.so")):
            if not list((internal / package).glob(pattern)):
                missing.append(f"{package}/{pattern}")
        if missing or not migrations:
            raise AssertionError(f"missing from the bundle: {missing or 'migrations'}")
        return f"{len(migrations)} migrations, demo store dotfiles, icons, vec0.so, apsw and selectolax"

    demo = tmp / "demo-store"

    def index_demo():
        shutil.copytree(data / "resources" / "demo-store", demo)
        report = json.loads(run([str(app), "index", "--store", str(demo), "--json"], env, tmp))
        if report["indexed"] < 50 or report["embedded"] != report["indexed"]:
            raise AssertionError(f"index report {report}")
        return f"{report['indexed']} indexed, {report['failed']} failed (the demo's deliberate problem files)"

    def search(backend: str):
        def check():
            cmd = ["search", QUERY, "--store", str(demo), "--no-refresh", "--json", "--vector-backend", backend]
            result = json.loads(run([str(app), *cmd], env, tmp))
            paths = [hit["path"] for hit in result["hits"]]
            if EXPECTED_HIT not in paths[:5] or result["degraded"] or "vector" not in result["arms"]:
                raise AssertionError(f"arms {result['arms']}, degraded {result['degraded_reasons']}, hits {paths[:5]}")
            if args.python:
                source_env = {**os.environ, "MEMHTML_DESKTOP_CACHE": env["MEMHTML_DESKTOP_CACHE"]}
                source = json.loads(subprocess.run([args.python, "-m", "memhtml_desktop", *cmd], cwd=ROOT,
                                                   env=source_env, capture_output=True, text=True,
                                                   check=True).stdout)
                if [hit["path"] for hit in source["hits"]] != paths:
                    raise AssertionError("the bundled app and the source tree ranked differently")
            rank = paths.index(EXPECTED_HIT) + 1
            return f"{len(paths)} hits, arms {'+'.join(result['arms'])}, the drain-the-VIP memory at #{rank}" + (
                ", same list as the source tree" if args.python else "")
        return check

    def pool():
        store = tmp / "pool-store"
        made = make_pool_store(demo, store, POOL_FILES)
        started = time.perf_counter()
        report = json.loads(run([str(app), "index", "--store", str(store), "--json"], env, tmp))
        seconds = time.perf_counter() - started
        if report["indexed"] != made or report["failed"]:
            raise AssertionError(f"{made} files, report {report}")
        return f"{made} files indexed in {seconds:.1f} s with {min(os.cpu_count() or 1, 4)} parse processes"

    def doctor():
        report = json.loads(run([str(app), "doctor", "--store", str(demo), "--json"], env, tmp))
        return f"{len(report['problems'])} problem files listed"

    def screenshot():
        out = tmp / "shot.png"
        run([str(app), "screenshot", "--demo", "--out", str(out), "--query", QUERY, "--size", "1200x800"], env, tmp)
        size = png_size(out)
        if size != (1200, 800) or out.stat().st_size < 20_000:
            raise AssertionError(f"PNG {size}, {out.stat().st_size} bytes")
        return f"{size[0]}x{size[1]} PNG, {out.stat().st_size // 1024} KB"

    checks.run("--version", version)
    checks.run("bundled data and binaries", bundled_data)
    if checks.run("index the bundled demo store", index_demo) is not None:
        checks.run(f"search {QUERY!r} (numpy vectors)", search("numpy"))
        checks.run(f"search {QUERY!r} (sqlite-vec in SQL)", search("sqlite-vec"))
        checks.run("doctor", doctor)
        if (os.cpu_count() or 1) >= 2:
            checks.run("index through the spawn parse pool", pool)
        else:
            print("skip  index through the spawn parse pool (one CPU: the indexer parses in-process)")
    checks.run("offscreen screenshot", screenshot)
    print(f"{checks.passed} passed, {len(checks.failed)} failed")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return len(checks.failed)


if __name__ == "__main__":
    sys.exit(main())
