"""The recall answer cache: an SQLite file of answers keyed by exactly what decides them (the
commit, the index's embedder, every option and the question's text), bounded in size with
least-recently-used eviction. A lookup and an insert are each a few indexed statements (the
number of answers is a row SQLite's triggers keep), so the cost of a recall does not grow
with the answers the cache holds, nor with its capacity.

There are no similarity hits: two different questions, however close their embeddings, get
their own answers (issue 15: a 0.92-similarity cache served 63 of 1,982 questions an earlier,
different question's answer). Nothing in the file is trusted: the service checks every cached
hit against its commit before serving it."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from clawql_git.errors import StorageError
from clawql_git.recall.pipeline import RecallHit, RecallQuery, RecallResult

# At most this many answers are kept (about 10 KB each at the default token budget, so some
# 10 MB); the least recently used go first.
CACHE_CAPACITY = 1000
SCHEMA = 3  # PRAGMA user_version of the file: another version is dropped and started again
LAYOUT = frozenset({"answers", "size", "answers_in", "answers_out"})
_BUSY_SECONDS = 30.0
_TUPLE_FIELDS = frozenset(
    f.name for f in dataclasses.fields(RecallHit) if str(f.type).startswith("tuple")
)


class CacheUnreadable(StorageError):
    """A cached answer that is not an answer, or a cache file that cannot be used (the
    service resets the cache: it is derived)."""


def cache_key(sha: str, embedder_id: str, q: RecallQuery) -> str:
    """The key of ``q``'s answer at commit ``sha``: every option and the text with only its
    runs of whitespace folded (no layer of the pipeline sees the difference), and the code
    that ranks it (``ranking_digest``)."""
    text = " ".join(q.text.split())
    material = json.dumps([sha, embedder_id, q.cache_key(), text, ranking_digest()])
    return hashlib.sha256(material.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def ranking_digest() -> str:
    """A digest of the code and weights that make an answer (the recall and index packages'
    modules, the ranker's weights): after an upgrade, an answer cached by the older code at
    the same commit is not what a fresh recall returns, so it is not a hit."""
    import clawql_git.index as index_pkg
    import clawql_git.recall as recall_pkg

    digest = hashlib.sha256()
    for pkg in (recall_pkg, index_pkg):
        root = Path(str(pkg.__file__)).parent
        for path in sorted([*root.glob("*.py"), *root.glob("*.json")]):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def use_wal(db: sqlite3.Connection) -> None:
    """Switch the cache file to WAL (a persistent mode: once set, every later opener finds it).

    The switch needs the file to itself, and SQLite answers "database is locked" at once, without
    its busy handler, when other processes are reading; so it is retried until they let go."""
    deadline = time.monotonic() + _BUSY_SECONDS
    delay = 0.005
    while True:
        try:
            if str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def remove_cache(path: Path) -> None:
    """Delete the cache file and its WAL companions."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
        path.with_name(name).unlink(missing_ok=True)


class RecallCache:
    """Answers by key (``cache_key``), at most ``capacity`` of them. ``seq`` orders them by
    last use: a hit moves its answer to the newest place, an insert evicts the oldest answers past
    the ``capacity`` newest (counted by the size row, deleted by rowid)."""

    def __init__(self, path: Path, capacity: int = CACHE_CAPACITY) -> None:
        self.capacity = max(1, capacity)
        try:
            self._open(path)
        except sqlite3.OperationalError as exc:  # locked, unwritable: not ours to delete
            raise StorageError(f"cannot open the recall cache {path}: {exc}") from exc
        except sqlite3.DatabaseError:  # not a database (garbage written over it): derived,
            self.close()  # so it is started again
            remove_cache(path)
            try:
                self._open(path)
            except sqlite3.Error as exc:
                raise StorageError(f"cannot open the recall cache {path}: {exc}") from exc

    def _open(self, path: Path) -> None:
        # Used by one thread at a time (the MCP server serialises calls), not always the same.
        self.db = sqlite3.connect(path, timeout=_BUSY_SECONDS, check_same_thread=False)
        use_wal(self.db)
        # A cache may lose its last answers in a crash; it must not cost a disk flush.
        self.db.execute("PRAGMA synchronous=OFF")
        if not self._laid_out():
            self._create()
        self._recount()

    def _laid_out(self) -> bool:
        """Whether the file has this version's layout, every table and trigger of it."""
        if int(self.db.execute("PRAGMA user_version").fetchone()[0]) != SCHEMA:
            return False
        names = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}
        return names >= LAYOUT

    def _recount(self) -> None:
        """Set the size row to the real number of answers when it says otherwise (the file is
        not trusted: a size row edited to a negative number would stop every eviction)."""
        with self.db:
            self.db.execute(
                "UPDATE size SET n = (SELECT count(*) FROM answers) "
                "WHERE n != (SELECT count(*) FROM answers)"
            )

    def _create(self) -> None:
        """Lay the file out (an older layout is dropped: derived, so started again), in one
        write transaction: openers racing for a new file each see it done or do it."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if not self._laid_out():
                self.db.execute("DROP TABLE IF EXISTS answers")
                self.db.execute("DROP TABLE IF EXISTS size")
                self.db.execute(
                    "CREATE TABLE answers (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
                    "commit_sha TEXT NOT NULL, result TEXT NOT NULL)"
                )
                # how many answers there are, kept by SQLite itself on every insert and
                # delete (whoever writes), so an insert knows what to evict without a walk
                self.db.execute("CREATE TABLE size (n INTEGER NOT NULL)")
                self.db.execute("INSERT INTO size VALUES (0)")
                self.db.execute(
                    "CREATE TRIGGER answers_in AFTER INSERT ON answers "
                    "BEGIN UPDATE size SET n = n + 1; END"
                )
                self.db.execute(
                    "CREATE TRIGGER answers_out AFTER DELETE ON answers "
                    "BEGIN UPDATE size SET n = n - 1; END"
                )
                self.db.execute(f"PRAGMA user_version={SCHEMA}")
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise

    def get(self, key: str, text: str) -> RecallResult | None:
        """The cached answer under ``key`` (asked as ``text``), now the most recently used;
        CacheUnreadable when the row is not an answer or the file cannot be read."""
        try:
            row = self.db.execute(
                "SELECT seq, result FROM answers WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                return None
            result = answer_from_record(json.loads(row[1]), text)
            self._touch(int(row[0]))
            return result
        except (sqlite3.Error, ValueError, KeyError, TypeError, IndexError) as exc:
            raise CacheUnreadable(f"the recall cache could not be read ({exc!r})") from exc

    def _touch(self, seq: int) -> None:
        newest = self._newest()
        if seq != newest:
            with self.db:
                self.db.execute("UPDATE answers SET seq = ? WHERE seq = ?", (newest + 1, seq))

    def _newest(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(seq), 0) FROM answers").fetchone()[0])

    def put(self, key: str, sha: str, result: RecallResult) -> None:
        """Keep ``result`` under ``key`` (replacing any answer there), evicting the least
        recently used answers past the capacity."""
        record = json.dumps(answer_record(result))
        try:
            with self.db:
                self.db.execute("DELETE FROM answers WHERE key = ?", (key,))
                self.db.execute(
                    "INSERT INTO answers (key, commit_sha, result) VALUES (?, ?, ?)",
                    (key, sha, record),
                )
                self._evict()
        except sqlite3.Error as exc:
            raise CacheUnreadable(f"the recall cache could not be written ({exc!r})") from exc

    def _evict(self) -> None:
        """Drop the least recently used answers past the ``capacity`` most recent: the size
        row says how many (a hit leaves a gap in ``seq``, so the newest seq minus the capacity
        would drop more than it should), and each goes by its rowid, the oldest first."""
        over = self.count() - self.capacity
        if over > 0:
            self.db.execute(
                "DELETE FROM answers WHERE seq IN (SELECT seq FROM answers ORDER BY seq LIMIT ?)",
                (over,),
            )

    def count(self) -> int:
        """How many answers the cache holds."""
        return int(self.db.execute("SELECT n FROM size").fetchone()[0])

    def clear(self) -> None:
        """Forget every answer."""
        with self.db:
            self.db.execute("DELETE FROM answers")

    def close(self) -> None:
        """Close the file (a later use needs a new RecallCache)."""
        if getattr(self, "db", None) is not None:
            self.db.close()


def answer_record(result: RecallResult) -> dict[str, Any]:
    """What the cache stores of an answer: its record, with every hit's fields as they are
    (full-precision scores, fields added to RecallHit later included)."""
    record = result.to_record(one_list=False)  # ``entries`` would repeat ``hits``
    names = [f.name for f in dataclasses.fields(RecallHit)]
    # shallow (dataclasses.asdict deep-copies every frontmatter: 30% of a put's time)
    record["hits"] = [{name: getattr(h, name) for name in names} for h in result.hits]
    return record


def answer_from_record(data: dict[str, Any], text: str) -> RecallResult:
    """The answer a cache record holds, marked as a cache hit and asked as ``text``."""
    hits = [_hit_from(h) for h in data["hits"]]
    return RecallResult(
        text,
        hits,
        list(data["layers"]),
        int(data["total_tokens"]),
        bool(data["truncated"]),
        str(data["commit"]),
        cache_hit=True,
        candidates=int(data["candidates"]),
        index_summary=data.get("index_summary") or {},
        page_index_class=data.get("page_index_class") or "",
    )


def _hit_from(fields: dict[str, Any]) -> RecallHit:
    values: dict[str, Any] = {k: tuple(v) if k in _TUPLE_FIELDS else v for k, v in fields.items()}
    return RecallHit(**values)
