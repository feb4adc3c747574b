"""The caches are the Store's own state (index/caches.py), and so is what a client keeps per store
(`Store.kept`: the write core's Curator, the workbench): no module keeps either.

Two Stores over one index answer alike, each from caches of its own; forgetting one's (a damaged
index moved aside, another process's rebuild heard) leaves the other's; the first store's Curator
is not the second's.
"""

from __future__ import annotations

import importlib
import pkgutil
import weakref

import pytest

import memhtml_desktop
from memhtml_desktop.index.caches import StoreCaches
from memhtml_desktop.index.salience import SalienceCache
from memhtml_desktop.index.scope_rows import ScopeRows
from memhtml_desktop.index.shape_reads import ResidentCache
from memhtml_desktop.index.vectors import VectorCache
from tests.memfiles import write_memory

CACHE_TYPES = (
    VectorCache,
    SalienceCache,
    ScopeRows,
    ResidentCache,
    StoreCaches,
    weakref.WeakKeyDictionary,
    weakref.WeakValueDictionary,
)
# Every package below the window (ui/ is Qt's: its caches of pixmaps and colours are the widgets').
PACKAGES = ("index", "ops", "write", "workbench", "engine", "history", "watch", "cli")

TOPICS = [
    ("Drain the VIP", "The load balancer drains the VIP before a deploy."),
    ("Rotate the keys", "Signing keys rotate every ninety days."),
    ("Compactor merges", "The compactor merges segments at night."),
    ("Deregistration delay", "Targets deregister after a thirty second delay."),
]


def _modules():
    for package in PACKAGES:
        module = importlib.import_module(f"memhtml_desktop.{package}")
        yield module
        for info in pkgutil.walk_packages(module.__path__, f"memhtml_desktop.{package}."):
            yield importlib.import_module(info.name)


def test_no_module_keeps_a_cache_of_a_store():
    kept = [
        f"{module.__name__}.{name}"
        for module in _modules()
        for name, value in vars(module).items()
        if isinstance(value, CACHE_TYPES)
    ]
    assert kept == [], "a cache of a store is the Store's state (index/caches.py), not a module's"
    assert memhtml_desktop  # the package the walk starts from


@pytest.fixture
def two_stores(store_root, make_store):
    for n, (title, claim) in enumerate(TOPICS):
        write_memory(store_root, f"areas/ops/note-{n}.html", title=title, claim=claim)
    first = make_store(store_root)
    first.index()
    return first, make_store(store_root)


def _kept_snapshots(store) -> int:
    return len(store.caches.vectors._snapshots)


def test_each_store_ranks_from_caches_of_its_own(two_stores):
    first, second = two_stores
    assert first.caches is not second.caches and first.caches is first.caches
    a = first.search("drain the vip", limit=3)
    assert _kept_snapshots(first) == 1 and _kept_snapshots(second) == 0
    b = second.search("drain the vip", limit=3)
    assert _kept_snapshots(second) == 1
    assert [h.path for h in a.hits] == [h.path for h in b.hits] and a.hits[0].path == "areas/ops/note-0.html"

    first.heard([], reopened=True)  # another process rebuilt the index: this store forgets
    assert _kept_snapshots(first) == 0 and _kept_snapshots(second) == 1
    assert [h.path for h in first.search("drain the vip", limit=3).hits] == [h.path for h in a.hits]


def test_a_snapshot_is_read_through_the_store_s_own_cache(two_stores):
    first, second = two_stores
    conn = first.reader()
    with conn:
        snapshot = first.vector_snapshot(conn)
    assert snapshot.size == len(TOPICS)
    assert first.caches.vectors._snapshots and not second.caches.vectors._snapshots


def test_what_a_client_keeps_is_kept_by_its_store(two_stores):
    from memhtml_desktop.ops.curators import curator_for
    from memhtml_desktop.ops.workbench import existing_workbench, workbench_for

    first, second = two_stores
    assert first.kept("anything") is None  # asking makes nothing
    curator = curator_for(first)
    assert curator_for(first, refresh_index=True) is curator and curator.refresh_index
    assert curator_for(second) is not curator and curator.store is first
    assert existing_workbench(first) is None
    bench = workbench_for(first)
    assert existing_workbench(first) is bench and existing_workbench(second) is None
