"""No secret enters history through commit metadata (#14's first doors, at the write path's
depth): a credential in who-wrote-it flags or in a path refuses the write with nothing
written; one in what a reader typed (a query, --reader, --session, a rejection's reason) is
redacted on the audit chain, which push publishes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.model.secrets import redact, scan
from clawql_git.review.proposals import list_proposals, set_review_policy

from .conftest import AGENT, git
from .test_mcp import errlog, ok, over_stdio, server_env

__all__ = ["errlog", "server_env"]

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # built so this file holds none whole


def state(root: Path) -> tuple[str, str]:
    refs = git(root, "for-each-ref", "--format=%(refname) %(objectname)").stdout
    return refs, git(root, "status", "--porcelain").stdout


def everything_git_holds(root: Path) -> str:
    """Every commit message, author and path on every ref, as plain git shows them."""
    log = git(root, "log", "--all", "--format=%an %ae%n%B", "--name-only").stdout
    return log + git(root, "ls-tree", "-r", "--name-only", "HEAD").stdout


def cli_run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["memory", "--vault", str(root), *args])
    return result.exit_code, result.output


@pytest.fixture
def entry(vault: Vault) -> str:
    return vault.ingest(type="decision", title="Use JWT", body="Stateless.", identity=AGENT).path


@pytest.mark.parametrize(
    "args",
    [
        ["update", "{p}", "--set", "k=1", "--correlation", TOKEN],
        ["update", "{p}", "--set", "k=1", "--agent", TOKEN],
        ["update", "{p}", "--set", "k=1", "--session", TOKEN],
        ["update", "{p}", "--set", "k=1", "--verdict", TOKEN],
        ["archive", "{p}", "--correlation", TOKEN],
        ["ingest", "--type", "decision", "--title", "Keys", "--path", f"notes/{TOKEN}.md"],
    ],
)
def test_a_secret_in_metadata_refuses_the_write(vault: Vault, entry: str, args: list[str]) -> None:
    before = state(vault.root)
    code, out = cli_run(vault.root, *(a.replace("{p}", entry) for a in args))
    assert code == 2 and "secret" in out.lower() and TOKEN not in out
    assert state(vault.root) == before
    assert TOKEN not in everything_git_holds(vault.root)


def test_the_python_api_refuses_the_same(vault: Vault, entry: str) -> None:
    before = state(vault.root)
    with pytest.raises(Exception, match=r"(?i)secret"):
        vault.update(entry, changes={"k": 1}, identity=Identity(agent_id="a", correlation_id=TOKEN))
    assert state(vault.root) == before


def test_what_a_reader_types_is_redacted_on_the_audit_chain(vault: Vault, entry: str) -> None:
    code, out = cli_run(vault.root, "recall", f"jwt {TOKEN}", "--reader", TOKEN)
    assert code == 0, out
    vault.recall(f"stateless {TOKEN}", identity=Identity(agent_id="x", session_id=TOKEN))
    chain = git(vault.root, "log", "--format=%an %ae%n%B", "refs/clawql/audit").stdout
    assert TOKEN not in chain and "[redacted github-token]" in chain
    assert vault.verify().ok


def test_a_rejection_reason_is_redacted(vault: Vault, entry: str) -> None:
    set_review_policy(vault, True, "alice")
    agent = Identity(agent_id="claude-code", session_id="s1")
    vault.ingest(type="decision", title="Proposed", body="Later.", identity=agent)
    [proposal] = list_proposals(vault.store)
    args = ["review", "--vault", str(vault.root), "reject", proposal.branch]
    result = CliRunner().invoke(cli, [*args, "--reason", TOKEN, "--reviewer", "alice"])
    assert result.exit_code == 0, result.output
    assert TOKEN not in everything_git_holds(vault.root)


def test_an_mcp_recall_query_is_redacted(
    vault: Vault, entry: str, server_env: dict[str, str], errlog: Path
) -> None:
    vault.close()

    async def body(session: ClientSession) -> None:
        await ok(session, "memory_recall", query=f"jwt {TOKEN}", session_id=TOKEN)

    over_stdio(vault.root, server_env, errlog, body)
    assert TOKEN not in git(vault.root, "log", "--format=%B", "refs/clawql/audit").stdout


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "sha 0f6c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d, uuid 123e4567-e89b-12d3-a456-426614174000"
    assert redact(text) == text and scan(redact(f"x {TOKEN} y")) == []


AWS_LINE = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzzzzzzz\n"


def test_adopt_refuses_a_secret_in_any_file_and_writes_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("---\ntype: note\n---\n# A\n")
    (notes / "config.env").write_text(AWS_LINE)
    result = CliRunner().invoke(cli, ["memory", "init", str(notes), "--adopt"])
    assert result.exit_code == 2 and "config.env" in result.output
    assert "wJalrXUtnFEMI" not in result.output
    assert not (notes / ".git").exists() and sorted(p.name for p in notes.iterdir()) == [
        "a.md",
        "config.env",
    ]


@pytest.mark.parametrize("door", ["adopt", "import"])
def test_a_symlink_is_never_followed_into_history(vault: Vault, tmp_path: Path, door: str) -> None:
    outside = tmp_path / "credentials"
    outside.write_text(AWS_LINE)
    folder = tmp_path / f"in-{door}"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntype: note\n---\n# A\n")
    (folder / "creds.md").symlink_to(outside)
    (folder / "passwd.md").symlink_to("/etc/passwd")
    before = state(vault.root)
    if door == "adopt":
        args = ["memory", "init", str(folder), "--adopt"]
    else:
        args = ["memory", "--vault", str(vault.root), "import", str(folder), "--type", "note"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "creds.md" in result.output and "symbolic link" in result.output
    assert not (folder / ".git").exists() and state(vault.root) == before
    assert "root:" not in everything_git_holds(vault.root)


def test_the_writer_scans_every_raw_file_it_commits(vault: Vault) -> None:
    from clawql_git.vault.writer import Plan

    before = state(vault.root)
    plan = Plan(
        "MEMORY_ONTOLOGY", {}, "add a schema", raw_files={"ontology/x.cqe": AWS_LINE.encode()}
    )
    with pytest.raises(Exception, match=r"(?i)secret"):
        vault.writer.write(lambda tree: plan, AGENT)
    assert state(vault.root) == before
