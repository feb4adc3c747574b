"""A `StoreChange` says which paths it concerns, or that any may have changed (`paths` None):
never an empty set for "any" (domain/changes.py)."""

from __future__ import annotations

from memhtml_desktop.domain.changes import StoreChange
from memhtml_desktop.index.indexer import IndexReport
from memhtml_desktop.watch.status import BatchSummary


def test_a_commit_names_its_paths_and_both_ends_of_its_moves():
    change = StoreChange.of_commit(["areas/a.html"], [("areas/b.html", "archive/2026/areas/b.html")])
    assert change.paths == {"areas/a.html", "areas/b.html", "archive/2026/areas/b.html"}
    assert not change.any_path and change.concerns("areas/b.html") and not change.concerns("areas/c.html")


def test_a_pass_that_edited_anything_may_concern_any_path():
    for counts in ({"changed": 1}, {"added": 2}, {"removed": 1}, {"embedded": 3}):
        report = IndexReport(moved=1, moves=[("areas/b.html", "areas/c.html")], **counts)
        change = StoreChange.of_report(report)
        assert change.paths is None and change.any_path and change.concerns("areas/anything.html"), counts
        assert change.moves == (("areas/b.html", "areas/c.html"),) and change.index and change.problems


def test_a_pass_that_only_moved_and_failed_names_them():
    report = IndexReport(
        moved=1, failed=1, moves=[("areas/b.html", "areas/c.html")], failures=[("areas/bad.html", "not HTML")]
    )
    change = StoreChange.of_report(report)
    assert change.paths == {"areas/b.html", "areas/c.html", "areas/bad.html"} and not change.any_path


def test_a_batch_without_its_report_may_concern_any_path():
    summary = BatchSummary(0, 1, 0, 0, 0, 3.0, "2026-12-06T00:00:00Z", 1, "batch")
    change = StoreChange.of_batch(summary)
    assert change is not None and change.any_path
    assert StoreChange.of_report(IndexReport(unchanged=4)) is None  # touched nothing: no change


def test_a_change_made_without_paths_means_any_and_an_empty_set_means_none():
    assert StoreChange(index=True).any_path
    assert not StoreChange(index=True, paths=frozenset()).concerns("areas/a.html")
