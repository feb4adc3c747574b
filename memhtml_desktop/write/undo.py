"""Undo: this app's last commit, reverted by a commit of its own, through the same pipeline.

`git revert` would take the user's whole index and work tree, and when its commit cannot be made
(signing on and no key, a hook that refuses) it leaves the revert applied and staged with nothing
to `--abort`: every later write is then refused. Here the revert is a plan like any other write:
for each path the commit changed, the bytes it had before (from the commit's parent) are
written back, a move is moved back (a rename, then the bytes), and the executor commits only
those paths, checking every step and rolling all of it back when one fails. The message is
`git revert`'s: `Revert "<subject>"`, a blank line, `This reverts commit <sha>.`

It is refused, saying why, while any path of that commit has been changed since (committed by
someone, staged, or edited in the tree): reverting then would undo their work too. Commits of
others on other paths do not matter (they are not in the way: the revert touches none of them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memhtml_desktop.guarded import read_guarded
from memhtml_desktop.write.errors import Refused
from memhtml_desktop.write.git import Git
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.preflight import check_repository, path_status

MAX_BYTES = 64 * 1024 * 1024


def _blobs(git: Git, entries: dict[str, str]) -> dict[str, bytes]:
    """{path: bytes} of these blob ids, from one `git cat-file --batch`."""
    import subprocess

    from memhtml_desktop.write.git import git_env

    order = list(entries)
    proc = subprocess.run([git.executable or "git", "-C", str(git.root), "cat-file", "--batch"],
                          input="".join(entries[p] + "\n" for p in order).encode(), capture_output=True,
                          env=git_env(), check=False)  # fmt: skip
    out, pos, found = proc.stdout, 0, {}
    for path in order:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        if proc.returncode != 0 or len(header) != 3 or header[1] != b"blob":
            raise Refused(f"{path} could not be read from git ({entries[path][:12]})")
        size = int(header[2])
        found[path] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return found


def undo_plan(git: Git, root: Path, last: dict[str, Any]) -> tuple[Plan, str | None]:
    """The plan that reverts `last` (the record `journal.write_last` keeps), and the base commit;
    Refused (nothing touched) when the revert would not be this app's own change alone."""
    head = check_repository(git)
    sha, subject = last["sha"], last["subject"]
    named = f"“{subject}” ({sha[:12]})"
    _in_branch(git, sha, named, head)
    from memhtml_desktop.write.executor import Executor

    diff = Executor(root, git, None)._diff(git.parent(sha), sha)
    moves = [tuple(m) for m in last.get("moves", []) if m[0] in diff[0] and m[1] in diff[0]]
    changes, state_moves = _reverting(git, root, sha, sorted(diff[0]), moves, named, head, diff)
    rows = last.get("rows")
    if isinstance(rows, list) and all(isinstance(m, list) and len(m) == 2 for m in rows):
        # the rows the commit moved, moved back (a correction's reads may have followed the new
        # version rather than a file move: reversing the file moves would strand them there)
        state_moves = tuple((dst, src) for src, dst in reversed(rows))
    plan = Plan(op="undo", request=None, changes=changes, subject=f'Revert "{subject}"',
                body=f"This reverts commit {sha}.", state_moves=state_moves)  # fmt: skip
    return plan, head


def _in_branch(git: Git, sha: str, named: str, head: str | None, verb: str = "undo") -> None:
    if git.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).code != 0:
        raise Refused(f"{named} is not in this repository: the store was re-created or its history "
                      "rewritten since this app wrote it")  # fmt: skip
    if head is None or not git.is_ancestor(sha, "HEAD"):
        raise Refused(f"{named} is no longer in this branch's history: nothing to {verb}")


def _reverting(git: Git, root: Path, sha: str, paths: list[str], moves: list[tuple[str, str]], named: str,
               head: str | None, diff: tuple[dict, dict]) -> tuple[tuple[FileChange, ...], tuple[tuple[str, str], ...]]:  # fmt: skip
    """The file changes that give `paths` the bytes they had before commit `sha` (its `diff`: new
    and old entries per path; a move moved back), and the state rows to move back; Refused while
    any of them changed since."""
    new, old = diff
    changed = git.changed_between(sha, head, paths)
    if changed:
        later = git.run("log", "-1", "--format=%h%x1f%s", f"{sha}..{head}", "--", *changed, check=False).out.strip()
        short, _, text = later.partition("\x1f")
        by = f": {short} “{_visible_subject(text)}”" if later else ""
        raise Refused(f"{', '.join(changed[:5])} changed since {named} (someone committed over it{by}): "
                      f"revert {sha[:12]} with git yourself if you still want to")  # fmt: skip
    dirty = sorted(p for p, xy in path_status(git, paths).items() if xy not in ("??", "!!"))
    if dirty:
        raise Refused(f"{', '.join(dirty[:5])} has uncommitted changes: commit or discard them first")
    in_moves = {p for m in moves for p in m}
    before = _blobs(git, {p: e.sha for p, e in old.items() if e is not None and p in paths})
    changes: list[FileChange] = []
    for src, dst in moves:
        changes.append(FileChange("move", src, _current(root, dst), before[src], source=dst))
    for path in paths:
        if path in in_moves:
            continue
        if old.get(path) is None:
            changes.append(FileChange("delete", path, _current(root, path), None))
        elif new.get(path) is None:
            changes.append(FileChange("create", path, None, before[path]))
        else:
            changes.append(FileChange("modify", path, _current(root, path), before[path]))
    return tuple(changes), tuple((dst, src) for src, dst in reversed(moves))


def revert_plan(git: Git, root: Path, sha: str, paths: tuple[str, ...]) -> tuple[Plan, str | None]:
    """The plan that reverts commit `sha` on `paths` only (one change of a commit that may hold
    others: the review inbox's "Revert this change"); Refused, nothing touched, when a later
    commit touched those paths, they are dirty, or the commit is not in the branch."""
    head = check_repository(git)
    found = git.run("rev-parse", "-q", "--verify", f"{sha}^{{commit}}", check=False)
    full = found.out.strip() if found.code == 0 else sha
    subject = _visible_subject(git.run("log", "-1", "--format=%s", full, check=False).out.strip()) or full[:12]
    named = f"“{subject}” ({full[:12]})"
    _in_branch(git, full, named, head, "revert")
    parents = git.run("rev-list", "--parents", "-n", "1", full).out.split()[1:]
    if len(parents) > 1:
        raise Refused(f"{named} is a merge commit: revert the commits it merged instead")
    from memhtml_desktop.write.executor import Executor

    diff = Executor(root, git, None)._diff(parents[0] if parents else None, full)
    new = diff[0]
    wanted = sorted(dict.fromkeys(paths))
    missing = [p for p in wanted if p not in new]
    if not wanted or missing:
        raise Refused(f"{', '.join(missing[:5]) or 'nothing'}: not changed by {named}; nothing to revert")
    moves = _renames(git, parents[0] if parents else None, full, wanted)
    changes, state_moves = _reverting(git, root, full, wanted, moves, named, head, diff)
    rows = _own_rows(git, full, set(wanted))
    if rows is not None:  # the app's own commit: the rows it moved go back (a correction's reads too)
        state_moves = rows
    others = sorted(set(new) - set(wanted))
    body = f"This reverts commit {full}" + (f" on {', '.join(wanted)} only; its other changes stay." if others else ".")
    plan = Plan(op="revert", request=None, changes=changes, subject=f'Revert "{subject}"', body=body,
                state_moves=state_moves, result={"reverted": full, "commit_sha": None, "paths": wanted})  # fmt: skip
    return plan, head


def _own_rows(git: Git, sha: str, paths: set[str]) -> tuple[tuple[str, str], ...] | None:
    """The state rows commit `sha` moved among `paths`, moved back, when it is one of the app's own
    commits that recorded them (own_commits.py); None otherwise."""
    from memhtml_desktop.write import own_commits

    try:
        record = next((r for r in own_commits.load(git.git_dir()) if r.get("sha") == sha), None)
    except OSError:
        return None
    rows = record.get("rows") if record else None
    if not isinstance(rows, list):
        return None
    return tuple((dst, src) for src, dst in reversed([tuple(m) for m in rows if isinstance(m, list) and len(m) == 2])
                 if src in paths and dst in paths)  # fmt: skip


def _renames(git: Git, parent: str | None, sha: str, paths: list[str]) -> list[tuple[str, str]]:
    """(old, new) of each rename commit `sha` made among `paths` (git's rename detection)."""
    base = parent or git.run("hash-object", "-t", "tree", "--stdin", input_text="").out.strip()
    out = git.run("diff-tree", "-r", "-M", "-z", "--name-status", base, sha, "--", *paths).out.split("\0")
    moves, i = [], 0
    while i < len(out):
        status = out[i]
        if status.startswith("R") and i + 2 < len(out):
            if out[i + 1] in paths and out[i + 2] in paths:
                moves.append((out[i + 1], out[i + 2]))
            i += 3
        else:
            i += 2 if status else 1
    return moves


def _visible_subject(text: str) -> str:
    """A subject from anyone's commit, its control characters shown as their pictures."""
    return "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\ufffd" if 0x7F <= ord(c) <= 0x9F else c
                   for c in text)  # fmt: skip


def _current(root: Path, path: str) -> bytes:
    try:
        return read_guarded(path, root=root, cap=MAX_BYTES, what=path)
    except FileNotFoundError:
        raise Refused(f"{path} is missing from the working tree: nothing to undo") from None
    except ValueError as exc:
        raise Refused(str(exc)) from None


def plan_revert(ctx, req) -> Plan:
    """The write core's planner for a `RevertRequest` (see `revert_plan`)."""
    from dataclasses import replace

    plan, _head = revert_plan(Git(ctx.root), ctx.root, req.commit, tuple(req.paths))
    return replace(plan, request=req, now=ctx.now_text)
