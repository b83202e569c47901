"""The composition root: the one module that sees both adapters. ``clawql`` (the console
script) and ``python -m clawql_git`` (what the hooks run) are the CLI's command groups, with
the MCP adapter handed to ``clawql mcp serve`` here, so the CLI never imports the MCP server
and the MCP server never imports the CLI."""

from __future__ import annotations

from typing import Any


def serve_mcp(**options: Any) -> None:
    """Run the MCP adapter (imported only when ``clawql mcp serve`` runs)."""
    from clawql_git.mcp.server import serve_vault

    serve_vault(**options)


def main() -> None:
    """Console entry point."""
    from clawql_git.cli import cli
    from clawql_git.cli.mcp import MCP_SERVER

    cli(prog_name="clawql", obj={MCP_SERVER: serve_mcp})


if __name__ == "__main__":
    main()
