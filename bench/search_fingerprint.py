"""Everything a search shows, dumped canonically, to prove a speed change moved nothing of the ranking.

    python bench/search_fingerprint.py --work DIR --out FILE [--big ROOT INDEX ...] [--embedders hash minilm]
                                       [--only COUNT-SEED ...]

Generates (once, under --work) small stores of varied sizes and seeds with memhtml's seeded state
plane (imported into state.db: 60% of memories read), indexes them with each embedder asked for, and for every store, ranking profile, scope and
query writes: the search result (every hit: score, fused position, each arm's rank, raw value,
weight and contribution, the moves, the snippet, the signals, the header), the recall pack, the
fused pool (`Store.answer`) and, for some queries, "why not?" reports (a hit, one from deeper in the
pool, an archived memory, a path nobody has). `--big ROOT INDEX` adds an already-indexed store (the
suite's 20,000 / 100,000) with fewer scopes. Floats are written with repr (every bit), the elapsed
times left out; the clock is fixed, so the file is the same for the same code. Run it on two commits
and compare the files byte for byte (`cmp`; runs split with `--only` merge with `--merge`): the speed work of issue 43 was checked this way
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXED = dt.datetime(2026, 10, 1, 12, 0, tzinfo=dt.timezone.utc)
EXTRA_QUERIES = (
    "",
    "   ",
    "the",
    "what is the",
    "a of to",
    "???",
    "deploy deploy deploy",
    "rollback -canary",
    '"drain the"',
    '"connection drain" "load balancer"',
    "zzzzqqq nothing",
    "ｄｒａｉｎ ｔｈｅ ｖｉｐ",
    "ﬁle rollback",
    "checkout-api",
    "deploy OR rollback NOT canary",
    'unbalanced "quote drain',
    "déployé ledger",
    "AND",
    "near near",
    "service:api",
    "2026 incident",
    "x" * 300,
    " ".join(["deploy", "cache", "ledger", "token", "agent"] * 20),
)
SMALL = ((600, 3, "hash"), (1500, 19, "hash"), (400, 7, "minilm"), (900, 23, "minilm"))


def canon(value):
    """A JSON-able form of a result that keeps every bit of every float (repr) and every field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "elapsed_ms"}
    if isinstance(value, dict):
        return {str(k): canon(v) for k, v in value.items() if k != "elapsed_ms"}
    if isinstance(value, (list, tuple)):
        return [canon(v) for v in value]
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "tolist"):
        return canon(value.tolist())
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return repr(value)


def scopes_of(conn, *, big: bool) -> dict[str, object]:
    from memhtml_desktop.domain.types import Scope

    facet = conn.execute("SELECT name, value FROM file_facets GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1").fetchone()
    entity = conn.execute(
        "SELECT entity_type || ':' || entity_name FROM file_entities GROUP BY 1 ORDER BY count(*) DESC LIMIT 1 OFFSET 2"
    ).fetchone()
    tag = conn.execute("SELECT tag FROM file_tags GROUP BY 1 ORDER BY count(*) DESC LIMIT 1 OFFSET 1").fetchone()
    workspace = conn.execute(
        "SELECT workspace FROM files WHERE workspace IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    out = {"all": Scope(), "archived": Scope.build(include_archived=True), "task": Scope.build(memory_types=["task"])}
    if facet:
        out["facet"] = Scope.build(facets=[tuple(facet)])
    if entity:
        out["entity"] = Scope.build(entity=entity[0])
    if big:
        return out
    out["semantic+episodic"] = Scope.build(memory_types=["semantic", "episodic"])
    if tag:
        out["tag"] = Scope.build(tags=[tag[0]])
    if workspace:
        out["workspace+archived"] = Scope.build(workspace=workspace[0], include_archived=True)
    out["as_of"] = Scope.build(as_of="2025-06-01T00:00:00Z")
    return out


def dump_store(store, label: str, queries: list[str], *, big: bool, out: dict) -> None:
    from memhtml_desktop.domain.ranking import PROFILES

    conn = store.reader()
    scopes = scopes_of(conn, big=big)
    archived = conn.execute("SELECT path FROM files WHERE archived = 1 ORDER BY path LIMIT 1").fetchone()
    for pname, profile in PROFILES.items():
        for sname, scope in scopes.items():
            for qi, q in enumerate(queries):
                key = f"{label}|{pname}|{sname}|{qi}:{q[:40]}"
                result = store.search(q, scope, limit=10, ranking=profile)
                out[key + "|search"] = canon(result)
                if big and sname not in ("all", "task"):
                    continue
                out[key + "|recall"] = canon(store.recall(q, scope, ranking=profile))
                if qi % 3 == 0:
                    out[key + "|recall25"] = canon(store.recall(q, scope, ranking=profile, limit=25, budget=3000))
                answer = store.answer(q, scope, limit=10, depth=30, ranking=profile)
                out[key + "|answer"] = canon(answer)
                if qi % (7 if big else 3) != 0:
                    continue
                paths = [h.path for h in result.hits]
                pool = [h.path for h in answer.pool.entries] if answer.pool is not None else []
                asked = paths[-1:] + [p for p in pool[12:] if p not in paths][:1]
                if archived and not big:
                    asked.append(archived[0])
                if qi % 9 == 0:
                    asked.append("projects/none/not-a-memory-anyone-wrote.html")
                for path in asked:
                    out[key + f"|why|{path}"] = canon(store.why(q, scope, path, ranking=profile))


def small_store(work: Path, count: int, seed: int, embedder_name: str):
    from memhtml_desktop.devtools.gen_store import generate_store
    from memhtml_desktop.embedders.registry import make_embedder
    from memhtml_desktop.index.store import Store

    root = work / f"store-{count}-{seed}"
    if not (root / ".fingerprint-made").exists():
        generate_store(root, count, seed, state=True, force=True)
        (root / ".fingerprint-made").write_text("made\n")
    embedder = make_embedder(embedder_name)
    index = work / f"index-{count}-{seed}-{embedder_name}.db"
    store = Store(root, index_path=index, embedder=embedder, clock=lambda: FIXED)
    if not (root / ".fingerprint-state").exists():
        # gen_store writes the seeded state plane as the sidecar, which nothing reads on its own: without
        # this import state.db stays empty and the salience arm and the read signals go unchecked.
        store.import_sidecar()
        (root / ".fingerprint-state").write_text("access.jsonl imported into .memhtml/state.db\n")
    store.index()
    return store


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, required=True, help="where the small stores and their indexes are kept")
    p.add_argument("--out", type=Path, required=True, help="the dump (JSON, sorted keys)")
    p.add_argument(
        "--big",
        nargs=2,
        action="append",
        default=[],
        metavar=("ROOT", "INDEX"),
        help="an already-indexed store (hash embedder), fewer scopes",
    )
    p.add_argument("--embedders", nargs="*", default=["hash", "minilm"])
    p.add_argument("--no-small", action="store_true", help="only the --big stores")
    p.add_argument(
        "--only",
        nargs="*",
        default=None,
        metavar="COUNT-SEED",
        help="only these small stores (e.g. 600-3 900-23), to split a run over processes",
    )
    p.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=None,
        metavar="DUMP",
        help="write the union of these dumps to --out (parts of one run) and stop",
    )
    args = p.parse_args(argv)
    if args.merge:
        out: dict = {}
        for part in args.merge:
            out.update(json.loads(part.read_text(encoding="utf-8")))
        return write(out, args.out)
    import memhtml_desktop
    from memhtml_desktop.index.store import Store

    print("code:", memhtml_desktop.__file__, file=sys.stderr)
    queries = [q.strip() for q in (HERE / "queries.txt").read_text(encoding="utf-8").splitlines() if q.strip()]
    queries += list(EXTRA_QUERIES)
    args.work.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    started = time.perf_counter()
    if not args.no_small:
        for count, seed, name in SMALL:
            if name in args.embedders and (args.only is None or f"{count}-{seed}" in args.only):
                dump_store(
                    small_store(args.work, count, seed, name), f"{count}-{seed}-{name}", queries, big=False, out=out
                )
    for root, index in args.big:
        store = Store(root, index_path=index, clock=lambda: FIXED)
        dump_store(store, Path(root).name, queries, big=True, out=out)
    write(out, args.out)
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


def write(out: dict, path: Path) -> int:
    text = json.dumps(out, sort_keys=True, ensure_ascii=False, indent=0)
    path.write_text(text, encoding="utf-8")
    print(f"{len(out)} entries, sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
