"""Protected remotes, tested with real `git push` into a real bare repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli

from .conftest import AGENT, git

AWS_KEY = "AKIA" + "QX7RTBZ3L5MNK2PW"


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """A vault (the agent's clone) and a protected bare remote it pushes to."""
    vault = Vault.init(tmp_path / "agent", identity=AGENT)
    vault.ingest(type="decision", title="First decision", body="ok", identity=AGENT)
    vault.close()
    remote = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    result = CliRunner().invoke(cli, ["remote", "protect", str(remote)])
    assert result.exit_code == 0, result.output
    git(vault.root, "remote", "add", "origin", str(remote))
    assert push(vault.root).returncode == 0
    return vault.root, remote


def push(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return git(root, "push", "-q", "origin", "main", *args, check=False)


def test_protect_sets_the_receive_settings(team: tuple[Path, Path]) -> None:
    _, remote = team
    for key in ("receive.denyNonFastForwards", "receive.denyDeletes", "receive.fsckObjects"):
        assert git(remote, "config", "--get", key).stdout.strip() == "true"
    assert (remote / "hooks" / "pre-receive").stat().st_mode & 0o111


def test_a_good_push_lands(team: tuple[Path, Path]) -> None:
    root, remote = team
    Vault.open(root).ingest(type="pattern", title="Retry with jitter", body="fine")
    assert push(root).returncode == 0
    assert git(remote, "rev-parse", "main").stdout == git(root, "rev-parse", "HEAD").stdout


def test_force_push_is_refused(team: tuple[Path, Path]) -> None:
    root, remote = team
    Vault.open(root).ingest(type="pattern", title="Will be rewritten")
    assert push(root).returncode == 0
    git(root, "commit", "--amend", "-qm", "rewritten")
    result = push(root, "--force")
    assert result.returncode != 0 and "non-fast-forward" in result.stderr
    assert git(remote, "rev-parse", "main").stdout != git(root, "rev-parse", "HEAD").stdout


def test_branch_deletion_is_refused(team: tuple[Path, Path]) -> None:
    root, remote = team
    git(root, "push", "-q", "origin", "main:refs/heads/other")
    result = git(root, "push", "origin", ":refs/heads/other", check=False)
    assert result.returncode != 0 and "delet" in result.stderr
    assert git(remote, "rev-parse", "--verify", "refs/heads/other").returncode == 0


def commit_file(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    git(root, "add", rel)
    git(root, "commit", "-qm", f"hand-written {rel}")


def test_an_entry_without_type_is_refused(team: tuple[Path, Path]) -> None:
    root, remote = team
    before = git(remote, "rev-parse", "main").stdout
    commit_file(root, "decisions/2026-12/no-type.md", "---\ntitle: No type\n---\nbody\n")
    result = push(root)
    assert result.returncode != 0
    assert "decisions/2026-12/no-type.md" in result.stderr and "'type' is required" in result.stderr
    assert git(remote, "rev-parse", "main").stdout == before


def test_a_committed_secret_is_refused_and_not_echoed(team: tuple[Path, Path]) -> None:
    root, remote = team
    before = git(remote, "rev-parse", "main").stdout
    commit_file(root, "notes/creds.txt", f"aws {AWS_KEY}\n")
    result = push(root)
    assert result.returncode != 0 and "secret" in result.stderr
    assert git(remote, "rev-parse", "main").stdout == before
    assert AWS_KEY not in result.stderr
    assert "notes/creds.txt" in result.stderr


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")
def test_signing_policy(team: tuple[Path, Path], tmp_path: Path) -> None:
    root, remote = team
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    public = (tmp_path / "id_ed25519.pub").read_text().strip()
    signers = root / ".clawql" / "allowed_signers"
    signers.write_text(f"claude-code@agents.clawql {public}\n")
    toml = root / ".clawql" / "vault.toml"
    toml.write_text(
        toml.read_text() + "\n[policy]\nrequire_signed = true\n"
        'allowed_signers = ".clawql/allowed_signers"\n'
    )
    git(root, "add", ".clawql")
    git(root, "commit", "-qm", "policy: signed commits")
    assert push(root).returncode == 0  # the policy of the ref as it was
    Vault.open(root).ingest(type="context", title="Unsigned note", identity=AGENT)
    result = push(root)
    assert result.returncode != 0 and "not signed by an allowed signer" in result.stderr
    git(root, "reset", "-q", "--hard", "origin/main")
    r = CliRunner().invoke(
        cli,
        [
            "memory",
            "--vault",
            str(root),
            "ingest",
            "--type",
            "context",
            "--title",
            "Signed note",
            "--sign",
            "--agent",
            "claude-code",
        ],
        env={"CLAWQL_SIGNING_KEY": str(key)},
    )
    assert r.exit_code == 0, r.output
    sha = git(root, "rev-parse", "HEAD").stdout.strip()
    shown = git(root, "cat-file", "commit", sha).stdout
    assert "gpgsig -----BEGIN SSH SIGNATURE-----" in shown
    assert push(root).returncode == 0
    assert git(remote, "rev-parse", "main").stdout.strip() == sha


def test_remote_protect_refuses_a_work_tree(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=Identity(agent_id="x"))
    r = CliRunner().invoke(cli, ["remote", "protect", str(v.root)])
    assert r.exit_code == 2 and "bare" in r.output
