"""``clawql mcp serve``: the MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

from typing import Any

import click

from clawql_git.errors import ClawqlError

MCP_SERVER = "mcp-server"  # ctx.obj key: the MCP adapter, handed in by the composition root


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
@click.option(
    "--port",
    type=click.IntRange(1, 65_535),
    default=8080,
    show_default=True,
    help="With --http: port.",
)
@click.option(
    "--agent", envvar="CLAWQL_AGENT_ID", help="Agent id when a call names none; $CLAWQL_AGENT_ID."
)
@click.option(
    "--session",
    envvar="CLAWQL_SESSION_ID",
    help="Session id when a call names none; $CLAWQL_SESSION_ID.",
)
@click.pass_context
def serve(
    ctx: click.Context,
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
    run: Any = (ctx.obj or {}).get(MCP_SERVER)
    if run is None:
        raise ClawqlError("the MCP server is not wired into this command; run `clawql mcp serve`")
    if http:
        click.echo(f"clawql: serving MCP at http://{host}:{port}/mcp", err=True)
    run(vault=vault, http=http, host=host, port=port, agent=agent or "", session=session or "")
