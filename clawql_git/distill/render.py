"""A distillation rendered as the fields of one ``type: context`` entry: a title, a one-line
description (what ``memory recent`` shows), and a Markdown body with one section per part."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from clawql_git.distill.extract import Distillation

HEADINGS = (
    ("decided", "Decided"),
    ("rejected", "Tried and rejected"),
    ("in_progress", "In progress"),
    ("blocked", "Blocked"),
    ("next", "Next step"),
)
DESCRIPTION_MAX = 300


@dataclass(frozen=True)
class ContextFields:
    """What ``Vault.ingest`` is given for the distilled entry."""

    title: str
    description: str
    body: str
    tags: tuple[str, ...]
    meta: dict[str, Any]


def render_context(d: Distillation, when: str, source: dict[str, Any]) -> ContextFields:
    """The entry for distillation ``d`` of a session that ended at ``when`` (a date or ISO
    timestamp); ``source`` (format, turns, tool calls, session) is kept in the frontmatter."""
    day = when[:10] if when else ""
    title = f"Session {day} {d.topic}".strip() if day else f"Session: {d.topic}"
    return ContextFields(
        title=" ".join(title.split())[:160],
        description=describe(d),
        body=render_body(d, source),
        tags=("session",),
        meta={"distilled_from": source, "distill_method": d.method},
    )


def describe(d: Distillation) -> str:
    """One line: the next step first (what the next session needs), then what was decided."""
    parts = []
    if d.next:
        parts.append(f"Next: {d.next[0]}")
    if d.decided:
        parts.append(f"Decided: {d.decided[0]}")
    if d.blocked:
        parts.append(f"Blocked: {d.blocked[0]}")
    text = " | ".join(parts) or f"Session on {d.topic}"
    return text if len(text) <= DESCRIPTION_MAX else text[: DESCRIPTION_MAX - 1] + "…"


def render_body(d: Distillation, source: dict[str, Any]) -> str:
    """The Markdown body: the five parts, then files, symbols and linked entries."""
    out = [_provenance(d, source), ""]
    for name, heading in HEADINGS:
        items = getattr(d, name)
        if items or name == "next":
            out += [f"## {heading}", "", *_bullets(items or ["(none recorded)"]), ""]
    files = [f"`{p}` (written)" for p in d.files_written] + [f"`{p}` (read)" for p in d.files_read]
    out += _section("Files touched", files[:40])
    out += _section("Symbols touched", [f"`{s}`" for s in d.symbols])
    links = [f"recalled: [[{_target(p)}]]" for p in d.recalled]
    links += [f"wrote: [[{_target(p)}]]" for p in d.wrote]
    out += _section("Linked entries", links)
    return "\n".join(out).rstrip() + "\n"


def _provenance(d: Distillation, source: dict[str, Any]) -> str:
    how = "offline (extractive)" if d.method == "extractive" else f"by {d.method}"
    what = f"{source.get('turns', 0)} turns, {source.get('tool_calls', 0)} tool calls"
    return f"Distilled {how} from a {source.get('format', 'text')} transcript ({what})."


def _section(heading: str, items: list[str]) -> list[str]:
    return [f"## {heading}", "", *_bullets(items), ""] if items else []


def _bullets(items: Iterable[str]) -> list[str]:
    return [f"- {item}" for item in items]


def _target(path: str) -> str:
    return str(PurePosixPath(path).with_suffix(""))
