"""`--demo` twice (issue 41, item 16): the second start reopens the copy the first one made, with
what was written there, and the status bar says where the copy is and that it is kept. A
throwaway copy (`--demo-fresh`) says it is not kept."""

from __future__ import annotations

from memhtml_desktop.settings import Settings
from memhtml_desktop.ui import app

PATH = "areas/inbox/a-note-written-in-the-demo.html"


def start(qtbot, **options):
    window = app.build_window(Settings(debounce_ms=0), watch=False, **options)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.results.model.result() is not None and not window.runner.is_busy(), timeout=20000)
    return window


def status_lines(window) -> list[str]:
    return list(window.store.notices)


def test_a_second_demo_start_reopens_the_first_ones_copy_with_its_edits(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    first = start(qtbot, demo=True)
    root = first.store.root
    try:
        assert any(f"your own copy at {root}, kept between starts" in n for n in status_lines(first))
        (root / PATH).parent.mkdir(parents=True, exist_ok=True)
        (root / PATH).write_text(
            (root / "areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html")
            .read_text(encoding="utf-8")
            .replace("Prod rollbacks drain the VIP", "Written in the demo"),
            encoding="utf-8",
        )
    finally:
        first.shutdown()
    second = start(qtbot, demo=True)
    try:
        assert second.store.root == root  # the same copy, not a new temporary one
        assert (root / PATH).is_file()
        second.set_query("Written in the demo")
        qtbot.waitUntil(
            lambda: (
                second.results.model.result() is not None
                and second.results.model.result().query == "Written in the demo"
            ),
            timeout=20000,
        )
        assert PATH in [h.path for h in second.results.model.result().hits]
    finally:
        second.shutdown()


def test_a_throwaway_demo_says_it_is_not_kept(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    window = start(qtbot, fresh_demo=True)
    try:
        assert window.store.root.parent.name.startswith("memhtml-demo-")
        assert any("a throwaway copy at" in n and "not kept" in n for n in status_lines(window))
    finally:
        window.shutdown()


def test_a_throwaway_demo_and_a_throwaway_settings_file_leave_with_the_process(tmp_path):
    """Each run of the app on a throwaway copy (and every test run without user settings) left a
    `memhtml-demo-*` and a `memhtml-settings-*` folder in the temp folder for good."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import json\nfrom memhtml_desktop.ui import app\n"
        "demo = app.fresh_demo_copy()\nini = app.make_qsettings().fileName()\n"
        "print(json.dumps([str(demo.parent), ini]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != app.SETTINGS_ENV}
    env.update({app.NO_USER_CONFIG_ENV: "1", "TMPDIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"})
    env["PYTHONPATH"] = str(Path(app.__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    demo_dir, ini = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(demo_dir).name.startswith("memhtml-demo-") and Path(ini).parent.name.startswith("memhtml-settings-")
    assert Path(demo_dir).parent == tmp_path  # made where the probe was told, so the check below means something
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("memhtml-")) == []
