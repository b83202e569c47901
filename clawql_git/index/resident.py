"""The index rows a warm process holds in memory (entries, links, entry and chunk vectors):
loaded once, then refreshed row by row, so the first recall after a write reads only the
entries that changed instead of the whole index."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# Above this share of changed entries a full reload costs about the same as patching.
REFRESH_SHARE = 0.3
IN_BATCH = 500  # paths per `path IN (...)` filter


@dataclass
class Resident:
    """Index rows in table order (a refresh keeps that order, so a patched copy is equal to a
    fresh load), plus structures derived from them and per-entry caches kept across refreshes."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: list[dict[str, Any]] = field(default_factory=list)
    entry_vectors: Any = None
    entry_order: list[str] = field(default_factory=list)
    chunk_vectors: Any = None
    chunk_keys: list[tuple[str, int]] = field(default_factory=list)
    derived: dict[str, Any] = field(default_factory=dict)  # graph, tree: built once per state
    carry: dict[str, Any] = field(default_factory=dict)  # per-entry caches, checked on use
    changed: frozenset[str] = frozenset()  # entries the last refresh replaced or removed
    appended: bool = False  # ... and their new rows are at the end, in table order

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """A structure derived from the rows, built on first use."""
        if key not in self.derived:
            self.derived[key] = build()
        return self.derived[key]

    def chunk_offsets(self) -> dict[tuple[str, int], int]:
        """(path, chunk) -> row offset in the chunks table."""
        offsets: dict[tuple[str, int], int] = self.memo(
            "offsets", lambda: {key: n for n, key in enumerate(self.chunk_keys)}
        )
        return offsets

    def chunk_counts(self) -> Counter[str]:
        """path -> number of chunks."""
        counts: Counter[str] = self.memo(
            "chunk_counts", lambda: Counter(p for p, _ in self.chunk_keys)
        )
        return counts


def load(db: Any) -> Resident:
    """Every row the recall pipeline keeps in memory, read from the tables."""
    entries = db.open_table("entries").to_arrow()
    links = db.open_table("links").to_arrow().to_pylist()
    cols = [c for c in entries.column_names if c != "vector"]
    rows = entries.select(cols).to_pylist()
    out = Resident({r["path"]: r for r in rows}, links, None, [r["path"] for r in rows])
    has_vectors = "vector" in entries.column_names
    chunks = _scan(db.open_table("chunks"), ["path", "chunk", "vector"] if has_vectors else [])
    out.chunk_keys = _keys(chunks)
    if has_vectors and entries.num_rows:
        out.entry_vectors = _matrix(entries.column("vector"), entries.num_rows)
        out.chunk_vectors = _matrix(chunks.column("vector"), chunks.num_rows)
    return out


def refresh(db: Any, old: Resident) -> Resident | None:
    """``old`` brought up to the tables' current rows by reading again only the entries whose
    (blob, worm_ref) changed; None when so much changed that a full load is the better deal.
    Rows are a function of (path, blob, worm_ref), so those two columns find every change,
    whoever wrote it (this process, a hook, a rebuild)."""
    keys = _scan(db.open_table("entries"), ["path", "blob", "worm_ref"])
    paths = keys.column("path").to_pylist()
    blobs, refs = keys.column("blob").to_pylist(), keys.column("worm_ref").to_pylist()
    current = dict(zip(paths, zip(blobs, refs, strict=True), strict=True))
    changed = {p for p, key in current.items() if _key(old.entries.get(p)) != key}
    gone = old.entries.keys() - current.keys()
    if len(changed) + len(gone) > REFRESH_SHARE * max(len(paths), 1):
        return None
    if not changed and not gone and paths == old.entry_order:
        return old
    return _patched(db, old, paths, changed, changed | gone)


def _patched(
    db: Any, old: Resident, paths: list[str], changed: set[str], touched: set[str]
) -> Resident:
    fresh = _rows_of(db.open_table("entries"), "path", changed, [])
    fresh_paths = fresh.column("path").to_pylist()
    # Lance deletes rows in place and appends new ones: after our updates the table is the old
    # order without the touched entries, then the rewritten ones. Anything else (a rebuild by
    # another process) is still handled, by reading the chunk order again.
    appended = [p for p in old.entry_order if p not in touched] + fresh_paths == paths
    cols = [c for c in fresh.column_names if c != "vector"]
    new_rows = {r["path"]: r for r in fresh.select(cols).to_pylist()}
    entries = {p: new_rows[p] if p in new_rows else old.entries[p] for p in paths}
    links = [link for link in old.links if link["source"] not in touched]
    links += _rows_of(db.open_table("links"), "source", changed, []).to_pylist()
    chunks_table = db.open_table("chunks")
    has_vectors = old.entry_vectors is not None or "vector" in fresh.column_names
    vector_cols = ["path", "chunk", "vector"] if has_vectors else ["path", "chunk"]
    fresh_chunks = _rows_of(chunks_table, "path", changed, vector_cols)
    fresh_keys = _keys(fresh_chunks)
    if appended:
        chunk_keys = [k for k in old.chunk_keys if k[0] not in touched] + fresh_keys
    else:
        chunk_keys = _keys(_scan(chunks_table, ["path", "chunk"]))
    out = Resident(entries, links, None, paths, None, chunk_keys, {}, old.carry, frozenset(touched))
    out.appended = appended
    for name in ("graph_stale", "tree_stale"):  # what the carried graph and tree must catch up on
        stale = old.carry.get(name)
        if stale is not None:
            stale.update(touched)
    if not appended:  # the tree is patched by appending: rebuild it instead
        old.carry.pop("tree_stale", None)
    if has_vectors and paths:
        out.entry_vectors = _merge_vectors(
            old.entry_vectors, old.entry_order, paths, fresh, fresh_paths
        )
        out.chunk_vectors = _merge_vectors(
            old.chunk_vectors, old.chunk_keys, chunk_keys, fresh_chunks, fresh_keys
        )
    return out


def _merge_vectors(
    old_matrix: Any, old_keys: list[Any], keys: list[Any], fresh: Any, fresh_keys: list[Any]
) -> Any:
    """The vector matrix for ``keys``: unchanged rows copied from ``old_matrix``, the others
    from ``fresh`` (rows read from the table)."""
    import numpy as np

    fresh_matrix = _matrix(fresh.column("vector"), fresh.num_rows) if fresh.num_rows else None
    width = (fresh_matrix if fresh_matrix is not None else old_matrix).shape[1]
    where_old = {k: n for n, k in enumerate(old_keys)} if old_matrix is not None else {}
    where_fresh = {k: n for n, k in enumerate(fresh_keys)}
    src = np.fromiter(
        (-1 if k in where_fresh else where_old.get(k, -1) for k in keys),
        dtype=np.int64,
        count=len(keys),
    )
    out = np.empty((len(keys), width), dtype=np.float32)
    from_old = src >= 0
    if from_old.any():
        out[from_old] = old_matrix[src[from_old]]
    rest = np.flatnonzero(~from_old)
    if len(rest):
        assert fresh_matrix is not None
        out[rest] = fresh_matrix[[where_fresh[keys[n]] for n in rest]]
    return out


def _key(row: dict[str, Any] | None) -> tuple[str, str] | None:
    return None if row is None else (row["blob"], row["worm_ref"])


def _scan(table: Any, cols: list[str]) -> Any:
    """Some columns of every row, in table order."""
    cols = cols or ["path", "chunk"]
    return table.search().select(cols).limit(None).to_arrow()


def _rows_of(table: Any, column: str, values: Iterable[str], cols: list[str]) -> Any:
    """The rows whose ``column`` is one of ``values`` (all columns unless ``cols``), in table
    order (row ids grow with it)."""
    import pyarrow as pa

    from clawql_git.index.store import quote

    wanted = sorted(values)
    parts = []
    for start in range(0, len(wanted), IN_BATCH):
        batch = ", ".join(quote(v) for v in wanted[start : start + IN_BATCH])
        q = table.search().where(f"{column} IN ({batch})").with_row_id(True)
        parts.append((q.select(cols) if cols else q).limit(None).to_arrow())
    if not parts:
        schema = table.schema
        names = cols or schema.names
        return pa.schema([schema.field(n) for n in names]).empty_table()
    rows = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    return rows.sort_by("_rowid").drop_columns(["_rowid"])


def _keys(chunks: Any) -> list[tuple[str, int]]:
    return list(
        zip(chunks.column("path").to_pylist(), chunks.column("chunk").to_pylist(), strict=True)
    )


def _matrix(column: Any, rows: int) -> Any:
    import numpy as np

    flat = column.combine_chunks().flatten().to_numpy()
    return np.asarray(flat, dtype=np.float32).reshape(rows, -1)
