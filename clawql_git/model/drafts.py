"""Drafts: input turned into a validated entry document, once, before anything is written."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from clawql_git.config import Settings
from clawql_git.errors import InvalidFrontmatter
from clawql_git.model.entry import (
    Entry,
    build_frontmatter,
    check_frontmatter_size,
    check_frontmatter_text,
    check_secrets,
    check_size,
    check_text,
    check_type_spelling,
    decode_text,
    edit_frontmatter,
    iso_timestamp,
    normalise_body,
    now_timestamp,
    parse_yaml_mapping,
    render_document,
    split_frontmatter,
    validate_entry_path,
    validate_meta,
    validate_title,
)

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity

_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SETEXT = re.compile(r"^(?![=\s])(.+?)\s*\n=+\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Draft:
    """A validated entry waiting for its commit (``path`` is None until one is chosen)."""

    frontmatter: str
    meta: Mapping[str, Any]
    body: str
    path: str | None = None

    @property
    def warning(self) -> str:
        """What is accepted but probably a mistake (an empty body), for the writer to pass on;
        "" when nothing is."""
        if not self.body.strip():
            return "the body is empty: recall can match only the title and frontmatter"
        return ""


def identity_fields(ident: Identity) -> dict[str, Any]:
    """Frontmatter keys that record who wrote an entry."""
    return {
        "agent_id": ident.agent_id or None,
        "session_id": ident.session_id or None,
        "correlation_id": ident.correlation_id or None,
        "verdict": ident.verdict or None,
        "confidence_score": ident.confidence,
    }


def draft_from_fields(
    settings: Settings,
    entry_type: str,
    title: str,
    body: str,
    description: str | None,
    tags: list[str],
    meta: Mapping[str, Any],
    ident: Identity,
    path: str | None = None,
    allow_new_type: bool = False,
) -> Draft:
    """A draft from CLI flags or keyword arguments (``path`` overrides the derived one); a type
    that looks like a typo of a known one is refused unless ``allow_new_type``."""
    fields: dict[str, Any] = {
        "type": entry_type,
        "title": title,
        "description": description or None,
        "timestamp": now_timestamp(),
        "tags": tags or None,
        **identity_fields(ident),
    }
    fields.update({k: v for k, v in meta.items() if v is not None})
    fields = {k: v for k, v in fields.items() if v is not None}
    validate_meta(fields)  # before dumping, so a bad field is named as such
    # ... and a field too large is refused before YAML renders it
    check_frontmatter_size("", fields, settings.max_frontmatter_bytes, settings.max_field_bytes)
    check_type_spelling(entry_type, allow_new_type)
    if "timestamp" in fields:
        fields["timestamp"] = iso_timestamp(fields["timestamp"])
    return finalize(settings, build_frontmatter(fields), check_text(body, "body"), path)


def draft_from_markdown(
    settings: Settings,
    text: str | bytes,
    overrides: Mapping[str, Any],
    ident: Identity,
    path: str | None,
    fallback_title: str | None = None,
    body_override: str | None = None,
    allow_new_type: bool = False,
) -> Draft:
    """A draft from a Markdown document; ``overrides`` (flags) win over its frontmatter and
    ``body_override`` over its body. A missing title comes from the first heading, else
    ``fallback_title`` or the path's stem. A type that looks like a typo of a known one is
    refused unless ``allow_new_type``."""
    doc = decode_text(text) if isinstance(text, bytes) else check_text(text)
    fm, body = split_frontmatter(doc)
    if body_override is not None:
        body = check_text(body_override, "body")
    if fm is None:
        fm = ""
    check_frontmatter_text(fm, settings.max_frontmatter_bytes)  # before YAML reads it all
    meta = parse_yaml_mapping(fm)
    changes: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    if "title" not in meta and "title" not in changes:
        stem = PurePosixPath(path).stem if path else None
        changes["title"] = first_heading(body) or fallback_title or stem
    if "timestamp" not in meta and "timestamp" not in changes:
        changes["timestamp"] = now_timestamp()
    for key, value in identity_fields(ident).items():
        if value is not None and key not in meta:
            changes.setdefault(key, value)
    if "type" not in meta and "type" not in changes:
        raise InvalidFrontmatter("frontmatter field 'type' is required (or pass --type)")
    validate_meta({**meta, **changes})
    check_type_spelling(str({**meta, **changes}["type"]), allow_new_type)
    return finalize(settings, edit_frontmatter(fm, changes), body, path)


def first_heading(body: str) -> str | None:
    """The text of the first level-1 heading (ATX ``# T`` or setext ``T\n===``), if any."""
    found = [m for m in (_HEADING.search(body), _SETEXT.search(body)) if m]
    return min(found, key=lambda m: m.start()).group(1) if found else None


def finalize(settings: Settings, fm: str, body: str, path: str | None) -> Draft:
    """Validate everything about a document and freeze it as a draft."""
    meta = parse_yaml_mapping(fm)
    validate_meta(meta)
    title = meta.get("title") or (PurePosixPath(path).stem if path else None)
    if not title:
        raise InvalidFrontmatter("an entry needs a title (frontmatter 'title' or a '# heading')")
    validate_title(str(title))
    safe_path = validate_entry_path(path) if path is not None else None
    check_frontmatter_size(fm, meta, settings.max_frontmatter_bytes, settings.max_field_bytes)
    check_size(body, settings.max_body_bytes)
    body = normalise_body(body)
    check_secrets(render_document(fm, body))
    return Draft(fm, meta, body, safe_path)


def check_update(
    settings: Settings, current: Entry, changes: Mapping[str, Any], body: str | None
) -> Entry:
    """Apply an update to an entry and validate the result like a new draft."""
    if "type" in changes and changes["type"] != current.type:
        raise InvalidFrontmatter(
            "an entry's type cannot change; ingest a new entry and supersede this one"
        )
    if "title" in changes and not str(changes["title"] or "").strip():
        raise InvalidFrontmatter("title must not be empty")
    new_body = current.body if body is None else normalise_body(check_text(body, "body"))
    updated = current.with_changes(changes, new_body)
    validate_meta(updated.meta)
    validate_title(updated.title)
    check_frontmatter_size(
        updated.frontmatter, updated.meta, settings.max_frontmatter_bytes, settings.max_field_bytes
    )
    check_size(updated.body, settings.max_body_bytes)
    check_secrets(updated.render())
    return updated
