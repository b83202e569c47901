"""The index rows a warm process holds in memory (entries, links, entry and chunk vectors):
loaded once, then refreshed row by row, so the first recall after a write reads only the
entries that changed instead of the whole index."""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawql_git.index.derived import Derived
from clawql_git.index.lance import quote

# Above this share of changed entries a full reload costs about the same as patching.
REFRESH_SHARE = 0.3
IN_BATCH = 500  # paths per `path IN (...)` filter
KEY_COLUMNS = ("path", "blob", "worm_ref")  # what an entries row is a function of


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
    memos: dict[str, Any] = field(default_factory=dict)  # built once per state (see `memo`)
    carry: Derived = field(default_factory=Derived)  # graph, tree, terms: patched on refresh
    changed: frozenset[str] = frozenset()  # entries the last refresh replaced or removed
    appended: bool = False  # ... and their new rows are at the end, in table order
    keys: Any = None  # KEY_COLUMNS of the entries, an Arrow table in table order
    # Rows loaded from scratch: where their graph and tree are saved (index/snapshot.py), and
    # once looked up and not found, (that path, the rows' key) to save them at. Neither is
    # carried to refreshed rows.
    snapshot: Path | None = None
    snapshot_due: tuple[Path, str] | None = None

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """A structure derived from the rows, built on first use."""
        if key not in self.memos:
            self.memos[key] = build()
        return self.memos[key]

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

    def chunk_rows(self) -> dict[str, list[int]]:
        """path -> the rows of its chunks in the chunk matrix."""

        def build() -> dict[str, list[int]]:
            out: dict[str, list[int]] = {}
            for row, (path, _) in enumerate(self.chunk_keys):
                out.setdefault(path, []).append(row)
            return out

        rows: dict[str, list[int]] = self.memo("chunk_rows", build)
        return rows

    def entry_index(self) -> dict[str, int]:
        """path -> its row in the entry matrix."""
        index: dict[str, int] = self.memo(
            "entry_index", lambda: {p: i for i, p in enumerate(self.entry_order)}
        )
        return index

    def reserve(self) -> None:
        """Give the vector matrices spare rows now (a long-lived process, while it warms), so
        the first refresh after a write appends into them instead of copying them: at 100,000
        entries that copy took over a second of the first recall after the first write."""
        for name in ("entry_vectors", "chunk_vectors"):
            matrix = getattr(self, name)
            if matrix is not None and _USED.get(id(matrix.base)) != len(matrix):
                roomy = _with_room(len(matrix), matrix.shape[1], matrix.dtype)
                roomy[:] = matrix
                setattr(self, name, roomy)


def load(db: Any) -> Resident:
    """Every row the recall pipeline keeps in memory, read from the tables."""
    entries = db.open_table("entries").to_arrow()
    links = db.open_table("links").to_arrow().to_pylist()
    cols = [c for c in entries.column_names if c != "vector"]
    rows = entries.select(cols).to_pylist()
    out = Resident({r["path"]: r for r in rows}, links, None, [r["path"] for r in rows])
    out.keys = entries.select(list(KEY_COLUMNS))
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
    Rows are a function of (path, blob, worm_ref), so those columns find every change, whoever
    wrote it (this process, a hook, a rebuild); they are compared in Arrow, not row by row."""
    import pyarrow.compute as pc

    keys = _scan(db.open_table("entries"), list(KEY_COLUMNS))
    new_ids, old_ids = row_ids(keys), row_ids(old.keys)
    fresh = pc.invert(pc.is_in(new_ids, value_set=old_ids))
    kept = pc.is_in(old_ids, value_set=new_ids)
    changed = set(pc.filter(keys.column("path"), fresh).to_pylist())
    touched = changed | set(pc.filter(old.keys.column("path"), pc.invert(kept)).to_pylist())
    if len(touched) > REFRESH_SHARE * max(keys.num_rows, 1):
        return None
    if not touched and keys.column("path").equals(old.keys.column("path")):
        return old
    return _patched(db, old, keys, changed, touched, pc.filter(old.keys.column("path"), kept))


def _patched(
    db: Any, old: Resident, keys: Any, changed: set[str], touched: set[str], kept: Any
) -> Resident:
    import pyarrow as pa

    fresh = _rows_of(db.open_table("entries"), "path", changed, [])
    fresh_paths = fresh.column("path").to_pylist()
    # Lance deletes rows in place and appends new ones: after our updates the table is the old
    # order without the touched entries, then the rewritten ones. Anything else (a rebuild by
    # another process) is still handled, by reading every path and chunk key again.
    expected = pa.chunked_array(kept.chunks + fresh.column("path").chunks, pa.string())
    appended = expected.equals(keys.column("path"))
    cols = [c for c in fresh.column_names if c != "vector"]
    new_rows = {r["path"]: r for r in fresh.select(cols).to_pylist()}
    if appended:
        entries = dict(old.entries)
        for path in touched:
            entries.pop(path, None)
        entries.update(new_rows)
    else:
        entries = {p: new_rows.get(p) or old.entries[p] for p in keys.column("path").to_pylist()}
    paths = list(entries)
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
    out = Resident(entries, links, None, paths, None, chunk_keys, carry=old.carry)
    out.changed, out.appended, out.keys = frozenset(touched), appended, keys
    if appended and not any(p in old.entries for p in touched):
        _extend_memos(old, out, fresh_keys, fresh_paths)
    old.carry.mark_touched(touched, appended)
    if not has_vectors or not paths:
        return out
    if appended and old.entry_vectors is not None:
        gone = {p for p in touched if p in old.entries}  # old rows dropped (none after an ingest)
        chunk_paths = [p for p, _ in old.chunk_keys] if gone else []
        out.entry_vectors = _appended_vectors(old.entry_vectors, old.entry_order, gone, fresh)
        out.chunk_vectors = _appended_vectors(old.chunk_vectors, chunk_paths, gone, fresh_chunks)
    else:
        out.entry_vectors = _merge_vectors(
            old.entry_vectors, old.entry_order, paths, fresh, fresh_paths
        )
        out.chunk_vectors = _merge_vectors(
            old.chunk_vectors, old.chunk_keys, chunk_keys, fresh_chunks, fresh_keys
        )
    return out


def _extend_memos(
    old: Resident, out: Resident, fresh_keys: list[tuple[str, int]], fresh_paths: list[str]
) -> None:
    """The row maps ``old`` had built, extended by the rows appended after it (new entries
    only: no old row moved), instead of rebuilt from every row (0.4 s at 100,000 entries)."""
    chunks, entries = len(old.chunk_keys), len(old.entry_order)
    memos = old.memos
    if "offsets" in memos:
        offsets = dict(memos["offsets"])
        offsets.update((key, chunks + n) for n, key in enumerate(fresh_keys))
        out.memos["offsets"] = offsets
    if "chunk_counts" in memos:
        counts = Counter(memos["chunk_counts"])
        counts.update(path for path, _ in fresh_keys)
        out.memos["chunk_counts"] = counts
    if "chunk_rows" in memos:
        rows = dict(memos["chunk_rows"])
        for n, (path, _) in enumerate(fresh_keys):
            rows[path] = [*rows.get(path, ()), chunks + n]  # a new list: old's stay as they are
        out.memos["chunk_rows"] = rows
    if "entry_index" in memos:
        index = dict(memos["entry_index"])
        index.update((path, entries + n) for n, path in enumerate(fresh_paths))
        out.memos["entry_index"] = index


def _appended_vectors(old_matrix: Any, old_paths: list[str], gone: set[str], fresh: Any) -> Any:
    """The vector matrix when the rows are the old ones of untouched entries, then the fresh
    ones. After an ingest (nothing old touched) the fresh rows go into the old matrix's spare
    room: no copy of the old rows (at 100,000 entries a copy costs ~0.2 s, mostly page
    faults). ``old_paths`` gives the entry of each old row, ``gone`` the entries whose old
    rows are dropped."""
    import numpy as np

    new = _matrix(fresh.column("vector"), fresh.num_rows) if fresh.num_rows else None
    if not gone:
        return old_matrix if new is None else grow_rows(old_matrix, new)
    keep = np.fromiter((p not in gone for p in old_paths), dtype=bool, count=len(old_paths))
    kept = int(keep.sum())
    added = 0 if new is None else len(new)
    out = _with_room(kept + added, old_matrix.shape[1], old_matrix.dtype)
    np.compress(keep, old_matrix, axis=0, out=out[:kept])
    if new is not None:
        out[kept:] = new
    return out


# Buffers with spare rows, and how many rows their newest view uses. A view may take the
# spare room only when it is that newest view, so no older view (an earlier Resident still
# answering a query) ever sees its rows change.
_USED: dict[int, int] = {}  # id(buffer) -> rows used; an entry goes with its buffer
SPARE_ROWS = 0.125  # room left for appends when a buffer is allocated (a share of its rows)


def _with_room(rows: int, width: int, dtype: Any) -> Any:
    """A view of ``rows`` rows over a new buffer with spare rows after them."""
    import numpy as np

    buffer = np.empty((rows + max(64, int(rows * SPARE_ROWS)), width), dtype=dtype)
    _USED[id(buffer)] = rows
    weakref.finalize(buffer, _USED.pop, id(buffer), None)
    return buffer[:rows]


def grow_rows(matrix: Any, new: Any) -> Any:
    """``matrix`` with ``new`` rows after it: written into its buffer's spare room when
    ``matrix`` is that buffer's newest view and the room suffices, else copied into a new
    buffer with room."""
    buffer = matrix.base
    rows, added = len(matrix), len(new)
    if (
        buffer is not None
        and _USED.get(id(buffer)) == rows
        and buffer.shape[0] >= rows + added
        and matrix.ctypes.data == buffer.ctypes.data
    ):
        buffer[rows : rows + added] = new
        _USED[id(buffer)] = rows + added
        return buffer[: rows + added]
    out = _with_room(rows + added, matrix.shape[1], matrix.dtype)
    out[:rows] = matrix
    out[rows:] = new
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


def row_ids(keys: Any) -> Any:
    """One string per entries row that changes whenever the row does."""
    import pyarrow.compute as pc

    columns = [keys.column(c) for c in KEY_COLUMNS]
    return pc.binary_join_element_wise(*columns, "\x00")


def _scan(table: Any, cols: list[str]) -> Any:
    """Some columns of every row, in table order."""
    cols = cols or ["path", "chunk"]
    return table.search().select(cols).limit(None).to_arrow()


def _rows_of(table: Any, column: str, values: Iterable[str], cols: list[str]) -> Any:
    """The rows whose ``column`` is one of ``values`` (all columns unless ``cols``), in table
    order (row ids grow with it)."""
    import pyarrow as pa

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
