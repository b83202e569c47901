"""``clawql memory distill``: a session transcript into one ``type: context`` entry."""

from __future__ import annotations

from typing import Any

import click

from clawql_git.cli.options import (
    identity,
    identity_options,
    json_option,
    open_vault,
    read_document,
)
from clawql_git.cli.output import emit_json


@click.command()
@click.argument("transcript")
@click.option("--project", help="Project the context entry belongs to.")
@click.option("--dry-run", is_flag=True, help="Print the entry; write nothing.")
@click.option("--offline", is_flag=True, help="Never ask the LLM endpoint (CLAWQL_LLM_URL).")
@identity_options
@json_option
@click.pass_context
def distill(
    ctx: click.Context,
    /,
    transcript: str,
    project: str | None,
    dry_run: bool,
    offline: bool,
    as_json: bool,
    **kw: Any,
) -> None:
    """Distil a session TRANSCRIPT (Claude Code .jsonl, Markdown or text; '-' for stdin) into
    one context entry: decided, tried and rejected, in progress, blocked, next step, files and
    symbols touched, links to the entries it recalled or wrote. ``--session`` names the
    session (default: the transcript's own id), whose recalls the audit chain adds."""
    ident = identity(kw)
    result = open_vault(ctx).distill(
        read_document(transcript), identity=ident, project=project, dry_run=dry_run, offline=offline
    )
    if as_json:
        emit_json(result.to_record())
        return
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if result.write is None:
        click.echo(f"# {result.fields.title}\n\n{result.fields.description}\n")
        click.echo(result.fields.body, nl=False)
        return
    click.echo(f"{result.write.event} {result.write.path}")
    click.echo(f"worm_ref: {result.write.worm_ref}")
