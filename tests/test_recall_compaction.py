"""Compaction: prunes old table versions, and in a long-lived process runs in a thread after
the write that makes it due (not inline on that write), with recall unchanged by it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.index import store
from clawql_git.index.embedders import HashEmbedder

from .conftest import AGENT, SAMPLE


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    monkeypatch.setattr(store, "OPTIMIZE_EVERY", 3)
    monkeypatch.setattr(store, "OPTIMIZE_INLINE", 9)
    root = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["memory", "init", str(root), "--from", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    return root


def write_and_update(vault: Vault, n: int) -> None:
    vault.ingest(type="context", title=f"Compaction note {n}", body=f"Body {n}.", identity=AGENT)
    vault.update_index()


def versions(vault: Vault) -> int:
    return len(vault.recall_service().index.db().open_table("chunks").list_versions())


def hits(vault: Vault) -> list[tuple[str, float]]:
    result = vault.recall("compaction note body", limit=10, use_cache=False)
    return [(h.path, h.score) for h in result.hits]


@pytest.mark.filterwarnings("ignore:optimize.cleanup_older_than=0.:UserWarning")
def test_inline_compaction_prunes_old_versions(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "CLEANUP_AFTER", timedelta(0))
    vault = Vault.open(demo, embedder=HashEmbedder())
    vault.update_index()
    for n in range(2):
        write_and_update(vault, n)
    before = versions(vault)
    write_and_update(vault, 2)  # the third write since the build: compacts, inline
    stamp = vault.recall_service().index.stamp()
    assert stamp is not None and stamp.writes == 0
    assert versions(vault) < before


def test_background_compaction_runs_after_the_write_and_changes_no_answer(demo: Path) -> None:
    vault = Vault.open(demo, embedder=HashEmbedder())
    index = vault.recall_service().index
    index.background_compaction = True
    vault.update_index()
    for n in range(3):
        write_and_update(vault, n)
    stamp = index.stamp()
    assert stamp is not None and stamp.writes == 3  # the write itself did not compact
    assert hits(vault)
    index.wait_for_compaction()
    stamp = index.stamp()
    assert stamp is not None and stamp.writes == 0  # the thread did
    # Compaction folds the new rows into the FTS index, which moves BM25 scores a little (as
    # an inline compaction does); the warm process answers as a fresh one does afterwards.
    assert hits(vault) == hits(Vault.open(demo, embedder=HashEmbedder()))


def test_background_compaction_still_compacts_inline_when_far_behind(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store.SearchIndex, "compact", lambda self: False)  # it never gets to run
    vault = Vault.open(demo, embedder=HashEmbedder())
    index = vault.recall_service().index
    index.background_compaction = True
    vault.update_index()
    for n in range(9):
        write_and_update(vault, n)
    stamp = index.stamp()
    assert stamp is not None and stamp.writes == 0  # the backstop at OPTIMIZE_INLINE writes
