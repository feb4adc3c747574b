"""A probe set from question→answer pairs (`probes import`): each question against the memory that answers it.

`domain/qa_pairs.py` reads the pairs and judges candidates; this resolves each answer in the store:
a store path the index holds is taken as is, any other answer is text, looked up through the
stemmed index (`index/answers.py`) and judged by `qa_pairs.choose`. An answer no memory holds, or
two hold almost equally, is reported by line and left out; the rest of the set is still made.
Nothing here writes: `WorkbenchFiles` commits the probes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from memhtml_desktop.domain.probes import EvalProbe, ProbeProblem
from memhtml_desktop.domain.qa_pairs import Pair, choose, content_words
from memhtml_desktop.index.arm_lists import answer_candidates, existing

if TYPE_CHECKING:
    from memhtml_desktop.index.doors import WorkbenchStore


@dataclass(frozen=True)
class Resolved:
    """The probes made, the lines left out and why, and how the targets were found."""

    probes: tuple[EvalProbe, ...]
    problems: tuple[ProbeProblem, ...]
    by_path: int = 0  # answers that were store paths
    by_text: int = 0  # answers found by their words


def resolve_pairs(store: WorkbenchStore, pairs: Sequence[Pair], *, source: str = "", note: str = "") -> Resolved:
    """Probes for `pairs` over `store`'s index (see the module docstring); one read transaction."""
    probes: list[EvalProbe] = []
    problems: list[ProbeProblem] = []
    by_path = by_text = 0
    conn = store.reader()
    with conn:
        paths = existing(conn, [p.answer.lstrip("/") for p in pairs if p.answer.endswith(".html")])
        for pair in pairs:
            path = pair.answer.lstrip("/")
            if path in paths:
                probes.append(EvalProbe(query=pair.question, target=path, note=note))
                by_path += 1
                continue
            words = content_words(pair.answer)
            if not words:
                problems.append(ProbeProblem(pair.line, "the answer has no content word to find it by", source))
                continue
            targets, why = choose(words, answer_candidates(conn, words))
            if not targets:
                problems.append(ProbeProblem(pair.line, why, source))
                continue
            probes.append(EvalProbe(query=pair.question, target=targets[0], targets=tuple(targets[1:]), note=note))
            by_text += 1
    seen: dict[str, EvalProbe] = {}
    for probe in probes:  # the same question and target twice is one probe
        seen.setdefault(probe.key, probe)
    return Resolved(tuple(seen.values()), tuple(problems), by_path, by_text)
