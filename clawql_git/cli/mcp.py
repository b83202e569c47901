"""``clawql mcp serve``: the MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

import click


@click.group()
def mcp() -> None:
    """Serve the vault to agents over the Model Context Protocol."""
