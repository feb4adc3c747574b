"""The other pack shapes over real stores: quota ledgers, the catalogue, expand, the costs side by side."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from memfiles import write_memory
from memhtml_desktop.devtools.gen_store import generate_store
from memhtml_desktop.domain.quotas import SEED, LedgerMap, Rule, render_quota_text
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.index import shape_reads
from memhtml_desktop.index.reader import MemoryNotFound
from memhtml_desktop.index.store import Store, StoreError

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo-store"
QUERY = "rollback deploy drain"


def long_session_store(root: Path) -> None:
    """One long session about rollbacks (30 big episodes), three open tasks, a done one, a preference."""
    filler = " ".join(f"Step {n} of the rollback was logged with its timing and owner." for n in range(12))
    for i in range(30):
        write_memory(
            root,
            f"projects/checkout-api/session/rollback-{i:02d}.html",
            memory_type="episodic",
            title=f"Rollback session step {i}",
            claim=f"During the long rollback session, step {i} drained the deploy.",
            body=filler,
            facets=[("detail", filler)],
            extra_metas=[("memhtml-session", "s-long")],
            created=f"2026-08-01T{i % 24:02d}:00:00Z",
        )
    for i, status in enumerate(("todo", "doing", "blocked", "done")):
        write_memory(
            root,
            f"projects/checkout-api/tasks/follow-up-{i}.html",
            memory_type="task",
            title=f"Follow up {i}",
            claim=f"Follow up {i}: confirm the drain timeout with the platform team.",
            extra_metas=[("memhtml-task-status", status)],
            created=f"2026-0{i + 3}-01T00:00:00Z",
        )
    write_memory(
        root,
        "areas/prefs/terse-pages.html",
        memory_type="user_preference",
        title="Terse pages",
        claim="The on-call lead wants pages under two lines.",
        created="2026-02-01T00:00:00Z",
    )
    write_memory(
        root,
        "areas/oncall/drain-first.html",
        memory_type="procedural",
        title="Drain first",
        claim="Drain the VIP before a rollback reverts the deploy.",
        created="2026-05-01T00:00:00Z",
    )


def test_a_long_sessions_hits_never_squeeze_out_the_pending_items(store_root, make_store):
    long_session_store(store_root)
    store = make_store(store_root)
    store.index()
    quotas = store.quotas(QUERY, budget=6000)
    pending = quotas.ledger("pending").section.items
    assert [i.path.rsplit("/", 1)[1] for i in pending] == ["follow-up-2.html", "follow-up-1.html", "follow-up-0.html"]
    assert all(i.tier == "quote" for i in pending), "every open task keeps its whole text"
    assert [i.path for i in quotas.ledger("profile").section.items] == ["areas/prefs/terse-pages.html"]
    assert [i.path for i in quotas.ledger("experience").section.items] == ["areas/oncall/drain-first.html"]
    task = quotas.ledger("task")
    assert task.used <= task.limit == 2100 and task.dropped > 10, "the session is cut inside its own account"
    # memhtml's single account: the session's hits take it all, and no open task is even a candidate
    pack = store.recall(QUERY, budget=6000)
    assert not any("/tasks/" in i.path for i in pack.memories.items)
    session = sum(i.chars for i in pack.memories.items if "/session/" in i.path)
    assert session >= 0.8 * pack.memories.spent


def test_the_ledger_sql_agrees_with_the_map(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    (root / "areas/oncall/flagged.html").write_text(
        (root / "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html")
        .read_text(encoding="utf-8")
        .replace("<head>", '<head>\n<meta name="memhtml-needs-revision" content="true">')
        .replace("<title>", "<title>Flagged: "),
        encoding="utf-8",
    )
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    custom = LedgerMap(
        name="custom",
        rules=(
            Rule("experience", tags=("people",), why="people notes as experience"),
            Rule("pending", needs_revision=True),
            Rule("profile", entity_types=("team",), path_prefixes=("projects/", "resources/")),
            Rule("pending", types=("task",), task_status=("todo", "blocked")),
        ),
        otherwise="profile",
        window=500,
    )
    drivers = LedgerMap(
        name="drivers",
        rules=(
            Rule("task", types=("procedural",)),
            Rule("profile", tags=("people",), types=("semantic",)),
            Rule("pending", types=("task",), task_status=("todo", "doing")),
            Rule("profile", types=("verdict", "precedent")),
            Rule("pending", types=("semantic",), needs_revision=False, path_prefixes=("areas/inbox/",)),
            Rule("profile", entity_types=("service",), types=("episodic",)),
        ),
        window=500,
    )
    conn = store.reader()
    for scope, live in (
        (Scope(), "archived = 0"),
        (Scope(include_archived=True), "1"),
        (Scope(workspace="billing-service"), "archived = 0 AND workspace = 'billing-service'"),
    ):
        every = [r[0] for r in conn.execute(f"SELECT path FROM files WHERE {live} ORDER BY path")]
        facts = shape_reads.candidates(conn, every)
        for ledger_map in (LedgerMap(rules=SEED.rules, window=500), custom, drivers):
            got, totals = shape_reads.resident(conn, scope, ledger_map)
            for name in ("profile", "pending"):
                expected = sorted(p for p, c in facts.items() if ledger_map.ledger_of(c.facts) == name)
                assert sorted(c.path for c in got[name]) == expected and totals[name] == len(expected), (
                    scope,
                    ledger_map.name,
                    name,
                )
                if scope == Scope():
                    assert expected, "each resident ledger holds something on this store"
    assert any(c.facts.needs_revision for c in shape_reads.candidates(conn, every).values())


def test_a_budget_below_every_capsule_returns_the_index_and_says_so(store_root, make_store):
    long_session_store(store_root)
    store = make_store(store_root)
    store.index()
    quotas = store.quotas(QUERY, budget=12)
    assert quotas.does_not_fit and "does not fit" in quotas.fit_note()
    assert all(i.tier == "index" for ledger in quotas.ledgers for i in ledger.section.items)
    comparison = store.shapes(QUERY, budget=12)
    assert "does not fit" in comparison.cost("memhtml").note
    assert comparison.catalogue.does_not_fit and not comparison.catalogue.listed
    assert "does not fit" in render_quota_text(quotas)


def _state_snapshot(store: Store) -> tuple:
    rows = store.reader().execute("SELECT * FROM state.access ORDER BY path").fetchall()
    return rows, hashlib.sha256(store.state_path.read_bytes()).hexdigest()


def test_previewing_cataloguing_and_expanding_never_count_as_reads(store_root, make_store, clock):
    long_session_store(store_root)
    store = make_store(store_root)
    store.index()
    store.reinforce(["areas/oncall/drain-first.html", "areas/prefs/terse-pages.html"], "neutral")
    clock.advance(3600)
    before = _state_snapshot(store)
    assert before[0], "the state plane has rows to keep"
    store.quotas(QUERY)
    cat = store.catalogue(QUERY, k=5)
    for entry in cat.entries:
        store.expand(entry.path)
    store.shapes(QUERY, budget=3000)
    store.close_thread_connection()
    assert _state_snapshot(store) == before
    store.read("areas/oncall/drain-first.html")  # the contrast: opening a memory is a read
    assert _state_snapshot(store) != before


def chain_store(root: Path) -> None:
    write_memory(
        root,
        "archive/2025/areas/oncall/v1.html",
        status="archived",
        memory_type="procedural",
        title="Rollback order v1",
        claim="Revert, then drain.",
        created="2025-01-01T00:00:00Z",
    )
    write_memory(
        root,
        "archive/2026/areas/oncall/v2.html",
        status="archived",
        memory_type="procedural",
        title="Rollback order v2",
        claim="Drain, then revert, then wait.",
        links=[("supersedes", "/archive/2025/areas/oncall/v1.html")],
        created="2026-01-01T00:00:00Z",
    )
    write_memory(
        root,
        "areas/oncall/v3.html",
        memory_type="procedural",
        title="Rollback order",
        claim="Drain the VIP, then revert the deploy.",
        links=[("supersedes", "/archive/2026/areas/oncall/v2.html"), ("relates_to", "/areas/oncall/pager.html")],
        article_extra='<p>As <cite>postmortem 42</cite> found, and <q cite="/areas/oncall/pager.html">page '
        "within five minutes</q>.</p>",
    )
    write_memory(
        root,
        "areas/oncall/pager.html",
        title="Pager",
        claim="Acknowledge pages within five minutes.",
        links=[("relates_to", "/areas/oncall/v3.html")],
    )
    write_memory(
        root,
        "areas/arcs/arc.html",
        memory_type="arc",
        title="Arc",
        claim="Reversible first.",
        links=[("part_of", "/areas/oncall/v3.html")],
    )


def test_expand_gives_body_neighbours_chain_and_evidence(store_root, make_store):
    chain_store(store_root)
    store = make_store(store_root)
    store.index()
    e = store.expand("areas/oncall/v3.html")
    assert [(v.step, v.path) for v in e.chain] == [
        (-2, "archive/2025/areas/oncall/v1.html"),
        (-1, "archive/2026/areas/oncall/v2.html"),
        (0, "areas/oncall/v3.html"),
    ]
    assert all(v.archived for v in e.chain[:2]) and e.chain[0].title == "Rollback order v1"
    assert [(n.direction, n.rel, n.path) for n in e.neighbours] == [
        ("out", "relates_to", "areas/oncall/pager.html"),
        ("in", "part_of", "areas/arcs/arc.html"),
        ("in", "relates_to", "areas/oncall/pager.html"),
    ]
    assert [(s.text, s.href, s.path) for s in e.evidence] == [
        ("postmortem 42", None, None),
        ("page within five minutes", "/areas/oncall/pager.html", "areas/oncall/pager.html"),
    ]
    assert "Drain the VIP" in e.body and e.cost == len(e.text)
    older = store.expand("archive/2025/areas/oncall/v1.html")
    assert [v.step for v in older.chain] == [0, 1, 2], "the chain reads the same from its oldest end"
    with pytest.raises(MemoryNotFound):
        store.expand("areas/oncall/nothing.html")
    with pytest.raises(StoreError):
        store.expand("../../etc/passwd")


def test_the_catalogue_lists_the_search_page_and_finds_entries_it_cannot_tell_apart(store_root, make_store):
    chain_store(store_root)
    for ws in ("checkout-api", "billing-service"):
        write_memory(
            store_root,
            f"projects/{ws}/pool-size.html",
            title="Pool size",
            claim="The rollback pool holds 40 connections.",
            body=f"Measured on {ws}.",
        )
    store = make_store(store_root)
    store.index()
    cat = store.catalogue("rollback pool connections", k=5)
    search = store.search("rollback pool connections", limit=5)
    assert [e.path for e in cat.entries] == [h.path for h in search.hits]
    assert set(cat.indistinct[0]) == {"projects/checkout-api/pool-size.html", "projects/billing-service/pool-size.html"}
    for e in cat.entries:
        assert e.expand_cost == store.expand(e.path).cost
        assert "Measured on" not in e.line, "no body text in the catalogue"
    assert cat.with_expansions(1) == cat.cost + cat.entries[0].expand_cost


def _generated(tmp_path_factory, seed: int, embedder: str = "hash") -> Store:
    from memhtml_desktop.embedders.registry import make_embedder

    base = tmp_path_factory.mktemp(f"shapes-{seed}-{embedder}")
    made = generate_store(base / "store", 300, seed, probes=6, state=True)
    store = Store(made.root, index_path=base / "index.db", embedder=make_embedder(embedder))
    store.index()
    return store


def _packs(store: Store, query: str, budget: int) -> tuple:
    comparison = store.shapes(query, budget=budget)
    return (
        render_quota_text(store.quotas(query, budget=budget)),
        store.quotas(query, budget=budget).to_json(),
        store.catalogue(query, budget=budget).to_json(),
        comparison.to_json(),
    )


@pytest.mark.parametrize("seed", [11, 2027])
def test_same_store_query_and_budget_give_byte_identical_packs(tmp_path_factory, seed):
    import json

    store = _generated(tmp_path_factory, seed)
    rebuilt = Store(store.root, index_path=store.index_path.with_name("again.db"), embedder=store.embedder)
    rebuilt.index()
    for query, budget in (("rollback drain the vip", 16_000), ("invoice", 900), ("who owns billing", 3000)):
        first = json.dumps(_packs(store, query, budget), sort_keys=True).encode()
        assert first == json.dumps(_packs(store, query, budget), sort_keys=True).encode()
        assert first == json.dumps(_packs(rebuilt, query, budget), sort_keys=True).encode(), "a rebuilt index too"


@pytest.mark.slow
def test_byte_identical_packs_with_minilm(tmp_path_factory):
    import json

    pytest.importorskip("onnxruntime")
    store = _generated(tmp_path_factory, 11, "minilm")
    for query, budget in (("rollback drain the vip", 16_000), ("invoice", 900)):
        first = json.dumps(_packs(store, query, budget), sort_keys=True).encode()
        assert first == json.dumps(_packs(store, query, budget), sort_keys=True).encode()


def test_the_resident_ledgers_are_kept_until_the_index_changes(store_root, make_store):
    long_session_store(store_root)
    store = make_store(store_root)
    store.index()
    first = store.quotas(QUERY, budget=6000).ledger("pending")
    assert [i.path.rsplit("/", 1)[1] for i in first.section.items][0] == "follow-up-2.html"
    write_memory(
        store_root,
        "projects/checkout-api/tasks/follow-up-new.html",
        memory_type="task",
        title="Newest",
        claim="Follow up: the newest open task.",
        extra_metas=[("memhtml-task-status", "todo")],
        created="2026-08-20T00:00:00Z",
    )
    store.update_paths(["projects/checkout-api/tasks/follow-up-new.html"])
    again = store.quotas(QUERY, budget=6000).ledger("pending")
    assert again.section.items[0].path.endswith("follow-up-new.html") and again.candidates == first.candidates + 1


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        '"unbalanced',
        "NOT AND OR NEAR(",
        "x" * 12_000,
        "🦜 émoji 漢字",
        "' OR 1=1; DROP TABLE files; --",
        "\x00\ud800",
    ],
)
def test_a_hostile_query_gets_shapes_or_nothing_never_a_traceback(store_root, make_store, query):
    chain_store(store_root)
    store = make_store(store_root)
    store.index()
    comparison = store.shapes(query, budget=500, k=3)
    assert comparison.quotas.used <= 500 and comparison.catalogue.cost <= 500
    assert len(comparison.catalogue.entries) <= 3
    assert comparison.verdict()


def test_a_bad_store_map_is_named_and_the_window_falls_back_to_the_seeds(store_root, make_store):
    from memhtml_desktop.domain.quotas import STORE_FILE, LedgerMapError

    chain_store(store_root)
    store = make_store(store_root)
    assert store.ledger_map() == SEED, "no file: the seed's map"
    (store_root / STORE_FILE).parent.mkdir(parents=True)
    (store_root / STORE_FILE).write_text('{\n  "name": "team",\n  "window": 0\n}\n', encoding="utf-8")
    with pytest.raises(LedgerMapError, match=r"\.memhtml-desktop/ledgers\.json:3: window"):
        store.ledger_map()
    assert store.ledger_map(lenient=True) == SEED
    assert any("ledgers.json:3" in n and "seed's ledger map is used instead" in n for n in store.notices)
    (store_root / STORE_FILE).write_text('{"name": "team", "window": 4}', encoding="utf-8")
    assert store.ledger_map().window == 4 and store.ledger_map().source == STORE_FILE
