"""Shared fixtures: an isolated environment (HOME, CLAWQL_*, GIT_*) and fresh vaults."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

from clawql_git import Identity, Vault

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample-vault"
# The full ADR corpus (494 records of nine projects) lives beside the clone, in ../shared, on
# the team's machines and in CI; a user's clone has no such folder. Tests that need all of it
# ask for it with ``adr_corpus()``; the rest use ADR_SAMPLE, 20 of its JabRef records (MIT,
# byte-for-byte, listed with their commits in MANIFEST.tsv) kept in the repository.
ADR = ROOT.parent / "shared" / "corpora" / "adr"
ADR_SAMPLE = ROOT / "tests" / "fixtures" / "adr"
AGENT = Identity(agent_id="test-agent", session_id="sess-1")
# Read once at import: ``isolated_env`` removes every CLAWQL_* variable before each test.
IN_CI = bool(os.environ.get("CLAWQL_CI"))


def bench_module(name: str) -> ModuleType:
    """``bench/NAME.py`` imported as a module (with ``bench/`` on the path while it loads, for
    its own imports of the other bench scripts)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def skip_or_fail(reason: str) -> NoReturn:
    """Skip on a developer's machine; fail under CI (``CLAWQL_CI=1``), where everything the
    tests need is installed, so a broken setup can never pass as skipped tests."""
    if IN_CI:
        pytest.fail(f"CI: {reason}")
    pytest.skip(reason)


def adr_corpus() -> Path:
    """The full ADR corpus in ../shared, or skip (fail under CI) naming where it was looked for."""
    if not ADR.is_dir():
        skip_or_fail(f"the ADR corpus is not at {ADR} (a ../shared checkout beside the clone)")
    return ADR


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(("CLAWQL_", "GIT_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Human")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "human@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Human")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "human@example.com")


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample vault seeded one commit per entry (``clawql memory init --from``); its
    hooks use the hash embedder."""
    from click.testing import CliRunner

    from clawql_git.cli import cli

    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    root = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["memory", "init", str(root), "--from", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    v = Vault.init(tmp_path / "vault", identity=AGENT)
    yield v
    v.close()


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real git binary."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def fsck_ok(path: Path) -> None:
    result = git(path, "fsck", "--strict", "--no-dangling", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def blobs_at(root: Path, pairs: list[tuple[str, str]]) -> list[bool]:
    """For each (sha, path): does that commit's tree hold a blob at that path (real git)?"""
    stdin = "".join(f"{sha}:{path}\n" for sha, path in pairs)
    out = subprocess.run(
        ["git", "cat-file", "--batch-check=%(objecttype)"],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [line == "blob" for line in out]
