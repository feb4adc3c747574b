"""`ledgers.json`, the quota-ledger map a curator edits, whatever it turns out to be (issue 40, item 6).

Before: deep nesting ended in "unexpected error: RecursionError", a 5,001-digit number in
"unexpected error: ValueError", 501 rules in "unexpected error: SQLError: too many terms in compound
SELECT"; a 100 MB file was read whole (58 s, 569 MB) and its name printed; a link out of the store
was followed and the outside file's keys appeared in the error; a link to `/dev/zero`, a FIFO or a
folder silently fell back to the seed's map; `--ledgers FIFO` hung; in the window, nesting and long
numbers raised instead of falling back as docs/recall.md says.

The rule now (docs/recall.md): the CLI refuses a map it cannot use, store's or `--ledgers`, with one
line naming the file (and line) and why, exit 1; the window uses the seed's map instead and says so,
in the status bar once and under the Ledgers tab for as long as it lasts. Every case ends at once
(subprocesses with a timeout and an address-space limit, so a regression fails instead of hanging).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hardening_support import copy_demo

from memhtml_desktop.domain.quotas import SEED, STORE_FILE

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_KEY = "outside_secret_key_7f3a"
RULE = {"ledger": "profile", "types": ["user_preference"]}


def _nested(depth: int) -> str:
    return '{"rules": ' + "[" * depth + "]" * depth + "}"


def _cases(tmp: Path) -> dict[str, tuple[object, str]]:
    """name -> (what to put at the map's place, the words its refusal must hold)."""
    outside = tmp / "outside.json"
    outside.write_text(json.dumps({OUTSIDE_KEY: 1}))
    return {
        "deep nesting": (_nested(100_000), "nested too deeply"),
        "a 5,001-digit number": ('{"window": 1' + "0" * 5000 + "}", "more than 4,300 digits"),
        "501 rules": (json.dumps({"rules": [RULE] * 501}), "at most 100"),
        "400 path prefixes": (
            json.dumps(
                {
                    "rules": [
                        {"ledger": "profile", "path_prefixes": [f"p{i}/" for i in range(200)]},
                        {"ledger": "pending", "path_prefixes": [f"q{i}/" for i in range(200)]},
                    ]
                }
            ),
            "at most 300 path prefixes",
        ),
        "a 500 KB name": (json.dumps({"name": "N" * 500_000}), "name: a name of at most 100"),
        "a 100 MB file": ("sparse", "100.0 MB"),
        "a link out of the store": (("link", outside), "leads out of the store"),
        "a link to /dev/zero": (("link", Path("/dev/zero")), "leads out of the store"),
        "a FIFO": ("fifo", "a FIFO"),
        "a folder": ("folder", "a directory"),
    }


def _put(target: Path, what: object) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if what == "sparse":
        with open(target, "wb") as handle:
            handle.truncate(100 * 1024 * 1024)
    elif what == "fifo":
        os.mkfifo(target)
    elif what == "folder":
        target.mkdir()
    elif isinstance(what, tuple):
        target.symlink_to(what[1])
    else:
        target.write_text(str(what))


def _remove(target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        target.rmdir()
    else:
        target.unlink()


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _cli(*argv: str, timeout: float = 90) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHTML_DESKTOP_NO_USER_CONFIG": "1"}
    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "memhtml_desktop", *argv], env=env, capture_output=True,
                              text=True, timeout=timeout, preexec_fn=_limited)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} hung for {timeout} s")
    proc.seconds = time.monotonic() - started
    return proc


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ledgers")
    root = copy_demo(tmp / "store")
    index = tmp / "index.db"
    assert _cli("--store", str(root), "--index", str(index), "index").returncode == 0
    return root, index, tmp


@pytest.mark.parametrize(
    "case",
    [
        "deep nesting",
        "a 5,001-digit number",
        "501 rules",
        "400 path prefixes",
        "a 500 KB name",
        "a 100 MB file",
        "a link out of the store",
        "a link to /dev/zero",
        "a FIFO",
        "a folder",
    ],
)
def test_the_stores_map_that_cannot_be_used_is_one_clear_line_in_the_cli(demo, case):
    root, index, tmp = demo
    what, words = _cases(tmp)[case]
    target = root / STORE_FILE
    _put(target, what)
    try:
        proc = _cli("--store", str(root), "--index", str(index), "recall", "drain the vip", "--shape", "quotas",
                    "--no-refresh")  # fmt: skip
    finally:
        _remove(target)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-2000:]
    assert words in proc.stderr and STORE_FILE in proc.stderr, proc.stderr[-2000:]
    assert "unexpected error" not in out and "Traceback" not in out
    assert OUTSIDE_KEY not in out and "NNNNNNNNNN" not in out
    assert len(proc.stderr) < 1000  # one line, nothing of the file echoed at length
    assert proc.seconds < 60


@pytest.mark.parametrize(
    "kind,words",
    [
        ("fifo", "a FIFO"),
        ("dev-zero", "a device"),
        ("folder", "a directory"),
        ("nested", "nested too deeply"),
        ("missing", "no such file"),
    ],
)
def test_a_ledgers_flag_naming_a_file_that_cannot_be_used_is_refused(demo, kind, words):
    root, index, tmp = demo
    named = tmp / f"flag-{kind}"
    if kind == "fifo":
        os.mkfifo(named)
    elif kind == "dev-zero":
        named.symlink_to("/dev/zero")
    elif kind == "folder":
        named.mkdir()
    elif kind == "nested":
        named.write_text(_nested(50_000))
    proc = _cli("--store", str(root), "--index", str(index), "recall", "vip", "--shape", "quotas", "--no-refresh",
                "--ledgers", str(named))  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and words in proc.stderr and str(named) in proc.stderr, out[-2000:]
    assert "unexpected error" not in out and "Traceback" not in out


def test_the_library_falls_back_to_the_seeds_map_with_the_reason(tmp_path):
    from memhtml_desktop.domain.quotas import LedgerMapError
    from memhtml_desktop.index.store import Store

    root = copy_demo(tmp_path / "store")
    store = Store(root, index_path=tmp_path / "index.db")
    for name, (what, words) in _cases(tmp_path).items():
        target = root / STORE_FILE
        _put(target, what)
        started = time.monotonic()
        with pytest.raises(LedgerMapError, match=words.replace(".", r"\.")):
            store.ledger_map()
        fallback = store.ledger_map(lenient=True)
        assert time.monotonic() - started < 5, name
        assert fallback == SEED and words in fallback.note and "the seed's ledger map is used instead" in fallback.note
        assert OUTSIDE_KEY not in fallback.note and len(fallback.note) < 400, name
        assert any(words in n for n in store.notices), name
        _remove(target)
    assert store.ledger_map().note == "" and store.ledger_map() == SEED  # no file: the seed's, nothing to say


def test_a_map_at_the_bounds_still_runs_in_sql(tmp_path):
    """The bounds are what the resident ledgers' SQL can take: a map at each of them is used."""
    from memhtml_desktop.domain.quotas import MAX_RULES, parse_ledger_map
    from memhtml_desktop.index.store import Store

    root = copy_demo(tmp_path / "store")
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    rules = [{"ledger": "profile", "tags": [f"t{i}-{j}" for j in range(40)]} for i in range(MAX_RULES - 3)]
    rules += [{"ledger": "pending", "path_prefixes": [f"p{i}/" for i in range(100)]} for _ in range(3)]
    big = parse_ledger_map(json.dumps({"rules": rules}), source="big.json")
    pack = store.quotas("drain the vip", ledgers=big)
    assert pack.map_source == "big.json" and len(pack.ledgers) == 4
