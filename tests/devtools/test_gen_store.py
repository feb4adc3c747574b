"""The store generator: deterministic, exactly N files, every type, valid except the intended failures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.devtools import store_controls as ctl
from memhtml_desktop.devtools.gen_store import GeneratedStore, generate_store, write_probes
from memhtml_desktop.devtools.store_build import slug
from memhtml_desktop.devtools.store_render import INVALID_FAMILIES
from memhtml_desktop.domain.paths import MEMORY_TYPES, original_path_for, slugify
from tests.devtools.helpers import ISO_Z, ParsedStore, memory_paths, parse_store

ROOT = Path(__file__).resolve().parents[2]
COUNT = 600
SEED = 20260802
INVALID = 18  # one of each family


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> GeneratedStore:
    return generate_store(tmp_path_factory.mktemp("gen") / "store", COUNT, SEED, invalid=INVALID, state=True)


@pytest.fixture(scope="module")
def parsed(store) -> ParsedStore:
    return parse_store(store.root)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- determinism and shape ---------------------------------------------------------------------


def test_same_seed_and_count_give_byte_identical_stores(tmp_path, store):
    again = generate_store(tmp_path / "again", COUNT, SEED, invalid=INVALID, state=True)
    assert _tree(again.root) == _tree(store.root)
    assert again.probes == store.probes
    assert again.invalid == store.invalid


def test_another_seed_gives_another_store(tmp_path, store):
    other = generate_store(tmp_path / "other", COUNT, SEED + 1, invalid=INVALID, state=True)
    assert _tree(other.root) != _tree(store.root)


def test_exactly_count_memory_files_plus_scaffold(store):
    on_disk = memory_paths(store.root)
    assert len(store.paths) == COUNT == len(set(store.paths))
    assert sorted(store.paths) == on_disk
    assert (store.root / "README.html").is_file()
    assert (store.root / ".gitignore").read_text().splitlines() == [".memhtml/index.db*", ".memhtml/state.db*"]


def test_every_memory_type_and_the_layout(store, parsed):
    files = parsed.files()
    types = {f["memory_type"] for f in files.values()}
    assert types == set(MEMORY_TYPES)
    assert sum(store.types.values()) == COUNT - INVALID
    assert all(p.startswith(("projects/", "areas/", "resources/", "archive/")) for p in store.paths)
    workspaces = {f["workspace"] for f in files.values() if f["workspace"]}
    assert len(workspaces) >= 10
    for path, f in files.items():
        if f["memory_type"] == "arc":
            assert path.startswith("areas/arcs/")
        if f["memory_type"] == "task" and not f["archived"]:
            assert re.match(r"^(projects/[^/]+/tasks|areas/inbox/tasks)/[^/]+\.html$", path), path
        if f["memory_type"] == "episodic":
            name = path.rsplit("/", 1)[1]
            assert name[:8] == f["created_at"][:10].replace("-", "") and name[8] == "-", path
        assert ISO_Z.match(f["created_at"]) and ISO_Z.match(f["updated_at"]), path
        assert f["created_at"] <= f["updated_at"], path
    years = {f["created_at"][:4] for f in files.values()}
    assert {"2025", "2026"} <= years


def test_people_files_name_a_person(store, parsed):
    assert store.people and all(p.startswith("resources/people/") for p in store.people)
    for path in store.people:
        entities = parsed.ok[path]["file_entities"]
        assert any(e["entity_type"] == "person" for e in entities), path
        assert parsed.files()[path]["memory_type"] == "semantic"


def test_tasks_have_statuses_due_dates_and_task_links(parsed):
    files = parsed.files()
    tasks = {p: f for p, f in files.items() if f["memory_type"] == "task"}
    assert {f["task_status"] for f in tasks.values()} == {"todo", "doing", "blocked", "done"}
    assert all(f["due_at"] for f in tasks.values())
    task_edges = [e for e in parsed.rows("edges") if e["edge_class"] == "task"]
    assert {e["rel"] for e in task_edges} == {"blocks", "subtask_of"}
    for edge in task_edges:
        assert files[edge["src_path"]]["memory_type"] == "task"
        assert files[edge["dst_path"]]["memory_type"] == "task"
        assert not files[edge["dst_path"]]["archived"]


def test_rich_elements_appear(parsed):
    facets = parsed.rows("file_facets")
    assert {f["value"] for f in facets if f["name"] == "doc-type"} >= {"runbook", "guide", "postmortem"}
    assert {f["value"] for f in facets if f["name"] == "tier"} == {"1", "2", "3"}
    assert sum(1 for f in facets if f["numeric_value"] is not None) > COUNT
    entity_types = {e["entity_type"] for e in parsed.rows("file_entities")}
    assert {"service", "team", "person", "concept", "lang"} <= entity_types
    assert any(c["href"] for c in parsed.rows("file_citations"))
    assert any(c["href"] is None for c in parsed.rows("file_citations"))
    files = parsed.files().values()
    assert sum(1 for f in files if f["event_at"]) > COUNT // 10
    assert any("How this was learned" in f["disclosure_text"] for f in files)
    assert any(f["needs_revision"] for f in files) and any(f["valid_until"] for f in files)
    assert len({f["author"] for f in files}) >= 5


def test_every_file_is_valid_except_the_intended_ones(store, parsed):
    intended = store.invalid_paths
    assert parsed.failed == {path: list(v) for path, v in intended.items()}
    assert parsed.warnings == {}
    assert len(parsed.ok) == COUNT - INVALID


def test_each_invalid_file_breaks_a_different_rule(store):
    assert len(store.invalid) == INVALID == len(INVALID_FAMILIES)
    assert len({item.family for item in store.invalid}) == INVALID
    assert len({item.violations for item in store.invalid}) == INVALID


def test_default_invalid_count_is_about_two_per_thousand(tmp_path):
    small = generate_store(tmp_path / "small", 200, 1, probes=4)
    assert len(small.invalid) == 1
    larger = generate_store(tmp_path / "larger", 2000, 1, probes=4)
    assert len(larger.invalid) == 4
    none = generate_store(tmp_path / "none", 100, 1, invalid=0, probes=4)
    assert none.invalid == ()


def test_no_duplicate_active_articles_and_no_dangling_edges(store, parsed):
    files = parsed.files()
    hashes = [f["content_hash"] for f in files.values() if not f["archived"] and f["memory_type"] != "task"]
    assert len(hashes) == len(set(hashes))
    for edge in parsed.rows("edges"):
        assert edge["dst_path"] in files, edge


def test_supersedes_chains_end_in_the_archive(store, parsed):
    files = parsed.files()
    supersedes = parsed.edges("supersedes")
    assert len(supersedes) >= COUNT // 50
    successor = {}
    for edge in supersedes:
        loser = files[edge["dst_path"]]
        assert edge["dst_path"].startswith("archive/") and loser["archived"] == 1
        assert loser["archived_at"] and loser["origin_path"] == original_path_for(edge["dst_path"])
        assert re.match(r"^archive/(2025|2026)/", edge["dst_path"])
        assert loser["archived_at"][:4] == edge["dst_path"][8:12]
        assert loser["memory_type"] == files[edge["src_path"]]["memory_type"]
        successor[edge["dst_path"]] = edge["src_path"]
    longest = max(_chain_length(p, successor) for p in successor)
    assert longest >= 3
    for path in successor:
        text = (store.root / path).read_text()
        assert '<meta name="memhtml-status" content="archived">' in text
        assert f'<meta name="memhtml-superseded-by" content="/{successor[path]}">' in text


def _chain_length(path: str, successor: dict[str, str]) -> int:
    length = 1
    while path in successor:
        path = successor[path]
        length += 1
    return length


# -- probes -------------------------------------------------------------------------------------


def test_probes_have_a_target_and_three_near_twin_controls(store, parsed):
    files = parsed.files()
    assert len(store.probes) == 36
    assert len({p.target for p in store.probes}) == 36
    gists = [f["gist"] for f in files.values()]
    for probe in store.probes:
        target = files[probe.target]
        assert probe.families == ("negation", "numeric", "variant") and probe.kind == "negation+numeric+variant"
        assert gists.count(target["gist"]) == 1, probe.target
        assert len(probe.controls) == 3
        for family, path in zip(probe.families, probe.controls):
            control = files[path]
            assert path.rsplit("/", 1)[0] == probe.target.rsplit("/", 1)[0]
            assert control["memory_type"] == target["memory_type"]
            assert control["created_at"] <= target["created_at"]
            assert control["updated_at"] <= target["updated_at"]
            assert control["content_hash"] != target["content_hash"]
            assert ctl.PREDICATES[family](target["body_text"], control["body_text"]), (family, path)
        negated, numeric, variant = (files[p]["gist"] for p in probe.controls)
        assert " not " in negated or negated.startswith("It is not true")
        assert re.sub(r"\d+", "#", numeric) == re.sub(r"\d+", "#", target["gist"]) != numeric
        assert variant.endswith("variant only.")


def test_probe_queries_come_from_the_claim_and_carry_no_negation(store, parsed):
    files = parsed.files()
    for probe in store.probes:
        words = probe.query.split()
        claim_words = set(re.findall(r"[^\W_]+", files[probe.target]["gist"].lower()))
        assert 3 <= len(words) <= 12
        assert set(words) <= claim_words
        assert not set(words) & (ctl.NEGATION_MARKERS | ctl.VARIANT_QUALIFIERS)
        assert any(w.isdigit() for w in words)


def test_controls_have_no_state_rows(store):
    lines = (store.root / ".memhtml/state/access.jsonl").read_text().splitlines()
    paths = [json.loads(line)["path"] for line in lines]
    assert not set(paths) & set(store.controls)
    assert not set(paths) & set(store.invalid_paths)
    assert not any(p.startswith("archive/") for p in paths)


@pytest.mark.parametrize("names", ["target_last", "target_first", "shuffled"])
def test_control_names_are_handed_out_without_changing_the_store(tmp_path, names):
    plain = generate_store(tmp_path / "plain", 400, 7, probes=10)
    renamed = generate_store(tmp_path / names, 400, 7, probes=10, control_names=names)
    assert set(renamed.paths) == set(plain.paths), "the same names, handed out differently"
    assert [p.query for p in renamed.probes] == [p.query for p in plain.probes]
    for before, after in zip(plain.probes, renamed.probes):
        group = sorted([after.target, *after.controls])
        assert group == sorted([before.target, *before.controls])
        if names == "target_last":
            assert after.target == group[-1]
        elif names == "target_first":
            assert after.target == group[0]
        # the target's file holds the target's claim, whatever its name
        claim = re.compile(rb"<mark>(.*?)</mark>", re.S)
        assert claim.search((renamed.root / after.target).read_bytes()).group(1) == claim.search(
            (plain.root / before.target).read_bytes()
        ).group(1)
    if names == "shuffled":
        assert any(p.target != sorted([p.target, *p.controls])[0] for p in renamed.probes)
        assert any(p.target != sorted([p.target, *p.controls])[-1] for p in renamed.probes)


def test_probe_count_is_configurable_and_capped_by_size(tmp_path):
    assert len(generate_store(tmp_path / "a", 400, 5, probes=10).probes) == 10
    assert len(generate_store(tmp_path / "b", 100, 5).probes) == 10  # 36 asked, 10% of the store
    assert generate_store(tmp_path / "c", 100, 5, probes=0).probes == ()


# -- state plane ------------------------------------------------------------------------------


def test_state_sidecar_uses_memhtml_format(store, parsed):
    raw = (store.root / ".memhtml/state/access.jsonl").read_text(encoding="utf-8")
    assert raw.endswith("\n")
    lines = raw.splitlines()
    assert store.state_rows == len(lines) > COUNT // 4
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
    files = parsed.files()
    for line, row in zip(lines, rows):
        assert list(row) == keys
        assert line == json.dumps(row, separators=(",", ":"), ensure_ascii=False)
        assert re.search(r'"outcomeScore":(0|-?0\.\d{0,3}[1-9]|-?1),', line), line  # JS-style numbers
        assert row["path"] in files and not files[row["path"]]["archived"]
        assert row["accessCount"] >= 1 and 0 <= row["reinforcementCount"] <= row["accessCount"]
        assert -1 <= row["outcomeScore"] <= 1 and round(row["outcomeScore"], 4) == row["outcomeScore"]
        assert (row["lastReinforcedAt"] is None) == (row["reinforcementCount"] == 0)
        assert ISO_Z.match(row["lastAccessedAt"]) and row["updatedAt"] == row["lastAccessedAt"]
        assert row["lastAccessedAt"] >= files[row["path"]]["created_at"]
    assert any(r["outcomeScore"] < 0 for r in rows) and any(r["outcomeScore"] > 0 for r in rows)
    assert len({r["accessCount"] for r in rows}) >= 5


# -- API, CLI, helpers ------------------------------------------------------------------------


def test_refuses_a_non_empty_directory_unless_forced(tmp_path):
    generate_store(tmp_path / "s", 60, 1, probes=2)
    with pytest.raises(FileExistsError):
        generate_store(tmp_path / "s", 60, 1, probes=2)
    again = generate_store(tmp_path / "s", 50, 2, probes=2, force=True)
    assert len(memory_paths(tmp_path / "s")) == 50 == len(again.paths)


def test_too_small_a_count_is_refused(tmp_path):
    with pytest.raises(ValueError):
        generate_store(tmp_path / "tiny", 10, 1)


@pytest.mark.parametrize("count", [40, 41, 77, 250])
def test_small_stores_still_cover_every_type(tmp_path, count):
    made = generate_store(tmp_path / "s", count, count)
    assert len(memory_paths(made.root)) == count
    assert set(made.types) == set(MEMORY_TYPES)


def test_cli_writes_the_store_the_probes_and_a_summary(tmp_path):
    probes = tmp_path / "probes.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhtml_desktop.devtools.gen_store",
            str(tmp_path / "s"),
            "--count",
            "300",
            "--seed",
            "9",
            "--invalid",
            "3",
            "--probes",
            str(probes),
            "--state",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(out.stdout.strip().splitlines()) == 1
    assert out.stdout.startswith("gen_store: wrote 300 memories (3 invalid")
    assert len(memory_paths(tmp_path / "s")) == 300
    payload = [json.loads(line) for line in probes.read_text().splitlines()]
    assert len(payload) == 30
    assert set(payload[0]) == {"query", "target", "controls", "kind", "families"}
    api = generate_store(tmp_path / "api", 300, 9, invalid=3, state=True)
    write_probes(api, tmp_path / "api.json")
    assert (tmp_path / "api.json").read_text() == probes.read_text()
    assert _tree(api.root) == _tree(tmp_path / "s")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
def test_fast_slug_matches_domain_slugify(title):
    assert slug(title) == slugify(title)


def test_slug_of_non_ascii_titles_uses_slugify():
    assert slug("Refuted reading — Café déployé") == slugify("Refuted reading — Café déployé")


@pytest.mark.slow
def test_twenty_thousand_files_in_a_few_seconds(tmp_path):
    # CPU time, not wall time: on a shared runner file creation waits on other processes.
    started = time.process_time()
    made = generate_store(tmp_path / "big", 20_000, 3)
    spent = time.process_time() - started
    assert len(made.paths) == 20_000
    assert spent < 30, spent
