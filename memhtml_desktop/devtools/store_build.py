"""The store generator's planner: which memories exist, where they live, and how they link.

`Builder(count, seed, invalid, probes).build()` fills `specs` with exactly `count` specs, in a
fixed order, consuming one `random.Random(seed)` in a fixed order, so the plan is a pure function
of its arguments. Rendering and writing are `gen_store`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from html import escape
from random import Random

from memhtml_desktop.devtools import store_controls as ctl
from memhtml_desktop.devtools.store_render import INVALID_FAMILIES, Spec
from memhtml_desktop.devtools.store_vocab import (
    AGENTS,
    CAVEAT_BODY,
    CLAIMS,
    DOC_TYPES,
    MONTHS,
    NEUTRAL_BODY,
    PEOPLE,
    SCOPES,
    TASKS,
    TOPICS,
    Topic,
)
from memhtml_desktop.domain.paths import archive_path_for, slugify

EPOCH = datetime(2025, 9, 1, tzinfo=timezone.utc)
DAY = 86400
YEAR = 365 * DAY
#: 25 entries, coprime with the 16 topics, so type and topic never cycle in lockstep. The first
#: eight cover every base type, so even the smallest store has each of them.
TYPE_CYCLE = (
    "semantic",
    "procedural",
    "episodic",
    "error_pattern",
    "agent_insight",
    "user_preference",
    "verdict",
    "precedent",
    "semantic",
    "procedural",
    "semantic",
    "episodic",
    "procedural",
    "error_pattern",
    "semantic",
    "verdict",
    "procedural",
    "agent_insight",
    "semantic",
    "episodic",
    "precedent",
    "procedural",
    "user_preference",
    "semantic",
    "error_pattern",
)
PROBE_TYPES = ("semantic", "procedural")
MEMORY_RELS = ("relates_to", "caused_by", "leads_to", "example_of", "supports", "laterally_related", "contradicts")
_TAGS = re.compile(r"<[^>]+>")
INBOX_CAP = 12
INBOX_TASK_CAP = 6


_NON_SLUG = re.compile(r"[^a-z0-9]+")


def slug(title: str) -> str:
    """`domain.paths.slugify`, with a fast path for ASCII titles (NFKD and the mark filter are
    identities there); the two are pinned equal by tests/devtools."""
    if not title.isascii():
        return slugify(title)
    text = _NON_SLUG.sub("-", title.lower()).strip("-")
    if not text:
        return "untitled"
    return text[:80].rstrip("-") if len(text) > 80 else text


def letter_code(n: int) -> str:
    """Base-26 letters: a unique, digit-free token per memory (keeps articles distinct)."""
    out = ""
    while True:
        out = chr(97 + n % 26) + out
        n //= 26
        if n == 0:
            return out


@dataclass(frozen=True)
class Probe:
    """One discrimination probe: the query, the memory that answers it, and its near-twins."""

    query: str
    target: str
    controls: tuple[str, ...]
    families: tuple[str, ...]

    @property
    def kind(self) -> str:
        return "+".join(self.families)

    def to_json(self) -> dict[str, object]:
        return {
            "query": self.query,
            "target": self.target,
            "controls": list(self.controls),
            "kind": self.kind,
            "families": list(self.families),
        }


CONTROL_NAMES = ("memhtml", "target_last", "target_first", "shuffled")
"""How a probe's four files are named. `memhtml`: the control titles' prefixes (`refuted-reading-…`,
`restated-quantity-…`, `qualified-variant-…`) as memhtml's generator names them. The others reuse
the same four names but hand them out so that path order cannot help the target: `target_last`
gives the target the name that sorts after all three controls (an exact tie then always goes to
a control), `target_first` the one before, `shuffled` a seeded random assignment."""


class Builder:
    def __init__(self, count: int, seed: int, invalid: int, probes: int, control_names: str = "memhtml") -> None:
        if control_names not in CONTROL_NAMES:
            raise ValueError(f"control_names must be one of {CONTROL_NAMES}, got {control_names!r}")
        self.count = count
        self.seed = seed
        self.control_names = control_names
        self.names_rng = Random(seed ^ 0x7A3E)
        self.rng = Random(seed)
        self.n_people = min(len(PEOPLE), max(2, count // 40))
        self.n_arcs = max(2, count // 100)
        self.n_tasks = max(6, count * 6 // 100)
        self.n_invalid = invalid
        self.n_losers = max(3, count // 50)
        self.n_probes = min(probes, count // 10)
        self.specs: list[Spec] = []
        self.probes: list[Probe] = []
        self.families: dict[str, str] = {}
        self.used: set[str] = set()
        self.suffix: dict[str, int] = {}
        self.serial = 0
        self.inbox = 0
        self.inbox_tasks = 0
        self.people = PEOPLE[: self.n_people]
        #: Claims of probe targets and their controls: no other memory may state one of them.
        self.reserved: set[str] = set()

    # -- small helpers ------------------------------------------------------------------------
    def iso(self, seconds: int) -> str:
        return (EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def date(self, seconds: int) -> str:
        return (EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%d")

    def place(self, directory: str, title: str, prefix: str = "") -> str:
        stem = slug(title)
        key = f"{directory}/{prefix}{stem}"
        path = key + ".html"
        if path in self.used:
            n = self.suffix.get(key, 1)
            while path in self.used:
                n += 1
                tail = f"-{n}"
                path = f"{directory}/{prefix}{stem[: 80 - len(tail)].rstrip('-')}{tail}.html"
            self.suffix[key] = n
        self.used.add(path)
        return path

    def slots(self, topic: Topic, rng: Random) -> dict[str, str]:
        nouns = topic.nouns
        i = rng.randrange(len(nouns))
        person = self.people[rng.randrange(len(self.people))]
        return {
            "svc": topic.service,
            "Svc": topic.service[0].upper() + topic.service[1:],
            "noun": nouns[i],
            "noun2": nouns[(i + 1 + rng.randrange(len(nouns) - 1)) % len(nouns)],
            "scope": SCOPES[rng.randrange(len(SCOPES))],
            "verb": topic.verbs[i % 3],
            "past": topic.past[i % 3],
            "anchor": topic.anchor,
            "team": topic.team,
            "area": topic.area,
            "person": person.name.split()[0],
            "person_slug": person.slug,
            "errcode": topic.errcode,
            "k": str(1 + rng.randrange(3)),
        }

    def next_code(self) -> str:
        self.serial += 1
        return letter_code(self.serial + 700)

    # -- element kits ---------------------------------------------------------------------------
    def facets(self, topic: Topic, mtype: str, s: dict[str, str], rng: Random) -> str:
        doc = DOC_TYPES[mtype][rng.randrange(len(DOC_TYPES[mtype]))]
        tier = 1 + rng.randrange(3)
        value = (1 + rng.randrange(24)) * 5
        name, unit = topic.metric
        return (
            "<dl>\n"
            f"<dt>doc-type</dt><dd>{doc}</dd>\n"
            f'<dt>tier</dt><dd><data value="{tier}">{tier}</data></dd>\n'
            f'<dt>{name}</dt><dd><data value="{value}">{value} {unit}</data></dd>\n'
            f"<dt>Owner</dt><dd>{s['team']}</dd>\n"
            "</dl>"
        )

    def kit(self, which: int, topic: Topic, s: dict[str, str], when: int, rng: Random) -> str:
        if which == 0:
            day = max(0, when - rng.randrange(4) * DAY)
            d = EPOCH + timedelta(seconds=day)
            return (
                f'<p>First noticed on <time datetime="{d:%Y-%m-%d}">{MONTHS[d.month - 1]} {d.day}'
                f"</time> during the {s['scope']} {s['area']} rotation.</p>"
            )
        if which == 1:
            return (
                f"<p>Recorded against <cite>{s['svc']} sev{s['k']} review</cite>, which noted "
                f'<q cite="https://wiki.example.com/{s["svc"]}/sev{s["k"]}">the {s["noun2"]} was '
                "the contributing factor</q>.</p>"
            )
        if which == 2:
            term, meaning = topic.concept
            return f"<p>A <dfn>{term}</dfn> is {meaning}.</p>"
        if which == 3:
            return (
                "<figure>\n"
                f'<pre><code data-lang="{topic.lang}">{escape(topic.code, quote=False)}</code></pre>\n'
                f"<figcaption>How the {s['svc']} {s['noun']} is checked from a shell.</figcaption>\n"
                "</figure>"
            )
        if which == 4:
            return (
                "<details>\n<summary>How this was learned</summary>\n"
                f"<p>Three consecutive {s['noun2']} incidents in {s['scope']} replayed the same "
                "shape before anyone wrote it down.</p>\n</details>"
            )
        if which == 5:
            return (
                "<aside>\n<p>Managed platforms handle this for you; the note is specific to the "
                f"self-hosted {s['svc']}.</p>\n</aside>"
            )
        if which == 6:
            short, expansion = topic.abbr
            return (
                "<table>\n"
                f"<caption>{s['svc']} thresholds</caption>\n"
                "<thead><tr><th>Signal</th><th>Threshold</th></tr></thead>\n"
                f'<tbody><tr><td><abbr title="{expansion}">{short}</abbr></td>'
                f"<td>{100 + rng.randrange(9) * 25} ms</td></tr></tbody>\n"
                "</table>"
            )
        return (
            "<section>\n"
            f"<p><strong>Order matters.</strong> The {s['noun']} is <em>always</em> settled first.</p>\n"
            f"<ul>\n<li>Confirm the {s['noun2']} is quiet.</li>\n"
            f'<li>Then tell <a href="/resources/people/{s["person_slug"]}.html">{s["person"]}</a> '
            "before going further.</li>\n</ul>\n</section>"
        )

    def common(self, spec: Spec, topic: Topic, s: dict[str, str], rng: Random) -> None:
        """The optional metas and head rows every generated memory may carry."""
        u = rng.random()
        spec.confidence = f"{0.55 + rng.randrange(45) / 100:.2f}"
        spec.importance = str(1 + rng.randrange(10))
        if u < 0.15:
            spec.author = f"human:{s['person_slug']}"
        else:
            spec.author = AGENTS[rng.randrange(len(AGENTS))]
        if u > 0.8:
            spec.session = "%08x-%04x-4%03x-8%03x-%012x" % (
                rng.getrandbits(32),
                rng.getrandbits(16),
                rng.getrandbits(12),
                rng.getrandbits(12),
                rng.getrandbits(48),
            )
        if 0.5 < u < 0.54:
            spec.valid_until = self.date(spec.when + 400 * DAY)
        if 0.6 < u < 0.62:
            spec.needs_revision = "true"
        if 0.7 < u < 0.72:
            spec.reprieves = str(1 + rng.randrange(3))
        spec.entities = [f"service:{topic.service}", f"team:{topic.team}"]
        if u > 0.75:
            spec.entities.append(f"person:{s['person_slug']}")
        spec.tags = list(topic.tags)

    # -- memories ---------------------------------------------------------------------------------
    def directory(self, mtype: str, topic: Topic, ordinal: int) -> str:
        ws, area = f"projects/{topic.service}", f"areas/{topic.area}"
        if mtype == "episodic":
            return f"{ws}/incidents"
        if mtype == "error_pattern":
            return ws
        if mtype in ("procedural", "verdict"):
            return f"{ws}/runbooks" if ordinal % 4 == 0 else area
        if mtype in ("semantic", "precedent"):
            return ws if ordinal % 5 == 0 else f"resources/{topic.resource}"
        if ordinal % 11 == 3 and self.inbox < INBOX_CAP:
            self.inbox += 1
            return "areas/inbox"
        return ws if ordinal % 2 == 0 else area

    def memory(self, ordinal: int, mtype: str | None = None, role: str = "base") -> Spec:
        rng = self.rng
        topic_index = ordinal % len(TOPICS)
        topic = TOPICS[topic_index]
        mtype = mtype or TYPE_CYCLE[ordinal % len(TYPE_CYCLE)]
        s = self.slots(topic, rng)
        template, numbers = CLAIMS[mtype][rng.randrange(len(CLAIMS[mtype]))]
        claim = template.format(n=numbers[rng.randrange(len(numbers))], **s)
        when = rng.randrange(YEAR - 20 * DAY)
        updated = when + (rng.randrange(1, 15) * DAY if rng.random() < 0.3 else rng.randrange(3600))
        title = claim.rstrip(".")
        prefix = ""
        if mtype == "episodic":
            prefix = self.date(when).replace("-", "") + "-"
        path = self.place(self.directory(mtype, topic, ordinal), title, prefix)
        lead = NEUTRAL_BODY[rng.randrange(len(NEUTRAL_BODY))].format(**s)
        body = []
        if mtype not in PROBE_TYPES and rng.random() < 0.5:
            body.append(CAVEAT_BODY[rng.randrange(len(CAVEAT_BODY))].format(**s))
        body.append(f"Filed under {topic.service} rotation note {self.next_code()}.")
        extras = []
        if rng.random() < 0.9:
            extras.append(self.facets(topic, mtype, s, rng))
        first = 0 if mtype == "episodic" else rng.randrange(8)
        second = (first + 1 + rng.randrange(7)) % 8
        extras.append(self.kit(first, topic, s, when, rng))
        extras.append(self.kit(second, topic, s, when, rng))
        spec = Spec(
            path=path,
            title=title,
            type=mtype,
            claim=claim,
            lead=lead,
            body=body,
            extras=extras,
            created=self.iso(when),
            updated=self.iso(updated),
            role=role,
            topic=topic_index,
            when=when,
        )
        self.common(spec, topic, s, rng)
        return spec

    def person(self, index: int) -> Spec:
        p = self.people[index]
        first = p.name.split()[0]
        when = self.rng.randrange(30 * DAY)
        spec = Spec(
            path=self.place("resources/people", p.slug),
            title=p.name,
            type="semantic",
            claim=f"{p.name} {p.role}.",
            lead=f"Reach {first} through the {p.team} rotation channel rather than by direct message.",
            body=[f"Filed under people note {self.next_code()}."],
            extras=[
                f"<dl>\n<dt>Team</dt><dd>{p.team}</dd>\n<dt>doc-type</dt><dd>person</dd>\n</dl>",
                f"<address>{p.name}, {p.team} team, {p.slug}@example.com</address>",
            ],
            created=self.iso(when),
            updated=self.iso(when + 3 * DAY),
            role="person",
            when=when,
            confidence="0.95",
            importance="6",
            author="human:wren",
            entities=[f"person:{p.slug}", f"team:{p.team}"],
            tags=["people"],
            aliases=[first],
        )
        return spec

    def arc(self, index: int) -> Spec:
        rng = self.rng
        topic = TOPICS[index % len(TOPICS)]
        s = self.slots(topic, rng)
        template, numbers = CLAIMS["arc"][rng.randrange(len(CLAIMS["arc"]))]
        claim = template.format(n=numbers[rng.randrange(len(numbers))], **s)
        when = YEAR - 60 * DAY + rng.randrange(50 * DAY)
        spec = Spec(
            path=self.place("areas/arcs", claim.rstrip(".")),
            title=claim.rstrip("."),
            type="arc",
            claim=claim,
            lead=f"The pattern links the {topic.service} memories that share the {topic.anchor}.",
            body=[f"Synthesized in sleep pass {self.next_code()}."],
            extras=[self.facets(topic, "arc", s, rng), self.kit(4, topic, s, when, rng)],
            created=self.iso(when),
            updated=self.iso(when),
            role="arc",
            topic=index % len(TOPICS),
            when=when,
        )
        self.common(spec, topic, s, rng)
        spec.author = "agent:memhtml-sleep"
        return spec

    def task(self, index: int) -> Spec:
        rng = self.rng
        topic_index = index % len(TOPICS)
        topic = TOPICS[topic_index]
        s = self.slots(topic, rng)
        title_t, claim_t, numbers = TASKS[rng.randrange(len(TASKS))]
        n = numbers[rng.randrange(len(numbers))]
        title, claim = title_t.format(n=n, **s), claim_t.format(n=n, **s)
        when = rng.randrange(YEAR - 30 * DAY)
        status = ("todo", "todo", "doing", "blocked", "done", "done")[rng.randrange(6)]
        inbox = index % 17 == 9 and self.inbox_tasks < INBOX_TASK_CAP
        self.inbox_tasks += inbox
        directory = "areas/inbox/tasks" if inbox else f"projects/{topic.service}/tasks"
        hours = 1 + rng.randrange(16)
        spec = Spec(
            path=self.place(directory, title),
            title=title,
            type="task",
            claim=claim,
            lead=f"Today the {s['noun']} still needs a manual step from the {topic.team} rotation.",
            body=[f"Tracked as {topic.service} ticket {self.next_code()}."],
            extras=[
                "<dl>\n<dt>doc-type</dt><dd>ticket</dd>\n"
                f'<dt>Estimate</dt><dd><data value="{hours}">about {hours} hours</data></dd>\n</dl>'
            ]
            + ([self.kit(4, topic, s, when, rng)] if rng.random() < 0.3 else []),
            created=self.iso(when),
            updated=self.iso(when + rng.randrange(1, 20) * DAY),
            role="task",
            topic=topic_index,
            when=when,
            task_status=status,
        )
        self.common(spec, topic, s, rng)
        due = when + (7 + rng.randrange(60)) * DAY
        spec.due = self.date(due) if rng.random() < 0.8 else self.iso(due - due % DAY + 17 * 3600)
        spec.valid_until = None
        if status == "done" and rng.random() < 0.5:
            archived = when + 25 * DAY
            spec.status, spec.archived_at = "archived", self.iso(archived)
            self.used.discard(spec.path)
            spec.path = archive_path_for(spec.path, (EPOCH + timedelta(seconds=archived)).year)
            self.used.add(spec.path)
        return spec

    # -- assembly ---------------------------------------------------------------------------------
    def build(self) -> None:
        specs = self.specs
        specs.extend(self.person(i) for i in range(self.n_people))
        arcs = [self.arc(i) for i in range(self.n_arcs)]
        specs.extend(arcs)
        tasks = [self.task(i) for i in range(self.n_tasks)]
        specs.extend(tasks)
        n_base = self.count - (
            self.n_people + self.n_arcs + self.n_tasks + self.n_invalid + self.n_losers + 3 * self.n_probes
        )
        base = [self.memory(i) for i in range(n_base)]
        controls = self.make_probes(base)
        ordinal = n_base
        while len(base) + len(controls) < n_base + 3 * self.n_probes:
            extra = self.memory(ordinal)
            ordinal += 1
            if extra.claim in self.reserved:  # a probe target's claim must stay unique in the store
                self.used.discard(extra.path)
                continue
            base.append(extra)
        specs.extend(base)
        specs.extend(controls)
        losers = self.make_losers(base)
        specs.extend(losers)
        for i in range(self.n_invalid):
            family, needs = INVALID_FAMILIES[i % len(INVALID_FAMILIES)]
            spec = self.task(1000 + i) if needs == "task" else self.memory(ordinal + i, needs or None)
            while needs != "task" and spec.claim in self.reserved:
                self.used.discard(spec.path)
                ordinal += 1
                spec = self.memory(ordinal + i, needs or None)
            if needs == "task" and spec.status != "active":
                self.used.discard(spec.path)
                spec.status, spec.archived_at, spec.task_status = "active", None, "todo"
                spec.path = self.place(f"projects/{TOPICS[spec.topic].service}/tasks", spec.title + " draft")
            spec.role = "invalid"
            self.families[spec.path] = family
            specs.append(spec)
        self.link(base, arcs, tasks)
        assert len(specs) == self.count, (len(specs), self.count)

    def make_probes(self, base: list[Spec]) -> list[Spec]:
        claims: dict[str, int] = {}
        for spec in base:
            claims[spec.claim] = claims.get(spec.claim, 0) + 1
        candidates = [
            s for s in base if s.type in PROBE_TYPES and claims[s.claim] == 1 and not s.path.startswith("areas/inbox/")
        ]
        if not candidates or self.n_probes == 0:
            return []
        stride = max(1, len(candidates) // self.n_probes)
        ordered = candidates[::stride] + [c for i, c in enumerate(candidates) if i % stride]
        controls: list[Spec] = []
        for target in ordered:
            if len(self.probes) >= self.n_probes:
                break
            whole = " ".join([target.claim, target.lead, *target.body, _TAGS.sub(" ", " ".join(target.extras))])
            qualifier = ctl.QUALIFIERS[self.rng.randrange(len(ctl.QUALIFIERS))]
            flipped = [ctl.derive(target.claim, whole, family, qualifier) for family in ctl.FAMILIES]
            if any(f is None or f in claims or f in self.reserved for f in flipped):
                continue
            if target.claim in self.reserved:
                continue
            self.reserved.update([target.claim, *flipped])
            directory = target.path.rpartition("/")[0]
            paths = []
            for family, claim in zip(ctl.FAMILIES, flipped):
                title = ctl.CONTROL_TITLE[family].format(target.title)
                when = max(0, target.when - (1 + self.rng.randrange(30)) * DAY)
                control = Spec(
                    path=self.place(directory, title),
                    title=title,
                    type=target.type,
                    claim=claim,
                    lead=target.lead,
                    body=list(target.body),
                    extras=list(target.extras),
                    created=self.iso(when),
                    updated=self.iso(when),
                    role="control",
                    topic=target.topic,
                    when=when,
                    confidence=target.confidence,
                    importance=target.importance,
                    author=target.author,
                    entities=list(target.entities),
                    tags=list(target.tags),
                )
                controls.append(control)
                paths.append(control.path)
            self.rename(target, controls[-len(paths) :])
            paths = [c.path for c in controls[-len(paths) :]]
            self.probes.append(Probe(ctl.query_for(target.claim), target.path, tuple(paths), ctl.FAMILIES))
            target.role = "target"
        return controls

    def rename(self, target: Spec, controls: list[Spec]) -> None:
        """Hand the probe's four file names out as `control_names` says (the set of names is kept)."""
        if self.control_names == "memhtml":
            return
        names = sorted([target.path, *(c.path for c in controls)])
        if self.control_names == "target_last":
            target_name, rest = names[-1], names[:-1]
        elif self.control_names == "target_first":
            target_name, rest = names[0], names[1:]
        else:
            self.names_rng.shuffle(names)
            target_name, rest = names[0], names[1:]
        target.path = target_name
        for control, name in zip(controls, rest):
            control.path = name

    def make_losers(self, base: list[Spec]) -> list[Spec]:
        pool = [
            s
            for s in base
            if s.role == "base" and s.type in ("procedural", "semantic", "verdict", "precedent", "user_preference")
        ]
        losers: list[Spec] = []
        if not pool:
            return losers
        stride = max(1, len(pool) // max(1, self.n_losers))
        chain = 0
        for winner in pool[::stride] + pool:
            if len(losers) >= self.n_losers or any(rel == "supersedes" for rel, _ in winner.links):
                if len(losers) >= self.n_losers:
                    break
                continue
            length = 2 if chain % 4 == 3 and self.n_losers - len(losers) >= 2 else 1
            newer = winner
            for step in range(length):
                loser = self.loser(newer, "first written down" if step == 0 else "first drafted")
                newer.links.append(("supersedes", "/" + loser.path))
                losers.append(loser)
                newer = loser
            chain += 1
        return losers

    def loser(self, newer: Spec, suffix: str) -> Spec:
        rng = self.rng
        original_dir = (newer.path.split("/", 2)[2] if newer.path.startswith("archive/") else newer.path).rpartition(
            "/"
        )[0]
        claim = ctl.numeric_flip(newer.claim)
        if claim is None or claim in self.reserved:
            claim = newer.claim.rstrip(".") + f", as {suffix}."
        title = claim.rstrip(".")
        archived = newer.when
        when = max(0, archived - (20 + rng.randrange(100)) * DAY) if archived > 0 else 0
        year = (EPOCH + timedelta(seconds=archived)).year
        original = self.place(original_dir, title)
        self.used.discard(original)
        path = archive_path_for(original, year)
        self.used.add(path)
        return Spec(
            path=path,
            title=title,
            type=newer.type,
            claim=claim,
            lead=newer.lead,
            body=[f"Filed under earlier rotation note {self.next_code()}."],
            extras=newer.extras[:1],
            created=self.iso(when),
            updated=self.iso(min(archived, when + 5 * DAY)),
            role="loser",
            topic=newer.topic,
            when=when,
            status="archived",
            archived_at=self.iso(archived),
            superseded_by="/" + newer.path,
            confidence="0.60",
            importance=newer.importance,
            author=newer.author,
            entities=list(newer.entities),
            tags=list(newer.tags),
        )

    def link(self, base: list[Spec], arcs: list[Spec], tasks: list[Spec]) -> None:
        rng = Random(self.seed ^ 0x1D6E5)
        person_path = {p.slug: f"resources/people/{p.slug}.html" for p in self.people}
        arc_by_topic: dict[int, Spec] = {}
        for arc in arcs:
            arc_by_topic.setdefault(arc.topic, arc)
        last_by_topic: dict[int, Spec] = {}
        for i, spec in enumerate(base):
            if spec.role not in ("base", "target"):
                continue
            arc = arc_by_topic.get(spec.topic)
            if arc is not None and rng.random() < 0.25:
                spec.links.append(("part_of", "/" + arc.path))
            partner = last_by_topic.get(spec.topic)
            if partner is not None and rng.random() < 0.45:
                spec.links.append((MEMORY_RELS[i % len(MEMORY_RELS)], "/" + partner.path))
            last_by_topic[spec.topic] = spec
            for entity in spec.entities:
                if entity.startswith("person:") and entity[7:] in person_path:
                    spec.links.append(("about_person", "/" + person_path[entity[7:]]))
            if spec.author and spec.author.startswith("human:") and spec.author[6:] in person_path:
                spec.links.append(("authored_by", "/" + person_path[spec.author[6:]]))
        by_ws: dict[str, list[Spec]] = {}
        for task in tasks:
            if task.status == "active":
                by_ws.setdefault(task.path.rpartition("/")[0], []).append(task)
        for group in by_ws.values():
            for i, task in enumerate(group[1:], start=1):
                previous = group[i - 1]
                if task.task_status == "blocked" or rng.random() < 0.2:
                    previous.links.append(("blocks", "/" + task.path))
                if i % 4 != 0 and rng.random() < 0.4:
                    parent = group[i - i % 4]
                    if parent is not task and not any(h == "/" + parent.path for _, h in task.links):
                        task.links.append(("subtask_of", "/" + parent.path))
