"""``clawql knowledge search|index``: Onyx beside the vault (thin adapters over
``Vault.knowledge_search`` / ``Vault.knowledge_index``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from clawql_git.cli.options import (
    TIME,
    json_option,
    open_vault,
    reader_identity,
    reader_options,
    vault_option,
)
from clawql_git.cli.output import emit_json


@click.group()
@vault_option
@click.pass_context
def knowledge(ctx: click.Context, vault: str | None) -> None:
    """Organisational knowledge in Onyx, beside the vault (CLAWQL_ONYX_URL, CLAWQL_ONYX_API_KEY)."""
    ctx.obj = {"vault": vault}


@knowledge.command()
@click.argument("query")
@click.option(
    "--sources", "sources", multiple=True, help="Only these Onyx source types (repeatable)."
)
@click.option("--date-from", type=TIME, help="Only documents updated since: 30d, a date.")
@click.option(
    "--max-results",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="At most this many documents.",
)
@click.option(
    "--permission",
    type=click.Choice(["user", "admin"]),
    default="user",
    show_default=True,
    help="user: what the key's user may see (document-search); admin: every document.",
)
@reader_options
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    /,
    query: str,
    sources: tuple[str, ...],
    date_from: datetime | None,
    max_results: int,
    permission: str,
    as_json: bool,
    **kw: Any,
) -> None:
    """Search Onyx for QUERY: documents with their citations (link, source, owners). When
    Onyx is down the answer is empty and says why (exit 0); recorded on the audit chain."""
    from clawql_git.onyx import OnyxQuery

    q = OnyxQuery(query, tuple(sources), date_from, max_results, permission)
    answer = open_vault(ctx).knowledge_search(q, identity=reader_identity(kw))
    record = answer.to_record()
    if as_json:
        emit_json(record)
        return
    for n, doc in enumerate(record["documents"], 1):
        click.echo(f"{n}. {doc['title']}  [{doc['source_type']}]  score {doc['score']:.2f}")
        click.echo(f"   {doc['link'] or doc['document_id']}")
        click.echo("   " + " ".join(doc["blurb"].split())[:240])
    for warning in record["warnings"]:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"{len(record['documents'])} document(s) from Onyx ({permission})")


@knowledge.command("index")
@click.option("--type", "types", multiple=True, help="Only entries of this type (repeatable).")
@click.option(
    "--cc-pair",
    "cc_pair_id",
    type=click.IntRange(1, 2**31 - 1),
    help="Onyx connector-credential pair id.",
)
@reader_options
@json_option
@click.pass_context
def index_entries(
    ctx: click.Context,
    /,
    types: tuple[str, ...],
    cc_pair_id: int | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Send the vault's current entries (none with a PII classification) to Onyx's Ingestion
    API; recorded as ONYX_SOURCE_INDEXED on the audit chain."""
    done = open_vault(ctx).knowledge_index(
        types=types, cc_pair_id=cc_pair_id, identity=reader_identity(kw)
    )
    if as_json:
        emit_json(done.to_record())
        return
    click.echo(
        f"{len(done.documents)} entries indexed into Onyx, {len(done.skipped)} withheld (PII); "
        f"{done.audit_ref}"
    )
