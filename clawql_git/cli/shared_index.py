"""``clawql memory index publish`` and ``clawql memory recall --index``: a team's shared
read-only index on object storage."""

from __future__ import annotations

import click

from clawql_git.cli.options import json_option, open_vault
from clawql_git.cli.output import emit_json


@click.command()
@click.argument("uri")
@click.option("--endpoint", help="S3-compatible endpoint URL (default: $AWS_ENDPOINT_URL).")
@json_option
@click.pass_context
def publish(ctx: click.Context, uri: str, endpoint: str | None, as_json: bool) -> None:
    """Publish the index of main to URI (s3://bucket/prefix) for read-only team recall."""
    from clawql_git.sync.shared_index import publish as run

    done = run(open_vault(ctx), uri, endpoint)
    if as_json:
        emit_json(done.to_record())
    else:
        click.echo(f"published the index of git:{done.commit} to {done.uri}")
        click.echo(f"  {done.files} files, {done.bytes} bytes; readers: --index {uri}")


def recall_shared(uri: str, query: str, limit: int, as_json: bool, backend: str = "auto") -> None:
    """``clawql memory recall --index URI``: query a published index, read-only, with the
    vector layers when this machine's embedding model is the one that built it."""
    import os

    from clawql_git.index.embedders import resolve_embedder
    from clawql_git.sync.shared_index import SharedIndex

    embedder = None if backend == "fts" else resolve_embedder(None, os.environ)
    index = SharedIndex(uri, embedder=embedder)
    answer = index.recall(query, limit)
    if as_json:
        emit_json({"index": index.published.to_record(), **answer.to_record()})
        return
    click.echo(f"shared index {index.published.uri} (main at git:{index.published.commit})")
    for warning in answer.warnings:
        click.echo(f"warning: {warning}", err=True)
    for n, hit in enumerate(answer.hits, 1):
        click.echo(f"{n}. {hit.title}  [{hit.type}]  score {hit.score:.3f}  {hit.worm_ref}")
        click.echo(f"   {hit.path}  ({', '.join(hit.layers)})")
        click.echo("   " + " ".join(hit.snippet.split())[:240])
    click.echo(f"{len(answer.hits)} hit(s) from {', '.join(answer.layers)}")
