"""The hash embedder: deterministic feature hashing, no model (for tests and benchmarks)."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from clawql_git.index.embedders.base import empty_rows, first_row, normalise_rows

if TYPE_CHECKING:
    from clawql_git.index.embedders.base import Matrix

_WORD = re.compile(r"\w+")
_HASH_PERSON = b"clawql-hash-v1"


class HashEmbedder:
    """Hashed lowercase word unigrams and bigrams, signed, sublinear tf, L2-normalised.

    No model and no randomness: the same text gives the same vector on every machine. For
    tests and benchmarks that must not depend on model speed; it knows no synonyms.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.id = f"hash-{dim}"

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One hashed vector per text."""
        if not texts:
            return empty_rows(self.dim)
        return normalise_rows([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> Matrix:
        """One hashed query vector."""
        return first_row(self.embed([text]))

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for feature, count in Counter(_hash_features(text)).items():
            bucket, sign = _bucket(feature, self.dim)
            vector[bucket] += sign * (1.0 + math.log(count))
        return vector


def _hash_features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    bigrams = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    # A text without words still gets a unit vector (the same one for all such texts).
    return words + bigrams or ["\0empty"]


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode(), digest_size=8, person=_HASH_PERSON).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, -1.0 if value >> 63 else 1.0
