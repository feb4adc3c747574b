"""Item 7: nothing outside the store is ever read, whatever path or link an agent or a caller supplies.

A sentinel memory sits OUTSIDE the store; its text (a random token) must never appear in any
output: not in the index, not in search, not in `Store.read`/`file_bytes`/`why`/`reinforce`, not in
the CLI's stdout or stderr, not in an error message. The store holds symlinks out (to the file, to
its directory) and a memory whose links use `..`, absolute paths and `//host`.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from pathlib import Path

import pytest
from hardening_support import copy_demo, run_cli
from PySide6.QtCore import QUrl

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.html.render import render_safe_html
from memhtml_desktop.index.reader import MemoryNotFound
from memhtml_desktop.index.store import Store, StoreError
from memhtml_desktop.ui.app import guard_singleton_refcounts

guard_singleton_refcounts()

LINKS = """<link rel="memhtml-supports" href="/../../outside/secret.html">
<link rel="memhtml-relates-to" href="../../../outside/secret.html">
<link rel="memhtml-part-of" href="//evil.example/outside/secret.html">
<link rel="memhtml-caused-by" href="{absolute}">
"""
ANCHORS = """<p>See <a href="/../../outside/secret.html">up</a>, <a href="{absolute}">absolute</a>,
<a href="//127.0.0.1/secret.html">host</a>, <a href="file://{absolute}">file</a>,
<a href="/areas/%2e%2e/%2e%2e/outside/secret.html">encoded</a>.</p>
</article>"""


class Layout:
    def __init__(self, base: Path) -> None:
        self.token = "SENTINEL" + secrets.token_hex(8).upper()
        self.root = copy_demo(base / "store")
        self.outside = base / "outside"
        self.outside.mkdir()
        template = next((self.root / "areas/oncall").glob("*.html")).read_bytes()
        self.secret = self.outside / "secret.html"
        self.secret.write_bytes(template.replace(b"<mark>", f"<mark>{self.token} ".encode(), 1))
        (self.outside / "secret.txt").write_text(self.token)
        (self.root / "areas/x").mkdir()
        os.symlink(self.secret, self.root / "areas/x/leak.html")  # a file symlink out of the store
        os.symlink("../../../outside/secret.html", self.root / "areas/x/relative-leak.html")
        os.symlink(self.outside, self.root / "areas/linkdir")  # a directory symlink out of the store
        absolute = str(self.secret)
        linked = template.replace(b"</head>", LINKS.format(absolute=absolute).encode() + b"</head>", 1)
        linked = linked.replace(b"</article>", ANCHORS.format(absolute=absolute).encode(), 1)
        (self.root / "areas/x/links.html").write_bytes(linked)
        self.index = base / "index.db"

    def assert_clean(self, *outputs: object) -> None:
        for output in outputs:
            text = output if isinstance(output, (str, bytes)) else repr(output)
            token = self.token.encode() if isinstance(text, bytes) else self.token
            assert token not in text, f"the outside sentinel leaked: {str(text)[:300]}"


@pytest.fixture
def layout(tmp_path):
    return Layout(tmp_path)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """One indexed layout shared by the read-only checks."""
    layout = Layout(tmp_path_factory.mktemp("paths"))
    store = Store(layout.root, index_path=layout.index)
    store.index()
    yield layout, store
    store.close_thread_connection()


# Paths a caller (the CLI, a link, a watcher event) may hand to read/why/reinforce/file_bytes.
HOSTILE_PATHS = (
    "../outside/secret.html",
    "../../outside/secret.html",
    "areas/../../outside/secret.html",
    "/../outside/secret.html",
    "memhtml:/../outside/secret.html",
    "areas/x/../../../outside/secret.html",
    "areas\\..\\..\\outside\\secret.html",
    "areas/x/leak.html",
    "areas/x/relative-leak.html",
    "areas/%2e%2e/%2e%2e/outside/secret.html",
    "./areas/x/leak.html",
    "areas//x/leak.html",
    "areas/x/leak.html\x00",
    "/etc/passwd",
    "../../etc/passwd",
    "../../../../../../etc/passwd",
)


def _absolute_paths(layout: Layout) -> tuple[str, ...]:
    return (str(layout.secret), "file://" + str(layout.secret), str(layout.outside / "secret.txt"))


def test_index_and_search_never_reach_outside(layout):
    store = Store(layout.root, index_path=layout.index)
    report = store.index()  # its own layout: the report of a first run names what was skipped
    skipped = {s.path: s.reason for s in report.skipped}
    assert "outside the store" in skipped["areas/x/leak.html"]
    assert "outside the store" in skipped["areas/x/relative-leak.html"]
    conn = store.reader()
    paths = {p for (p,) in conn.execute("SELECT path FROM sources")}
    assert not any("linkdir" in p or "leak" in p for p in paths)
    (hits,) = conn.execute("SELECT count(*) FROM files WHERE fts_text LIKE ?", (f"%{layout.token}%",)).fetchone()
    assert hits == 0
    search, recall = store.search(layout.token), store.recall(layout.token)
    layout.assert_clean(
        [h.to_json() for h in search.hits],
        [s.to_json() for s in (recall.memories, recall.arcs)],
        store.list(Scope.build(include_archived=True), limit=500).to_json(),
    )
    detail = store.read("areas/x/links.html")  # the memory whose links point out of the store
    layout.assert_clean(detail.to_json() if hasattr(detail, "to_json") else detail)
    assert {link.path for link in detail.links} >= {"../../outside/secret.html", "evil.example/outside/secret.html"}
    for link in detail.links:  # what a click on each link does
        try:
            layout.assert_clean(store.read(link.path, bump=False))
            assert link.exists
        except (StoreError, MemoryNotFound) as exc:
            layout.assert_clean(str(exc))


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_store_entry_points_refuse_paths_out_of_the_store(indexed, path):
    layout, store = indexed
    for call in (
        lambda: store.read(path),
        lambda: store.read(path, bump=False),
        lambda: store.why("deploy", None, path),
        lambda: store.file_bytes(path),
    ):
        try:
            value = call()
        except (StoreError, MemoryNotFound, ValueError) as exc:
            layout.assert_clean(str(exc))
        else:
            layout.assert_clean(value)
    try:
        result = store.reinforce([path], "positive")
        layout.assert_clean(result)
    except (StoreError, ValueError) as exc:
        layout.assert_clean(str(exc))


def test_absolute_paths_are_never_read(indexed):
    layout, store = indexed
    for path in _absolute_paths(layout):
        for call in (lambda: store.file_bytes(path), lambda: store.read(path)):
            try:
                value = call()
            except (StoreError, MemoryNotFound) as exc:
                layout.assert_clean(str(exc))
            else:
                assert value is None


CLI_PATHS = (
    "../../outside/secret.html",
    "areas/../../outside/secret.html",
    "memhtml:/../outside/secret.html",
    "areas/x/leak.html",
    "areas/x/relative-leak.html",
    "../../../../../../etc/passwd",
)


@pytest.mark.slow
def test_cli_read_why_reinforce_never_print_outside_content(indexed):
    layout, _ = indexed
    args = ["--store", str(layout.root), "--index", str(layout.index)]
    for path in CLI_PATHS + _absolute_paths(layout)[:1]:
        for command in (
            ["read", *args, "--", path],
            ["read", *args, "--json", "--no-bump", "--", path],
            ["search", *args, "--no-refresh", "--why", path, "deploy"],
            ["reinforce", *args, "--signal", "positive", "--", path],
        ):
            proc = run_cli(command)
            layout.assert_clean(proc.stdout, proc.stderr)
            assert b"Traceback" not in proc.stderr
            if command[0] == "read":
                assert proc.returncode == 1 and proc.stderr.startswith(b"memhtml-desktop: "), (path, proc.stderr)


def test_rendered_links_never_point_out_of_the_store(indexed, qtbot):
    from memhtml_desktop.ui.reader.reader_pane import ReaderPane
    from memhtml_desktop.ui.reader.reader_parts import memory_path_of

    layout, store = indexed
    data = (layout.root / "areas/x/links.html").read_bytes()
    html = render_safe_html(data)
    layout.assert_clean(html)
    assert "file:" not in html and "127.0.0.1" not in html and "evil.example" not in html
    # An absolute file-system href becomes a memhtml: link to a STORE path (root/tmp/...), never a file URL.
    for href in re.findall(r'href="([^"]+)"', html):
        path = memory_path_of(QUrl(href))
        if path is None:
            continue
        target = (layout.root / path).resolve()
        assert target == layout.root.resolve() or layout.root.resolve() in target.parents, href
        try:
            assert store.file_bytes(path) is None
        except StoreError:
            pass
    pane = ReaderPane()
    qtbot.addWidget(pane)
    requested, opened = [], []
    pane.open_requested.connect(requested.append)
    pane.url_opener = opened.append
    pane.confirm_external = lambda url: True
    for href in (
        "memhtml:/../outside/secret.html",
        "memhtml:/areas/../../outside/secret.html",
        "memhtml:///etc/passwd",
        "memhtml:/%2e%2e/outside/secret.html",
        f"file://{layout.secret}",
    ):
        pane.handle_url(QUrl(href))
        assert memory_path_of(QUrl(href)) is None or ".." not in memory_path_of(QUrl(href))
    assert all(".." not in p and not p.startswith("/") for p in requested), requested
    assert opened == []


def test_a_path_through_a_symlinked_directory_is_never_read(layout):
    shutil.rmtree(layout.root / "archive")
    os.symlink(layout.outside, layout.root / "archive")  # a whole bucket pointing out of the store
    store = Store(layout.root, index_path=layout.index)
    store.index()
    leaks = []
    for path in ("areas/linkdir/secret.html", "archive/secret.html"):
        if store.file_bytes(path) is not None:
            leaks.append(("file_bytes", path))
        try:
            if layout.token in repr(store.read(path, bump=False)):
                leaks.append(("read", path))
        except (StoreError, MemoryNotFound):
            pass
        store.update_paths([path])
        # recency ranks every file, so "any hit" proves nothing: look for the outside file itself
        hits = store.search(layout.token).hits
        if any(h.path == path or layout.token in h.snippet or layout.token in h.gist for h in hits):
            leaks.append(("indexed by update_paths", path))
    proc = run_cli(["read", "--store", str(layout.root), "--index", str(layout.index), "areas/linkdir/secret.html"])
    if layout.token.encode() in proc.stdout:
        leaks.append(("cli read", "areas/linkdir/secret.html"))
    assert not leaks, leaks
