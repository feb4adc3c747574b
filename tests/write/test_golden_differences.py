"""The golden cases where memhtml is wrong (write-paths §14), tested for the right behaviour.

Each case replays memhtml's exact argv on the golden pre-state. Where the difference is a refusal,
the test asserts the message and code, exit 1, and that files, git's index, HEAD and the state
rows are exactly as before. docs/writing.md lists the same cases with the reasons.
"""

from __future__ import annotations

import re

from write.golden_run import expected, golden_data, run_case, state_changes
from write.support import git, pin_git

SHA = re.compile(r"[0-9a-f]{40}")


def assert_untouched(run) -> None:
    assert run.before == {} and run.after == {}
    assert run.git_text == "(no new commit)\n"
    assert run.state_before == run.state_after


def run(name, tmp_path, monkeypatch, capsys, *extra):
    pin_git(monkeypatch, tmp_path)
    return run_case(name, tmp_path, monkeypatch, capsys, argv_extra=("--json", *extra))


def test_03_an_unlabeled_fence_gets_no_guessed_language(tmp_path, monkeypatch, capsys) -> None:
    name = "03-write-unlabeled-fence-detect"
    r, exp = run(name, tmp_path, monkeypatch, capsys), expected(name)
    assert r.exit_code == 0
    ((path, data),) = r.after.items()
    ((golden_path, golden),) = exp.after.items()
    assert path == golden_path
    assert b"data-lang" not in data
    # memhtml's guess is the only difference; the content hash ignores attributes, so it is equal.
    assert data == golden.replace(b'<code data-lang="sql">', b"<code>")
    assert r.stdout == golden_data(exp) | {"commit_sha": r.stdout["commit_sha"]}
    assert re.sub(r"[0-9a-f]{40}", "SHA", r.git_text) == re.sub(r"[0-9a-f]{40}", "SHA", exp.git_text)


def test_07_an_existing_path_is_not_overwritten_without_force(tmp_path, monkeypatch, capsys) -> None:
    r = run("07-write-explicit-path-overwrites", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 1
    assert r.stdout["code"] == "ERR_REFUSED"
    assert "already exists" in r.stdout["error"] and "--force" in r.stdout["error"]
    assert_untouched(r)
    assert r.status == ""


def test_07_with_force_it_is_memhtmls_write_exactly(tmp_path, monkeypatch, capsys) -> None:
    name = "07-write-explicit-path-overwrites"
    r, exp = run(name, tmp_path, monkeypatch, capsys, "--force"), expected(name)
    assert r.exit_code == 0
    assert r.stdout == golden_data(exp)
    assert (r.before, r.after, r.git_text) == (exp.before, exp.after, exp.git_text)


def test_08_other_staged_changes_are_left_staged_and_out_of_the_commit(tmp_path, monkeypatch, capsys) -> None:
    """memhtml's commit takes the whole index, so the user's staged hand edit rides along under
    memhtml's subject. This app's commit is built from its own paths alone: the write lands, the
    hand edit stays staged (not committed), the unstaged edit and the untracked file stay too."""
    name = "08-write-sweeps-staged-changes"
    pin_git(monkeypatch, tmp_path)
    r, exp = run_case(name, tmp_path, monkeypatch, capsys), expected(name)
    assert r.exit_code == 0, r.stderr
    new = "areas/inbox/swept-along.html"
    assert r.stdout["path"] == new and SHA.fullmatch(r.stdout["commit_sha"])
    assert r.after[new] == exp.after[new]  # the same bytes as memhtml's
    # One commit, carrying the new file only (memhtml's carried the staged memory too).
    assert r.git_text.splitlines()[1:] == ["memhtml(write): Swept along", "", "", f"A\t{new}"]
    assert r.stdout["commit_sha"] == git(r.root, "rev-parse", "HEAD").strip()
    staged = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
    assert sorted(r.status.splitlines()) == [
        " M areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html",
        "?? notes.txt",
        f"M  {staged}",
    ]
    assert git(r.root, "diff", "--cached", "--name-only").split() == [staged]
    assert "<!-- hand edit -->" in git(r.root, "diff", "--cached")
    assert "<!-- hand edit -->" not in git(r.root, "show", f"HEAD:{staged}")


def test_08_a_staged_change_to_a_path_the_write_touches_is_refused(tmp_path, monkeypatch, capsys) -> None:
    """The same case, but the write edits the very file the user staged: refused, naming it."""
    from write.golden_run import cli
    from write.support import open_store, seed, snapshot

    pin_git(monkeypatch, tmp_path)
    root = seed(tmp_path)
    store = open_store(root)
    staged = "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html"
    (root / staged).write_text((root / staged).read_text() + "<!-- hand edit -->\n")
    git(root, "add", staged)
    before = snapshot(root, store)
    code, out, err = cli(["--repo", str(root), "archive", staged, "--reason", "r", "--json"], capsys)
    assert code == 1 and "ERR_CONFLICT" in out and staged in err and "staged" in err
    assert snapshot(root, store) == before


def test_10_a_correction_keeps_its_reason_as_a_trailer(tmp_path, monkeypatch, capsys) -> None:
    name = "10-correct"
    r, exp = run(name, tmp_path, monkeypatch, capsys), expected(name)
    assert r.exit_code == 0
    assert (r.before, r.after, r.moves) == (exp.before, exp.after, exp.moves)
    assert state_changes(r) == (exp.state_removed, exp.state_added)
    message = git(r.root, "log", "-1", "--format=%B")
    assert (
        message == "memhtml(correct): The prod ALB deregistration delay is 300 seconds\n\n"
        "Memhtml-Session: sess-0008\nMemhtml-Reason: delay raised\n\n"
    )
    without = re.sub(r"Memhtml-Reason: .*\n", "", r.git_text)
    assert re.sub(r"[0-9a-f]{40}", "SHA", without) == re.sub(r"[0-9a-f]{40}", "SHA", exp.git_text)
    assert r.stdout == golden_data(exp) | {"commit_sha": r.stdout["commit_sha"]}


def test_24_a_reason_the_subject_cuts_is_kept_whole_as_a_trailer(tmp_path, monkeypatch, capsys) -> None:
    name = "24-task-status-done"
    r, exp = run(name, tmp_path, monkeypatch, capsys), expected(name)
    assert r.exit_code == 0
    assert (r.before, r.after, r.moves) == (exp.before, exp.after, exp.moves)
    message = git(r.root, "log", "-1", "--format=%B")
    # memhtml's subject, cut at 72 ("… — key del…"), and the whole reason after it
    assert message == (
        "memhtml(archive): projects/mobile-app/tasks/drop-the-legacy-fcm-server-key.html \u2014 "
        "key del\u2026\n\nMemhtml-Reason: key deleted\n\n"
    )
    without = re.sub(r"\nMemhtml-Reason: .*\n", "", r.git_text)
    assert re.sub(r"[0-9a-f]{40}", "SHA", without) == re.sub(r"[0-9a-f]{40}", "SHA", exp.git_text)
    assert r.stdout == golden_data(exp) | {"commit_sha": r.stdout["commit_sha"]}


def test_13_an_archived_file_is_not_archived_again(tmp_path, monkeypatch, capsys) -> None:
    r = run("13-archive-already-archived", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 1
    assert r.stdout["code"] == "ERR_REFUSED" and "already archived" in r.stdout["error"]
    assert_untouched(r)
    assert r.status == ""


def test_26_doctor_fix_repairs_as_memhtml_and_leaves_the_index_current(tmp_path, monkeypatch, capsys) -> None:
    name = "26-doctor-fix"
    r, exp = run(name, tmp_path, monkeypatch, capsys), expected(name)
    assert r.exit_code == 0
    # Each dangling link sits on its own line in this store, so removing the element alone gives
    # memhtml's bytes and commit. (The shas differ only because the setup's archive commit, made
    # by this app, stamped another second than memhtml's setup run did.)
    assert (r.before, r.after) == (exp.before, exp.after)
    assert SHA.sub("SHA", r.git_text) == SHA.sub("SHA", exp.git_text)
    data = golden_data(exp)
    data["repaired"]["commit_sha"] = r.stdout["repaired"]["commit_sha"]
    assert r.stdout == {key: data[key] for key in ("dangling", "orphan_access_rows", "repaired")}
    assert state_changes(r) == (exp.state_removed, exp.state_added)
    # memhtml leaves its index stale; this app's index now has the rewritten links.
    conn = r.store.reader()
    dst = {
        row[0]
        for row in conn.execute(
            "SELECT dst_path FROM edges WHERE src_path = 'projects/mobile-app/roll-back-a-bad-mobile-release-with-the-kill-switch.html'"
        )
    }
    assert "archive/2026/areas/arcs/mobile-releases-ship-dark.html" in dst
    assert "areas/arcs/mobile-releases-ship-dark.html" not in dst


def test_28_an_empty_export_does_not_wipe_the_sidecar(tmp_path, monkeypatch, capsys) -> None:
    r = run("28-state-export-fresh-clone", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 1
    assert r.stdout["code"] == "ERR_REFUSED" and "state import" in r.stdout["error"]
    assert_untouched(r)


def test_28_with_force_it_is_memhtmls_export_exactly(tmp_path, monkeypatch, capsys) -> None:
    name = "28-state-export-fresh-clone"
    r, exp = run(name, tmp_path, monkeypatch, capsys, "--force"), expected(name)
    assert r.exit_code == 0
    assert r.stdout == golden_data(exp)
    assert (r.before, r.after, r.git_text) == (exp.before, exp.after, exp.git_text)


def test_29_and_30_publish_and_init_are_not_commands(tmp_path, monkeypatch, capsys) -> None:
    for name in ("29-publish", "30-init"):
        case_tmp = tmp_path / name
        case_tmp.mkdir()
        pin_git(monkeypatch, case_tmp)
        try:
            r = run_case(name, case_tmp, monkeypatch, capsys)
        except SystemExit as exc:  # argparse: an unknown command is a usage error
            assert exc.code == 2
            continue
        raise AssertionError(f"{name} ran: {r.exit_code}")


def test_43_no_git_identity_is_refused_before_anything_is_written(tmp_path, monkeypatch, capsys) -> None:
    r = run("43-err-write-no-git-identity", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 1
    assert r.stdout["code"] == "ERR_GIT" and "identity" in r.stdout["error"]
    assert_untouched(r)
    assert r.status == ""  # memhtml leaves `A  areas/inbox/no-identity.html`


def test_44_a_directory_that_is_not_a_repository_is_left_empty(tmp_path, monkeypatch, capsys) -> None:
    r = run("44-err-write-not-a-repo", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 1
    assert r.stdout["code"] == "ERR_GIT" and "not a git repository" in r.stdout["error"]
    assert list(r.root.iterdir()) == []  # no memory file, no .memhtml/


def test_45_a_duplicate_is_caught_by_the_current_index(tmp_path, monkeypatch, capsys) -> None:
    r = run("45-err-write-duplicate-breaks-index", tmp_path, monkeypatch, capsys)
    assert r.exit_code == 0
    existing = "projects/checkout-api/idempotency-keys-expire-after-24-hours.html"
    assert r.stdout["deduped"] is True and r.stdout["existing_path"] == existing
    assert r.stdout["commit_sha"] is None
    assert r.before == {} and r.after == {} and r.git_text == "(no new commit)\n"
