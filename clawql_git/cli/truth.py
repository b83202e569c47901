"""``clawql memory duplicates`` and ``clawql memory stale``: what keeps memory true."""

from __future__ import annotations

import click

from clawql_git.cli.options import json_option, open_vault
from clawql_git.cli.output import emit_json


@click.command()
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    help="Similarity at which two entries repeat each other (default: duplicate_threshold).",
)
@json_option
@click.pass_context
def duplicates(ctx: click.Context, threshold: float | None, as_json: bool) -> None:
    """Clusters of current entries that repeat one another (same meaning, other words)."""
    clusters = open_vault(ctx).duplicates(threshold)
    if as_json:
        emit_json([c.to_record() for c in clusters])
        return
    for c in clusters:
        click.echo(f"{len(c.paths)} entries, similarity {c.score:.2f}:")
        for path in c.paths:
            click.echo(f"  {path}")
    click.echo(f"{len(clusters)} cluster(s) of near-duplicates")


@click.command()
@click.option(
    "--code", is_flag=True, help="Entries whose anchored code changed, moved or vanished instead."
)
@click.option(
    "-C", "--repo", default=".", show_default=True, help="The code repository (with --code)."
)
@click.option("--rev", default="HEAD", show_default=True, help="Check at REV (with --code).")
@json_option
@click.pass_context
def stale(ctx: click.Context, code: bool, repo: str, rev: str, as_json: bool) -> None:
    """Current entries that are due: expired or past review_by (frontmatter, or the per-type
    defaults in vault.toml [staleness.<type>]); with --code, the entries anchored to code that
    changed since (the same as `clawql code stale-memory`)."""
    if code:
        from clawql_git.cli.anchors import show_code_stale

        show_code_stale(open_vault(ctx), repo, rev, as_json)
        return
    due = open_vault(ctx).stale()
    if as_json:
        emit_json([d.to_record() for d in due])
        return
    for d in due:
        click.echo(f"{d.due}  {d.reason:<12} {d.path}  ({d.source})")
    click.echo(f"{len(due)} entr{'y' if len(due) == 1 else 'ies'} due")
