"""The one count-and-noun helper (issue 41: "1 memory in scope hold", "1 probes moved")."""

from hypothesis import given
from hypothesis import strategies as st

from memhtml_desktop.domain.plural import counted, noun_for, plural_of


def test_regular_and_given_plurals():
    assert [plural_of(w) for w in ("memory", "probe", "match", "box", "day", "entry", "index line", "pass")] == [
        "memories",
        "probes",
        "matches",
        "boxes",
        "days",
        "entries",
        "index lines",
        "passes",
    ]
    assert counted(1, "memory") == "1 memory" and counted(2, "memory") == "2 memories"
    assert counted(0, "hit") == "0 hits" and counted(1284, "probe") == "1,284 probes"
    assert counted(1, "memory", verb=("holds", "hold")) == "1 memory holds"
    assert counted(3, "memory", verb=("holds", "hold")) == "3 memories hold"
    assert counted(1, "child", "children") == "1 child" and counted(2, "child", "children") == "2 children"


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_only_one_is_singular(n):
    assert (noun_for(n, "probe") == "probe") == (abs(n) == 1)
    assert counted(n, "probe").endswith("probe" if abs(n) == 1 else "probes")
