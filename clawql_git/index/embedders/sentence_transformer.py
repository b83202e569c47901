"""The ``st:<path>`` embedder: a sentence-transformers model directory on disk, never
downloaded."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.errors import InvalidInput
from clawql_git.index.embedders.base import empty_rows, first_row, normalise_rows
from clawql_git.index.embedders.minilm import MINILM_BATCH

if TYPE_CHECKING:
    from clawql_git.index.embedders.base import Matrix


class SentenceTransformerEmbedder:
    """A local sentence-transformers model directory; loaded on first use, never downloaded."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = f"st:{path}"
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def dim(self) -> int:
        """The model's sentence embedding size (loads the model)."""
        return int(self._loaded().get_sentence_embedding_dimension())

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed with the model's own pooling, normalised."""
        if not texts:
            return empty_rows(self.dim)
        vectors = self._loaded().encode(
            list(texts), batch_size=MINILM_BATCH, show_progress_bar=False, convert_to_numpy=True
        )
        return normalise_rows(vectors)

    def embed_query(self, text: str) -> Matrix:
        """One query vector."""
        return first_row(self.embed([text]))

    @property
    def ready(self) -> bool:
        """Whether the model is loaded."""
        return self._model is not None

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load_sentence_transformer(self.path)
            return self._model


def _load_sentence_transformer(path: Path) -> Any:
    # Must be set before huggingface_hub is imported; local_files_only guards the load itself.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import inspect

    from sentence_transformers import SentenceTransformer

    # Older releases have no local_files_only; they load an existing directory from disk.
    accepted = inspect.signature(SentenceTransformer).parameters
    offline = {"local_files_only": True} if "local_files_only" in accepted else {}
    try:
        return SentenceTransformer(str(path), device="cpu", **offline)
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot load the sentence-transformers model at {path}: {exc}") from exc
