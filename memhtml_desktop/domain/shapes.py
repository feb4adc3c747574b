"""The three pack shapes side by side, for one query and one budget, with what each costs.

- `memhtml`: memhtml's pack (memories and arcs, three tiers, one ledger);
- `quotas`: the same candidates in four quota ledgers (domain/quotas.py);
- `catalog`: a catalogue of the top k, then expanding the first one or two (domain/catalogue.py).

A cost here is what the agent receives, in UTF-16 units: charged text plus the index lines a pack
hands over uncharged (a pointer is read too), the catalogue's lines, and each expansion in full.
The seed's rule for choosing: specific questions favour direct recall, vague ones the catalogue;
`cheapest` says which it is for this question on this store, and the catalogue's `indistinct`
groups say when its saving is an illusion (candidates it cannot tell apart must all be expanded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memhtml_desktop.domain.catalogue import Catalogue
from memhtml_desktop.domain.plural import counted
from memhtml_desktop.domain.quotas import QuotaPack, delivered
from memhtml_desktop.domain.types import RecallPack

SHAPES = ("memhtml", "quotas", "catalog")
SHAPE_LABELS = {"memhtml": "memhtml's pack", "quotas": "Quota ledgers", "catalog": "Catalogue + expand"}


@dataclass(frozen=True)
class ShapeCost:
    """One way of feeding this query. `charged`: what counts against the budget; `delivered`: every
    character handed over; `within`: `charged` <= the budget it was given."""

    key: str
    label: str
    charged: int
    delivered: int
    within: bool
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "charged": self.charged,
            "delivered": self.delivered,
            "within": self.within,
            "note": self.note,
        }


def pack_delivered(pack: RecallPack) -> int:
    return delivered(pack.memories) + delivered(pack.arcs)


def pack_fit_note(pack: RecallPack, smallest: int | None) -> str:
    """memhtml's pack says nothing when the budget is below every capsule; this does."""
    if smallest is not None and pack.memories.budget < smallest and pack.memories.items:
        return (
            f"does not fit: the budget ({pack.memories.budget:,}) is smaller than the smallest capsule "
            f"({smallest:,} chars); only the index is returned"
        )
    return ""


def costs(
    pack: RecallPack, quotas: QuotaPack, catalogue: Catalogue, *, smallest: int | None = None
) -> tuple[ShapeCost, ...]:
    """The costs side by side: the pack, the quota pack, the catalogue, and the catalogue with its
    first one and first two entries expanded."""
    budget = catalogue.budget
    listed = catalogue.listed
    first = catalogue.with_expansions(1)
    two = catalogue.with_expansions(2)
    pack_budget = pack.memories.budget + pack.arcs.budget
    out = [
        ShapeCost(
            "memhtml",
            SHAPE_LABELS["memhtml"],
            pack.spent,
            pack_delivered(pack),
            pack.spent <= pack_budget,
            pack_fit_note(pack, smallest) or f"arcs have their own {pack.arcs.budget:,}",
        ),
        ShapeCost(
            "quotas",
            SHAPE_LABELS["quotas"],
            quotas.used,
            sum(delivered(ledger.section) for ledger in quotas.ledgers),
            quotas.used <= quotas.budget,
            quotas.fit_note() or f"{quotas.unspent:,} unspent, never moved",
        ),
        ShapeCost(
            "catalog",
            "Catalogue",
            catalogue.cost,
            catalogue.cost,
            catalogue.cost <= budget,
            f"{len(listed)} of {len(catalogue.entries)} listed",
        ),
    ]
    if listed:
        out.append(
            ShapeCost("catalog+1", "Catalogue + expand #1", first, first, first <= budget, f"expands {listed[0].path}")
        )
    if len(listed) > 1:
        out.append(
            ShapeCost(
                "catalog+2",
                "Catalogue + expand #1–2",
                two,
                two,
                two <= budget,
                f"expands {listed[0].path} and {listed[1].path}",
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class ShapeComparison:
    """Every shape for one query and budget, and the verdict on which feeds it more cheaply."""

    query: str
    budget: int
    pack: RecallPack
    quotas: QuotaPack
    catalogue: Catalogue
    costs: tuple[ShapeCost, ...]

    def cost(self, key: str) -> ShapeCost | None:
        return next((c for c in self.costs if c.key == key), None)

    @property
    def cheaper(self) -> str:
        """ "direct" when the pack costs less than the catalogue plus one expansion, "catalog" when
        it costs more, "" when there is nothing to compare."""
        pack, first = self.cost("memhtml"), self.cost("catalog+1")
        if pack is None or first is None:
            return ""
        return "direct" if pack.delivered <= first.delivered else "catalog"

    def verdict(self) -> str:
        """One sentence: which shape is cheaper here, the seed's rule, and the catalogue's finding."""
        pack, first = self.cost("memhtml"), self.cost("catalog+1")
        if pack is None or first is None:
            return self.nothing_listed()
        kind = self.catalogue.question
        if self.cheaper == "direct":
            text = f"Direct recall is cheaper here ({pack.delivered:,} against {first.delivered:,} chars)"
        else:
            text = f"Catalogue + one expansion is cheaper here ({first.delivered:,} against {pack.delivered:,} chars)"
        if kind:
            expected = "direct" if kind == "specific" else "catalog"
            agrees = "as the seed's rule expects" if expected == self.cheaper else "against the seed's rule"
            text += f"; the question reads {kind} ({self.catalogue.question_why}), {agrees}"
        charged_direct = pack.charged <= first.delivered
        if charged_direct != (self.cheaper == "direct"):
            text += (
                f". Counted as the seed counts, index lines free, the other way round ({pack.charged:,} charged "
                f"against {first.delivered:,})"
            )
        groups = self.catalogue.indistinct
        if groups:
            n = sum(len(g) for g in groups)
            text += f". The catalogue cannot tell {n} of its entries apart (same title and summary)"
        return text + "."

    def nothing_listed(self) -> str:
        """Why there is nothing to compare: no memory found, or (issue 41) a budget under the
        catalogue's shortest line, where the query found memories all the same and memhtml's pack
        still hands over its index lines (free) and its arcs (their own envelope)."""
        cat, pack = self.catalogue, self.pack
        if not cat.entries:
            return "Nothing to compare: the query found no memory."
        text = (
            f"Nothing to compare at a budget of {self.budget:,}: the catalogue lists no line "
            f"(its shortest costs {cat.smallest_line:,} chars)"
        )
        index = sum(s.counts["index"] for s in (pack.memories, pack.arcs))
        if pack.memories.spent == 0 and index:
            arcs = f" and its arcs (their own {pack.arcs.budget:,}-char envelope)" if pack.arcs.spent else ""
            text += (
                f". memhtml's pack quotes no memory but still hands over {counted(index, 'index line')} "
                f"(free){arcs}: {pack_delivered(pack):,} chars, {pack.spent:,} charged"
            )
        return text + "."

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "budget": self.budget,
            "cheaper": self.cheaper,
            "verdict": self.verdict(),
            "costs": [c.to_json() for c in self.costs],
            "memhtml": self.pack.to_json() | {"elapsed_ms": 0},
            "quotas": self.quotas.to_json(),
            "catalog": self.catalogue.to_json(),
        }


# -- where a probe's target lands, shape by shape (the workbench's comparison over a probe set) ----

PROBE_SHAPES = ("memhtml", "quotas", "catalog+1", "catalog+2", "catalog+pick")
"""`catalog+pick`: the catalogue, then expanding the target itself, as an agent that chooses right
would; when the catalogue cannot tell the target from others, every one of them is expanded."""


@dataclass(frozen=True)
class Landing:
    """Where a target landed in one shape: `content` (quoted, its claim, or expanded), `pointer`
    (only an index line or a catalogue line), or `missing`; and what that shape cost."""

    shape: str
    outcome: str
    cost: int
    where: str = ""
    charged: int | None = None  # what counted against the budget (None: all of `cost`)

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "outcome": self.outcome,
            "cost": self.cost,
            "charged": self.cost if self.charged is None else self.charged,
            "where": self.where,
        }


def _in_sections(sections, targets: tuple[str, ...]) -> tuple[str, str]:
    best = ("missing", "")
    for name, section in sections:
        for item in section.items:
            if item.path in targets:
                if item.tier != "index":
                    return "content", f"{name} #{item.rank} {item.tier}"
                best = ("pointer", f"{name} #{item.rank} index")
    return best


def landings(comparison: ShapeComparison, targets: tuple[str, ...]) -> tuple[Landing, ...]:
    """Each shape's landing for a probe whose accepted targets are `targets`."""
    pack, quotas, cat = comparison.pack, comparison.quotas, comparison.catalogue
    out = []
    outcome, where = _in_sections((("memories", pack.memories), ("arcs", pack.arcs)), targets)
    out.append(Landing("memhtml", outcome, pack_delivered(pack), where, pack.spent))
    outcome, where = _in_sections(((ledger.name, ledger.section) for ledger in quotas.ledgers), targets)
    out.append(
        Landing("quotas", outcome, sum(delivered(ledger.section) for ledger in quotas.ledgers), where, quotas.used)
    )
    listed = cat.listed
    position = next((n for n, e in enumerate(listed) if e.path in targets), None)
    for n, shape in ((1, "catalog+1"), (2, "catalog+2")):
        if position is not None and position < n:
            outcome, where = "content", f"expanded #{listed[position].rank}"
        elif position is not None:
            outcome, where = "pointer", f"listed #{listed[position].rank}"
        else:
            outcome, where = "missing", ""
        out.append(Landing(shape, outcome, cat.with_expansions(n), where))
    if position is None:
        out.append(Landing("catalog+pick", "missing", cat.cost))
    else:
        target = listed[position]
        group = next((g for g in cat.indistinct if target.path in g), (target.path,))
        cost = cat.cost + sum(e.expand_cost for e in listed if e.path in group)
        note = f"expanded #{target.rank}" + (f" and {len(group) - 1} it cannot be told from" if len(group) > 1 else "")
        out.append(Landing("catalog+pick", "content", cost, note))
    return tuple(out)
