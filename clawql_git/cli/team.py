"""``clawql memory clone|push|pull|check``: team memory over any git remote, and the branch
check CI runs on every pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from clawql_git.cli.options import (
    identity,
    identity_options,
    json_option,
    open_vault,
    vault_record,
)
from clawql_git.cli.output import emit_json, progress
from clawql_git.errors import CheckFailed

remote_option = click.option(
    "--remote", default="origin", show_default=True, help="The git remote to talk to."
)


@click.command()
@click.argument("url")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@json_option
def clone(url: str, directory: str | None, as_json: bool) -> None:
    """Clone the vault at URL (a path, file://, https:// or ssh) into DIRECTORY, install its
    hooks and merge driver, and build its index: recall works at once."""
    from clawql_git.team.sharing import clone as clone_vault

    with progress("indexing", not as_json, phases=True) as bar:
        vault = clone_vault(url, directory, progress=bar, eager_index=True)
    record = {**vault_record(vault, url=url), "index": vault.index_status().get("stamp")}
    if as_json:
        emit_json(record)
    else:
        click.echo(f"cloned {url} into {vault.root} (vault {record['vault_id']})")


@click.command()
@remote_option
@identity_options
@json_option
@click.pass_context
def push(ctx: click.Context, /, remote: str, as_json: bool, **kw: Any) -> None:
    """Push the current branch to REMOTE. Never forces: when the remote moved, it refuses and
    tells you to pull first."""
    from clawql_git.team.sharing import push as push_vault

    result = push_vault(open_vault(ctx), remote, identity=identity(kw))
    if as_json:
        emit_json(result.to_record())
    elif result.pushed:
        click.echo(f"pushed {result.branch} to {remote} ({result.url}): {result.new[:12]}")
    else:
        click.echo(f"{remote} ({result.url}) is up to date")


@click.command()
@remote_option
@identity_options
@json_option
@click.pass_context
def pull(ctx: click.Context, /, remote: str, as_json: bool, **kw: Any) -> None:
    """Fetch REMOTE and merge it: entries by git, catalogs regenerated, index caught up. When
    both sides changed the same entry, nothing is merged and the files are named (exit 4)."""
    from clawql_git.team.sharing import pull as pull_vault

    with progress("indexing", not as_json, phases=True) as bar:
        result = pull_vault(open_vault(ctx), remote, identity=identity(kw), progress=bar)
    if as_json:
        emit_json(result.to_record())
    elif result.mode == "up-to-date":
        click.echo(f"already up to date with {remote} ({result.url})")
    else:
        click.echo(
            f"{result.mode}: {result.incoming} commit(s) from {remote}/{result.branch}, "
            f"now at {result.after[:12]}"
        )
        if result.catalog_fix:
            click.echo(f"catalogs regenerated: git:{result.catalog_fix}")


@click.command()
@click.option("--base", default="main", show_default=True, help="Branch to compare against.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="Report format.",
)
@click.option("--output", type=click.Path(dir_okay=False), help="Also write the report here.")
@json_option
@click.pass_context
def check(ctx: click.Context, base: str, fmt: str, output: str | None, as_json: bool) -> None:
    """Check the entries this branch changed since its merge base with BASE: entry contract,
    secrets, broken links, catalog drift. Exit 0 when clean, 1 with a report otherwise."""
    import json

    from clawql_git.team.check import check_branch

    report = check_branch(open_vault(ctx), base)
    as_json = as_json or fmt == "json"
    text = json.dumps(report.to_record(), indent=2) if as_json else report.to_markdown()
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
    click.echo(text)
    if not report.ok:
        raise CheckFailed(f"memory check found {len(report.problems)} problem(s)")
