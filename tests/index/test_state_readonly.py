"""A store the user cannot write: salience is read, bumps are refused with a clear notice.

Root ignores file modes, so under root this test drops to `nobody` with setpriv and runs the real
CLI in that process against a store it may read but not write. (tests/index/test_state.py covers
the same refusal with a read-only attach built by hand.)
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from memfiles import write_memory

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


def _as_nobody_possible() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


@pytest.mark.skipif(not _as_nobody_possible(), reason="needs root and setpriv to run a process as nobody")
def test_read_only_store_reads_salience_and_refuses_bumps():
    base = Path(tempfile.mkdtemp(prefix="memhtml-ro-"))
    try:
        base.chmod(0o755)
        store = base / "store"
        write_memory(store, "areas/a.html", title="A", claim="Alpha holds for the read-only test.")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_CACHE": str(base / "cache")}
        index = base / "index" / "index.db"
        run = [sys.executable, "-m", "memhtml_desktop"]
        args = ["--store", str(store), "--index", str(index)]
        subprocess.run([*run, "read", "areas/a.html", *args, "--json"], env=env, check=True, capture_output=True)
        # Everything in the store read-only for others; the index directory writable (disposable).
        for path in [store, *store.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        index.parent.chmod(0o777)
        for path in index.parent.iterdir():
            path.chmod(0o666)
        before = (store / ".memhtml" / "state.db").read_bytes()
        nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        search = subprocess.run(
            [*nobody, *run, "search", "alpha", *args, "--json", "--no-refresh"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert search.returncode == 0, search.stderr
        hit = json.loads(search.stdout)["hits"][0]
        assert hit["path"] == "areas/a.html"
        assert hit["arms"]["salience"]["raw"]["popularity"] > 0, "salience is read from the store"
        bump = subprocess.run(
            [*nobody, *run, "reinforce", "areas/a.html", "--signal", "positive", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert bump.returncode == 1
        assert "read-only" in bump.stderr
        assert (store / ".memhtml" / "state.db").read_bytes() == before
    finally:
        for path in [base, *base.rglob("*")]:
            try:
                path.chmod(stat.S_IRWXU)
            except OSError:
                pass
        shutil.rmtree(base, ignore_errors=True)
