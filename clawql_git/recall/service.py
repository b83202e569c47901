"""Recall as a vault offers it: an index kept at HEAD (or built for a past commit), the recall
cache, session-start summaries and the category tree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from clawql_git.audit.chain import AuditChain, ReadHit
from clawql_git.errors import NotFound, StorageError
from clawql_git.gitstore import Commit, GitStore
from clawql_git.index.categories import category_tree
from clawql_git.index.integrity import IndexCheck, Truth, check_index
from clawql_git.index.store import BuildReport, SearchIndex
from clawql_git.model.entry import parse_timestamp
from clawql_git.model.progress import Progress
from clawql_git.recall import code_labels
from clawql_git.recall.cache import (
    CACHE_CAPACITY,
    CacheUnreadable,
    RecallCache,
    cache_key,
    remove_cache,
)
from clawql_git.recall.checks import checked, describe
from clawql_git.recall.layers import ExternalLayers, read_hit, with_layers
from clawql_git.recall.pipeline import Recaller, RecallQuery, RecallResult, save_derived
from clawql_git.recall.query_vectors import QueryVectors

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder

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
    cache_capacity: int = CACHE_CAPACITY
    # Check every hit against its commit before serving it (``recall/checks.py``). Off only
    # to measure what the check costs (bench/recall_speed.py --unchecked).
    check_hits: bool = True

    def __post_init__(self) -> None:
        self.index = SearchIndex(self.store, self.embedder)
        self._at: dict[str, SearchIndex] = {}
        self.query_vectors = QueryVectors()
        self._head: Commit | None = None
        self._cache: RecallCache | None = None
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
        key = cache_key(str(commit.id), index.embedder_id, q)
        warnings: list[str] = []
        if q.use_cache:  # looked up by key before the query is embedded: a hit needs no vector
            cached = self._cached(key, q, commit, warnings)
            if cached is not None:
                cached.index_note = _note(report)
                return cached, index, commit
        wants_vector = q.backend in ("auto", "hybrid", "vector")
        embedder = self.embedder if wants_vector else None
        query_vector, on_thread = self.query_vectors.vector(embedder, q.text)
        recaller = Recaller(index)
        if on_thread:  # the question is embedded meanwhile (the model may still be loading)
            index.loaded()  # read the rows (any answer needs them)
            recaller.prefetch(q)  # start the full-text search, survey the catalog
        missing = index.missing_vectors() if wants_vector and self.embedder is not None else ""
        qvec, skipped = _vector_or_skip(query_vector, missing)
        result = self._fresh(index, commit, q, qvec, skipped, warnings, recaller)
        result.index_note = _note(report)
        if q.use_cache and not result.skipped_layers:
            self._remember(key, str(commit.id), result)
        return result, index, commit

    def _remember(self, key: str, sha: str, result: RecallResult) -> None:
        """Cache a full answer (one with skipped layers is not: it would outlive the outage)."""
        try:
            self.cache().put(key, sha, result)
        except CacheUnreadable as exc:
            self.reset_cache()
            result.warnings.append(f"{exc.message}: the cache was reset")

    def _cached(
        self, key: str, q: RecallQuery, commit: Commit, warnings: list[str]
    ) -> RecallResult | None:
        """The cached answer when every hit in it is what the commit holds; a cached answer
        that is not is dropped (with the rest of the cache) and the question answered again."""
        try:
            cached = self.cache().get(key, q.text)
        except CacheUnreadable as exc:
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
            f"the recall cache's answer did not match git:{commit.id} ({describe(bad)}): "
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
        recaller: Recaller | None = None,
    ) -> RecallResult:
        """The pipeline's answer, every hit checked: when the index gave one the commit does
        not hold, the index is rebuilt from the commit and asked again; a hit that still does
        not match is left out."""
        sha = str(commit.id)
        result = (recaller or Recaller(index)).recall(q, sha, qvec, skipped)
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

    def cache(self) -> RecallCache:
        """The recall cache, opened once (opening it costs more than a lookup)."""
        if self._cache is None:
            path = self.store.state_dir / "recall-cache.sqlite"
            self._cache = RecallCache(path, self.cache_capacity)
        return self._cache

    def reset_cache(self) -> None:
        """Delete the recall cache file (it is derived: the next answer starts a new one)."""
        self.close()
        remove_cache(self.store.state_dir / "recall-cache.sqlite")

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
        loaded = self.index.loaded()
        save_derived(loaded)
        loaded.reserve()  # room to append into: the first write does not copy the vectors
        loaded.chunk_rows(), loaded.entry_index(), loaded.chunk_offsets()  # extended on writes
        for name in ("chunks", "chunks#async", "entries"):
            self.index.table(name)

    def tree(self) -> dict[str, int]:
        """category path -> number of entries under it."""
        self.ensure()
        return {k: len(v) for k, v in category_tree(self.index.loaded().entries).items() if k}


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
