"""With the optional neural embedder, paraphrased questions find their memories; with hashing, rarely.

The store is real (memory files, the indexer, the vector snapshot) and so is the search. Two
figures per embedder: the target's rank in the vector arm alone (no candidate window) and its
position in the fused search a person sees. The neural embedder must beat the hash embedder by a
clear margin on the vector arm; the fused figure is printed for docs/benchmarks-log.md. Skipped without the `minilm` extra.
"""

from __future__ import annotations

import pytest

from memfiles import write_memory
from memhtml_desktop.devtools.paraphrases import DISTRACTORS, PARAPHRASES
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store

pytest.importorskip("onnxruntime", reason="the minilm extra is not installed")


def build(root):
    targets = []
    for i, (memory, _query) in enumerate(PARAPHRASES):
        path = f"areas/para/p{i:02d}.html"
        write_memory(root, path, title=f"Note {i}", claim=memory, created="2026-06-01T00:00:00Z")
        targets.append(path)
    for i, memory in enumerate(DISTRACTORS):
        write_memory(
            root, f"areas/noise/d{i:02d}.html", title=f"Other {i}", claim=memory, created="2026-06-01T00:00:00Z"
        )
    return targets


def figures(store, targets):
    vector_rr, fused_rr = [], []
    for (_, query), target in zip(PARAPHRASES, targets):
        why = store.why(query, Scope(), target)
        rank = why.arms.get("vector", {}).get("rank")
        vector_rr.append(1.0 / rank if rank else 0.0)
        paths = [h.path for h in store.search(query, limit=10).hits]
        fused_rr.append(1.0 / (paths.index(target) + 1) if target in paths else 0.0)
    return sum(vector_rr) / len(vector_rr), sum(fused_rr) / len(fused_rr)


def test_minilm_ranks_paraphrases_better_than_hashing(tmp_path):
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    root = tmp_path / "store"
    targets = build(root)
    results = {}
    embedders = (
        ("hash", HashEmbedder()),
        ("minilm", MiniLMEmbedder()),
        ("minilm-fp32", MiniLMEmbedder(precision="fp32")),
    )
    for name, embedder in embedders:
        store = Store(root, index_path=tmp_path / f"{name}.db", embedder=embedder, create_state=False)
        store.index()
        results[name] = figures(store, targets)
    print("paraphrase MRR (vector arm, fused top 10): " + ", ".join(f"{k} {v}" for k, v in results.items()))
    assert results["minilm"][0] >= results["hash"][0] + 0.3
    assert results["minilm"][0] >= 0.6
    # The int8 graph the app runs keeps the fp32 reference's paraphrase recall (issue 13: within 0.03).
    assert abs(results["minilm"][0] - results["minilm-fp32"][0]) <= 0.03
    # Fused positions are reported, not gated: with only the vector arm matching (a paraphrase
    # shares no words), recency (0.5) and salience (0.4) together outvote a vector rank of 1 —
    # the same flatness of 1/(rank + 60) the seeds describe for the lexical arm. What is gated: the
    # semantic arm never makes the fused order worse for a paraphrase than hashing does.
    assert results["minilm"][1] >= results["hash"][1]


@pytest.mark.parametrize("built_with", ["hash", "minilm-fp32"])
def test_switching_embedders_re_embeds_and_says_so_meanwhile(tmp_path, built_with):
    # "minilm-fp32": every MiniLM index built before the int8 graph. Its vectors are another
    # space, so the int8 embedder re-embeds them rather than comparing int8 queries with them.
    from memhtml_desktop.embedders.minilm import MiniLMEmbedder

    root = tmp_path / "store"
    build(root)
    index = tmp_path / "index.db"
    old = HashEmbedder() if built_with == "hash" else MiniLMEmbedder(precision="fp32")
    Store(root, index_path=index, embedder=old, create_state=False).index()
    switched = Store(root, index_path=index, embedder=MiniLMEmbedder(), create_state=False)
    before = switched.search("what notebook computer do I have")
    total = len(PARAPHRASES) + len(DISTRACTORS)
    assert (
        before.degraded and f"vectors for 0 of {total:,}; search is words-only for the rest" in before.degraded_reasons
    )
    assert before.hits, "search keeps answering from the old rows while vectors are missing"
    report = switched.index()
    assert report.embedded == len(PARAPHRASES) + len(DISTRACTORS)
    after = switched.search("what notebook computer do I have")
    assert not any("vectors for" in r for r in after.degraded_reasons)
    assert "vector" in after.arms
