"""Rendering for the CLI: JSON, plain text, progress bars on stderr, and the error → exit map."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from clawql_git.errors import ClawqlError
from clawql_git.model.progress import Progress as ProgressCallback

if TYPE_CHECKING:
    from rich.console import Console


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
def progress(
    label: str,
    enabled: bool = True,
    *,
    phases: bool = False,
    unit: str = "",
    console: Console | None = None,
) -> Iterator[ProgressCallback]:
    """A progress callback drawing bars on stderr, with counts, elapsed time and an ETA.

    Quiet when ``enabled`` is false (``--json``) or stderr is not a terminal. With ``phases``,
    each ``what`` the library reports is a phase with its own row, label and total (an index
    build: reading entries, embedding chunks, writing tables); without, one row whose tail
    names the item just done. ``unit="bytes"`` counts in kB/MB. ``console`` (tests) draws on a
    given console instead of stderr. Nothing is drawn until the first report, and the rows go
    when the work ends, so a step with nothing to do leaves the terminal as it was."""
    if not enabled or (console is None and not sys.stderr.isatty()):
        yield _quiet
        return
    from rich.console import Console

    board = _Board(label, phases, unit, console or Console(stderr=True))
    try:
        yield board.update
    finally:
        board.close()


def _quiet(done: int, total: int, what: str) -> None:
    """The callback when nothing is drawn."""


class _Board:
    """The rich bars behind one ``progress`` block, started on the first report."""

    def __init__(self, label: str, phases: bool, unit: str, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            TaskID,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=20),
            count,
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("[dim]{task.fields[item]}"),
            console=console,
            transient=True,
        )
        self.label, self.phases = label, phases
        # What is left of the line for the item's name once the other columns are drawn.
        self.item_width = max(0, console.width - len(label) - 58)
        self.task: TaskID | None = None
        self.phase = ""
        self.started = False

    def update(self, done: int, total: int, what: str) -> None:
        item = "" if self.phases else _tail(what, self.item_width)
        if self.task is None or (self.phases and what != self.phase):
            self._add_row(what, done, total, item)
        else:
            self.bar.update(self.task, completed=done, total=total or None, item=item)

    def _add_row(self, what: str, done: int, total: int, item: str) -> None:
        if self.task is not None:  # the phase before ends complete
            before = self.bar.tasks[-1]
            self.bar.update(self.task, completed=before.total or before.completed)
        name = f"{self.label}: {what}" if self.phases and what else self.label
        self.task = self.bar.add_task(name, total=total or None, completed=done, item=item)
        self.phase = what
        if not self.started:
            self.bar.start()
            self.started = True

    def close(self) -> None:
        if self.started:
            self.bar.stop()


def _tail(what: str, width: int) -> str:
    """The end of an item's name (a path's end says the most), in ``width`` characters."""
    if len(what) <= width:
        return what
    return "…" + what[-(width - 1) :] if width > 1 else ""
