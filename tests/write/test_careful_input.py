"""Issue 26's rough edges of the write verbs, through the CLI on a real git repository (the golden
seed store): hostile input is refused with one sentence naming the line or the field, and nothing is
written, committed or created.
"""

from __future__ import annotations

import io
import json
import sys

import pytest

from write.golden_run import cli
from write.support import git, pin_git, seed, snapshot, status


@pytest.fixture
def root(tmp_path, monkeypatch):
    pin_git(monkeypatch, tmp_path)
    monkeypatch.setenv("MEMHTML_DESKTOP_NOW", "2026-12-01T12:00:00Z")
    return seed(tmp_path)


def apply_bytes(root, data: bytes, capsys, monkeypatch, *extra: str):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape"))
    return cli(["--repo", str(root), "apply", "--json", *extra], capsys)


def op(**fields) -> bytes:
    return json.dumps(
        {"op": "write", "type": "semantic", "title": "Canary checks", "body": "Canaries run first.", **fields}
    ).encode("utf-8")


# -- 18. apply's input: the line and the reason, never "unexpected error" ----------------------------


@pytest.mark.parametrize("second, says", [
    (b'{"op":"write","title":"a\xff\xfeb","type":"semantic","body":"x."}', "line 2: not UTF-8 text (byte 25 of the line, 0xff)"),
    (op(title="a\u0000b"), "line 2: title holds a control character (U+0000 NUL)"),
    (op(body="a\ud800b"), "line 2: body holds an unpaired surrogate (U+D800)"),
    (b"[" * 200_000, "line 2: not valid JSON (nested too deeply to read"),
    (b'{"op":"write","title":"t","type":"semantic","importance":' + b"7" * 5001 + b"}",
     "line 2: not valid JSON (a number too long to read (5,001 digits)"),
])  # fmt: skip
def test_a_bad_line_of_apply_is_named_with_its_reason(root, capsys, monkeypatch, second, says):
    before = snapshot(root)
    code, out, err = apply_bytes(root, op() + b"\n" + second + b"\n" + op(title="Third") + b"\n", capsys, monkeypatch)
    assert code == 2, err
    assert "unexpected error" not in err and "Traceback" not in err
    error = json.loads(out)["error"]
    assert error.startswith("apply: ") and says in error, error
    assert snapshot(root) == before


# -- 19. control characters never reach a commit subject -----------------------------------------------


@pytest.mark.parametrize("title, named", [
    ("Deploys \x1b[2J\x1b[H cleared", "U+001B ESC"),
    ("Ring \x07 the bell", "U+0007 BEL"),
    ("Retitle \x1b]0;pwned\x07 the terminal", "U+001B ESC"),
    ("C1 \x9d0;pwned\x9c OSC", "U+009D OSC"),
])  # fmt: skip
def test_a_title_with_a_control_character_is_refused(root, capsys, title, named):
    before = snapshot(root)
    code, out, err = cli(["--repo", str(root), "write", "--json", "--type", "semantic", "--title", title,
                          "--claim", "Canaries run first."], capsys)  # fmt: skip
    assert code == 1
    body = json.loads(out)
    assert body["code"] == "ERR_INVALID_MEMORY"
    assert (
        body["error"] == f"invalid memory: the title holds a control character ({named}), which a memory never "
        "needs: remove it and try again"
    )
    assert snapshot(root) == before


def test_an_archive_reason_with_a_control_character_is_refused(root, capsys):
    path = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
    before = snapshot(root)
    code, out, _ = cli(["--repo", str(root), "archive", path, "--json", "--reason", "old \x1b]2;x\x07 one"], capsys)
    assert code == 1 and "the reason holds a control character (U+001B ESC)" in json.loads(out)["error"]
    assert snapshot(root) == before


def test_a_commit_subject_shows_control_characters_as_pictures():
    from memhtml_desktop.write.context import commit_subject

    assert (
        commit_subject("link", "relates_to a\x1b[31m.html -> b.html")
        == "memhtml(link): relates_to a\u241b[31m.html -> b.html"
    )
    assert (
        commit_subject("write", "tab\tand\x0bvertical") == "memhtml(write): tab and vertical"
    )  # JS whitespace, as memhtml


# -- 20. a file the index would refuse is refused before it is written -----------------------------------


def test_a_body_over_the_file_limit_is_refused_before_writing(root, capsys):
    before = snapshot(root)
    body = ("The canary fleet runs first and takes a tenth of the traffic for ten minutes. " * 110_000)[:8_500_000]
    code, out, err = cli(["--repo", str(root), "write", "--json", "--type", "semantic", "--title", "Huge",
                          "--claim", "Canaries run first.", "--body", body], capsys)  # fmt: skip
    assert code == 1, err
    error = json.loads(out)["error"]
    assert error.startswith("invalid memory: the memory would be 8.1 MB, over the 8 MB a memory file may be")
    assert snapshot(root) == before and status(root) == ""


def test_a_body_just_under_the_limit_is_written_and_indexed(root, capsys):
    body = "Canaries take a tenth of the traffic. " * 180_000  # about 6.8 MB
    code, out, err = cli(["--repo", str(root), "write", "--json", "--type", "semantic", "--title", "Big but fine",
                          "--claim", "Canaries run first.", "--body", body], capsys)  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["path"] in git(root, "show", "--name-only", "--format=", "HEAD")


# -- 17. correct on a task, task.written's keys and the suggestions: as memhtml ---------------------

DOING = "projects/checkout-api/tasks/wire-the-drain-step-into-the-rollback-runbook.html"


def test_correct_on_a_task_writes_todo_as_memhtml_does(root, capsys):
    """memhtml's correct renders the new version as a fresh write of the target's type: a task's
    status is memhtml's default, `todo` (docs/writing.md; the window passes the status explicitly)."""
    code, out, err = cli(["--repo", str(root), "correct", DOING, "--json", "--title", "Wire the drain step in",
                          "--claim", "Wire the drain step into the rollback runbook before the freeze."], capsys)  # fmt: skip
    assert code == 0, err
    written = (root / json.loads(out)["path"]).read_text(encoding="utf-8")
    assert '<meta name="memhtml-task-status" content="todo">' in written
    assert 'content="doing"' in (root / json.loads(out)["archived_path"]).read_text(encoding="utf-8")


def test_task_written_has_memhtmls_keys_and_refusals_its_suggestions(root, capsys):
    code, out, _ = cli(["--repo", str(root), "task", "add", "--json", "--title", "Rotate the key"], capsys)
    assert code == 0
    assert list(json.loads(out)) == [
        "path",
        "created",
        "deduped",
        "existing_path",
        "task_status",
        "due_at",
        "commit_sha",
    ]  # memhtml's task.written: no content hash (G-22)
    code, out, _ = cli(["--repo", str(root), "archive", "areas/none/nothing.html", "--json", "--reason", "r"], capsys)
    assert code == 1 and json.loads(out)["suggestions"] == [
        "memhtml-desktop search <what you were looking for>",
        "memhtml-desktop list",
    ]


# -- 24. a rebase is a rebase; a recreated store's undo says so -------------------------------------


def test_a_rebase_in_progress_is_named_not_called_a_detached_head(root, capsys):
    path = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
    git(root, "switch", "-q", "-c", "side")
    (root / path).write_text((root / path).read_text(encoding="utf-8").replace("120", "240"), encoding="utf-8")
    git(root, "commit", "-qam", "side: 240")
    git(root, "switch", "-q", "main")
    (root / path).write_text((root / path).read_text(encoding="utf-8").replace("120", "300"), encoding="utf-8")
    git(root, "commit", "-qam", "main: 300")
    git(root, "rebase", "side", check=False)  # stops on the conflict: HEAD detached, rebase-merge/ present
    assert (root / ".git" / "rebase-merge").is_dir() and git(root, "branch", "--show-current").strip() == ""
    code, out, _ = cli(["--repo", str(root), "archive", "areas/arcs/reversibility-first.html", "--json",
                        "--reason", "retired"], capsys)  # fmt: skip
    assert code == 1
    assert json.loads(out)["error"] == (
        "a rebase is in progress in this repository: finish it (or abort it) first, then try again"
    )


def test_undo_in_a_recreated_store_says_the_commit_is_not_there(root, capsys, tmp_path):
    import shutil

    code, _, err = cli(
        ["--repo", str(root), "archive", "areas/arcs/reversibility-first.html", "--reason", "old"], capsys
    )
    assert code == 0, err
    shutil.rmtree(root)
    git(seed(tmp_path), "commit", "-q", "--allow-empty", "-m", "a new history")  # the same path, another repository
    code, out, err = cli(["--store", str(root), "undo"], capsys)
    assert code == 1
    # The record of the app's last commit lives in the repository's git directory (issue 40): a store
    # re-created at the same path is another repository, in which this app has made no change.
    assert "nothing to undo: this app has made no change to this store" in err
    assert "no longer the newest commit" not in err


def test_undo_of_a_commit_the_repository_no_longer_holds_says_it_is_gone(root, capsys, tmp_path):
    code, _, err = cli(
        ["--repo", str(root), "archive", "areas/arcs/reversibility-first.html", "--reason", "old"], capsys
    )
    assert code == 0, err
    git(root, "reset", "-q", "--hard", "HEAD~1")  # the history rewritten, the commit collected
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    code, out, err = cli(["--store", str(root), "undo"], capsys)
    assert code == 1
    assert "is not in this repository: the store was re-created or its history rewritten" in err


# -- 23. a refused write on a never-opened store creates nothing -------------------------------------


@pytest.mark.parametrize("argv", [
    ["write", "--type", "semantic", "--title", "T", "--claim", "   "],
    ["archive", "areas/none/nothing.html", "--reason", "r"],
    ["link", "areas/arcs/reversibility-first.html", "relates_to", "areas/arcs/reversibility-first.html"],
    ["correct", "areas/arcs/reversibility-first.html", "--title", "T\x1b", "--claim", "C."],
])  # fmt: skip
def test_a_refused_write_on_a_never_opened_store_creates_no_state_db(root, capsys, argv):
    assert not (root / ".memhtml" / "state.db").exists()  # seeded, never opened
    code, _, err = cli(["--repo", str(root), *argv], capsys)
    assert code == 1, err
    assert not (root / ".memhtml" / "state.db").exists()
    assert status(root) == ""


def test_a_write_on_a_never_opened_store_creates_the_state_plane(root, capsys):
    code, _, err = cli(["--repo", str(root), "archive", "areas/arcs/reversibility-first.html", "--reason", "r"], capsys)
    assert code == 0, err
    assert (root / ".memhtml" / "state.db").exists() and status(root) == ""
