"""Question→answer pairs (`domain/qa_pairs.py`): the formats read, the lines refused, the target chosen."""

from __future__ import annotations

import json

import pytest

from memhtml_desktop.domain.qa_pairs import MIN_CONTAINMENT, choose, containment, content_words, parse_pairs


def test_both_formats_and_every_refusal_named_by_line():
    text = "\n".join(
        [
            "# a comment",
            json.dumps({"question": "How do I sort a hash?", "answer": "Use sort over the keys."}),
            "How do I read a file?\tOpen it and read each line.",
            json.dumps({"q": "short keys", "a": "areas/x.html"}),
            json.dumps({"query": "", "answer": "x"}),
            json.dumps({"question": "no answer"}),
            json.dumps(["a", "list"]),
            "{not json",
            "just a line",
            "",
            json.dumps({"question": "q" * 2001, "answer": "x"}),
        ]
    )
    pairs, problems = parse_pairs(text, "pairs.jsonl")
    assert [(p.line, p.question, p.answer) for p in pairs] == [
        (2, "How do I sort a hash?", "Use sort over the keys."),
        (3, "How do I read a file?", "Open it and read each line."),
        (4, "short keys", "areas/x.html"),
    ]
    assert [p.line for p in problems] == [5, 6, 7, 8, 9, 11]
    assert all(p.source == "pairs.jsonl" for p in problems)
    assert "question" in problems[0].message and "answer" in problems[1].message
    assert "2000" in problems[-1].message


def test_content_words_leave_function_and_question_words_out():
    assert content_words("Is there a way to get the hash sorted? Sorted, by value.") == ["hash", "sorted", "value"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_memory_holding_most_of_the_answer_wins_and_ties_are_all_targets(seed):
    import random

    rng = random.Random(seed)
    words = [f"w{rng.randrange(10**6)}" for _ in range(20)]
    full = " ".join(words)
    most = " ".join(words[:16])
    few = " ".join(words[:6])
    order = [("b.html", most), ("a.html", full), ("c.html", few)]
    rng.shuffle(order)
    assert choose(words, order) == (["a.html"], "")
    assert containment(words, most) == pytest.approx(0.8)
    tie = [("z.html", full), ("y.html", full)]
    assert choose(words, tie) == (["y.html", "z.html"], "")
    targets, why = choose(words, [("c.html", few)])
    assert targets == [] and "no memory holds this answer" in why and "c.html" in why
    close = [("a.html", full), ("b.html", " ".join(words[:19]) + " other")]
    assert containment(words, close[1][1]) >= MIN_CONTAINMENT
    targets, why = choose(words, close)
    assert targets == [] and "almost equally" in why
