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
    if git.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).code != 0:
        raise Refused(f"{named} is not in this repository: the store was re-created or its history "
                      "rewritten since this app wrote it")  # fmt: skip
    if head is None or not git.is_ancestor(sha, "HEAD"):
        raise Refused(f"{named} is no longer in this branch's history: nothing to undo")
    parent = git.parent(sha)
    from memhtml_desktop.write.executor import Executor

    new, old = Executor(root, git, None)._diff(parent, sha)
    paths = sorted(new)
    changed = git.changed_between(sha, head, paths)
    if changed:
        raise Refused(f"{', '.join(changed[:5])} changed since {named} (someone committed over it): "
                      f"revert {sha[:12]} with git yourself if you still want to")  # fmt: skip
    dirty = sorted(p for p, xy in path_status(git, paths).items() if xy not in ("??", "!!"))
    if dirty:
        raise Refused(f"{', '.join(dirty[:5])} has uncommitted changes: commit or discard them first")
    moves = [tuple(m) for m in last.get("moves", []) if m[0] in new and m[1] in new]
    in_moves = {p for m in moves for p in m}
    before = _blobs(git, {p: e.sha for p, e in old.items() if e is not None})
    changes: list[FileChange] = []
    for src, dst in moves:
        changes.append(FileChange("move", src, _current(root, dst), before[src], source=dst))
    for path in paths:
        if path in in_moves:
            continue
        if old[path] is None:
            changes.append(FileChange("delete", path, _current(root, path), None))
        elif new[path] is None:
            changes.append(FileChange("create", path, None, before[path]))
        else:
            changes.append(FileChange("modify", path, _current(root, path), before[path]))
    plan = Plan(op="undo", request=None, changes=tuple(changes), subject=f'Revert "{subject}"',
                body=f"This reverts commit {sha}.", state_moves=tuple((dst, src) for src, dst in reversed(moves)))  # fmt: skip
    return plan, head


def _current(root: Path, path: str) -> bytes:
    try:
        return read_guarded(path, root=root, cap=MAX_BYTES, what=path)
    except FileNotFoundError:
        raise Refused(f"{path} is missing from the working tree: nothing to undo") from None
    except ValueError as exc:
        raise Refused(str(exc)) from None
