"""``clawql workspace ...``: several vaults mounted by name, recall over all, routed ingest."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from clawql_git.cli.options import (
    backend_option,
    entry_fields,
    entry_options,
    identity,
    identity_options,
    json_option,
    read_document,
    reader_options,
    recall_scope_options,
    recall_time_options,
)
from clawql_git.cli.output import emit_json, progress
from clawql_git.errors import InvalidInput

if TYPE_CHECKING:
    from clawql_git.workspace.mounts import Workspace


def _workspace(ctx: click.Context) -> Workspace:
    from clawql_git.workspace.mounts import Workspace

    given = ctx.obj.get("workspace")
    return Workspace.load(Path(given) if given else None)


@click.group()
@click.option(
    "--workspace",
    "workspace_file",
    type=click.Path(dir_okay=False),
    envvar="CLAWQL_WORKSPACE",
    help="Workspace file (default: $CLAWQL_WORKSPACE, else ~/.config/clawql/workspace.toml).",
)
@click.pass_context
def workspace(ctx: click.Context, workspace_file: str | None) -> None:
    """Mount several vaults (personal, team, org), recall over all of them, route ingests."""
    ctx.obj = {"workspace": workspace_file}


@workspace.command()
@click.argument("name")
@click.argument("source")
@click.option(
    "--scope", type=click.Choice(["personal", "team", "org"]), default="personal", show_default=True
)
@json_option
@click.pass_context
def add(ctx: click.Context, name: str, source: str, scope: str, as_json: bool) -> None:
    """Mount the vault at SOURCE (a folder, or a git URL cloned into the cache) as NAME."""
    with progress("cloning", not as_json):
        mount = _workspace(ctx).add(name, source, scope)
    if as_json:
        emit_json(mount.to_record())
    else:
        click.echo(f"mounted {mount.name} ({mount.scope}) at {mount.path}")


@workspace.command("list")
@json_option
@click.pass_context
def list_(ctx: click.Context, as_json: bool) -> None:
    """The mounted vaults and the routing rules."""
    ws = _workspace(ctx)
    rec = ws.to_record()
    if as_json:
        emit_json(rec)
        return
    if not ws.mounts:
        click.echo(f"no vaults mounted ({ws.path})")
    for m in ws.mounts.values():
        click.echo(
            f"{m.name}  {m.scope}  {m.source}" + (f"  (clone at {m.path})" if m.remote else "")
        )
    for entry_type, name in rec["routes"].items():
        click.echo(f"route {entry_type} -> {name}")
    if ws.default:
        click.echo(f"route * -> {ws.default}")


@workspace.command()
@click.argument("name")
@json_option
@click.pass_context
def remove(ctx: click.Context, name: str, as_json: bool) -> None:
    """Unmount NAME (the vault and any cached clone stay on disk) and drop its routes."""
    mount = _workspace(ctx).remove(name)
    if as_json:
        emit_json({"removed": mount.to_record()})
    else:
        click.echo(f"unmounted {mount.name}; {mount.path} is left as it was")


@workspace.command()
@click.argument("rules", nargs=-1)
@click.option("--default", "default", help="Mount for types no rule names.")
@click.option("--clear", "clear", multiple=True, help="Drop the rule of this type (repeatable).")
@json_option
@click.pass_context
def route(
    ctx: click.Context,
    rules: tuple[str, ...],
    default: str | None,
    clear: tuple[str, ...],
    as_json: bool,
) -> None:
    """Route entry types to vaults: RULES are TYPE=NAME (e.g. decision=team context=personal);
    with no arguments, print the rules."""
    ws = _workspace(ctx)
    parsed = {}
    for rule in rules:
        entry_type, sep, name = rule.partition("=")
        if not sep or not entry_type.strip() or not name.strip():
            raise InvalidInput(f"a rule is TYPE=NAME, got {rule!r}")
        parsed[entry_type.strip()] = name.strip()
    if parsed or default or clear:
        ws.set_routes(parsed, default, clear)
    routes = dict(sorted(ws.routes.items()))
    if as_json:
        emit_json({"routes": routes, "default": ws.default or None})
        return
    for entry_type, name in routes.items():
        click.echo(f"{entry_type} -> {name}")
    click.echo(f"* -> {ws.default or '(none: pass --to)'}")


@workspace.command()
@click.argument("names", nargs=-1)
@json_option
@click.pass_context
def pull(ctx: click.Context, names: tuple[str, ...], as_json: bool) -> None:
    """Bring the clones of URL mounts up to date (all of them, or NAMES)."""
    with progress("pulling", not as_json):
        result = _workspace(ctx).pull(names)
    if as_json:
        emit_json(result)
        return
    for name, state in result.items():
        click.echo(f"{name}: {state}")


@workspace.command()
@click.argument("query")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option(
    "--max-tokens",
    type=click.IntRange(1, 1_000_000),
    default=2000,
    show_default=True,
    help="Budget over the merged list.",
)
@recall_scope_options
@recall_time_options
@click.option("--allow-pii", is_flag=True, help="Include PHI-classified entries.")
@click.option("--no-cache", is_flag=True, help="Do not answer from the recall caches.")
@backend_option
@reader_options
@json_option
@click.pass_context
def recall(
    ctx: click.Context,
    /,
    query: str,
    limit: int,
    max_tokens: int,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    project: str | None,
    since: datetime | None,
    until: datetime | None,
    allow_pii: bool,
    no_cache: bool,
    backend: str,
    reader: str | None,
    session: str | None,
    as_json: bool,
) -> None:
    """Recall QUERY from every mounted vault; each hit names its vault. A vault that cannot
    answer is reported and the others still answer."""
    from clawql_git.model.identity import Identity

    result = _workspace(ctx).recall(
        query,
        Identity(agent_id=reader or "", session_id=session or ""),
        limit=limit,
        max_tokens=max_tokens,
        types=types,
        tags=tags,
        project=project,
        since=since,
        until=until,
        allow_pii=allow_pii,
        use_cache=not no_cache,
        backend=backend,
    )
    if as_json:
        emit_json(result.to_record())
        return
    for v in result.unavailable:
        click.echo(f"warning: vault {v.name} unavailable: {v.reason}", err=True)
    for n, item in enumerate(result.hits, 1):
        hit = item.hit
        click.echo(
            f"{n}. [{item.vault}] {hit.title}  [{hit.type}]  score {hit.score:.2f}  {hit.worm_ref}"
        )
        click.echo(f"   {hit.path}")
        click.echo("   " + " ".join(hit.snippet.split())[:240])
    answered = len(result.vaults) - len(result.unavailable)
    click.echo(
        f"{len(result.hits)} hit(s) from {answered} of {len(result.vaults)} vaults, "
        f"{result.total_tokens} tokens" + (", truncated" if result.truncated else "")
    )


@workspace.command()
@click.argument("file", required=False)
@click.option("--to", "to", help="Write to this mounted vault (overrides the routing rules).")
@entry_options
@identity_options
@json_option
@click.pass_context
def ingest(
    ctx: click.Context,
    /,
    file: str | None,
    to: str | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Write one entry into the vault the routing rules choose for its type (or --to NAME),
    through that vault's own repository (a URL mount pushes)."""
    ident = identity(kw)
    ws = _workspace(ctx)
    fields = entry_fields(kw)
    if file is not None:
        written = ws.ingest_markdown(
            read_document(file),
            to=to,
            overrides=fields.overrides(),
            identity=ident,
            body=fields.body,
            allow_new_type=fields.new_type,
        )
    else:
        written = ws.ingest(**fields.new_entry(), to=to, identity=ident)
    if written.result.warning and not as_json:  # with --json it is the record's "warning"
        click.echo(f"warning: {written.result.warning}", err=True)
    if as_json:
        emit_json(written.to_record())
        return
    result = written.result
    where = f" on {result.branch} (awaiting review)" if result.branch else ""
    click.echo(f"{result.event} {result.path} -> {written.vault} ({written.routed_by}){where}")
    click.echo(f"worm_ref: {result.worm_ref}")
