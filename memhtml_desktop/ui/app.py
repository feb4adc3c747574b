"""The composition root of the window: settings, the store, the embedder, the workers, the window.

Store resolution, in order: `--demo-fresh` (a throwaway copy of the bundled demo store in a
temporary directory); `--demo` (the kept copy of the demo store in the user data directory, made
once, then reopened so what a person changes and reads there is kept); `--store`/$MEMHTML_ROOT/the
persisted last store; `~/memhtml` when it exists; else that same kept demo copy. The status bar
says which demo copy is open and where it is. A copy of the demo store carries `.memhtml/state/access.jsonl`,
which is imported into the state plane before the first index, so salience has something to say.

Persisted settings live in QSettings (organisation "memhtml", application "memhtml-desktop").
Tests and batch tools never touch the user's: `$MEMHTML_DESKTOP_SETTINGS` names an INI file to
use instead, and `$MEMHTML_DESKTOP_NO_USER_CONFIG` (set by the test suite) selects a throwaway one.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QPixmapCache
from PySide6.QtWidgets import QApplication, QMessageBox

from memhtml_desktop import __version__
from memhtml_desktop.settings import Settings, load_settings, resolve_index
from memhtml_desktop.ui.kit.pyside_fixes import guard_singleton_refcounts
from memhtml_desktop.ui.shell.theme import apply_theme

log = logging.getLogger(__name__)

ORG = "memhtml"
APP = "memhtml-desktop"
SETTINGS_ENV = "MEMHTML_DESKTOP_SETTINGS"
NO_USER_CONFIG_ENV = "MEMHTML_DESKTOP_NO_USER_CONFIG"
DEMO_IGNORE = shutil.ignore_patterns("index.db*", "state.db*", ".git")


GUI_SWITCH_INTERVAL_S = 0.0005
GC_THRESHOLDS = (2_000, 10, 1_000)
"""The cyclic collector's thresholds in a window (Python's default: 700, 10, 10). A watcher batch
or a vector snapshot allocates tens of thousands of row tuples at a time, which with the default
ran a full collection every few batches; a full collection holds the GIL for as long as it walks
the heap (50 ms measured mid-burst at 20,000 memories, 260 ms at 100,000), whichever thread runs
it. Young collections stay small (a few thousand objects: about a millisecond); automatic full ones all but never
happen: `ui/shell/idle_gc.py` collects when nobody waits."""


def tune_for_gui() -> None:
    """Let the GUI thread win the GIL back quickly while indexing and search threads run.

    Python hands the GIL to a waiting thread only after the holder has run for the switch
    interval (5 ms by default), and a PySide call may give the GIL up, so a GUI update of a few
    hundred Qt calls competing with busy worker threads waited tens of milliseconds for it again
    and again. Measured: a filters update took 52 ms beside two busy threads at 5 ms, 15 ms at
    0.5 ms (6.7 ms alone). Worker throughput barely moves: they run in C (SQLite, numpy) or in
    the indexer's parse processes most of the time.
    """
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    gc.set_threshold(*GC_THRESHOLDS)


def settle_gc() -> None:
    """After start-up: move every object made so far out of the collector's way (`gc.freeze`).

    A full collection runs on whichever thread allocates, holding the GIL, so it stalls the GUI
    thread too; its cost grows with the tracked objects, most of which (Qt wrappers, modules,
    the window) live for the whole session. Measured: a 52 ms full collection while a 2,000-file
    store was indexed, gone once the start-up objects are frozen.
    """
    gc.collect()
    gc.freeze()


# -- settings --------------------------------------------------------------------------------------


def make_qsettings() -> QSettings:
    """The persisted settings: the user's, or an INI file named by the environment (tests, tools)."""
    path = os.environ.get(SETTINGS_ENV)
    if not path and os.environ.get(NO_USER_CONFIG_ENV):
        path = str(throwaway_dir("memhtml-settings-") / "settings.ini")
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings(ORG, APP)


def persisted(qsettings: QSettings) -> dict[str, Any]:
    """The user's saved settings, read through the settings schema version (migrated if older)."""
    from memhtml_desktop.ui.shell.settings_store import load_persisted

    return load_persisted(qsettings)


def merge_persisted(settings: Settings, qsettings: QSettings) -> Settings:
    """Persisted values fill in what the command line and the environment left at the default."""
    stored = load_settings(persisted=persisted(qsettings))
    defaults = Settings()
    changes = {
        f.name: getattr(stored, f.name)
        for f in fields(Settings)
        if getattr(settings, f.name) == getattr(defaults, f.name)
    }
    return settings.with_(**changes)


# -- the store -------------------------------------------------------------------------------------


def copy_demo_store(dest: Path) -> Path:
    """Copy the bundled demo store (with its access sidecar, without any index or state db) to `dest`,
    and make the copy a git repository of its own, so a newcomer can try curation there."""
    from memhtml_desktop.data import demo_store_dir

    source = demo_store_dir()
    if not source.is_dir():
        raise FileNotFoundError(f"the bundled demo store is missing ({source})")
    shutil.copytree(source, dest, ignore=DEMO_IGNORE, dirs_exist_ok=True)
    make_demo_repository(dest)
    return dest


DEMO_IDENTITY = ("memhtml desktop demo", "demo@memhtml-desktop.invalid")


def make_demo_repository(root: Path) -> bool:
    """`git init` a demo copy and commit it whole ("demo store"), so every curation dialog works there.

    The commit is made under the demo's own identity; when the person has no git identity of their
    own, the copy keeps that one in its local config too (a throwaway copy: their global config is
    never touched). Without git the copy stays a plain folder, and the dialogs say git is missing.
    """
    import subprocess

    if (root / ".git").exists():
        return True
    name, email = DEMO_IDENTITY
    ident = ["-c", f"user.name={name}", "-c", f"user.email={email}"]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*ident, "commit", "-q", "-m", "demo store"]):
            subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
        if subprocess.run(["git", "-C", str(root), "var", "GIT_AUTHOR_IDENT"], capture_output=True, env=env).returncode:
            for key, value in (("user.name", name), ("user.email", email)):
                subprocess.run(["git", "-C", str(root), "config", key, value], check=True, capture_output=True, env=env)
    except (OSError, subprocess.CalledProcessError) as exc:
        log.warning("the demo copy %s is not a git repository (%s): curation there will say so", root, exc)
        return False
    return True


def throwaway_dir(prefix: str) -> Path:
    """A temporary folder this process made and removes when it exits (a throwaway demo copy, a
    settings file nobody keeps): each run of the app left two in the temp folder before."""
    made = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, made, ignore_errors=True)
    return made


def fresh_demo_copy() -> Path:
    return copy_demo_store(throwaway_dir("memhtml-demo-") / "demo-store")


def kept_demo_dir() -> Path:
    """Where the one kept copy of the demo store lives: the app's data folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False)) / "demo-store"


def first_run_demo() -> tuple[Path, bool]:
    """The kept copy of the demo store (`--demo`, a first run): `(path, newly_made)`. Made once, then
    reopened, so what a person writes or reads there is still there on the next start (issue 41:
    a fresh temporary copy per `--demo` made edits seem to vanish)."""
    target = kept_demo_dir()
    if target.is_dir() and any(target.iterdir()):
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    return copy_demo_store(target), True


def demo_note(root: Path) -> str | None:
    """What the status bar says when the store is a demo copy: where it is and whether it is kept."""
    if root == kept_demo_dir().resolve() or root == kept_demo_dir():
        return (
            f"The demo store: your own copy at {root}, kept between starts (--demo reopens it; "
            "--demo-fresh opens a throwaway one)"
        )
    if root.parent.name.startswith("memhtml-demo-"):
        return (
            f"The demo store: a throwaway copy at {root}; what you change here is not kept (--demo opens the kept copy)"
        )
    return None


def resolve_initial_store(
    settings: Settings, *, demo: bool, explicit_store: bool, fresh_demo: bool = False
) -> tuple[Path, bool]:
    """Which directory to open, and whether it is a new demo copy whose sidecar must be imported.
    `demo`: the kept copy (`first_run_demo`); `fresh_demo`: a throwaway copy in a temporary folder."""
    if fresh_demo:
        return fresh_demo_copy(), True
    if demo:
        return first_run_demo()
    if settings.store:
        return Path(settings.store).expanduser(), False
    home_store = Path.home() / "memhtml"
    if home_store.is_dir():
        return home_store, False
    return first_run_demo()


def temporary_index(root: Path) -> Path | None:
    """A fresh demo copy (in a temp directory) keeps its index beside it, not in the user's cache."""
    marker = root.parent.name
    return root.parent / "index.db" if marker.startswith("memhtml-demo-") else None


def store_spec(root: Path, settings: Settings) -> Any:
    """What the window's engine opens for `root`: the configured embedder by name (the engine makes
    it, or the default with a notice why), the index, the backend, the ranking profile. StoreError,
    before anything is made, when `root` is not a memhtml store (index/store_check.py); a store
    without git of its own opens with curation off and the reason."""
    from memhtml_desktop.domain.ranking import profile_named
    from memhtml_desktop.index.store import CURATION_OFF_NOTE, StoreError, check_store
    from memhtml_desktop.ops.spec import StoreSpec

    check = check_store(root)
    if check.problem is not None:
        raise StoreError(check.problem)
    index_path = resolve_index(settings, root) if settings.index else temporary_index(Path(root))
    notes = tuple(n for n in (CURATION_OFF_NOTE if check.git_problem else None, demo_note(Path(root).resolve())) if n)
    return StoreSpec(
        str(root),
        str(index_path or ""),
        settings.embedder,
        settings.vector_backend,
        True,
        profile_named(settings.ranking),
        dict(os.environ),
        check.git_problem,
        notes,
    )


# -- the application -------------------------------------------------------------------------------


PIXMAP_CACHE_KB = 1024
"""Qt's own pixmap cache (QPixmapCache: what the style draws once and blits after, frames, buttons,
check marks, at each size and state) held to 1 MB instead of Qt's 10 MB. In the soak it filled
for thousands of actions with pictures of sizes never drawn again (glibc's heap in use +12 MB from
action 1,000 to 4,000, then level; with 1 MB, level from action 1,000: bench/soak.py
--pixmap-cache-kb). A miss redraws a frame, microseconds."""


def ensure_app(argv: list[str] | None = None) -> QApplication:
    guard_singleton_refcounts()
    tune_for_gui()
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    QPixmapCache.setCacheLimit(PIXMAP_CACHE_KB)
    app.setOrganizationName(ORG)
    app.setApplicationName(APP)
    app.setApplicationDisplayName("memhtml desktop")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP)  # matches packaging/memhtml-desktop.desktop (Wayland app id)
    from memhtml_desktop.ui.shell.about_dialog import app_icon

    app.setWindowIcon(app_icon())
    return app


def recent_stores(qsettings: QSettings) -> list[str]:
    value = qsettings.value("recent_stores", [])
    return [str(v) for v in ([value] if isinstance(value, str) else (value or []))]


def build_window(
    settings: Settings,
    *,
    demo: bool = False,
    explicit_store: bool = False,
    qsettings: QSettings | None = None,
    watch: bool | None = None,
    fresh_demo: bool = False,
    choose: Callable[[str, list[str]], Any] | None = None,
):
    """The window over the resolved store (the one place that wires store, workers and window).

    A store that is not one (a mistyped `--store`, a remembered store since deleted) is not opened:
    `choose(problem, recent)` (the store chooser, `ui/shell/store_problem.py`) says why and offers
    another folder, a recent store or the demo; None (Quit there) builds no window."""
    from memhtml_desktop.index.store import check_store
    from memhtml_desktop.ui.shell.main_window import MainWindow

    qsettings = qsettings if qsettings is not None else make_qsettings()
    settings = merge_persisted(settings, qsettings)
    root, seed = resolve_initial_store(settings, demo=demo, explicit_store=explicit_store, fresh_demo=fresh_demo)
    check = check_store(root)
    if check.problem is not None:  # offer the chooser rather than quit (issue 41)
        from memhtml_desktop.ui.shell.store_problem import DEMO_CHOICE, ask_for_store

        picked = (choose or ask_for_store)(check.problem, recent_stores(qsettings))
        if picked is None:
            return None
        demo = picked == DEMO_CHOICE
        root, seed = first_run_demo() if demo else (Path(picked), False)
    window = MainWindow(store_spec(root, settings), settings, qsettings=qsettings, watch=watch, seed=seed)
    # Reads the window's CURRENT settings, so a changed embedder or backend applies on reopen.
    window.stores.opener = lambda path: store_spec(path, window.settings)
    if not demo:
        window.stores.remember(window.store.root)
    return window


def missing_display(environ: dict[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why no window can open here, or None: Qt would otherwise abort with a terse plugin error."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display: this machine has no desktop session (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
        "  Run it inside a desktop session, or on a virtual display: xvfb-run memhtml-desktop --demo\n"
        '  Headless, the same library answers from the command line: memhtml-desktop search "drain the vip" --store DIR\n'
        "  and the window renders offscreen: memhtml-desktop screenshot --demo --out window.png"
    )


def run_app(
    settings: Settings,
    demo: bool = False,
    explicit_store: bool = False,
    verbose: bool = False,
    fresh_demo: bool = False,
) -> int:
    from memhtml_desktop.logs import setup_logging

    log_path = setup_logging(verbose)
    log.info("log file: %s", log_path)
    reason = missing_display()
    if reason is not None:
        print(f"memhtml-desktop: {reason}", file=sys.stderr)
        return 1
    app = ensure_app()
    qsettings = make_qsettings()
    apply_theme(app, merge_persisted(settings, qsettings).theme)
    try:
        window = build_window(
            settings, demo=demo, explicit_store=explicit_store, qsettings=qsettings, fresh_demo=fresh_demo
        )
    except Exception as exc:
        log.debug("could not open the store", exc_info=True)
        QMessageBox.critical(None, "memhtml desktop", f"Could not open the store: {exc}")
        return 1
    if window is None:
        print("memhtml-desktop: no store opened", file=sys.stderr)
        return 1
    window.show()
    settle_gc()
    return app.exec()
