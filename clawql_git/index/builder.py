"""Rows of the derived index, computed from a commit's tree (and, for worm_refs, its history)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from clawql_git.errors import ClawqlError
from clawql_git.gitstore import Commit, GitStore, Tree, parse_trailers
from clawql_git.index.chunking import Chunk, chunk_entry, estimate_tokens
from clawql_git.links import LinkResolver, NoteInfo, extract_links
from clawql_git.model.entry import Entry, decode_text, jsonable
from clawql_git.model.paths import is_entry_path

ENGINE_EVENTS_PREFIX = "MEMORY_"


@dataclass(frozen=True)
class EntryRecord:
    """What the index knows about one entry."""

    path: str
    blob: str
    entry: Entry
    chunks: tuple[Chunk, ...]
    page_index_path: str
    worm_ref: str = ""

    def row(self) -> dict[str, Any]:
        """The ``entries`` table row (without vector)."""
        meta = self.entry.meta
        return {
            "path": self.path,
            "blob": self.blob,
            "title": self.entry.title,
            "type": self.entry.type,
            "description": self.entry.description,
            "tags": [str(t) for t in meta.get("tags") or []],
            "project": str(meta.get("project") or ""),
            "agent_id": str(meta.get("agent_id") or ""),
            "status": self.entry.status,
            "superseded_by": str(meta.get("superseded_by") or ""),
            "timestamp": self.entry.timestamp,
            "page_index_path": self.page_index_path,
            "pii": str(meta.get("pii_classification") or ""),
            "worm_ref": self.worm_ref,
            "tokens": estimate_tokens(self.entry.body),
            "catalog": f"{self.entry.title} {self.entry.description} {' '.join(_tags(meta))}",
            "frontmatter": json.dumps(jsonable(meta), ensure_ascii=False, sort_keys=True),
        }


def _tags(meta: Any) -> list[str]:
    return [str(t) for t in meta.get("tags") or []]


def default_page_index_path(entry: Entry) -> str:
    """The category of an entry: given, else its type and first tag (the classifier's default)."""
    given = entry.meta.get("page_index_path")
    if given:
        return str(given).strip("/")
    tags = _tags(entry.meta)
    return f"{entry.type}/{tags[0]}" if tags else entry.type


def entry_paths(store: GitStore, tree: Tree | None, folder: str = "") -> Iterator[str]:
    """Every entry path in a tree."""
    if tree is None:
        return
    for item in tree:
        name = item.name or ""
        path = f"{folder}/{name}" if folder else name
        if item.type_str == "tree" and not name.startswith("."):
            sub = store.subtree(tree, name)
            yield from entry_paths(store, sub, path)
        elif item.type_str == "blob" and is_entry_path(path):
            yield path


def read_record(store: GitStore, tree: Tree, path: str) -> EntryRecord | None:
    """The record of one entry, or None when it does not parse (it is then left out)."""
    blob = store.blob_id_at(tree, path)
    data = store.blob(blob) if blob else None
    if data is None:
        return None
    try:
        entry = Entry.parse(path, decode_text(data, path))
    except ClawqlError:
        return None
    chunks = tuple(chunk_entry(entry.title, entry.description, entry.body))
    return EntryRecord(path, blob, entry, chunks, default_page_index_path(entry))


@dataclass
class WormRefs:
    """path -> sha of the newest commit that changed it (first-parent history)."""

    refs: dict[str, str] = field(default_factory=dict)

    def fill(self, store: GitStore, head: Commit, wanted: Iterable[str]) -> None:
        """Find the last change of every wanted path, walking back from ``head``."""
        missing = set(wanted) - set(self.refs)
        for commit in store.walk(head):
            if not missing:
                return
            for path in _touched(store, commit) & missing:
                self.refs[path] = str(commit.id)
                missing.discard(path)


def _touched(store: GitStore, commit: Commit) -> set[str]:
    trailers = parse_trailers(commit.message)
    event = trailers.get("Clawql-Event")
    if event.startswith(ENGINE_EVENTS_PREFIX) and event != "MEMORY_INIT":
        return set(trailers.entry_paths())
    parent = commit.parents[0].tree if commit.parents else None
    return {p for p, _, new in store.diff_paths(parent, commit.tree) if new is not None}


@dataclass(frozen=True)
class LinkRow:
    """One resolved (or broken) link."""

    source: str
    target: str
    kind: str
    broken: bool


def link_rows(records: Iterable[EntryRecord], notes: Iterable[NoteInfo]) -> list[LinkRow]:
    """Links of ``records``, resolved against every note of the tree."""
    resolver = LinkResolver(notes)
    rows = []
    for rec in records:
        for ref in extract_links(rec.entry.body):
            target = resolver.resolve(ref, rec.path)
            rows.append(LinkRow(rec.path, target or ref.target, ref.kind, target is None))
    return rows


def note_info(rec: EntryRecord) -> NoteInfo:
    """The link-resolution view of a record."""
    return NoteInfo.of(rec.path, rec.entry.title, rec.entry.aliases, rec.entry.meta)


def category_of(path: str) -> str:
    """The catalog folder of an entry (its category folder, above the month)."""
    parts = PurePosixPath(path).parts
    return "/".join(parts[:-2]) if len(parts) > 2 else "/".join(parts[:-1])
