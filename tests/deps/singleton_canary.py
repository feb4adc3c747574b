"""Pass Python's singletons through real Qt signals many times and report their reference counts.

Run as a child process by tests/deps/test_pyside_canary.py: on a broken binding (PySide6 6.12.0
drops one reference to `True` for each `True` delivered to a Python slot, and one to `None` for each
built-in `clicked(bool)` / `toggled(bool)`), Python 3.11 aborts with `bool_dealloc` once the count
runs out — a crash that must end this child, not the test session.

Prints one line per path: `name True-delta False-delta None-delta`, then `ok`.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal  # noqa: E402
from PySide6.QtGui import QAction  # noqa: E402
from PySide6.QtWidgets import QApplication, QCheckBox, QPushButton  # noqa: E402

SINGLETONS = (True, False, None)


class Emitter(QObject):
    flag = Signal(bool)
    kind_flag = Signal(str, bool)  # the shape of Runner.busy_changed
    value = Signal(object)  # the shape of every answer signal (an Answer, a StoreChange, None)
    axis_flag = Signal(str, str, bool)  # the shape of filters' toggled


class Slots(QObject):
    """Bound methods, as the window's controllers connect them."""

    def one(self, _v: object) -> None:
        pass

    def two(self, _a: object, _b: object) -> None:
        pass

    def three(self, _a: object, _b: object, _c: object) -> None:
        pass


class Filter(QObject):
    def eventFilter(self, _obj: QObject, _event: QEvent) -> bool:  # noqa: N802 - Qt's name
        return True


def counts() -> tuple[int, int, int]:
    return tuple(sys.getrefcount(s) for s in SINGLETONS)  # type: ignore[return-value]


def measure(name: str, action, times: int) -> None:
    before = counts()
    for _ in range(times):
        action()
    after = counts()
    print(name, *(a - b for a, b in zip(after, before)), flush=True)


def main() -> int:
    times = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    app = QApplication.instance() or QApplication([])
    emitter, slots = Emitter(), Slots()
    emitter.flag.connect(slots.one)
    emitter.flag.connect(lambda _v: None)
    emitter.kind_flag.connect(slots.two)
    emitter.value.connect(slots.one)
    emitter.axis_flag.connect(slots.three)
    measure("signal-bool-true", lambda: emitter.flag.emit(True), times)
    measure("signal-bool-false", lambda: emitter.flag.emit(False), times)
    measure("signal-str-bool", lambda: emitter.kind_flag.emit("search", True), times)
    measure("signal-object-true", lambda: emitter.value.emit(True), times)
    measure("signal-object-none", lambda: emitter.value.emit(None), times)
    measure("signal-object-tuple", lambda: emitter.value.emit((True, None)), times)
    measure("signal-str-str-bool", lambda: emitter.axis_flag.emit("type", "fact", True), times)
    box = QCheckBox()
    box.toggled.connect(slots.one)
    measure("checkbox-toggled", lambda: box.setChecked(not box.isChecked()), times)
    button = QPushButton()
    button.clicked.connect(lambda *_: None)
    measure("button-clicked", button.click, times)
    action = QAction()
    action.setCheckable(True)
    action.toggled.connect(slots.one)
    measure("action-toggled", action.toggle, times)
    target, event_filter = QObject(), Filter()
    target.installEventFilter(event_filter)
    measure("event-filter-true", lambda: QCoreApplication.sendEvent(target, QEvent(QEvent.Type.User)), times)
    del app
    print("ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
