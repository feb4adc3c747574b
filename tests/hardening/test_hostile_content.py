"""Item 6: hostile memory HTML is rendered inert, and nothing reaches the network.

A TCP listener on 127.0.0.1 is named in every URL the hostile file holds (img, srcset, iframe,
script, link rel=stylesheet, @import, CSS url(), base, meta refresh, object, embed, video, svg,
form, table background, on* handlers, javascript:). The file goes the way a person's click takes
it: `Store.read_with_bytes` -> `jobs.open_memory` (the sanitiser) -> the real `ReaderPane` shown offscreen
and painted. The listener must record no connection, and every resource Qt asks `loadResource` for
must be answered with nothing (a blank 1x1 image or an empty byte array). The same raw HTML also
goes straight into a `SafeTextBrowser` with no sanitiser in front, so the second wall holds alone.
Links that leave the store ask `confirm_external` first; declined, nothing opens.

The terminal is an output too: the last tests pin what agent-written names and text do to the
CLI's human output and to an index run, and an out-of-range sidecar count.
"""

from __future__ import annotations

import base64
import os
import socket
import threading
import time

import pytest
from hardening_support import copy_demo, run_cli
from PySide6.QtCore import QByteArray, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument

from memhtml_desktop.index.store import Store
from memhtml_desktop.ops import jobs
from memhtml_desktop.ui.app import guard_singleton_refcounts
from memhtml_desktop.ui.reader import reader_parts
from memhtml_desktop.ui.reader.reader_pane import ReaderPane
from memhtml_desktop.ui.reader.reader_parts import SafeTextBrowser

guard_singleton_refcounts()  # what the app does before any widget exists (a PySide6 refcount workaround)

HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Hostile {kind} memory about deploy rollback</title>
<meta name="memhtml-type" content="semantic">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="2026-04-20T13:10:00Z">
<meta name="memhtml-updated" content="2026-04-20T13:10:00Z">
<meta name="memhtml-confidence" content="0.80">
<meta name="memhtml-importance" content="6">
<meta name="memhtml-author" content="agent:hostile">
{extra_head}
</head>
<body>
<article>
"""

# Allowed in a valid memory, yet hostile: a javascript: link, web links, a data: link, an image.
VALID_BODY = """<p><mark>Rollbacks drain the deploy VIP first.</mark> See <a href="javascript:fetch('{url}/js')">this</a>,
<a href="{url}/outside">the outside page</a>, <a href="//127.0.0.1:{port}/protocol-relative">this too</a>,
<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>,
<a href="file://{sentinel}">a file</a> and <a href="/areas/oncall/older.html">an older memory</a>.</p>
<p><img src="{url}/valid-img.png" alt="pixel"> <img src="{sentinel}" alt="local"></p>
</article>
</body>
</html>
"""

HOSTILE_BODY = """<p><mark>Hostile claim about deploy rollback.</mark> text
<img src="{url}/img.png" onerror="fetch('{url}/onerror')"> <img srcset="{url}/srcset.png 2x">
<img src="data:image/png;base64,{huge}"> <a href="data:image/png;base64,{huge}">huge data link</a>
<a href="javascript:fetch('{url}/js')">js</a> <a href="{url}/outside">outside</a>
<a href="java&#9;script:fetch('{url}/tab')">tabbed js</a> <a href="  JAVASCRIPT:alert(1)">upper js</a></p>
<iframe src="{url}/iframe"></iframe><frame src="{url}/frame">
<p style="background-image:url({url}/css-url)">styled</p>
<style>@import url({url}/import.css); p {{ background: url({url}/bg.png) }}</style>
<link rel="stylesheet" href="{url}/body-style.css">
<table background="{url}/table-bg.png"><tr><td background="{url}/td.png">cell</td></tr></table>
<object data="{url}/object"></object><embed src="{url}/embed"><applet code="{url}/applet"></applet>
<video poster="{url}/poster.png" src="{url}/video.mp4"></video><audio src="{url}/audio.mp3"></audio>
<svg><image href="{url}/svg.png"/><script>fetch('{url}/svg-script')</script></svg>
<math><mi xlink:href="{url}/math">m</mi></math>
<form action="{url}/form"><input type="image" src="{url}/input.png"><button formaction="{url}/button">b</button></form>
<div onclick="fetch('{url}/click')" onmouseover="fetch('{url}/hover')">hover me</div>
<img src="{sentinel}">
<script src="{url}/body.js"></script>
<script>document.write('PWNED'); fetch('{url}/inline')</script>
<noscript><img src="{url}/noscript.png"></noscript>
</article>
</body>
</html>
"""

HOSTILE_HEAD = """<link rel="stylesheet" href="{url}/style.css">
<script src="{url}/head.js"></script>
<base href="{url}/base/">
<meta http-equiv="refresh" content="0;url={url}/refresh">"""


class Listener:
    """A TCP socket on 127.0.0.1 that records every connection made to it (and what was sent)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(32)
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.connections: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(0.5)
            try:
                self.connections.append(conn.recv(4096) or b"(connected)")
            except OSError:
                self.connections.append(b"(connected)")
            finally:
                conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    # The listener works: a real connection is recorded (so "no connection" below means something).
    probe = socket.create_connection(("127.0.0.1", server.port), timeout=2)
    probe.sendall(b"probe")
    probe.close()
    deadline = time.monotonic() + 5
    while not server.connections and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.connections == [b"probe"]
    server.connections.clear()
    yield server
    server.close()


@pytest.fixture
def hostile_store(tmp_path, listener):
    root = copy_demo(tmp_path / "store")
    outside = tmp_path / "outside"
    outside.mkdir()
    sentinel = outside / "sentinel.png"
    image = QImage(300, 240, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    image.save(str(sentinel))
    fields = dict(
        url=listener.url, port=listener.port, sentinel=sentinel, huge=base64.b64encode(os.urandom(3_000_000)).decode()
    )
    (root / "areas" / "hostile").mkdir()
    (root / "areas/hostile/valid.html").write_text(
        HEAD.format(kind="valid", extra_head="") + VALID_BODY.format(**fields), encoding="utf-8"
    )
    (root / "areas/hostile/invalid.html").write_text(
        HEAD.format(kind="invalid", extra_head=HOSTILE_HEAD.format(**fields)) + HOSTILE_BODY.format(**fields),
        encoding="utf-8",
    )
    store = Store(root, index_path=tmp_path / "index.db")
    store.index()
    yield store, fields
    store.close_thread_connection()


class Recorder:
    """Wraps SafeTextBrowser.loadResource on the class: every request and the answer it got."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[tuple[int, str, object]] = []
        original = SafeTextBrowser.loadResource

        def recording(browser, type_, name):
            answer = original(browser, type_, name)
            self.calls.append((int(type_.value if hasattr(type_, "value") else type_), name.toString(), answer))
            return answer

        monkeypatch.setattr(reader_parts.SafeTextBrowser, "loadResource", recording)

    def assert_nothing_satisfied(self) -> None:
        for type_, url, answer in self.calls:
            if type_ == QTextDocument.ResourceType.ImageResource.value:
                assert isinstance(answer, QImage) and answer.width() == 1 and answer.height() == 1, url
            else:
                assert isinstance(answer, QByteArray) and answer.isEmpty(), url


def assert_no_connection(qtbot, listener, ms: int = 1500) -> None:
    """Give Qt `ms` of event processing to make any request it was going to make; none may arrive."""
    with pytest.raises(qtbot.TimeoutError):
        qtbot.waitUntil(lambda: bool(listener.connections), timeout=ms)
    assert listener.connections == []


def _anchors(document: QTextDocument) -> list[str]:
    hrefs = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor() and fmt.anchorHref():
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return hrefs


def _pane(qtbot) -> ReaderPane:
    pane = ReaderPane()
    qtbot.addWidget(pane)
    pane.resize(600, 900)
    pane.asked, pane.opened = [], []
    pane.url_opener = pane.opened.append
    pane.confirm_external = lambda url: (pane.asked.append(url.toString()), False)[1]
    return pane


@pytest.mark.parametrize("path", ["areas/hostile/invalid.html", "areas/hostile/valid.html"])
def test_the_reader_renders_hostile_memories_inert_and_fetches_nothing(
    qtbot, monkeypatch, listener, hostile_store, path
):
    store, fields = hostile_store
    recorder = Recorder(monkeypatch)
    started = time.perf_counter()
    opened = jobs.open_memory(store, path, ("deploy",), True, lambda: False)  # what the window runs
    render_s = time.perf_counter() - started
    assert render_s < 5, f"rendering took {render_s:.1f} s"
    html = opened.safe_html
    assert len(html) < 50_000 and "data:" not in html and "base64" not in html  # the 4 MB URIs are gone
    lowered = html.lower()
    for marker in (
        "<script",
        "<img",
        "<iframe",
        "<link",
        "<style",
        "<object",
        "<embed",
        "<svg",
        "<video",
        "javascript:",
        "onerror",
        "onclick",
        "background=",
        "url(",
        "srcset",
        "file:",
        "src=",
    ):
        assert marker not in lowered, marker
    # The listener's address survives only as the one web link a person may choose to follow.
    assert html.count(str(fields["port"])) == html.count(f'href="{fields["url"]}/outside"')

    pane = _pane(qtbot)
    pane.show_detail(opened.detail, opened.safe_html)
    pane.show()
    qtbot.waitExposed(pane)
    pane.grab()  # paint: every image and style the document holds is resolved now
    assert_no_connection(qtbot, listener)
    recorder.assert_nothing_satisfied()
    text = pane.article.toPlainText()
    assert "PWNED" not in text and "fetch(" not in text
    assert pane.article.document().size().height() < 400  # the 300x240 sentinel image was never drawn
    if path.endswith("invalid.html"):
        assert opened.detail.violations and pane.violation_strip.isVisible()

    # Every link the rendered article holds, clicked: memory links open inside, web links ask first.
    hrefs = _anchors(pane.article.document())
    assert f"{fields['url']}/outside" in hrefs
    assert all(h.startswith(("memhtml:/", "http://", "https://", "mailto:")) for h in hrefs), hrefs
    with qtbot.assertNotEmitted(pane.open_requested, wait=0) if path.endswith("invalid.html") else _noop():
        for href in hrefs:
            if not href.startswith("memhtml:/"):
                pane.article.anchorClicked.emit(QUrl(href))
    assert pane.asked == [h for h in hrefs if not h.startswith("memhtml:/")] and pane.opened == []
    for hostile in (
        "javascript:fetch('x')",
        f"file://{fields['sentinel']}",
        "data:text/html,<b>x</b>",
        f"//127.0.0.1:{fields['port']}/x",
        "ftp://127.0.0.1/x",
    ):
        pane.article.anchorClicked.emit(QUrl(hostile))
    assert pane.asked == [h for h in hrefs if not h.startswith("memhtml:/")], "only web links may ask"
    assert pane.opened == []
    pane.confirm_external = lambda url: True  # accepted: exactly that URL goes to the opener, once
    pane.article.anchorClicked.emit(QUrl(f"{fields['url']}/outside"))
    assert pane.opened == [QUrl(f"{fields['url']}/outside")]
    assert_no_connection(qtbot, listener, ms=300)


class _noop:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_the_safe_browser_alone_fetches_nothing_from_raw_hostile_html(qtbot, monkeypatch, listener, tmp_path):
    """No sanitiser in front: the browser's own loadResource is the wall."""
    sentinel = tmp_path / "sentinel.png"
    image = QImage(300, 240, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    image.save(str(sentinel))
    monkeypatch.chdir(tmp_path)  # a relative src would resolve here if anything read the disk
    fields = dict(url=listener.url, port=listener.port, sentinel=sentinel, huge="iVBORw0KGgo=" * 1000)
    raw = HEAD.format(kind="raw", extra_head=HOSTILE_HEAD.format(**fields)) + HOSTILE_BODY.format(**fields)
    raw += f'<img src="sentinel.png"><img src="file://{sentinel}"><p style="background:url(sentinel.png)">x</p>'
    recorder = Recorder(monkeypatch)
    browser = SafeTextBrowser()
    qtbot.addWidget(browser)
    browser.resize(600, 600)
    browser.setHtml(raw)
    browser.show()
    qtbot.waitExposed(browser)
    browser.grab()
    assert_no_connection(qtbot, listener)
    asked = {url for _, url, _ in recorder.calls}
    assert f"{listener.url}/img.png" in asked and "sentinel.png" in asked  # Qt did ask; the answer was nothing
    recorder.assert_nothing_satisfied()
    assert browser.document().size().height() < 2000
    assert browser.openLinks() is False and browser.openExternalLinks() is False


def test_the_listener_would_see_a_browser_that_fetches(qtbot, listener):
    """Non-vacuity: a QTextBrowser whose loadResource fetches over HTTP is caught by the same check."""
    import urllib.request

    from PySide6.QtWidgets import QTextBrowser

    class NaiveBrowser(QTextBrowser):
        def loadResource(self, type_, name):
            if name.scheme() == "http":
                try:
                    urllib.request.urlopen(name.toString(), timeout=0.5).close()
                except OSError:
                    pass
            return QByteArray()

    browser = NaiveBrowser()
    qtbot.addWidget(browser)
    browser.setHtml(f'<p>x<img src="{listener.url}/naive.png"></p>')
    browser.show()
    browser.grab()
    qtbot.waitUntil(lambda: bool(listener.connections), timeout=3000)
    assert b"/naive.png" in listener.connections[0]


def test_a_search_hit_for_a_hostile_memory_is_plain_data(hostile_store):
    store, _ = hostile_store
    result = store.search("deploy rollback hostile")
    assert any(h.path == "areas/hostile/valid.html" for h in result.hits)
    assert not any(h.path == "areas/hostile/invalid.html" for h in result.hits)  # invalid: never indexed
    problem = next(p for p in store.problems() if p.path == "areas/hostile/invalid.html")
    assert any("script" in v for v in problem.violations)


# -- the terminal and the file system are outputs too ------------------------------------------


def test_cli_human_output_never_carries_terminal_control_sequences(tmp_path):
    root = copy_demo(tmp_path / "store")
    source = (root / "areas/oncall").glob("*.html").__next__().read_bytes()
    escape = "\x1b]0;pwned\x07\x1b[2J"
    named = root / "areas" / "oncall" / f"name{escape}.html"
    named.write_bytes(source)
    titled = source.replace(b"<title>", f"<title>{escape}".encode(), 1)
    (root / "areas/oncall/titled.html").write_bytes(titled)
    invalid = source.replace(b'content="verdict"', f'content="verdict{escape}"'.encode(), 1)
    (root / "areas/oncall/invalid-meta.html").write_bytes(invalid)
    index = tmp_path / "index.db"
    outputs = {}
    for args in (
        ["index"],
        ["list", "--no-refresh"],
        ["search", "--no-refresh", "failing billing replica"],
        ["doctor"],
    ):
        proc = run_cli([args[0], "--store", str(root), "--index", str(index), *args[1:]])
        assert proc.returncode == 0, proc.stderr
        outputs[args[0]] = proc.stdout + proc.stderr
    leaks = {name: out.count(b"\x1b") + out.count(b"\x07") for name, out in outputs.items()}
    assert not any(leaks.values()), leaks


def test_a_file_name_that_is_not_utf8_does_not_stop_the_index_run(tmp_path):
    root = copy_demo(tmp_path / "store")
    source = next((root / "areas/oncall").glob("*.html"))
    os.link(source, os.path.join(os.fsencode(root / "areas/oncall"), b"broken-\xff\xfe.html"))
    store = Store(root, index_path=tmp_path / "index.db")
    report = store.index()
    assert report.added >= 60
    assert any("utf" in s.reason.lower() for s in report.skipped)


def test_a_sidecar_count_out_of_range_is_one_skipped_line(tmp_path):
    from memhtml_desktop.index.db import open_index
    from memhtml_desktop.index.sidecar import import_access

    (tmp_path / "store").mkdir()
    conn = open_index(tmp_path / "index.db", state_path=tmp_path / "store" / ".memhtml" / "state.db")
    data = b"\n".join(
        [
            b'{"path":"areas/a.html","accessCount":3,"updatedAt":"2026-01-01T00:00:00Z"}',
            b'{"path":"areas/b.html","accessCount":1e30,"updatedAt":"2026-01-01T00:00:00Z"}',
            b'{"path":"areas/c.html","accessCount":99999999999999999999999,"updatedAt":"2026-01-01T00:00:00Z"}',
        ]
    )
    report = import_access(conn, data)
    assert report.imported == 1 and report.skipped_lines == 2
