"""Hostile edges (#14): numbers and times that overflowed into tracebacks, and an MCP HTTP
server that served anyone on any address. Each bad value is an error naming the option and
its range (CLI exit 2, MCP a one-line tool error, the API ``InvalidInput``), with nothing
written; off loopback the HTTP server needs a bearer token, and Host/Origin are always checked."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import click
import httpx2
import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput

from .conftest import SAMPLE, git

HUGE = 10**30
OVERFLOWS = ("999999999999d", "99999999999d", "9999999999999999999999999s", "9" * 5000 + "d")
TIME_OPTIONS = {"since", "until"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "1"},
    },
}
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


# ---------------------------------------------------------------- helpers


@dataclass(frozen=True)
class Opt:
    """One option of one command: ``clawql <path> <flag>``."""

    path: tuple[str, ...]
    flag: str
    param: click.Option

    def __str__(self) -> str:
        return f"clawql {' '.join(self.path)} {self.flag}"


def every_option(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[Opt]:
    """Every option of every command under ``group`` (a group's own too: ``memory audit``
    runs without a subcommand), depth first."""
    for name, command in sorted(group.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag:
                yield Opt((*path, name), max(param.opts, key=len), param)
        if isinstance(command, click.Group):
            yield from every_option(command, (*path, name))


INT_OPTIONS = [o for o in every_option() if isinstance(o.param.type, click.types.IntParamType)]
WHEN_OPTIONS = [o for o in every_option() if o.param.name in TIME_OPTIONS]


def env_for_children(home: Path) -> dict[str, str]:
    """A child's environment: an empty HOME, no CLAWQL_*/GIT_* of the caller, the hash
    embedder; PYTHONPATH kept, so the child imports this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        CLAWQL_EMBEDDING_MODEL="hash",
        LANCEDB_LOG="error",
    )
    return env


def clawql(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The real command in a real process."""
    argv = [sys.executable, "-m", "clawql_git", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def vault_state(root: Path) -> tuple[str, str, str]:
    """HEAD, `git status` and every ref (the audit chain too): what a refusal leaves alone."""
    return (
        git(root, "rev-parse", "HEAD").stdout,
        git(root, "status", "--porcelain", "--ignored").stdout,
        git(root, "for-each-ref").stdout,
    )


@pytest.fixture(scope="module")
def child_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return env_for_children(tmp_path_factory.mktemp("edges-home"))


@pytest.fixture(scope="module")
def sample_vault(tmp_path_factory: pytest.TempPathFactory, child_env: dict[str, str]) -> Path:
    """The sample vault, made the way a user makes it, its index built once."""
    root = tmp_path_factory.mktemp("edges") / "vault"
    for args in (
        ["memory", "init", str(root), "--from", str(SAMPLE)],
        ["memory", "--vault", str(root), "index", "update"],
    ):
        done = clawql(child_env, *args)
        assert done.returncode == 0, done.stderr
    return root


def refused_usage(result: Any, flag: str) -> str:
    """A CliRunner result that must be click's usage error for ``flag``: exit 2, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception
    assert f"Invalid value for '{flag}'" in result.output, result.output
    assert "Traceback" not in result.output
    return str(result.output)


# ---------------------------------------------------------------- the CLI, generically


def test_every_int_option_declares_its_whole_range() -> None:
    """An unbounded int reached a C int (timedelta, watchfiles, bind) as an OverflowError."""
    assert len(INT_OPTIONS) >= 15, [str(o) for o in INT_OPTIONS]
    unbounded = [
        str(o)
        for o in INT_OPTIONS
        if not isinstance(o.param.type, click.IntRange)
        or o.param.type.min is None
        or o.param.type.max is None
    ]
    assert unbounded == []


@pytest.mark.parametrize("opt", INT_OPTIONS, ids=str)
def test_every_int_option_refuses_values_outside_its_range(opt: Opt, tmp_path: Path) -> None:
    kind = opt.param.type
    assert isinstance(kind, click.IntRange) and kind.min is not None and kind.max is not None
    runner = CliRunner()
    for value in (kind.max + 1, kind.min - 1, HUGE, -HUGE):
        result = runner.invoke(cli, [*opt.path, opt.flag, str(value)], catch_exceptions=True)
        out = refused_usage(result, opt.flag)
        assert f"{kind.min}<=x<={kind.max}" in out  # the allowed range, named
    assert list(tmp_path.iterdir()) == []


def test_every_time_option_parses_as_a_time() -> None:
    assert len(WHEN_OPTIONS) >= 9, [str(o) for o in WHEN_OPTIONS]
    assert [str(o) for o in WHEN_OPTIONS if o.param.type.name != "time"] == []


@pytest.mark.parametrize("opt", WHEN_OPTIONS, ids=str)
def test_every_time_option_refuses_a_duration_that_overflows(opt: Opt) -> None:
    runner = CliRunner()
    for value in (*OVERFLOWS, "36501d", "5218w"):
        result = runner.invoke(cli, [*opt.path, opt.flag, value], catch_exceptions=True)
        out = refused_usage(result, opt.flag)
        assert "out of range" in out and "36500d" in out
    for value in ("-5d", "yesterday", "99999-01-01", "1e5d"):
        out = refused_usage(runner.invoke(cli, [*opt.path, opt.flag, value]), opt.flag)
        assert "not a time" in out


# ---------------------------------------------------------------- the reported commands, for real


REPORTED = [
    (["log", "--since", "999999999999d"], "--since", "36500d"),
    (["recent", "--days", "99999999999"], "--days", "1<=x<=36500"),
    (["recall", "x", "--since", "99999999999d"], "--since", "36500d"),
    (["recall", "x", "--until", "99999999999d"], "--until", "36500d"),
    (["audit", "--since", "999999999999d"], "--since", "36500d"),
    (["export", "--flywheel", "--since", "999999999999w"], "--since", "36500d"),
    (["log", "--limit", "-1"], "--limit", "1<=x<=1000000"),
    (["log", "--limit", str(10**12)], "--limit", "1<=x<=1000000"),
    (["recall", "x", "--limit", str(10**12)], "--limit", "1<=x<=1000"),
    (["recall", "x", "--max-tokens", str(10**30)], "--max-tokens", "1<=x<=1000000"),
    (["recent", "--days", "-5"], "--days", "1<=x<=36500"),
    (["recent", "--days", "0"], "--days", "1<=x<=36500"),
]


@pytest.mark.parametrize(
    ("args", "flag", "allowed"), REPORTED, ids=[" ".join(r[0]) for r in REPORTED]
)
def test_reported_commands_exit_2_naming_the_option_and_write_nothing(
    args: list[str], flag: str, allowed: str, sample_vault: Path, child_env: dict[str, str]
) -> None:
    before = vault_state(sample_vault)
    done = clawql(child_env, "memory", "--vault", str(sample_vault), *args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
    assert f"Invalid value for '{flag}'" in done.stderr and allowed in done.stderr
    assert vault_state(sample_vault) == before


def test_as_of_a_date_beyond_any_calendar_is_a_clear_error(
    sample_vault: Path, child_env: dict[str, str]
) -> None:
    """`--as-of` takes a revision or a date; one that is neither is not found (exit 3)."""
    before = vault_state(sample_vault)
    for value in ("99999-01-01", "0001-01-01"):
        done = clawql(
            child_env, "memory", "recall", "x", "--as-of", value, "--vault", str(sample_vault)
        )
        assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
        assert value in done.stderr
    assert vault_state(sample_vault) == before


def test_confidence_out_of_range_or_nan_is_refused(
    sample_vault: Path, child_env: dict[str, str]
) -> None:
    before = vault_state(sample_vault)
    for value in ("nan", "inf", "1e400", "-1", "1.5"):
        done = clawql(
            child_env, "memory", "ingest", "--type", "decision", "--title", "Sure", "--body", "b",
            f"--confidence={value}", "--vault", str(sample_vault),
        )  # fmt: skip
        assert done.returncode == 2 and "confidence must be in 0..1" in done.stderr, done.stderr
    assert vault_state(sample_vault) == before


def test_mcp_serve_port_out_of_range_is_refused(child_env: dict[str, str]) -> None:
    for port in ("-1", "0", "65536", str(HUGE)):
        done = clawql(child_env, "mcp", "serve", "--http", "--port", port, timeout=30)
        assert done.returncode == 2 and "Invalid value for '--port'" in done.stderr, done.stderr


# ---------------------------------------------------------------- the Python API


def test_the_api_refuses_out_of_range_values_with_invalid_input(tmp_path: Path) -> None:
    from clawql_git.model.times import MAX_DAYS, parse_when
    from clawql_git.recall.pipeline import RecallQuery

    vault = Vault.init(tmp_path / "vault")
    vault.ingest(type="decision", title="Use X", body="we use x")
    root = tmp_path / "vault"
    before = vault_state(root)
    for value in OVERFLOWS:
        with pytest.raises(InvalidInput, match=r"since: .* is out of range: .*36500d"):
            parse_when(value, what="since")
    now = datetime(2026, 7, 1, tzinfo=UTC)
    assert parse_when(f"{MAX_DAYS}d", now) == now - timedelta(days=MAX_DAYS)
    for days in (10**12, 0, -5, MAX_DAYS + 1):
        with pytest.raises(InvalidInput, match=f"days must be a whole number from 1 to {MAX_DAYS}"):
            vault.recent(days)
    for limit in (0, -1):
        with pytest.raises(InvalidInput, match="limit must be at least 1"):
            vault.log(limit=limit)
    for score in (float("nan"), -0.5, 2.0):
        with pytest.raises(InvalidInput, match=r"min_score must be in 0\.\.1"):
            RecallQuery("x", min_score=score)
    with pytest.raises(InvalidInput, match="limit and max_tokens"):
        vault.recall("x", limit=0)
    assert vault_state(root) == before  # no commit, no audit event
    vault.close()


def test_the_watcher_refuses_a_debounce_that_overflows(tmp_path: Path) -> None:
    pytest.importorskip("watchfiles", reason="the codegraph extra is not installed")
    from clawql_git.codegraph.graph import CodeGraph

    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    graph = CodeGraph.open(tmp_path)
    for debounce in (HUGE, 0, -1):
        with pytest.raises(InvalidInput, match=r"debounce_ms must be 1\.\.60000"):
            graph.watch(debounce_ms=debounce)


# ---------------------------------------------------------------- MCP tools (stdio)


@asynccontextmanager
async def stdio_session(vault: Path, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(vault)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def run(main: Any) -> None:
    """``anyio.run``, re-raising the first failure out of the client's task groups."""
    try:
        anyio.run(main)
    except BaseExceptionGroup as group:
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


MCP_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("memory_log", {"since": "999999999999d"}, "since: '999999999999d' is out of range"),
    ("memory_log", {"until": "9999999999999999999999999s"}, "until: "),
    ("memory_log", {"since": "9" * 5000 + "d"}, "is out of range"),
    ("memory_log", {"limit": -1}, "argument 'limit'"),
    ("memory_log", {"limit": 10**12}, "argument 'limit'"),
    ("memory_recall", {"query": "x", "since": "99999999999d"}, "since: '99999999999d' is out"),
    ("memory_recall", {"query": "x", "until": "99999999999d"}, "until: '99999999999d' is out"),
    ("memory_recall", {"query": "x", "limit": 0}, "argument 'limit'"),
    ("memory_recall", {"query": "x", "limit": 10**12}, "argument 'limit'"),
    ("memory_recall", {"query": "x", "max_tokens": 10**30}, "argument 'max_tokens'"),
    ("memory_recent", {"days": 99999999999}, "argument 'days'"),
    ("memory_recent", {"days": -5}, "argument 'days'"),
    ("memory_get", {"path": "decisions/x.md", "max_tokens": -1}, "argument 'max_tokens'"),
    ("cg_find_symbol", {"name": "f", "limit": 10**30}, "argument 'limit'"),
]


def test_mcp_tools_refuse_out_of_range_arguments_in_one_line(
    sample_vault: Path, child_env: dict[str, str]
) -> None:
    before = vault_state(sample_vault)
    texts: dict[int, str] = {}

    async def main() -> None:
        async with stdio_session(sample_vault, child_env) as session:
            for n, (tool, args, _) in enumerate(MCP_REFUSALS):
                result = await session.call_tool(tool, args)
                assert result.is_error, (tool, args, result.structured_content)
                block = result.content[0]
                assert block.type == "text"
                texts[n] = block.text

    run(main)
    for n, (tool, args, expected) in enumerate(MCP_REFUSALS):
        text = texts[n]
        assert expected in text, (tool, args, text)
        assert "\n" not in text and "Traceback" not in text and "Overflow" not in text
    assert vault_state(sample_vault) == before


# ---------------------------------------------------------------- MCP over HTTP


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class Served:
    """A running `clawql mcp serve --http` bound to 127.0.0.1."""

    url: str
    port: int
    token: str
    log: Path


def start_server(
    vault: Path, env: dict[str, str], log: Path, *flags: str
) -> tuple[subprocess.Popen[bytes], int]:
    """`clawql mcp serve --http` on 127.0.0.1 in a subprocess, waited for until it listens."""
    port = free_port()
    argv = [sys.executable, "-m", "clawql_git", "mcp", "serve", "--vault", str(vault), "--http"]
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*argv, "--host", "127.0.0.1", "--port", str(port), *flags],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + 60
    while not listening(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the HTTP server did not come up: {log.read_text()}")
        time.sleep(0.1)
    return proc, port


def stop(proc: subprocess.Popen[bytes], log: Path) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.fixture(scope="module")
def served(
    sample_vault: Path, child_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A server with a bearer token (from a file) and one extra Host name."""
    tmp = tmp_path_factory.mktemp("served")
    token = secrets.token_urlsafe(32)
    (tmp / "token").write_text(token + "\n")
    log = tmp / "stderr.txt"
    flags = ("--token-file", str(tmp / "token"), "--allow-host", "mcp.example.test")
    proc, port = start_server(sample_vault, child_env, log, *flags)
    try:
        yield Served(f"http://127.0.0.1:{port}/mcp", port, token, log)
    finally:
        stop(proc, log)
    assert not listening(port)
    assert f"serving MCP at http://127.0.0.1:{port}/mcp (bearer token required" in log.read_text()
    assert token not in log.read_text()


def post(url: str, headers: dict[str, str]) -> httpx2.Response:
    with httpx2.Client(timeout=30) as client:
        return client.post(url, headers={**JSON_HEADERS, **headers}, content=json.dumps(INIT))


def test_http_without_the_right_token_is_401(served: Served, sample_vault: Path) -> None:
    before = vault_state(sample_vault)
    wrong = [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Bearer {served.token}x"},
        {"Authorization": f"Bearer {served.token[:-1]}"},
        {"Authorization": f"Basic {served.token}"},
        {"Authorization": served.token},
        {"Authorization": "Bearer"},
    ]
    for headers in wrong:
        answer = post(served.url, headers)
        assert answer.status_code == 401, (headers, answer.status_code, answer.text)
        assert served.token not in answer.text
    with httpx2.Client(timeout=30) as client:  # every method, not only the POST
        assert client.get(served.url, headers=JSON_HEADERS).status_code == 401
        assert client.delete(served.url).status_code == 401
    assert post(served.url, {"Authorization": f"Bearer {served.token}"}).status_code == 200
    assert vault_state(sample_vault) == before


def test_http_with_the_token_is_a_real_session(served: Served) -> None:
    names: set[str] = set()

    async def main() -> None:
        headers = {"Authorization": f"Bearer {served.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(served.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names.update(t.name for t in (await session.list_tools()).tools)
            result = await session.call_tool("memory_log", {"limit": 1})
            assert not result.is_error, result.content

    run(main)
    assert {"memory_recall", "memory_ingest", "memory_log", "cg_find_symbol"} <= names


def test_http_refuses_a_foreign_host_or_origin(served: Served) -> None:
    """DNS rebinding: a page on evil.example resolving to us sends its own Host and Origin."""
    auth = {"Authorization": f"Bearer {served.token}"}
    assert post(served.url, {**auth, "Host": "evil.example"}).status_code == 421
    assert post(served.url, {**auth, "Host": f"evil.example:{served.port}"}).status_code == 421
    assert post(served.url, {**auth, "Origin": "http://evil.example"}).status_code == 403
    assert (
        post(served.url, {**auth, "Origin": f"http://evil.example:{served.port}"}).status_code
        == 403
    )
    for host in (f"mcp.example.test:{served.port}", "mcp.example.test", f"localhost:{served.port}"):
        assert post(served.url, {**auth, "Host": host}).status_code == 200, host
    origin = f"https://mcp.example.test:{served.port}"
    assert post(served.url, {**auth, "Origin": origin}).status_code == 200


def test_loopback_without_a_token_still_checks_host_and_origin(
    sample_vault: Path, child_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "stderr.txt"
    proc, port = start_server(sample_vault, child_env, log)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        assert post(url, {}).status_code == 200  # today's behaviour on loopback: no token
        assert post(url, {"Host": "evil.example"}).status_code == 421
        assert post(url, {"Origin": "http://evil.example"}).status_code == 403
    finally:
        stop(proc, log)
    assert not listening(port)
    assert "no token: loopback only" in log.read_text()


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.0.2.10", "example.com", "::ffff:10.0.0.1", "localhost.evil"]
)
def test_off_loopback_without_a_token_refuses_to_start(
    host: str, child_env: dict[str, str]
) -> None:
    port = free_port()
    done = clawql(
        child_env, "mcp", "serve", "--http", "--host", host, "--port", str(port), timeout=30
    )
    assert done.returncode == 2, done.stderr
    assert f"refusing to serve MCP on {host}" in done.stderr and "CLAWQL_MCP_TOKEN" in done.stderr
    assert "--token-file" in done.stderr and "Traceback" not in done.stderr
    assert not listening(port)


def test_a_weak_or_unreadable_token_refuses_to_start(
    child_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    base = ["mcp", "serve", "--http", "--host", "0.0.0.0", "--port", str(port)]
    (tmp_path / "short").write_text("hunter2\n")
    (tmp_path / "empty").write_text("\n")
    (tmp_path / "spaced").write_text("a" * 20 + " " + "b" * 20)
    cases = [
        (["--token-file", str(tmp_path / "short")], {}, "at least 24 characters"),
        (["--token-file", str(tmp_path / "empty")], {}, "at least 24 characters"),
        (["--token-file", str(tmp_path / "spaced")], {}, "one word"),
        (["--token-file", str(tmp_path / "missing")], {}, "cannot read the token"),
        ([], {"CLAWQL_MCP_TOKEN": "short"}, "$CLAWQL_MCP_TOKEN must be one word"),
        (["--allow-host", "*"], {"CLAWQL_MCP_TOKEN": "x" * 32}, "--allow-host '*'"),
        (["--allow-host", "a.test/evil"], {"CLAWQL_MCP_TOKEN": "x" * 32}, "not a host name"),
    ]
    for flags, env, expected in cases:
        done = clawql({**child_env, **env}, *base, *flags, timeout=30)
        assert done.returncode == 2 and expected in done.stderr, (flags, done.stderr)
        assert "Traceback" not in done.stderr
    assert not listening(port)


def test_loopback_is_decided_on_the_address_not_its_spelling() -> None:
    from clawql_git.mcp.access import is_loopback

    for host in (
        "127.0.0.1",
        "127.9.9.9",
        "::1",
        "[::1]",
        "localhost",
        "LOCALHOST",
        "::ffff:127.0.0.1",
    ):
        assert is_loopback(host), host
    for host in (
        "0.0.0.0",
        "::",
        "10.0.0.1",
        "example.com",
        "::ffff:10.0.0.1",
        "localhost.evil",
        "",
    ):
        assert not is_loopback(host), host


def test_off_loopback_access_requires_the_token_and_keeps_the_allow_list(tmp_path: Path) -> None:
    """What `--host 0.0.0.0` would run with, without binding every interface in a test: the
    token and the checks are those the loopback server above enforces, built the same way."""
    from clawql_git.mcp.access import http_access

    token = secrets.token_urlsafe(32)
    with pytest.raises(InvalidInput, match="needs a bearer token"):
        http_access("0.0.0.0", 8080)
    wild = http_access("0.0.0.0", 8080, env_token=token, allow_hosts=["mcp.internal"])
    assert wild.token == token and wild.token_verifier() is not None
    assert wild.auth_settings() is not None
    settings = wild.transport_security()
    assert settings.enable_dns_rebinding_protection
    assert settings.allowed_hosts == [
        "127.0.0.1:*", "localhost:*", "[::1]:*", "mcp.internal", "mcp.internal:8080"
    ]  # fmt: skip
    assert "https://mcp.internal:8080" in settings.allowed_origins
    assert "*" not in "".join(settings.allowed_hosts + settings.allowed_origins).replace(":*", "")
    bound = http_access("10.1.2.3", 9000, env_token=token)
    assert "10.1.2.3:9000" in bound.transport_security().allowed_hosts
    six = http_access("fd00::5", 9000, env_token=token)
    assert six.url == "http://[fd00::5]:9000" and "[fd00::5]:9000" in six.allowed_hosts
    loop = http_access("127.0.0.1", 8080)
    assert loop.token is None and loop.auth_settings() is None
    assert loop.transport_security().enable_dns_rebinding_protection
    (tmp_path / "token").write_text("f" * 30)  # a token file wins over the environment
    assert http_access("::", 1, str(tmp_path / "token"), env_token=token).token == "f" * 30


def test_the_token_is_compared_whole() -> None:
    from clawql_git.mcp.access import StaticToken

    token = secrets.token_urlsafe(32)
    check = StaticToken(token)

    async def main() -> None:
        assert await check.verify_token(token) is not None
        for other in ("", token[:-1], token + "x", token.upper(), " " + token):
            assert await check.verify_token(other) is None

    anyio.run(main)
