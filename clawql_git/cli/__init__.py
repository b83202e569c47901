"""The ``clawql`` command: thin click adapters over ``clawql_git.Vault``."""

from __future__ import annotations

from typing import Any

import click

from clawql_git.errors import ClawqlError


class _Group(click.Group):
    """Maps every ClawqlError to its message and exit code, in one place."""

    def invoke(self, ctx: click.Context) -> Any:
        pending = [*getattr(ctx, "_protected_args", []), *ctx.args]
        try:
            return super().invoke(ctx)
        except ClawqlError as exc:
            from clawql_git.cli.output import fail

            fail(exc, as_json="--json" in pending)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="clawql-git")
def cli() -> None:
    """clawql-git: a durable, auditable memory for AI coding agents that lives in Git."""


def _register() -> None:
    """Attach every command to its group, explicitly (no module registers on import)."""
    from clawql_git.cli import anchors, audit, distill, recall, team, truth
    from clawql_git.cli.code import code
    from clawql_git.cli.entities import entities, schema
    from clawql_git.cli.hooks import hooks
    from clawql_git.cli.knowledge import knowledge
    from clawql_git.cli.mcp import mcp
    from clawql_git.cli.memory import memory
    from clawql_git.cli.options import accept_vault_after
    from clawql_git.cli.remote import remote
    from clawql_git.cli.review import review
    from clawql_git.cli.shared_index import publish
    from clawql_git.cli.sync import sync
    from clawql_git.cli.workspace import workspace

    for command in (recall.recall, recall.recent, recall.tree, recall.index, distill.distill):
        memory.add_command(command)
    for command in (audit.audit, audit.verify, audit.export):
        memory.add_command(command)
    for command in (team.clone, team.push, team.pull, team.check, entities, schema):
        memory.add_command(command)
    for command in (truth.duplicates, truth.stale):
        memory.add_command(command)
    recall.index.add_command(publish)
    accept_vault_after(memory, skip=frozenset({"clone"}))
    accept_vault_after(sync, skip=frozenset({"restore"}))
    accept_vault_after(review)
    accept_vault_after(knowledge)
    cli.add_command(memory)
    cli.add_command(mcp)
    cli.add_command(remote)
    cli.add_command(hooks)
    cli.add_command(sync)
    cli.add_command(review)
    cli.add_command(workspace)
    code.add_command(anchors.stale_memory)
    code.add_command(anchors.hook)
    cli.add_command(code)
    cli.add_command(knowledge)


_register()
