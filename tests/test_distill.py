"""Session distillation (#16.2): a transcript becomes one ``type: context`` entry that names
what was decided and the next step, and that the next session's ``recent`` shows first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput
from tests.chat_server import chat_server

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
JSONL = FIXTURES / "claude-session.jsonl"
MARKDOWN = FIXTURES / "design-chat.md"
SESSION = "3f9c2a71-5d0e-4b8a-9c61-2e7d4f1a8b90"
JWT = "decisions/2026-07/auth-jwt-over-sessions.md"


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def _seed(vault: Vault) -> None:
    vault.ingest(
        type="decision",
        title="Use JWT over server sessions",
        body="Access tokens are JWTs; sessions are not kept on the server.",
        tags=["auth"],
        path=JWT,
    )
    vault.ingest(type="context", title="Earlier work on billing", body="Invoices were paged.")


def _head(vault: Vault) -> str:
    head = vault.store.head_commit()
    return str(head.id) if head is not None else ""


def test_a_claude_code_session_becomes_a_context_entry_that_recent_shows_first(
    vault: Vault,
) -> None:
    _seed(vault)
    result = vault.distill(JSONL.read_bytes(), identity=Identity(agent_id="claude-code"))
    assert result.write is not None and not result.write.noop
    entry = vault.get(result.write.path).entry
    assert entry.type == "context" and result.write.path.startswith("context/")
    assert entry.meta["session_id"] == SESSION  # the transcript's own session id
    assert entry.meta["distill_method"] == "extractive"
    body = entry.body
    decided = body.split("## Decided")[1].split("##")[0]
    assert "rotating refresh tokens" in decided and "Redis" in decided
    assert "TTL didn't work" in body.split("## Tried and rejected")[1].split("##")[0]
    assert "staging Redis credentials" in body.split("## Blocked")[1].split("##")[0]
    assert "wire RefreshTokenStore" in body.split("## Next step")[1].split("##")[0]
    assert "`/home/dev/shop/src/auth/token_store.py` (written)" in body
    assert "`rotate_refresh_token`" in body and "`RefreshTokenStore`" in body
    # the recalled entry exists and is linked; the one the session wrote elsewhere does not
    assert "recalled: [[decisions/2026-07/auth-jwt-over-sessions]]" in body
    assert "rotate-refresh-tokens" not in body
    assert entry.description.startswith("Next: Next step: wire RefreshTokenStore")

    recent = vault.recent()
    assert recent["context"][0]["path"] == result.write.path  # before the earlier context
    assert "wire RefreshTokenStore" in recent["context"][0]["summary"]
    hits = vault.recall("rotating refresh tokens redis family", limit=3).hits
    assert hits[0].path == result.write.path
    assert JWT in {edge.target for edge in vault.link_graph().outgoing(result.write.path)}


def test_a_markdown_transcript_and_a_dry_run(vault: Vault) -> None:
    _seed(vault)
    before = _head(vault)
    dry = vault.distill(MARKDOWN.read_text(), dry_run=True)
    assert dry.write is None and _head(vault) == before  # nothing written
    assert dry.distillation.decided[0].startswith("Decided: diff the nightly export by row hash")
    assert "change-feed consumer" in dry.distillation.rejected[0]
    assert dry.distillation.next == (
        "Add a row-hash column to the export job",
        "Benchmark the incremental run against the four-hour full run",
    )
    assert dry.distillation.blocked[0].startswith("Blocked on access to the production export")
    written = vault.distill(MARKDOWN.read_text(), project="search")
    assert written.write is not None
    assert vault.recent(project="search")["context"][0]["path"] == written.write.path
    assert written.fields.body.strip() == vault.get(written.write.path).entry.body.strip()


def test_the_audit_of_the_sessions_recalls_is_linked(vault: Vault) -> None:
    _seed(vault)
    vault.recall("JWT sessions", identity=Identity(agent_id="a", session_id="sess-audit"))
    result = vault.distill(MARKDOWN.read_text(), identity=Identity(session_id="sess-audit"))
    assert result.write is not None
    assert f"recalled: [[{JWT.removesuffix('.md')}]]" in result.fields.body
    assert vault.get(result.write.path).entry.meta["session_id"] == "sess-audit"


def test_bad_transcripts_and_secrets_write_nothing(vault: Vault) -> None:
    _seed(vault)
    before = _head(vault)
    broken = JSONL.read_text().splitlines()
    broken.insert(3, "{not json")
    with pytest.raises(InvalidInput, match="transcript line 4 is not JSON"):
        vault.distill("\n".join(broken))
    with pytest.raises(InvalidInput, match="empty"):
        vault.distill("  \n")
    assert _head(vault) == before
    key = "AKIA" + "QX7RTBZ3L5MNK2PW"  # built here so this file holds no key-shaped string
    text = f"User: deploy it\n\nAssistant: We decided to use the key {key} for the bucket.\n"
    text += "We decided to deploy on Fridays only.\n"
    result = vault.distill(text)
    assert result.write is not None and key not in vault.get(result.write.path).entry.render()
    assert result.distillation.decided == ("We decided to deploy on Fridays only.",)
    assert any("secret" in w for w in result.warnings)


def test_a_configured_llm_endpoint_writes_the_parts(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(vault)
    reply = {
        "decided": ["Rotate refresh tokens, one family per login, kept in Redis"],
        "rejected": ["A 24-hour access-token TTL: the security tests cap it at one hour"],
        "in_progress": ["Reuse detection"],
        "blocked": ["Staging Redis credentials"],
        "next": ["Wire RefreshTokenStore into the refresh endpoint"],
    }
    with chat_server(json.dumps(reply)) as server:
        monkeypatch.setenv("CLAWQL_LLM_URL", server.url)
        monkeypatch.setenv("CLAWQL_LLM_MODEL", "local-model")
        monkeypatch.setenv("CLAWQL_LLM_API_KEY", "sk-local-test")
        result = vault.distill(JSONL.read_text(), dry_run=True)
        offline = vault.distill(JSONL.read_text(), dry_run=True, offline=True)
    assert result.distillation.method == "llm:local-model"
    assert result.distillation.next == ("Wire RefreshTokenStore into the refresh endpoint",)
    assert result.distillation.files_written == offline.distillation.files_written
    assert offline.distillation.method == "extractive" and len(server.requests) == 1
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer sk-local-test"
    assert sent["body"]["model"] == "local-model"
    assert "RefreshTokenStore" in sent["body"]["messages"][1]["content"]


def test_a_failing_llm_endpoint_fails_open_to_the_offline_distiller(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    with chat_server(status=503) as server:
        monkeypatch.setenv("CLAWQL_LLM_URL", server.url)
        result = vault.distill(MARKDOWN.read_text())
    assert result.write is not None and result.distillation.method == "extractive"
    assert any("HTTP 503" in w and "distilled offline" in w for w in result.warnings)


def test_the_cli(vault: Vault) -> None:
    _seed(vault)
    root = str(vault.root)
    runner = CliRunner()
    dry = runner.invoke(cli, ["memory", "--vault", root, "distill", str(MARKDOWN), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "## Next step\n\n- Add a row-hash column to the export job" in dry.output
    done = runner.invoke(
        cli, ["memory", "--vault", root, "distill", str(JSONL), "--session", "s-9", "--json"]
    )
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["write"]["path"].startswith("context/") and not record["dry_run"]
    assert record["distillation"]["next"][0].startswith("Next step: wire RefreshTokenStore")
    bad = runner.invoke(cli, ["memory", "--vault", root, "distill", "-"], input="{oops\n")
    assert bad.exit_code == 2 and "transcript line 1 is not JSON" in bad.output


def test_the_mcp_tool_through_the_real_client(tmp_path: Path, vault: Vault) -> None:
    import os
    import sys

    from tests.test_mcp import ok, over_stdio

    _seed(vault)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    env.update(CLAWQL_EMBEDDING_MODEL="hash", GIT_CONFIG_NOSYSTEM="1", LANCEDB_LOG="error")
    errlog = tmp_path / "stderr.txt"
    errlog.touch()
    found: dict[str, object] = {}

    async def body(session: object) -> None:
        record = await ok(session, "memory_distill", transcript=JSONL.read_text())  # type: ignore[arg-type]
        found["path"] = record["write"]["path"]
        recent = await ok(session, "memory_recent")  # type: ignore[arg-type]
        found["first"] = recent["context"][0]["path"]

    over_stdio(vault.root, env, errlog, body)
    assert sys.executable and found["first"] == found["path"]
    assert "Traceback" not in errlog.read_text()


def test_the_readme_section_runs_as_written(tmp_path: Path) -> None:
    import os
    import shlex
    import subprocess
    import sys

    from tests.conftest import ROOT, SAMPLE

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- distill:start -->\n", 1)[1].split("<!-- distill:end -->", 1)[0]
    lines = [ln for ln in block.split("```sh\n", 1)[1].split("```", 1)[0].splitlines() if ln]
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the block runs from the clone
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"
    cli_argv = [sys.executable, "-m", "clawql_git"]
    made = subprocess.run(
        [*cli_argv, "memory", "init", "demo-vault", "--from", str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    outputs = []
    for line in lines:
        words = shlex.split(line, comments=True)
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
            continue
        assert words[0] == "clawql", line
        done = subprocess.run(
            [*cli_argv, *words[1:]], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{line}\n{done.stderr}"
        outputs.append(done.stdout)
    written = outputs[1].split()[1]  # "MEMORY_INGEST context/..."
    assert written.startswith("context/") and written in outputs[2].split("\n\n")[-1]
    filed = json.loads(outputs[4])["frontmatter"]["page_index_path"]
    assert filed.startswith("decision/") and f"  {filed.rpartition('/')[2]} (1)" in outputs[5]
    assert json.loads(outputs[6])["page_index_class"]
