"""``clawql mcp serve``: the MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

import click


@click.group()
def mcp() -> None:
    """Serve the vault to agents over the Model Context Protocol."""


@mcp.command()
@click.option(
    "--vault",
    type=click.Path(file_okay=False),
    envvar="CLAWQL_VAULT",
    help="Vault folder (default: $CLAWQL_VAULT, else the current directory).",
)
@click.option("--http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: address.")
@click.option("--port", type=int, default=8080, show_default=True, help="With --http: port.")
@click.option(
    "--agent", envvar="CLAWQL_AGENT_ID", help="Agent id when a call names none; $CLAWQL_AGENT_ID."
)
@click.option(
    "--session",
    envvar="CLAWQL_SESSION_ID",
    help="Session id when a call names none; $CLAWQL_SESSION_ID.",
)
def serve(
    vault: str | None,
    http: bool,
    host: str,
    port: int,
    agent: str | None,
    session: str | None,
) -> None:
    """Serve the memory tools over MCP (stdio, or streamable HTTP with --http).

    Stdio is what Claude Code, Cursor and other clients spawn; --http serves
    http://HOST:PORT/mcp to many clients at once. The index warms up in the background.
    """
    from clawql_git.mcp.common import Caller
    from clawql_git.mcp.memory_tools import MemoryTools
    from clawql_git.mcp.server import serve

    tools = MemoryTools(vault, Caller(agent or "", session or ""))
    if http:
        click.echo(f"clawql: serving MCP at http://{host}:{port}/mcp", err=True)
    serve(tools, http=http, host=host, port=port)
