"""The demo store shipped in resources/demo-store: valid, rich, and broken exactly where intended."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from memhtml_desktop.domain.paths import MEMORY_TYPES, is_indexable, original_path_for
from tests.devtools.helpers import ISO_Z, ParsedStore, memory_paths, parse_store

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo-store"
INVALID = {
    "areas/inbox/stripe-webhook-retries-half-written-note.html": [
        "2 <mark> elements: exactly one span is the claim",
        '<time> without datetime: "last Tuesday"',
    ],
}
WARNED = {
    "areas/inbox/checkout-redis-evicts-idempotency-keys-under-pressure.html": [
        "<i> is outside the closed vocabulary",
    ],
}
NEGATION = {"not", "no", "never", "does", "do"}


@pytest.fixture(scope="module")
def demo() -> ParsedStore:
    return parse_store(DEMO)


def _claim_words(gist: str) -> list[str]:
    return [w.rstrip("s") for w in re.findall(r"[a-z0-9]+", gist.lower()) if w not in NEGATION]


def test_only_scaffold_and_sidecar_besides_memories():
    others = sorted(
        p.relative_to(DEMO).as_posix()
        for p in DEMO.rglob("*")
        if p.is_file() and not is_indexable(p.relative_to(DEMO).as_posix())
    )
    assert others == [".gitignore", ".memhtml/state/access.jsonl", "README.html"]
    assert (DEMO / ".gitignore").read_text().splitlines() == [".memhtml/index.db*", ".memhtml/state.db*"]
    readme = (DEMO / "README.html").read_text()
    assert "memhtml-" not in readme


def test_about_sixty_memories_all_valid_but_one(demo):
    assert 55 <= len(memory_paths(DEMO)) <= 70
    assert demo.failed == INVALID
    assert demo.warnings == WARNED


def test_every_type_at_least_twice(demo):
    counts = Counter(f["memory_type"] for f in demo.files().values())
    assert set(counts) == set(MEMORY_TYPES)
    assert min(counts.values()) >= 2, counts


def test_metadata_is_varied_and_well_formed(demo):
    files = demo.files()
    for path, f in files.items():
        assert ISO_Z.match(f["created_at"]) and ISO_Z.match(f["updated_at"]), path
        assert f["created_at"] <= f["updated_at"], path
        assert f["created_at"][:4] == "2026" or f["archived"], path
        assert f["gist"] and f["title"], path
    assert len({f["confidence"] for f in files.values()}) >= 5
    assert len({f["importance"] for f in files.values()}) >= 5
    authors = {f["author"] for f in files.values()}
    assert any(a.startswith("agent:") for a in authors) and any(a.startswith("human:") for a in authors)
    hashes = [f["content_hash"] for f in files.values() if not f["archived"] and f["memory_type"] != "task"]
    assert len(hashes) == len(set(hashes))
    entities = {(e["entity_type"], e["entity_name"]) for e in demo.rows("file_entities")}
    assert {("service", "checkout-api"), ("person", "sanju"), ("team", "payments")} <= entities
    assert {"concept", "lang"} <= {t for t, _ in entities}


def test_workspaces_areas_and_resources(demo):
    files = demo.files()
    assert {"checkout-api", "billing-service", "mobile-app"} <= {f["workspace"] for f in files.values()}
    for folder in ("areas/oncall/", "areas/security/", "areas/arcs/", "areas/inbox/", "resources/infra/"):
        assert any(p.startswith(folder) for p in files), folder


def test_episodic_memories_carry_a_date_prefix_and_an_event(demo):
    episodic = {p: f for p, f in demo.files().items() if f["memory_type"] == "episodic"}
    assert len(episodic) >= 2
    for path, f in episodic.items():
        name = path.rsplit("/", 1)[1]
        assert re.match(r"^\d{8}-", name) and name[:8] == f["created_at"][:10].replace("-", ""), path
        assert f["event_at"], path


def test_people_files(demo):
    people = {p: t for p, t in demo.ok.items() if p.startswith("resources/people/")}
    assert len(people) >= 4
    for path, tables in people.items():
        assert tables["files"][0]["memory_type"] == "semantic"
        slug = path.rsplit("/", 1)[1].removesuffix(".html")
        assert {"entity_type": "person", "entity_name": slug} in [
            {"entity_type": e["entity_type"], "entity_name": e["entity_name"]} for e in tables["file_entities"]
        ]
    owners = [f["gist"] for p, f in demo.files().items() if "billing" in f["gist"] and "owns" in f["gist"]]
    assert owners, "someone must own billing"


def test_tasks_statuses_due_dates_and_links(demo):
    files = demo.files()
    tasks = {p: f for p, f in files.items() if f["memory_type"] == "task"}
    assert len(tasks) >= 6
    assert {"todo", "doing", "blocked", "done"} == {f["task_status"] for f in tasks.values()}
    assert all(f["due_at"] for f in tasks.values())
    for path, f in tasks.items():
        if not f["archived"]:
            assert "/tasks/" in path and (path.startswith("projects/") or path.startswith("areas/inbox/"))
    task_edges = [e for e in demo.rows("edges") if e["edge_class"] == "task"]
    assert any(e["rel"] == "blocks" for e in task_edges)
    assert any(e["rel"] == "subtask_of" for e in task_edges)
    for edge in task_edges:
        assert edge["src_path"] in tasks and edge["dst_path"] in tasks


def test_arcs_have_members(demo):
    files = demo.files()
    arcs = [p for p, f in files.items() if f["memory_type"] == "arc"]
    assert len(arcs) >= 2 and all(p.startswith("areas/arcs/") for p in arcs)
    members = Counter(e["dst_path"] for e in demo.edges("part_of"))
    assert all(members[arc] >= 2 for arc in arcs), members


def test_supersedes_chain_of_three_into_the_archive(demo):
    files = demo.files()
    successor = {}
    for edge in demo.edges("supersedes"):
        loser = files[edge["dst_path"]]
        assert edge["dst_path"].startswith(("archive/2025/", "archive/2026/"))
        assert loser["archived"] == 1 and loser["archived_at"]
        assert loser["origin_path"] == original_path_for(edge["dst_path"])
        assert loser["archived_at"][:4] == edge["dst_path"][8:12]
        text = (DEMO / edge["dst_path"]).read_text()
        assert '<meta name="memhtml-status" content="archived">' in text
        successor[edge["dst_path"]] = edge["src_path"]
    assert len(successor) >= 2
    lengths = []
    for path in successor:
        length = 1
        while path in successor:
            path, length = successor[path], length + 1
        lengths.append(length)
    assert max(lengths) >= 3


def test_no_dangling_links(demo):
    files = demo.files()
    for edge in demo.rows("edges"):
        assert edge["dst_path"] in files, edge


def test_facets_consumer_vocabulary_and_numbers(demo):
    facets = demo.rows("file_facets")
    doc_types = Counter(f["value"] for f in facets if f["name"] == "doc-type")
    assert all(doc_types[v] >= 2 for v in ("runbook", "guide", "postmortem")), doc_types
    tiers = Counter(f["value"] for f in facets if f["name"] == "tier")
    assert all(tiers[v] >= 2 for v in ("1", "2", "3")), tiers
    assert all(f["numeric_value"] == float(f["value"]) for f in facets if f["name"] == "tier")
    assert sum(1 for f in facets if f["numeric_value"] is not None) >= 40
    citations = demo.rows("file_citations")
    assert any(c["href"] for c in citations) and any(c["href"] is None for c in citations)
    assert any("How this was learned" in f["disclosure_text"] for f in demo.files().values())


def test_negation_twin_pair_and_numeric_twin(demo):
    live = {p: f for p, f in demo.files().items() if not f["archived"] and f["memory_type"] != "task"}
    negation_pairs, numeric_pairs = [], []
    items = sorted(live.items())
    for i, (pa, a) in enumerate(items):
        for pb, b in items[i + 1 :]:
            if a["memory_type"] != b["memory_type"]:
                continue
            negated = [" not " in g or " never " in g for g in (a["gist"], b["gist"])]
            if negated[0] != negated[1] and _claim_words(a["gist"]) == _claim_words(b["gist"]):
                negation_pairs.append((pa, pb))
            if a["gist"] != b["gist"] and re.sub(r"\d+", "#", a["gist"]) == re.sub(r"\d+", "#", b["gist"]):
                numeric_pairs.append((pa, pb))
    assert negation_pairs, "the near-twin negation pair is missing"
    assert numeric_pairs, "the numeric twin is missing"
    gists = {live[p]["gist"] for pair in negation_pairs for p in pair}
    assert "The nightly compactor merges overlapping intervals." in gists
    assert "The nightly compactor does not merge overlapping intervals." in gists


def test_state_sidecar(demo):
    raw = (DEMO / ".memhtml/state/access.jsonl").read_text(encoding="utf-8")
    assert raw.endswith("\n")
    lines = raw.splitlines()
    assert 20 <= len(lines) <= 35
    keys = [
        "path",
        "accessCount",
        "reinforcementCount",
        "outcomeScore",
        "lastAccessedAt",
        "lastReinforcedAt",
        "updatedAt",
    ]
    rows = [json.loads(line) for line in lines]
    assert [r["path"] for r in rows] == sorted(r["path"] for r in rows)
    files = demo.files()
    for line, row in zip(lines, rows):
        assert list(row) == keys
        assert line == json.dumps(row, separators=(",", ":"), ensure_ascii=False)
        assert re.search(r'"outcomeScore":(0|-?0\.\d{0,3}[1-9]|-?1),', line), line
        f = files[row["path"]]
        assert f["memory_type"] != "task" and not row["path"].startswith("resources/people/")
        assert row["lastAccessedAt"] >= f["created_at"] and ISO_Z.match(row["lastAccessedAt"])
        assert (row["lastReinforcedAt"] is None) == (row["reinforcementCount"] == 0)
        assert row["updatedAt"] == row["lastAccessedAt"]
    assert any(r["outcomeScore"] < 0 for r in rows)
    assert len({r["accessCount"] for r in rows}) >= 8
