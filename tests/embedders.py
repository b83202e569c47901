"""Embedders for tests: a wrapper that counts what reaches the embedder it wraps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder
    from clawql_git.index.embedders.base import Matrix


class CountingEmbedder:
    """Wraps an embedder and counts what reaches it, to prove that caching works."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls = 0
        self.texts = 0
        self.seen: list[str] = []

    @property
    def id(self) -> str:
        """The inner embedder's id (counting changes no vector)."""
        return self.inner.id

    @property
    def dim(self) -> int:
        """The inner embedder's dim."""
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Count, then delegate."""
        self._count(texts)
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        """Count, then delegate."""
        self._count([text])
        return self.inner.embed_query(text)

    def _count(self, texts: Sequence[str]) -> None:
        self.calls += 1
        self.texts += len(texts)
        self.seen.extend(texts)
