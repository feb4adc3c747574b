"""The log file: where it goes, what reaches it, how big it may grow, and what happens without it."""

from __future__ import annotations

import logging
import sys
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

from memhtml_desktop import logs


@pytest.fixture
def state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    root = logging.getLogger()
    level = root.level
    yield tmp_path / "state"
    for handler in [h for h in root.handlers if getattr(h, logs._OURS, False)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


def _ours() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if getattr(h, logs._OURS, False)]


def test_the_log_lives_in_the_user_state_directory(state_home):
    assert logs.log_dir() == state_home / "memhtml-desktop" / "log"
    path = logs.setup_logging(False)
    assert path == state_home / "memhtml-desktop" / "log" / "memhtml-desktop.log"
    assert path.is_file()


def test_info_reaches_the_file_and_only_warnings_reach_stderr(state_home, capsys):
    path = logs.setup_logging(False)
    logging.getLogger("memhtml_desktop.test").info("an info line")
    logging.getLogger("memhtml_desktop.test").debug("a debug line")
    logging.getLogger("memhtml_desktop.test").warning("a warning line")
    text = path.read_text(encoding="utf-8")
    assert "an info line" in text and "a warning line" in text and "a debug line" not in text
    assert "memhtml-desktop" in text and "started" in text  # the first line says which build
    err = capsys.readouterr().err
    assert "a warning line" in err and "an info line" not in err


def test_verbose_sends_info_to_stderr_and_debug_to_the_file(state_home, capsys):
    path = logs.setup_logging(True)
    logging.getLogger("memhtml_desktop.test").info("loud info")
    logging.getLogger("memhtml_desktop.test").debug("loud debug")
    assert "loud info" in capsys.readouterr().err
    assert "loud debug" in path.read_text(encoding="utf-8")


def test_the_file_rotates_at_one_megabyte_keeping_four_older_files(state_home):
    logs.setup_logging(False)
    files = [h for h in _ours() if isinstance(h, RotatingFileHandler)]
    assert len(files) == 1
    assert files[0].maxBytes == 1_000_000 and files[0].backupCount == 4
    files[0].maxBytes = 2_000  # make rotation observable without writing megabytes
    for i in range(200):
        logging.getLogger("memhtml_desktop.test").info("line %d %s", i, "x" * 40)
    names = sorted(p.name for p in logs.log_dir().iterdir())
    assert names == ["memhtml-desktop.log", *(f"memhtml-desktop.log.{i}" for i in range(1, 5))]


def test_a_second_call_replaces_the_handlers(state_home):
    logs.setup_logging(False)
    logs.setup_logging(False)
    assert len(_ours()) == 2  # one stderr, one file


def test_a_basic_config_stderr_handler_is_replaced_not_doubled(state_home, capsys):
    logging.getLogger().addHandler(logging.StreamHandler(sys.stderr))  # what cli.main's basicConfig leaves
    logs.setup_logging(False)
    logging.getLogger("memhtml_desktop.test").warning("said once")
    assert capsys.readouterr().err.count("said once") == 1


def test_no_writable_folder_means_stderr_only(state_home, capsys):
    state_home.mkdir(parents=True)
    (state_home / "memhtml-desktop").write_text("a file where the folder should be")
    path = logs.setup_logging(False)
    assert not path.exists()
    assert [type(h) for h in _ours()] == [logging.StreamHandler]
    assert "no log file" in capsys.readouterr().err


def test_uncaught_exceptions_are_logged_with_their_traceback(state_home, monkeypatch):
    chained, chained_threads = [], []  # hooks installed before ours (pytest-qt's, a debugger's) still run
    monkeypatch.setattr(sys, "excepthook", lambda *exc: chained.append(exc[0]))
    monkeypatch.setattr(threading, "excepthook", lambda args: chained_threads.append(args.exc_type))
    path = logs.setup_logging(False)
    try:
        raise ValueError("boom from a slot")
    except ValueError:
        sys.excepthook(*sys.exc_info())
    worker = threading.Thread(target=lambda: 1 / 0, name="doomed-worker")
    worker.start()
    worker.join()
    text = path.read_text(encoding="utf-8")
    assert "boom from a slot" in text and "Traceback" in text
    assert "uncaught exception in thread doomed-worker" in text and "ZeroDivisionError" in text
    assert chained == [ValueError] and chained_threads == [ZeroDivisionError]


def test_the_cli_does_not_write_the_log_file(state_home, capsys):
    from memhtml_desktop.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert not Path(logs.log_file()).exists()
