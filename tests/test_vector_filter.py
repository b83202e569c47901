"""Filtered vector search in memory: the same chunks as LanceDB's prefiltered scan."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from clawql_git import Identity, Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.index.topk import top_indices
from clawql_git.recall.pipeline import RecallQuery, _where, passes

WHO = Identity(agent_id="filter-test", session_id="s1")
TOPICS = ["postgres", "kafka", "redis", "oauth", "graphql", "terraform", "grpc", "webpack"]


def test_top_indices_widens_until_enough_pass() -> None:
    scores = np.arange(1000, dtype=np.float32)  # index == score
    assert top_indices(scores, 3) == [999, 998, 997]
    only_small = top_indices(scores, 4, lambda i: i < 10)  # the best 4 are far down
    assert only_small == [9, 8, 7, 6]
    assert top_indices(scores, 5, lambda i: i == 42) == [42]  # fewer pass than wanted
    assert top_indices(scores, 5, lambda i: False) == []
    assert top_indices(np.array([], dtype=np.float32), 5) == []


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    root = tmp_path_factory.mktemp("filter") / "v"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CLAWQL_EMBEDDING_MODEL", "hash")  # what the hooks index with
        yield _seeded(root)


def _seeded(root: Path) -> Vault:
    v = Vault.init(root, identity=WHO, embedder=HashEmbedder())
    for n in range(60):
        topic = TOPICS[n % len(TOPICS)]
        v.ingest(
            type="decision" if n % 10 == 0 else "context",  # decisions are rare
            title=f"Note {n} on {topic}",
            # words of its own, a different number per entry: no two entries score alike
            body=f"{topic} settings and limits. " + " ".join(f"w{n}x{j}" for j in range(n % 7)),
            tags=[topic],
            meta={"project": "alpha" if n % 3 == 0 else "beta"},
            identity=WHO,
        )
    v.update_index()
    return v


@pytest.mark.parametrize(
    ("types", "project"),
    [(("decision",), None), ((), "alpha"), (("decision", "context"), "beta"), ((), None)],
)
def test_in_memory_filter_matches_lancedb_prefilter(
    vault: Vault, types: tuple[str, ...], project: str | None
) -> None:
    index = vault.recall_service().index
    entries = index.loaded().entries
    q = RecallQuery(text="postgres settings", types=types, project=project)
    qvec = HashEmbedder().embed_query(q.text)
    mine = index.vector_in_memory(qvec, 8, lambda p: passes(entries.get(p), q))
    lance = index.vector(qvec, 8, _where(q))
    assert [round(h.score, 4) for h in mine] == [round(h.score, 4) for h in lance]
    cut = round(lance[-1].score, 4)  # rows tied at the cut may differ; none above it may
    assert {h.path for h in mine if round(h.score, 4) > cut} == {
        h.path for h in lance if round(h.score, 4) > cut
    }
    assert all(passes(entries[h.path], q) for h in mine)


def test_a_rare_type_still_gets_its_vector_hits(vault: Vault, tmp_path: Path) -> None:
    result = vault.recall("kafka limits", types=("decision",), use_cache=False, limit=5)
    assert result.hits and all(h.type == "decision" for h in result.hits)
    assert any("vector" in h.layers for h in result.hits)
