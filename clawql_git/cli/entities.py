"""``clawql memory entities`` and ``clawql memory schema``: the ontology's two commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from clawql_git.cli.options import (
    identity,
    identity_options,
    json_option,
    open_vault,
    read_document,
    read_options,
    reader_identity,
)
from clawql_git.cli.output import emit_json
from clawql_git.errors import InvalidInput

if TYPE_CHECKING:
    from clawql_git.ontology import EntityMatch


def _pairs(where: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for item in where:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InvalidInput(f"--where {item!r}: expected FIELD=VALUE")
        out.append((name.strip(), value.strip()))
    return out


@click.command()
@click.argument("kind")
@click.option(
    "--where", multiple=True, metavar="FIELD=VALUE", help="Only instances whose FIELD holds VALUE."
)
@click.option(
    "--related",
    metavar="REL",
    help="Follow a relation: a reference field (owner), a relation of the schema (owns) or "
    "KIND.FIELD of a kind that references this one (service.owner).",
)
@read_options
@json_option
@click.pass_context
def entities(
    ctx: click.Context,
    /,
    kind: str,
    where: tuple[str, ...],
    related: str | None,
    allow_pii: bool,
    as_json: bool,
    **kw: Any,
) -> None:
    """List the instances of an entity KIND, filtered by field values, each with the instances
    a relation reaches, forwards or backwards (recorded as a read; PHI needs --allow-pii)."""
    who = reader_identity(kw)
    answer = open_vault(ctx).entities(
        kind, _pairs(where), related or "", identity=who, allow_pii=allow_pii
    )
    if as_json:
        emit_json(answer.to_record())
        return
    for match in answer.matches:
        click.echo(_line(match))
        for other in match.related:
            click.echo(f"  {match.relation} -> {_line(other)}")
        if match.relation and not match.related:
            click.echo(f"  {match.relation} -> (none)")
    click.echo(f"{len(answer.matches)} {kind} instance(s)")
    if answer.withheld:
        click.echo(f"{answer.withheld} PHI-classified instance(s) withheld (--allow-pii)")


def _line(match: EntityMatch) -> str:
    return f"{match.kind} {match.id}  {match.path}"


@click.command()
@click.argument("files", nargs=-1, required=True)
@identity_options
@json_option
@click.pass_context
def schema(ctx: click.Context, /, files: tuple[str, ...], as_json: bool, **kw: Any) -> None:
    """Add or change entity schemas from .cqe FILES ('-' for stdin), together in one
    MEMORY_ONTOLOGY commit routed by the review policy; refused (exit 2), naming them, when it
    would leave existing instances invalid."""
    texts = [read_document(f) for f in files]
    result = open_vault(ctx).write_schema(*texts, identity=identity(kw))
    if as_json:
        emit_json(result.to_record())
        return
    if result.noop:
        click.echo(f"unchanged: {result.path} already holds that schema")
    else:
        click.echo(f"{result.event} {' '.join(result.paths)}")
    click.echo(f"worm_ref: {result.worm_ref}")
    if result.branch:
        click.echo(f"proposed on {result.branch}: awaiting review, main is unchanged")
