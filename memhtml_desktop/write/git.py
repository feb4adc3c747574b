"""The user's own `git`, called the way memhtml calls it (write-paths §1.3).

Every call is `git -C <root> …` with the caller's environment plus `GIT_TERMINAL_PROMPT=0`,
`GIT_OPTIONAL_LOCKS=0` and `LC_ALL=C`: no prompt can hang a write, a status never takes an
optional lock another git is waiting for, and messages are English for the few we read. The app
sets no author, committer or date, so the user's identity applies, as it does to memhtml's
commits (how hooks and signing apply to a commit built with `commit-tree`: `executor.py`).

git's locks (`index.lock`, `HEAD.lock`, a branch's `.lock`) are what a concurrent agent (or
memhtml's CLI, or an editor's git integration) holds for a moment. A command that meets one is
retried briefly; past that, the write is refused with a message naming the very lock git named,
and whether its owner is gone (`leftovers.py`), rather than failing halfway.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: How long a command waits, in total, for another process's `index.lock` to go away.
LOCK_WAIT_S = 3.0


class GitError(Exception):
    """A git call failed. `message` is what the user sees (memhtml's wording first)."""

    def __init__(self, message: str, *, subcommand: str = "", exit_code: int | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.subcommand = subcommand
        self.exit_code = exit_code
        self.stderr = stderr


class GitMissing(GitError):
    """No `git` executable on PATH."""


class GitLocked(GitError):
    """Another process held git's `index.lock` (or a ref lock) through every retry."""


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


NOT_A_REPOSITORY = "not a git repository"
"""git's words (LC_ALL=C: `git_env`) when the folder is in no repository."""


def _is_lock_failure(err: str) -> bool:
    """git met a lock another process holds (`Unable to create '….lock': File exists`). Not a ref
    that moved under a compare-and-swap, and not a lock file git could not write (a full disk)."""
    if "but expected" in err or "reference already exists" in err:
        return False
    return ".lock" in err and "File exists" in err


@dataclass(frozen=True)
class Entry:
    """One index or tree entry: mode and object id (None for both: no entry)."""

    mode: str
    sha: str


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


class Git:
    """`git -C root`, run synchronously. One object per store; holds no state but the paths."""

    def __init__(self, root: str | os.PathLike[str], *, lock_wait_s: float = LOCK_WAIT_S) -> None:
        self._answers: dict[str, tuple[tuple, object]] = {}
        self.root = Path(root)
        self.lock_wait_s = lock_wait_s
        self.executable = shutil.which("git")

    def run(
        self,
        *args: str,
        check: bool = True,
        input_text: str | None = None,
        retry_lock: bool = True,
        env: dict[str, str] | None = None,
        input_bytes: bytes | None = None,
    ) -> Result:
        """Run one git command. A lock held by another process is retried for `lock_wait_s`.

        `env`: variables added for this call (`GIT_INDEX_FILE` for the write core's own index)."""
        if self.executable is None:
            raise GitMissing(
                "git was not found on PATH: this app writes through your own git", subcommand=args[0] if args else ""
            )
        deadline = time.monotonic() + self.lock_wait_s
        delay = 0.05
        while True:
            try:
                proc = subprocess.run(
                    [self.executable, "-C", str(self.root), *args],
                    input=input_bytes
                    if input_bytes is not None
                    else (input_text.encode("utf-8") if input_text is not None else None),
                    capture_output=True,
                    env={**git_env(), **(env or {})},
                    check=False,
                )
            except OSError as exc:
                raise GitMissing(f"git could not be run: {exc}", subcommand=args[0] if args else "") from exc
            result = Result(
                proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
            )
            if result.code == 0 or not check:
                return result
            if retry_lock and _is_lock_failure(result.err) and time.monotonic() < deadline:
                log.info("git %s met a lock; retrying: %s", args[0], result.err.strip())
                time.sleep(delay)
                delay = min(delay * 2, 0.4)
                continue
            sub = args[0] if args else "git"
            # A store that is not a repository is a state the app shows (curation off), not a fault:
            # every caller that asks such a store for its git directory handles the GitError.
            level = logging.INFO if NOT_A_REPOSITORY in result.err else logging.WARNING
            log.log(level, "git %s failed (exit %d): %s", " ".join(args[:3]), result.code, result.err.strip())
            if _is_lock_failure(result.err):
                raise GitLocked(
                    f"git {sub} failed (exit {result.code}): {self.lock_sentence(result.err)}",
                    subcommand=sub, exit_code=result.code, stderr=result.err,
                )  # fmt: skip
            detail = _first_lines(result.err)
            raise GitError(
                f"git {sub} failed (exit {result.code})" + (f": {detail}" if detail else ""),
                subcommand=sub, exit_code=result.code, stderr=result.err,
            )  # fmt: skip

    # -- questions --------------------------------------------------------------------------

    def toplevel(self) -> tuple[Path | None, str]:
        """The work tree's root, or None with git's reason (not a repository, dubious ownership…).

        Asks for the git directory in the same call and remembers it (`git_dir`)."""
        result = self.run("rev-parse", "--show-toplevel", "--absolute-git-dir", check=False)
        lines = result.out.splitlines()
        if result.code == 0 and len(lines) == 2:
            self._git_dir = Path(lines[1])
            return Path(lines[0]), ""
        return None, result.err

    _git_dir: Path | None = None

    def git_dir(self) -> Path:
        """This work tree's git directory (a linked worktree's own, where its index and MERGE_HEAD live)."""
        if self._git_dir is None:
            self._git_dir = Path(self.run("rev-parse", "--absolute-git-dir").out.strip())
        return self._git_dir

    def git_path(self, name: str) -> Path:
        """A per-worktree file of the git directory (`index.lock`, `MERGE_HEAD`, `rebase-merge`)."""
        return self.git_dir() / name

    def lock_path(self) -> Path:
        try:
            return self.git_path("index.lock")
        except GitError:
            return self.root / ".git" / "index.lock"

    def lock_sentence(self, stderr: str = "", lock: Path | None = None) -> str:
        """Which lock stopped git (the one its message names: `HEAD.lock` is not `index.lock`),
        whether its owner is gone, and what to do."""
        from memhtml_desktop.write.leftovers import describe_lock, lock_in_message

        lock = lock or lock_in_message(stderr) or self.lock_path()
        try:
            git_dir = self.git_dir()
        except GitError:
            git_dir = self.root / ".git"
        return describe_lock(lock, self.root, git_dir)

    def hooks_dir(self, *, cached: bool = False) -> Path:
        """Where git looks for hooks (`core.hooksPath` honoured); `cached`: asked again only when a
        config file changed (`config_mark`)."""
        return self._remembered(
            "hooks",
            cached,
            lambda: Path(self.run("rev-parse", "--path-format=absolute", "--git-path", "hooks").out.strip()),
        )

    def config_bool(self, key: str, *, cached: bool = False) -> bool:
        def ask() -> bool:
            result = self.run("config", "--type=bool", "--get", key, check=False)
            return result.code == 0 and result.out.strip() == "true"

        return self._remembered(f"config {key}", cached, ask)

    def _remembered(self, name: str, cached: bool, ask):
        if not cached:
            return ask()
        mark = self.config_mark()
        known = self._answers.get(name)
        if known is not None and known[0] == mark:
            return known[1]
        value = ask()
        self._answers[name] = (mark, value)
        return value

    def config_mark(self) -> tuple:
        """What changes when git's configuration may have: the config files' stats (the
        repository's, the global and the system ones) and the variables that point git elsewhere."""
        home = Path(os.environ.get("HOME", "~")).expanduser()
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        files = [self.common_dir() / "config", self.git_dir() / "config.worktree", home / ".gitconfig",
                 xdg / "git" / "config", Path("/etc/gitconfig")]  # fmt: skip
        files += [Path(os.environ[v]) for v in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM") if os.environ.get(v)]
        stats = []
        for path in files:
            try:
                st = path.stat()
                stats.append((str(path), st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                stats.append((str(path), None))
        return (tuple(stats), tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_CONFIG"))))

    def common_dir(self) -> Path:
        """The repository's common git directory (a linked worktree shares the main one's refs)."""
        git_dir = self.git_dir()
        try:
            return (git_dir / _text(git_dir / "commondir").strip()).resolve()
        except (OSError, ValueError):
            return git_dir

    def tree_of(self, rev: str) -> str:
        return self.run("rev-parse", "--verify", f"{rev}^{{tree}}").out.strip()

    def is_ancestor(self, ancestor: str, rev: str = "HEAD") -> bool:
        return self.run("merge-base", "--is-ancestor", ancestor, rev, check=False).code == 0

    def changed_between(self, old: str | None, new: str | None, paths: list[str]) -> list[str]:
        """Of `paths`, those whose tree entry differs between commits `old` and `new` (None: no commit)."""
        if not paths or old == new:
            return []
        empty = self.run("hash-object", "-t", "tree", "--stdin", input_text="").out.strip()
        out = self.run("diff-tree", "-r", "-z", "--no-renames", "--name-only", old or empty, new or empty,
                       "--", *paths).out  # fmt: skip
        return [p for p in out.split("\0") if p]

    def entries(self, rev: str | None, paths: list[str]) -> dict[str, Entry]:
        """`paths`' entries in commit `rev`'s tree (absent paths are absent from the result)."""
        if rev is None or not paths:
            return {}
        out = self.run("ls-tree", "-r", "-z", "--full-tree", rev, "--", *paths).out
        return {path: Entry(fields[0], fields[2]) for path, fields in _records(out)}

    def index_entries(self, paths: list[str], *, index_file: Path | None = None) -> dict[str, Entry]:
        """`paths`' stage-0 entries in git's index (or in `index_file`)."""
        if not paths:
            return {}
        env = {"GIT_INDEX_FILE": str(index_file)} if index_file is not None else None
        out = self.run("ls-files", "-s", "-z", "--", *paths, env=env).out
        return {path: Entry(fields[0], fields[1]) for path, fields in _records(out) if fields[2] == "0"}

    def head(self) -> str | None:
        """HEAD's commit sha, or None on an unborn branch."""
        fast = self._read_head()
        if fast is not None and fast[1] is not None:
            return fast[1]
        result = self.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        return result.out.strip() or None if result.code == 0 else None

    def branch(self) -> str | None:
        """The checked-out branch (`refs/heads/…`), or None when HEAD is detached."""
        fast = self._read_head()
        if fast is not None:
            return fast[0]
        result = self.run("symbolic-ref", "-q", "HEAD", check=False)
        return result.out.strip() if result.code == 0 else None

    def _read_head(self) -> tuple[str | None, str | None] | None:
        """(branch, its tip) read from the git directory's files as git reads them (HEAD, the loose
        ref, packed-refs), no process; None (ask git) for anything but that plain layout (a reftable
        repository, an unreadable file). A detached HEAD gives (None, its sha); an unborn branch
        or a tip in neither place, (branch, None)."""
        try:
            head = _text(self.git_dir() / "HEAD").strip()
        except (OSError, GitError, ValueError):
            return None
        if _is_sha(head):
            return None, head
        if not head.startswith("ref: refs/heads/") or head.endswith("/.invalid"):
            return None
        ref = head[5:]
        common = self.common_dir()
        try:
            loose = _text(common / ref).strip()
            return (ref, loose) if _is_sha(loose) else None
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            return None
        try:
            packed = _text(common / "packed-refs", cap=64 * 1024 * 1024)
        except FileNotFoundError:
            return ref, None
        except (OSError, ValueError):
            return None
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name == ref and _is_sha(sha):
                return ref, sha
        return ref, None

    def identity_problem(self) -> str | None:
        """Why git would refuse to commit for lack of an identity, or None."""
        for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
            result = self.run("var", var, check=False)
            if result.code != 0:
                return _first_lines(result.err) or f"git var {var} failed"
        return None

    def staged(self) -> list[str]:
        """Paths whose index entry differs from HEAD (what a plain `git commit` would take)."""
        args = ("diff", "--cached", "--name-only", "-z", "--no-renames")
        if self.head() is None:
            out = self.run("ls-files", "-z").out
        else:
            out = self.run(*args).out
        return [p for p in out.split("\0") if p]

    def unstaged(self, paths: list[str]) -> list[str]:
        """Of `paths`, those whose working-tree bytes differ from the index."""
        if not paths:
            return []
        out = self.run("diff", "--name-only", "-z", "--no-renames", "--", *paths).out
        return [p for p in out.split("\0") if p]

    def tracked(self, paths: list[str]) -> set[str]:
        if not paths:
            return set()
        out = self.run("ls-files", "-z", "--", *paths).out
        return {p for p in out.split("\0") if p}

    def dirty_tracked(self) -> list[str]:
        """`git status --porcelain` lines for tracked files (staged or not); untracked ignored."""
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=no").out
        return [entry[3:] for entry in out.split("\0") if len(entry) > 3]

    def commit_subject(self, rev: str = "HEAD") -> str:
        return self.run("log", "-1", "--format=%s", rev).out.rstrip("\n")

    def parent(self, rev: str = "HEAD") -> str | None:
        result = self.run("rev-parse", "-q", "--verify", f"{rev}^", check=False)
        return result.out.strip() or None if result.code == 0 else None


def _records(out: str) -> list[tuple[str, list[str]]]:
    """`ls-tree -z` / `ls-files -s -z` output: (path, the three fields before the tab) per entry."""
    found = []
    for record in out.split("\0"):
        if record:
            meta, _, path = record.partition("\t")
            found.append((path, meta.split(" ")))
    return found


def _first_lines(text: str, limit: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[:limit])


def _text(path: Path, cap: int = 64 * 1024) -> str:
    """A small file of the git directory, read as every file in a store is (a FIFO or a device there
    is refused, never waited on or read without end: guarded.read_guarded); ValueError when it is
    not UTF-8 or not a regular file under `cap`."""
    from memhtml_desktop.guarded import read_guarded

    return read_guarded(path, cap=cap, what=path.name).decode("utf-8")
