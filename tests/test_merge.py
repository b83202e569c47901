"""Two clones writing at once: git merges them, catalogs are regenerated, nothing is lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawql_git import Identity, Vault

from .conftest import fsck_ok, git


@pytest.fixture
def clones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    origin = Vault.init(tmp_path / "origin", identity=Identity(agent_id="seed"))
    origin.ingest(type="decision", title="Seed", body="x", identity=Identity(agent_id="seed"))
    bare = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.root), str(bare))
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(bare), str(clone))
        Vault.init(clone)  # an existing vault: installs hooks and the merge driver
    return bare, a, b


def test_concurrent_writers_merge_without_conflicts(clones: tuple[Path, Path, Path]) -> None:
    _, a, b = clones
    for n in range(5):
        Vault.open(a).ingest(type="pattern", title=f"From A {n}", identity=Identity(agent_id="a"))
        Vault.open(b).ingest(type="context", title=f"From B {n}", identity=Identity(agent_id="b"))
    assert git(a, "push", "-q", "origin", "main").returncode == 0
    env_pull = git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert env_pull.returncode == 0, env_pull.stdout + env_pull.stderr
    vault = Vault.open(b)
    assert vault.catalog_drift() == []  # the post-merge hook regenerated the catalogs
    titles = {e.title for e in vault.entries()}
    assert {f"From A {n}" for n in range(5)} | {f"From B {n}" for n in range(5)} <= titles
    assert (
        git(b, "log", "-1", "--format=%(trailers:key=Clawql-Event,valueonly)").stdout.strip()
        == "MEMORY_CATALOG_FIX"
    )
    assert vault.verify().ok, vault.verify().problems
    assert git(b, "status", "--porcelain").stdout == ""
    fsck_ok(b)


def test_merged_branch_events_stay_in_log_audit_and_history(
    clones: tuple[Path, Path, Path],
) -> None:
    _, a, _ = clones
    vault = Vault.open(a)
    git(a, "checkout", "-q", "-b", "feature")
    feat = vault.ingest(type="decision", title="On the branch", identity=Identity(agent_id="f"))
    git(a, "checkout", "-q", "main")
    Vault.open(a).ingest(type="context", title="On main", identity=Identity(agent_id="m"))
    assert git(a, "merge", "-q", "--no-edit", "feature", check=False).returncode == 0
    vault = Vault.open(a)
    from clawql_git import LogFilter

    assert [r.paths[0] for r in vault.log(LogFilter(agent="f"))] == [feat.path]
    view = vault.get(feat.path)
    assert view.first_ref == feat.worm_ref  # not the merge commit
    assert f"[[{feat.path}|On the branch]]" in (a / "log.md").read_text()
    assert vault.catalog_drift() == [] and vault.verify().ok
