"""Options and input helpers shared by the CLI command groups, written once so that every
command spells a flag, its help text and its default the same way."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from clawql_git.errors import InvalidInput

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]


def stack(*opts: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator applying ``opts`` so that ``--help`` lists them in the order given."""

    def apply(fn: F) -> F:
        for opt in reversed(opts):
            fn = opt(fn)
        return fn

    return apply


class TimeType(click.ParamType[datetime, Any]):
    """A time as people type it (90d, 12h, a date, ISO 8601), parsed by ``parse_when``; a bad
    or out-of-range one is a usage error naming the option (exit 2) before anything runs."""

    name = "time"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        from clawql_git.model.times import parse_when

        if isinstance(value, datetime):
            return value
        try:
            parsed = parse_when(str(value))
        except InvalidInput as exc:
            self.fail(exc.message, param, ctx)
        assert parsed is not None  # click converts no None
        return parsed


TIME = TimeType()

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for agents.")

VAULT_HELP = "Vault folder (default: $CLAWQL_VAULT, else the current directory)."

vault_option = click.option(
    "--vault", type=click.Path(file_okay=False), envvar="CLAWQL_VAULT", help=VAULT_HELP
)
"""The group-level ``--vault`` of ``memory``, ``sync`` and ``review``."""


def _vault_after(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    # Given after the subcommand it wins over the group's; from $CLAWQL_VAULT it only fills in.
    if value is None:
        return
    obj = ctx.ensure_object(dict)
    if ctx.get_parameter_source("vault") is ParameterSource.COMMANDLINE or not obj.get("vault"):
        obj["vault"] = value


def accept_vault_after(group: click.Group, skip: frozenset[str] = frozenset()) -> None:
    """Let every command under ``group`` take ``--vault DIR`` after its name too (``clawql
    memory recall q --vault DIR``), spelled and resolved like the group's own option; it lands
    in ``ctx.obj["vault"]``, where ``open_vault`` reads it. ``skip``: commands that make a
    vault elsewhere (clone, restore: their DIRECTORY says where) and open none."""
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            accept_vault_after(command)
        elif name not in skip and not any(p.name == "vault" for p in command.params):
            command.params.append(
                click.Option(
                    ["--vault"],
                    type=click.Path(file_okay=False),
                    envvar="CLAWQL_VAULT",
                    help=VAULT_HELP,
                    expose_value=False,
                    callback=_vault_after,
                )
            )


recall_scope_options = stack(
    click.option("--type", "types", multiple=True, help="Only this type (repeatable)."),
    click.option("--tag", "tags", multiple=True, help="Only entries with this tag (repeatable)."),
    click.option("--project", help="Only this project."),
)
"""The filters ``memory recall`` and ``workspace recall`` share."""

recall_time_options = stack(
    click.option("--since", type=TIME, help="Entries not older than: 90d, a date or a timestamp."),
    click.option("--until", type=TIME, help="Entries not newer than: a date or a timestamp."),
)

backend_option = click.option(
    "--backend",
    type=click.Choice(["auto", "hybrid", "fts", "vector", "page_index"]),
    default="auto",
    show_default=True,
    help="Layers: auto = all; hybrid = fts + vectors; page_index needs no embedding model.",
)

reader_options = stack(
    click.option(
        "--reader", envvar="CLAWQL_AGENT_ID", help="Who recalls (audit); $CLAWQL_AGENT_ID."
    ),
    click.option("--session", envvar="CLAWQL_SESSION_ID", help="Session id (audit)."),
)

read_options = stack(
    click.option(
        "--allow-pii", is_flag=True, help="Read PHI-classified entries too (recorded either way)."
    ),
    reader_options,
)
"""Who reads, and whether PHI may be read: every command that prints entry content."""


def reader_identity(kw: dict[str, Any]) -> Identity:
    """Pop the ``reader_options`` values out of a command's keyword arguments."""
    from clawql_git.model.identity import Identity

    return Identity(agent_id=kw.pop("reader") or "", session_id=kw.pop("session") or "")


trail_filter_options = stack(
    click.option("--agent", help="Only this agent."),
    click.option("--type", "entry_type", help="Only entries of this type."),
    click.option("--event", help="Only this event (MEMORY_INGEST, MEMORY_RECALL, ...)."),
    click.option("--session", help="Only this session."),
    click.option("--correlation", help="Only this correlation id."),
    click.option("--path", help="Only events naming this entry path."),
    click.option("--since", type=TIME, help="Not before: 90d, 12h, a date or a timestamp."),
    click.option("--until", type=TIME, help="Not after: a date or a timestamp."),
)
"""The filters shared by `log` and `audit`."""

identity_options = stack(
    click.option("--agent", "agent_id", envvar="CLAWQL_AGENT_ID", help="Agent id (author)."),
    click.option("--session", "session_id", envvar="CLAWQL_SESSION_ID", help="Session id."),
    click.option("--correlation", "correlation_id", help="Correlation id (task, ticket)."),
    click.option("--verdict", help="Outcome: accepted, failed, success, ..."),
    click.option("--confidence", type=float, help="Confidence score in 0..1."),
)
"""The who-wrote-it flags shared by every write command; read them back with ``identity``."""

entry_options = stack(
    click.option("--type", "entry_type", help="Entry type: decision, context, error, pattern, ..."),
    click.option("--title", help="Title (the file name is its slug)."),
    click.option("--tag", "tags", multiple=True, help="A tag (repeatable)."),
    click.option("--description", help="One-line description for catalogs."),
    click.option("--project", help="Project the entry belongs to."),
    click.option("--body", help="Body text (Markdown)."),
    click.option("--body-file", help="Read the body from a file ('-' for stdin)."),
    click.option(
        "--new-type",
        is_flag=True,
        help="Start a new type even though it looks like a typo of a known one (decison).",
    ),
)
"""The fields of a new entry, for ``memory ingest`` and ``workspace ingest``; read them back
with ``entry_fields``."""


@dataclass(frozen=True)
class EntryFields:
    """What the ``entry_options`` said, the body already read."""

    type: str | None
    title: str | None
    tags: tuple[str, ...]
    description: str | None
    project: str | None
    body: str | None
    new_type: bool = False

    def overrides(self) -> dict[str, Any]:
        """The flags that override a Markdown document's frontmatter (None: keep it)."""
        return {
            "type": self.type,
            "title": self.title,
            "description": self.description,
            "tags": list(self.tags) or None,
            "project": self.project,
        }

    def new_entry(self) -> dict[str, Any]:
        """The keyword arguments of ``ingest`` for an entry given by flags alone."""
        if not self.type or not self.title:
            raise InvalidInput("ingest needs --type and --title (or a Markdown FILE)")
        return {
            "type": self.type,
            "title": self.title,
            "body": self.body or "",
            "description": self.description,
            "tags": self.tags,
            "meta": {"project": self.project},
            "allow_new_type": self.new_type,
        }


def entry_fields(kw: dict[str, Any]) -> EntryFields:
    """Pop the ``entry_options`` values out of a command's keyword arguments."""
    body = read_body(kw.pop("body"), kw.pop("body_file"))
    return EntryFields(
        type=kw.pop("entry_type"),
        title=kw.pop("title"),
        tags=kw.pop("tags"),
        description=kw.pop("description"),
        project=kw.pop("project"),
        body=body,
        new_type=kw.pop("new_type"),
    )


def identity(kw: dict[str, Any]) -> Identity:
    """Pop the ``identity_options`` values out of a command's keyword arguments."""
    from clawql_git.model.identity import Identity

    return Identity(
        agent_id=kw.pop("agent_id") or "",
        session_id=kw.pop("session_id") or "",
        correlation_id=kw.pop("correlation_id") or "",
        verdict=kw.pop("verdict") or "",
        confidence=kw.pop("confidence"),
    )


def read_body(body: str | None, body_file: str | None) -> str | None:
    """The body from ``--body`` or ``--body-file`` ('-' for stdin); both at once is an error."""
    if body is not None and body_file is not None:
        raise InvalidInput("give --body or --body-file, not both")
    if body_file == "-":
        return stdin_text()
    if body_file is not None:
        return file_text(Path(body_file))
    return body


def read_document(file: str) -> str:
    """A Markdown document named on the command line ('-' for stdin)."""
    return stdin_text() if file == "-" else file_text(Path(file))


def stdin_text() -> str:
    from clawql_git.model.entry import decode_text

    return decode_text(sys.stdin.buffer.read(), "standard input")


def file_text(path: Path) -> str:
    from clawql_git.errors import NotFound
    from clawql_git.model.entry import decode_text

    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    return decode_text(path.read_bytes(), str(path))


def open_vault(ctx: click.Context) -> Vault:
    """The vault named by the group's ``--vault`` (``ctx.obj["vault"]``), index kept eager."""
    from clawql_git.vault.facade import Vault

    return Vault.open(ctx.obj.get("vault"), eager_index=True)


def vault_record(vault: Vault, **fields: Any) -> dict[str, Any]:
    """What ``init`` and ``clone`` print about the vault they made: root, id, ``fields``, head."""
    head = vault.store.head_commit()
    return {
        "vault": str(vault.root),
        "vault_id": vault.vault_id,
        **fields,
        "head": f"git:{head.id}" if head else None,
    }
