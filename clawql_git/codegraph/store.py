"""The code graph on disk: one SQLite file under ``$GIT_DIR/clawql/codegraph/``, derived from
the work tree, stamped with its schema version and rebuilt (never migrated) when it changes."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clawql_git.codegraph.model import (
    Assignment,
    Call,
    FileFacts,
    Import,
    Mount,
    Route,
    RouterDef,
    Supertype,
    Symbol,
)
from clawql_git.errors import StorageError

SCHEMA_VERSION = "11"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, hash TEXT NOT NULL, language TEXT NOT NULL, module TEXT NOT NULL,
    lines INTEGER NOT NULL, doc TEXT NOT NULL, imports TEXT NOT NULL, facts BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS symbols (
    path TEXT NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
    line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT NOT NULL,
    docstring TEXT NOT NULL, exported INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols (name);
CREATE INDEX IF NOT EXISTS symbols_path ON symbols (path, qualname);
CREATE TABLE IF NOT EXISTS calls (
    path TEXT NOT NULL, caller TEXT NOT NULL, callee TEXT NOT NULL, line INTEGER NOT NULL,
    col INTEGER NOT NULL, context TEXT NOT NULL, target_path TEXT NOT NULL,
    target_qualname TEXT NOT NULL, confidence REAL NOT NULL, resolution TEXT NOT NULL,
    tail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS calls_target ON calls (target_path, target_qualname);
CREATE INDEX IF NOT EXISTS calls_path ON calls (path);
CREATE INDEX IF NOT EXISTS calls_tail ON calls (tail);
CREATE TABLE IF NOT EXISTS deps (
    path TEXT NOT NULL, target TEXT NOT NULL, module TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS deps_path ON deps (path);
CREATE INDEX IF NOT EXISTS deps_target ON deps (target);
CREATE TABLE IF NOT EXISTS routes (
    pattern TEXT NOT NULL, methods TEXT NOT NULL, handler TEXT NOT NULL,
    handler_path TEXT NOT NULL, handler_qualname TEXT NOT NULL, path TEXT NOT NULL,
    line INTEGER NOT NULL, framework TEXT NOT NULL, middleware TEXT NOT NULL,
    websocket INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS supertypes (
    path TEXT NOT NULL, child TEXT NOT NULL, child_path TEXT NOT NULL,
    child_qualname TEXT NOT NULL, base TEXT NOT NULL, line INTEGER NOT NULL,
    relation TEXT NOT NULL, target_path TEXT NOT NULL, target_qualname TEXT NOT NULL,
    resolution TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS supertypes_path ON supertypes (path);
CREATE INDEX IF NOT EXISTS supertypes_child ON supertypes (child_path, child_qualname);
CREATE INDEX IF NOT EXISTS supertypes_target ON supertypes (target_path, target_qualname);
CREATE INDEX IF NOT EXISTS supertypes_base ON supertypes (base);
CREATE TABLE IF NOT EXISTS commits (
    sha TEXT PRIMARY KEY, time INTEGER NOT NULL, author TEXT NOT NULL, subject TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS file_commits (path TEXT NOT NULL, sha TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS file_commits_path ON file_commits (path);
CREATE TABLE IF NOT EXISTS changes (
    path TEXT PRIMARY KEY, score REAL NOT NULL, commits INTEGER NOT NULL, last INTEGER NOT NULL);
"""
_TYPES: dict[str, Any] = {
    "symbols": Symbol,
    "imports": Import,
    "calls": Call,
    "assignments": Assignment,
    "routes": Route,
    "mounts": Mount,
    "routers": RouterDef,
    "supertypes": Supertype,
}


def pack(facts: FileFacts) -> bytes:
    """FileFacts as compressed JSON, each fact a positional list (kept so unchanged files
    need no re-parse; the schema version covers the field order)."""
    data = dict(vars(facts))
    for key in _TYPES:
        data[key] = [list(vars(item).values()) for item in data[key]]
    for row in data["symbols"]:  # docstrings live in the symbols table; signatures stay,
        row[6] = ""  # as resolvers read them (C# and Kotlin extensions, return types, ...)
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 3)


def unpack(blob: bytes) -> FileFacts:
    data = json.loads(zlib.decompress(blob))
    for key, cls in _TYPES.items():
        data[key] = [
            cls(*(tuple(v) if isinstance(v, list) else v for v in item)) for item in data[key]
        ]
    return FileFacts(**data)


class Store:
    """The SQLite file of one repository's code graph."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            if self._version() not in (None, SCHEMA_VERSION):
                self._drop()
                self.db.execute("VACUUM")  # derived data of another schema: start empty
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            self.db.commit()
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the code graph at {path}: {exc}") from exc

    def _version(self) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def _drop(self) -> None:
        tables = [
            r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            self.db.execute(f"DROP TABLE IF EXISTS {table}")

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file (so its size is the graph's size)."""
        with contextlib.suppress(sqlite3.Error):  # a reader holds the log: the next write folds it
            free = self.db.execute("PRAGMA freelist_count").fetchone()[0]
            pages = self.db.execute("PRAGMA page_count").fetchone()[0]
            if free * 4 > pages:  # a quarter of the file is free pages: give them back
                self.db.execute("VACUUM")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of an update lands, or none of it."""
        try:
            with self.db:
                yield self.db
        except sqlite3.Error as exc:
            raise StorageError(f"code graph write failed: {exc}") from exc

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            cur = self.db.execute(sql, params)
            cur.row_factory = sqlite3.Row
            return list(cur.fetchall())
        except sqlite3.Error as exc:
            raise StorageError(f"code graph query failed: {exc}") from exc

    # ------------------------------------------------------------ files

    def hashes(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self.db.execute("SELECT path, hash FROM files")}

    def facts(self, paths: Iterable[str] | None = None) -> dict[str, FileFacts]:
        if paths is None:
            rows = self.db.execute("SELECT path, facts FROM files")
            return {r[0]: unpack(r[1]) for r in rows}
        out = {}
        for path in paths:
            row = self.db.execute("SELECT facts FROM files WHERE path=?", (path,)).fetchone()
            if row is not None:
                out[path] = unpack(row[0])
        return out

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])


def write_file(
    db: sqlite3.Connection, facts: FileFacts, digest: str, module: str, lines: int
) -> None:
    """Replace one file's row and symbols."""
    db.execute("DELETE FROM symbols WHERE path=?", (facts.path,))
    db.execute(
        "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?)",
        (
            facts.path,
            digest,
            facts.language,
            module,
            lines,
            facts.module_doc[:2000],
            json.dumps(sorted({i.module for i in facts.imports})),
            pack(facts),
        ),
    )
    db.executemany(
        "INSERT INTO symbols VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (
                facts.path,
                s.name,
                s.qualname,
                s.kind,
                s.line,
                s.end_line,
                s.signature,
                s.docstring[:1000],
                int(s.exported),
            )
            for s in facts.symbols
        ],
    )


def delete_file(db: sqlite3.Connection, path: str) -> None:
    for table in ("files", "symbols", "calls", "deps", "supertypes"):
        db.execute(f"DELETE FROM {table} WHERE path=?", (path,))
