"""Pairs a curator said are not a conflict: remembered on a ref of this app's own, one commit each.

The conflicts queue's "not a conflict" must be remembered (never shown again, across restarts)
without putting anything memhtml reads into the store. **Where it lives:** a file, `dismissed.json`,
in the tree of the commit that `refs/memhtml-desktop/conflicts-dismissed` names; each dismissal (and
each restore) is one commit on that ref, made with `hash-object`, `mktree`, `commit-tree` and landed
with `update-ref REF <new> <old>`, a compare-and-swap on the ref's old value. Decided over:

- **the app's data folder, keyed by the repository**: it would be one person's on one machine, lost
  when the store is cloned or the data folder is, and a second window or a CLI of another user
  would not see it; a file keyed by a path also loses it when the store's folder moves. The ref
  follows the repository (like the review mark, `history/mark.py`), and a team can share it on
  purpose (`git push origin refs/memhtml-desktop/conflicts-dismissed`), which no file in a data
  folder allows;
- **a file committed in the store** (beside the workbench's probe sets): it would be in the branch
  memhtml reads, its `publish` and `sleep` runs would carry it, an agent's `git add -A` could sweep
  an edit of it, and the decision is the curator's about this app's scan, not a memory. The ref is
  not under `refs/heads/` or `refs/tags/`: no branch holds it, `clone`, `fetch` and a plain `push`
  do not copy it, and memhtml (which reads the working tree, `HEAD`'s history and its own `sleep/`
  branches) never sees it. `git gc` keeps what it names.

**The key** is the two memories' content hashes (the article's `sha256:…`, sorted), not their paths:
a `git mv` or a folder's rename keeps the judgement, while an edit of either memory's article makes
the pair a new question, listed again (the curator judged those two texts). The record keeps the
paths and the claims as they were, so the file reads on its own, and the note the curator gave as
the commit's body. A dismissal is not in the app's Undo list (that is for the branch's commits):
"Show dismissed pairs" in the conflicts view lists them, and Restore (R) is one more commit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memhtml_desktop.html.jsnum import js_trim
from memhtml_desktop.index import curation
from memhtml_desktop.write.context import clean_path, commit_subject
from memhtml_desktop.write.errors import PathNotFound, Refused, Stale
from memhtml_desktop.write.git import Git, GitError
from memhtml_desktop.write.plan import FileChange, Plan
from memhtml_desktop.write.text_rules import check_texts

REF = "refs/memhtml-desktop/conflicts-dismissed"
FILE = "dismissed.json"
SHOWN_AS = f"{REF}:{FILE}"  # the "path" a preview lists
OPS = ("dismiss", "undismiss")
MAX_BYTES = 16 * 1024 * 1024
_ZERO = "0" * 40


@dataclass(frozen=True)
class DismissRequest:
    """The pair (`a`, `b`) is not a conflict (`restore`: it is one again)."""

    a: str
    b: str
    note: str | None = None
    restore: bool = False


def pair_key(hash_a: str, hash_b: str) -> str:
    return " ".join(sorted((hash_a, hash_b)))


class Unreadable(Refused):
    """The ref names something that is not this app's dismissed pairs: never written over."""


def read_dismissed(git: Git, *, strict: bool = False) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """(the ref's commit or None, {key: record}). A ref whose file cannot be read holds nothing for
    the scan; `strict` (before writing a new commit over it) refuses instead, so nothing is lost."""
    found = git.run("rev-parse", "-q", "--verify", f"{REF}^{{commit}}", check=False)
    if found.code != 0:
        broken = git.run("for-each-ref", "--format=%(objectname)", REF, check=False).out.strip()
        if strict and broken:
            raise Unreadable(f"{REF} names {broken[:12]}, which is not a commit in this repository: "
                             f"delete the ref (git update-ref -d {REF}) to start again")  # fmt: skip
        return None, {}
    tip = found.out.strip()
    blob = git.run("cat-file", "-p", f"{tip}:{FILE}", check=False)
    problem = (
        "it has no dismissed.json"
        if blob.code != 0
        else "its dismissed.json is too large"
        if len(blob.out) > MAX_BYTES
        else ""
    )
    data: Any = None
    if not problem:
        try:
            data = json.loads(blob.out)
        except (ValueError, RecursionError):
            problem = "its dismissed.json is not valid JSON"
    pairs = data.get("pairs") if isinstance(data, dict) else None
    if not problem and not isinstance(pairs, list):
        problem = "its dismissed.json holds no list of pairs"
    if problem:
        if strict:
            raise Unreadable(f"{REF} ({tip[:12]}) cannot be read: {problem}; nothing was written (fix it, or "
                             f"delete the ref with git update-ref -d {REF} to start again)")  # fmt: skip
        return tip, {}
    records = {}
    for record in pairs:
        if isinstance(record, dict) and isinstance(record.get("key"), str):
            records[record["key"]] = record
    return tip, records


def dismissed_keys(root) -> set[str]:
    """The keys dismissed in the repository at `root` (none when it is not one)."""
    try:
        return set(read_dismissed(Git(root))[1])
    except (GitError, OSError):
        return set()


def _text(records: dict[str, dict[str, Any]]) -> bytes:
    body = {"version": 1, "pairs": [records[k] for k in sorted(records)]}
    return (json.dumps(body, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _subject(text: str) -> str:
    """memhtml's subject rules (folded, cut at 72 with `…`) under this app's own name: not memhtml's commit."""
    return "memhtml-desktop" + commit_subject("conflicts", text)[len("memhtml") :]


def plan_dismiss(ctx, req: DismissRequest) -> Plan:
    """The commit on REF that dismisses (or restores) the pair; nothing touched."""
    check_texts(note=req.note)
    a, b = sorted((clean_path(req.a), clean_path(req.b)))  # as the scan names a pair: `a` first by path
    if a == b:
        raise Refused("a memory is not in conflict with itself")
    facts = curation.files_facts(ctx.conn, (a, b))
    for path in (a, b):
        if path not in facts:
            raise PathNotFound(path)
    key = pair_key(facts[a]["content_hash"], facts[b]["content_hash"])
    tip, records = read_dismissed(Git(ctx.root), strict=True)
    before = _text(records) if tip is not None else None
    op = "undismiss" if req.restore else "dismiss"
    result = {"a": a, "b": b, "key": key, "dismissed": not req.restore, "commit_sha": None}
    if req.restore:
        if key not in records:
            return Plan(op=op, request=req, now=ctx.now_text, result=result,
                        notes=("The pair is not dismissed: nothing to restore.",), checked_on=(tip,))  # fmt: skip
        records = {k: v for k, v in records.items() if k != key}
        subject = _subject(f"restore {a} / {b}")
    else:
        if key in records:
            return Plan(op=op, request=req, now=ctx.now_text, result=result,
                        notes=("The pair is dismissed already: nothing to write.",), checked_on=(tip,))  # fmt: skip
        note = js_trim(req.note or "")
        records = {**records, key: {"key": key, "a": a, "b": b, "claims": [facts[a]["gist"], facts[b]["gist"]],
                                    "at": ctx.now_text, **({"note": note} if note else {})}}  # fmt: skip
        subject = _subject(f"not a conflict: {a} / {b}")
    after = _text(records)
    return Plan(
        op=op, request=req, now=ctx.now_text,
        changes=(FileChange("create" if before is None else "modify", SHOWN_AS, before, after),),
        subject=subject, body=js_trim(req.note or "") if not req.restore else "",
        notes=(f"The commit goes on {REF}, a ref of this app's own: not on your branch, never read by memhtml; "
               "the pair is remembered by its two memories' texts, so an edit of either lists it again.",),
        result=result, checked_on=(tip,),
    )  # fmt: skip


def land_dismiss(git: Git, plan: Plan) -> str:
    """Commit `plan`'s file on REF, if REF is still the commit the plan was made on; its sha.
    (The caller holds the write lock; the compare-and-swap is what keeps two writers apart.)"""
    tip, _ = read_dismissed(git, strict=True)
    if plan.checked_on is None or tip != plan.checked_on[0]:
        raise Stale("the dismissed pairs changed since this was previewed (another window dismissed or restored "
                    "one); nothing was written: review it again")  # fmt: skip
    problem = git.identity_problem()
    if problem:
        raise Refused(f"git has no identity to commit with: {problem}")
    data = plan.changes[0].after or b""
    blob = git.run("hash-object", "-w", "--stdin", input_bytes=data).out.strip()
    tree = git.run("mktree", input_text=f"100644 blob {blob}\t{FILE}\n").out.strip()
    message = plan.subject + (f"\n\n{plan.body}" if plan.body else "") + "\n"
    parents = ["-p", tip] if tip else []
    sha = git.run("commit-tree", tree, *parents, input_text=message).out.strip()
    moved = git.run("update-ref", "-m", f"memhtml-desktop: {plan.op}", REF, sha, tip or _ZERO, check=False)
    if moved.code != 0:
        raise Stale("another window dismissed or restored a pair at the same moment; nothing was written: "
                    "review it again")  # fmt: skip
    return sha
