"""``clawql mcp serve``: the MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

import os
from typing import Any

import click

from clawql_git.errors import ClawqlError

MCP_SERVER = "mcp-server"  # ctx.obj key: the MCP adapter, handed in by the composition root
TOKEN_ENV = "CLAWQL_MCP_TOKEN"  # the MCP adapter's access.TOKEN_ENV (the adapters share no import)


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
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="With --http: address to bind; off loopback a token is required.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65_535),
    default=8080,
    show_default=True,
    help="With --http: port.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    help=f"With --http: the bearer token clients must send (else ${TOKEN_ENV}).",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    help="With --http: a Host clients use besides the loopback names (repeatable).",
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
    token_file: str | None,
    allow_hosts: tuple[str, ...],
    agent: str | None,
    session: str | None,
) -> None:
    """Serve the memory tools over MCP (stdio, or streamable HTTP with --http).

    Stdio is what Claude Code, Cursor and other clients spawn; --http serves
    http://HOST:PORT/mcp to many clients at once, with Host/Origin checks on; off loopback
    (--host 0.0.0.0) every request must carry `Authorization: Bearer TOKEN`, the token read
    from --token-file or $CLAWQL_MCP_TOKEN. The index warms up in the background.
    """
    run: Any = (ctx.obj or {}).get(MCP_SERVER)
    if run is None:
        raise ClawqlError("the MCP server is not wired into this command; run `clawql mcp serve`")
    run(
        vault=vault,
        http=http,
        host=host,
        port=port,
        agent=agent or "",
        session=session or "",
        token_file=token_file,
        env_token=os.environ.get(TOKEN_ENV),
        allow_hosts=allow_hosts,
        announce=lambda line: click.echo(line, err=True),
    )
