"""Where anchors live: one SQLite file (the vault keeps it under ``$GIT_DIR/clawql/``), derived
from the entries of a vault commit and the code repositories they name, stamped with its
schema version and rebuilt (never migrated) when it changes. It holds each anchor and the
result of its last check, so a recall labels its hits with one query, without reading code."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clawql_git.codegraph.anchors import Anchor, AnchorCheck
from clawql_git.errors import StorageError

FILE_NAME = "anchors.sqlite"
SCHEMA_VERSION = "1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    repo TEXT NOT NULL, entry TEXT NOT NULL, blob TEXT NOT NULL, title TEXT NOT NULL,
    PRIMARY KEY (repo, entry));
CREATE TABLE IF NOT EXISTS anchors (
    repo TEXT NOT NULL, entry TEXT NOT NULL, file TEXT NOT NULL, qualname TEXT NOT NULL,
    kind TEXT NOT NULL, source TEXT NOT NULL, anchor_commit TEXT NOT NULL, blob TEXT NOT NULL,
    body_hash TEXT NOT NULL, shape_hash TEXT NOT NULL, state TEXT NOT NULL,
    checked_at TEXT NOT NULL, moved_to TEXT NOT NULL,
    PRIMARY KEY (repo, entry, file, qualname));
CREATE INDEX IF NOT EXISTS anchors_symbol ON anchors (file, qualname);
CREATE INDEX IF NOT EXISTS anchors_entry ON anchors (entry);
"""
_COLUMNS = (
    "repo, entry, file, qualname, kind, source, anchor_commit, blob, body_hash, shape_hash,"
    " state, checked_at, moved_to"
)


class AnchorStore:
    """The anchors of one vault into any number of code repositories (keyed by their root)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            version = self._version()
            if version == SCHEMA_VERSION:
                return  # opened to read: no write, no sync to disk (a query asks it per call)
            if version is not None:
                for table in ("meta", "entries", "anchors"):
                    self.db.execute(f"DROP TABLE IF EXISTS {table}")
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            self.db.commit()
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the anchor store at {path}: {exc}") from exc

    def _version(self) -> str | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write: all of it lands, or none."""
        try:
            with self.db:
                yield self.db
        except sqlite3.Error as exc:
            raise StorageError(f"anchor store write failed: {exc}") from exc

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            return list(self.db.execute(sql, tuple(params)).fetchall())
        except sqlite3.Error as exc:
            raise StorageError(f"anchor store query failed: {exc}") from exc

    # ------------------------------------------------------------ what was anchored

    def stamp(self, repo: str) -> str | None:
        """The vault commit whose entries the anchors into ``repo`` were made from."""
        rows = self._rows("SELECT value FROM meta WHERE key=?", (f"vault:{repo}",))
        return str(rows[0][0]) if rows else None

    def entry_blobs(self, repo: str) -> dict[str, str]:
        """Entry path -> the blob its anchors were made from."""
        return {
            r[0]: r[1] for r in self._rows("SELECT entry, blob FROM entries WHERE repo=?", (repo,))
        }

    def replace(
        self,
        repo: str,
        stamp: str,
        made: dict[str, tuple[str, str, list[Anchor]]],
        gone: Iterable[str],
    ) -> None:
        """Record the anchors of the entries in ``made`` (path -> (blob, title, anchors)), drop
        those of the entries ``gone``, and stamp the store with the vault commit."""
        with self.transaction() as db:
            for entry in [*gone, *made]:
                db.execute("DELETE FROM entries WHERE repo=? AND entry=?", (repo, entry))
                db.execute("DELETE FROM anchors WHERE repo=? AND entry=?", (repo, entry))
            for entry, (blob, title, anchors) in made.items():
                db.execute("INSERT INTO entries VALUES (?,?,?,?)", (repo, entry, blob, title))
                db.executemany(
                    f"INSERT OR IGNORE INTO anchors ({_COLUMNS}) VALUES ({','.join('?' * 13)})",
                    [_row(repo, a) for a in anchors],
                )
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"vault:{repo}", stamp))

    def anchors(self, repo: str) -> list[Anchor]:
        """Every anchor into ``repo``."""
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM anchors WHERE repo=? ORDER BY entry, file, qualname", (repo,)
        )
        return [_anchor(r) for r in rows]

    # ------------------------------------------------------------ what the checks found

    def save_checks(self, repo: str, checks: Iterable[AnchorCheck]) -> None:
        """Keep the outcome of each check beside its anchor."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE anchors SET state=?, checked_at=?, moved_to=?"
                " WHERE repo=? AND entry=? AND file=? AND qualname=?",
                [
                    (
                        c.state,
                        c.checked_at,
                        c.moved_to,
                        repo,
                        c.anchor.key,
                        c.anchor.file,
                        c.anchor.qualname,
                    )
                    for c in checks
                ],
            )

    def checks(
        self, repo: str | None = None, entries: Iterable[str] | None = None
    ) -> list[AnchorCheck]:
        """The last check of every anchor (into ``repo``; of ``entries``), never checked ones
        as fresh at their own commit."""
        sql = f"SELECT {_COLUMNS} FROM anchors WHERE 1=1"
        params: list[Any] = []
        if repo is not None:
            sql += " AND repo=?"
            params.append(repo)
        if entries is not None:
            wanted = list(entries)
            sql += f" AND entry IN ({','.join('?' * len(wanted))})"
            params += wanted
        return [_check(r) for r in self._rows(sql + " ORDER BY entry, file, qualname", params)]

    def titles(self, repo: str) -> dict[str, str]:
        """Entry path -> title, of the entries anchored into ``repo`` (or read for it)."""
        return {
            r[0]: r[1] for r in self._rows("SELECT entry, title FROM entries WHERE repo=?", (repo,))
        }

    def for_symbol(self, repo: str, file: str, qualname: str | None) -> list[dict[str, Any]]:
        """The entries anchored to ``file``:``qualname`` of ``repo`` (every definition of the
        file when ``qualname`` is None; the file itself always), with titles and last check."""
        sql = (
            f"SELECT a.{_COLUMNS.replace(', ', ', a.')}, e.title FROM anchors a JOIN entries e"
            " ON e.repo=a.repo AND e.entry=a.entry WHERE a.repo=? AND a.file=?"
        )
        params: list[Any] = [repo, file]
        if qualname is not None:
            sql += " AND a.qualname IN (?, '')"
            params.append(qualname)
        rows = self._rows(sql + " ORDER BY a.entry", params)
        return [{**_check(r).to_record(), "title": r["title"]} for r in rows]


def _row(repo: str, a: Anchor) -> tuple[str, ...]:
    return (
        repo, a.key, a.file, a.qualname, a.kind, a.source, a.commit, a.blob,
        a.body_hash, a.shape_hash, "fresh", a.commit, "",
    )  # fmt: skip


def _anchor(r: sqlite3.Row) -> Anchor:
    return Anchor(
        r["entry"], r["file"], r["qualname"], r["kind"], r["anchor_commit"], r["blob"],
        r["body_hash"], r["shape_hash"], r["source"],
    )  # fmt: skip


def _check(r: sqlite3.Row) -> AnchorCheck:
    return AnchorCheck(_anchor(r), r["state"], r["checked_at"], r["moved_to"])


def code_labels(state_dir: Path, paths: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """The recall hook: entry path -> its stale anchors as their last check found them
    (entries with none are left out). No anchor store yet answers nothing and makes none."""
    wanted = list(paths)
    store_path = state_dir / FILE_NAME
    if not wanted or not store_path.exists():
        return {}
    store = AnchorStore(store_path)
    try:
        out: dict[str, list[dict[str, Any]]] = {}
        for c in store.checks(entries=wanted):
            if c.stale:
                out.setdefault(c.anchor.key, []).append(_label(c))
        return out
    finally:
        store.close()


def _label(c: AnchorCheck) -> dict[str, Any]:
    record = {"symbol": c.anchor.target, "state": c.state, "anchored_at": c.anchor.commit}
    if c.moved_to:
        record["moved_to"] = c.moved_to
    return record
