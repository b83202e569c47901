"""``clawql hooks EVENT``: called by the git hook shims; never fails the git command."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("event")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hooks(event: str, args: tuple[str, ...]) -> None:
    """Follow a git EVENT: post-commit records the new baseline (the next recall catches the
    index up); post-checkout, post-merge and post-rewrite catch it up now; on a protected
    remote, pre-receive refuses invalid pushes; in a code repository, code-commit records HEAD
    as a code_change entry in the vault of `git config clawql.vault`."""
    import sys
    from pathlib import Path

    from clawql_git.errors import ClawqlError
    from clawql_git.vault.facade import Vault

    if event == "pre-receive":
        from clawql_git.team.protect import pre_receive_problems

        problems = pre_receive_problems(Path.cwd(), sys.stdin)
        for problem in problems:
            click.echo(f"clawql-git: refused: {problem}", err=True)
        sys.exit(1 if problems else 0)

    if event == "code-commit":  # the post-commit hook of a code repository
        import os

        from clawql_git.cli.anchors import record_head

        try:
            record_head(
                Path.cwd(),
                os.environ.get("CLAWQL_AGENT_ID", ""),
                os.environ.get("CLAWQL_SESSION_ID", ""),
            )
        except ClawqlError as exc:
            click.echo(f"clawql hooks {event}: {exc.message}", err=True)
        return

    try:
        Vault.open().after_git_event(event)
    except ClawqlError as exc:
        click.echo(f"clawql hooks {event}: {exc.message}", err=True)
