"""The four quota ledgers hold against the seed's failure modes, with plain values."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml_desktop.domain.disclosure import FoldCandidate, fold, index_line, utf16_len
from memhtml_desktop.domain.quotas import (
    LEDGER_NAMES,
    SEED,
    LedgerMap,
    LedgerMapError,
    MemoryFacts,
    QuotaCandidate,
    Rule,
    fold_quotas,
    ledger_map_from_json,
    parse_ledger_map,
    render_quota_text,
)


def cand(
    path: str,
    mtype: str = "semantic",
    *,
    quote: int = 120,
    claim: int = 40,
    rank: int | None = None,
    status: str | None = None,
    importance: int = 5,
    recency: str = "2026-01-01T00:00:00.000Z",
    entities: tuple[str, ...] = (),
    revision: bool = False,
) -> QuotaCandidate:
    tail = path.rsplit("/", 1)[-1]
    return QuotaCandidate(
        fold=FoldCandidate(
            path,
            f"Title {tail}",
            mtype,
            ("Q" * (quote - len(tail))) + tail,
            ("C" * max(0, claim - len(tail) - 1)) + tail + ".",
            entities,
        ),
        facts=MemoryFacts(path, mtype, status, revision),
        importance=importance,
        recency=recency,
        rank=rank,
    )


def long_session(n: int = 40) -> list[QuotaCandidate]:
    """One long session's hits: many relevant episodes, each big enough to eat a budget."""
    return [cand(f"projects/x/session-{i:02d}.html", "episodic", quote=900, claim=200, rank=i + 1) for i in range(n)]


def open_tasks() -> list[QuotaCandidate]:
    return [
        cand(
            f"projects/x/tasks/t{i}.html",
            "task",
            status="todo",
            quote=150,
            claim=60,
            recency=f"2026-0{i + 1}-01T00:00:00.000Z",
        )
        for i in range(3)
    ]


def test_a_long_session_never_squeezes_out_pending_items():
    pool, pending = long_session(), open_tasks()
    pack = fold_quotas("q", pool, {"pending": pending}, {"pending": len(pending)}, 16_000, SEED, max_per_entity=2)
    held = pack.ledger("pending").section
    assert [i.tier for i in held.items] == ["quote"] * 3, "every open task keeps its whole text"
    assert [i.path for i in held.items] == [c.path for c in reversed(pending)], "most recent first"
    # Without ledgers the same memories in one account: the session's hits eat the budget first.
    single = fold([c.fold for c in (*pool, *pending)], 16_000)
    squeezed = [i.tier for i in single.items[-3:]]
    assert "quote" not in squeezed and "index" in squeezed, "the failure mode the ledgers exist for"
    assert pack.ledger("task").used <= pack.ledger("task").limit == 5_600


def test_pending_keeps_only_the_most_recent():
    pending = [
        cand(f"t/{i}.html", "task", status="doing", quote=300, claim=250, recency=f"2026-0{i}-01") for i in range(1, 8)
    ]
    pack = fold_quotas("q", [], {"pending": pending}, {"pending": 7}, 4000, SEED, max_per_entity=2)  # limit 600
    items = pack.ledger("pending").section.items
    assert [i.path for i in items] == [f"t/{i}.html" for i in range(7, 0, -1)]
    assert [i.tier for i in items[:2]] == ["quote", "quote"]
    first_out = next(n for n, i in enumerate(items) if i.tier == "index")
    assert items[first_out].reason == "over_budget"
    assert all(i.tier == "index" and i.reason == "recency_cut" for i in items[first_out + 1 :]), (
        "an older item never takes the room a newer one could not"
    )


def test_a_budget_below_the_smallest_capsule_returns_the_index_and_says_so():
    pool = [cand(f"a/{i}.html", rank=i + 1, quote=200, claim=80) for i in range(5)]
    pack = fold_quotas("q", pool, {}, {}, 50, SEED, max_per_entity=2)
    assert pack.smallest_capsule == 80 and pack.does_not_fit
    assert all(i.tier == "index" and i.chars == 0 for ledger in pack.ledgers for i in ledger.section.items)
    assert "does not fit" in pack.fit_note() and "80" in pack.fit_note()
    assert "does not fit" in render_quota_text(pack)
    roomy = fold_quotas("q", pool, {}, {}, 1000, SEED, max_per_entity=2)
    assert not roomy.does_not_fit and roomy.ledger("task").section.counts["quote"] >= 1
    # the ledger alone: the task ledger at 35% of 200 is below the capsule, the pack as a whole is not
    tight = fold_quotas("q", pool, {}, {}, 200, SEED, max_per_entity=2)
    assert not tight.does_not_fit and tight.ledger("task").does_not_fit
    assert "Task-relevant" in tight.fit_note()


def test_unspent_quota_stays_unspent():
    pool = [cand(f"a/{i}.html", "procedural", rank=i + 1, quote=500, claim=300) for i in range(10)]
    pack = fold_quotas("q", pool, {}, {}, 10_000, SEED, max_per_entity=5)
    experience, task = pack.ledger("experience"), pack.ledger("task")
    assert experience.limit == 2_000 and experience.used <= 2_000
    assert task.used == 0 and task.unspent == 3_500, "the task ledger had nothing; its quota is not lent"
    assert experience.dropped > 0, "experience ran out while three other ledgers sat empty"
    assert pack.unspent == 10_000 - pack.used == sum(ledger.unspent for ledger in pack.ledgers) + pack.unallocated


def cands(prefix: str):
    return st.builds(
        lambda i, mtype, quote, claim, status, imp, month: cand(
            f"{prefix}/{i:03d}.html",
            mtype,
            quote=quote,
            claim=claim,
            status=status,
            importance=imp,
            recency=f"2026-{month:02d}-01",
            entities=("e",) if i % 3 == 0 else (),
        ),
        st.integers(0, 999),
        st.sampled_from(["semantic", "episodic", "procedural", "user_preference", "task", "verdict"]),
        st.integers(20, 800),
        st.integers(5, 300),
        st.sampled_from([None, "todo", "done"]),
        st.integers(1, 10),
        st.integers(1, 12),
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(cands("pool"), max_size=30, unique_by=lambda c: c.path),
    st.lists(cands("resident"), max_size=15, unique_by=lambda c: c.path),
    st.integers(0, 20_000),
)
def test_ledgers_are_independent_whole_and_never_cut(pool_in, resident_in, budget):
    pool = [replace(c, rank=n + 1) for n, c in enumerate(pool_in)]
    resident = {name: [c for c in resident_in if SEED.ledger_of(c.facts) == name] for name in ("profile", "pending")}
    totals = {name: len(v) for name, v in resident.items()}
    pack = fold_quotas("q", pool, resident, totals, budget, SEED, max_per_entity=2)
    limits, unallocated = SEED.limits(budget)
    assert sum(limits.values()) + unallocated == budget and unallocated >= 0
    texts = {c.path: c.fold for c in (*pool, *resident_in)}
    seen = []
    for ledger in pack.ledgers:
        assert ledger.limit == limits[ledger.name] and 0 <= ledger.used <= ledger.limit
        for item in ledger.section.items:
            f = texts[item.path]
            allowed = {"quote": f.disclosure_text, "disclosure": f.gist, "index": index_line(f.path, f.title)}
            assert item.text == allowed[item.tier], "a tier is whole or absent: no sentence is cut"
            assert item.chars == (0 if item.tier == "index" else utf16_len(item.text))
            seen.append(item.path)
        # never lent: the same ledger folded with every OTHER ledger emptied is identical
        alone_pool = [c for c in pool if SEED.ledger_of(c.facts) == ledger.name]
        alone = fold_quotas(
            "q", alone_pool, {ledger.name: resident.get(ledger.name, [])}, totals, budget, SEED, max_per_entity=2
        )
        assert alone.ledger(ledger.name).section == ledger.section
    assert len(seen) == len(set(seen)), "a memory lands in one ledger at most"
    assert pack.unspent == budget - pack.used
    again = fold_quotas(
        "q",
        list(reversed(pool)),
        {k: list(reversed(v)) for k, v in resident.items()},
        totals,
        budget,
        SEED,
        max_per_entity=2,
    )
    assert again == pack, "a ledger's order comes from ranks and its own keys, never from input order"


def test_the_seed_map_places_types_and_statuses():
    def place(mtype, **kw):
        return SEED.ledger_of(MemoryFacts(kw.pop("path", "areas/x.html"), mtype, **kw))

    assert place("user_preference") == "profile"
    assert place("semantic", path="resources/people/maya.html") == "profile"
    for mtype in ("procedural", "error_pattern", "precedent", "verdict", "agent_insight"):
        assert place(mtype) == "experience"
    for status in ("todo", "doing", "blocked"):
        assert place("task", task_status=status) == "pending"
    assert place("task", task_status="done") == "task"
    assert place("semantic", needs_revision=True) == "pending"
    assert place("procedural", needs_revision=True) == "pending", "first match wins: to confirm before reuse"
    for mtype in ("episodic", "semantic", "arc"):
        assert place(mtype) == "task"


def test_a_curator_changes_the_map_in_json():
    text = json.dumps(
        {
            "name": "mine",
            "shares": {"profile": 20, "task": 50, "experience": 20, "pending": 5},
            "rules": [
                {"ledger": "profile", "tags": ["constraint"], "why": "hard limits"},
                {"ledger": "experience", "types": ["episodic"]},
            ],
            "window": 12,
        },
        indent=2,
    )
    m = parse_ledger_map(text, source="ledgers.json")
    assert m.name == "mine" and m.share("pending") == 5 and m.window == 12
    assert m.limits(1000) == ({"profile": 200, "task": 500, "experience": 200, "pending": 50}, 50)
    assert m.ledger_of(MemoryFacts("a.html", "semantic", tags=frozenset({"constraint"}))) == "profile"
    assert m.ledger_of(MemoryFacts("a.html", "episodic")) == "experience"
    assert m.ledger_of(MemoryFacts("a.html", "user_preference")) == "task", "the file's rules replace the seed's"
    assert ledger_map_from_json(m.to_json()).to_json() == m.to_json()
    assert ledger_map_from_json({}).rules == SEED.rules, "a file that names nothing is the seed's map"


@pytest.mark.parametrize(
    "text, words, line",
    [
        ('{\n  "shares": {"profile": 60, "task": 35, "experience": 20, "pending": 15}\n}', "more than the whole", 2),
        ('{\n  "rules": [\n    {"ledger": "profile", "types": ["preference"]}\n  ]\n}', "not a memhtml type", 3),
        ('{\n  "rules": [{"ledger": "nowhere", "types": ["episodic"]}]\n}', "one of profile", 2),
        ('{\n  "rules": [{"ledger": "task"}]\n}', "would take every memory", 2),
        ('{\n  "rulez": []\n}', "unknown key", 2),
        ('{\n  "window": 0\n}', "window", 2),
        ('{"shares": {"profile": 30}}', "give exactly", 1),
        ('{\n  "rules": [{"ledger": "pending", "task_status": ["open"]}]\n}', "not a task status", 2),
        ('{ "name": ', "not JSON", 1),
    ],
)
def test_a_bad_map_names_file_and_line(text, words, line):
    with pytest.raises(LedgerMapError) as err:
        parse_ledger_map(text, source="ledgers.json")
    assert words in str(err.value) and err.value.line == line and str(err.value).startswith("ledgers.json:")


def test_shares_under_a_hundred_leave_budget_unallocated_and_said():
    m = LedgerMap(shares=(("profile", 10), ("task", 10), ("experience", 10), ("pending", 10)), rules=SEED.rules)
    pack = fold_quotas("q", [cand("a.html", rank=1)], {}, {}, 1000, m, max_per_entity=2)
    assert pack.unallocated == 600 and pack.unspent >= 600
    assert "unallocated 600" in render_quota_text(pack)
    assert LEDGER_NAMES == tuple(ledger.name for ledger in pack.ledgers)


def test_a_rule_in_code_is_what_the_json_says():
    rule = Rule("profile", types=("semantic",), entity_types=("person",), path_prefixes=("resources/",))
    assert rule.matches(MemoryFacts("resources/p.html", "semantic", entity_types=frozenset({"person", "team"})))
    assert not rule.matches(MemoryFacts("areas/p.html", "semantic", entity_types=frozenset({"person"})))
    assert not rule.matches(MemoryFacts("resources/p.html", "semantic", entity_types=frozenset({"team"})))
