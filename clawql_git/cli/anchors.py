"""``clawql code stale-memory`` and ``clawql code hook install``: memory entries anchored to
code (thin adapters over ``vault.anchoring`` and ``vault.code_commits``).

``show_code_stale`` is the whole of the stale listing, so ``memory stale --code`` can call it
as it is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from clawql_git.cli.output import emit_json

if TYPE_CHECKING:
    from clawql_git.vault.anchoring import CodeStaleness
    from clawql_git.vault.facade import Vault

vault_option = click.option(
    "--vault",
    envvar="CLAWQL_VAULT",
    type=click.Path(file_okay=False),
    help="The vault ($CLAWQL_VAULT, else the current directory).",
)
repo_option = click.option(
    "--repo",
    "-C",
    "repo",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The code repository (any directory inside it).",
)


def show_code_stale(vault: Vault, repo: str, rev: str, as_json: bool) -> CodeStaleness:
    """Check the vault's anchors into ``repo`` against ``rev`` and print the stale entries."""
    from clawql_git.codegraph.location import locate
    from clawql_git.vault.anchoring import check_code, graph_resolver
    from clawql_git.vault.code_commits import open_graph

    root, _ = locate(repo)
    found = check_code(vault, root, graph_resolver(open_graph(root)), rev)
    if as_json:
        emit_json(found.to_record())
        return found
    for entry in found.stale:
        click.echo(f"{entry.path}  {entry.title}")
        for c in entry.checks:
            moved = f" -> {c.moved_to}" if c.moved_to else ""
            click.echo(
                f"  {c.state}: {c.anchor.target}{moved} (anchored at {c.anchor.commit[:10]})"
            )
    click.echo(
        f"{len(found.stale)} of {found.entries} anchored entries stale "
        f"({found.anchors} anchors, checked at {found.checked_at[:10]})",
        err=True,
    )
    return found


@click.command("stale-memory")
@repo_option
@vault_option
@click.option(
    "--rev", default="HEAD", show_default=True, help="Check against this commit of the code."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stale_memory(repo: str, vault: str | None, rev: str, as_json: bool) -> None:
    """Memory entries whose anchored code changed, moved or vanished since they were written
    (code_change entries' affected symbols, backticked symbols and files the code graph
    resolves); the outcome labels recall hits."""
    from clawql_git.vault.facade import Vault

    show_code_stale(Vault.open(vault), repo, rev, as_json)


@click.group()
def hook() -> None:
    """The code repository's git hook that records commits into a vault."""


@hook.command("install")
@repo_option
@vault_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def install(repo: str, vault: str | None, as_json: bool) -> None:
    """Install a post-commit hook in the code repository: every commit becomes a code_change
    entry in the vault (with the session's reasoning when $CLAWQL_SESSION_ID is set), and the
    entries anchored to the code are re-checked."""
    from clawql_git.codegraph.location import locate
    from clawql_git.vault.code_commits import install_code_hook
    from clawql_git.vault.facade import Vault

    root, _ = locate(repo)
    opened = Vault.open(vault)
    path = install_code_hook(root, opened)
    if as_json:
        emit_json({"hook": str(path), "repo": str(root), "vault": str(opened.root)})
        return
    click.echo(f"installed {path}: commits of {root} are recorded in {opened.root}")


def record_head(cwd: Path, agent: str, session: str) -> None:
    """``clawql hooks code-commit``: record HEAD of the repository at ``cwd``."""
    from clawql_git.codegraph.location import locate
    from clawql_git.model.identity import Identity
    from clawql_git.vault.code_commits import hooked_vault, record_commit
    from clawql_git.vault.facade import Vault

    root, _ = locate(cwd)
    with Vault.open(hooked_vault(root)) as vault:
        record_commit(vault, root, "HEAD", Identity(agent_id=agent, session_id=session))
