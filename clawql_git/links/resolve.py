"""Obsidian-style link resolution: a link target to a note path, by path, name, alias or
imported source path, nearest folder first."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawql_git.links.extract import NOTE_SUFFIXES, LinkRef


@dataclass(frozen=True)
class NoteInfo:
    """What resolution needs to know about a note."""

    path: str  # vault-relative POSIX path with extension, e.g. "decisions/2026-07/auth-jwt.md"
    title: str | None = None
    aliases: tuple[str, ...] = ()
    source_path: str | None = None  # where an imported note came from (its `source_path`)

    @classmethod
    def of(
        cls, path: str, title: str | None, aliases: Iterable[str], meta: Mapping[str, Any]
    ) -> NoteInfo:
        """The note info of an entry, with its frontmatter's ``source_path`` when it has one."""
        source = meta.get("source_path")
        return cls(
            path, title, tuple(aliases), source if isinstance(source, str) and source else None
        )

    @classmethod
    def from_row(cls, path: str, title: str | None, frontmatter_json: str | None) -> NoteInfo:
        """The note info of an index row (its frontmatter stored as JSON)."""
        import json

        meta = json.loads(frontmatter_json or "{}")
        aliases = meta.get("aliases") or []
        if isinstance(aliases, str):
            aliases = [aliases]
        return cls.of(path, title, (str(a) for a in aliases), meta)


# --------------------------------------------------------------------------- resolution


class LinkResolver:
    """Resolves links to note paths with Obsidian's rules, case-insensitively."""

    def __init__(self, notes: Iterable[NoteInfo]) -> None:
        self._by_path: dict[str, str] = {}  # "a/b.md" -> path
        self._by_id: dict[str, str] = {}  # "a/b" -> path
        self._by_stem: dict[str, list[str]] = {}  # "b" -> paths
        self._by_title: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._by_source: dict[str, str] = {}  # "docs/adr/0005-x.md" (as imported) -> path
        self._by_source_stem: dict[str, list[str]] = {}
        self._source_of: dict[str, str] = {}  # path -> its source folder
        for note in notes:
            self._add(note)

    def _add(self, note: NoteInfo) -> None:
        key = note.path.lower()
        self._by_path.setdefault(key, note.path)
        self._by_id.setdefault(_strip_note_suffix(key), note.path)
        stem = posixpath.basename(_strip_note_suffix(key))
        self._by_stem.setdefault(stem, []).append(note.path)
        if note.title:
            self._by_title.setdefault(_name_key(note.title), []).append(note.path)
        for alias in note.aliases:
            self._by_alias.setdefault(_name_key(alias), []).append(note.path)
        source = _normalise(note.source_path.lower()) if note.source_path else None
        if source:
            self._by_source.setdefault(source, note.path)
            stem = posixpath.basename(_strip_note_suffix(source))
            self._by_source_stem.setdefault(stem, []).append(note.path)
            self._source_of[note.path] = posixpath.dirname(source)

    def resolve(self, ref: LinkRef, source_path: str) -> str | None:
        """The path of the note `ref` (written in `source_path`) points to, or None if broken.

        Markdown links are relative to the source note's folder; a link escaping the vault
        is broken; a link not found there but not written as `./` or `../` is tried from the
        vault root (Obsidian's "absolute path in vault" format). Wikilinks and embeds: the
        exact vault path (with or without the suffix), then a path relative to the source
        folder, then the file stem or a path suffix (`folder/stem`); several candidates
        resolve to the one in the source's folder, then to the shortest path; then note
        titles and aliases (our extension) with the same tie-break.

        An imported note (one with a ``source_path``) was written against its source folder's
        layout, which import renames: its relative Markdown links resolve against the other
        imported notes' source paths first, and a wikilink that finds nothing else tries their
        source file stems.
        """
        folder = posixpath.dirname(source_path).lower()
        origin = self._source_of.get(source_path)
        if ref.kind == "markdown":
            target = ref.target.lower()
            found = self._resolve_imported(target, origin) if origin is not None else None
            return found or self._resolve_markdown(target, folder)
        found = self._resolve_wikilink(ref.target.strip().lower(), folder)
        if found is None and self._by_source_stem:
            stem = posixpath.basename(_strip_note_suffix(ref.target.strip().lower()))
            found = _closest(self._by_source_stem.get(stem, []), folder)
        return found

    def _resolve_imported(self, target: str, origin: str) -> str | None:
        if target.startswith("/") or "://" in target:
            return None
        return self._by_source.get(_normalise(posixpath.join(origin, target)) or "")

    def _resolve_markdown(self, target: str, folder: str) -> str | None:
        if target.startswith("/"):
            return self._by_path.get(_normalise(target) or "")
        relative = _normalise(posixpath.join(folder, target))
        if relative is None:
            return None
        found = self._by_path.get(relative)
        if found is not None or target.startswith(("./", "../")):
            return found
        return self._by_path.get(_normalise(target) or "")

    def _resolve_wikilink(self, target: str, folder: str) -> str | None:
        ident = _strip_note_suffix(target)
        if ident.startswith(("./", "../")):  # explicitly relative: nothing else applies
            return self._by_id.get(_normalise(posixpath.join(folder, ident)) or "")
        ident = ident.removeprefix("/")
        exact = _normalise(ident)
        found = self._by_id.get(exact) if exact else None
        relative = _normalise(posixpath.join(folder, ident))
        if found is None and relative:
            found = self._by_id.get(relative)
        if found is None and exact:
            found = _closest(self._stem_candidates(exact), folder)
        if found is None:
            found = _closest(self._by_title.get(_name_key(target), []), folder)
        if found is None:
            found = _closest(self._by_alias.get(_name_key(target), []), folder)
        return found

    def _stem_candidates(self, ident: str) -> list[str]:
        candidates = self._by_stem.get(posixpath.basename(ident), [])
        if "/" not in ident:
            return candidates
        tail = "/" + ident
        return [p for p in candidates if _strip_note_suffix(p.lower()).endswith(tail)]


def _closest(candidates: Sequence[str], folder: str) -> str | None:
    # Obsidian's tie-break, observed on Obsidian 1.13.7 through getFirstLinkpathDest
    # (pvliesdonk/markdown-vault-mcp#1380): a note in the source's own folder, else the
    # shortest path string (not the fewest components). Equal lengths: alphabetical.
    same_folder = [p for p in candidates if posixpath.dirname(p).lower() == folder]
    pool = same_folder or candidates
    return min(pool, key=lambda p: (len(p), p)) if pool else None


def _normalise(path: str) -> str | None:
    """A POSIX path with `.` and `..` resolved; None when it climbs out of the vault."""
    parts: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if not parts:
                return None
            parts.pop()
        elif segment not in ("", "."):
            parts.append(segment)
    return "/".join(parts)


def _strip_note_suffix(path: str) -> str:
    for suffix in NOTE_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _name_key(name: str) -> str:
    return " ".join(name.split()).lower()
