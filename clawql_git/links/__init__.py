"""Links between entries: extraction with mistune (``extract``), Obsidian-style resolution
(``resolve``), the link graph (``graph``). The public names are re-exported here."""

from __future__ import annotations

from clawql_git.links.extract import (
    ATTACHMENT_SUFFIXES,
    NOTE_SUFFIXES,
    LinkRef,
    extract_links,
    wikilinks,
)
from clawql_git.links.graph import Edge, LinkGraph
from clawql_git.links.resolve import LinkResolver, NoteInfo

__all__ = [
    "ATTACHMENT_SUFFIXES",
    "NOTE_SUFFIXES",
    "Edge",
    "LinkGraph",
    "LinkRef",
    "LinkResolver",
    "NoteInfo",
    "extract_links",
    "wikilinks",
]
