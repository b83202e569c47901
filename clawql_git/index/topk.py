"""The best few of a score vector, optionally among the rows a filter accepts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


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
