"""The suite keeps compiled bytecode in one private folder (tests/conftest.py, `keep_bytecode`)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from tests import conftest


def test_children_of_the_suite_read_and_write_the_private_cache():
    assert conftest.PYCACHE is not None
    assert sys.pycache_prefix == str(conftest.PYCACHE)
    out = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.pycache_prefix, sys.dont_write_bytecode)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [str(conftest.PYCACHE), "False"]


def test_a_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(sys, "pycache_prefix", sys.pycache_prefix)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    shared = tmp_path / f"memhtml-desktop-pycache-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)
    assert conftest.keep_bytecode() is None
    assert sys.dont_write_bytecode and "PYTHONPYCACHEPREFIX" not in os.environ
    shared.chmod(0o700)
    assert conftest.keep_bytecode() == shared
    assert os.environ["PYTHONPYCACHEPREFIX"] == str(shared) and not sys.dont_write_bytecode
