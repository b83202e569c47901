"""The rows and Arrow tables of the index: entries, chunks, links and categories, built from
entry records (pure functions; the SearchIndex writes them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from clawql_git.index.builder import EntryRecord
from clawql_git.links import extract_links


def chunk_row(rec: EntryRecord, chunk: Any) -> dict[str, Any]:
    meta = rec.entry.meta
    return {
        "path": rec.path,
        "chunk": chunk.index,
        "text": chunk.text,
        "snippet": chunk.body,
        "type": rec.entry.type,
        "status": rec.entry.status,
        "project": str(meta.get("project") or ""),
        "agent_id": str(meta.get("agent_id") or ""),
        "timestamp": rec.entry.timestamp,
        "tags": [str(t) for t in meta.get("tags") or []],
        "pii": str(meta.get("pii_classification") or ""),
    }


def links(rec: EntryRecord) -> list[dict[str, Any]]:
    return [
        {"source": rec.path, "target": ref.target, "kind": ref.kind, "line": ref.line}
        for ref in extract_links(rec.entry.body)
    ]


def entry_means(
    records: list[EntryRecord], chunk_rows: list[dict[str, Any]], vectors: Any, dim: int
) -> Any:
    import numpy as np

    out = np.zeros((len(records), dim), dtype=np.float32)
    index = {r.path: i for i, r in enumerate(records)}
    for row, vec in zip(chunk_rows, vectors, strict=True):
        out[index[row["path"]]] += vec
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)


def vector_type(dim: int) -> Any:
    import pyarrow as pa

    return pa.list_(pa.float32(), dim)


def entry_schema() -> Any:
    import pyarrow as pa

    s, lst = pa.string(), pa.list_(pa.string())
    names = ["path", "blob", "title", "type", "description"]
    fields = [(n, s) for n in names] + [("tags", lst)]
    more = ["project", "agent_id", "status", "superseded_by", "timestamp", "page_index_path"]
    fields += [(n, s) for n in more] + [("pii", s), ("worm_ref", s), ("tokens", pa.int64())]
    fields += [("catalog", s), ("frontmatter", s)]
    return pa.schema(fields)


def chunk_schema() -> Any:
    import pyarrow as pa

    s = pa.string()
    return pa.schema(
        [
            ("path", s),
            ("chunk", pa.int64()),
            ("text", s),
            ("snippet", s),
            ("type", s),
            ("status", s),
            ("project", s),
            ("agent_id", s),
            ("timestamp", s),
            ("tags", pa.list_(s)),
            ("pii", s),
        ]
    )


def links_schema() -> Any:
    import pyarrow as pa

    s = pa.string()
    return pa.schema([("source", s), ("target", s), ("kind", s), ("line", pa.int64())])


def empty_entries() -> Any:
    return entry_schema().empty_table()


def empty_chunks() -> Any:
    return chunk_schema().empty_table()


def categories_table(paths: Iterable[str]) -> Any:
    """category path -> number of entries under it, every level of the tree."""
    import pyarrow as pa

    counts: dict[str, int] = {}
    for path, entries in Counter(paths).items():  # few distinct paths: expand each once
        parts = [p for p in path.split("/") if p]
        for depth in range(1, len(parts) + 1):
            node = "/".join(parts[:depth])
            counts[node] = counts.get(node, 0) + entries
    rows = [{"path": k, "depth": k.count("/") + 1, "entries": v} for k, v in sorted(counts.items())]
    schema = pa.schema([("path", pa.string()), ("depth", pa.int64()), ("entries", pa.int64())])
    return pa.Table.from_pylist(rows, schema=schema)


def links_table(rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=links_schema())
