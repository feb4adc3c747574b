"""The Store satisfies its doors (index/doors.py), member by member, and the doors cover the Store.

A Protocol is structural: nothing makes `Store` inherit it, so nothing but this test notices a
door and the Store drifting apart (a method renamed, a parameter dropped, a keyword made
positional). `runtime_checkable`'s isinstance only looks for the names; `mismatches` also compares
each method's parameters: every parameter the door declares must be the Store's, of the same kind
and with the same default, and whatever the Store adds must have a default (a caller typed by the
door would not pass it). The checker is shown to fail on a Store that breaks a door.
"""

from __future__ import annotations

import inspect
from typing import Protocol

import pytest

from memhtml_desktop.index import doors
from memhtml_desktop.index.store import Store

DOORS = [
    doors.StoreFacts,
    doors.SearchDoor,
    doors.ReadDoor,
    doors.StateDoor,
    doors.IndexDoor,
    doors.SqlDoor,
    doors.CuratorStore,
    doors.WorkbenchStore,
    doors.StoreDoors,
]
NOT_A_DOOR = {"connect"}  # the store's own: a new connection is opened by `reader` for the caller's thread


def members(door: type) -> tuple[set[str], dict[str, object]]:
    """The door's attributes (annotated) and methods, its own and its bases' doors'."""
    attributes: set[str] = set()
    methods: dict[str, object] = {}
    for base in reversed(door.__mro__):
        if base in (object, Protocol) or not getattr(base, "_is_protocol", False):
            continue
        attributes |= set(base.__dict__.get("__annotations__", {}))
        for name, value in base.__dict__.items():
            if not name.startswith("_") and callable(getattr(value, "__func__", value)):
                methods[name] = value
    return attributes, methods


def _function(value):
    return value.__func__ if isinstance(value, staticmethod) else value


def mismatches(cls: type, instance: object, door: type) -> list[str]:
    """Where `cls` (and one `instance` of it, for the attributes it sets in `__init__`) fails `door`."""
    attributes, methods = members(door)
    wrong = [f"{door.__name__}.{name}: no such attribute" for name in sorted(attributes) if not hasattr(instance, name)]
    for name, declared in sorted(methods.items()):
        actual = inspect.getattr_static(cls, name, None)
        if actual is None or not callable(_function(actual)):
            wrong.append(f"{door.__name__}.{name}: no such method")
            continue
        if isinstance(declared, staticmethod) != isinstance(actual, staticmethod):
            wrong.append(f"{door.__name__}.{name}: static in one, not in the other")
            continue
        want = inspect.signature(_function(declared)).parameters
        have = inspect.signature(_function(actual)).parameters
        for pname, p in want.items():
            q = have.get(pname)
            if q is None:
                wrong.append(f"{door.__name__}.{name}: the Store has no parameter {pname!r}")
            elif q.kind != p.kind:
                wrong.append(
                    f"{door.__name__}.{name}: {pname!r} is {q.kind.description}, the door says {p.kind.description}"
                )
            elif q.default != p.default:
                wrong.append(
                    f"{door.__name__}.{name}: {pname!r} defaults to {q.default!r}, the door says {p.default!r}"
                )
        if list(want) != [n for n in have if n in want]:
            wrong.append(f"{door.__name__}.{name}: the parameters are in another order")
        for pname, q in have.items():
            if (
                pname not in want
                and q.default is inspect.Parameter.empty
                and q.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            ):
                wrong.append(f"{door.__name__}.{name}: the Store needs {pname!r}, which the door does not pass")
    return wrong


@pytest.fixture
def store(tmp_path):
    (tmp_path / "store" / "areas").mkdir(parents=True)
    return Store(tmp_path / "store", index_path=tmp_path / "index.db")


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.__name__)
def test_the_store_satisfies_each_door(store, door):
    assert mismatches(Store, store, door) == []
    assert isinstance(store, door)


def test_every_public_member_of_the_store_is_behind_a_door(store):
    """A new Store operation goes behind the door its callers need (or it is not reachable typed)."""
    behind: set[str] = set()
    for door in DOORS:
        attributes, methods = members(door)
        behind |= attributes | set(methods)
    public = {name for name in dir(Store) if not name.startswith("_")} | {
        name for name in vars(store) if not name.startswith("_")
    }
    assert sorted(public - behind - NOT_A_DOOR) == [], "add each to its door in index/doors.py"


def test_the_composites_are_their_doors_together():
    _, curator = members(doors.CuratorStore)
    for door in (doors.ReadDoor, doors.IndexDoor, doors.SqlDoor):
        assert set(members(door)[1]) <= set(curator)
    assert "search" not in curator and "reinforce" not in curator  # the write core neither ranks nor judges
    _, workbench = members(doors.WorkbenchStore)
    assert "search" in workbench and "reader" in workbench and "update_paths" not in workbench


class _Drifted(Store):
    """A Store that broke three doors: a keyword made positional, a parameter dropped, one required."""

    def search(self, query, scope=None, limit=10, ranking=None):  # `limit` no longer keyword-only
        return super().search(query, scope, limit=limit, ranking=ranking)

    def read(self, path):  # `bump` dropped
        return super().read(path)

    def file_bytes(self, path, why):  # a parameter the door does not pass
        return super().file_bytes(path)


def test_the_check_fails_on_a_store_that_drifted(store):
    said = "\n".join(mismatches(_Drifted, store, doors.StoreDoors))
    assert "search: 'limit' is positional or keyword" in said
    assert "read: the Store has no parameter 'bump'" in said
    assert "file_bytes: the Store needs 'why'" in said


def test_the_check_fails_on_a_missing_member(store):
    class Lacking:
        def __init__(self, inner):
            self.__dict__.update({k: v for k, v in vars(inner).items() if k != "embedder"})

    said = mismatches(Lacking, Lacking(store), doors.SearchDoor)
    assert "SearchDoor.embedder: no such attribute" in said and "SearchDoor.search: no such method" in said


def test_the_doors_module_loads_nothing_of_sqlite():
    """ops/ types its jobs with the doors and the window imports ops/: importing the doors must not
    pull apsw, numpy's vectors or the retrieval pipeline into the window's process."""
    import subprocess
    import sys

    code = (
        "import sys; import memhtml_desktop.index.doors\n"
        "print(sorted(m for m in ('apsw', 'memhtml_desktop.index.db', 'memhtml_desktop.index.retrieval',"
        " 'memhtml_desktop.index.vectors', 'memhtml_desktop.index.store') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_nothing_sets_the_store_s_ranking_after_it_is_made():
    """The ranking profile travels in the request (`ranking=`): the Store's `ranking` is the default
    it was made with, and no module assigns it (the window once set `store.ranking` for its workers)."""
    import re
    from pathlib import Path

    import memhtml_desktop

    package = Path(memhtml_desktop.__file__).parent
    assigned = [
        f"{path.relative_to(package)}:{n}"
        for path in sorted(package.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\b[\w.]*store[\w.]*\.ranking\s*=[^=]", line, re.IGNORECASE)
    ]
    assert assigned == []
