"""Who holds a git lock (`write/leftovers.py`): a git process that has already left is nobody."""

from __future__ import annotations

import os
import subprocess
import time

from memhtml_desktop.write.leftovers import git_processes_in


def test_a_git_process_that_has_left_is_neither_inside_nor_unknown(tmp_path):
    """A git that exited and is not yet reaped (a zombie: another test's, another tool's) has no
    working directory to read. It was counted as "a git process this user cannot inspect", so
    doctor called a stale lock live whenever any git on the machine was exiting (seen on CI)."""
    child = subprocess.Popen(["git", "--version"], cwd=tmp_path, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while open(f"/proc/{child.pid}/stat").read().split()[2] != "Z":  # exited, not reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)
        inside, unknown = git_processes_in([tmp_path])
        assert child.pid not in inside and child.pid not in unknown
    finally:
        child.wait()


def _is_git_in(pid: int, folder) -> bool:
    with open(f"/proc/{pid}/comm") as comm:
        return comm.read().strip() == "git" and os.readlink(f"/proc/{pid}/cwd") == str(folder)


def test_a_running_git_in_the_repository_is_inside(tmp_path):
    # A repository, so `cat-file --batch` waits on its stdin: outside one it exits at once ("not a
    # git repository"), and whether the loop below saw it alive was a race (lost on CI once).
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    child = subprocess.Popen(["git", "cat-file", "--batch"], cwd=tmp_path, stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while not _is_git_in(child.pid, tmp_path):  # exec'd (its name is git's) and in the folder
            assert time.monotonic() < deadline
            time.sleep(0.01)
        inside, unknown = git_processes_in([tmp_path])
        assert child.pid in inside
    finally:
        child.stdin.close()
        child.wait()
