"""``clawql code ...``: the code graph of a repository (thin adapters over ``CodeGraph``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from clawql_git.cli.options import TIME, stack
from clawql_git.cli.output import emit_json, progress

if TYPE_CHECKING:
    from datetime import datetime

    from clawql_git.codegraph.graph import Answer, CodeGraph
    from clawql_git.codegraph.indexer import IndexReport
    from clawql_git.vault.facade import Vault

F = TypeVar("F", bound=Callable[..., Any])


def json_flag(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


max_chars_option = click.option(
    "--max-chars",
    type=click.IntRange(1, 10_000_000),
    default=20_000,
    show_default=True,
    help="At most this many characters of items.",
)

limit_option = click.option(
    "--limit",
    type=click.IntRange(1, 100_000),
    default=50,
    show_default=True,
    help="At most this many items.",
)

bounds = stack(limit_option, max_chars_option)
"""``--limit`` and ``--max-chars``: every query answer is bounded and says its total."""

audit_agent_option = click.option(
    "--agent", envvar="CLAWQL_AGENT_ID", default="", help="Agent id for the audit."
)


def repo_option(fn: F) -> F:
    return click.option(
        "--repo",
        "-C",
        "repo",
        default=".",
        show_default=True,
        type=click.Path(file_okay=False),
        help="The repository (any directory inside it).",
    )(fn)


@click.group()
def code() -> None:
    """The code graph: symbols, imports, calls and routes of a repository, for agents."""


def _open(repo: str, create: bool = False) -> CodeGraph:
    from clawql_git.codegraph.graph import CodeGraph

    return CodeGraph.open(repo, create=create)


def _render(answer: Answer, as_json: bool, line: Callable[[dict[str, Any]], str]) -> None:
    if as_json:
        emit_json(answer.to_record())
        return
    for item in answer.items:
        click.echo(line(item))
    more = f", {answer.total - len(answer.items)} left out" if answer.truncated else ""
    click.echo(f"({len(answer.items)} of {answer.total}{more})", err=True)


@code.command()
@click.argument("path", default=".", type=click.Path(file_okay=False, exists=True))
@click.option("--no-history", is_flag=True, help="Do not read git history (change index).")
@click.option(
    "--vault",
    envvar="CLAWQL_VAULT",
    type=click.Path(file_okay=False),
    help="Record the update as CODEGRAPH_INDEX_UPDATE on this vault's audit chain ($CLAWQL_VAULT).",
)
@audit_agent_option
@json_flag
def index(path: str, no_history: bool, vault: str | None, agent: str, as_json: bool) -> None:
    """Index the repository at PATH (unchanged files, by content hash, are not re-parsed)."""
    graph = _open(path, create=True)
    audit = _vault_or_none(vault)
    with progress("indexing code", not as_json) as bar:
        report = graph.index(bar, history=not no_history)
    event = _record_update(audit, graph, report, agent) if audit else None
    if as_json:
        emit_json({**report.to_record(), "graph": str(graph.db_path), "audit_event": event})
        return
    click.echo(
        f"{report.files} files ({report.parsed} parsed, {report.unchanged} unchanged, "
        f"{report.removed} removed), {report.symbols} symbols, {report.calls} calls "
        f"({report.resolved} resolved), {report.routes} routes in {report.seconds:.2f}s"
    )


@code.command()
@repo_option
@json_flag
def status(repo: str, as_json: bool) -> None:
    """What the graph holds: files by language, symbols, calls, imports, routes."""
    info = _open(repo).status()
    if as_json:
        emit_json(info)
        return
    for key, value in info.items():
        click.echo(f"{key}: {_status_value(key, value)}")


def _status_value(key: str, value: Any) -> str:
    """Readable status values: a UTC time, ``python 83, go 4``, byte counts with units."""
    from datetime import UTC, datetime

    if key == "indexed_at" and value is not None:
        try:
            return datetime.fromtimestamp(float(value), UTC).isoformat(timespec="seconds")
        except ValueError:
            return str(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "none"
    if key == "size_bytes" and isinstance(value, int):
        return f"{value} ({value / 1e6:.1f} MB)"
    return str(value)


def _symbol_line(s: dict[str, Any]) -> str:
    doc = s["docstring"].split("\n")[0][:80]
    return f"{s['file']}:{s['line']}  {s['kind']} {s['qualname']}  {s['signature']}" + (
        f"  # {doc}" if doc else ""
    )


def _call_line(c: dict[str, Any]) -> str:
    target = c["target"] or c["resolution"]
    return (
        f"{c['file']}:{c['line']}  {c['caller'] or '<module>'} -> {c['callee']}  "
        f"[{target}, {c['confidence']}]"
    )


memory_vault_option = click.option(
    "--vault",
    envvar="CLAWQL_VAULT",
    type=click.Path(file_okay=False),
    help="List the entries of this vault anchored to each definition ($CLAWQL_VAULT).",
)


def _with_memory(answer: Answer, graph: CodeGraph, vault: str | None) -> Answer:
    from clawql_git.vault.anchoring import with_memory

    opened = _vault_or_none(vault)
    return with_memory(answer, opened, graph) if opened else answer


def _memory_lines(entries: list[dict[str, Any]], indent: str = "    ") -> list[str]:
    return [f"{indent}memory: {m['entry']} ({m['state']}) {m['title']}" for m in entries]


@code.command("find-symbol")
@click.argument("name")
@click.option("--kind", help="Only this kind (function, class, method, ...).")
@repo_option
@memory_vault_option
@bounds
@json_flag
def find_symbol(
    name: str,
    kind: str | None,
    repo: str,
    vault: str | None,
    limit: int,
    max_chars: int,
    as_json: bool,
) -> None:
    """Definitions named NAME (or Class.method, or file.py:qualname); fuzzy when none is exact
    (labelled so in text, ``"match": "fuzzy"`` in JSON). With a vault, each lists the memory
    entries anchored to it (``memory``: path, title, fresh/changed/moved/vanished)."""
    graph = _open(repo)
    answer = _with_memory(graph.find_symbol(name, limit, max_chars, kind), graph, vault)
    if answer.extra.get("match") == "fuzzy" and not as_json:
        click.echo(f"no definition named {name!r}; fuzzy matches (similar names):")
    _render(
        answer,
        as_json,
        lambda s: "\n".join([_symbol_line(s), *_memory_lines(s.get("memory", []))]),
    )


def _definition_query(fn: F) -> F:
    """NAME and the options of the queries about one definition (callers, callees)."""
    return stack(
        click.argument("name"),
        click.option("--file", "file", help="The definition's file, when the name is ambiguous."),
        repo_option,
        bounds,
        json_flag,
    )(fn)


@code.command()
@_definition_query
def callers(
    name: str, file: str | None, repo: str, limit: int, max_chars: int, as_json: bool
) -> None:
    """Every call site of NAME: file, line, calling function, resolution confidence."""
    _render(_open(repo).callers(name, file, limit, max_chars), as_json, _call_line)


@code.command()
@_definition_query
def callees(
    name: str, file: str | None, repo: str, limit: int, max_chars: int, as_json: bool
) -> None:
    """Every call made inside NAME, with what it resolved to."""
    _render(_open(repo).callees(name, file, limit, max_chars), as_json, _call_line)


@code.command("explain-module")
@click.argument("module")
@repo_option
@memory_vault_option
@bounds
@json_flag
def explain_module(
    module: str, repo: str, vault: str | None, limit: int, max_chars: int, as_json: bool
) -> None:
    """MODULE (a path or dotted name) at a glance: summary, exports, dependencies, dependants,
    recent changes. A folder (a package directory) answers for every module beneath it, with
    the dependencies and dependants outside it. With a vault, the memory entries anchored to
    the module and to each export."""
    graph = _open(repo)
    answer = _with_memory(graph.explain_module(module, limit, max_chars), graph, vault)
    if as_json:
        emit_json(answer.to_record())
        return
    x = answer.extra
    click.echo(f"{x['path']} ({x['language']}): {x['summary'] or '(no docstring)'}")
    if x["kind"] == "folder":
        click.echo(f"modules ({x['modules_total']}):")
        for m in x["modules"]:
            click.echo(
                f"  {m['path']}  {m['exports']} exports"
                + (f"  # {m['summary']}" if m["summary"] else "")
            )
    click.echo(f"exports ({answer.total}):")
    for s in answer.items:
        click.echo("  " + _symbol_line(s))
        for line in _memory_lines(s.get("memory", [])):
            click.echo(line)
    for line in _memory_lines(x.get("memory", []), "  "):
        click.echo(line)
    click.echo("imports: " + ", ".join(x["dependencies"] + x["external_dependencies"]))
    click.echo(f"imported by ({x['dependants_total']}): " + ", ".join(x["dependants"]))
    for c in x["recent_changes"]:
        click.echo(f"  {c['sha'][:10]} {c['subject']}")


def _edge_line(e: dict[str, Any]) -> str:
    arrow = "->" if e["direction"] == "up" else "<-"
    base = f"{e['base_file']}:{e['base_qualname']}" if e["resolved"] else e["base"]
    subject, other = (e["child"], base) if e["direction"] == "up" else (base, e["child"])
    return (
        f"{'  ' * (e['depth'] - 1)}{subject} {arrow} {other}  "
        f"[{e['relation']}, {e['resolution']}] {e['file']}:{e['line']}"
    )


@code.command()
@click.argument("symbol")
@click.option("--up", "direction", flag_value="up", help="Only ancestors (bases, interfaces).")
@click.option("--down", "direction", flag_value="down", help="Only descendants (subtypes).")
@click.option(
    "--depth",
    type=click.IntRange(1, 100),
    default=5,
    show_default=True,
    help="At most this many steps from SYMBOL.",
)
@click.option("--file", "file", help="The type's file, when the name is ambiguous.")
@repo_option
@bounds
@json_flag
def hierarchy(
    symbol: str,
    direction: str | None,
    depth: int,
    file: str | None,
    repo: str,
    limit: int,
    max_chars: int,
    as_json: bool,
) -> None:
    """The type hierarchy of SYMBOL: ancestors (--up: bases, implemented interfaces, embedded
    types, traits) and descendants (--down); both by default. Each edge says its file and line
    and whether the base resolved in the repository (exact) or is external."""
    answer = _open(repo).hierarchy(symbol, direction or "both", depth, file, limit, max_chars)
    _render(answer, as_json, _edge_line)


@code.command()
@click.argument("path", required=False)
@click.option(
    "--since",
    type=TIME,
    default="30d",
    show_default=True,
    help="Commits not older than: 30d, 12h, a date or a timestamp.",
)
@click.option(
    "--by",
    type=click.Choice(["recent", "count"]),
    default="recent",
    show_default=True,
    help="Most recently changed first, or most often changed first.",
)
@repo_option
@bounds
@json_flag
def changes(
    path: str | None,
    since: datetime,
    by: str,
    repo: str,
    limit: int,
    max_chars: int,
    as_json: bool,
) -> None:
    """The definitions that commits changed since --since (under PATH, a repository file or
    folder, when given): how often, and the last commit and date."""
    answer = _open(repo).changes(since, path, limit, max_chars, by)
    _render(
        answer,
        as_json,
        lambda c: (
            f"{c['file']}:{c['qualname']}  {c['changes']}x, last {c['last_date']} "
            f"{c['last_commit'][:10]} ({c['last_change']}) {c['last_subject']}"
        ),
    )


@code.command("dependency-path")
@click.argument("source")
@click.argument("target")
@repo_option
@max_chars_option
@json_flag
def dependency_path(source: str, target: str, repo: str, max_chars: int, as_json: bool) -> None:
    """The import chain from SOURCE to TARGET (paths or dotted module names)."""
    answer = _open(repo).dependency_path(source, target, max_chars)
    if as_json:
        emit_json(answer.to_record())
    elif not answer.items:
        click.echo(f"no import path from {source} to {target}")
    else:
        click.echo(" -> ".join(i["file"] for i in answer.items))


@code.command("find-route")
@click.argument("path")
@click.option("--method", help="Only routes answering this HTTP method.")
@repo_option
@bounds
@json_flag
def find_route(
    path: str, method: str | None, repo: str, limit: int, max_chars: int, as_json: bool
) -> None:
    """Routes matching a concrete request PATH (e.g. /v1/chat/42): handler, file, methods."""
    answer = _open(repo).find_route(path, method, limit, max_chars)
    _render(
        answer,
        as_json,
        lambda r: (
            f"{','.join(r['methods'])} {r['pattern']}  -> {r['handler']} "
            f"({r['handler_file'] or r['file']}:{r['line']}) [{r['framework']}]"
            + (f" middleware: {', '.join(r['middleware'])}" if r["middleware"] else "")
        ),
    )


def _record_update(audit: Vault, graph: CodeGraph, report: IndexReport, agent: str) -> str:
    """The audit event of an index update (imported only with ``--vault``: the symbol diff
    and the vault are not loaded for a plain ``code index``)."""
    from clawql_git.vault.code_changes import record_index_update

    return record_index_update(audit, graph.root, report, agent)


def _vault_or_none(path: str | None) -> Vault | None:
    if not path:
        return None
    from clawql_git.vault.facade import Vault

    return Vault.open(path)


@code.command()
@click.argument("path", default=".", type=click.Path(file_okay=False, exists=True))
@click.option(
    "--vault",
    envvar="CLAWQL_VAULT",
    type=click.Path(file_okay=False),
    help="Record each update as CODEGRAPH_INDEX_UPDATE on this vault's audit chain "
    "($CLAWQL_VAULT).",
)
@audit_agent_option
@click.option(
    "--debounce",
    type=click.IntRange(1, 60_000),
    default=50,
    show_default=True,
    help="Milliseconds of quiet before a batch of changes is applied.",
)
@json_flag
def watch(path: str, vault: str | None, agent: str, debounce: int, as_json: bool) -> None:
    """Index PATH, then keep the graph current from filesystem events until interrupted."""
    from clawql_git.vault.code_changes import record_index_update

    graph = _open(path, create=True)
    audit = _vault_or_none(vault)
    with progress("indexing code", not as_json) as bar:
        first = graph.index(bar)
    click.echo(f"watching {graph.root} ({first.files} files indexed)", err=True)

    def on_update(report: IndexReport) -> None:
        event = record_index_update(audit, graph.root, report, agent) if audit else None
        if as_json:
            click.echo(json.dumps({**report.to_record(), "audit_event": event}))
        else:
            click.echo(f"updated {', '.join(report.changed)} in {report.seconds * 1000:.0f} ms")

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a watch ends
        graph.watch(on_update, debounce_ms=debounce)


@code.command("record-change")
@click.option("--from", "from_rev", required=True, help="The revision before the change.")
@click.option("--to", "to_rev", default="HEAD", show_default=True, help="The revision after.")
@repo_option
@click.option(
    "--vault",
    envvar="CLAWQL_VAULT",
    type=click.Path(file_okay=False),
    help="The vault to write to ($CLAWQL_VAULT, else the current directory).",
)
@click.option("--agent", envvar="CLAWQL_AGENT_ID", default="", help="Who records it.")
@click.option("--session", envvar="CLAWQL_SESSION_ID", default="", help="Session id.")
@json_flag
def record_change(
    from_rev: str,
    to_rev: str,
    repo: str,
    vault: str | None,
    agent: str,
    session: str,
    as_json: bool,
) -> None:
    """Write a code_change entry for FROM..TO into the vault: affected symbols and files,
    breaking or not, a summary."""
    from clawql_git.codegraph.location import locate
    from clawql_git.model.identity import Identity
    from clawql_git.vault.code_changes import record_change as record
    from clawql_git.vault.facade import Vault

    root, _ = locate(repo)
    change, result = record(
        Vault.open(vault), root, from_rev, to_rev, Identity(agent_id=agent, session_id=session)
    )
    if as_json:
        emit_json(
            {
                **result.to_record(),
                "breaking_change": change.breaking,
                "summary": change.summary(),
                "affected_files": list(change.files),
                "affected_symbols": [f"{s.file}:{s.qualname}" for s in change.symbols],
            }
        )
        return
    click.echo(
        f"{result.to_record().get('path')} ({'breaking' if change.breaking else 'compatible'})"
    )
    click.echo(change.summary())
