"""Run the real window over a fresh demo copy and report what its OWN process did (a child of
tests/ui/test_window_process.py): every SQLite connection opened here (apsw's Connection wrapped
before the app is imported), and every call of the parse, the projection or an embedder on any
thread of this process (a profile hook). The store's work belongs to its engine."""

from __future__ import annotations

import json
import sys
import threading
import time

import apsw


class Recorded(apsw.Connection):
    opened: list[str] = []

    def __init__(self, *args, **kwargs) -> None:
        Recorded.opened.append(str(args[0] if args else kwargs.get("filename")))
        super().__init__(*args, **kwargs)


apsw.Connection = Recorded  # before memhtml_desktop subclasses it

from memhtml_desktop.domain.hash_embedder import HashEmbedder  # noqa: E402
from memhtml_desktop.html import tree as tree_module  # noqa: E402
from memhtml_desktop.html.project import project  # noqa: E402

WATCHED = {project.__code__: "project", HashEmbedder.embed.__code__: "embed"}
WATCHED.update(
    {
        fn.__code__: f"tree.{name}"
        for name, fn in vars(tree_module).items()
        if callable(fn)
        and getattr(fn, "__code__", None) is not None
        and getattr(fn, "__module__", "") == tree_module.__name__
    }
)
called: list[str] = []


def profile(frame, event, arg):  # noqa: ANN001 - sys.setprofile's signature
    if event == "call" and frame.f_code in WATCHED:
        called.append(WATCHED[frame.f_code])


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from memhtml_desktop.settings import load_settings
    from memhtml_desktop.ui.app import build_window, ensure_app

    sys.setprofile(profile)
    threading.setprofile(profile)
    app = ensure_app()
    window = build_window(load_settings({"debounce_ms": 30}), demo=True)
    window.resize(1300, 800)
    window.show()

    def pump(until, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            QApplication.processEvents()
            if until():
                return True
            time.sleep(0.005)
        return False

    said: dict = {}
    said["first"] = pump(lambda: window.results.model.result() is not None and not window.runner.is_busy())
    window.set_query("drain the vip")
    said["searched"] = pump(
        lambda: (r := window.results.model.result()) is not None and r.query == "drain the vip" and bool(r.hits)
    )
    first = window.results.model.result().hits[0].path
    shown: list = []
    window.memory_shown.connect(shown.append)
    window.open_memory(first)
    said["opened"] = pump(lambda: bool(shown))
    window.search_bar.set_mode("recall")
    window.show_view("recall")
    said["recalled"] = pump(lambda: window.recall_shown is not None and not window.runner.is_busy())
    said["idle"] = window.wait_idle(60)
    said["engine_pid"] = window.runner.client.pid
    window.close()
    sys.setprofile(None)
    threading.setprofile(None)
    app.processEvents()
    print(json.dumps({"connections": Recorded.opened, "calls": sorted(set(called)), **said}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
