"""Vectors cached by content hash (sqlite under $GIT_DIR/clawql), so nothing is embedded twice."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from clawql_git.errors import StorageError

if TYPE_CHECKING:
    import numpy as np

    from clawql_git.index.embedders import Embedder


def text_key(embedder_id: str, text: str) -> str:
    """The cache key of a text under one embedder."""
    return hashlib.sha256(f"{embedder_id}\0{text}".encode()).hexdigest()


class VectorCache:
    """A content-addressed store of embeddings."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB)")
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the vector cache {path}: {exc}") from exc

    def embed(self, embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: cached ones read back, the rest embedded once and stored."""
        import numpy as np

        keys = [text_key(embedder.id, t) for t in texts]
        found = self._get(keys)
        missing = sorted({k for k in keys if k not in found})
        if missing:
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k in set(missing)}
            order = list(todo)
            vectors = embedder.embed([todo[k] for k in order])
            fresh = {k: vectors[i].astype(np.float32) for i, k in enumerate(order)}
            self._put(fresh)
            found.update(fresh)
        out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def _get(self, keys: list[str]) -> dict[str, np.ndarray]:
        import numpy as np

        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(f"SELECT key, v FROM vec WHERE key IN ({marks})", part)
            out.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        return out

    def _put(self, vectors: dict[str, np.ndarray]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO vec (key, v) VALUES (?, ?)",
                [(k, v.tobytes()) for k, v in vectors.items()],
            )

    def close(self) -> None:
        self.db.close()
