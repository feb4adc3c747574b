"""Pinning a probe from a search: "expect this memory for this query", with its near-twins offered
as controls.

A control is what the probe guards against: a memory so like the target that the ranking could
put it first instead (a negation flip, a changed number, an added qualifier). So the suggestions
are the candidates of this very query (every arm's list, as a run reads them) whose vectors are at
or above the configuration's twin threshold with the target's, nearest first, and, without
vectors, those whose headline shares at least the twin overlap of its words. The curator ticks the
ones that apply; nothing is chosen for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memhtml_desktop.domain.configs import Configuration
from memhtml_desktop.domain.probes import EvalProbe, ProbeSet
from memhtml_desktop.domain.twins import deciding_words
from memhtml_desktop.domain.types import Scope
from memhtml_desktop.workbench.runs import prepare_set

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore


@dataclass(frozen=True)
class ControlSuggestion:
    path: str
    title: str
    claim: str
    similarity: float  # cosine to the target (or word overlap without vectors)


def suggest_controls(
    store: WorkbenchStore, query: str, target: str, config: Configuration, *, scope: Scope | None = None, limit: int = 5
) -> list[ControlSuggestion]:
    """The target's near-twins among `query`'s candidates under `config`, nearest first."""
    probe = EvalProbe(query=query, target=target, scope=scope)
    prepared = prepare_set(
        store, ProbeSet("pin", (probe,), ()), config.profile, window=max(config.profile.arm_window, 40)
    )
    if not prepared.queries:
        return []
    pq = prepared.queries[0]
    if target not in pq.candidates:
        from memhtml_desktop.index.arm_lists import candidates_of

        pq.candidates.update(candidates_of(store, [target]))
    if target not in pq.candidates:
        return []
    threshold = config.profile.twin_cosine.get(prepared.model_id)
    mine = pq.candidates[target]
    out: list[ControlSuggestion] = []
    table, index = pq.table()
    for path, other in pq.candidates.items():
        if path == target:
            continue
        if mine.vector is not None and other.vector is not None and path in index and target in index:
            similarity = table(index[path], index[target])
            if similarity < threshold:
                continue
        else:
            a, b = (
                set(deciding_words(f"{mine.title} {mine.claim}")),
                set(deciding_words(f"{other.title} {other.claim}")),
            )
            similarity = len(a & b) / max(1, len(a | b))
            if similarity < config.profile.twin_overlap:
                continue
        out.append(ControlSuggestion(path, other.title, other.claim, float(similarity)))
    out.sort(key=lambda s: (-s.similarity, s.path))
    return out[:limit]
