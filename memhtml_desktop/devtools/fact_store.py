"""A conflicting-fact store: real facts, some of which a newer memory changes, and the questions
about them (the fixture of the conflicts scan and of the newer-first ranking step).

    python -m memhtml_desktop.devtools.fact_store DIR [--slots N] [--seed S] [--change 0.3]

Modelled on the field's benchmark for it (MemoryAgentBench's conflict resolution, built on MQuAKE's
counterfactual edits): a fact states a value in a slot (a subject and a relation, MQuAKE's
Wikidata relations and their wording), and a later fact writes another value into the same slot;
the right answer to a question about the slot is the newest value. The facts are real
(`tests/data/facts/places.json`: GeoNames' countries and cities, the Python documentation's
"New in version" notes and release dates; `bench/facts_extract.py` made it); a change writes a
value drawn from the same relation's other values (as MQuAKE does), a population a few percent
off, a date some days or years off.

What keeps it honest:
- several wordings per relation (`TEMPLATES`), and a change worded like its older fact three times in
  four (`REWORDED_ODDS_SAME`), so a rule cannot lean on identical frames alone; subjects appear as themselves and inside
  paraphrases ("The city of Lyon is in France", "Lyon is a city in France");
- slots that differ only in an entity (capital, country, currency, time zone), a number (population,
  a Python version) or a date (a release, a withdrawal);
- negatives a rule must leave alone: relations that hold several values at once (a country's
  neighbours, the languages spoken in it), agreeing restatements of one value in other words, and
  every other slot;
- time: each memory is written by `apply` in one of several commits (its written time), and about
  half carry the moment the fact was stated (`<time datetime>`, the event time); in a tenth of the
  changes the newer fact was written *before* the older one (a backfill) and only its event time
  says it is newer.

`build(...)` returns the store's facts, the true (newer, older) pairs and the questions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from random import Random

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "facts" / "places.json"

#: relation -> (claim wordings, question wordings, title wordings). `{s}` the subject, `{v}` the value.
TEMPLATES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "capital": (
        (
            "The capital of {s} is {v}.",
            "{s}'s capital is {v}.",
            "{s} has its capital in {v}.",
            "The seat of government of {s} is in {v}.",
        ),
        ("What is the capital of {s}?", "Which city is the capital of {s}?"),
        ("Capital of {s}", "{s}: capital city"),
    ),
    "currency": (
        ("The currency of {s} is the {v}.", "{s} uses the {v} as its currency.", "Prices in {s} are paid in the {v}."),
        ("What currency is used in {s}?", "What is the currency of {s}?"),
        ("Currency of {s}", "{s} money"),
    ),
    "continent": (
        ("{s} is located in the continent of {v}.", "{s} lies in {v}.", "The country {s} is part of {v}."),
        ("Which continent is {s} located in?", "On which continent is {s}?"),
        ("{s}: continent", "Where {s} is"),
    ),
    "language": (
        ("The official language of {s} is {v}.", "{s} has {v} as its official language."),
        ("What is the official language of {s}?", "Which language is official in {s}?"),
        ("Official language of {s}", "{s}: official language"),
    ),
    "population": (
        ("The population of {s} is {v}.", "{s} has {v} inhabitants.", "About {v} people live in {s}."),
        ("What is the population of {s}?", "How many people live in {s}?"),
        ("Population of {s}", "{s} population"),
    ),
    "country": (
        ("{s} is located in the country of {v}.", "The city of {s} is in {v}.", "{s} is a city in {v}."),
        ("Which country is {s} located in?", "In which country is the city of {s}?"),
        ("{s}: country", "Where is {s}"),
    ),
    "timezone": (
        ("{s} keeps time in the {v} time zone.", "The time zone of {s} is {v}."),
        ("Which time zone does {s} use?", "What is the time zone of {s}?"),
        ("Time zone of {s}", "{s} clock"),
    ),
    "added": (
        ("{s} was added in Python {v}.", "{s} first appeared in Python {v}.", "Python {v} introduced {s}."),
        ("In which Python version was {s} added?", "Since which Python version is {s} available?"),
        ("{s} availability", "When {s} came"),
    ),
    "released": (
        ("{s} was released on {v}.", "The release date of {s} is {v}."),
        ("When was {s} released?", "What is the release date of {s}?"),
        ("{s} release", "Release of {s}"),
    ),
    "withdrawn": (
        ("The ISO 3166 code of {s} was withdrawn on {v}.", "{s} lost its ISO 3166 code on {v}."),
        ("When was the ISO code of {s} withdrawn?", "On which date did {s} lose its ISO code?"),
        ("{s} ISO code", "ISO code of {s} withdrawn"),
    ),
    # several values at once: two of these never contradict each other
    "neighbour": (
        ("{s} shares a border with {v}.", "{s} borders {v}.", "{s} is a neighbour of {v}."),
        (),
        ("{s} border", "Neighbours of {s}"),
    ),
    "spoken": (("{v} is spoken in {s}.", "People in {s} speak {v}."), (), ("Languages of {s}", "{s} languages")),
}
MULTI = ("neighbour", "spoken")
NUMBERS = ("population",)
DATES = ("released", "withdrawn")
REWORDED_ODDS_SAME = 0.75
"""How often a change is worded like the fact it replaces (else in another of its relation's wordings):
MemoryAgentBench's changes share memhtml's frame key with the fact they override for 173 of 201
pairs (86%, issue 39's measure); three in four here, so a quarter of the changes are reworded."""
BATCHES = 8  # commits, one written time each
START = dt.datetime(2024, 1, 8, 9, 30, tzinfo=dt.timezone.utc)


@dataclass
class Fact:
    slot: str  # relation|subject
    relation: str
    subject: str
    value: str
    claim: str
    title: str
    batch: int  # which commit wrote it (its written time)
    event: str | None  # the day the fact was stated (`<time datetime>`), or None
    version: int = 0  # 0 the first value of the slot, then each change
    path: str = ""

    @property
    def multi(self) -> bool:
        return self.relation in MULTI


@dataclass
class FactStore:
    root: Path
    facts: list[Fact]
    #: (newer path, older path): every pair of versions of one slot, the newer by event time, else written time
    pairs: list[tuple[str, str]]
    #: (question, newest path, older paths)
    questions: list[tuple[str, str, tuple[str, ...]]]
    restatements: list[tuple[str, str]] = field(default_factory=list)  # agreeing pairs (negatives)

    def kind_of(self, path: str) -> str:
        return next(f.relation for f in self.facts if f.path == path)


def written_at(batch: int) -> dt.datetime:
    return START + dt.timedelta(days=61 * batch, hours=batch)


def _day(moment: dt.datetime) -> str:
    return moment.date().isoformat()


def _format(relation: str, value) -> str:
    if relation == "population":
        return f"{int(value):,}"
    if relation in DATES:
        day = dt.date.fromisoformat(value)
        return f"{day:%B} {day.day}, {day.year}"
    return str(value)


def _slots(data: dict, rng: Random, limit: int) -> list[tuple[str, str, object, list]]:
    """(relation, subject, value, the relation's other values) of every single-valued slot, shuffled, cut."""
    countries, cities = data["countries"], data["cities"]
    pools = {
        "capital": [c["capital"] for c in countries],
        "currency": sorted({c["currency"] for c in countries}),
        "continent": sorted({c["continent"] for c in countries}),
        "language": sorted({c["languages"][0] for c in countries if c["languages"]}),
        "country": sorted({c["name"] for c in countries}),
        "timezone": sorted({c["timezone"] for c in cities}),
        "added": sorted({a["version"] for a in data["apis"]}),
    }
    slots = []
    for c in countries:
        slots += [
            ("capital", c["name"], c["capital"]),
            ("currency", c["name"], c["currency"]),
            ("continent", c["name"], c["continent"]),
            ("population", c["name"], c["population"]),
        ]
        if c["languages"]:
            slots.append(("language", c["name"], c["languages"][0]))
    for c in cities:
        slots += [
            ("country", c["name"], c["country"]),
            ("population", c["name"], c["population"]),
            ("timezone", c["name"], c["timezone"]),
        ]
    slots += [("added", a["name"], a["version"]) for a in data["apis"]]
    slots += [("released", r["name"], r["date"]) for r in data["releases"]]
    slots += [("withdrawn", w["name"], w["date"]) for w in data["withdrawn"]]
    rng.shuffle(slots)
    return [(rel, subject, value, pools.get(rel, [])) for rel, subject, value in slots[:limit]]


def _changed(relation: str, value, pool: list, rng: Random, used: set):
    if relation == "population":
        return int(round(int(value) * rng.choice((rng.uniform(0.8, 0.97), rng.uniform(1.03, 1.3))), -2))
    if relation in DATES:
        days = rng.choice((rng.randint(20, 300), rng.randint(366, 3000))) * rng.choice((-1, 1))
        return (dt.date.fromisoformat(value) + dt.timedelta(days=days)).isoformat()
    return rng.choice([v for v in pool if v != value and v not in used])  # a chain never returns to a value


def _fact(
    relation: str,
    subject: str,
    value,
    rng: Random,
    batch: int,
    event: str | None,
    version: int,
    wording: int | None = None,
) -> Fact:
    claims, _, titles = TEMPLATES[relation]
    wording = rng.randrange(len(claims)) if wording is None else wording
    claim = claims[wording].format(s=subject, v=_format(relation, value))
    claim = claim[0].upper() + claim[1:]
    title = claim.rstrip(".") if rng.random() < 0.5 else rng.choice(titles).format(s=subject)
    return Fact(f"{relation}|{subject}", relation, subject, str(value), claim, title, batch, event, version)


def plan_facts(data: dict, *, slots: int, seed: int, change: float = 0.3) -> list[Fact]:
    """Every memory of the store, before it is written (deterministic for a seed)."""
    rng = Random(seed)
    facts: list[Fact] = []
    for relation, subject, value, pool in _slots(data, rng, slots):
        first_batch = rng.randrange(BATCHES // 2)
        stated = written_at(first_batch) - dt.timedelta(days=rng.randint(0, 40))
        wording = rng.randrange(len(TEMPLATES[relation][0]))
        event = _day(stated) if rng.random() < 0.5 else None
        facts.append(_fact(relation, subject, value, rng, first_batch, event, 0, wording))
        if rng.random() < change:
            steps = 2 if rng.random() < 0.25 else 1
            current, batch, when = value, first_batch, stated
            used = {value}
            for version in range(1, steps + 1):
                current = _changed(relation, current, pool, rng, used)
                used.add(current)
                batch = min(BATCHES - 1, batch + 1 + rng.randrange(2))
                when = max(when + dt.timedelta(days=5), written_at(batch) - dt.timedelta(days=rng.randint(0, 30)))
                backfill = version == 1 and steps == 1 and first_batch > 0 and rng.random() < 0.1
                if backfill:  # written in the first commit, before the fact it replaces: only its event time says so
                    facts[-1].event = facts[-1].event or _day(stated)
                same = rng.random() < REWORDED_ODDS_SAME
                made = _fact(
                    relation,
                    subject,
                    current,
                    rng,
                    0 if backfill else batch,
                    _day(when) if backfill or rng.random() < 0.5 else None,
                    version,
                    wording if same else None,
                )
                facts.append(made)
        elif rng.random() < 0.08:  # an agreeing restatement, other words, later
            claims = TEMPLATES[relation][0]
            other = (wording + 1 + rng.randrange(len(claims) - 1)) % len(claims) if len(claims) > 1 else wording
            facts.append(_fact(relation, subject, value, rng, min(BATCHES - 1, first_batch + 2), None, 0, other))
    for c in rng.sample(data["countries"], min(len(data["countries"]), max(8, slots // 25))):
        for relation, values in (("neighbour", c["neighbours"]), ("spoken", c["languages"])):
            for v in values[:4]:
                facts.append(_fact(relation, c["name"], v, rng, rng.randrange(BATCHES), None, 0))
    return facts


def _article(fact: Fact) -> str:
    return (
        f'<p><mark>{_esc(fact.claim)}</mark></p>\n<p>Stated on <time datetime="{fact.event}">{fact.event}</time>.</p>'
    )


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _older_first(x: Fact, y: Fact) -> int:
    """The scan's order (`domain.contradiction.newer_of`): event time, else written time."""
    from memhtml_desktop.domain.contradiction import Statement, newer_of

    sx, sy = (
        Statement(f.path, f.claim, None, f.event, written_at(f.batch).strftime("%Y-%m-%dT%H:%M:%SZ")) for f in (x, y)
    )
    newer = newer_of(sx, sy)
    return 0 if newer is None else (1 if newer == x.path else -1)


def when_of(fact: Fact) -> str:
    """The fact's time as the scan reads it: its event day, else its written instant."""
    return fact.event or written_at(fact.batch).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(root: Path, facts: list[Fact]) -> None:
    """Write the facts with `apply`, one commit per written time, through the app's own write core."""
    from memhtml_desktop.index.store import Store
    from memhtml_desktop.write.batch import ApplyRequest
    from memhtml_desktop.write.curator import BatchOp, Curator
    from memhtml_desktop.write.requests import WriteRequest

    root.mkdir(parents=True, exist_ok=True)
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "config", "user.email", "facts@example.invalid"],
        ["git", "config", "user.name", "fact store"],
        ["git", "config", "commit.gpgsign", "false"],
    ):
        subprocess.run(cmd, cwd=root, check=True)
    now = [written_at(0)]
    store = Store(root, index_path=root.parent / f"{root.name}.apply-index.db", embedder=None, clock=lambda: now[0])
    try:
        for batch in range(BATCHES):
            todo = [f for f in facts if f.batch == batch]
            if not todo:
                continue
            now[0] = written_at(batch)
            ops = []
            for f in todo:
                if f.event:
                    request = WriteRequest(title=f.title, memory_type="semantic", article_html=_article(f))
                else:
                    request = WriteRequest(title=f.title, memory_type="semantic", claim=f.claim)
                ops.append(BatchOp(request, f.claim if not f.event else ""))
            applied = Curator(store, refresh_index=True).run(ApplyRequest(tuple(ops)))
            for f, result in zip(todo, applied.result["results"]):
                if not result.get("ok") or result.get("deduped"):
                    raise RuntimeError(
                        f"{f.claim}: {result.get('error') or 'the same text as ' + str(result.get('existing_path'))}"
                    )
                f.path = result.get("path") or result.get("existing_path")
    finally:
        (root.parent / f"{root.name}.apply-index.db").unlink(missing_ok=True)


def truth(root: Path, facts: list[Fact], rng: Random) -> FactStore:
    by_slot: dict[str, list[Fact]] = {}
    for f in facts:
        if not f.multi:
            by_slot.setdefault(f.slot, []).append(f)
    pairs, questions, restated = [], [], []
    for slot, versions in by_slot.items():
        values = {f.value for f in versions}
        if len(values) < 2:
            if len(versions) > 1:
                restated.append((versions[1].path, versions[0].path))
            continue
        ordered = sorted(versions, key=functools.cmp_to_key(_older_first))
        for i, newer in enumerate(ordered):
            pairs += [(newer.path, older.path) for older in ordered[:i] if older.value != newer.value]
        newest = ordered[-1]
        asked = rng.choice(TEMPLATES[newest.relation][1]).format(s=newest.subject)
        questions.append((asked, newest.path, tuple(f.path for f in ordered[:-1])))
    return FactStore(root, facts, pairs, questions, restated)


def build(root: Path, *, slots: int = 1200, seed: int = 5, change: float = 0.3, data: Path = DATA) -> FactStore:
    """Write a conflicting-fact store at `root` and say what is true of it."""
    facts = plan_facts(json.loads(Path(data).read_text(encoding="utf-8")), slots=slots, seed=seed, change=change)
    write(Path(root), facts)
    return truth(Path(root), facts, Random(seed ^ 0x51))


def save_truth(made: FactStore, target: Path) -> None:
    target.write_text(
        json.dumps(
            {
                "pairs": made.pairs,
                "questions": made.questions,
                "restatements": made.restatements,
                "facts": [vars(f) for f in made.facts],
            },
            ensure_ascii=False,
            indent=0,
        )
        + "\n",
        encoding="utf-8",
    )


def load_truth(root: Path, source: Path) -> FactStore:
    data = json.loads(source.read_text(encoding="utf-8"))
    return FactStore(
        root,
        [Fact(**f) for f in data["facts"]],
        [tuple(p) for p in data["pairs"]],
        [(q, n, tuple(o)) for q, n, o in data["questions"]],
        [tuple(p) for p in data["restatements"]],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m memhtml_desktop.devtools.fact_store", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("dir", type=Path)
    ap.add_argument("--slots", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--change", type=float, default=0.3)
    args = ap.parse_args(argv)
    made = build(args.dir, slots=args.slots, seed=args.seed, change=args.change)
    save_truth(made, args.dir.parent / f"{args.dir.name}.truth.json")
    print(
        f"fact_store: {len(made.facts)} memories, {len(made.pairs)} (newer, older) pairs, "
        f"{len(made.questions)} questions, {len(made.restatements)} agreeing restatements -> {args.dir}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
