"""The versions of the index layer's native libraries, for Help → About and bug reports.

Asked of a private in-memory connection, not the index's, so the answer does not depend on a
store being open and the caller needs no apsw import of its own (the ui layer never imports
apsw). `vec_version()` is what the loaded sqlite-vec extension says about itself, which is the
one that matters in a frozen app: the wheel's Python package and the bundled `vec0` library
could in principle disagree.
"""

from __future__ import annotations

import logging

import apsw

log = logging.getLogger(__name__)


def sqlite_vec_library() -> str:
    """Where the sqlite-vec loadable library is looked for (SQLite adds the platform suffix)."""
    try:
        import sqlite_vec
    except ImportError:  # pragma: no cover - a declared dependency
        return ""
    return str(sqlite_vec.loadable_path())


def _vec_version() -> str:
    try:
        import sqlite_vec
    except ImportError:  # pragma: no cover - a declared dependency
        return "not installed"
    conn = apsw.Connection(":memory:")
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        return str(conn.execute("SELECT vec_version()").fetchone()[0])
    except apsw.Error as exc:
        log.warning("sqlite-vec did not load: %s", exc)
        return f"not loaded ({exc})"
    finally:
        conn.close()


def library_versions() -> dict[str, str]:
    """`{"SQLite": ..., "apsw": ..., "sqlite-vec": ..., "FTS5": ...}`, all strings, never raising."""
    options = set(getattr(apsw, "compile_options", ()))
    return {
        "SQLite": apsw.sqlite_lib_version(),
        "apsw": apsw.apsw_version(),
        "sqlite-vec": _vec_version(),
        "FTS5": "yes" if "ENABLE_FTS5" in options else "no",
    }
