"""The MCP server end to end, through the real MCP client of the ``mcp`` package: over stdio
(``python -m clawql_git mcp serve``) and over streamable HTTP, against a vault seeded from
sample-vault with the hash embedder."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from clawql_git import Vault

from .conftest import SAMPLE, fsck_ok, git

TOOLS = {
    "cg_changes",
    "cg_dependency_path",
    "cg_explain_module",
    "cg_find_callers",
    "cg_find_route",
    "cg_find_symbol",
    "cg_type_hierarchy",
    "knowledge_search",
    "memory_ingest",
    "memory_recall",
    "memory_get",
    "memory_log",
    "memory_links",
    "memory_history",
    "memory_recent",
    "memory_distill",
    "memory_entities",
    "memory_supersede",
}
OUTBOX = "decisions/2026-09/move-webhook-delivery-to-a-postgres-outbox-with-a-dedicated-worker.md"
OUTBOX_PATTERN = "patterns/2026-09/transactional-outbox.md"
SECRET = "AKIA" + "QX7RTBZ3L5MNK2PW"  # built here so this file holds no key-shaped string
Session = Callable[[ClientSession], Awaitable[None]]


# ---------------------------------------------------------------- fixtures and helpers


@pytest.fixture(scope="module")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every process started here: an empty HOME, no CLAWQL_*/GIT_* from the
    caller, the hash embedder (no model to load)."""
    home = tmp_path_factory.mktemp("mcp-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        CLAWQL_EMBEDDING_MODEL="hash",
        LANCEDB_LOG="error",
    )
    return env


@pytest.fixture(scope="module")
def vault_path(tmp_path_factory: pytest.TempPathFactory, server_env: dict[str, str]) -> Path:
    """One vault for the module, made the way a user makes it, its index built once."""
    root = tmp_path_factory.mktemp("mcp") / "vault"
    cli = [sys.executable, "-m", "clawql_git", "memory"]
    for args in (
        ["init", str(root), "--from", str(SAMPLE)],
        ["--vault", str(root), "index", "update"],
    ):
        done = subprocess.run([*cli, *args], env=server_env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[Path]:
    """The server's stderr; whatever a test does, it never shows a traceback."""
    path = tmp_path / "server-stderr.txt"
    path.touch()
    yield path
    assert "Traceback" not in path.read_text(), path.read_text()


@asynccontextmanager
async def stdio_session(
    vault: Path, env: dict[str, str], errlog: Path, *flags: str
) -> AsyncIterator[ClientSession]:
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(vault), *flags]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    with errlog.open("a") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def run(main: Callable[[], Awaitable[None]]) -> None:
    """``anyio.run``, re-raising the first failure out of the task groups of the client."""
    try:
        anyio.run(main)
    except BaseExceptionGroup as group:
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


def over_stdio(vault: Path, env: dict[str, str], errlog: Path, body: Session, *flags: str) -> None:
    async def main() -> None:
        async with stdio_session(vault, env, errlog, *flags) as session:
            await body(session)

    run(main)


async def ok(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured answer (which the text repeats)."""
    result = await session.call_tool(tool, args)
    assert not result.is_error, result.content
    record: dict[str, Any] | None = result.structured_content
    assert record is not None and json.loads(_text(result)) == record
    return record


async def refused(session: ClientSession, tool: str, **args: Any) -> str:
    """Call a tool that must fail; the error text the model reads."""
    result = await session.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return _text(result)


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert block.type == "text"
    return block.text


def vault_state(root: Path) -> tuple[str, str, str]:
    """HEAD, `git status` and every ref: what a refused call must leave as it was."""
    return (
        git(root, "rev-parse", "HEAD").stdout,
        git(root, "status", "--porcelain").stdout,
        git(root, "for-each-ref").stdout,
    )


# ---------------------------------------------------------------- stdio


def test_lists_the_tools_with_schemas_and_annotations(
    vault_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and len(tool.description) > 80
            assert "\n    " not in tool.description  # docstrings arrive dedented
            assert tool.annotations is not None
            read_only = tool.name not in ("memory_ingest", "memory_distill", "memory_supersede")
            assert tool.annotations.read_only_hint is read_only
            assert tool.annotations.open_world_hint is (tool.name == "knowledge_search")
            assert tool.input_schema["type"] == "object"
        ingest = tools["memory_ingest"]
        assert ingest.annotations is not None and ingest.annotations.destructive_hint is False
        assert set(ingest.input_schema["required"]) == {"type", "title"}
        confidence = ingest.input_schema["properties"]["confidence"]["anyOf"][0]
        assert (confidence["minimum"], confidence["maximum"]) == (0, 1)
        recall = tools["memory_recall"].input_schema
        assert recall["required"] == ["query"]
        assert recall["properties"]["backend"]["enum"] == [
            "auto",
            "hybrid",
            "fts",
            "vector",
            "page_index",
        ]
        for name in ("memory_recall", "memory_get", "memory_log", "memory_recent"):
            assert "max_tokens" in tools[name].input_schema["properties"]
        assert tools["memory_get"].input_schema["required"] == ["path"]

    over_stdio(vault_path, server_env, errlog, body)


def test_every_tool_answers_from_the_vault(
    vault_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    async def body(session: ClientSession) -> None:
        start = await ok(session, "memory_recent", days=3650, project="ledgerline")
        assert start["context"] and start["events"] > 0

        found = await ok(
            session, "memory_recall", query="webhook delivery from a postgres outbox", limit=3
        )
        # the decision and its rollout's task result both answer this; which leads depends
        # on the embedder (this server runs the hash one; ranking is measured in bench/)
        assert OUTBOX in [h["path"] for h in found["hits"][:2]]
        assert found["truncated"] is False and found["audit_ref"].startswith("git:")
        assert all(h["worm_ref"].startswith("git:") for h in found["hits"])

        written = await ok(
            session,
            "memory_ingest",
            type="decision",
            title="Keep the outbox worker single-threaded",
            body="Ordering per merchant beats throughput; see [[transactional-outbox]].",
            tags=["webhooks"],
            project="ledgerline",
            verdict="accepted",
            confidence=0.8,
            agent_id="claude-code",
            session_id="s-42",
        )
        path = written["path"]
        assert written["event"] == "MEMORY_INGEST" and path.startswith("decisions/")
        assert git(vault_path, "rev-parse", "HEAD").stdout.strip() == written["commit"]
        assert git(vault_path, "status", "--porcelain").stdout == ""

        entry = await ok(session, "memory_get", path=path)
        assert entry["worm_ref"] == entry["worm_ref_first"] == written["worm_ref"]
        assert entry["frontmatter"]["agent_id"] == "claude-code"
        assert "Ordering per merchant" in entry["body"] and entry["truncated"] is False

        fresh = await ok(session, "memory_recall", query="outbox worker single-threaded ordering")
        assert fresh["hits"][0]["path"] == path  # the index caught up with the new commit

        records = (await ok(session, "memory_log", agent="claude-code", limit=5))["records"]
        assert records[0]["worm_ref"] == written["worm_ref"]
        assert (records[0]["session_id"], records[0]["verdict"]) == ("s-42", "accepted")

        links = await ok(session, "memory_links", path=path)
        assert [e["target"] for e in links["outgoing"]] == [OUTBOX_PATTERN]
        back = await ok(session, "memory_links", path=OUTBOX_PATTERN)
        assert path in [e["source"] for e in back["backlinks"]]
        broken = await ok(session, "memory_links", broken=True)
        assert all(e["broken"] for e in broken["broken"])

        versions = (await ok(session, "memory_history", path=path))["versions"]
        assert [v["worm_ref"] for v in versions] == [written["worm_ref"]]

        appended = await ok(
            session, "memory_ingest", type="decision", title=written["frontmatter"]["title"],
            body="Revisit at 1,000 merchants.", append=True,
        )  # fmt: skip
        assert (appended["event"], appended["path"]) == ("MEMORY_UPDATE", path)
        assert len((await ok(session, "memory_history", path=path))["versions"]) == 2

    over_stdio(vault_path, server_env, errlog, body)


def test_answers_stay_within_max_tokens(
    vault_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    def cost(record: dict[str, Any]) -> int:
        return len(json.dumps(record, separators=(",", ":"))) // 4

    async def body(session: ClientSession) -> None:
        entry = await ok(session, "memory_get", path=OUTBOX, max_tokens=300)
        assert entry["truncated"] is True and entry["body_chars"] > len(entry["body"])
        assert entry["body"] and cost(entry) <= 300
        log = await ok(session, "memory_log", limit=100, max_tokens=300)
        assert log["truncated"] is True and log["omitted"]["records"] > 0 and log["records"]
        assert cost(log) <= 300
        found = await ok(session, "memory_recall", query="webhook delivery", max_tokens=300)
        assert found["truncated"] is True and cost(found) <= 300
        whole = await ok(session, "memory_get", path=OUTBOX)
        assert whole["truncated"] is False and "body_chars" not in whole

    over_stdio(vault_path, server_env, errlog, body)


def test_refused_calls_are_tool_errors_and_change_nothing(
    vault_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    before = vault_state(vault_path)

    async def body(session: ClientSession) -> None:
        missing = await refused(session, "memory_ingest", title="No type given", body="text")
        assert "type" in missing and "required" in missing.lower()
        empty = await refused(session, "memory_ingest", type="", title="Empty type")
        assert "'type' is required" in empty and "InvalidFrontmatter" in empty
        secret = await refused(
            session, "memory_ingest", type="context", title="Deploy notes", body=f"key {SECRET}"
        )
        assert "secret" in secret and "aws-access-key-id" in secret and SECRET not in secret
        outside = await refused(
            session, "memory_ingest", type="decision", title="Bad", confidence=2
        )
        assert "confidence" in outside
        for tool in ("memory_get", "memory_history", "memory_links"):
            text = await refused(session, tool, path="decisions/2026-01/not-there.md")
            assert "not-there.md" in text and "NotFound" in text
        assert "unknown revision" in (await refused(session, "memory_get", path=OUTBOX, at="nope"))
        assert "not a time" in (await refused(session, "memory_log", since="yesterday-ish"))
        assert "unknown tool" in (await refused(session, "memory_delete", path=OUTBOX)).lower()
        assert vault_state(vault_path) == before  # refused: nothing written, not even audit
        # the server is still there, and still answers; the read is recorded, nothing else
        assert (await ok(session, "memory_get", path=OUTBOX))["path"] == OUTBOX

    over_stdio(vault_path, server_env, errlog, body)
    assert_only_a_read_was_recorded(vault_path, before)
    assert "Traceback" not in errlog.read_text()


def test_argument_errors_are_one_line_and_types_are_checked(
    tmp_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    root = tmp_path / "vault"
    Vault.init(root).close()
    before = head_of(root)

    async def body(session: ClientSession) -> None:
        missing = await refused(session, "memory_ingest", title="No type given", body="text")
        assert missing == "memory_ingest: missing required argument 'type'"
        several = await refused(session, "memory_ingest", confidence=2)
        assert "\n" not in several and "'type'" in several and "'title'" in several
        assert "'confidence'" in several and "pydantic" not in several
        typo = await refused(session, "memory_ingest", type="decison", title="T", body="b")
        assert "did you mean 'decision'?" in typo and "allow_new_type" in typo
        assert head_of(root) == before  # refused: nothing written
        made = await ok(
            session, "memory_ingest", type="decison", title="T", body="b", allow_new_type=True
        )
        assert made["path"].startswith("decisons/") and made["warning"] is None
        empty = await ok(session, "memory_ingest", type="context", title="Empty")
        assert "body is empty" in empty["warning"]

    over_stdio(root, server_env, errlog, body)


def head_of(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


def test_recalls_are_audited_with_who_asked(
    vault_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    env = {**server_env, "CLAWQL_AGENT_ID": "env-agent", "CLAWQL_SESSION_ID": "env-session"}

    async def body(session: ClientSession) -> None:
        await ok(session, "memory_recall", query="idempotency keys for payments")
        await ok(
            session, "memory_recall", query="money as integer minor units",
            agent_id="cursor", session_id="c-7", correlation_id="LL-9",
        )  # fmt: skip
        await ok(session, "memory_ingest", type="context", title="Audit probe", body="probe")

    over_stdio(vault_path, env, errlog, body, "--agent", "flag-agent")
    with Vault.open(vault_path) as vault:
        second, first = vault.audit_events()[:2]
        wrote = vault.log(limit=1)[0]
    assert (first.event, first.agent, first.session) == (
        "MEMORY_RECALL",
        "flag-agent",
        "env-session",
    )
    assert first.query == "idempotency keys for payments" and first.hits
    assert (second.agent, second.session, second.correlation) == ("cursor", "c-7", "LL-9")
    assert (wrote.agent, wrote.session) == ("flag-agent", "env-session")


def test_a_wrong_vault_is_reported_by_every_call(
    tmp_path: Path, server_env: dict[str, str], errlog: Path
) -> None:
    async def body(session: ClientSession) -> None:
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        text = await refused(session, "memory_recent")
        assert "is not a clawql vault" in text and "clawql memory init" in text

    over_stdio(tmp_path / "nowhere", server_env, errlog, body)


# ---------------------------------------------------------------- streamable HTTP


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def http_url(
    vault_path: Path, server_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """`clawql mcp serve --http` in a subprocess, waited for until it accepts connections."""
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "stderr.txt"
    argv = ["-m", "clawql_git", "mcp", "serve", "--vault", str(vault_path), "--http"]
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, *argv, "--port", str(port), "--agent", "http-agent"],
            env=server_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        _wait_for(port, proc, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "Traceback" not in log.read_text(), log.read_text()
    assert f"serving MCP at http://127.0.0.1:{port}/mcp" in log.read_text()


def _wait_for(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the HTTP server did not come up: {log.read_text()}")


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def test_http_lists_tools_and_refuses_bad_calls(http_url: str, vault_path: Path) -> None:
    before = vault_state(vault_path)

    async def main() -> None:
        async with http_session(http_url) as session:
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            text = await refused(session, "memory_ingest", type="x", title="k", body=SECRET)
            assert "secret" in text
            assert "NotFound" in (await refused(session, "memory_get", path="nope.md"))
            assert vault_state(vault_path) == before  # refused: nothing written at all
            assert (await ok(session, "memory_get", path=OUTBOX))["path"] == OUTBOX

    run(main)
    assert_only_a_read_was_recorded(vault_path, before)


def assert_only_a_read_was_recorded(root: Path, before: tuple[str, str, str]) -> None:
    """A successful read leaves HEAD, the work tree and every ref but the audit chain as they
    were, and the chain's newest event is that read."""
    after = vault_state(root)
    assert after[:2] == before[:2]
    moved = set(after[2].splitlines()) ^ set(before[2].splitlines())
    assert {line.split()[-1] for line in moved} == {"refs/clawql/audit"}
    event = git(root, "log", "-1", "--format=%B", "refs/clawql/audit").stdout
    assert "Clawql-Event: MEMORY_READ" in event and "Read-Door: get" in event


def test_ten_http_clients_at_once(http_url: str, vault_path: Path) -> None:
    entries = sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.rglob("*.md"))[:10]
    head = git(vault_path, "rev-parse", "HEAD").stdout.strip()
    answers: dict[int, tuple[str, list[str], str]] = {}

    async def client(n: int) -> None:
        async with http_session(http_url) as session:
            entry = await ok(session, "memory_get", path=entries[n])
            title = entry["frontmatter"]["title"]
            found = await ok(session, "memory_recall", query=title, limit=3, session_id=f"h-{n}")
            written = await ok(
                session, "memory_ingest", type="task_result", title=f"Parallel client {n}",
                body=f"Client {n} read {entries[n]}.", session_id=f"h-{n}",
            )  # fmt: skip
            answers[n] = (title, [h["path"] for h in found["hits"]], written["path"])

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for n in range(10):
                group.start_soon(client, n)

    run(main)
    assert sorted(answers) == list(range(10))
    for n, (_, hits, _) in answers.items():
        assert entries[n] in hits, (entries[n], hits)
    written = {path for _, _, path in answers.values()}
    assert len(written) == 10
    assert git(vault_path, "rev-list", "--count", f"{head}..HEAD").stdout.strip() == "10"
    assert git(vault_path, "status", "--porcelain").stdout == ""
    fsck_ok(vault_path)
    with Vault.open(vault_path) as vault:
        recalls = [e for e in vault.audit_events() if e.session.startswith("h-")]
        assert {e.session for e in recalls} == {f"h-{n}" for n in range(10)}
        assert {e.agent for e in recalls} == {"http-agent"}
        for path in written:
            assert vault.get(path).entry.title.startswith("Parallel client")
