"""Probe sets and what-if configurations as files in the store, each change its own commit.

The files live under `.memhtml-desktop/` (see `locations.py` for why there). memhtml's doctor
reports an uncommitted change there as a dirty tree, sleep's preflight fails on it and memhtml's
next commit sweeps a staged one in, so nothing is ever left uncommitted: every change is written
and committed at once, through the write core's commit door (`write.curator.Committer`, the one
the Curator's memory writes go through): the same preflight (a work tree on a branch, an
identity, git's lock free, our files tracked, regular and without edits or staged changes of
anyone else's), the same write lock (shared with memory
writes, so the two take turns), the same journal and rollback (on any failure the files are
exactly as they were, and a crash is finished or rolled back by `Curator.recover`), the same
commit of only its own paths through a private index. The subject says what changed:
`memhtml-desktop(probes): add "query" to NAME`.

Reading goes through the guard every store read uses (`guarded.read_guarded`): a probe set or a
configuration that is a symbolic link out of the store (a committed link to `/etc/passwd`), a
FIFO or a device, or a file over 16 MB is a problem naming it, never read (and so never copied
into a commit). Reading is lenient and says where: a bad probe line or a bad configuration key is
a problem naming the file and line, and the rest still loads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from memhtml_desktop.domain.configs import ConfigError, Configuration, configuration_text, parse_configuration, shipped
from memhtml_desktop.domain.probes import (
    EvalProbe,
    ProbeProblem,
    ProbeSet,
    format_probe_set,
    read_probe_bytes,
    read_probe_set,
)
from memhtml_desktop.domain.ranking import PROFILES, RankingProfile
from memhtml_desktop.guarded import SMALL_FILE_CAP, Unreadable, is_regular_inside, read_guarded
from memhtml_desktop.workbench.locations import (
    CONFIG_SUFFIX,
    CONFIGS_DIR,
    GITIGNORE,
    GITIGNORE_TEXT,
    PROBE_SUFFIX,
    PROBES_DIR,
    BadName,
    config_path,
    probe_path,
)
from memhtml_desktop.write import journal as journal_mod
from memhtml_desktop.write.curator import Committer
from memhtml_desktop.write.errors import Refused
from memhtml_desktop.write.plan import FileChange

SUBJECT_MAX = 72
TRAILER = ("Memhtml-Desktop-Workbench", "1")


@dataclass(frozen=True)
class Saved:
    """A change committed: its commit, the store paths it carried, the subject."""

    commit_sha: str
    paths: tuple[str, ...]
    subject: str

    def to_json(self) -> dict:
        return {"commit_sha": self.commit_sha, "paths": list(self.paths), "subject": self.subject}


@dataclass(frozen=True)
class ConfigListing:
    """Every configuration the workbench offers: the shipped two first, then the store's files,
    and a problem per file that could not be read (it is left out, the rest load)."""

    configurations: tuple[Configuration, ...]
    problems: tuple[ConfigError, ...] = ()

    def named(self, name: str) -> Configuration:
        for config in self.configurations:
            if config.name == name or Path(config.source).stem == name and config.source:
                return config
        raise KeyError(name)


def _short(text: str, limit: int = 30) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class WorkbenchFiles:
    """The store's probe sets and configurations. One per store; safe to share between threads
    (its writes take the store's write lock). Never on the GUI thread: it reads files and runs git."""

    def __init__(
        self, root: str | Path, *, lock_wait_s: float = journal_mod.LOCK_WAIT_S, git_lock_wait_s: float | None = None
    ) -> None:
        self.root = Path(root)
        self.committer = Committer(self.root, lock_wait_s=lock_wait_s, git_lock_wait_s=git_lock_wait_s)
        self.lock = self.committer.lock  # the store's write lock, shared with memory writes

    # -- probe sets ----------------------------------------------------------------------------

    def probe_sets(self) -> list[str]:
        """The names of the store's probe sets, sorted."""
        folder = self.root / PROBES_DIR
        if not folder.is_dir():
            return []
        return sorted(
            p.name[: -len(PROBE_SUFFIX)]
            for p in folder.glob(f"*{PROBE_SUFFIX}")
            if is_regular_inside(self.root, p.relative_to(self.root))
        )

    def read_probe_set(self, name: str) -> ProbeSet:
        """Probe set `name` (its problems name `.memhtml-desktop/probes/NAME.jsonl` and the line)."""
        path = probe_path(name)
        return read_probe_file(self.root / path, source=path, name=name, root=self.root)

    def save_probe_set(self, name: str, probes: Sequence[EvalProbe], *, subject: str | None = None) -> Saved:
        """Replace (or create) set `name` with `probes`, in one commit."""
        path = probe_path(name)
        text = format_probe_set(list(probes))
        return self._commit(
            {path: text.encode("utf-8")}, subject or f"memhtml-desktop(probes): save {name} ({len(probes)} probes)"
        )

    def add_probe(self, name: str, probe: EvalProbe) -> Saved:
        """Append `probe` to set `name` (created when absent); Refused when the set already asks
        the same (same query, targets and scope). The file's other lines, comments and unknown
        keys are kept byte for byte: the new line is appended."""
        path = probe_path(name)
        before = self._read(path) or b""
        current = read_probe_set(before.decode("utf-8", "replace"), path)
        if any(p.key == probe.key for p in current.probes):
            raise Refused(f"{path} already has this probe ({probe.query!r} -> {probe.target})")
        text = before.decode("utf-8", "replace")
        if text and not text.endswith("\n"):
            text += "\n"
        text += probe.to_line() + "\n"
        return self._commit(
            {path: text.encode("utf-8")}, f'memhtml-desktop(probes): add "{_short(probe.query)}" to {name}'
        )

    def add_probes(
        self, name: str, probes: Sequence[EvalProbe], *, subject: str | None = None
    ) -> tuple[Saved | None, int]:
        """Append the probes set `name` does not already ask (by key) in one commit; (the commit or
        None when every probe was there already, how many were left out as already there). The
        file's other lines stay byte for byte, as `add_probe` keeps them."""
        path = probe_path(name)
        text = (self._read(path) or b"").decode("utf-8", "replace")  # the guard: a link out, a FIFO, /dev/zero refused
        known = {p.key for p in read_probe_set(text, path).probes}
        new = [p for p in dict((p.key, p) for p in probes).values() if p.key not in known]
        if not new:
            return None, len(probes)
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join(p.to_line() + "\n" for p in new)
        saved = self._commit(
            {path: text.encode("utf-8")}, subject or f"memhtml-desktop(probes): import {len(new)} probes into {name}"
        )
        return saved, len(probes) - len(new)

    def remove_probe(self, name: str, key: str) -> Saved:
        """Remove the probe with `key` (`EvalProbe.key`) from set `name`; other lines kept as they are."""
        path = probe_path(name)
        data = self._read(path)
        if data is None:
            raise Refused(f"no probe set {name} ({path})")
        lines = data.decode("utf-8", "replace").splitlines(keepends=True)
        probes = {p.line: p for p in read_probe_set("".join(lines), path).probes}
        drop = [n for n, p in probes.items() if p.key == key]
        if not drop:
            raise Refused(f"{path} has no probe {key}")
        kept = [line for n, line in enumerate(lines, start=1) if n not in drop]
        query = probes[drop[0]].query
        return self._commit(
            {path: "".join(kept).encode("utf-8")}, f'memhtml-desktop(probes): remove "{_short(query)}" from {name}'
        )

    def delete_probe_set(self, name: str) -> Saved:
        path = probe_path(name)
        if not (self.root / path).exists():
            raise Refused(f"no probe set {name} ({path})")
        return self._commit({path: None}, f"memhtml-desktop(probes): delete {name}")

    # -- configurations ------------------------------------------------------------------------

    def configurations(self) -> ConfigListing:
        """`memhtml`, `default`, then every `.memhtml-desktop/configs/*.json` that reads; a file
        that does not is a problem naming its line and key, and is left out."""
        out = list(shipped())
        problems: list[ConfigError] = []
        folder = self.root / CONFIGS_DIR
        if folder.is_dir() and not folder.is_symlink():
            for file in sorted(folder.glob(f"*{CONFIG_SUFFIX}")):
                stem = file.name[: -len(CONFIG_SUFFIX)]
                try:
                    out.append(self.read_configuration(stem))
                except ConfigError as exc:
                    problems.append(exc)
        return ConfigListing(tuple(out), tuple(problems))

    def read_configuration(self, name: str) -> Configuration:
        """A shipped configuration by name, or the store's file `configs/NAME.json` (ConfigError
        naming the file and line when it cannot be run)."""
        if name in PROFILES:
            return next(c for c in shipped() if c.name == name)
        try:
            path = config_path(name)
        except BadName as exc:
            raise ConfigError(str(exc)) from None
        return read_config_file(self.root / path, source=path, name=name, root=self.root)

    def save_configuration(self, name: str, profile: RankingProfile, *, base: str = "default", note: str = "") -> Saved:
        """Save `profile` as what-if `name` (the knobs that differ from `base`), in one commit."""
        path = config_path(name)
        text = configuration_text(profile, base=PROFILES[base], note=note, name=name)
        parse_configuration(text, source=path)  # what is saved must read back
        return self._commit({path: text.encode("utf-8")}, f"memhtml-desktop(configs): save {name}")

    def delete_configuration(self, name: str) -> Saved:
        path = config_path(name)
        if not (self.root / path).exists():
            raise Refused(f"no configuration {name} ({path})")
        return self._commit({path: None}, f"memhtml-desktop(configs): delete {name}")

    # -- the commit ----------------------------------------------------------------------------

    def _commit(self, files: dict[str, bytes | None], subject: str) -> Saved:
        """Write `files` (None: delete) plus the folder's `.gitignore` when missing, and commit
        only those paths, through the write core (`Committer.commit`). All or nothing (see the
        module docstring). WriteError otherwise."""
        subject = subject if len(subject) <= SUBJECT_MAX else subject[: SUBJECT_MAX - 1] + "…"
        done = self.committer.commit(lambda: self._changes(files), subject, trailers=(TRAILER,), op="workbench")
        return Saved(done.sha, done.paths, subject)

    def _read(self, path: str) -> bytes | None:
        """A file of the workbench's own, through the guard (Refused naming why); None when absent."""
        try:
            return read_guarded(path, root=self.root, what=path)
        except FileNotFoundError:
            return None
        except Unreadable as exc:
            raise Refused(str(exc)) from None

    def _changes(self, files: dict[str, bytes | None]) -> list[FileChange]:
        wanted = dict(files)
        ignore = self.root / GITIGNORE
        if not ignore.exists():
            wanted.setdefault(GITIGNORE, GITIGNORE_TEXT.encode("utf-8"))
        changes = []
        for path, after in wanted.items():
            before = self._read(path)
            if after is None:
                if before is not None:
                    changes.append(FileChange("delete", path, before, None))
            elif before is None:
                changes.append(FileChange("create", path, None, after))
            elif before != after:
                changes.append(FileChange("modify", path, before, after))
        return changes if any(c.path != GITIGNORE for c in changes) else []


def read_probe_file(file: Path, *, source: str = "", name: str = "", root: Path | None = None) -> ProbeSet:
    """A probe file anywhere (the CLI's PROBES argument, a store set): lenient, problems name
    `source` (default: the file's path) and the line. An unreadable file is one problem; so is one
    the guard refuses (`root`: it must lie inside; always: a regular file under the cap)."""
    source = source or str(file)
    name = name or file.stem
    try:
        raw = read_guarded(file, root=root, cap=SMALL_FILE_CAP, what="the probe set")
    except Unreadable as exc:
        return ProbeSet(name, (), (ProbeProblem(0, str(exc), source),), source)
    except OSError as exc:
        return ProbeSet(name, (), (ProbeProblem(0, f"cannot read: {exc.strerror or exc}", source),), source)
    parsed = read_probe_bytes(raw, source)  # a line that is not UTF-8 is left out and named
    return ProbeSet(name, parsed.probes, parsed.problems, source)


def read_config_file(
    file: Path, *, source: str = "", name: str | None = None, root: Path | None = None
) -> Configuration:
    """A what-if configuration file anywhere; ConfigError naming `source` and the line (or why
    the guard refused it: a link out of `root`, not a regular file, over the cap)."""
    source = source or str(file)
    try:
        text = read_guarded(file, root=root, cap=SMALL_FILE_CAP, what="the configuration").decode("utf-8")
    except FileNotFoundError:
        raise ConfigError("no such configuration file", 0, source) from None
    except Unreadable as exc:
        raise ConfigError(str(exc), 0, source) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", 0, source) from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text (a configuration is a JSON object)", 0, source) from None
    return parse_configuration(text, source=source, name=name)


def dumps_config(config: Configuration) -> str:
    return json.dumps(config.to_json(), indent=2)
