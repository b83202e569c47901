"""The LanceDB index under $GIT_DIR/clawql/index: built from a commit, stamped, caught up from
tree diffs, compacted as writes accumulate; and the raw searches the recall pipeline fuses."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError, StorageError
from clawql_git.gitstore import Commit, GitStore
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.index import rows as schema
from clawql_git.index.builder import (
    EntryRecord,
    WormRefs,
    entry_paths,
    read_record,
)
from clawql_git.index.lance import import_lancedb, quote
from clawql_git.index.resident import Resident, load, refresh
from clawql_git.index.topk import matvec, top_indices
from clawql_git.index.vector_cache import VectorCache
from clawql_git.model.progress import Progress, phase

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np
    import pyarrow as pa

    from clawql_git.index.embedders import Embedder

SCHEMA_VERSION = 1
OPTIMIZE_EVERY = 20  # small writes between compactions (query time degrades without it)
# With background compaction (long-lived processes), a write compacts inline only this late.
OPTIMIZE_INLINE = 3 * OPTIMIZE_EVERY
# A compaction prunes versions older than this. Readers reopen the tables whenever the stamp
# moves, so none is still reading a version minutes old; a shorter time risks a query that
# started on a version just before it was pruned.
CLEANUP_AFTER = timedelta(minutes=10)
EMBED_BATCH = 64
# Chunks embedded between two progress reports: small enough that the first report (and an
# ETA) comes within a second or two on a loaded machine, large enough to batch well.
EMBED_STEP = 32
# The phases a build reports, each with its own count and total (model/progress.py).
READING, EMBEDDING, WRITING = "reading entries", "embedding chunks", "writing tables"


@dataclass(frozen=True)
class Stamp:
    """What an index was built from."""

    schema: int
    embedder: str
    commit: str
    writes: int = 0
    stale: bool = False
    # Why the tables have no vectors although an embedder is configured (it could not embed
    # when they were built): recall then answers without the vector layers and says why.
    no_vectors: str = ""

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


@dataclass
class BuildReport:
    """What a rebuild or update did."""

    commit: str
    mode: str  # "rebuild" | "update" | "current"
    entries: int = 0
    changed: int = 0
    embedded: int = 0
    seconds: float = 0.0
    reason: str = ""


@dataclass
class Hit:
    """A raw search result: an entry path, which chunk, and the layer's score."""

    path: str
    chunk: int
    score: float
    snippet: str = ""


@contextmanager
def lance_errors(what: str) -> Iterator[None]:
    """Translate LanceDB/Arrow failures into StorageError at the boundary."""
    try:
        yield
    except (OSError, ValueError, RuntimeError) as exc:
        raise StorageError(f"index {what} failed: {exc}") from exc


class SearchIndex:
    """The derived index of one vault (or of one historical commit, for time travel)."""

    def __init__(
        self,
        store: GitStore,
        embedder: Embedder | None,
        root: Path | None = None,
        background_compaction: bool = False,
    ):
        self.store = store
        # Compact in a thread after the write that makes it due, instead of inline (set by
        # long-lived processes such as the MCP server; a CLI call may exit before it ends).
        self.background_compaction = background_compaction
        self._compactor: threading.Thread | None = None
        self.embedder = embedder
        self.root = root or store.state_dir / "index"
        self.cache_path = store.state_dir / "vectors.sqlite"
        self._db: Any = None
        self._loaded: Resident | None = None
        self._loaded_for = ""
        self._tables: dict[str, Any] = {}
        self._tables_for = ""
        self._async_db: Any = None

    @property
    def embedder_id(self) -> str:
        return self.embedder.id if self.embedder is not None else "none"

    # ------------------------------------------------------------ stamp

    def stamp(self) -> Stamp | None:
        """The stamp of the index on disk, or None when there is no usable index."""
        try:
            data = json.loads((self.root / "stamp.json").read_text())
            return Stamp(**data)
        except (OSError, ValueError, TypeError):
            return None

    def _write_stamp(self, stamp: Stamp, root: Path | None = None) -> None:
        target = (root or self.root) / "stamp.json"
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(stamp.to_json())
        os.replace(tmp, target)

    @property
    def derived_path(self) -> Path:
        """Where the link graph and category tree of the current rows are saved
        (``index/snapshot.py``): beside the index folder, so a rebuild keeps it apart."""
        return self.root.with_name(self.root.name + ".derived")

    def _stamp_key(self) -> str:
        """Identifies the stamp on disk without parsing it: it is replaced atomically on every
        write, so its inode and mtime change (checked on every query, so kept cheap)."""
        try:
            st = (self.root / "stamp.json").stat()
        except FileNotFoundError:
            return ""
        return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"

    def mark_stale(self) -> None:
        """Record that the index may not match its stamp (a failed update)."""
        stamp = self.stamp()
        if stamp is not None:
            self._write_stamp(Stamp(**{**stamp.__dict__, "stale": True}))

    def compatible(self, stamp: Stamp | None) -> bool:
        return (
            stamp is not None
            and not stamp.stale
            and stamp.schema == SCHEMA_VERSION
            and stamp.embedder == self.embedder_id
        )

    def lock(self) -> Any:
        return exclusive_lock(self.store.state_dir / "index.lock")

    # ------------------------------------------------------------ building

    def ensure(self, commit: Commit, progress: Progress | None = None) -> BuildReport:
        """Bring the index to ``commit``: nothing, an incremental update, or a rebuild (also
        when the tables were built without vectors and the embedder answers again)."""
        stamp = self.stamp()
        if (
            self.compatible(stamp)
            and stamp is not None
            and stamp.commit == str(commit.id)
            and not (stamp.no_vectors and self._embedder_answers())
        ):
            return BuildReport(str(commit.id), "current")
        with self.lock():
            stamp = self.stamp()
            if not self.compatible(stamp) or stamp is None:
                reason = _why_rebuild(stamp, self.embedder_id)
            elif stamp.no_vectors and self._embedder_answers():
                reason = "the embedder answers again: the vectors are added"
            elif stamp.commit == str(commit.id):
                return BuildReport(str(commit.id), "current")
            else:
                return self._update(stamp, commit, progress)
            report = self._rebuild(commit, progress)
            report.reason = reason
            return report

    def _embedder_answers(self) -> bool:
        """Whether the embedder embeds now (one short request for a remote one): asked only of
        an index built without vectors because it could not."""
        if self.embedder is None:
            return False
        try:
            self.embedder.embed(["clawql embedder probe"])
        except StorageError:
            return False
        return True

    def missing_vectors(self) -> str:
        """Why the tables have no vectors although an embedder is configured (``""`` when
        they have them, or no embedder is configured)."""
        stamp = self.stamp()
        return stamp.no_vectors if stamp is not None else ""

    def rebuild(self, commit: Commit, progress: Progress | None = None) -> BuildReport:
        """Build the index from scratch from ``commit``'s tree (vectors come from the cache)."""
        with self.lock():
            return self._rebuild(commit, progress)

    def _rebuild(
        self, commit: Commit, progress: Progress | None, no_vectors: str = ""
    ) -> BuildReport:
        """Build from ``commit``'s tree; without vectors when the embedder cannot embed (or
        ``no_vectors`` already says why it cannot): full text, catalog and tree still answer."""
        start = time.perf_counter()
        paths = list(entry_paths(self.store, commit.tree))
        records = self._records(commit, paths, progress)
        tmp = self.root.with_name(f"{self.root.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        embedded, no_vectors = self._write_tables(tmp, records, progress, no_vectors)
        stamp = Stamp(SCHEMA_VERSION, self.embedder_id, str(commit.id), no_vectors=no_vectors)
        self._write_stamp(stamp, tmp)
        self._swap_in(tmp)
        return BuildReport(
            str(commit.id),
            "rebuild",
            len(records),
            len(records),
            embedded,
            time.perf_counter() - start,
        )

    def _records(
        self, commit: Commit, paths: Sequence[str], progress: Progress | None
    ) -> list[EntryRecord]:
        refs = WormRefs()
        refs.fill(self.store, commit, paths)
        records = []
        report = phase(progress, READING, len(paths))
        for n, path in enumerate(paths, 1):
            rec = read_record(self.store, commit.tree, path)
            if rec is not None:
                records.append(_with_ref(rec, refs.refs.get(path, str(commit.id))))
            report(n)
        return records

    def _swap_in(self, tmp: Path) -> None:
        self._db = None
        self._async_db = None
        self._loaded = None
        self._tables = {}
        old = self.root.with_name(f"{self.root.name}.old-{os.getpid()}")
        if self.root.exists():
            os.replace(self.root, old)
        os.replace(tmp, self.root)
        shutil.rmtree(old, ignore_errors=True)

    def _vectors(self, texts: list[str], progress: Progress | None) -> tuple[Any, int]:
        if self.embedder is None or not texts:
            return None, 0
        import numpy as np

        cache = VectorCache(self.cache_path)
        counting = _Counter(self.embedder)
        parts = []
        report = phase(progress, EMBEDDING, len(texts))
        try:
            for start in range(0, len(texts), EMBED_STEP):
                parts.append(cache.embed(counting, texts[start : start + EMBED_STEP]))
                report(min(start + EMBED_STEP, len(texts)))
        finally:
            cache.close()
        return np.concatenate(parts), counting.count

    def _write_tables(
        self, root: Path, records: list[EntryRecord], progress: Progress | None, no_vectors: str
    ) -> tuple[int, str]:
        """Write the four tables and their indexes; what was embedded, and why there are no
        vectors when the embedder could not embed (``""`` when it could)."""
        from clawql_git.index.lance import import_lancedb

        lancedb = import_lancedb()
        from lancedb.index import FTS, BTree

        chunk_rows = [schema.chunk_row(r, c) for r in records for c in r.chunks]
        vectors, embedded = None, 0
        if not no_vectors:
            try:
                vectors, embedded = self._vectors([c["text"] for c in chunk_rows], progress)
            except StorageError as exc:  # fail open: the tables without vectors
                no_vectors = exc.message
        with_vectors = self.embedder is not None and not no_vectors
        fts = FTS(stem=True, remove_stop_words=True, language="English")
        indexes = [("chunks", "text", fts), ("entries", "catalog", fts)] + [
            (table, column, BTree())
            for table, column in (("chunks", "path"), ("entries", "path"), ("links", "source"))
        ]
        report = phase(progress, WRITING, 4 + len(indexes))  # four tables, then indexes
        with lance_errors("build"):
            db = lancedb.connect(str(root))
            entries = self._entries_table(records, chunk_rows, vectors, with_vectors)
            db.create_table("entries", entries, mode="overwrite")
            report(1)
            chunks = self._chunks_table(chunk_rows, vectors, with_vectors)
            db.create_table("chunks", chunks, mode="overwrite")
            report(2)
            db.create_table(
                "links", schema.links_table([link for r in records for link in schema.links(r)])
            )
            report(3)
            db.create_table(
                "categories", schema.categories_table(r.page_index_path for r in records)
            )
            report(4)
            for n, (table, column, config) in enumerate(indexes, 5):
                db.open_table(table).create_index(column, config=config, replace=True)
                report(n)
        return embedded, no_vectors

    def _entries_table(
        self,
        records: list[EntryRecord],
        chunk_rows: list[dict[str, Any]],
        vectors: Any,
        with_vectors: bool,
    ) -> pa.Table:
        import pyarrow as pa

        rows = [r.row() for r in records]
        table = (
            pa.Table.from_pylist(rows, schema=schema.entry_schema())
            if rows
            else schema.empty_entries()
        )
        if self.embedder is None or not with_vectors:
            return table
        dim = self.embedder.dim
        mean = schema.entry_means(records, chunk_rows, vectors, dim) if vectors is not None else []
        return table.append_column("vector", pa.array(list(mean), schema.vector_type(dim)))

    def _chunks_table(
        self, rows: list[dict[str, Any]], vectors: Any, with_vectors: bool
    ) -> pa.Table:
        import pyarrow as pa

        table = (
            pa.Table.from_pylist(rows, schema=schema.chunk_schema())
            if rows
            else schema.empty_chunks()
        )
        if self.embedder is None or not with_vectors:
            return table
        values = list(vectors) if vectors is not None else []
        return table.append_column(
            "vector", pa.array(values, schema.vector_type(self.embedder.dim))
        )

    def _update(self, stamp: Stamp, commit: Commit, progress: Progress | None) -> BuildReport:
        start = time.perf_counter()
        old = self.store.commit_of(stamp.commit)
        if old is None:
            return self._rebuild(commit, progress)
        changed = [p for p, _, _ in self.store.diff_paths(old.tree, commit.tree) if _is_entry(p)]
        try:
            embedded = self._apply(commit, changed, progress, not stamp.no_vectors)
        except _CannotEmbed as exc:  # fail open: the tables again, without vectors
            report = self._rebuild(commit, progress, exc.reason)
            report.reason = f"the embedder cannot embed: {exc.reason}"
            return report
        except (ClawqlError, OSError, ValueError, RuntimeError):
            self.mark_stale()
            raise
        writes = stamp.writes + 1
        if writes >= (OPTIMIZE_INLINE if self.background_compaction else OPTIMIZE_EVERY):
            self._optimize()
            writes = 0
        self._write_stamp(
            Stamp(SCHEMA_VERSION, self.embedder_id, str(commit.id), writes, False, stamp.no_vectors)
        )
        if self.background_compaction and writes >= OPTIMIZE_EVERY:
            self._compact_later()
        return BuildReport(
            str(commit.id), "update", -1, len(changed), embedded, time.perf_counter() - start
        )

    def _apply(
        self, commit: Commit, changed: list[str], progress: Progress | None, with_vectors: bool
    ) -> int:
        if not changed:
            return 0
        refs = WormRefs()
        refs.fill(self.store, commit, changed)
        records = []
        report = phase(progress, READING, len(changed))
        for n, path in enumerate(changed, 1):
            rec = read_record(self.store, commit.tree, path)
            if rec is not None:
                records.append(_with_ref(rec, refs.refs.get(path, str(commit.id))))
            report(n)
        chunk_rows = [schema.chunk_row(r, c) for r in records for c in r.chunks]
        vectors, embedded = None, 0
        if with_vectors:
            try:  # before any table is touched: a failure leaves them as they were
                vectors, embedded = self._vectors([c["text"] for c in chunk_rows], progress)
            except StorageError as exc:
                raise _CannotEmbed(exc.message) from exc
        db = self.db()
        condition = "path IN (" + ", ".join(quote(p) for p in changed) + ")"
        with lance_errors("update"):
            db.open_table("entries").delete(condition)
            db.open_table("chunks").delete(condition)
            db.open_table("links").delete(condition.replace("path IN", "source IN", 1))
            if records:
                entries = self._entries_table(records, chunk_rows, vectors, with_vectors)
                db.open_table("entries").add(entries)
                db.open_table("chunks").add(self._chunks_table(chunk_rows, vectors, with_vectors))
                links = [link for r in records for link in schema.links(r)]
                if links:
                    db.open_table("links").add(schema.links_table(links))
            self._refresh_categories(db)
        return embedded

    def _refresh_categories(self, db: Any) -> None:
        """The categories table is small: rewrite it from the entries' page_index_path."""
        rows = db.open_table("entries").search().select(["page_index_path"]).limit(None)
        paths = rows.to_arrow().column("page_index_path").to_pylist()
        db.create_table("categories", schema.categories_table(paths), mode="overwrite")

    def _optimize(self) -> None:
        with lance_errors("optimize"):
            for name in ("entries", "chunks", "links"):
                self.db().open_table(name).optimize(cleanup_older_than=CLEANUP_AFTER)

    def compact(self) -> bool:
        """Compact the tables and prune old versions now if enough writes are waiting for it;
        whether it ran. Holds the index lock, so updates wait for it rather than race it."""
        with self.lock():
            stamp = self.stamp()
            if stamp is None or not self.compatible(stamp) or stamp.writes < OPTIMIZE_EVERY:
                return False
            self._optimize()
            self._write_stamp(replace(stamp, writes=0))
        return True

    def _compact_later(self) -> None:
        """Compact in a thread, on a connection of its own (the tables' rows do not change, so
        queries in the meantime answer the same; they reopen the tables afterwards)."""
        if self._compactor is not None and self._compactor.is_alive():
            return
        worker = SearchIndex(self.store, self.embedder, self.root)
        self._compactor = threading.Thread(
            target=worker.compact_quietly, name="clawql-index-compact"
        )
        self._compactor.start()

    def compact_quietly(self) -> None:
        """``compact``, for a background thread: a failed compaction changes no rows, so it is
        only left for the next write to try again."""
        with suppress(ClawqlError):
            self.compact()

    def wait_for_compaction(self) -> None:
        """Wait until a background compaction started by this index has finished."""
        if self._compactor is not None:
            self._compactor.join()

    # ------------------------------------------------------------ queries

    def db(self) -> Any:
        if self._db is None:
            lancedb = import_lancedb()
            with lance_errors("open"):
                self._db = lancedb.connect(str(self.root))
        return self._db

    def fts(self, query: str, limit: int, where: str | None = None) -> list[Hit]:
        """BM25 (stemmed, stop words removed) over chunk text. Runs as one task on LanceDB's
        event loop: its synchronous query builder hands over to that loop six times per
        search, which on a busy machine costs more than the search itself (same rows, same
        scores: bench/README.md)."""
        return self.fts_later(query, limit, where)()

    def fts_later(
        self, query: str, limit: int, where: str | None = None
    ) -> Callable[[], list[Hit]]:
        """:meth:`fts`, started now on LanceDB's event loop; the call returned waits for its
        hits (recall embeds the question meanwhile)."""
        table = self.table("chunks#async")
        with lance_errors("search"):
            future = _start_on_loop(_fts_rows(table, query, limit, where))

        def hits() -> list[Hit]:
            with lance_errors("search"):
                rows = future.result().to_pylist()
            return [Hit(r["path"], r["chunk"], float(r["_score"]), r["snippet"]) for r in rows]

        return hits

    def catalog(self, query: str, limit: int, where: str | None = None) -> list[Hit]:
        """BM25 over the catalog view of each entry (title, description, tags)."""
        return self._search("entries", query, "fts", limit, where, ["path"])

    def vector(self, vec: np.ndarray, limit: int, where: str | None = None) -> list[Hit]:
        """Cosine similarity of chunk vectors."""
        return self._search("chunks", vec, "vector", limit, where, ["path", "chunk", "snippet"])

    def _search(
        self, table: str, query: Any, kind: str, limit: int, where: str | None, cols: list[str]
    ) -> list[Hit]:
        with lance_errors("search"):
            q = self.table(table).search(query, query_type=kind)
            if kind == "vector":
                q = q.metric("cosine")
            if where:
                q = q.where(where, prefilter=True)
            rows = q.limit(limit).select(cols).to_arrow().to_pylist()
        if kind == "vector":
            return [
                Hit(r["path"], r.get("chunk", 0), 1.0 - r["_distance"], r.get("snippet", ""))
                for r in rows
            ]
        return [
            Hit(r["path"], r.get("chunk", 0), float(r["_score"]), r.get("snippet", ""))
            for r in rows
        ]

    def table(self, name: str) -> Any:
        """An open table, kept while the stamp stays the same (opening costs milliseconds)."""
        key = self._stamp_key()
        if key != self._tables_for:
            self._tables = {}
            self._tables_for = key
        if name not in self._tables:
            with lance_errors("open"):
                self._tables[name] = self._open(name)
        return self._tables[name]

    def _open(self, name: str) -> Any:
        """A table of the sync connection, or with a ``#async`` suffix, of an async one (used
        only on LanceDB's own event loop)."""
        table, _, kind = name.partition("#")
        if not kind:
            return self.db().open_table(table)
        if self._async_db is None:
            self._async_db = _on_loop(import_lancedb().connect_async(str(self.root)))
        return _on_loop(self._async_db.open_table(table))

    def loaded(self) -> Resident:
        """Entries, links and vectors held in memory. When the stamp moves (a write, by this
        process or another), only the entries that changed are read again."""
        key = self._stamp_key()
        if self._loaded is None or self._loaded_for != key:
            with lance_errors("load"):
                patched = refresh(self.db(), self._loaded) if self._loaded is not None else None
                if patched is None:  # a load from scratch: its graph and tree may be on disk
                    patched = load(self.db())
                    patched.snapshot = self.derived_path  # not carried by a refresh
                self._loaded = patched
            self._loaded_for = key
        return self._loaded

    def vector_in_memory(
        self,
        vec: np.ndarray,
        limit: int,
        allow: Callable[[str], bool] | None = None,
        sims: np.ndarray | None = None,
    ) -> list[Hit]:
        """Cosine similarity over the chunk vectors held in memory (one matrix product; the
        same vectors LanceDB stores, without a per-query table scan). ``allow`` keeps only the
        chunks of the entries it accepts (a filtered query), still ``limit`` of them when
        there are that many; ``sims`` is that product when the caller already has it."""
        loaded = self.loaded()
        if loaded.chunk_vectors is None or not len(loaded.chunk_keys):
            return []
        if sims is None:
            sims = matvec(loaded.chunk_vectors, vec)
        keys = loaded.chunk_keys
        ok = None if allow is None else (lambda i: allow(keys[i][0]))
        return [Hit(keys[i][0], keys[i][1], float(sims[i])) for i in top_indices(sims, limit, ok)]

    def snippets(self, wanted: list[tuple[str, int]]) -> dict[str, str]:
        """The text of the given (path, chunk) pairs: taken by row offset (the resident chunk
        keys are in table order), checked, and looked up by path when the check fails."""
        if not wanted:
            return {}
        pairs = set(wanted)
        offsets = self.loaded().chunk_offsets()
        if all(key in offsets for key in pairs):
            # one task on LanceDB's loop, as the FTS search does (its synchronous take hands
            # over to that loop several times, which costs more than the read on a busy host)
            table = self.table("chunks#async")
            with lance_errors("read"):
                found = _taken(table, sorted(offsets[key] for key in pairs))
                rows = _on_loop(found).to_pylist()
            if {(r["path"], r["chunk"]) for r in rows} == pairs:
                return {r["path"]: r["snippet"] for r in rows}
        return self._snippets_by_path(pairs)

    def _snippets_by_path(self, pairs: set[tuple[str, int]]) -> dict[str, str]:
        paths = ", ".join(quote(p) for p in sorted({p for p, _ in pairs}))
        with lance_errors("read"):
            rows = (
                self.table("chunks")
                .search()
                .where(f"path IN ({paths})")
                .select(["path", "chunk", "snippet"])
                .limit(None)
                .to_arrow()
                .to_pylist()
            )
        return {r["path"]: r["snippet"] for r in rows if (r["path"], r["chunk"]) in pairs}

    def chunk_text(self, path: str, chunk: int) -> str:
        """The snippet of one chunk."""
        with lance_errors("read"):
            rows = (
                self.db()
                .open_table("chunks")
                .search()
                .where(f"path = {quote(path)} AND chunk = {int(chunk)}")
                .select(["snippet"])
                .limit(1)
                .to_arrow()
                .to_pylist()
            )
        return str(rows[0]["snippet"]) if rows else ""


def _on_loop(coro: Any) -> Any:
    """Run a coroutine on LanceDB's event loop thread (where its async objects live)."""
    import_lancedb()
    from lancedb.background_loop import LOOP

    loop: Any = LOOP
    return loop.run(coro)


def _start_on_loop(coro: Any) -> Future[Any]:
    """Start a coroutine on LanceDB's event loop thread; its result comes from the future."""
    import asyncio

    import_lancedb()
    from lancedb.background_loop import LOOP

    loop: Any = LOOP
    return asyncio.run_coroutine_threadsafe(coro, loop.loop)


async def _taken(table: Any, offsets: list[int]) -> Any:
    return await table.take_offsets(offsets).select(["path", "chunk", "snippet"]).to_arrow()


async def _fts_rows(table: Any, query: str, limit: int, where: str | None) -> Any:
    q = table.query().nearest_to_text(query)
    if where:
        q = q.where(where)
    return await q.limit(limit).select(["path", "chunk", "snippet"]).to_arrow()


class _CannotEmbed(StorageError):
    """An update's chunks could not be embedded (never leaves this module: the update becomes
    a rebuild without vectors)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Counter:
    """Wraps an embedder to count what was really embedded (not read from the cache)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.count = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.count += len(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def _why_rebuild(stamp: Stamp | None, embedder_id: str) -> str:
    if stamp is None:
        return "there was no index: first use, or it was deleted"
    if stamp.stale:
        return "the last update failed"
    if stamp.schema != SCHEMA_VERSION:
        return f"index schema {stamp.schema} is not {SCHEMA_VERSION}"
    return f"embedder changed from {stamp.embedder} to {embedder_id}"


def _is_entry(path: str) -> bool:
    from clawql_git.model.paths import is_entry_path

    return is_entry_path(path)


def _with_ref(rec: EntryRecord, sha: str) -> EntryRecord:
    return EntryRecord(rec.path, rec.blob, rec.entry, rec.chunks, rec.page_index_path, sha)
