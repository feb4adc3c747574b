"""The curator's review mark: "everything up to this commit has been looked at".

**Where it lives, and why.** The mark is a ref of this app's own, `refs/memhtml-desktop/review-mark`
(a linked worktree has its own: `refs/memhtml-desktop/review-mark-worktrees/<name>`), written with
`git update-ref` and a compare-and-swap on its old value. Decided over a file in the app's data
folder keyed by the repository because:

- **`git gc` keeps what a ref names.** When the history under the mark is rewritten (a rebase, an
  amend, a reset), the inbox lists from where the old and new histories meet (`merge-base`), which
  needs the old commit. A sha in a file protects nothing: the first `git gc --prune` after the
  rewrite deletes the commit, and the inbox could only say the mark is gone.
- **It is never part of the store's history, and never leaves the machine by itself.** It is not
  under `refs/heads/` or `refs/tags/`, so no commit carries it, `git clone`, `git fetch` and a
  plain `git push` do not copy it, and `git branch`/`git tag` do not list it. memhtml only runs
  `log`, `diff <watermark>..HEAD`, `status` and its own branches (`sleep/<date>`): it never sees
  it. (`git log --all`, `gitk --all` and `git push --mirror` do see it: it is named for this app.)
- **It follows the repository, not a path.** Moving or renaming the store's folder keeps it; a
  fresh clone starts with no mark (the last 7 days), which is right: the clone's curator has not
  looked at anything yet.
- **Worktrees.** Refs under `refs/` are shared by every worktree of a repository, so a linked
  worktree gets a name of its own. Not `refs/worktree/…` (per-worktree by design): git 2.39's `gc`
  run from the main worktree does not count a linked worktree's `refs/worktree/` refs as reachable
  and prunes the commit they name (tried: the ref is then a "bad object").

Items accepted one by one ahead of the mark (Accept on the third of five changes) are remembered
in `<git dir>/memhtml-desktop/review-accepted.json` (beside the write journals: per worktree, never
in the working tree, never committed) until the mark passes them. Only `review done` and Accept
write either; listing writes nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from memhtml_desktop.atomic import write_atomically
from memhtml_desktop.write.git import Git, GitError

REF = "refs/memhtml-desktop/review-mark"
WORKTREE_REFS = "refs/memhtml-desktop/review-mark-worktrees/"
ACCEPTED = Path("memhtml-desktop") / "review-accepted.json"
MAX_ACCEPTED = 100_000


def mark_ref(git: Git) -> str:
    """This worktree's mark: the main worktree's is REF, a linked one's is named after it."""
    git_dir, common = git.git_dir().resolve(), git.common_dir().resolve()
    if git_dir == common:
        return REF
    name = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in git_dir.name).strip(".") or "worktree"
    return WORKTREE_REFS + name


@dataclass(frozen=True)
class MarkState:
    """The mark as git has it: `sha` (None: no mark), whether that commit is in the repository."""

    ref: str
    sha: str | None
    exists: bool


def read_mark(git: Git) -> MarkState:
    ref = mark_ref(git)
    result = git.run("rev-parse", "-q", "--verify", ref, check=False)
    sha = result.out.strip() if result.code == 0 else None
    if sha is None:
        # A ref whose object is gone fails --verify: read the ref itself to tell "none" from "gone".
        raw = git.run("for-each-ref", "--format=%(objectname)", ref, check=False).out.strip()
        if raw:
            return MarkState(ref, raw.splitlines()[0], False)
        return MarkState(ref, None, False)
    exists = git.run("cat-file", "-e", f"{sha}^{{commit}}", check=False).code == 0
    return MarkState(ref, sha, exists)


def move_mark(git: Git, to: str, expected: str | None) -> None:
    """Set the mark to commit `to`, if it is still `expected` (None: if there is none or it is
    broken); GitError when someone moved it meanwhile."""
    state = read_mark(git)
    old = state.sha if state.sha else "0" * 40
    if expected is not None and state.sha != expected:
        raise GitError("the review mark was moved meanwhile (another window or `review done`)")
    git.run("update-ref", "-m", "memhtml-desktop: review done", state.ref, to, old)


# -- items accepted ahead of the mark ---------------------------------------------------------------


def accepted_file(git: Git) -> Path:
    return git.git_dir() / ACCEPTED


def read_accepted(git: Git) -> set[str]:
    """Keys (`commit:path`) of changes accepted ahead of the mark; an unreadable file is empty."""
    try:
        data = json.loads(accepted_file(git).read_text(encoding="utf-8"))
    except (OSError, ValueError, GitError):
        return set()
    keys = data.get("accepted") if isinstance(data, dict) else None
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def write_accepted(git: Git, keys: set[str]) -> None:
    target = accepted_file(git)
    if not keys:
        try:
            os.unlink(target)
        except FileNotFoundError:
            pass
        return
    body = json.dumps({"accepted": sorted(keys)[:MAX_ACCEPTED]}, ensure_ascii=False, indent=0)
    write_atomically(target, body.encode("utf-8"))
