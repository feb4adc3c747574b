"""The watcher's pass over a file past the parse budget (issue 40, item 3): the file is listed with
the limit it broke and the files written with it are indexed."""

from __future__ import annotations

from .conftest import Fresh, found, memory, wait_until, write

PER_ELEMENT = "unreadable: more than 1000 attributes on one <p> (an element of a memory file may have 1000)"


def test_a_crowded_file_is_listed_and_its_neighbours_indexed(store_root, make_store, start_watcher):
    write(store_root, "areas/first.html", "First", "The heron waits at the weir.")
    store = make_store(store_root)
    start_watcher(store)
    fresh = Fresh(store)
    crowded = memory("Crowded", "An agent wrote every key it saw.").replace(
        "<p><mark>", "<p " + " ".join(f"k{i}" for i in range(20_000)) + "><mark>"
    )
    (store_root / "areas/agent").mkdir()
    (store_root / "areas/agent/crowded.html").write_text(crowded, encoding="utf-8")
    write(store_root, "areas/agent/neighbour.html", "Neighbour", "The otter fishes below the weir.")
    wait_until(lambda: found(store, "otter", "areas/agent/neighbour.html"), 20, what="the neighbour indexed")
    wait_until(lambda: "areas/agent/crowded.html" in fresh.problems(), 20, what="the crowded file listed")
    problem = {p.path: p for p in store.problems()}["areas/agent/crowded.html"]
    assert list(problem.violations) == [PER_ELEMENT]
    assert "areas/agent/crowded.html" not in fresh.paths()
