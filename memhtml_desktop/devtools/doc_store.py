"""A documentation store: real documentation text that states almost no contradictions.

    python -m memhtml_desktop.devtools.doc_store DIR [--limit N]

What the conflicts scan must leave alone: the Python language reference as `pydoc` ships it
(`pydoc_data.topics`, inside every CPython) and the docstrings of the standard library's modules,
classes and functions, one paragraph a memory (its first sentence the claim and the title), written
with the app's own `apply`. Documentation states many sentences in parallel ("Return the sine of x",
"Return the cosine of x"; "Default: Disabled by default", "Default: Enabled by default") about
the thing its heading names, which is where a rule that reads words alone raises false alarms.
Deterministic for a Python version: the same paragraphs, in the same order.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
#: modules whose import has side effects or needs a display
_SKIP = frozenset(
    {
        "antigravity",
        "this",
        "idlelib",
        "tkinter",
        "turtle",
        "turtledemo",
        "__main__",
        "test",
        "lib2to3",
        "ensurepip",
        "venv",
        "pydoc",
        "webbrowser",
        "xxsubtype",
    }
)


def paragraphs(limit: int) -> list[str]:
    """Prose paragraphs (at least 8 words, not code), the reference's topics first, then docstrings."""
    import pydoc_data.topics as topics

    out: list[str] = []
    seen: set[str] = set()

    def take(text: str | None) -> None:
        for para in _PARAGRAPH.split(text or ""):
            flat = " ".join(para.split())
            if len(flat.split()) >= 8 and not para.startswith(("   ", ">>>")) and flat not in seen:
                seen.add(flat)
                out.append(flat)

    for name in sorted(topics.topics):
        take(topics.topics[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(sys.stdlib_module_names):
            if len(out) >= limit:
                break
            if name in _SKIP or name.startswith("_"):
                continue
            try:
                module = importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module this platform lacks
                continue
            take(inspect.getdoc(module))
            for attr in sorted(vars(module)):
                if attr.startswith("_"):
                    continue
                value = getattr(module, attr, None)
                if (inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value)) and getattr(
                    value, "__module__", None
                ) == name:
                    take(inspect.getdoc(value))
    return out[:limit]


def title_of(text: str) -> str:
    sentence = _SENTENCE.split(text, maxsplit=1)[0].strip()
    if len(sentence) > 80:
        sentence = sentence[:80].rsplit(" ", 1)[0].rstrip(",;:") + "\u2026"
    return sentence or "Untitled"


def build(root: Path, *, limit: int = 3000) -> int:
    """Write the store at `root` (a fresh git repository, one `apply` commit); the memories written."""
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.batch import ApplyRequest
    from memhtml_desktop.write.curator import BatchOp, Curator, split_prose
    from memhtml_desktop.write.requests import WriteRequest

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "config", "user.email", "docs@example.invalid"],
        ["git", "config", "user.name", "doc store"],
        ["git", "config", "commit.gpgsign", "false"],
    ):
        subprocess.run(cmd, cwd=root, check=True)
    ops = []
    for text in paragraphs(limit):
        claim, bodies = split_prose(text)
        ops.append(
            BatchOp(
                WriteRequest(title=title_of(text), memory_type="semantic", claim=claim, bodies=tuple(bodies)), claim
            )
        )
    index = root.parent / f"{root.name}.apply-index.db"
    try:
        applied = Curator(Store(root, index_path=index, embedder=None), refresh_index=True).run(
            ApplyRequest(tuple(ops), continue_on_error=True)
        )
    finally:
        index.unlink(missing_ok=True)
    return sum(1 for r in applied.result["results"] if r.get("ok") and not r.get("deduped"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m memhtml_desktop.devtools.doc_store", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("dir", type=Path)
    ap.add_argument("--limit", type=int, default=3000)
    args = ap.parse_args(argv)
    print(f"doc_store: {build(args.dir, limit=args.limit)} memories -> {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
