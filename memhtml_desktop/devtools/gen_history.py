"""A store with a long history, for the review inbox's benchmark and tests: thousands of commits, fast.

`build_history(root, commits=3000)` makes a git repository whose first commit (the person's) holds
`base` memories, sets the review mark on it, then adds `commits` commits by an agent, each one
memory-level change of the kinds memhtml's verbs make (write with and without a session, edit in
place, link, archive, correct, task status), with memhtml's subjects and trailers. The commits go
in through one `git fast-import` stream (seconds, not the minutes 3,000 `git commit`s take).
Deterministic for a given seed.

    python -m memhtml_desktop.devtools.gen_history DIR --commits 3000
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
from pathlib import Path

PERSON = ("Robin Curator", "robin@example.invalid")
AGENT = ("memory-agent", "agent@bots.example.invalid")
FOLDERS = ("areas/oncall", "areas/inbox", "resources/infra", "resources/postgres", "projects/checkout-api")
WORDS = ("checkout", "billing", "postgres", "deploy", "rollback", "latency", "budget", "queue", "retry", "cache",
         "invoice", "replica", "timeout", "drain", "canary", "alarm", "index", "vacuum", "webhook", "quota")  # fmt: skip


def memory(title: str, claim: str, *, stamp: str, session: str | None = None, kind: str = "semantic",
           links: tuple[tuple[str, str], ...] = (), status: str = "active", task: str | None = None,
           extra: str = "") -> bytes:  # fmt: skip
    metas = [("type", kind), ("status", status), ("created", stamp), ("updated", stamp)]
    if session:
        metas.append(("session", session))
    if task:
        metas.append(("task-status", task))
    head = "".join(f'<meta name="memhtml-{k}" content="{v}">\n' for k, v in metas)
    head += "".join(f'<link rel="memhtml-{rel.replace("_", "-")}" href="{href}">\n' for rel, href in links)
    return (
        f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{title}</title>\n{head}'
        f"</head>\n<body>\n<article>\n<p><mark>{claim}</mark>{extra}</p>\n</article>\n</body>\n</html>\n"
    ).encode()


class _Stream:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.mark = 0

    def blob(self, data: bytes) -> int:
        self.mark += 1
        self.parts.append(b"blob\nmark :%d\ndata %d\n%s\n" % (self.mark, len(data), data))
        return self.mark

    def commit(self, who: tuple[str, str], when: int, message: str, ops: list[bytes], parent: int | None) -> int:
        self.mark += 1
        msg = message.encode()
        ident = f"{who[0]} <{who[1]}> {when} +0000".encode()
        head = b"commit refs/heads/main\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n" % (
            self.mark,
            ident,
            ident,
            len(msg),
            msg,
        )
        if parent is not None:
            head += b"from :%d\n" % parent
        self.parts.append(head + b"".join(ops) + b"\n")
        return self.mark


def build_history(root: Path, *, commits: int = 3000, base: int = 300, seed: int = 7, start: int = 1_790_000_000,
                  mark: bool = True) -> dict:  # fmt: skip
    """Make the repository (see the module docstring); returns {base_commit, head, kinds}."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "config", "gc.auto", "0"], check=True, env=env)
    s = _Stream()
    live: dict[str, bytes] = {}
    tasks: dict[str, str] = {}
    when = start
    ops = []
    for i in range(base):
        words = rng.sample(WORDS, 3)
        path = f"{rng.choice(FOLDERS)}/base-{i:05d}-{words[0]}.html"
        data = memory(
            f"Base fact {i} about {words[0]}",
            f"The {words[0]} {words[1]} is {i} {words[2]}.",
            stamp="2026-01-01T00:00:00Z",
        )
        live[path] = data
        ops.append(b"M 100644 :%d %s\n" % (s.blob(data), path.encode()))
    for i in range(20):
        path = f"projects/checkout-api/tasks/task-{i:03d}.html"
        tasks[path] = "todo"
        data = memory(f"Task {i}", f"Task {i} is done.", stamp="2026-01-01T00:00:00Z", kind="task", task="todo")
        live[path] = data
        ops.append(b"M 100644 :%d %s\n" % (s.blob(data), path.encode()))
    first = tip = s.commit(PERSON, when, "seed: the store", ops, None)
    kinds: dict[str, int] = {}
    for n in range(commits):
        when += rng.randint(30, 600)
        stamp = f"2026-06-{1 + n % 28:02d}T00:00:00Z"
        roll = rng.random()
        memories = [p for p in live if p not in tasks and not p.startswith("archive/")]
        ops, message = [], ""
        if roll < 0.45 or len(memories) < 10:
            words = rng.sample(WORDS, 3)
            title = f"Fact {n}: {words[0]} {words[1]}"
            path = f"{rng.choice(FOLDERS)}/fact-{n:05d}-{words[0]}-{words[1]}.html"
            session = f"sess-{n // 20:04d}" if rng.random() < 0.5 else None
            data = memory(title, f"The {words[0]} {words[1]} holds {n} {words[2]}.", stamp=stamp, session=session)
            live[path] = data
            ops.append(b"M 100644 :%d %s\n" % (s.blob(data), path.encode()))
            message = f"memhtml(write): {title}" + (f"\n\nMemhtml-Session: {session}\n" if session else "")
            kind = "new"
        elif roll < 0.65:
            path = rng.choice(memories)
            data = live[path].replace(b"</mark>", b"</mark> Seen again %d." % n, 1)
            live[path] = data
            ops.append(b"M 100644 :%d %s\n" % (s.blob(data), path.encode()))
            message, kind = f"edit {path.rsplit('/', 1)[-1]}", "edited"
        elif roll < 0.77:
            src, dst = rng.sample(memories, 2)
            data = live[src].replace(b"</head>", f'<link rel="memhtml-relates-to" href="/{dst}">\n</head>'.encode(), 1)
            live[src] = data
            ops.append(b"M 100644 :%d %s\n" % (s.blob(data), src.encode()))
            message, kind = f"memhtml(link): relates_to {src} -> {dst}"[:80], "linked"
        elif roll < 0.87:
            path = rng.choice(memories)
            target = f"archive/2026/{path}"
            data = live.pop(path).replace(b'content="active"', b'content="archived"', 1)
            live[target] = data
            ops += [b"D %s\n" % path.encode(), b"M 100644 :%d %s\n" % (s.blob(data), target.encode())]
            message, kind = f"memhtml(archive): {path} \u2014 stale", "archived"
        elif roll < 0.95:
            path = rng.choice(memories)
            target = f"archive/2026/{path}"
            old = live.pop(path).replace(b'content="active"', b'content="archived"', 1)
            live[target] = old
            title = f"Correction {n}"
            new_path = f"{path.rsplit('/', 1)[0]}/correction-{n:05d}.html"
            data = memory(title, f"The corrected fact number {n}.", stamp=stamp, links=(("supersedes", f"/{target}"),))
            live[new_path] = data
            ops += [
                b"D %s\n" % path.encode(),
                b"M 100644 :%d %s\n" % (s.blob(old), target.encode()),
                b"M 100644 :%d %s\n" % (s.blob(data), new_path.encode()),
            ]
            message, kind = f"memhtml(correct): {title}\n\nMemhtml-Reason: it changed\n", "corrected"
        else:
            path = rng.choice(sorted(tasks))
            status = rng.choice([x for x in ("todo", "doing", "blocked") if x != tasks[path]])
            data = live[path].replace(f'content="{tasks[path]}"'.encode(), f'content="{status}"'.encode(), 1)
            tasks[path] = status
            live[path] = data
            ops.append(b"M 100644 :%d %s\n" % (s.blob(data), path.encode()))
            message, kind = f"memhtml(task): {status} {path}", "task"
        kinds[kind] = kinds.get(kind, 0) + 1
        tip = s.commit(AGENT, when, message, ops, tip)
    s.parts.append(b"done\n")
    proc = subprocess.run(["git", "-C", str(root), "fast-import", "--quiet", "--done",
                           f"--export-marks={root / '.git' / 'gen-marks'}"],
                          input=b"".join(s.parts), capture_output=True, env=env)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode(errors="replace"))
    marks = dict(line.split() for line in (root / ".git" / "gen-marks").read_text().splitlines())
    (root / ".git" / "gen-marks").unlink()
    base_sha, head = marks[f":{first}"], marks[f":{tip}"]
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "main"], check=True, env=env)
    if mark:
        subprocess.run(["git", "-C", str(root), "update-ref", "refs/memhtml-desktop/review-mark", base_sha],
                       check=True, env=env)  # fmt: skip
    return {"base_commit": base_sha, "head": head, "kinds": kinds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--base", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    made = build_history(args.root, commits=args.commits, base=args.base, seed=args.seed)
    print(made)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
