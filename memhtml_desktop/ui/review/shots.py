"""The review views for `memhtml-desktop screenshot --view review|activity|provenance`.

A batch tool, so it may wait. On a fresh demo copy (made a repository, `curate/shots.py`) it first
plays an agent's last eight weeks through the write core under an agent's git identity and dates
(writes with sessions, corrections, archives, links, a task's status, a plain edit), with the
curator's review mark set halfway: the inbox then holds the recent half, the chart all of it. A
store named with `--store` is shown as it is.
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import time
from contextlib import contextmanager
from typing import Any

VIEWS = ("review", "activity", "provenance")
AGENT = ("memory-agent", "agent@bots.example.invalid")
LINKED = "resources/infra/terraform-state-lives-in-s3-with-dynamodb-locking.html"

#: (days ago, what): the agent's weeks, oldest first; the mark falls after the first eleven.
_DAY = (
    (55, ("write", "Checkout retries idempotent POSTs once", "Checkout-api retries an idempotent POST once after a 502.", "sess-0101")),
    (52, ("write", "Billing invoices close at 02:00 UTC", "Billing closes the day's invoices at 02:00 UTC.", "sess-0101")),
    (47, ("link", LINKED, "relates_to", "resources/infra/large-terraform-plans-usually-mean-a-provider-upgrade.html")),
    (41, ("write", "Canary deploys hold 10 minutes", "A checkout-api canary holds 10 minutes before promotion.", "sess-0107")),
    (38, ("archive", "areas/inbox/stripe-webhook-retries-half-written-note.html", "half-written; superseded by the runbook")),
    (34, ("write", "Replica lag alarms at 30 seconds", "The replica lag alarm fires at 30 seconds of lag.", "sess-0112")),
    (30, ("write", "The staging VIP drains in 40 seconds", "Draining the staging VIP takes about 40 seconds.", None)),
    (27, ("task", "projects/checkout-api/tasks/alarm-on-canary-p99-above-800-ms.html", "doing")),
    (24, ("write", "Pgbouncer pools reset at deploy", "Billing's pgbouncer pools reset on every deploy.", "sess-0118")),
    (20, ("write", "Mobile release notes go out Thursday", "Mobile release notes go out every Thursday.", "sess-0118")),
    (17, ("edit", LINKED, b"one state file per service", b"one state file per service and region")),
    (13, ("write", "Checkout API p99 budget is 800 ms", "The checkout-api p99 latency budget is 800 ms.", "sess-0124")),
    (11, ("correct", "resources/infra/prod-alb-deregistration-delay-is-120-seconds.html",
          "The prod ALB deregistration delay is 300 seconds",
          "The prod ALB target groups use a 300-second deregistration delay.", "raised after the November drain review")),
    (9, ("write", "Billing retries webhooks twice", "Billing retries a failed webhook twice before it pages.", None)),
    (7, ("archive", "areas/arcs/reversibility-first.html", "arc retired after the Q3 review")),
    (5, ("link", "areas/oncall/page-the-secondary-after-15-minutes-without-an-ack.html", "relates_to",
         "areas/oncall/sanju-wants-sev3-pages-held-until-morning.html")),
    (3, ("write", "Invoice runs spike writes threefold", "The monthly invoice run triples Postgres writes.", "sess-0131")),
    (2, ("edit", "resources/postgres/run-migrations-with-a-5-second-lock-timeout.html",
         b"5-second lock timeout and retry", b"4-second lock timeout and retry")),
    (1, ("write", "Sev3 pages wait for business hours", "Sev3 pages wait for business hours unless a customer is down.", "sess-0133")),
)  # fmt: skip
MARK_AFTER = 11


@contextmanager
def _as(who: tuple[str, str], when: _dt.datetime):
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    keys = {"GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_COMMITTER_NAME": who[0],
            "GIT_COMMITTER_EMAIL": who[1], "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}  # fmt: skip
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def agent_weeks(store: Any) -> None:
    """The agent's eight weeks through the write core, the review mark set after the first eleven."""
    from memhtml_desktop.history import Git, review_done
    from memhtml_desktop.write.curator import Curator
    from memhtml_desktop.write.requests import (
        ArchiveRequest,
        CorrectRequest,
        LinkRequest,
        TaskStatusRequest,
        WriteRequest,
    )  # fmt: skip

    root, curator = store.root, Curator(store)
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    # The demo copy's one commit, moved to before the agent's weeks (a store the agent found, not made).
    before = (now - _dt.timedelta(days=60)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subprocess.run(["git", "-C", str(root), "commit", "-q", "--amend", "--no-edit", f"--date={before}"], check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": before}, capture_output=True)  # fmt: skip
    for i, (days, step) in enumerate(_DAY):
        when = now - _dt.timedelta(days=days, hours=i % 7)
        with _as(AGENT, when):
            verb = step[0]
            if verb == "write":
                curator.run(WriteRequest(step[1], "semantic", claim=step[2], session=step[3]))
            elif verb == "link":
                curator.run(LinkRequest(step[1], step[2], step[3]))
            elif verb == "archive":
                curator.run(ArchiveRequest(step[1], step[2]))
            elif verb == "task":
                curator.run(TaskStatusRequest(step[1], step[2]))
            elif verb == "correct":
                curator.run(CorrectRequest(step[1], step[2], claim=step[3], reason=step[4], session="sess-0127"))
            else:
                path = root / step[1]
                path.write_bytes(path.read_bytes().replace(step[2], step[3], 1))
                subprocess.run(["git", "-C", str(root), "commit", "-q", "-am", "tune the wording"], check=True)
                store.update_paths([step[1]], [])
        if i + 1 == MARK_AFTER:
            review_done(Git(root))


def _pump(window: Any, until, timeout: float = 30.0) -> bool:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if until():
            window.wait_idle()
            for _ in range(10):
                app.processEvents()
            return True
        time.sleep(0.01)
    return False


def review_view(window: Any, view: str, size: tuple[int, int]) -> Any:
    """Show `view` over the window's store and return the widget to grab."""
    review = window.controllers["review"]
    if view == "provenance":
        window.open_memory(LINKED, bump=False)
        panel = review.provenance.panel
        _pump(window, lambda: panel.provenance is not None)
        return window
    loaded: list = []
    review.loaded.connect(loaded.append)
    shown = review.show()
    _pump(window, lambda: bool(loaded))
    shown.resize(*size)
    if view == "activity":
        shown.tabs.setCurrentIndex(1)
        _pump(window, lambda: shown.activity is not None and shown.activity.activity is not None)
        chart = shown.activity.chart
        latest = max((i for i, b in enumerate(chart.activity.buckets) if b.total), default=0)
        chart.select(latest)
    else:
        target = next((c for c in shown.model.changes if c.kind == "corrected"), None)
        if target is not None:
            shown.select(shown.model.index_of(target.key))
            _pump(window, lambda: shown.detail.detail is not None)
    _pump(window, lambda: True)
    return shown
