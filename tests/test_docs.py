"""The docs describe the code that exists: every layer, every element, meta and rel, every named
step of the file-change flow; and the README's screenshots are real PNGs made by the app.

Every setting being documented is checked in tests/test_readme.py.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from memhtml_desktop.html.vocabulary import (
    ARTICLE_ELEMENTS,
    DOCUMENT_ELEMENTS,
    FIGURE_SCOPED,
    FORBIDDEN_ELEMENTS,
    KNOWN_ELEMENTS,
    META_ORDER,
    REL_CLASS,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "memhtml_desktop"
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
FORMAT = (ROOT / "docs" / "format-support.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")

LAYERS = ("domain/", "html/", "index/", "write/", "workbench/", "history/", "watch/", "ops/", "engine/", "ui/", "cli/")

#: Each step of "how a file change reaches the screen": the name the doc uses, and where it lives.
FLOW = {
    "inotify": None,
    "events.ChangeCollector": ("watch/events.py", "class ChangeCollector"),
    "Watcher._enqueue": ("watch/watcher.py", "def _enqueue"),
    "Watcher._take": ("watch/watcher.py", "def _take"),
    "quiet_s": ("watch/watcher.py", "quiet_s: float = 0.2"),
    "max_delay_s": ("watch/watcher.py", "max_delay_s: float = 1.0"),
    "changes.ChangeSet": ("watch/changes.py", "class ChangeSet"),
    "Store.update_paths": ("index/store.py", "def update_paths"),
    "IndexReport": ("index/indexer.py", "class IndexReport"),
    "on_batch": ("watch/watcher.py", "on_batch"),
    "WatchBridge": ("ui/session/watch_bridge.py", "class WatchBridge"),
    "WatchBridge._on_batch": ("ui/session/watch_bridge.py", "def _on_batch"),
    "StoreChange.of_batch": ("domain/changes.py", "def of_batch"),
    "StoreEvents.changed": ("ui/session/runner.py", "changed = Signal(object)"),
    "SessionDriver._store_changed": ("ui/session/driver.py", "def _store_changed"),
    "FiltersController": ("ui/filters/controller.py", "class FiltersController"),
    "ReaderController": ("ui/reader/controller.py", "class ReaderController"),
    "ProblemsController": ("ui/problems/controller.py", "class ProblemsController"),
    "StatusController": ("ui/shell/status_bar.py", "class StatusController"),
    "Runner.run(SearchJob)": ("ui/session/runner.py", "def run(self, job: Job"),
    "EngineClient.call": ("engine/client.py", "def call"),
    "Engine.run_call": ("engine/core.py", "def run_call"),
    "SearchJob.run": ("ops/jobs.py", "class SearchJob"),
    "Runner._answered": ("ui/session/runner.py", "def _answered"),
    "SessionDriver.answered": ("ui/session/driver.py", "answered = Signal(object)"),
    "ResultsView.set_answer": ("ui/results/results_view.py", "def set_answer"),
    "Store.answer": ("index/store.py", "def answer"),
    "ResultsModel": ("ui/results/results_model.py", "class ResultsModel"),
    "Watcher.request_reconcile": ("watch/watcher.py", "def request_reconcile"),
    "ReconcileJob": ("ops/jobs.py", "class ReconcileJob"),
}


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("layer", LAYERS)
def test_architecture_names_every_layer(layer):
    assert f"`{layer}`" in ARCHITECTURE or f"  {layer}" in ARCHITECTURE
    assert (PACKAGE / layer.rstrip("/")).exists()


def test_architecture_points_at_layering_tests_that_exist():
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", ARCHITECTURE))
    assert {"tests/domain/test_layering.py", "tests/watch/test_layering.py", "tests/test_import_contracts.py"} <= named
    for path in named:
        assert (ROOT / path).is_file(), path


def test_architecture_describes_the_threads():
    threads = _section(ARCHITECTURE, "## Threads and processes")
    for needle in (
        "GUI thread",
        "read lane",
        "writer lane",
        "engine",
        "memhtml-watch",
        "observer thread",
        "One writer",
        "never crosses threads",
        "never waits",
        "generation",
        "spawn",
    ):
        assert needle in threads, needle


def test_architecture_names_every_ui_package_and_they_exist():
    window = _section(ARCHITECTURE, "## The window")
    packages = {p.name for p in (PACKAGE / "ui").iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(re.findall(r"`ui/(\w+)/`", window))


@pytest.mark.parametrize("step", FLOW)
def test_every_step_of_the_change_flow_is_described_and_exists(step):
    flow = _section(ARCHITECTURE, "## How a file change reaches the screen")
    assert step in flow
    where = FLOW[step]
    if where is not None:
        module, needle = where
        assert needle in (PACKAGE / module).read_text(encoding="utf-8"), f"{step}: {needle} not in {module}"


def _element_rows() -> set[str]:
    table = _section(FORMAT, "## Elements")
    return set(re.findall(r"^\| `([a-z0-9]+)` \|", table, flags=re.MULTILINE))


def test_format_support_has_a_row_for_every_element_of_the_vocabulary():
    rows = _element_rows()
    assert rows == set(DOCUMENT_ELEMENTS) | set(ARTICLE_ELEMENTS) | {"address"} | set(FIGURE_SCOPED)
    assert rows == set(KNOWN_ELEMENTS)
    for forbidden in FORBIDDEN_ELEMENTS:
        assert f"`{forbidden}`" in FORMAT


def test_format_support_has_a_row_for_every_meta_in_serializer_order():
    table = _section(FORMAT, "## Metas")
    rows = re.findall(r"^\| `(memhtml-[a-z-]+)`", table, flags=re.MULTILINE)
    assert rows == list(META_ORDER)


def test_format_support_names_every_link_rel():
    table = _section(FORMAT, "## Links")
    for rel in REL_CLASS:
        assert f"`{rel}`" in table, rel


def test_format_support_columns_exist_in_the_schema():
    schema = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "migrations" / "index").glob("*.sql"))
    columns = set(re.findall(r"\| `([a-z_]+)`(?: \(|`? \|| \|)", _section(FORMAT, "## Metas")))
    columns |= {
        "memory_type",
        "created_at",
        "updated_at",
        "event_at",
        "gist",
        "body_text",
        "fts_text",
        "disclosure_text",
        "frame_key",
        "content_hash",
        "blob_sha",
        "file_facets",
        "file_citations",
        "file_entities",
        "file_tags",
        "edges",
        "chunks",
    }
    for column in columns:
        if column.startswith("memhtml"):
            continue
        assert re.search(rf"\b{column}\b", schema), column


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


#: Each README screenshot and its size: the window, the curation dialog and windows alone, then
#: (issue 14) the window at 1024x700 and 1920x1080 in both themes and in the fused order.
SCREENSHOTS = {
    "results": (1400, 900),
    "reader": (1400, 900),
    "recall": (1400, 900),
    "problems": (1400, 900),
    "correct": (1100, 720),
    "undo": (1100, 620),
    "conflicts": (1100, 640),
    "timeline": (1000, 520),
    "window-1024x700-light": (1024, 700),
    "window-1024x700-dark": (1024, 700),
    "window-1920x1080-light": (1920, 1080),
    "window-1920x1080-dark": (1920, 1080),
    "ranking-memhtml": (1024, 700),
    "fused-order": (1920, 1080),
    "workbench": (1024, 700),
    "workbench-dark": (1024, 700),
    "recall-quotas": (1024, 700),
    "recall-catalog": (1400, 900),
    **{
        f"review-{view}-{w}x{h}-{theme}": (w, h)
        for view in ("inbox", "activity", "provenance")
        for w, h in ((1024, 700), (1920, 1080))
        for theme in ("light", "dark")
    },
    **{
        f"{view}-{w}x{h}-{theme}": (w, h)
        for view in ("correct-graph", "conflicts-queue")
        for w, h in ((1024, 700), (1920, 1080))
        for theme in ("light", "dark")
    },
}


def test_the_readme_shows_the_screenshots_and_they_exist():
    section = _section(README, "## Screenshots")
    images = re.findall(r"!\[[^\]]*\]\((docs/screenshots/[\w-]+\.png)\)", section)
    assert [Path(i).stem for i in images] == list(SCREENSHOTS)
    assert "memhtml-desktop screenshot" in section
    for image in images:
        assert _png_size(ROOT / image) == SCREENSHOTS[Path(image).stem]


def test_the_screenshot_script_makes_exactly_the_readme_images():
    script = (ROOT / "packaging" / "screenshots.sh").read_text(encoding="utf-8")
    made = re.findall(r'--out "\$out/([\w$-]+)\.png" --view (\w+)', script)
    views = [(name, name) for name in list(SCREENSHOTS)[:8]]
    assert made == [
        *views,
        ("window-1024x700-$theme", "results"),
        ("window-1920x1080-$theme", "results"),
        ("ranking-memhtml", "results"),
        ("fused-order", "results"),
        ("workbench", "workbench"),
        ("workbench-dark", "workbench"),
        ("recall-quotas", "recall"),
        ("recall-catalog", "recall"),
        ("review-inbox-$size-$theme", "review"),
        ("review-activity-$size-$theme", "activity"),
        ("review-provenance-$size-$theme", "provenance"),
        ("correct-graph-$size-$theme", "correct"),
        ("conflicts-queue-$size-$theme", "conflicts"),
    ]
    assert "for theme in light dark" in script
