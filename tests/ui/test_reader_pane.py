"""The reader: what it shows, which signals its clicks send, and that it loads and opens nothing by itself."""

from __future__ import annotations

import pathlib
from datetime import datetime, timezone

import pytest
from PySide6.QtCore import QByteArray, Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication, QImage, QTextDocument

from memhtml_desktop.domain.types import Link, MemoryDetail, ReinforceResult
from memhtml_desktop.ui.reader.reader_pane import ReaderPane
from memhtml_desktop.ui.reader.reader_parts import SafeTextBrowser, access_line, humanize_ago, memory_path_of

NOW = datetime(2026, 8, 4, 14, 0, 0, tzinfo=timezone.utc)
PATH = "projects/checkout-api/oncall/rollback-drains-vip.html"


def detail(**changes) -> MemoryDetail:
    values = dict(
        path=PATH,
        title="Prod rollbacks drain the VIP before the deploy is reverted",
        gist="If a prod rollback is issued, drain the VIP before reverting the deploy.",
        memory_type="procedural",
        metas=(
            ("memhtml-type", "procedural"),
            ("memhtml-status", "active"),
            ("memhtml-updated", "2026-08-02T14:03:11Z"),
            ("memhtml-confidence", "0.90"),
            ("memhtml-entity", "service:checkout-api"),
            ("memhtml-tag", "deploy"),
        ),
        entities=("service:checkout-api", "person:sanju"),
        tags=("deploy", "oncall"),
        facets=(
            ("Applies to", "ALB and NLB target-group deploys", None),
            ("Failure window", "about two minutes", 120.0),
        ),
        citations=(
            ("checkout-api sev2", "https://status.example.com/sev2"),
            ("runbook", None),
            ("older note", "/areas/oncall/older.html"),
        ),
        links=(
            Link(
                "supersedes",
                "archive/2026/areas/oncall/rollback-order.html",
                archived=True,
                title="Rollback order (was)",
            ),
            Link("part_of", "areas/arcs/reversibility-first.html", exists=False),
        ),
        backlinks=(Link("relates_to", "areas/oncall/alb-drain-timeout.html", title="ALB drain timeout"),),
        text="If a prod rollback is issued, drain the VIP before reverting the deploy.",
        html="<article>…</article>",
        archived=False,
        superseded_by=None,
        indexed=True,
        violations=(),
        warnings=(),
        access={
            "access_count": 4,
            "reinforcement_count": 2,
            "outcome_score": 0.4,
            "last_accessed_at": "2026-08-02T13:00:00Z",
            "last_reinforced_at": None,
            "updated_at": None,
        },
    )
    values.update(changes)
    return MemoryDetail(**values)


SAFE_HTML = (
    "<p><mark>If a prod rollback is issued, drain the VIP before reverting the deploy.</mark> The revert "
    "alone leaves connections pinned. See <a href='memhtml:/areas/oncall/alb-drain-timeout.html'>ALB drain</a> "
    "and <a href='https://aws.example.com/elb'>the AWS docs</a>.</p>"
)


@pytest.fixture
def pane(qtbot, tmp_path):
    widget = ReaderPane(clock=lambda: NOW)
    qtbot.addWidget(widget)
    widget.set_store_root(tmp_path)
    widget.resize(520, 800)
    widget.opened = []
    widget.asked = []
    widget.url_opener = widget.opened.append
    widget.confirm_external = lambda url: (widget.asked.append(url.toString()), False)[1]
    return widget


def test_shows_the_memory_claim_first(pane):
    pane.show_detail(detail(), SAFE_HTML)
    assert pane.state() == "detail"
    assert pane.title_label.text().startswith("Prod rollbacks drain the VIP")
    assert pane.path_label.text() == PATH
    assert pane.claim_label.text() == detail().gist
    assert pane.claim_label.textFormat() == Qt.TextFormat.PlainText
    assert pane.kind_chips.keys() == ["type:procedural", "workspace:checkout-api"]
    assert pane.entity_chips.keys() == ["service:checkout-api", "person:sanju"]
    assert pane.tag_chips.keys() == ["deploy", "oncall"]
    assert pane.archived_badge.isHidden()
    assert pane.violation_strip.isHidden() and pane.warning_strip.isHidden()
    assert pane.facets_grid.rowCount() == 2
    assert pane.facets_grid.itemAtPosition(1, 2).widget().text() == "120"
    assert pane.links_model.rowCount() == 2 and pane.backlinks_model.rowCount() == 1
    assert pane.stats_label.text() == "Read 4× · last 2 d ago · outcome +0.40 (2 signals)"
    assert "drain the VIP" in pane.article.toPlainText()
    metas = [
        pane.metas_grid.itemAtPosition(r, 0).widget().text()
        for r in range(pane.metas_grid.rowCount())
        if pane.metas_grid.itemAtPosition(r, 0)
    ]
    assert "status" in metas and "entity" not in metas and "tag" not in metas


def test_links_model_passes_the_model_tester(pane, qtmodeltester):
    pane.show_detail(detail(), SAFE_HTML)
    qtmodeltester.check(pane.links_model)
    qtmodeltester.check(pane.backlinks_model)
    model = pane.links_model
    assert model.index(0, 0).data() == "→ supersedes"
    assert model.index(0, 1).data() == "Rollback order (was)"
    assert model.index(0, 2).data() == "archived"
    assert model.index(1, 1).data() == "areas/arcs/reversibility-first.html"
    assert model.index(1, 2).data() == "missing"
    assert pane.backlinks_model.index(0, 0).data() == "← relates to"


def test_chips_and_facets_ask_for_filters(pane, qtbot):
    pane.show_detail(detail(), SAFE_HTML)
    cases = [
        (lambda: pane.entity_chips.chip("person:sanju").label_button.click(), ("entity", "person:sanju")),
        (lambda: pane.tag_chips.chip("oncall").label_button.click(), ("tag", "oncall")),
        (lambda: pane.kind_chips.chip("type:procedural").label_button.click(), ("type", "procedural")),
        (lambda: pane.kind_chips.chip("workspace:checkout-api").label_button.click(), ("workspace", "checkout-api")),
        (
            lambda: pane.facets_grid.itemAtPosition(1, 1).widget().linkActivated.emit("#1"),
            ("facet", "Failure window=about two minutes"),
        ),
    ]
    for act, expected in cases:
        with qtbot.waitSignal(pane.filter_requested, timeout=1000) as blocker:
            act()
        assert tuple(blocker.args) == expected


def test_links_and_backlinks_open_on_click_and_enter(pane, qtbot):
    pane.show_detail(detail(), SAFE_HTML)
    pane.show()
    qtbot.waitExposed(pane)
    view = pane.links_view
    rect = view.visualRect(pane.links_model.index(1, 1))
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == ["areas/arcs/reversibility-first.html"]
    back = pane.backlinks_view
    back.setCurrentIndex(pane.backlinks_model.index(0, 0))
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        qtbot.keyClick(back, Qt.Key.Key_Return)
    assert blocker.args == ["areas/oncall/alb-drain-timeout.html"]


def test_supersedes_chain_navigates_both_ways(pane, qtbot):
    pane.show_detail(detail(superseded_by="areas/oncall/rollback-v3.html", archived=True), SAFE_HTML)
    assert pane.archived_badge.isVisibleTo(pane)
    text = pane.chain_label.text()
    assert "Superseded by" in text and "Supersedes" in text
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as newer:
        pane.chain_label.linkActivated.emit("#0")
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as older:
        pane.chain_label.linkActivated.emit("#1")
    assert newer.args == ["areas/oncall/rollback-v3.html"]
    assert older.args == ["archive/2026/areas/oncall/rollback-order.html"]
    with qtbot.assertNotEmitted(pane.open_requested):
        pane.chain_label.linkActivated.emit("#7")
        pane.chain_label.linkActivated.emit("javascript:alert(1)")


def test_buttons_send_reinforce_and_why(pane, qtbot):
    pane.show_detail(detail(), SAFE_HTML)
    with qtbot.waitSignal(pane.reinforce_requested, timeout=1000) as up:
        pane.helpful_action.trigger()
    with qtbot.waitSignal(pane.reinforce_requested, timeout=1000) as down:
        pane.not_helpful_action.trigger()
    with qtbot.waitSignal(pane.why_requested, timeout=1000) as why:
        pane.why_action.trigger()
    assert up.args == [PATH, "positive"]
    assert down.args == [PATH, "negative"]
    assert why.args == [PATH]
    pane.show_reinforce(ReinforceResult("positive", signal_applied=(PATH,)))
    assert pane.note_label.text().startswith("Recorded as helpful.")
    pane.show_reinforce(ReinforceResult("negative", signal_applied=(PATH,)), previous="positive")
    assert pane.note_label.text().startswith("Recorded as not helpful, replacing “helpful”")
    pane.show_reinforce(ReinforceResult("neutral", signal_applied=(PATH,)), previous="negative")
    assert pane.note_label.text() == "“not helpful” withdrawn."
    pane.show_reinforce(ReinforceResult("negative", signal_cooled=(PATH,)))
    assert "cooldown" in pane.note_label.text()


def test_editor_reveal_and_copy_path(pane, tmp_path, monkeypatch):
    pane.show_detail(detail(), SAFE_HTML)
    launched = []
    pane.editor_launcher = lambda argv: launched.append(argv) or True
    monkeypatch.setenv("VISUAL", "gedit --new-window")
    pane.editor_action.trigger()
    assert launched == [["gedit", "--new-window", str(tmp_path / PATH)]]
    assert pane.opened == [], "an editor, never the .html default handler (a browser)"
    pane.reveal_action.trigger()
    assert pane.opened == [QUrl.fromLocalFile(str((tmp_path / PATH).parent))]


def test_without_an_editor_the_file_manager_opens(pane, tmp_path, monkeypatch):
    pane.show_detail(detail(), SAFE_HTML)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    pane.editor_launcher = lambda argv: (_ for _ in ()).throw(AssertionError("no editor configured"))
    pane.editor_action.trigger()
    assert pane.opened == [QUrl.fromLocalFile(str((tmp_path / PATH).parent))]
    pane.copy_path_action.trigger()
    assert QGuiApplication.clipboard().text() == PATH


def test_an_escaping_path_is_never_opened(pane):
    pane.show_detail(detail(path="../../etc/passwd"), "")
    assert not pane.editor_action.isEnabled()
    pane.open_in_editor()
    pane.reveal_in_file_manager()
    assert pane.opened == []


def test_article_anchor_routing(pane, qtbot):
    pane.show_detail(detail(), SAFE_HTML)
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        pane.article.anchorClicked.emit(QUrl("memhtml:/areas/oncall/alb-drain-timeout.html#part"))
    assert blocker.args == ["areas/oncall/alb-drain-timeout.html"]
    # declined: nothing opened
    pane.article.anchorClicked.emit(QUrl("https://aws.example.com/elb"))
    assert pane.asked == ["https://aws.example.com/elb"] and pane.opened == []
    # accepted: opened once, exactly that URL
    pane.confirm_external = lambda url: True
    pane.article.anchorClicked.emit(QUrl("mailto:oncall@example.com"))
    assert pane.opened == [QUrl("mailto:oncall@example.com")]
    # everything else is ignored without asking
    pane.opened.clear()
    asked = []
    pane.confirm_external = lambda url: asked.append(url) or True
    with qtbot.assertNotEmitted(pane.open_requested):
        for hostile in (
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,<b>x</b>",
            "ftp://x/y",
            "memhtml:/../etc/passwd",
            "/areas/x.html",
        ):
            pane.article.anchorClicked.emit(QUrl(hostile))
    assert asked == [] and pane.opened == []


def test_citations_show_hrefs_and_ask_before_leaving(pane, qtbot):
    pane.show_detail(detail(), SAFE_HTML)
    text = pane.citations_label.text()
    assert "https://status.example.com/sev2" in text and "runbook" in text
    pane.citations_label.linkActivated.emit("#0")
    assert pane.asked == ["https://status.example.com/sev2"] and pane.opened == []
    with qtbot.waitSignal(pane.open_requested, timeout=1000) as blocker:
        pane.citations_label.linkActivated.emit("#1")
    assert blocker.args == ["areas/oncall/older.html"]


def test_external_confirmation_declined_by_the_real_dialog_opens_nothing(qtbot, monkeypatch):
    widget = ReaderPane(clock=lambda: NOW)
    qtbot.addWidget(widget)
    opened = []
    widget.url_opener = opened.append
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "exec", lambda self: QMessageBox.StandardButton.Cancel)
    widget.handle_url(QUrl("https://example.com/"))
    assert opened == []


class RecordingBrowser(SafeTextBrowser):
    def __init__(self):
        super().__init__()
        self.calls: list[tuple[int, str, object]] = []

    def loadResource(self, type_, name):  # noqa: N802
        answer = super().loadResource(type_, name)
        self.calls.append((type_, name.toString(), answer))
        return answer


HOSTILE = (
    '<p>hi<img src="http://evil.example.com/beacon.png?u=1" width="1" height="1">'
    '<img src="pixel.png"><img src="{abs}"><img src="file://{abs}"></p>'
    '<p style="background-image: url(pixel.png)">x</p>'
    '<table background="http://evil.example.com/bg.png"><tr><td>t</td></tr></table>'
    '<script>document.write("pwned")</script><a href="javascript:alert(1)">j</a>'
)


def test_the_article_browser_loads_nothing(qtbot, tmp_path, monkeypatch):
    image = QImage(300, 240, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    target = tmp_path / "pixel.png"
    image.save(str(target))
    monkeypatch.chdir(tmp_path)  # a relative src would resolve here if anything read it
    browser = RecordingBrowser()
    qtbot.addWidget(browser)
    browser.resize(500, 400)
    browser.setHtml(HOSTILE.format(abs=target))
    browser.show()
    qtbot.waitExposed(browser)
    browser.grab()
    asked = {url for _, url, _ in browser.calls}
    assert "http://evil.example.com/beacon.png?u=1" in asked and "pixel.png" in asked
    for type_, url, answer in browser.calls:
        if type_ == QTextDocument.ResourceType.ImageResource:
            assert isinstance(answer, QImage) and answer.size().width() == 1, url
        else:
            assert isinstance(answer, QByteArray) and answer.isEmpty(), url
    # the 300×240 image on disk was never read: the document stays one text line high per block
    assert browser.document().size().height() < 120
    assert "pwned" not in browser.toPlainText()
    assert browser.openLinks() is False and browser.openExternalLinks() is False


def test_the_reader_uses_the_safe_browser_and_survives_hostile_text(pane, tmp_path, monkeypatch):
    image = QImage(300, 240, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    image.save(str(tmp_path / "pixel.png"))
    monkeypatch.chdir(tmp_path)
    assert isinstance(pane.article, SafeTextBrowser)
    hostile_title = '<img src="pixel.png"><b>bold?</b>'
    pane.show_detail(
        detail(title=hostile_title, gist="<i>claim</i>", entities=("<img src=x>",)),
        HOSTILE.format(abs=tmp_path / "pixel.png"),
    )
    pane.show()
    pane.grab()
    assert pane.title_label.text() == hostile_title
    assert pane.title_label.textFormat() == Qt.TextFormat.PlainText
    assert pane.claim_label.text() == "<i>claim</i>"
    assert pane.article.document().size().height() < 120
    assert pane.entity_chips.chips()[0].label == "<img src=x>"


def test_an_invalid_file_shows_every_violation(pane):
    violations = ("2 <mark> elements: exactly one span is the claim", '<time> without datetime: "July"')
    pane.show_detail(
        detail(
            violations=violations,
            warnings=("<b> is outside the closed vocabulary",),
            indexed=False,
            access=None,
            memory_type=None,
        ),
        "",
    )
    assert pane.violation_strip.isVisibleTo(pane)
    body = pane.violation_strip.body.text()
    assert all(v in body for v in violations)
    assert "2 violations" in pane.violation_strip.heading.text()
    assert "<b> is outside" in pane.warning_strip.body.text()
    assert pane.stats_label.text() == "Not in the index: no access stats"
    assert not pane.helpful_action.isEnabled() and pane.why_action.isEnabled()
    assert pane.article.toPlainText() == detail().text  # no safe html: the plain text, never raw HTML


def test_states_loading_error_clear(pane, qtbot):
    pane.show_loading("areas/x.html")
    assert pane.state() == "loading" and "areas/x.html" in pane.loading_label.text()
    assert not pane.why_action.isEnabled()
    pane.show_error("areas/x.html", "no memory file at areas/x.html")
    assert pane.state() == "error" and pane.why_action.isEnabled()
    with qtbot.waitSignal(pane.why_requested, timeout=1000) as why:
        pane.why_action.trigger()
    assert why.args == ["areas/x.html"]
    pane.clear()
    assert pane.state() == "empty" and pane.current_path() is None
    assert not pane.copy_path_action.isEnabled()


def test_access_wording():
    assert humanize_ago("2026-08-04T13:59:30Z", NOW) == "just now"
    assert humanize_ago("2026-08-04T13:15:00Z", NOW) == "45 min ago"
    assert humanize_ago("2026-08-04T09:00:00Z", NOW) == "5 h ago"
    assert humanize_ago("2026-01-01T00:00:00Z", NOW) == "on 2026-01-01"
    assert access_line(None, NOW) == "Not read yet"
    assert (
        access_line({"access_count": 1, "last_accessed_at": "2026-08-04T13:59:59Z"}, NOW) == "Read 1× · last just now"
    )


def test_memory_urls():
    assert memory_path_of(QUrl("memhtml:/areas/a%20b.html?x=1#f")) == "areas/a b.html"
    assert memory_path_of(QUrl("memhtml:/../x.html")) is None
    assert memory_path_of(QUrl("https://example.com/areas/a.html")) is None


def test_a_real_file_read_from_a_store_renders(pane, tmp_path):
    """When the library's reader is available, its MemoryDetail fills the pane end to end."""
    pytest.importorskip("memhtml_desktop.html.detail")
    from memhtml_desktop.index.store import Store

    source = pathlib.Path("/work/shared/spec/store-format-golden/cases/areas__oncall__format-md-procedural.html")
    if not source.exists():
        pytest.skip("golden cases not available")
    root = tmp_path / "store"
    dest = root / "areas/oncall/format-md-procedural.html"
    dest.parent.mkdir(parents=True)
    dest.write_bytes(source.read_bytes())
    store = Store(root, index_path=tmp_path / "i.db")
    store.index()
    real = store.read("areas/oncall/format-md-procedural.html", bump=False)
    pane.show_detail(real, "")
    assert pane.claim_label.text() == real.gist
    assert pane.entity_chips.keys() == list(real.entities)
