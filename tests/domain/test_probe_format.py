"""The probe-set format: what a line may say, how a bad one is named, what a rewrite keeps."""

from __future__ import annotations

import json

import pytest

from memhtml_desktop.domain.probes import (
    EvalProbe,
    ProbeFileError,
    format_probe_set,
    parse_probe,
    parse_probes,
    read_probe_set,
)
from memhtml_desktop.domain.types import Scope


def test_a_full_line_reads_and_writes_back():
    line = json.dumps(
        {
            "query": "drain the vip",
            "targets": ["a/x.html", "a/y.html"],
            "controls": ["/a/z.html"],
            "scope": {"workspace": "oncall", "tags": ["pager"]},
            "note": "runbook first",
            "within": 3,
            "owner": "kim",
        }
    )
    p = parse_probe(line, 7)
    assert p.target == "a/x.html" and p.targets == ("a/x.html", "a/y.html") and p.controls == ("a/z.html",)
    assert p.scope == Scope.build(workspace="oncall", tags=["pager"]) and p.note == "runbook first"
    assert p.within == 3 and p.line == 7 and dict(p.extra) == {"owner": "kim"}
    again = parse_probe(p.to_line())
    assert again == parse_probe(line, 1) and dict(again.extra) == {"owner": "kim"}
    assert p.key == again.key and len(p.key) == 12


def test_the_key_is_what_the_probe_asks_not_where_it_sits():
    a = EvalProbe("q", "t.html", ("c.html",), note="x", line=3)
    b = EvalProbe("q", "t.html", (), note="y", line=9)
    assert a.key == b.key
    assert a.key != EvalProbe("q", "u.html").key != EvalProbe("q ", "t.html").key
    assert a.key != EvalProbe("q", "t.html", scope=Scope.build(workspace="w")).key


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "a probe is a JSON object"),
        ('{"target": "a.html"}', "'query' must be a non-empty string"),
        ('{"query": "  ", "target": "a.html"}', "'query' must be a non-empty string"),
        ('{"query": "q"}', "needs a 'target'"),
        ('{"query": "q", "target": ""}', "'target' must be a store path"),
        ('{"query": "q", "target": "a.html", "controls": "b.html"}', "'controls' must be a list"),
        ('{"query": "q", "target": "a.html", "controls": ["a.html"]}', "both a target and a control"),
        ('{"query": "q", "target": "a.html", "scope": {"planet": "mars"}}', "'scope' takes only"),
        ('{"query": "q", "target": "a.html", "within": 0}', "'within' must be a whole number from 1 to 100"),
        ('{"query": "q", "target": "a.html", "note": 5}', "'note' must be a string"),
    ],
)
def test_a_bad_line_is_named_and_the_rest_of_the_set_loads(line, message):
    good = json.dumps({"query": "fine", "target": "ok.html"})
    text = "# header\n" + good + "\n\n" + line + "\n" + good.replace("fine", "also fine") + "\n"
    read = read_probe_set(text, "p.jsonl")
    assert [p.query for p in read.probes] == ["fine", "also fine"]
    assert len(read.problems) == 1 and read.problems[0].line == 4 and message in read.problems[0].message
    assert str(read.problems[0]).startswith("p.jsonl:4: ")
    with pytest.raises(ProbeFileError, match="line 4: "):
        parse_probes(text)


def test_a_repeated_probe_is_named_not_run_twice():
    line = json.dumps({"query": "q", "target": "t.html"})
    read = read_probe_set(line + "\n" + line.replace("}", ', "note": "again"}') + "\n", "s")
    assert (
        len(read.probes) == 1 and read.problems[0].line == 2 and "the same probe as line 1" in read.problems[0].message
    )


def test_gen_stores_array_format_and_a_bom_are_read():
    text = "\ufeff" + json.dumps([{"query": "q", "target": "t.html"}, {"query": "r", "target": "u.html"}])
    assert [p.query for p in read_probe_set(text).probes] == ["q", "r"]


def test_format_writes_one_line_a_probe_with_a_header():
    probes = [EvalProbe("q", "t.html", ("c.html",)), EvalProbe("r", "u.html", note="n")]
    text = format_probe_set(probes, header="pinned from the window\nsecond line")
    assert text.splitlines()[:2] == ["# pinned from the window", "# second line"]
    assert [p.query for p in read_probe_set(text).probes] == ["q", "r"]
    assert json.loads(text.splitlines()[2]) == {"query": "q", "target": "t.html", "controls": ["c.html"]}
