"""``clawql remote ...``: team remotes."""

from __future__ import annotations

from pathlib import Path

import click

from clawql_git.cli.output import emit_json


@click.group()
def remote() -> None:
    """Team remotes: protect the bare repository agents push to."""


@remote.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def protect(path: str, as_json: bool) -> None:
    """Make the bare repository at PATH refuse rewrites, deletions, invalid entries, secrets
    and (when the vault policy requires signing) unsigned commits."""
    from clawql_git.team.protect import protect_remote

    done = protect_remote(Path(path))
    if as_json:
        emit_json({"protected": str(Path(path).resolve()), "settings": done})
    else:
        click.echo(f"protected {Path(path).resolve()}")
        for item in done:
            click.echo(f"  {item}")
