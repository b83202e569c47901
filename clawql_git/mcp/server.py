"""The MCP server: the memory tools and the code graph tools for agents, over stdio or
streamable HTTP."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.context import CallNext, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from clawql_git.mcp import code_tools, knowledge_tools, memory_tools
from clawql_git.mcp.access import HttpAccess, http_access
from clawql_git.mcp.common import Caller
from clawql_git.mcp.memory_tools import MemoryTools

SERVER_NAME = "clawql"
INSTRUCTIONS = (
    "A Git-backed memory of this project's decisions, context, errors and patterns. At the start "
    "of a session call memory_recent; before deciding something, memory_recall what was decided "
    "or tried before; after a decision, a finding or a finished step, memory_ingest it. Every "
    "write is a Git commit whose sha is the entry's worm_ref."
)


def warm_after_handshake(tools: MemoryTools) -> ServerMiddleware[Any]:
    """Start warming at the first request after ``initialize`` (usually ``tools/list``), so
    the warm-up does not compete with the handshake for the interpreter."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        result = await call_next(ctx)
        if ctx.request_id is not None and ctx.method != "initialize":
            tools.start_warming()
        return result

    return middleware


def build_server(tools: MemoryTools, access: HttpAccess | None = None) -> MCPServer[Any]:
    """An MCP server exposing ``tools``; the vault is opened and warmed after the handshake.
    With ``access`` holding a token, every HTTP request must carry it."""
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
        middleware=[warm_after_handshake(tools)],
        # the cg_* code graph tools work over the server's working directory
        tools=[
            *memory_tools.make(tools),
            *knowledge_tools.make(tools),
            *code_tools.make(code_tools.CodeGraphTools(memory=True, vault=tools.vault_path)),
        ],
        auth=access.auth_settings() if access else None,
        token_verifier=access.token_verifier() if access else None,
    )
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("clawql-git")
    except PackageNotFoundError:
        return "0"


def serve_vault(
    vault: str | None,
    http: bool,
    host: str,
    port: int,
    agent: str,
    session: str,
    token_file: str | None = None,
    env_token: str | None = None,
    allow_hosts: Sequence[str] = (),
    announce: Callable[[str], None] = lambda line: None,
) -> None:
    """``clawql mcp serve``: the memory and code graph tools for one vault, as one caller. Over
    HTTP the access checks are settled first: a refusal binds nothing."""
    access = http_access(host, port, token_file, env_token, allow_hosts) if http else None
    if access is not None:
        announce(describe(access))
    serve(MemoryTools(vault, Caller(agent, session)), access=access, host=host, port=port)


def describe(access: HttpAccess) -> str:
    """The line the server prints as it starts over HTTP."""
    guard = "bearer token required" if access.token else "no token: loopback only"
    hosts = ", ".join(access.allowed_hosts)
    return f"clawql: serving MCP at {access.url}/mcp ({guard}; Host allowed: {hosts})"


def serve(
    tools: MemoryTools,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8080,
    access: HttpAccess | None = None,
) -> None:
    """Serve until the client hangs up (stdio) or the process is stopped (HTTP at /mcp).
    HTTP always runs with Host/Origin checks (``access``, by default loopback's)."""
    if http or access is not None:
        access = access or http_access(host, port)
        server = build_server(tools, access)
        tools.start_warming()  # many clients may come; warm now
        server.run(
            "streamable-http",
            host=host,
            port=port,
            streamable_http_path="/mcp",
            transport_security=access.transport_security(),
        )
    else:
        build_server(tools).run("stdio")
