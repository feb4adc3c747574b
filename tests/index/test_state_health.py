"""`doctor` checks the state plane: a damaged page and a schema newer than this app are reported
(issue 26: a corrupt page 2 went unnoticed, a newer schema was used read-write without a word)."""

from __future__ import annotations

import json
import shutil

import apsw
import pytest

from memhtml_desktop.domain.hash_embedder import HashEmbedder
from memhtml_desktop.index.store import Store
from tests.memfiles import write_memory


def cli(argv, capsys):
    from memhtml_desktop.cli import main

    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def plane(tmp_path):
    """A store with a state plane holding a few rows; the CLI's base flags."""
    root = tmp_path / "store"
    paths = [f"areas/oncall/rule-{n}.html" for n in range(6)]
    for n, path in enumerate(paths):
        write_memory(root, path, title=f"Rule {n}", claim=f"Rule {n} holds for the on-call rotation.")
    store = Store(root, index_path=tmp_path / "index.db", embedder=HashEmbedder())
    store.index()
    store.reinforce(paths, "positive")
    store.close_thread_connection()
    return root, ["--store", str(root), "--index", str(tmp_path / "index.db")]


def test_a_sound_state_plane_is_said_to_be_sound(plane, capsys):
    root, base = plane
    code, out, err = cli(["doctor", *base, "--json"], capsys)
    assert code == 0, err
    state = json.loads(out)["state"]
    assert state["sound"] and state["integrity"] == ["ok"] and state["newer"] == [] and state["pending"] == []
    code, out, _ = cli(["doctor", *base], capsys)
    assert "state plane integrity: ok" in out and "state plane schema: current (2 migrations)" in out


def test_a_damaged_page_of_state_db_is_reported_and_doctor_fails(plane, capsys):
    root, base = plane
    db = root / ".memhtml" / "state.db"
    conn = apsw.Connection(str(db))
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    assert conn.execute("PRAGMA page_count").fetchone()[0] >= 3
    conn.close()
    data = bytearray(db.read_bytes())
    data[page : page * 2] = b"\xa5" * page  # page 2, garbage
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    code, out, err = cli(["doctor", *base, "--json"], capsys)
    assert code == 1, err
    state = json.loads(out)["state"]
    assert not state["sound"] and state["integrity"] and state["integrity"] != ["ok"]
    code, out, _ = cli(["doctor", *base], capsys)
    assert code == 1 and "state plane integrity: DAMAGED" in out
    assert db.read_bytes() == before  # checked, never "repaired"


def test_a_newer_schema_is_reported(plane, capsys):
    root, base = plane
    conn = apsw.Connection(str(root / ".memhtml" / "state.db"))
    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('S0099_future.sql', '2027-01-01T00:00:00Z')")
    conn.close()
    code, out, err = cli(["doctor", *base, "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["state"]["newer"] == ["S0099_future.sql"]
    code, out, _ = cli(["doctor", *base], capsys)
    assert "state plane schema: NEWER than this app knows (S0099_future.sql)" in out


def test_no_state_plane_yet_is_not_damage(tmp_path, capsys):
    root = tmp_path / "bare"
    write_memory(root, "areas/x/a.html", title="A", claim="A holds.")
    shutil.rmtree(root / ".memhtml", ignore_errors=True)
    code, out, err = cli(["doctor", "--store", str(root), "--index", str(tmp_path / "i.db"), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["state"]["sound"]
