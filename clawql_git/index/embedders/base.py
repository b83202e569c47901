"""The embedder protocol every backend implements, and the helpers they share.

Every embedder returns float32, L2-normalised rows and has a stable ``id`` that is part of
the index stamp, so changing the model re-embeds. Heavy libraries are imported where they
are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]


class Embedder(Protocol):
    """What the index needs from an embedding model."""

    @property
    def id(self) -> str:
        """Stable identity, part of the index stamp (a change re-embeds everything)."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """float32 array of shape (len(texts), dim), L2-normalised rows, in input order."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """float32 array of shape (dim,), L2-normalised."""
        ...


def is_ready(embedder: Embedder) -> bool:
    """Whether an embed now costs only the embedding: False for a local model not yet loaded
    (embedders without a ``ready`` attribute have nothing to load)."""
    return bool(getattr(embedder, "ready", True))


def normalise_rows(rows: Any) -> Matrix:
    """``rows`` as float32, each scaled to unit length (zero rows stay zero)."""
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def first_row(matrix: Matrix) -> Matrix:
    """The first row of ``matrix`` (the vector of a one-text embed)."""
    row: Matrix = matrix[0]
    return row


def empty_rows(dim: int) -> Matrix:
    """A float32 matrix with no rows and ``dim`` columns."""
    import numpy as np

    return np.zeros((0, dim), dtype=np.float32)


def has_module(name: str) -> bool:
    """Whether ``name`` can be imported, found without importing it."""
    try:
        return find_spec(name) is not None
    except (ImportError, ValueError):
        return False
