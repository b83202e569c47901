"""``clawql sync ...``: git bundles to S3/R2 or Arweave, and restore on a fresh machine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from clawql_git.cli.options import json_option, open_vault, stack, vault_option
from clawql_git.cli.output import emit_json, progress

if TYPE_CHECKING:
    from clawql_git.sync.remotes import RemoteConfig
    from clawql_git.sync.service import SyncService

PROVIDER = click.Choice(["s3", "r2", "arweave"])


_remote_options = stack(
    click.option("--bucket", help="S3/R2 bucket."),
    click.option("--prefix", help="Key prefix inside the bucket (default: clawql)."),
    click.option("--endpoint", help="S3-compatible endpoint URL (R2: https://<acct>.r2..)."),
    click.option("--region", help="S3 region (R2: auto)."),
    click.option("--gateway", help="Arweave gateway URL (default: https://arweave.net)."),
)
"""Where an S3/R2 or Arweave remote is; read back with ``_remote_config``."""


def _remote_config(provider: str, public: bool, kw: dict[str, Any]) -> RemoteConfig:
    from clawql_git.sync.remotes import RemoteConfig

    values = {k: v for k, v in kw.items() if v}
    return RemoteConfig(provider, public=public, **values)


@click.group()
@vault_option
@click.pass_context
def sync(ctx: click.Context, vault: str | None) -> None:
    """Durable copies of the vault as git bundles on S3/R2 or Arweave.

    Credentials come from the environment (AWS variables and profiles, AWS_ENDPOINT_URL,
    CLAWQL_ARWEAVE_WALLET, CLAWQL_SYNC_KEY); only where the remote is goes into the vault."""
    ctx.obj = {"vault": vault}


def _service(ctx: click.Context, agent: str | None = None) -> tuple[SyncService, str]:
    from clawql_git.sync.service import for_vault

    service, config = for_vault(open_vault(ctx), agent=agent)
    return service, config.provider


@sync.command()
@click.option("--provider", type=PROVIDER, required=True, help="Where the bundles go.")
@_remote_options
@click.option("--public", is_flag=True, help="Arweave: upload unencrypted (public, permanent).")
@json_option
@click.pass_context
def init(ctx: click.Context, /, provider: str, public: bool, as_json: bool, **kw: Any) -> None:
    """Record the sync remote in .clawql/vault.toml (one vault commit; no secrets)."""
    from clawql_git.sync.remotes import save_config

    config = _remote_config(provider, public, kw)
    result = save_config(open_vault(ctx), config, None)
    if as_json:
        emit_json({"sync": config.to_toml(), "commit": result.sha})
    else:
        click.echo(f"sync remote: {provider} {config.bucket or config.gateway} ({config.prefix})")
        click.echo(f"worm_ref: {result.worm_ref}")


@sync.command()
@click.option("--agent", envvar="CLAWQL_AGENT_ID", help="Agent id recorded on the push.")
@json_option
@click.pass_context
def push(ctx: click.Context, agent: str | None, as_json: bool) -> None:
    """Upload what the remote lacks: a full bundle first, then incremental ones."""
    service, _ = _service(ctx, agent)
    with progress("pushing", not as_json, unit="bytes") as bar:
        result = service.push(bar)
    if as_json:
        emit_json(result.to_record())
    elif result.up_to_date:
        click.echo(f"up to date with {result.remote} (seq {result.seq})")
    else:
        kind = "full" if result.full else "incremental"
        click.echo(
            f"pushed seq {result.seq} ({kind}, {result.bundle_size} bytes) to {result.remote}"
        )
        if result.pulled:
            click.echo(f"  first applied {result.pulled} manifest(s) pushed by another clone")


@sync.command()
@json_option
@click.pass_context
def pull(ctx: click.Context, as_json: bool) -> None:
    """Fetch, check and apply what the remote has that this clone has not."""
    service, _ = _service(ctx)
    with progress("pulling", not as_json, unit="bytes") as bar:
        result = service.pull(bar)
    if as_json:
        emit_json(result.to_record())
    elif not result.applied:
        click.echo(f"up to date with {result.remote} (seq {result.seq})")
    else:
        click.echo(f"applied seq {result.applied[0]}..{result.seq} from {result.remote}")
        click.echo(f"  main: {result.main}; audit: {result.audit}")
        if result.signed_by:
            click.echo(f"  manifests signed by {', '.join(sorted(set(result.signed_by)))}")
    for warning in result.warnings:
        click.echo(f"WARNING: {warning}", err=True)


@sync.command()
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--from", "provider", type=PROVIDER, required=True, help="The remote's provider.")
@_remote_options
@click.option("--vault-id", help="Which vault (needed when the prefix holds several).")
@click.option(
    "--min-seq",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    help="Refuse a remote whose newest manifest is older than this seq (rollback).",
)
@click.option(
    "--allowed-signers",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    envvar="CLAWQL_SYNC_ALLOWED_SIGNERS",
    help="SSH allowed-signers file every manifest must be signed by "
    "(default: the vault's committed policy, trusted on first use).",
)
@click.option(
    "--allow-older",
    is_flag=True,
    help="Restore even when a newer seq is known to have existed (with a warning).",
)
@click.option("--public", is_flag=True, help="Arweave: the bundles were pushed unencrypted.")
@json_option
def restore(
    dest: Path,
    provider: str,
    vault_id: str | None,
    min_seq: int,
    allowed_signers: Path | None,
    allow_older: bool,
    public: bool,
    as_json: bool,
    **kw: Any,
) -> None:
    """Rebuild a vault into DEST from the remote's bundles alone, checking every bundle's
    sha256, the manifest chain and signatures, prerequisites, ancestry and every commit's
    content; then index it. Refuses an older vault than a seq known to exist."""
    from clawql_git.sync.remotes import make_backend
    from clawql_git.sync.restore import restore as run_restore
    from clawql_git.sync.signing import file_signers

    config = _remote_config(provider, public, kw)
    signers = file_signers(allowed_signers) if allowed_signers else None
    with progress("restoring", not as_json, unit="bytes") as bar:
        result = run_restore(
            make_backend(config),
            dest,
            config.prefix,
            vault_id,
            bar,
            min_seq,
            signers,
            allow_older,
        )
    if as_json:
        emit_json(result.to_record())
        return
    click.echo(
        f"restored vault {result.vault_id} into {result.path}: seq {result.seq} "
        f"(newest known: seq {result.newest_known}), {result.bundles} bundles, "
        f"{result.bytes} bytes"
    )
    signed = ", ".join(sorted(set(result.signed_by)))
    click.echo(f"  manifests signed by {signed}" if signed else "  manifests not authenticated")
    for ref, sha in sorted(result.refs.items()):
        click.echo(f"  {ref} {sha}")
    for warning in result.warnings:
        click.echo(f"WARNING: {warning}", err=True)


@sync.command()
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """What is pushed, what is not, and where."""
    service, provider = _service(ctx)
    report = service.status(provider)
    if as_json:
        emit_json(report.to_record())
        return
    click.echo(f"remote: {report.remote} ({provider}), vault {report.vault_id}")
    if report.remote_error:
        click.echo(f"  remote: {report.remote_error}")
    else:
        click.echo(f"  remote seq {report.remote_seq}, this clone has seen seq {report.local_seq}")
    click.echo(f"  commits on main not pushed: {report.commits_not_pushed}")
    click.echo(f"  audit events not pushed: {report.audit_events_not_pushed}")
    click.echo("  up to date" if report.up_to_date else "  run `clawql sync push` / `pull`")
