"""The link graph of the resident index rows, kept current after a write by resolving again
only the links the write can affect: those of the changed entries, and those whose target
text could name a changed entry (its file stem, title or an alias)."""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from clawql_git.links import NOTE_SUFFIXES, LinkRef, LinkResolver, NoteInfo

ANY = "*"  # the key of links whose target could name any note (ends in "/", "." or "..")


class GraphState:
    """Undirected adjacency between entries, with what is needed to patch it: each note's
    names, each source's links and resolved targets, and which sources link to which names."""

    def __init__(self) -> None:
        self.notes: dict[str, NoteInfo] = {}
        self.by_key: dict[str, set[str]] = defaultdict(set)  # note key -> note paths
        self.links: dict[str, list[tuple[str, str, int]]] = {}  # source -> (target, kind, line)
        self.link_keys: dict[str, set[str]] = defaultdict(set)  # link key -> sources
        self.targets: dict[str, list[str]] = {}  # source -> resolved targets
        self.edges: Counter[tuple[str, str]] = Counter()
        self.graph: dict[str, set[str]] = defaultdict(set)

    @classmethod
    def build(cls, notes: Iterable[NoteInfo], links: Iterable[dict[str, Any]]) -> GraphState:
        """The graph of every note and link (notes in index order)."""
        state = cls()
        ordered = list(notes)
        for note in ordered:
            state._add_note(note)
        for link in links:
            state._add_link(link)
        resolver = LinkResolver(ordered)
        for source in state.links:
            state._resolve(source, resolver)
        return state

    def patch(
        self,
        entries: dict[str, Any],
        touched: set[str],
        links: Iterable[dict[str, Any]],
        note_of: Callable[[str, dict[str, Any]], NoteInfo],
    ) -> None:
        """Bring the graph to ``entries`` (every entry row, in index order) after the ones in
        ``touched`` changed or went; ``links`` are the current links of the touched sources;
        ``note_of`` makes the NoteInfo of a row."""
        names = {k for p in touched if p in self.notes for k in _note_keys(self.notes[p])}
        for path in touched:
            self._drop_note(path)
            self._drop_links(path)
        current = {p: note_of(p, entries[p]) for p in touched if p in entries}
        for note in current.values():
            self._add_note(note)
            names.update(_note_keys(note))
        for link in links:
            self._add_link(link)
        affected = set(current) | self.link_keys.get(ANY, set())
        for key in names:
            affected |= self.link_keys.get(key, set())
        affected &= self.links.keys()
        for source in affected:
            self._unresolve(source)
        resolver = self._resolver_for(affected, entries)
        for source in sorted(affected):
            self._resolve(source, resolver)

    # ------------------------------------------------------------ notes and links

    def _add_note(self, note: NoteInfo) -> None:
        self.notes[note.path] = note
        for key in _note_keys(note):
            self.by_key[key].add(note.path)

    def _drop_note(self, path: str) -> None:
        note = self.notes.pop(path, None)
        if note is not None:
            for key in _note_keys(note):
                self.by_key[key].discard(path)

    def _add_link(self, link: dict[str, Any]) -> None:
        source = link["source"]
        self.links.setdefault(source, []).append((link["target"], link["kind"], link["line"]))
        for key in _link_keys(link["target"]):
            self.link_keys[key].add(source)

    def _drop_links(self, source: str) -> None:
        self._unresolve(source)
        for target, _, _ in self.links.pop(source, []):
            for key in _link_keys(target):
                self.link_keys[key].discard(source)

    # ------------------------------------------------------------ resolution and edges

    def _resolver_for(self, sources: set[str], entries: dict[str, Any]) -> LinkResolver:
        """A resolver over the notes the links of ``sources`` could name: for those links it
        answers as one over every note would. Notes go in in index order when two of them
        share a path or id but for case or suffix (the first one wins there)."""
        keys = {k for s in sources for target, _, _ in self.links[s] for k in _link_keys(target)}
        if ANY in keys:
            return LinkResolver(self.notes[p] for p in entries)
        wanted = set().union(*(self.by_key.get(k, set()) for k in keys)) if keys else set()
        wanted |= {s for s in sources if s in self.notes}  # their own source_path matters
        ids = {_note_id(p) for p in wanted}
        if len(ids) < len(wanted):
            return LinkResolver(self.notes[p] for p in entries if p in wanted)
        return LinkResolver(self.notes[p] for p in sorted(wanted))

    def _resolve(self, source: str, resolver: LinkResolver) -> None:
        found = []
        for target, kind, line in self.links.get(source, []):
            path = resolver.resolve(LinkRef(target, kind, None, None, line), source)
            if path is not None and path != source:
                found.append(path)
                self._edge(source, path, 1)
        self.targets[source] = found

    def _unresolve(self, source: str) -> None:
        for path in self.targets.pop(source, []):
            self._edge(source, path, -1)

    def _edge(self, a: str, b: str, delta: int) -> None:
        pair = (a, b) if a < b else (b, a)
        self.edges[pair] += delta
        if self.edges[pair] > 0:
            self.graph[a].add(b)
            self.graph[b].add(a)
            return
        del self.edges[pair]
        for x, y in ((a, b), (b, a)):
            self.graph[x].discard(y)
            if not self.graph[x]:
                del self.graph[x]


def _note_keys(note: NoteInfo) -> set[str]:
    keys = {"s:" + _stem(note.path.lower())}
    if note.source_path:  # imported notes are also named by their source file
        keys.add("s:" + _stem(note.source_path.lower()))
    names = [note.title, *note.aliases] if note.title else list(note.aliases)
    return keys | {"n:" + _name_key(n) for n in names}


def _link_keys(target: str) -> set[str]:
    """Keys of every note a link target could resolve to: paths, ids and stems all end in the
    target's last segment; titles and aliases match its whitespace-folded text."""
    keys = {"n:" + _name_key(target)}
    for text in {target.lower(), target.strip().lower()}:
        last = text.rsplit("/", 1)[-1]
        if last in ("", ".", ".."):
            keys.add(ANY)
        else:
            keys.add("s:" + _stem(last))
    return keys


def _note_id(path: str) -> str:
    low = path.lower()
    for suffix in NOTE_SUFFIXES:
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


def _stem(path: str) -> str:
    name = posixpath.basename(path)
    for suffix in NOTE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _name_key(name: str) -> str:
    return " ".join(name.split()).lower()
