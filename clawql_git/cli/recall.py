"""``clawql memory recall|recent|tree|index``: the derived index and the recall pipeline."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from clawql_git.cli.options import (
    backend_option,
    json_option,
    open_vault,
    read_options,
    reader_identity,
    reader_options,
    recall_scope_options,
    recall_time_options,
)
from clawql_git.cli.output import emit_json, progress
from clawql_git.model.times import MAX_DAYS

if TYPE_CHECKING:
    from clawql_git.recall.pipeline import RecallResult


@click.command()
@click.argument("query")
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="At most this many.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(1, 1_000_000),
    default=2000,
    show_default=True,
    help="Budget.",
)
@recall_scope_options
@click.option("--agent", help="Only entries written by this agent.")
@recall_time_options
@click.option("--as-of", "as_of", help="Answer from the vault as it was at REV or DATE.")
@backend_option
@click.option("--allow-pii", is_flag=True, help="Include PHI-classified entries.")
@click.option("--no-cache", is_flag=True, help="Do not answer from the recall cache.")
@reader_options
@click.option("--correlation", help="Correlation id (audit).")
@click.option("--index", "shared", help="Query a published shared index (s3://...) read-only.")
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
    agent: str | None,
    since: datetime | None,
    until: datetime | None,
    as_of: str | None,
    backend: str,
    allow_pii: bool,
    no_cache: bool,
    reader: str | None,
    session: str | None,
    correlation: str | None,
    shared: str | None,
    as_json: bool,
) -> None:
    """Recall the entries that answer QUERY, within a token budget."""
    from clawql_git.model.identity import Identity

    if shared:
        from clawql_git.cli.shared_index import recall_shared

        return recall_shared(shared, query, limit, as_json, backend)

    vault = open_vault(ctx)
    who = Identity(
        agent_id=reader or "", session_id=session or "", correlation_id=correlation or ""
    )
    with progress("indexing", not as_json, phases=True) as bar:
        result = vault.recall(
            query,
            identity=who,
            progress=bar,
            at=as_of,
            limit=limit,
            max_tokens=max_tokens,
            types=types,
            tags=tags,
            project=project,
            agent=agent,
            since=since,
            until=until,
            backend=backend,
            allow_pii=allow_pii,
            use_cache=not no_cache,
        )
    if as_json:
        emit_json(result.to_record())
    else:
        _print_result(result)
    _ending()


def _print_result(result: RecallResult) -> None:
    if result.index_note:
        click.echo(result.index_note, err=True)
    for n, hit in enumerate(result.hits, 1):
        click.echo(f"{n}. {hit.title}  [{hit.type}]  score {hit.score:.2f}  {hit.worm_ref}")
        click.echo(f"   {hit.path}  (via {', '.join(hit.layers)})")
        if hit.superseded_by:
            click.echo(f"   superseded by {hit.superseded_by}")
        if hit.code_stale:
            from clawql_git.recall.code_labels import describe as code_note

            click.echo(f"   {code_note(hit)}")
        click.echo("   " + " ".join(hit.snippet.split())[:240])
    for skip in result.skipped_layers:
        click.echo(f"skipped {skip['layer']}: {skip['reason']}")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    cached = ", from cache" if result.cache_hit else ""
    more = ", truncated to the budget" if result.truncated else ""
    click.echo(
        f"{len(result.hits)} hit(s), {result.total_tokens} tokens{more}{cached}; "
        f"layers: {', '.join(result.layers)}"
    )


def _ending() -> None:
    """The answer is out and everything it wrote is on disk (the audit commit, the cache row,
    the saved graph): spare the process's exit a collection over everything a recall loads
    (LanceDB, pyarrow, the index), about 0.2 s of a cold recall (bench/cold_cli.py). Frozen
    objects that are garbage only through a cycle are then not finalised: nothing of ours
    that needs finalising is left at this point."""
    import gc

    gc.freeze()


@click.command()
@click.option(
    "--days", type=click.IntRange(1, MAX_DAYS), default=7, show_default=True, help="How far back."
)
@click.option("--project", help="Only this project's context entries.")
@read_options
@json_option
@click.pass_context
def recent(
    ctx: click.Context, /, days: int, project: str | None, allow_pii: bool, as_json: bool, **kw: Any
) -> None:
    """What was worked on recently and the latest context entries (the session-start call;
    recorded as a read, PHI context withheld without --allow-pii)."""
    who = reader_identity(kw)
    summary = open_vault(ctx).recent(days, project, identity=who, allow_pii=allow_pii)
    if as_json:
        emit_json(summary)
        return
    click.echo(f"{summary['events']} event(s) since {summary['since']}")
    for item in summary["worked_on"]:
        click.echo(f"  {item['events']:>3}x {item['path']}")
    click.echo("latest context:")
    for item in summary["context"]:
        click.echo(f"  {item['timestamp'][:10]}  {item['title']}: {item['summary'][:160]}")


@click.command()
@json_option
@click.pass_context
def tree(ctx: click.Context, as_json: bool) -> None:
    """The category tree (page_index_path) with entry counts."""
    counts = open_vault(ctx).category_tree()
    if as_json:
        emit_json(counts)
        return
    for path in sorted(counts):
        depth = path.count("/")
        click.echo(f"{'  ' * depth}{path.rsplit('/', 1)[-1]} ({counts[path]})")


@click.group()
def index() -> None:
    """The derived search index under $GIT_DIR/clawql/index."""


@index.command()
@click.option("--at", "rev", help="Build from the tree of this revision (default HEAD).")
@json_option
@click.pass_context
def rebuild(ctx: click.Context, rev: str | None, as_json: bool) -> None:
    """Rebuild the index from a commit (vectors come from the content-hash cache)."""
    vault = open_vault(ctx)
    with progress("indexing", not as_json, phases=True) as bar:
        report = vault.rebuild_index(rev, bar)
    _print_report(report.__dict__, as_json)


@index.command()
@json_option
@click.pass_context
def update(ctx: click.Context, as_json: bool) -> None:
    """Catch the index up with HEAD."""
    vault = open_vault(ctx)
    with progress("indexing", not as_json, phases=True) as bar:
        report = vault.update_index(bar)
    _print_report(report.__dict__, as_json)


@index.command()
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """The index stamp and how far it is behind HEAD."""
    info = open_vault(ctx).index_status()
    if as_json:
        emit_json(info)
        return
    stamp = info["stamp"]
    if stamp is None:
        click.echo("no index yet: the next recall (or `clawql memory index rebuild`) builds it")
        return
    behind = info["behind"]
    state = "current" if info["current"] else f"{behind} commit(s) behind HEAD"
    click.echo(f"index at git:{stamp['commit']} ({state})")
    click.echo(f"schema {stamp['schema']}, embedder {stamp['embedder']}, stale: {stamp['stale']}")


def report_index(report: dict[str, Any], as_json: bool) -> None:
    """``verify --index``: whether the index matches its commit; CheckFailed when not."""
    from clawql_git.errors import CheckFailed

    if as_json:
        emit_json(report)
    else:
        for check in report["checks"]:
            click.echo(f"ok: {check}")
        for problem in report["problems"]:
            click.echo(f"MISMATCH: {problem}")
        commit = f" git:{report['commit']}" if report["commit"] else ""
        ok = f"index matches its commit{commit}"
        click.echo(ok if report["ok"] else f"{len(report['problems'])} problem(s) found")
    if not report["ok"]:
        raise CheckFailed(
            f"the index does not match its commit: {len(report['problems'])} problem(s)"
        )


def _print_report(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(report)
        return
    click.echo(
        f"{report['mode']}: {report['changed']} entries indexed at git:{report['commit']}, "
        f"{report['embedded']} embedded, {report['seconds']:.1f}s"
    )
