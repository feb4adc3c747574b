"""The conflicts scan over a generated store: exact (every near-twin pair the rule judges a
contradiction, as a naive all-pairs loop finds them, whatever the block size), and it finds the
generator's near-twin controls (negation, number, qualifier) beside their targets."""

from __future__ import annotations

import numpy as np
import pytest

from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.contradiction import Statement
from memhtml_desktop.index.store import Store
from memhtml_desktop.write.conflicts import pair_of, scan_conflicts


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("conflicts") / "store"
    made = generate_store(root, 400, seed=23, probes=10)
    store = Store(root, index_path=root.parent / "index.db")
    store.index()
    return store, made


def naive_pairs(store) -> set[tuple[str, str]]:
    conn = store.reader()
    rows = conn.execute(
        "SELECT f.path, f.gist, e.vec, f.frame_key, f.event_at, f.created_at, f.title FROM files f "
        "JOIN chunks c ON c.content_hash = f.content_hash AND c.ordinal = 0 "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id WHERE f.archived = 0 AND f.memory_type <> 'task' AND f.gist <> ''"
    ).fetchall()
    vecs = np.stack([np.frombuffer(r[2], dtype="<f4") for r in rows])
    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    out = set()
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            x, y = (Statement(r[0], r[1], r[3], r[4], r[5], r[6]) for r in (rows[i], rows[j]))
            if float(vecs[i] @ vecs[j]) >= 0.9 + 1e-5 and pair_of(x, y, None) is not None:
                out.add(tuple(sorted((rows[i][0], rows[j][0]))))
    return out


def test_the_scan_is_exact_whatever_the_block_size(generated) -> None:
    store, _ = generated
    whole = scan_conflicts(store)
    blocked = scan_conflicts(store, block_rows=17)
    assert [(p.a.path, p.b.path) for p in whole.pairs] == [(p.a.path, p.b.path) for p in blocked.pairs]
    found = {(p.a.path, p.b.path) for p in whole.pairs}
    assert naive_pairs(store) <= found  # float rounding may add a pair sitting exactly on 0.9, never lose one
    assert whole.pairs and all(p.a.path < p.b.path and p.reason is not None for p in whole.pairs)


def test_it_finds_the_generated_controls(generated) -> None:
    store, made = generated
    found = {frozenset((p.a.path, p.b.path)): p for p in scan_conflicts(store).pairs}
    hits = [(probe.target, control) for probe in made.probes for control in probe.controls
            if frozenset((probe.target, control)) in found]  # fmt: skip
    assert len(hits) >= len(made.probes)  # at least one control per target on average
    kinds = {k for t, c in hits for k in found[frozenset((t, c))].diff.kinds}
    # a changed number is found as such, or as the value of one slot ("… is sized for 16 workers")
    assert {"negation", "qualifier"} <= kinds <= {"negation", "number", "qualifier", "slot"} and kinds & {
        "number",
        "slot",
    }


def test_cancelling_stops_the_scan(generated) -> None:
    store, _ = generated
    report = scan_conflicts(store, cancelled=lambda: True)
    assert report.cancelled and report.pairs == []


def test_a_scan_of_a_few_paths_gives_their_pairs(generated) -> None:
    store, _ = generated
    whole = scan_conflicts(store)
    some = {whole.pairs[0].a.path, whole.pairs[-1].b.path}
    expected = [(p.a.path, p.b.path) for p in whole.pairs if {p.a.path, p.b.path} & some]
    assert [(p.a.path, p.b.path) for p in scan_conflicts(store, paths=sorted(some)).pairs] == expected
    assert scan_conflicts(store, paths=["areas/none.html"]).pairs == []


def test_a_scan_cancelled_between_blocks_stops_there(generated) -> None:
    """Cancelled after the third block of near-twin products: no fourth block is multiplied, no
    pair is judged, and the report says it was cancelled."""
    store, _ = generated
    blocks: list[int] = []
    report = scan_conflicts(
        store,
        block_rows=17,
        cancelled=lambda: len(blocks) >= 3,
        progress=lambda phase, done, total: blocks.append(done),
    )
    assert report.cancelled and report.pairs == []
    assert blocks == [17, 34, 51]
