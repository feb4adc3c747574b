"""Defect (issue 12): "why not" explained against a ten-hit page whatever the search's limit.

With a limit above ten, a memory listed at position 11 or later was reported as "below the pool the
page is chosen from" and `search --why` ignored `--limit`. The explanation now asks about the page
that was actually shown.
"""

from __future__ import annotations

import random

import pytest

from memfiles import write_memory
from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index.store import Store


def many_matches(root, seed: int, n: int) -> None:
    rng = random.Random(seed)
    words = ["queue", "lease", "shard", "replica", "cutover", "canary", "pager", "budget", "ledger"]
    for i in range(n):
        extra = " ".join(rng.sample(words, 3))
        write_memory(
            root,
            f"areas/ops-{seed}/note-{i:02d}-{rng.randrange(1000)}.html",
            title=f"Drain note {i} {extra}",
            claim=f"Drain the pool before the {extra} step ({i}).",
        )


@pytest.mark.parametrize("seed,limit", [(3, 15), (11, 20)])
def test_why_reports_a_hit_past_ten_at_its_place_on_the_page(tmp_path, seed, limit):
    many_matches(tmp_path / "store", seed, limit + 5)
    store = Store(tmp_path / "store", index_path=tmp_path / "index.db", embedder=HashEmbedder())
    store.index()
    result = store.search("drain", Scope(), limit=limit)
    assert len(result.hits) == limit
    late = result.hits[-1]
    assert late.position > 10
    report = store.why("drain", Scope(), late.path, limit=limit)
    assert report.search_position == late.position
    assert not any("below the pool" in reason for reason in report.reasons)
    store.close_thread_connection()


def test_search_why_honours_limit_on_the_command_line(tmp_path):
    from tests.test_cli import run

    many_matches(tmp_path / "store", 5, 18)
    base = ["--store", str(tmp_path / "store"), "--index", str(tmp_path / "index.db")]
    import json

    listed = json.loads(run("search", "drain", "--limit", "14", "--json", *base).stdout)
    late = listed["hits"][-1]
    assert late["position"] == 14
    report = json.loads(run("search", "drain", "--limit", "14", "--why", late["path"], "--json", *base).stdout)
    assert report["search_position"] == 14
