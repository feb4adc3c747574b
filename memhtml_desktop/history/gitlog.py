"""The store's history as git tells it: commits with their raw diffs, and blobs, in few processes.

Everything here reads; nothing writes. One `git log --no-walk=unsorted --stdin --raw -M -z` lists
a page of commits (author, time, subject, the two trailers this app and memhtml write, every file
each commit changed with its old and new blob ids, renames detected), and one `git cat-file
--batch` reads the blobs a page needs. So 3,000 commits cost about what `git log --name-status`
over them costs (bench/review_bench.py).

The output is framed with a random token per call: a commit message is anyone's text (a plain
`git commit` may hold any byte but NUL), and no message can guess the token.
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memhtml_desktop.write.git import Git, git_env

ZERO = "0" * 40
#: A blob larger than this is not read for the listing (a memory file's cap is 8 MB).
BLOB_CAP = 8 * 1024 * 1024
TRAILERS = ("Memhtml-Reason", "Memhtml-Session")


@dataclass(frozen=True)
class FileDiff:
    """One file a commit changed: git's status letter (A M D R T), paths and blob ids (None: absent)."""

    status: str
    path: str
    old_path: str | None
    old_blob: str | None
    new_blob: str | None


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    at: str  # the author date, ISO 8601 as git gives it (with its offset)
    subject: str
    reason: str | None
    session: str | None
    files: tuple[FileDiff, ...]

    @property
    def author(self) -> str:
        return f"{self.author_name} <{self.author_email}>"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def read_commits(git: Git, shas: Sequence[str]) -> list[Commit]:
    """These commits (in this order) with their changes against their first parent; a merge lists
    no changes of its own (its parents' commits carry them)."""
    if not shas:
        return []
    token = secrets.token_hex(8)
    start, sep = f"%x1e{token}%x1f", f"%x1f{token}%x1f"
    fields = ["%H", "%P", "%an", "%ae", "%aI", "%s"] + [
        f"%(trailers:key={key},valueonly,separator=%x1d)" for key in TRAILERS
    ]
    fmt = start + sep.join(fields) + sep
    out = _run(git, "log", "--no-walk=unsorted", "--stdin", "--raw", "-M", "--no-abbrev", "-z",
               "--no-color", "--no-ext-diff", "--no-textconv", f"--format={fmt}",
               input_bytes="".join(s + "\n" for s in shas).encode())  # fmt: skip
    head_mark = b"\x1e" + token.encode() + b"\x1f"
    sep_mark = b"\x1f" + token.encode() + b"\x1f"
    commits = []
    for chunk in out.split(head_mark)[1:]:
        parts = chunk.split(sep_mark)
        if len(parts) < len(fields) + 1:
            continue
        sha, parents, name, email, at, subject, reason, session = (_text(p) for p in parts[: len(fields)])
        rest = sep_mark.join(parts[len(fields) :])
        commits.append(Commit(sha, tuple(parents.split()), name, email, at, subject,
                              _trailer(reason), _trailer(session), tuple(_raw_files(rest))))  # fmt: skip
    return commits


def _trailer(text: str) -> str | None:
    values = [v.strip() for v in text.split("\x1d") if v.strip()]
    return values[-1] if values else None


def _raw_files(data: bytes) -> Iterable[FileDiff]:
    """`--raw -z` entries: `:oldmode newmode old new STATUS\\0path\\0[path2\\0]`."""
    tokens = data.split(b"\0")
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip(b"\n")
        i += 1
        if not token.startswith(b":"):
            continue
        meta = token[1:].split(b" ")
        if len(meta) < 5 or i >= len(tokens):
            continue
        old, new, status = _text(meta[2]), _text(meta[3]), _text(meta[4])
        letter = status[:1]
        first = _text(tokens[i])
        i += 1
        if letter in ("R", "C") and i < len(tokens):
            second = _text(tokens[i])
            i += 1
            yield FileDiff(letter, second, first, None if old == ZERO else old, None if new == ZERO else new)
        else:
            yield FileDiff(letter, first, None, None if old == ZERO else old, None if new == ZERO else new)


def read_blobs(git: Git, shas: Iterable[str], *, cap: int = BLOB_CAP) -> dict[str, bytes]:
    """{blob id: bytes} for these blobs; missing ones (a shallow or partial clone) and those over
    `cap` are absent from the answer."""
    wanted = list(dict.fromkeys(s for s in shas if s))
    if not wanted:
        return {}
    sizes = _sizes(git, wanted)
    readable = [s for s in wanted if 0 <= sizes.get(s, -1) <= cap]
    if not readable:
        return {}
    out = _run(git, "cat-file", "--batch", input_bytes="".join(s + "\n" for s in readable).encode())
    found: dict[str, bytes] = {}
    pos = 0
    for sha in readable:
        end = out.find(b"\n", pos)
        if end < 0:
            break
        header = out[pos:end].split(b" ")
        if len(header) != 3:  # "<sha> missing"
            pos = end + 1
            continue
        size = int(header[2])
        if header[1] == b"blob":
            found[sha] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return found


def _sizes(git: Git, shas: list[str]) -> dict[str, int]:
    out = _run(git, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
               input_bytes="".join(s + "\n" for s in shas).encode())  # fmt: skip
    sizes = {}
    for line in out.split(b"\n"):
        parts = line.split(b" ")
        if len(parts) == 3 and parts[1] == b"blob":
            sizes[_text(parts[0])] = int(parts[2])
    return sizes


def _run(git: Git, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Stdout of one git command (bytes); a failure is a GitError in git's words."""
    from memhtml_desktop.write.git import GitError, GitMissing

    if git.executable is None:
        raise GitMissing("git was not found on PATH")
    proc = subprocess.run([git.executable, "-C", str(git.root), *args], input=input_bytes, capture_output=True,
                          env=git_env(), check=False)  # fmt: skip
    if proc.returncode != 0:
        err = _text(proc.stderr).strip().splitlines()
        raise GitError(f"git {args[0]} failed (exit {proc.returncode})" + (f": {err[0]}" if err else ""),
                       subcommand=args[0], exit_code=proc.returncode, stderr=_text(proc.stderr))  # fmt: skip
    return proc.stdout
