"""`pump_until` drives the real window as its event loop would, deferred deletes included."""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QLabel, QWidget

from memhtml_desktop.ui.shell.idle import pump_until


def test_pumping_deletes_what_was_given_to_delete_later(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    labels = [QLabel(f"chip {i}", host) for i in range(20)]
    for label in labels:
        label.deleteLater()
    assert pump_until(lambda: not any(shiboken6.isValid(label) for label in labels), timeout=5.0), (
        "deleteLater()'d widgets outlived the pumping: a driver of the window would keep every one"
    )
    assert not host.findChildren(QLabel)
