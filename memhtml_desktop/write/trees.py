"""A commit's tree made from a parent tree and a few changed paths, without a whole index.

`git read-tree` + `git update-index` + `git write-tree` in a private index costs three passes over
every entry of the repository (~0.3 s of a write at 20,000 files under load). When no hook needs an
index to look at, the executor builds the tree the way `git mktree` would, touching only the
folders on the changed paths: one `git cat-file --batch` reads those folders' tree objects from the
parent, the new folder objects are computed here (git's own tree format and order, so their ids
are git's), and one `git mktree --batch` writes them (git checks each id it wrote against ours).
Blobs are written with one `git hash-object -w --stdin-paths`, with the path's filters as `git
add` applies them, and checked against the blob ids of the very bytes the plan wrote (a file a
concurrent writer was moving at that moment, or a filter that changed the bytes, is hashed again
from those bytes, with the path's filters).

Anything unusual (a path with a newline, a file where a folder is needed, ids that disagree) gives
None, and the executor falls back to the private index.
"""

from __future__ import annotations

import hashlib
import os
import subprocess

from memhtml_desktop.html.project import blob_sha_of
from memhtml_desktop.write.git import Entry, Git, git_env

TREE_MODE = "40000"


def dirs_of(paths) -> set[str]:
    """Every folder on the paths (the root as ""), ancestors included."""
    dirs = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    return dirs


def _parent(directory: str) -> str:
    return directory.rpartition("/")[0]


def _name(path: str) -> str:
    return path.rpartition("/")[2]


def read_trees(git: Git, rev: str | None, dirs) -> dict[str, dict[str, Entry]] | None:
    """Each folder's entries in commit `rev` (a folder it lacks: empty), from one `cat-file --batch`."""
    dirs = sorted(dirs)
    if rev is None:
        return {d: {} for d in dirs}
    if any("\n" in d for d in dirs):
        return None
    specs = "".join((f"{rev}^{{tree}}" if d == "" else f"{rev}:{d}") + "\n" for d in dirs)
    proc = subprocess.run([git.executable or "git", "-C", str(git.root), "cat-file", "--batch"],
                          input=specs.encode("utf-8", "surrogateescape"), capture_output=True, env=git_env(),
                          check=False)  # fmt: skip
    if proc.returncode != 0:
        return None
    out, pos, found = proc.stdout, 0, {}
    for directory in dirs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if header[-1] == b"missing":
            found[directory] = {}
            continue
        if len(header) != 3 or header[1] != b"tree":
            return None  # a file (or a submodule) where a folder is needed
        size = int(header[2])
        found[directory] = parse_tree(out[pos : pos + size])
        pos += size + 1
    return found


def parse_tree(raw: bytes) -> dict[str, Entry]:
    entries, i = {}, 0
    while i < len(raw):
        space = raw.index(b" ", i)
        nul = raw.index(b"\0", space)
        name = raw[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries[name] = Entry(raw[i:space].decode("ascii"), raw[nul + 1 : nul + 21].hex())
        i = nul + 21
    return entries


def tree_object(entries: dict[str, Entry]) -> tuple[str, bytes]:
    """(id, body) of the tree object holding `entries`, in git's order (a folder sorts as `name/`)."""

    def key(item):
        name, entry = item
        return name.encode("utf-8", "surrogateescape") + (b"/" if entry.mode == TREE_MODE else b"")

    body = b"".join(f"{entry.mode} ".encode() + name.encode("utf-8", "surrogateescape") + b"\0" + bytes.fromhex(entry.sha)
                    for name, entry in sorted(entries.items(), key=key))  # fmt: skip
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest(), body


def _kind(mode: str) -> str:
    return "tree" if mode == TREE_MODE else "commit" if mode == "160000" else "blob"


def build_tree(
    git: Git, parent: str | None, changes: dict[str, Entry | None], trees: dict[str, dict[str, Entry]] | None = None
) -> tuple[str, dict[str, Entry]] | None:
    """The root tree id of `parent`'s tree with `changes` applied (an Entry: set; None: removed),
    and the parent's entries of the changed paths; None where the fast way does not apply.
    `trees`: the parent's folders already read (`read_trees` of `dirs_of(changes)`)."""
    if any("\n" in p or "\0" in p for p in changes):
        return None
    dirs = dirs_of(changes)
    if trees is None or not dirs <= trees.keys():
        trees = read_trees(git, parent, dirs)
    if trees is None:
        return None
    old = {p: trees[_parent(p)][_name(p)] for p in changes if _name(p) in trees.get(_parent(p), {})}
    made: dict[str, str | None] = {}
    written: list[tuple[str, dict[str, Entry]]] = []
    for directory in sorted(dirs, key=lambda d: (d.count("/") + (d != ""), d), reverse=True):
        entries = dict(trees[directory])
        for path, entry in changes.items():
            if _parent(path) == directory:
                if entry is None:
                    entries.pop(_name(path), None)
                elif _name(path) in entries and entries[_name(path)].mode == TREE_MODE:
                    return None  # a folder where the file goes
                else:
                    entries[_name(path)] = entry
        for child, sha in made.items():
            if child and _parent(child) == directory:
                if sha is None:
                    entries.pop(_name(child), None)
                else:
                    if _name(child) in entries and entries[_name(child)].mode != TREE_MODE:
                        return None  # a file where a folder is needed
                    entries[_name(child)] = Entry(TREE_MODE, sha)
        if not entries and directory:
            made[directory] = None
            continue
        sha, _ = tree_object(entries)
        made[directory] = sha
        written.append((sha, entries))
    if not _write_trees(git, written):
        return None
    return made[""], old


def _write_trees(git: Git, trees: list[tuple[str, dict[str, Entry]]]) -> bool:
    """Write the tree objects (children first) with one `git mktree --batch`; True when git's ids
    are the ones computed here."""
    if not trees:
        return True
    records = b""
    for _, entries in trees:
        for name, entry in entries.items():
            records += f"{entry.mode.zfill(6)} {_kind(entry.mode)} {entry.sha}\t".encode() + \
                name.encode("utf-8", "surrogateescape") + b"\0"  # fmt: skip
        records += b"\0"
    proc = subprocess.run([git.executable or "git", "-C", str(git.root), "mktree", "-z", "--batch"], input=records,
                          capture_output=True, env=git_env(), check=False)  # fmt: skip
    written = proc.stdout.decode("ascii", "replace").split()
    return proc.returncode == 0 and written == [sha for sha, _ in trees]


def hash_blobs(git: Git, final: dict[str, bytes | None]) -> dict[str, str]:
    """Each file's blob id, written to git's object store from the working tree (the path's filters,
    as `git add`), checked against the bytes the plan wrote; hashed from those bytes where not equal."""
    files = [p for p, data in final.items() if data is not None]
    shas: dict[str, str] = {}
    batch = [p for p in files if "\n" not in p and os.path.isfile(git.root / p)]
    if batch:
        result = git.run("hash-object", "-w", "--stdin-paths", input_text="".join(p + "\n" for p in batch), check=False)
        if result.code == 0:
            for path, sha in zip(batch, result.out.split()):
                if sha == blob_sha_of(final[path]):
                    shas[path] = sha
    for path in files:
        if path not in shas:
            shas[path] = git.run("hash-object", "-w", "--stdin", f"--path={path}", input_bytes=final[path]).out.strip()
    return shas
