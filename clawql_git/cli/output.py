"""Rendering for the CLI: JSON, plain text, progress bars on stderr, and the error → exit map."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from clawql_git.errors import ClawqlError


def emit_json(data: Any) -> None:
    """Print JSON to stdout."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def fail(error: ClawqlError, as_json: bool = False) -> None:
    """Report a library error and exit with its code (the one place errors become exits)."""
    if as_json:
        payload = {"error": type(error).__name__, "message": error.message}
        problems = getattr(error, "problems", None)
        if problems:
            payload["problems"] = problems
        click.echo(json.dumps(payload), err=True)
    else:
        click.echo(f"error: {error.message}", err=True)
        for problem in getattr(error, "problems", None) or []:
            click.echo(f"  {problem}", err=True)
    sys.exit(error.exit_code)


@contextmanager
def progress(label: str, enabled: bool = True) -> Iterator[Callable[[int, int, str], None]]:
    """A progress callback drawing a bar on stderr when it is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total, item: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    bar = Progress(
        f"[bold]{label}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(label, total=None)
    with bar:
        yield lambda done, total, item: bar.update(task, completed=done, total=total)
