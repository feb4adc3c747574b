"""Every write-golden case, replayed through this app's CLI with the clock pinned.

A conformant case must match memhtml byte for byte: exit code, the result data (memhtml's `data`
with snake_case keys), every changed file, the commits (subject, trailers, name-status, and the
sha itself, since the golden identity and dates are pinned), renames, `git status` and the state
rows. Cases where memhtml is wrong (write-paths §14) are listed in `DELIBERATE` and tested for the
right behaviour in test_golden_differences.py; docs/writing.md gives the reasons.
"""

from __future__ import annotations

import re

import pytest

from write.golden_run import expected, golden_data, parser_text_masked, run_case, state_changes
from write.support import GOLDEN, pin_git

CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir() and p.name[:2].isdigit())

#: case -> why this app differs (each has its own test of the right behaviour).
DELIBERATE = {
    "03-write-unlabeled-fence-detect": "an unlabeled fence gets no guessed language",
    "07-write-explicit-path-overwrites": "an existing file is replaced only with --force",
    "08-write-sweeps-staged-changes": "other staged changes are refused, not swept into the commit",
    "10-correct": "the reason is kept as a Memhtml-Reason trailer (so the commit's sha differs)",
    "13-archive-already-archived": "an archived file is not archived again",
    "24-task-status-done": "the reason the subject cuts is kept whole as a Memhtml-Reason trailer (so the sha differs)",
    "26-doctor-fix": "this app's doctor report; only the link element is removed; the index is brought current",
    "28-state-export-fresh-clone": "an empty export never replaces a sidecar that holds rows",
    "29-publish": "publish is not implemented",
    "30-init": "init is not implemented",
    "43-err-write-no-git-identity": "refused before anything is written: nothing left staged",
    "44-err-write-not-a-repo": "refused before anything is written: no file, no .memhtml/",
    "45-err-write-duplicate-breaks-index": "this app's index is brought current first, so the duplicate is caught",
}
CONFORMANT = [c for c in CASES if c not in DELIBERATE]


def test_every_case_is_either_conformant_or_a_listed_difference() -> None:
    assert len(CASES) == 46
    assert set(DELIBERATE) <= set(CASES)


def assert_conforms(run, exp) -> None:
    assert run.exit_code == exp.exit_code, run.stderr
    data = golden_data(exp)
    if "error" in data:
        assert run.stdout is not None
        assert {"error": parser_text_masked(run.stdout["error"]), "code": run.stdout["code"]} == data
        # memhtml's suggestions; its search and list are this app's commands too
        assert run.stdout["suggestions"] == [
            re.sub(r"^memhtml (search|list)\b", r"memhtml-desktop \1", s) for s in exp.stdout["suggestions"]
        ]
    else:
        assert run.stdout == data
    assert run.before == exp.before
    assert run.after == exp.after
    assert run.git_text == exp.git_text
    assert run.moves == exp.moves
    assert run.status == exp.status
    assert state_changes(run) == (exp.state_removed, exp.state_added)


@pytest.mark.parametrize("name", CONFORMANT)
def test_case_matches_memhtml(name: str, tmp_path, monkeypatch, capsys) -> None:
    pin_git(monkeypatch, tmp_path)
    run = run_case(name, tmp_path, monkeypatch, capsys)
    assert_conforms(run, expected(name))
