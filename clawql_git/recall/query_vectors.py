"""Query embeddings for recall: computed on a thread while the model loads (the first recall of
a process), and kept by text, the most recently used first. The answer cache misses whenever a
question comes back with other options, at another commit or after a write; its vector does
not change, and embedding it again is the largest single cost of a warm recall."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from clawql_git.index.embedders import is_ready

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder

QUERY_VECTORS_KEPT = 512  # 384 floats each for the packaged model: under 1 MB


class QueryVectors:
    """Query vectors by (embedder id, text), at most ``capacity`` of them (least recently used
    dropped first). A vector is handed out read-only: every recall shares it."""

    def __init__(self, capacity: int = QUERY_VECTORS_KEPT) -> None:
        self.capacity = max(1, capacity)
        self._kept: OrderedDict[tuple[str, str], Any] = OrderedDict()

    def vector(self, embedder: Embedder | None, text: str) -> tuple[Callable[[], Any], bool]:
        """The query's vector, as a call that returns it, and whether it is being computed on
        a thread (``embed_on_thread``); a kept vector is returned at once."""
        if embedder is None:
            return _no_vector, False
        key = (embedder.id, text)
        if key in self._kept:
            self._kept.move_to_end(key)
            kept = self._kept[key]
            return (lambda: kept), False
        compute, on_thread = embed_on_thread(embedder, text)

        def remember() -> Any:
            vec = compute()
            if hasattr(vec, "setflags"):
                vec.setflags(write=False)
            self._keep(key, vec)
            return vec

        return remember, on_thread

    def _keep(self, key: tuple[str, str], vec: Any) -> None:
        self._kept[key] = vec
        self._kept.move_to_end(key)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)


def _no_vector() -> None:
    return None


def embed_on_thread(embedder: Embedder, text: str) -> tuple[Callable[[], Any], bool]:
    """The query's vector, as a call that returns it, and whether it is being computed on a
    thread (always). When the model still has to load (the first recall of a process) it loads
    and embeds on a thread while the caller reads the index: in a cold `clawql memory recall`
    the model's start-up and LanceDB's import then overlap instead of adding up."""
    if is_ready(embedder):  # on the one embedding thread: the full-text search runs meanwhile
        return _worker().submit(embedder.embed_query, text).result, True
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clawql-embed")
    future = pool.submit(embedder.embed_query, text)
    pool.shutdown(wait=False)
    return future.result, True


_WORKER: list[ThreadPoolExecutor] = []
os.register_at_fork(after_in_child=_WORKER.clear)  # a forked child has none of our threads


def _worker() -> ThreadPoolExecutor:
    """The process's thread for questions of a loaded model (made on first use)."""
    if not _WORKER:
        _WORKER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="clawql-query"))
    return _WORKER[0]
