"""Issue 17, items 7 and 8: output nobody can forge, and `-v` that shows the details it promises.

File names, titles, tags and facets are written by agents. A newline in a file name used to reach
the terminal raw from `list`, `search`, `read`, `index` and `reinforce`, so one name could print
lines that look like the program's own (a fake `memhtml-desktop:` error, a fake hit); a carriage
return could overwrite a line. Every control character in a value is now shown as a visible escape
while the program's own lines keep their structure; JSON output stays exact.
"""

from __future__ import annotations

import json

import pytest
from hardening_support import copy_demo, run_cli

from memfiles import write_memory
from memhtml_desktop.index.store import Store

FORGED = "memhtml-desktop: FORGED"
EVIL_DIR = "areas/evil"
NAMES = {
    "newline": f"{EVIL_DIR}/a\n{FORGED} newline.html",
    "carriage": f"{EVIL_DIR}/b\r{FORGED} carriage.html",
    "crlf": f"{EVIL_DIR}/c\r\n{FORGED} crlf.html",
    "tab-vt-ff": f"{EVIL_DIR}/d\t\x0b\x0c{FORGED} tab.html",
    "nel-ls": f"{EVIL_DIR}/e\u0085\u2028{FORGED} nel.html",
}


def _store(tmp_path):
    root = copy_demo(tmp_path / "store")
    for kind, path in NAMES.items():
        write_memory(
            root,
            path,
            title=f"Title\n{FORGED} title {kind}\r",
            claim=f"Zebracorn claim {kind}.",
            tags=[f"tag\n{FORGED}"],
            facets=[(f"fac\n{FORGED}", f"val\r{FORGED}")],
        )
    # One that fails to parse, so `index` prints its name in a failure line.
    (root / EVIL_DIR / f"z\n{FORGED} broken.html").write_text("<p>not a memory</p>", encoding="utf-8")
    index = tmp_path / "index.db"
    Store(root, index_path=index).index()
    return root, index


def _args(root, index, *extra):
    return [*extra, "--store", str(root), "--index", str(index)]


def _assert_unforged(text: str) -> None:
    for line in text.split("\n"):
        assert not line.lstrip().startswith(FORGED), repr(line)
    assert "\r" not in text and "\x0b" not in text and "\x0c" not in text
    assert "\u0085" not in text and "\u2028" not in text


@pytest.mark.slow
def test_human_output_escapes_every_control_in_values(tmp_path):
    root, index = _store(tmp_path)
    commands = [
        ["list", "--limit", "200"],
        ["list", "--para", "areas", "--limit", "200"],
        ["search", "zebracorn claim", "--limit", "30"],
        ["recall", "zebracorn claim"],
        ["index", "--rebuild"],
        ["doctor"],
        ["read", NAMES["newline"], "--no-bump"],
        ["read", NAMES["carriage"]],
        ["reinforce", NAMES["crlf"], "--signal", "positive"],
        ["read", f"{EVIL_DIR}/missing\n{FORGED}.html"],
        ["search", "drain", "--why", f"{EVIL_DIR}/missing\n{FORGED}.html"],
    ]
    for command in commands:
        proc = run_cli(_args(root, index, *command))
        out, err = proc.stdout.decode(), proc.stderr.decode()
        _assert_unforged(out)
        _assert_unforged(err)
        assert "Traceback" not in err
    listed = run_cli(_args(root, index, "list", "--limit", "200")).stdout.decode()
    # One line per memory, still: the program's own line structure is intact.
    assert len([line for line in listed.splitlines() if line.startswith(EVIL_DIR)]) == len(NAMES)
    read = run_cli(_args(root, index, "read", NAMES["newline"], "--no-bump")).stdout.decode()
    assert read.splitlines()[0] == f"Title {FORGED} title newline"  # memhtml folds a title's whitespace
    assert read.splitlines()[1].startswith(f"{EVIL_DIR}/a\\n{FORGED} newline.html")
    assert f"tags: tag\\n{FORGED}" in read  # (facet names and values are whitespace-folded by memhtml)


def test_json_output_stays_exact(tmp_path):
    root, index = _store(tmp_path)
    listed = json.loads(run_cli(_args(root, index, "list", "--json", "--limit", "200")).stdout)
    assert set(NAMES.values()) <= {f["path"] for f in listed["files"]}
    detail = json.loads(run_cli(_args(root, index, "read", NAMES["crlf"], "--json", "--no-bump")).stdout)
    assert detail["path"] == NAMES["crlf"]
    assert detail["title"] == f"Title {FORGED} title crlf"  # memhtml folds a title's whitespace
    assert detail["tags"] == [f"tag\n{FORGED}"]
    hits = json.loads(run_cli(_args(root, index, "search", "zebracorn claim", "--json", "--limit", "30")).stdout)
    evil = {h["path"] for h in hits["hits"] if h["path"].startswith(EVIL_DIR)}
    assert evil and evil <= set(NAMES.values())  # (MMR keeps near-twins off one page)


def test_verbose_shows_the_traceback_it_promises(tmp_path):
    """The catch-all says "run with -v for details"; with -v the details (the traceback) are there."""
    root = copy_demo(tmp_path / "store")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    args = ["search", "x", "--store", str(root), "--index", str(blocker / "index.db")]
    plain = run_cli(args)
    assert plain.returncode == 1
    err = plain.stderr.decode()
    assert "unexpected error" in err and "run with -v for details" in err and "Traceback" not in err
    verbose = run_cli([*args, "-v"])
    assert verbose.returncode == 1
    err = verbose.stderr.decode()
    assert "Traceback (most recent call last)" in err
    assert "unexpected error" in err and "run with -v" not in err
