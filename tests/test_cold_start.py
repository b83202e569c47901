"""The first recall of a process: the query embeds beside the index's start-up."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from clawql_git import Vault
from clawql_git.errors import StorageError
from clawql_git.index.embedders import HashEmbedder

from .conftest import git

Matrix = Any


class ColdModel:
    """A hash embedder that, like a local model, is not ready until its first embed; it notes
    the thread of every call (and can be told to fail as a broken model file would)."""

    def __init__(self, fail: bool = False) -> None:
        self.inner = HashEmbedder()
        self.id, self.dim = self.inner.id, self.inner.dim
        self.fail = fail
        self.threads: list[str] = []
        self._loaded = False

    @property
    def ready(self) -> bool:
        return self._loaded

    def embed(self, texts: Sequence[str]) -> Matrix:
        self.threads.append(threading.current_thread().name)
        if self.fail:
            raise StorageError("cannot load the model: truncated file")
        self._loaded = True
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        return self.embed([text])[0]


@pytest.fixture
def demo(demo: Path) -> Path:
    """conftest's sample vault, with its index built."""
    Vault.open(demo, embedder=HashEmbedder()).update_index()
    return demo


def answer(vault: Vault, query: str) -> list[tuple[str, float, tuple[str, ...]]]:
    result = vault.recall(query, use_cache=False, limit=5)
    return [(h.path, round(h.score, 6), tuple(h.layers)) for h in result.hits]


def test_first_recall_embeds_on_a_thread_and_answers_the_same(demo: Path) -> None:
    model = ColdModel()
    cold = Vault.open(demo, embedder=model)
    warm = Vault.open(demo, embedder=HashEmbedder())
    query = "why did we stop queueing webhooks in redis?"
    first = answer(cold, query)
    assert model.threads == ["clawql-embed_0"]  # the model loaded beside the index
    assert first == answer(warm, query)
    assert any("vector" in layers for _, _, layers in first)
    again = answer(cold, "how do we authenticate API clients?")
    assert model.threads[1:] == ["clawql-query_0"]  # a loaded model: the full text meanwhile
    assert again == answer(warm, "how do we authenticate API clients?")


def test_a_model_that_fails_to_load_is_a_skipped_layer_not_a_failed_recall(demo: Path) -> None:
    """Fail open (DESIGN invariant 5): full text, the catalog and the category tree answer, and
    the answer names the vector layers it skipped and why; nothing is committed to main."""
    head_before = git(demo, "rev-parse", "HEAD").stdout
    vault = Vault.open(demo, embedder=ColdModel(fail=True))
    result = vault.recall("why did we stop queueing webhooks in redis?")
    assert result.hits
    skipped = {s["layer"]: s["reason"] for s in result.to_record()["skipped_layers"]}
    assert "vector" in skipped and "truncated file" in skipped["vector"], skipped
    assert not any("vector" in hit.layers for hit in result.hits)
    assert git(demo, "rev-parse", "HEAD").stdout == head_before


def test_lancedb_imports_with_deferred_models_and_leaves_pydantic_as_it_was() -> None:
    import subprocess
    import sys

    code = """
from clawql_git.index.lance import import_lancedb
import_lancedb()
import pydantic, lance_namespace
assert "defer_build" not in pydantic.BaseModel.model_config
model = lance_namespace.ListNamespacesResponse
assert type(model.__pydantic_validator__).__name__ == "MockValSer"  # built on first use
assert model(namespaces=["a"]).namespaces == ["a"]  # ... and it validates when used

class After(pydantic.BaseModel):
    n: int

assert type(After.__pydantic_validator__).__name__ == "SchemaValidator"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


FORK_SCRIPT = """
import os, sys, time
from clawql_git.index.embedders import HashEmbedder
from clawql_git.recall import query_vectors
embedder = HashEmbedder()
compute, on_thread = query_vectors.embed_on_thread(embedder, "before the fork")
assert on_thread and compute() is not None  # the parent's query thread is running
pid = os.fork()
if pid == 0:  # the child: embed on a thread of its own, then leave at once
    compute, _ = query_vectors.embed_on_thread(embedder, "in the child")
    os._exit(0 if compute() is not None else 3)
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        sys.exit(os.waitstatus_to_exitcode(status))
    time.sleep(0.02)
os.kill(pid, 9)
sys.exit(5)
"""


def test_a_forked_child_embeds_on_a_thread_of_its_own() -> None:
    """The query thread does not survive a fork: a child that embeds a question makes its own
    instead of queueing work for a thread it does not have (and waiting for ever). Run in a
    fresh process that forks (the test runner has other threads; LanceDB, whose fork support
    is experimental, is left out)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, f"exit {out.returncode} (5: the child hung)\n{out.stderr[-2000:]}"
