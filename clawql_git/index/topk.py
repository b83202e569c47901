"""Scores of every row against a query vector, and the best few of them, optionally among the
rows a filter accepts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def matvec(matrix: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """``matrix @ vec`` in numpy's own vectorised loop on this thread, not BLAS: a matrix-vector
    product is bound by memory, and OpenBLAS's threads, on a busy machine, wait for a core
    (18,755 x 384 float32 on 2 loaded cores: 1.2-1.5 ms p50, against 1.5-8 ms and up to 13 ms
    through BLAS; bench/README.md, "recall on a busy machine")."""
    import numpy as np

    # one dtype: a float64 query against float32 rows would cast every element in the loop
    out: np.ndarray = np.einsum("ij,j->i", matrix, np.asarray(vec, dtype=matrix.dtype))
    return out


def top_indices(
    scores: np.ndarray, limit: int, ok: Callable[[int], bool] | None = None
) -> list[int]:
    """The indices of the ``limit`` highest scores that ``ok`` accepts, best first. A partial
    sort of the best few, widened fourfold while too few of them pass (a filter that keeps
    few rows costs a few partial sorts, never a full one unless almost nothing passes)."""
    import numpy as np

    n = len(scores)
    want = min(limit, n)
    k = want
    while want:
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        chosen = [int(i) for i in top if ok is None or ok(int(i))]
        if len(chosen) >= want or k == n:
            return chosen[:want]
        k = min(n, k * 4)
    return []
