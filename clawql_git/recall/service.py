"""Recall as a vault offers it: an index kept at HEAD (or built for a past commit), the recall
cache, session-start summaries and the category tree."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.audit.chain import AuditChain, ReadHit
from clawql_git.errors import NotFound, StorageError
from clawql_git.gitstore import Commit, GitStore
from clawql_git.index.categories import category_tree
from clawql_git.index.embedders import is_ready
from clawql_git.index.integrity import IndexCheck, Truth, check_index
from clawql_git.index.store import BuildReport, SearchIndex
from clawql_git.model.entry import parse_timestamp
from clawql_git.model.progress import Progress
from clawql_git.recall import code_labels
from clawql_git.recall.checks import checked, describe
from clawql_git.recall.layers import ExternalLayers, read_hit, with_layers
from clawql_git.recall.pipeline import Recaller, RecallQuery, RecallResult, save_derived

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder

CACHE_THRESHOLD = 0.92
VECTOR_LAYERS = ("vector", "entry_vector")


@dataclass(frozen=True)
class Asker:
    """Who recalls: recorded with every recall on the audit chain."""

    agent_id: str = ""
    session_id: str = ""
    correlation_id: str = ""
    record: bool = True


def resolve_at(store: GitStore, at: str) -> Commit:
    """A revision, or a date/time meaning the last first-parent commit at or before it."""
    try:
        when = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return store.resolve(at)
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    if len(at) == 10:  # a plain date means the end of that day
        when += timedelta(days=1) - timedelta(seconds=1)
    for commit in store.walk(store.head_commit()):
        if commit.commit_time <= when.timestamp():
            return commit
    raise NotFound(f"the vault has no commit at or before {at}")


@dataclass
class RecallService:
    """Owns the search index of a vault and answers recall queries."""

    store: GitStore
    embedder: Embedder | None
    cache_threshold: float = CACHE_THRESHOLD
    # Check every hit against its commit before serving it (``recall/checks.py``). Off only
    # to measure what the check costs (bench/recall_speed.py --unchecked).
    check_hits: bool = True

    def __post_init__(self) -> None:
        self.index = SearchIndex(self.store, self.embedder)
        self._at: dict[str, SearchIndex] = {}
        self._head: Commit | None = None
        self._cache: _RecallCache | None = None
        self.truth = Truth(self.store)

    def head(self) -> Commit:
        """HEAD's commit. The object is kept while the ref points at it: libgit2 does not cache
        commits over 4 KB (an import's message lists every path), and reading one again costs
        a millisecond or more on every query."""
        target = self.store.ref_target(self.store.head_ref_name())
        if self._head is None or str(self._head.id) != target:
            self._head = self.store.head_commit()
        if self._head is None:
            raise NotFound("the vault has no commits yet")
        return self._head

    def close(self) -> None:
        """Close the recall cache (reopened on the next query)."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def ensure(self, progress: Progress | None = None) -> BuildReport:
        """Catch the index up with HEAD (rebuilding when it is missing or incompatible)."""
        return self.index.ensure(self.head(), progress)

    def rebuild(self, at: str | None = None, progress: Progress | None = None) -> BuildReport:
        """Rebuild the index from the tree of ``at`` (default HEAD)."""
        commit = resolve_at(self.store, at) if at else self.head()
        return self.index.rebuild(commit, progress)

    def index_for(
        self, at: str | None, progress: Progress | None = None
    ) -> tuple[SearchIndex, Commit, BuildReport]:
        """The index to answer from: HEAD's, or one built for a past commit (cheap: vectors
        come from the content-hash cache); ``progress`` hears of any build on the way."""
        if at is None:
            report = self.ensure(progress)
            return self.index, self.head(), report
        commit = resolve_at(self.store, at)
        sha = str(commit.id)
        if sha == str(self.head().id):
            return self.index, commit, self.ensure(progress)
        if sha not in self._at:
            root = self.store.state_dir / "index-at" / sha
            self._at[sha] = SearchIndex(self.store, self.embedder, root)
        return self._at[sha], commit, self._at[sha].ensure(commit, progress)

    def recall(
        self,
        q: RecallQuery,
        at: str | None = None,
        reader: Asker | None = None,
        progress: Progress | None = None,
        external: ExternalLayers | None = None,
    ) -> RecallResult:
        """Answer a query (from the cache when HEAD has not moved since the same question) and
        record what was read on the audit chain; ``progress`` hears of an index build (the
        first recall builds the index). The answer is one list: the ``external`` layers (code
        graph, Onyx) are merged in, live, for a recall at HEAD (``recall/layers.py``)."""
        result, index, commit = self._answer(q, at, progress)
        result.hits = code_labels.labelled(self.store.state_dir, result.hits)
        result = with_layers(result, q, external if at is None else None)
        if reader is not None and reader.record:
            self._record(result, index, commit, q, reader)
        return result

    def _record(
        self,
        result: RecallResult,
        index: SearchIndex,
        commit: Commit,
        q: RecallQuery,
        reader: Asker,
    ) -> None:
        hits = [
            self._read_hit(index, commit, h.path) if h.source_layer == "vault" else read_hit(h)
            for h in result.hits
        ]
        event = "MEMORY_CACHE_HIT" if result.cache_hit else "MEMORY_RECALL"
        extra = [
            ("Cache-Hit", str(result.cache_hit).lower()),
            ("Allow-PII", str(q.allow_pii).lower()),
        ]
        outside = sorted({h.source_layer for h in result.hits} - {"vault"})
        if outside:
            extra.append(("Source-Layers", ",".join(["vault", *outside])))
        sha = AuditChain(self.store).record(
            event,
            commit,
            reader.agent_id,
            reader.session_id,
            reader.correlation_id,
            q.text,
            hits,
            extra,
        )
        result.audit_ref = f"git:{sha}"

    def _read_hit(self, index: SearchIndex, commit: Commit, path: str) -> ReadHit:
        """What the chain records of a hit: its blob and classification from the commit
        (when hits are checked), else from the index row."""
        known = self.truth.known(commit.tree, path) if self.check_hits else None
        if known is not None:
            return ReadHit(path, known.record.blob, str(known.row["pii"]))
        row = index.loaded().entries.get(path, {})
        return ReadHit(path, str(row.get("blob", "")), str(row.get("pii", "")))

    def _answer(
        self, q: RecallQuery, at: str | None, progress: Progress | None = None
    ) -> tuple[RecallResult, SearchIndex, Commit]:
        index, commit, report = self.index_for(at, progress)
        wants_vector = q.backend in ("auto", "hybrid", "vector")
        query_vector, on_thread = _embed_query(self.embedder if wants_vector else None, q.text)
        if on_thread:
            index.loaded()  # the model loads meanwhile: read the rows (any answer needs them)
        sha = str(commit.id)
        missing = index.missing_vectors() if wants_vector and self.embedder is not None else ""
        qvec, skipped = _vector_or_skip(query_vector, missing)
        params = f"{index.embedder_id}|{q.cache_key()}"
        warnings: list[str] = []
        if q.use_cache:
            cached = self._cached(sha, params, q, qvec, commit, warnings)
            if cached is not None:
                cached.index_note = _note(report)
                return cached, index, commit
        result = self._fresh(index, commit, q, qvec, skipped, warnings)
        result.index_note = _note(report)
        if q.use_cache and not result.skipped_layers:
            self._remember(sha, params, q, qvec, result)
        return result, index, commit

    def _remember(
        self, sha: str, params: str, q: RecallQuery, qvec: Any, result: RecallResult
    ) -> None:
        """Cache a full answer (one with skipped layers is not: it would outlive the outage)."""
        try:
            self.cache().put(sha, params, q, qvec, result)
        except _CacheUnreadable as exc:
            self.reset_cache()
            result.warnings.append(f"{exc.message}: the cache was reset")

    def _cached(
        self,
        sha: str,
        params: str,
        q: RecallQuery,
        qvec: Any,
        commit: Commit,
        warnings: list[str],
    ) -> RecallResult | None:
        """The cached answer when every hit in it is what the commit holds; a cached answer
        that is not is dropped (with the rest of the cache) and the question answered again."""
        try:
            cached = self.cache().get(sha, params, q, qvec, self.cache_threshold)
        except _CacheUnreadable as exc:
            self.reset_cache()
            warnings.append(f"{exc.message}: the cache was reset")
            return None
        if cached is None or not self.check_hits:
            return cached
        good, bad = checked(self.truth, commit, cached, q)
        if not bad:
            return good
        self.cache().clear()
        warnings.append(
            f"the recall cache's answer did not match git:{sha} ({describe(bad)}): "
            "the cache was cleared and the question answered from the index"
        )
        return None

    def _fresh(
        self,
        index: SearchIndex,
        commit: Commit,
        q: RecallQuery,
        qvec: Any,
        skipped: list[dict[str, str]],
        warnings: list[str],
    ) -> RecallResult:
        """The pipeline's answer, every hit checked: when the index gave one the commit does
        not hold, the index is rebuilt from the commit and asked again; a hit that still does
        not match is left out."""
        sha = str(commit.id)
        result = Recaller(index).recall(q, sha, qvec, skipped)
        save_derived(index.loaded())
        if not self.check_hits:
            return result
        good, bad = checked(self.truth, commit, result, q)
        if bad:
            index.rebuild(commit)
            warnings.append(
                f"index rows did not match git:{sha} ({describe(bad)}): "
                "the index was rebuilt from the commit"
            )
            good, bad = checked(
                self.truth, commit, Recaller(index).recall(q, sha, qvec, skipped), q
            )
            if bad:
                warnings.append(f"left out, not what the commit holds: {describe(bad)}")
        good.warnings = warnings
        return good

    def check_index(self) -> IndexCheck:
        """Whether HEAD's index matches the commit it is stamped with (``verify --index``)."""
        return check_index(self.store, self.index)

    def cache(self) -> _RecallCache:
        """The recall cache, opened once (opening it costs more than a lookup)."""
        if self._cache is None:
            self._cache = _RecallCache(self.store.state_dir / "recall-cache.sqlite")
        return self._cache

    def reset_cache(self) -> None:
        """Delete the recall cache file (it is derived: the next answer starts a new one)."""
        self.close()
        _remove_cache(self.store.state_dir / "recall-cache.sqlite")

    def status(self) -> dict[str, Any]:
        """The stamp, and how far it is behind HEAD."""
        stamp = self.index.stamp()
        head = self.store.head_commit()
        out: dict[str, Any] = {
            "path": str(self.index.root),
            "head": str(head.id) if head else None,
            "embedder": self.index.embedder_id,
            "stamp": stamp.__dict__ if stamp else None,
        }
        if stamp is not None and head is not None:
            out["behind"] = _behind(self.store, head, stamp.commit)
            out["current"] = stamp.commit == str(head.id) and self.index.compatible(stamp)
        else:
            out["behind"] = None
            out["current"] = False
        return out

    def warm(self) -> None:
        """Load what a recall holds in memory (index rows, category tree, link graph) and open
        the tables, so the first recall of a long-lived process is as fast as the next."""
        self.ensure()
        recaller = Recaller(self.index)
        recaller.link_graph()
        recaller.tree()
        save_derived(self.index.loaded())
        for name in ("chunks", "chunks#async", "entries"):
            self.index.table(name)

    def tree(self) -> dict[str, int]:
        """category path -> number of entries under it."""
        self.ensure()
        return {k: len(v) for k, v in category_tree(self.index.loaded().entries).items() if k}


def _no_vector() -> None:
    return None


def _embed_query(embedder: Embedder | None, text: str) -> tuple[Callable[[], Any], bool]:
    """The query's vector, as a call that returns it, and whether it is being computed on a
    thread. When the model still has to load (the first recall of a process) it loads and
    embeds on a thread while the caller reads the index: in a cold `clawql memory recall` the
    model's start-up and LanceDB's import then overlap instead of adding up."""
    if embedder is None:
        return _no_vector, False
    if is_ready(embedder):
        return (lambda: embedder.embed_query(text)), False
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clawql-embed")
    future = pool.submit(embedder.embed_query, text)
    pool.shutdown(wait=False)
    return future.result, True


def _vector_or_skip(
    query_vector: Callable[[], Any], missing: str
) -> tuple[Any, list[dict[str, str]]]:
    """The query's vector, or None and the vector layers skipped with the reason: the index
    was built without vectors, or the embedder cannot embed now (recall fails open)."""
    reason = f"the index has no vectors: {missing}" if missing else ""
    try:
        qvec = query_vector()
    except StorageError as exc:
        qvec, reason = None, reason or exc.message
    if not reason:
        return qvec, []
    return None, [{"layer": layer, "reason": reason} for layer in VECTOR_LAYERS]


def _behind(store: GitStore, head: Commit, sha: str) -> int | None:
    for n, commit in enumerate(store.walk(head)):
        if str(commit.id) == sha:
            return n
        if n > 100_000:
            break
    return None


def _note(report: BuildReport) -> str:
    if report.mode == "rebuild":
        return f"index rebuilt ({report.reason}): {report.entries} entries in {report.seconds:.1f}s"
    if report.mode == "update":
        return f"index caught up: {report.changed} changed entries"
    return ""


_BUSY_SECONDS = 30.0


def _use_wal(db: sqlite3.Connection) -> None:
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


class _CacheUnreadable(StorageError):
    """A cached answer that is not an answer (never leaves this module: the cache is reset)."""


def _remove_cache(path: Path) -> None:
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
        path.with_name(name).unlink(missing_ok=True)


class _RecallCache:
    """Answers keyed by (commit, parameters, query); near-identical queries match by embedding.
    Nothing in it is trusted: the service checks every answer against its commit."""

    def __init__(self, path: Path) -> None:
        try:
            self._open(path)
        except sqlite3.OperationalError as exc:  # locked, unwritable: not ours to delete
            raise StorageError(f"cannot open the recall cache {path}: {exc}") from exc
        except sqlite3.DatabaseError:  # not a database (garbage written over it): derived,
            self.close()  # so it is started again
            _remove_cache(path)
            try:
                self._open(path)
            except sqlite3.Error as exc:
                raise StorageError(f"cannot open the recall cache {path}: {exc}") from exc

    def _open(self, path: Path) -> None:
        # Used by one thread at a time (the MCP server serialises calls), not always the same.
        self.db = sqlite3.connect(path, timeout=_BUSY_SECONDS, check_same_thread=False)
        _use_wal(self.db)
        # A cache may lose its last answers in a crash; it must not cost a disk flush.
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS answers (commit_sha TEXT, params TEXT, query TEXT, "
            "vec BLOB, result TEXT, created REAL)"
        )

    def get(
        self, sha: str, params: str, q: RecallQuery, qvec: Any, threshold: float
    ) -> RecallResult | None:
        """The cached answer to ``q`` at ``sha``; _CacheUnreadable when a row is not one."""
        try:
            return self._get(sha, params, q, qvec, threshold)
        except (sqlite3.Error, ValueError, KeyError, TypeError, IndexError) as exc:
            raise _CacheUnreadable(f"the recall cache could not be read ({exc!r})") from exc

    def _get(
        self, sha: str, params: str, q: RecallQuery, qvec: Any, threshold: float
    ) -> RecallResult | None:
        import numpy as np

        rows = self.db.execute(
            "SELECT query, vec, result FROM answers WHERE commit_sha = ? AND params = ?",
            (sha, params),
        ).fetchall()
        norm = " ".join(q.text.lower().split())
        for query, vec, result in rows:
            same = query == norm
            near = (
                qvec is not None
                and vec is not None
                and len(vec) == 4 * len(qvec)
                and float(np.frombuffer(vec, dtype=np.float32) @ qvec) >= threshold
            )
            if same or near:
                return _from_json(json.loads(result), q.text)
        return None

    def put(self, sha: str, params: str, q: RecallQuery, qvec: Any, result: RecallResult) -> None:
        vec = qvec.astype("float32").tobytes() if qvec is not None else None
        norm = " ".join(q.text.lower().split())
        try:
            with self.db:
                self.db.execute("DELETE FROM answers WHERE commit_sha != ?", (sha,))
                self.db.execute(
                    "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                    (sha, params, norm, vec, _stored(result), time.time()),
                )
        except sqlite3.Error as exc:
            raise _CacheUnreadable(f"the recall cache could not be written ({exc!r})") from exc

    def clear(self) -> None:
        """Forget every answer."""
        with self.db:
            self.db.execute("DELETE FROM answers")

    def close(self) -> None:
        if getattr(self, "db", None) is not None:
            self.db.close()


def _stored(result: RecallResult) -> str:
    return json.dumps(result.to_record(one_list=False))  # ``entries`` would repeat ``hits``


def _from_json(data: dict[str, Any], text: str) -> RecallResult:
    from clawql_git.recall.pipeline import RecallHit

    hits = [
        RecallHit(
            h["path"],
            h["title"],
            h["type"],
            h["score"],
            tuple(h["layers"]),
            h["worm_ref"],
            h["snippet"],
            h["tokens"],
            h["frontmatter"],
            h["superseded_by"] or "",
        )
        for h in data["hits"]
    ]
    result = RecallResult(
        text,
        hits,
        data["layers"],
        data["total_tokens"],
        data["truncated"],
        data["commit"],
        cache_hit=True,
        candidates=data["candidates"],
        index_summary=data.get("index_summary") or {},
        page_index_class=data.get("page_index_class") or "",
    )
    return replace(result, index_note="")


def recent_summary(
    entries: list[Any], log: list[Any], days: int, project: str | None, now: datetime
) -> dict[str, Any]:
    """What was worked on recently and the latest context entries, in a few hundred tokens."""
    since = now - timedelta(days=days)
    recent = [r for r in log if r.when >= since]
    if project is not None:  # the activity too: only events that touched the project's entries
        mine = {e.path for e in entries if e.meta.get("project") == project}
        recent = [replace(r, paths=tuple(p for p in r.paths if p in mine)) for r in recent]
        recent = [r for r in recent if r.paths]
    touched = Counter(p for r in recent for p in r.paths)
    contexts = [
        e
        for e in entries
        if e.type == "context"
        and e.status == "current"
        and (project is None or e.meta.get("project") == project)
    ]
    contexts.sort(key=_newest_first(recent), reverse=True)
    return {
        "since": since.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "events": len(recent),
        "worked_on": [{"path": p, "events": n} for p, n in touched.most_common(10)],
        "context": [
            {
                "path": e.path,
                "title": e.title,
                "timestamp": e.timestamp,
                "summary": (e.description or " ".join(e.body.split())[:280]),
            }
            for e in contexts[:5]
        ],
    }


def _newest_first(log: list[Any]) -> Any:
    """Sort key of context entries, newest first with ``reverse``: the instant of their
    timestamp (offsets and date-only stamps compared as times, not as strings), then, for
    two in the same second, the later commit (the log lists newest first)."""
    rank: dict[str, int] = {}
    for position, record in enumerate(log):
        for path in record.paths:
            rank.setdefault(path, position)

    def key(entry: Any) -> tuple[float, int]:
        try:
            when = parse_timestamp(entry.timestamp).timestamp() if entry.timestamp else 0.0
        except ValueError:
            when = 0.0
        return when, -rank.get(entry.path, len(log))

    return key
