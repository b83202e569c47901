"""One read path: every door that returns entry content (recall, show/get, history, export,
recent; the CLI, the MCP server and the Python API) goes through the vault's reader, which
refuses or withholds PHI without allow_pii and records the read, so ``audit reads --pii PHI``
answers for all of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import PiiRefused

from .conftest import AGENT, git
from .test_mcp import errlog, ok, over_stdio, refused, server_env

__all__ = ["errlog", "server_env"]  # the MCP tests' fixtures, used here too

READER = Identity(agent_id="auditor-agent", session_id="S-7")


def phi_vault(root: Path) -> tuple[Vault, str]:
    vault = Vault.init(root, identity=AGENT)
    vault.ingest(type="decision", title="Plain note", body="Nothing private.", identity=AGENT)
    phi = vault.ingest(
        type="context",
        title="Patient intake record",
        body="Patient Jane Roe, allergy to penicillin.",
        meta={"pii_classification": "PHI", "verdict": "passed"},
        identity=AGENT,
    )
    return vault, phi.path


def cli_run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["memory", "--vault", str(root), *args])
    return result.exit_code, result.output


def audit_head(root: Path) -> str:
    return git(root, "rev-parse", "--verify", "-q", "refs/clawql/audit", check=False).stdout.strip()


def test_python_doors_refuse_without_allow_pii_and_record_either_way(tmp_path: Path) -> None:
    vault, path = phi_vault(tmp_path / "v")
    for door in (
        lambda **kw: vault.get(path, identity=READER, **kw),
        lambda **kw: vault.history(path, identity=READER, **kw),
    ):
        before = audit_head(vault.root)
        with pytest.raises(PiiRefused, match="allow-pii"):
            door()
        assert audit_head(vault.root) != before  # the refused attempt is on the chain
        door(allow_pii=True)
    exported = vault.entries(identity=READER)
    assert path not in [e.path for e in exported] and exported  # withheld, the rest returned
    assert path in [e.path for e in vault.entries(identity=READER, allow_pii=True)]
    answer = vault.audit_reads(pii="PHI", session="S-7")
    doors = sorted({ev.door for ev in answer.matches})
    assert doors == ["export", "get", "history"]
    assert sorted({ev.door for ev in answer.refused}) == ["export", "get", "history"]
    assert "refused attempt" in answer.statement()


def test_recent_withholds_phi_context(tmp_path: Path) -> None:
    vault, path = phi_vault(tmp_path / "v")
    assert path not in [c["path"] for c in vault.recent(identity=READER)["context"]]
    assert path in [c["path"] for c in vault.recent(identity=READER, allow_pii=True)["context"]]
    answer = vault.audit_reads(path=path)
    assert [ev.door for ev in answer.matches] == ["recent"]
    assert [ev.door for ev in answer.refused] == ["recent"]


def test_reads_are_not_recorded_when_recording_is_off(tmp_path: Path) -> None:
    vault, path = phi_vault(tmp_path / "v")
    quiet = Vault.open(vault.root, record_recalls=False)
    quiet.get(path, allow_pii=True)
    assert audit_head(vault.root) == ""


def test_cli_show_history_export_are_audited(tmp_path: Path) -> None:
    vault, path = phi_vault(tmp_path / "v")
    root = vault.root
    code, out = cli_run(root, "show", path, "--reader", "cli-agent", "--session", "S-cli")
    assert code == 2 and "allow-pii" in out
    code, out = cli_run(root, "show", path, "--allow-pii", "--session", "S-cli")
    assert code == 0 and "penicillin" in out
    code, out = cli_run(root, "history", path, "--allow-pii", "--session", "S-cli", "--json")
    assert code == 0 and json.loads(out)
    code, out = cli_run(root, "export", "--flywheel", "--session", "S-cli")
    assert code == 0 and "penicillin" not in out and "Nothing private" not in out
    code, out = cli_run(root, "audit", "reads", "--pii", "PHI", "--session", "S-cli", "--json")
    record = json.loads(out)
    doors = sorted({m["door"] for m in record["matches"]})
    refused = sorted({m["door"] for m in record["refused"]})
    assert doors == ["get", "history"] and refused == ["export", "get"]


def test_mcp_get_history_recent_are_audited_through_the_real_client(
    tmp_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    vault, path = phi_vault(tmp_path / "v")
    vault.close()

    async def body(session: ClientSession) -> None:
        text = await refused(session, "memory_get", path=path, session_id="S-mcp")
        assert "allow-pii" in text and "PiiRefused" in text and "penicillin" not in text
        got = await ok(session, "memory_get", path=path, allow_pii=True, session_id="S-mcp")
        assert "penicillin" in got["body"]
        await ok(session, "memory_history", path=path, allow_pii=True, session_id="S-mcp")
        recent = await ok(session, "memory_recent", session_id="S-mcp")
        assert path not in [c["path"] for c in recent["context"]]

    over_stdio(vault.root, server_env, errlog, body)
    answer = Vault.open(vault.root).audit_reads(pii="PHI", session="S-mcp")
    assert sorted(ev.door for ev in answer.matches) == ["get", "history"]
    assert sorted(ev.door for ev in answer.refused) == ["get", "recent"]
    assert all(ev.agent for ev in answer.matches)  # the server's caller when a call names none
