"""Issue #14, review: a hostile agent tries to get a write onto main without a review, through
every door of the engine (CLI, MCP, Python API), with review required on main. Real git, real
ssh-keygen keys, real processes; each case names the bypass it closes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import VaultStateError
from clawql_git.review.merge import accept
from clawql_git.review.proposals import list_proposals, set_review_policy

from .conftest import fsck_ok, git

HUMAN = Identity(agent_id="alice", session_id="desk")
BOT = Identity(agent_id="claude-code", session_id="s1")
BRANCH = "proposals/claude-code/s1"
AS_AGENT = {"CLAWQL_AGENT_ID": "claude-code", "CLAWQL_SESSION_ID": "s1"}

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")


@pytest.fixture(autouse=True)
def hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")  # no model download, real vectors


@pytest.fixture
def reviewed(tmp_path: Path) -> Vault:
    """Review required on main, set through the engine; git's user.name is a person's name
    (which the agent, running as the same OS user, controls just as well)."""
    v = Vault.init(tmp_path / "vault", identity=HUMAN)
    v.ingest(type="decision", title="Use JWT", body="Tokens over sessions.", identity=HUMAN)
    git(v.root, "config", "user.name", "Ada")
    set_review_policy(v, True, "alice")
    return v


def keypair(where: Path, name: str) -> tuple[Path, str]:
    """A real ed25519 key without a passphrase: its private file and its public line."""
    key = where / f"{name}_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True
    )
    return key, key.with_suffix(".pub").read_text().strip()


@pytest.fixture
def keyed(tmp_path: Path) -> tuple[Vault, Path, Path]:
    """Review required with identities as keys: ada is exempt and the one reviewer, and only
    her public key is listed. Returns the vault, ada's key and the agent's own key."""
    v = Vault.init(tmp_path / "vault", identity=HUMAN)
    ada, ada_pub = keypair(tmp_path, "ada")
    agent, _ = keypair(tmp_path, "agent")
    (v.root / ".clawql/allowed_signers").write_text(f"ada {ada_pub}\n")
    settings = v.root / ".clawql/vault.toml"
    settings.write_text(
        settings.read_text() + '\n[policy]\nreview = "required"\nreview_exempt = ["ada"]\n'
        'reviewers = ["ada"]\nallowed_signers = ".clawql/allowed_signers"\n'
    )
    git(v.root, "add", "-A")
    git(v.root, "commit", "-qm", "review required, identities are keys")
    git(v.root, "config", "user.name", "Ada")
    return Vault.open(v.root), ada, agent


def run(v: Vault, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, [*args[:1], "--vault", str(v.root), *args[1:]], env=env)


def main_sha(v: Vault) -> str:
    return git(v.root, "rev-parse", "main").stdout.strip()


def proposals(v: Vault) -> list[str]:
    return [p.branch for p in list_proposals(v.store)]


def verifies(v: Vault, sha: str) -> bool:
    """git itself checks the commit's signature against the committed allowed signers."""
    signers = v.root / ".clawql/allowed_signers"
    args = ["-c", "gpg.format=ssh", "-c", f"gpg.ssh.allowedSignersFile={signers}"]
    return git(v.root, *args, "verify-commit", sha, check=False).returncode == 0


# ---------------------------------------------------------------- 1. the policy switch


def test_the_agent_cannot_switch_review_off_from_the_cli(reviewed: Vault) -> None:
    before = main_sha(reviewed)
    r = run(reviewed, "review", "policy", "off", env=AS_AGENT)  # the reviewer was user.name
    assert r.exit_code == 2 and "--reviewer" in r.stderr
    r = run(reviewed, "review", "policy", "off", "--reviewer", "Ada", env=AS_AGENT)
    assert r.exit_code == 4 and "runs as the agent claude-code" in r.stderr
    assert main_sha(reviewed) == before
    assert reviewed.ingest(type="decision", title="P", body="x", identity=BOT).branch == BRANCH


def test_the_agent_cannot_switch_review_off_through_the_api(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="Mine", body="x", identity=BOT)
    before = main_sha(reviewed)
    with pytest.raises(VaultStateError, match="proposals open"):
        set_review_policy(reviewed, False, "claude-code")
    set_review_policy(reviewed, True, "alice", reviewers=["alice"])
    with pytest.raises(VaultStateError, match="not one of the policy's reviewers"):
        set_review_policy(reviewed, False, "mallory")
    assert main_sha(reviewed) != before  # alice's change landed, mallory's did not
    assert "reviewers" in (reviewed.root / ".clawql/vault.toml").read_text()
    assert reviewed.ingest(type="decision", title="Q", body="x", identity=BOT).branch == BRANCH


# ---------------------------------------------------------------- 2. accept's default reviewer


def test_accept_without_a_reviewer_does_not_take_user_name(reviewed: Vault) -> None:
    reviewed.ingest(type="decision", title="Self merge", body="x", identity=BOT)
    before = main_sha(reviewed)
    r = run(reviewed, "review", "accept", BRANCH, env=AS_AGENT)
    assert r.exit_code == 2 and "--reviewer" in r.stderr
    r = run(reviewed, "review", "accept", BRANCH, "--reviewer", "Ada", env=AS_AGENT)
    assert r.exit_code == 4 and "another reviewer" in r.stderr  # the author names someone else
    assert main_sha(reviewed) == before and proposals(reviewed) == [BRANCH]
    r = run(reviewed, "review", "accept", BRANCH, "--reviewer", "Ada", "--json")
    assert r.exit_code == 0, r.output  # a person, naming herself, outside the agent's process
    assert json.loads(r.stdout)["reviewer"] == "Ada"


def test_accept_by_someone_the_policy_does_not_list_is_refused(reviewed: Vault) -> None:
    set_review_policy(reviewed, True, "alice", reviewers=["alice"])
    reviewed.ingest(type="decision", title="Needs alice", body="x", identity=BOT)
    before = main_sha(reviewed)
    with pytest.raises(VaultStateError, match="not one of the policy's reviewers"):
        accept(reviewed, BRANCH, "bob")
    with pytest.raises(VaultStateError, match="another reviewer"):
        accept(reviewed, BRANCH, "claude-code")
    assert main_sha(reviewed) == before and proposals(reviewed) == [BRANCH]
    assert accept(reviewed, BRANCH, "alice").verdict == "accepted"


# ---------------------------------------------------------------- 3. identities are keys


def test_a_claimed_exempt_id_is_not_a_key_cli(keyed: tuple[Vault, Path, Path]) -> None:
    v, _, agent_key = keyed
    before = main_sha(v)
    r = run(v, "memory", "ingest", "--type", "decision", "--title", "Claimed", "--body", "x",
            "--agent", "ada", "--session", "s1", "--json")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["proposal"] == "proposals/ada/s1"
    env = {"CLAWQL_SIGNING_KEY": str(agent_key)}  # signed, but with a key nobody listed
    r = run(v, "memory", "ingest", "--type", "decision", "--title", "Signed by me", "--body", "x",
            "--agent", "ada", "--session", "s1", "--sign", "--json", env=env)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["proposal"] == "proposals/ada/s1"
    assert main_sha(v) == before


def test_a_claimed_exempt_id_is_not_a_key_mcp(keyed: tuple[Vault, Path, Path]) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    v, _, _ = keyed
    env = {k: val for k, val in os.environ.items() if not k.startswith("GIT_")}
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(v.root)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    before = main_sha(v)
    answers: list[dict[str, object]] = []

    async def talk() -> None:
        with (v.root.parent / "stderr.txt").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool(
                    "memory_ingest",
                    {"type": "decision", "title": "Via MCP", "body": "x",
                     "agent_id": "ada", "session_id": "s1"},
                )  # fmt: skip
                assert not result.is_error, result.content
                assert result.structured_content is not None
                answers.append(result.structured_content)

    anyio.run(talk)
    assert answers[0]["proposal"] == "proposals/ada/s1"
    assert main_sha(v) == before


def test_accept_is_signed_by_a_listed_reviewer_key(keyed: tuple[Vault, Path, Path]) -> None:
    v, ada_key, agent_key = keyed
    v.ingest(type="decision", title="Agent idea", body="x", identity=BOT)
    before = main_sha(v)
    r = run(v, "review", "accept", BRANCH, "--reviewer", "ada")  # a name, no key
    assert r.exit_code == 4 and "does not prove ada" in r.stderr
    r = run(v, "review", "accept", BRANCH, "--reviewer", "ada",
            env={"CLAWQL_SIGNING_KEY": str(agent_key)})  # fmt: skip
    assert r.exit_code == 4 and "does not prove ada" in r.stderr
    assert main_sha(v) == before and proposals(v) == [BRANCH]
    # ada's key: the reviewer is the principal it proves, and git verifies the merge
    r = run(v, "review", "accept", BRANCH, "--json", env={"CLAWQL_SIGNING_KEY": str(ada_key)})
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["reviewer"] == "ada"
    assert verifies(v, out["merge_commit"].removeprefix("git:"))
    fsck_ok(v.root)


def test_the_signed_exempt_writer_writes_to_main(keyed: tuple[Vault, Path, Path]) -> None:
    v, ada_key, _ = keyed
    r = run(v, "memory", "ingest", "--type", "decision", "--title", "Ada's call", "--body", "x",
            "--agent", "ada", "--sign", "--json",
            env={"CLAWQL_SIGNING_KEY": str(ada_key)})  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["proposal"] is None and out["commit"] == main_sha(v)
    assert verifies(v, out["commit"])


def test_keys_set_through_the_engine(reviewed: Vault, tmp_path: Path) -> None:
    ada, ada_pub = keypair(tmp_path, "ada")
    signers = tmp_path / "signers"
    signers.write_text(f"ada {ada_pub}\n")
    keys = ["--allow-reviewer", "ada", "--exempt", "ada", "--allowed-signers", str(signers)]
    r = run(reviewed, "review", "policy", "required", "--reviewer", "alice", *keys)
    assert r.exit_code == 0, r.output
    r = run(reviewed, "review", "policy", "show", "--json")
    shown = json.loads(r.stdout)
    assert shown["identities"] == "keys" and shown["reviewers"] == ["ada"] and not shown["notes"]
    # from now on alice, a name without a key, changes nothing; ada's key does
    r = run(reviewed, "review", "policy", "off", "--reviewer", "alice")
    assert r.exit_code == 4 and "not one of the policy's reviewers" in r.stderr
    r = run(reviewed, "review", "policy", "off", env={"CLAWQL_SIGNING_KEY": str(ada)})
    assert r.exit_code == 0, r.output
    assert reviewed.ingest(type="decision", title="Free", body="x", identity=BOT).branch == ""


# ---------------------------------------------------------------- 4. catalog repair


def test_catalog_fix_by_an_agent_under_review_is_refused(reviewed: Vault) -> None:
    set_review_policy(reviewed, True, "alice", exempt=["alice"])
    root = reviewed.root
    (root / "index.md").write_text("drifted\n")
    git(root, "commit", "-qam", "hand edit of the catalog")
    before = main_sha(reviewed)
    r = run(reviewed, "memory", "catalog", "--fix", "--agent", "claude-code")
    assert r.exit_code == 4 and "not exempt" in r.stderr
    r = run(reviewed, "memory", "catalog", "--fix", env=AS_AGENT)
    assert r.exit_code == 4
    assert main_sha(reviewed) == before and proposals(reviewed) == []
    assert reviewed.catalog_fix(HUMAN) is not None  # an exempt identity repairs
    assert reviewed.catalog_drift() == []


# ---------------------------------------------------------------- 5. hand commits of the policy


def test_a_hand_commit_cannot_switch_review_off(reviewed: Vault) -> None:
    settings = reviewed.root / ".clawql/vault.toml"
    settings.write_text(settings.read_text().replace('review = "required"', 'review = "off"'))
    git(reviewed.root, "commit", "-qam", "review off, by hand")
    before = main_sha(reviewed)
    assert reviewed.ingest(type="decision", title="A", body="x", identity=BOT).branch == BRANCH
    settings.write_text(
        settings.read_text().replace(
            'review = "off"', 'review = "off"\nreview_exempt = ["claude-code"]'
        )
    )
    git(reviewed.root, "commit", "-qam", "and exempt the agent, by hand")
    assert reviewed.ingest(type="decision", title="B", body="x", identity=BOT).branch == BRANCH
    shown = json.loads(run(reviewed, "review", "policy", "show", "--json").stdout)
    assert shown["review"] == "required" and shown["review_exempt"] == []
    assert "changed outside the engine" in shown["notes"][0]
    assert git(reviewed.root, "rev-parse", "main~1").stdout.strip() == before
    # a reviewer's policy write adopts nothing the hand commit added
    assert run(reviewed, "review", "policy", "required", "--reviewer", "alice").exit_code == 0
    text = settings.read_text()
    assert "claude-code" not in text and 'review = "required"' in text
    assert not json.loads(run(reviewed, "review", "policy", "show", "--json").stdout)["notes"]


def test_a_hand_commit_cannot_swap_the_keys(keyed: tuple[Vault, Path, Path]) -> None:
    v, ada_key, agent_key = keyed
    r = run(v, "review", "policy", "required", env={"CLAWQL_SIGNING_KEY": str(ada_key)})
    assert r.exit_code == 0, r.output  # ada (her key) sets the policy through the engine
    agent_pub = agent_key.with_suffix(".pub").read_text().strip()
    (v.root / ".clawql/allowed_signers").write_text(f"ada {agent_pub}\n")
    git(v.root, "commit", "-qam", "my key is ada now, by hand")
    r = run(v, "memory", "ingest", "--type", "decision", "--title", "Swapped", "--body", "x",
            "--agent", "ada", "--session", "s1", "--sign", "--json",
            env={"CLAWQL_SIGNING_KEY": str(agent_key)})  # fmt: skip
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["proposal"] == "proposals/ada/s1"


def test_a_hand_commit_may_tighten_the_policy(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=HUMAN)
    settings = v.root / ".clawql/vault.toml"
    settings.write_text(settings.read_text() + '\n[policy]\nreview = "required"\n')
    git(v.root, "commit", "-qam", "require review, by hand")
    assert v.ingest(type="decision", title="Now reviewed", body="x", identity=BOT).branch == BRANCH


# ---------------------------------------------------------------- 6. reject is a reviewer's act


def test_an_agent_cannot_close_another_agents_proposal(reviewed: Vault) -> None:
    """Rejecting deletes the proposal branch: under required review it is a reviewer's act
    like accept. The author may withdraw its own; another agent may not close it, under any
    reviewer name, its own included."""
    reviewed.ingest(type="decision", title="Bot's idea", body="x", identity=BOT)
    other = {"CLAWQL_AGENT_ID": "rival-bot", "CLAWQL_SESSION_ID": "r1"}
    for name in ("Ada", "claude-code", "rival-bot"):
        args = ("review", "reject", BRANCH, "--reason", "no", "--reviewer", name)
        r = run(reviewed, *args, env=other)
        assert r.exit_code == 4 and "review is required" in r.stderr, (name, r.output)
        assert proposals(reviewed) == [BRANCH]
    r = run(reviewed, "review", "reject", BRANCH, "--reason", "withdrawn", "--reviewer",
            "claude-code", env=AS_AGENT)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert proposals(reviewed) == []
    reviewed.ingest(type="decision", title="Second idea", body="x", identity=BOT)
    r = run(reviewed, "review", "reject", BRANCH, "--reason", "not now", "--reviewer", "Ada")
    assert r.exit_code == 0, r.output  # a person, outside any agent's process
    assert proposals(reviewed) == []


def test_an_agent_naming_itself_reviewer_cannot_accept_another_agents_proposal(
    reviewed: Vault,
) -> None:
    reviewed.ingest(type="decision", title="Bot's plan", body="x", identity=BOT)
    before = main_sha(reviewed)
    other = {"CLAWQL_AGENT_ID": "rival-bot", "CLAWQL_SESSION_ID": "r1"}
    r = run(reviewed, "review", "accept", BRANCH, "--reviewer", "rival-bot", env=other)
    assert r.exit_code == 4 and "runs as the agent rival-bot" in r.stderr, r.output
    assert main_sha(reviewed) == before and proposals(reviewed) == [BRANCH]
