"""The fusion's vector evidence: every candidate of a recall (found by any layer, inside a
vector pool or not) carries its real cosines with the query, and the fusion weighs them by how
far they stand above the index's mean for that query."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from clawql_git import Identity, Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.recall import cosines
from clawql_git.recall.pipeline import Recaller, RecallQuery

WRITER = Identity(agent_id="note-taker", session_id="cosine-test")
WORDS = [
    "cache",
    "queue",
    "token",
    "shard",
    "replica",
    "lease",
    "quorum",
    "ledger",
    "bucket",
    "stream",
    "cursor",
    "batch",
]


def _vault(root: Path, n: int = 220) -> Vault:
    """``n`` notes that all say "retry" (so the full-text layer's pool is full) among other
    words, a few of them more than once."""
    rng = random.Random(7)
    Vault.init(root, identity=WRITER).close()
    vault = Vault.open(root, embedder=HashEmbedder())
    items = [
        {
            "type": "context",
            "title": f"note {i}",
            "body": "retry " + " ".join(rng.choice(WORDS) for _ in range(12)),
        }
        for i in range(n)
    ]
    vault.ingest_all(items, identity=WRITER, batch=True)
    vault.update_index()
    return vault


def test_every_candidate_carries_its_real_cosines(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "v")
    service = vault.recall_service()
    service.ensure()
    index = service.index
    loaded = index.loaded()
    assert index.embedder is not None
    qvec = index.embedder.embed_query("retry the lease on the quorum ledger")
    ranked, layers = Recaller(index).search(RecallQuery("retry the lease on the quorum ledger"))
    assert {"fts", "vector", "entry_vector"} <= set(layers)
    sims = loaded.chunk_vectors @ qvec
    entry_sims = loaded.entry_vectors @ qvec
    rows = {p: [n for n, key in enumerate(loaded.chunk_keys) if key[0] == p] for p, _, _ in ranked}
    outside = 0
    for path, cand, _ in ranked:
        assert cand.cosines is not None, path
        chunk, entry = cand.cosines
        assert abs(chunk - float(sims[rows[path]].max())) < 1e-5
        assert abs(entry - float(entry_sims[loaded.entry_order.index(path)])) < 1e-5
        outside += "vector" not in cand.scores and "entry_vector" not in cand.scores
    # candidates the vector pools did not hold still have their cosines (and the answer's
    # layers name only the pools that found an entry)
    assert outside > 0
    hits = vault.recall("retry the lease on the quorum ledger", limit=30, min_score=0.0).hits
    assert any("vector" not in h.layers and "entry_vector" not in h.layers for h in hits)
    vault.close()


def test_cosines_are_weighed_in_deviations_above_the_mean() -> None:
    chunk = np.array([0.1, 0.2, 0.3, 0.6], dtype=np.float32)
    entry = np.array([0.5, 0.5, 0.5, 0.9], dtype=np.float32)
    sims = cosines.Similarities(
        chunk, entry, (float(chunk.mean()), float(chunk.std())), (0.6, float(entry.std()))
    )
    z_chunk, z_entry = sims.standard(0.6, 0.9)
    assert abs(z_chunk - (0.6 - chunk.mean()) / chunk.std()) < 1e-5
    assert abs(z_entry - (0.9 - 0.6) / entry.std()) < 1e-5
    assert sims.standard(0.1, 0.5) == (0.0, 0.0)  # at or below the mean: no evidence
