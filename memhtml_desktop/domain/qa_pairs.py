"""Question→answer pairs: the text a probe set is imported from, and how an answer is judged to be a memory.

A curator often has real questions with their answers before having store paths: an FAQ, a support
log, the questions an agent was asked and what it should have recalled. `parse_pairs` reads them,
one pair a line:

- JSON lines: `{"question": "...", "answer": "..."}` (also `q`/`a`, `query`/`target`), where the
  answer is the answering text or a store path;
- or tab-separated: `question<TAB>answer`.

Blank lines and `#` lines are skipped; a line that is not a pair is a `ProbeProblem` naming it, and
the rest still load. `choose` decides which of an answer's candidate memories holds it: the share
of the answer's content words each holds (`containment`), the best at or above `MIN_CONTAINMENT`
and clearly ahead of the next (`MARGIN`); equal bests are all targets. Pure: the candidates come
from `index/answers.py`, the probes are made in `workbench/qa_import.py`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from memhtml_desktop.domain.probes import MAX_QUERY_CHARS, ProbeProblem
from memhtml_desktop.domain.stopwords import QUESTION_WORDS, STOPWORD_SET

MIN_CONTAINMENT = 0.6
MARGIN = 0.1

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Pair:
    line: int
    question: str
    answer: str


def parse_pairs(text: str, source: str = "") -> tuple[list[Pair], list[ProbeProblem]]:
    """Every pair of a JSON-lines or tab-separated text, and a problem for each line that is not one."""
    pairs: list[Pair] = []
    problems: list[ProbeProblem] = []
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        question, answer, why = _pair_of(line)
        if why:
            problems.append(ProbeProblem(number, why, source))
            continue
        if len(question) > MAX_QUERY_CHARS:
            problems.append(ProbeProblem(number, f"the question is longer than {MAX_QUERY_CHARS} characters", source))
            continue
        pairs.append(Pair(number, question, answer))
    return pairs, problems


def _pair_of(line: str) -> tuple[str, str, str]:
    if line.lstrip().startswith("{"):
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            return "", "", f'not JSON ({exc.msg}); a pair is {{"question": ..., "answer": ...}} or question<TAB>answer'
        if not isinstance(data, dict):
            return "", "", "a pair is a JSON object"
        question = next((data[k] for k in ("question", "q", "query") if k in data), None)
        answer = next((data[k] for k in ("answer", "a", "target") if k in data), None)
    else:
        if "\t" not in line:
            return "", "", "expected question<TAB>answer or a JSON object"
        question, answer = line.split("\t", 1)
    if not isinstance(question, str) or not question.strip():
        return "", "", "the question is missing or empty"
    if not isinstance(answer, str) or not answer.strip():
        return "", "", "the answer is missing or empty"
    return question.strip(), answer.strip(), ""


def content_words(text: str) -> list[str]:
    """The words that say something: no function or question words, first occurrence order."""
    return list(
        dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in STOPWORD_SET and w not in QUESTION_WORDS)
    )


def containment(answer_words: Sequence[str], memory_text: str) -> float:
    """The share of the answer's content words the memory holds."""
    if not answer_words:
        return 0.0
    held = set(_WORD.findall(memory_text.lower()))
    return sum(1 for w in answer_words if w in held) / len(answer_words)


def choose(words: Sequence[str], candidates: Sequence[tuple[str, str]]) -> tuple[list[str], str]:
    """The target paths among `(path, text)` candidates for an answer of content `words`, or ([], why)."""
    scored = sorted(
        ((containment(words, text or ""), path) for path, text in candidates), key=lambda sp: (-sp[0], sp[1])
    )
    if not scored or scored[0][0] < MIN_CONTAINMENT:
        best = f" (the closest holds {scored[0][0]:.0%} of its words: {scored[0][1]})" if scored else ""
        return [], "no memory holds this answer" + best
    top = scored[0][0]
    tied = [path for score, path in scored if score >= top - 1e-9]
    runner = next((score for score, _ in scored if score < top - 1e-9), 0.0)
    if len(tied) == 1 and top - runner < MARGIN and runner >= MIN_CONTAINMENT:
        return [], (
            f"two memories hold this answer almost equally ({tied[0]} {top:.0%}, the next {runner:.0%}); "
            "name the one you mean by its path"
        )
    return tied, ""
