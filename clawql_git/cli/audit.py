"""``clawql memory audit`` and ``clawql memory verify``: the audit trail and its proofs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from clawql_git.cli.options import (
    TIME,
    json_option,
    open_vault,
    read_options,
    reader_identity,
    trail_filter_options,
)
from clawql_git.cli.output import emit_json
from clawql_git.cli.recall import report_index
from clawql_git.errors import CheckFailed, InvalidInput


@click.group(invoke_without_command=True)
@trail_filter_options
@json_option
@click.pass_context
def audit(
    ctx: click.Context,
    agent: str | None,
    entry_type: str | None,
    event: str | None,
    session: str | None,
    correlation: str | None,
    path: str | None,
    since: datetime | None,
    until: datetime | None,
    as_json: bool,
) -> None:
    """The audit trail: engine commits on main and events on refs/clawql/audit.

    Example: every decision agent X created in the last 90 days:
    `clawql memory audit --agent X --type decision --event MEMORY_INGEST --since 90d`.
    """
    if ctx.invoked_subcommand is not None:
        return
    from clawql_git.audit.history import LogFilter

    vault = open_vault(ctx)
    lo, hi = since, until
    flt = LogFilter(agent, entry_type, event, session, correlation, path, lo, hi)
    records: list[dict[str, Any]] = [{"chain": "main", **r.to_record()} for r in vault.log(flt)]
    if entry_type is None:
        for ev in vault.audit_events():
            if _audit_matches(ev, agent, event, session, correlation, path, lo, hi):
                records.append({"chain": "audit", **ev.to_record()})
    records.sort(key=lambda r: r["time"], reverse=True)
    if as_json:
        emit_json(records)
        return
    for r in records:
        ref = r.get("worm_ref") or r.get("audit_ref")
        what = ", ".join(r.get("paths") or [h["path"] for h in r.get("hits", [])]) or "-"
        click.echo(f"{r['time']}  {r['event']:<18} {r['agent_id'] or '-':<14} {ref}  {what}")
    click.echo(f"{len(records)} event(s)")


def _audit_matches(
    ev: Any,
    agent: str | None,
    event: str | None,
    session: str | None,
    correlation: str | None,
    path: str | None,
    lo: Any,
    hi: Any,
) -> bool:
    checks = (
        agent is None or ev.agent == agent,
        event is None or ev.event == event,
        session is None or ev.session == session,
        correlation is None or ev.correlation == correlation,
        path is None or any(h.path == path for h in ev.hits),
        lo is None or ev.when >= lo,
        hi is None or ev.when <= hi,
    )
    return all(checks)


@audit.command()
@click.option("--path", help="Which recalls returned this entry?")
@click.option("--pii", help="Which recalls returned an entry of this PII class (e.g. PHI)?")
@click.option("--session", help="Only recalls of this session.")
@click.option("--agent", help="Only recalls by this agent.")
@json_option
@click.pass_context
def reads(
    ctx: click.Context,
    path: str | None,
    pii: str | None,
    session: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Negative proof over the whole audit chain: which reads (recall, show/get, history,
    export, recent) returned an entry, and which attempts the PII gate refused."""
    answer = open_vault(ctx).audit_reads(path, pii, session, agent)
    if as_json:
        emit_json(
            {
                "statement": answer.statement(),
                "events_scanned": answer.events_scanned,
                "chain_tip": answer.chain_tip,
                "matches": [m.to_record() for m in answer.matches],
                "refused": [m.to_record() for m in answer.refused],
            }
        )
        return
    click.echo(answer.statement())
    for m in answer.matches:
        click.echo(
            f"  git:{m.sha}  {m.when:%Y-%m-%d %H:%M:%SZ}  {m.agent or '-'}  "
            f"session {m.session or '-'}  {m.door}  {m.query!r}"
        )
    for m in answer.refused:
        click.echo(
            f"  refused git:{m.sha}  {m.when:%Y-%m-%d %H:%M:%SZ}  {m.agent or '-'}  "
            f"session {m.session or '-'}  {m.door}"
        )


@click.command()
@click.option("--index", is_flag=True, help="Check the derived index against its commit.")
@json_option
@click.pass_context
def verify(ctx: click.Context, as_json: bool, index: bool) -> None:
    """Prove nothing was rewritten: the real objects (no replace refs or grafts), linear
    histories, trailers against changes, checkpoints, reflog and pushes still in history, and
    signatures when a signing key is set. Says what it could not prove. Never repairs. With
    --index, check instead that the derived index matches the commit it was built from."""
    if index:
        return report_index(open_vault(ctx).recall_service().check_index().to_record(), as_json)
    report = open_vault(ctx).verify()
    if as_json:
        emit_json(report.to_record())
    else:
        for check in report.checks:
            click.echo(f"ok: {check}")
        for limit in report.limits:
            click.echo(f"not proved: {limit}")
        for problem in report.problems:
            click.echo(f"TAMPERING: {problem}")
        click.echo(report.verdict())
    if not report.ok:
        raise CheckFailed(f"verify found {len(report.problems)} problem(s)")


@click.command("export")
@click.option("--flywheel", is_flag=True, required=True, help="Training records (JSONL).")
@click.option("--exclude-cache-hits", is_flag=True, help="Leave out recalls from the cache.")
@click.option("--since", type=TIME, help="Only recalls not older than: 90d, a date or a timestamp.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to a file.")
@read_options
@click.pass_context
def export(
    ctx: click.Context,
    /,
    flywheel: bool,
    exclude_cache_hits: bool,
    since: datetime | None,
    output: str | None,
    allow_pii: bool,
    **kw: Any,
) -> None:
    """Export JSONL training records: each recall (query, entries recalled, their verdicts)
    from the audit chain, then the entries whose verdict is `passed` (recorded as a read;
    PHI entries withheld without --allow-pii)."""
    from clawql_git.vault.flywheel import export_lines

    who = reader_identity(kw)
    vault = open_vault(ctx)
    lines = export_lines(vault, since, exclude_cache_hits, who, allow_pii)
    if output is None:
        for line in lines:
            click.echo(line)
        return
    count = 0
    try:
        with open(output, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(line + "\n")
                count += 1
    except OSError as exc:
        raise InvalidInput(f"cannot write {output}: {exc.strerror or exc}") from exc
    click.echo(f"wrote {count} records to {output}", err=True)
