"""``clawql memory ...``: entries, history, links and catalogs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from clawql_git.cli.options import (
    entry_fields,
    entry_options,
    identity,
    identity_options,
    json_option,
    open_vault,
    read_body,
    read_document,
    read_options,
    reader_identity,
    trail_filter_options,
    vault_option,
    vault_record,
)
from clawql_git.cli.output import emit_json, progress
from clawql_git.errors import CheckFailed, InvalidInput

if TYPE_CHECKING:
    from clawql_git.vault.writer import WriteResult


def _print_write(result: WriteResult, as_json: bool) -> None:
    if result.warning and not as_json:  # with --json it is the record's "warning"
        click.echo(f"warning: {result.warning}", err=True)
    if as_json:
        emit_json({**result.to_record(), "warning": result.warning or None})
    elif result.noop:
        click.echo(f"unchanged: {result.path} already holds that content")
        click.echo(f"worm_ref: {result.worm_ref}")
    else:
        click.echo(f"{result.event} {result.path}")
        click.echo(f"worm_ref: {result.worm_ref}")
    if result.branch and not as_json:
        click.echo(f"proposed on {result.branch}: awaiting review, main is unchanged")


@click.group()
@vault_option
@click.pass_context
def memory(ctx: click.Context, vault: str | None) -> None:
    """Write, read and check memory entries."""
    ctx.obj = {"vault": vault}


# ---------------------------------------------------------------- init


@memory.command()
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("--adopt", is_flag=True, help="Take in an existing folder of Markdown (Obsidian).")
@click.option("--type", "default_type", help="With --adopt: type for notes that have none.")
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, file_okay=False),
    help="Seed from a folder of entries (e.g. sample-vault), one commit per entry.",
)
@identity_options
@json_option
@click.pass_context
def init(
    ctx: click.Context,
    /,
    path: str | None,
    adopt: bool,
    default_type: str | None,
    source: str | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Create a vault at PATH (default: the current directory); harmless on a vault."""
    from clawql_git.vault.facade import Vault

    ident = identity(kw)
    target = Path(path or ctx.obj.get("vault") or ".")
    vault = Vault.init(
        target, adopt=adopt, default_type=default_type, identity=ident, eager_index=True
    )
    seeded = 0
    if source:
        with progress("seeding", not as_json) as bar:
            seeded = len(vault.seed(Path(source), ident, bar))
    record = vault_record(vault, seeded=seeded)
    if as_json:
        emit_json(record)
    else:
        click.echo(f"vault ready at {vault.root} (id {record['vault_id']})")
        if seeded:
            click.echo(f"seeded {seeded} entries from {source}")


# ---------------------------------------------------------------- ingest


@memory.command()
@click.argument("file", required=False)
@entry_options
@click.option("--path", "entry_path", help="Explicit vault-relative path (default: derived).")
@click.option(
    "--append", is_flag=True, help="Append a dated section to the same-titled or repeated entry."
)
@click.option(
    "--supersede", is_flag=True, help="Mark the entry it contradicts or repeats superseded by it."
)
@click.option("--sign", is_flag=True, help="Sign the commit with your SSH signing key.")
@identity_options
@json_option
@click.pass_context
def ingest(
    ctx: click.Context,
    /,
    file: str | None,
    entry_path: str | None,
    append: bool,
    supersede: bool,
    sign: bool,
    as_json: bool,
    **kw: Any,
) -> None:
    """Write one entry, from flags or from a Markdown FILE with frontmatter ('-' for stdin).

    Prints the entry's worm_ref, the sha of the commit that holds it, and warns of current
    entries it nearly repeats or contradicts (--append / --supersede act on them).
    """
    ident = identity(kw)
    vault = open_vault(ctx)
    if sign:
        vault.enable_signing()
    fields = entry_fields(kw)
    if file is not None:  # a Markdown document; the flags override its frontmatter and body
        result = vault.ingest_markdown(
            read_document(file),
            identity=ident,
            overrides=fields.overrides(),
            path=entry_path,
            append=append,
            body=fields.body,
            allow_new_type=fields.new_type,
            supersede=supersede,
        )
    else:
        result = vault.ingest(
            **fields.new_entry(),
            identity=ident,
            append=append,
            path=entry_path,
            supersede=supersede,
        )
    _print_write(result, as_json)


# ---------------------------------------------------------------- changes


def _parse_sets(sets: tuple[str, ...], unsets: tuple[str, ...]) -> dict[str, Any]:
    import yaml

    changes: dict[str, Any] = {}
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidInput(f"--set expects KEY=VALUE, got {item!r}")
        try:
            changes[key.strip()] = yaml.safe_load(value) if value else ""
        except yaml.YAMLError as exc:
            raise InvalidInput(f"--set {key}: value is not valid YAML: {exc}") from exc
    changes.update({key: None for key in unsets})
    return changes


@memory.command()
@click.argument("path")
@click.option("--body", help="New body text.")
@click.option("--body-file", help="Read the new body from a file ('-' for stdin).")
@click.option("--title", help="New title (the path stays).")
@click.option("--description", help="New description.")
@click.option("--set", "sets", multiple=True, help="Set a frontmatter key: KEY=YAML-VALUE.")
@click.option("--unset", "unsets", multiple=True, help="Remove a frontmatter key.")
@identity_options
@json_option
@click.pass_context
def update(
    ctx: click.Context,
    /,
    path: str,
    body: str | None,
    body_file: str | None,
    title: str | None,
    description: str | None,
    sets: tuple[str, ...],
    unsets: tuple[str, ...],
    as_json: bool,
    **kw: Any,
) -> None:
    """Change an entry by a new commit (MEMORY_UPDATE)."""
    ident = identity(kw)
    changes = _parse_sets(sets, unsets)
    changes.update({k: v for k, v in (("title", title), ("description", description)) if v})
    new_body = read_body(body, body_file)
    if not changes and new_body is None:
        raise InvalidInput("nothing to update: give --body, --title, --description or --set")
    result = open_vault(ctx).update(path, body=new_body, changes=changes, identity=ident)
    _print_write(result, as_json)


@memory.command()
@click.argument("old")
@click.argument("new", required=False)
@click.option("--by", "by", help="Path of the entry that replaces OLD (or give it as NEW).")
@identity_options
@json_option
@click.pass_context
def supersede(
    ctx: click.Context, /, old: str, new: str | None, by: str | None, as_json: bool, **kw: Any
) -> None:
    """Mark OLD superseded by NEW (status: superseded, superseded_by), one commit."""
    if (new is None) == (by is None):
        raise InvalidInput("name the replacing entry once: `supersede OLD NEW` or `--by NEW`")
    replacement = new or by or ""
    _print_write(open_vault(ctx).supersede(old, replacement, identity=identity(kw)), as_json)


@memory.command()
@click.argument("path")
@click.option("--reason", help="Why it is retracted.")
@identity_options
@json_option
@click.pass_context
def retract(ctx: click.Context, /, path: str, reason: str | None, as_json: bool, **kw: Any) -> None:
    """Mark an entry retracted; it stays in history, recall leaves it out."""
    _print_write(open_vault(ctx).retract(path, reason, identity=identity(kw)), as_json)


@memory.command()
@click.argument("path")
@identity_options
@json_option
@click.pass_context
def archive(ctx: click.Context, /, path: str, as_json: bool, **kw: Any) -> None:
    """Move an entry under archive/ (MEMORY_ARCHIVE)."""
    _print_write(open_vault(ctx).archive(path, identity=identity(kw)), as_json)


# ---------------------------------------------------------------- reading


@memory.command()
@click.argument("path")
@click.option("--at", "rev", help="Read the entry as of this revision.")
@read_options
@json_option
@click.pass_context
def show(
    ctx: click.Context, /, path: str, rev: str | None, allow_pii: bool, as_json: bool, **kw: Any
) -> None:
    """Print an entry with its materialised worm_ref (first and last commit). The read is
    recorded on the audit chain; a PHI entry needs --allow-pii."""
    who = reader_identity(kw)
    view = open_vault(ctx).get(path, at=rev, identity=who, allow_pii=allow_pii)
    if as_json:
        emit_json(view.to_record())
    else:
        click.echo(view.materialised(), nl=False)


@memory.command()
@click.argument("path")
@read_options
@json_option
@click.pass_context
def history(ctx: click.Context, /, path: str, allow_pii: bool, as_json: bool, **kw: Any) -> None:
    """Every version of an entry with the commit that wrote it, newest first (recorded as a
    read; a PHI entry needs --allow-pii)."""
    who = reader_identity(kw)
    versions = open_vault(ctx).history(path, identity=who, allow_pii=allow_pii)
    if as_json:
        emit_json([{"path": v.path, "blob": v.blob, **v.record.to_record()} for v in versions])
        return
    for v in versions:
        when = v.record.when.strftime("%Y-%m-%d %H:%M:%SZ")
        click.echo(f"git:{v.sha}  {when}  {v.record.event or 'COMMIT'}  {v.record.agent}  {v.path}")


@memory.command()
@trail_filter_options
@click.option("--limit", type=click.IntRange(1, 1_000_000), help="At most this many records.")
@json_option
@click.pass_context
def log(
    ctx: click.Context,
    agent: str | None,
    entry_type: str | None,
    event: str | None,
    session: str | None,
    correlation: str | None,
    path: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """The audit trail: engine commits read from their Git trailers, newest first."""
    from clawql_git.audit.history import LogFilter

    flt = LogFilter(agent, entry_type, event, session, correlation, path, since, until)
    records = open_vault(ctx).log(flt, limit)
    if as_json:
        emit_json([r.to_record() for r in records])
        return
    for r in records:
        when = r.when.strftime("%Y-%m-%d %H:%M:%SZ")
        paths = ", ".join(r.paths) or "-"
        click.echo(f"{r.sha[:12]}  {when}  {r.event:<18} {r.agent or '-':<16} {paths}")


# ---------------------------------------------------------------- links


@memory.command()
@click.argument("path", required=False)
@click.option("--broken", is_flag=True, help="List broken links; exit 1 when there are any.")
@json_option
@click.pass_context
def links(ctx: click.Context, path: str | None, broken: bool, as_json: bool) -> None:
    """Outgoing links and backlinks of PATH, or every broken link with --broken."""
    graph = open_vault(ctx).link_graph()
    if broken or path is None:
        edges = graph.broken()
        if as_json:
            emit_json([e.to_record() for e in edges])
        else:
            for e in edges:
                click.echo(f"{e.source}:{e.ref.line}: broken {e.ref.kind} -> {e.ref.target}")
            click.echo(f"{len(edges)} broken link(s)")
        if edges:
            raise CheckFailed(f"{len(edges)} broken link(s)")
        return
    out, back = graph.outgoing(path), graph.backlinks(path)
    if as_json:
        emit_json(
            {
                "path": path,
                "outgoing": [e.to_record() for e in out],
                "backlinks": [e.to_record() for e in back],
            }
        )
        return
    click.echo(f"outgoing ({len(out)}):")
    for e in out:
        click.echo(f"  -> {e.target or e.ref.target + '  (broken)'}")
    click.echo(f"backlinks ({len(back)}):")
    for e in back:
        click.echo(f"  <- {e.source}")


@memory.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "dot", "mermaid"]),
    default="json",
    show_default=True,
)
@click.pass_context
def graph(ctx: click.Context, fmt: str) -> None:
    """Export the link graph."""
    g = open_vault(ctx).link_graph()
    if fmt == "json":
        emit_json(g.to_json())
    else:
        click.echo(g.to_dot() if fmt == "dot" else g.to_mermaid())


# ---------------------------------------------------------------- catalogs and import


@memory.command("catalog")
@click.option("--check", is_flag=True, help="Exit 1 when catalogs drifted from the tree.")
@click.option("--fix", is_flag=True, help="Commit regenerated catalogs.")
@identity_options
@json_option
@click.pass_context
def catalog_cmd(ctx: click.Context, /, check: bool, fix: bool, as_json: bool, **kw: Any) -> None:
    """Check or fix the generated catalogs (index.md files, log.md, log/)."""
    vault = open_vault(ctx)
    ident = identity(kw)
    if fix:
        result = vault.catalog_fix(ident)
        if as_json:
            emit_json(result.to_record() if result else {"fixed": []})
        elif result is None:
            click.echo("catalogs are up to date")
        else:
            click.echo(f"regenerated {len(result.paths)} file(s)\nworm_ref: {result.worm_ref}")
        return
    drift = vault.catalog_drift()
    if as_json:
        emit_json({"drift": drift})
    else:
        click.echo("\n".join(f"drift: {p}" for p in drift) or "catalogs are up to date")
    if drift:
        raise CheckFailed(
            f"{len(drift)} catalog file(s) drifted; run `clawql memory catalog --fix`"
        )


@memory.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--type", "entry_type", help="Type for files without one.")
@click.option("--batch", is_flag=True, help="One commit for the whole import.")
@identity_options
@json_option
@click.pass_context
def import_cmd(
    ctx: click.Context,
    /,
    directory: str,
    entry_type: str | None,
    batch: bool,
    as_json: bool,
    **kw: Any,
) -> None:
    """Import a folder of Markdown (one commit per file, or one with --batch)."""

    vault = open_vault(ctx)
    with progress("importing", not as_json) as bar:
        results = vault.import_folder(
            Path(directory), type=entry_type, batch=batch, identity=identity(kw), progress=bar
        )
    paths = [p for r in results for p in (r.paths or (r.path,))]
    if as_json:
        emit_json(
            {"imported": len(paths), "commits": [r.worm_ref for r in results], "paths": paths}
        )
    else:
        click.echo(f"imported {len(paths)} entries in {len(results)} commit(s)")
