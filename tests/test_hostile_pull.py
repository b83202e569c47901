"""`clawql memory pull` from a team remote that is not protected (or was written around its
hook): what the pull would bring is held to the protected remote's checks before anything is
merged. A pulled symlink used to let the next ingest write outside the vault; a pulled token
entered history."""

from __future__ import annotations

import base64
import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import CheckFailed
from clawql_git.team.sharing import clone, pull

from .conftest import git

SEED = Identity(agent_id="seed")


def fake_github_token() -> str:
    """ghp_ and 36 characters, built at run time (no real-looking token in the repository)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    rng = random.Random("pull")
    return "ghp" + "_" + "".join(rng.choice(alphabet) for _ in range(36))


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An unprotected bare team remote and an engine clone of it (``mine``)."""
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    origin = Vault.init(tmp_path / "origin", identity=SEED)
    origin.ingest(type="decision", title="Kafka for the ledger", body="Consumer groups.")
    origin.close()
    remote = tmp_path / "team.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.root), str(remote))
    mine = clone(str(remote), tmp_path / "mine", eager_index=False)
    mine.close()
    return remote, mine.root


def hand_push(tmp_path: Path, remote: Path, make: dict[str, str | None], link: str = "") -> None:
    """A plain-git clone commits ``make`` (path -> text) and an optional symlink, and pushes."""
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    for path, text in make.items():
        target = other / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text or "")
    if link:
        os.symlink(tmp_path / "elsewhere", other / link)
    git(other, "add", "-A")
    git(other, "-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "-qm", "hand")
    git(other, "push", "-q", "origin", "HEAD:main")


def assert_unchanged(root: Path, head: str) -> None:
    assert git(root, "rev-parse", "HEAD").stdout.strip() == head
    assert git(root, "status", "--porcelain").stdout == ""


def test_a_pulled_symlink_is_refused_before_the_merge(
    team: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, root = team
    (tmp_path / "elsewhere").mkdir()
    hand_push(tmp_path, remote, {}, link="patterns")
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    with pytest.raises(CheckFailed, match=r"symbolic link|symlink") as caught:
        pull(Vault.open(root))
    assert "nothing was merged" in caught.value.message
    assert_unchanged(root, head)
    assert not (root / "patterns").exists()
    # the next ingest of a pattern stays inside the vault
    Vault.open(root).ingest(type="pattern", title="Retry with jitter", body="Backoff.")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_pulled_token_is_refused_through_the_cli(team: tuple[Path, Path], tmp_path: Path) -> None:
    remote, root = team
    token = fake_github_token()
    entry = f"---\ntype: decision\ntitle: Deploy key\n---\nThe deploy token is {token}.\n"
    hand_push(tmp_path, remote, {"decisions/2026-12/deploy-key.md": entry})
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    r = CliRunner().invoke(cli, ["memory", "--vault", str(root), "pull"])
    assert r.exit_code == 1, r.output
    assert "nothing was merged" in r.output and "deploy-key.md" in r.output
    assert token not in r.output
    assert_unchanged(root, head)
    log = git(root, "log", "--all", "-p", "--format=%B").stdout
    assert token not in log  # not on main, nor on refs/remotes/origin/main


def test_a_pulled_binary_entry_is_refused(team: tuple[Path, Path], tmp_path: Path) -> None:
    remote, root = team
    blob = base64.b64decode("AAECAw==").decode("latin-1")
    hand_push(tmp_path, remote, {"decisions/2026-12/bin.md": "---\ntype: decision\n---\n" + blob})
    head = git(root, "rev-parse", "HEAD").stdout.strip()
    with pytest.raises(CheckFailed):
        pull(Vault.open(root))
    assert_unchanged(root, head)


def test_a_clean_pull_still_lands(team: tuple[Path, Path], tmp_path: Path) -> None:
    remote, root = team
    entry = "---\ntype: decision\ntitle: Use Postgres\n---\nPostgres 16 for the ledger.\n"
    hand_push(tmp_path, remote, {"decisions/2026-12/use-postgres.md": entry})
    result = pull(Vault.open(root))
    assert result.incoming == 1
    assert (root / "decisions/2026-12/use-postgres.md").is_file()
