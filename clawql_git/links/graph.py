"""The link graph of a set of notes: edges resolved or broken, backlinks, exports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from clawql_git.links.extract import LinkRef, extract_links
from clawql_git.links.resolve import LinkResolver, NoteInfo


@dataclass(frozen=True)
class Edge:
    """A link from one note, resolved (`target` is a note path) or broken (`target` is None)."""

    source: str
    target: str | None
    ref: LinkRef

    def to_record(self) -> dict[str, object]:
        """A JSON-safe view (what the CLI and the MCP server return)."""
        return {
            "source": self.source,
            "target": self.target,
            "raw": self.ref.target,
            "kind": self.ref.kind,
            "line": self.ref.line,
            "broken": self.target is None,
        }


# --------------------------------------------------------------------------- graph


class LinkGraph:
    """Every link of a set of notes, resolved, with outgoing and backlink indexes."""

    def __init__(self, notes: Iterable[NoteInfo], edges: Iterable[Edge]) -> None:
        self._notes = tuple(sorted(notes, key=lambda n: n.path))
        self._edges = tuple(edges)
        self._outgoing: dict[str, list[Edge]] = {}
        self._backlinks: dict[str, list[Edge]] = {}
        for edge in self._edges:
            self._outgoing.setdefault(edge.source, []).append(edge)
            if edge.target is not None:
                self._backlinks.setdefault(edge.target, []).append(edge)

    @classmethod
    def build(cls, notes: Iterable[tuple[NoteInfo, str]]) -> LinkGraph:
        """Extract and resolve the links of (note, body) pairs."""
        pairs = sorted(notes, key=lambda pair: pair[0].path)
        resolver = LinkResolver(note for note, _ in pairs)
        edges = [
            Edge(note.path, resolver.resolve(ref, note.path), ref)
            for note, body in pairs
            for ref in extract_links(body)
        ]
        return cls((note for note, _ in pairs), edges)

    @property
    def notes(self) -> tuple[NoteInfo, ...]:
        """The notes of the graph, by path."""
        return self._notes

    def outgoing(self, path: str) -> list[Edge]:
        """Links written in the note at `path`, in document order."""
        return list(self._outgoing.get(path, ()))

    def backlinks(self, path: str) -> list[Edge]:
        """Links that resolve to the note at `path`."""
        return list(self._backlinks.get(path, ()))

    def broken(self) -> list[Edge]:
        """Links that resolve to no note."""
        return [edge for edge in self._edges if edge.target is None]

    def edges(self) -> list[Edge]:
        """Every link, by source path then document order."""
        return list(self._edges)

    def to_json(self) -> dict[str, object]:
        """Nodes and edges as JSON-ready data; a broken edge's target is the link as written."""
        nodes = [{"id": note.path, "title": note.title} for note in self._notes]
        edges = [
            {
                "source": edge.source,
                "target": edge.target if edge.target is not None else edge.ref.target,
                "kind": edge.ref.kind,
                "broken": edge.target is None,
                "line": edge.ref.line,
            }
            for edge in self._edges
        ]
        return {"nodes": nodes, "edges": edges}

    def to_dot(self) -> str:
        """Graphviz dot; broken targets are dashed nodes reached by dashed edges."""
        lines = ["digraph links {", "  rankdir=LR;", "  node [shape=box];"]
        for note in self._notes:
            lines.append(f"  {_dot_quote(note.path)} [label={_dot_quote(_label(note))}];")
        for target in self._broken_targets():
            node = _dot_quote("broken:" + target)
            lines.append(f"  {node} [label={_dot_quote(target)}, style=dashed];")
        for source, target, broken in self._distinct_links():
            if broken:
                lines.append(
                    f"  {_dot_quote(source)} -> {_dot_quote('broken:' + target)} [style=dashed];"
                )
            else:
                lines.append(f"  {_dot_quote(source)} -> {_dot_quote(target)};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_mermaid(self) -> str:
        """A `graph LR` Mermaid flowchart; node ids are generated (n0, n1, ... b0, b1, ...)."""
        labels = {note.path: _label(note) for note in self._notes}
        for edge in self._edges:  # edges handed to __init__ may name notes not listed
            labels.setdefault(edge.source, edge.source)
            if edge.target is not None:
                labels.setdefault(edge.target, edge.target)
        ids = {path: f"n{i}" for i, path in enumerate(labels)}
        broken_ids = {t: f"b{i}" for i, t in enumerate(self._broken_targets())}
        lines = ["graph LR"]
        lines += [f'  {ids[path]}["{_mermaid_text(text)}"]' for path, text in labels.items()]
        lines += [f'  {node}["{_mermaid_text(t)}"]:::broken' for t, node in broken_ids.items()]
        for source, target, broken in self._distinct_links():
            arrow, end = ("-.->", broken_ids[target]) if broken else ("-->", ids[target])
            lines.append(f"  {ids[source]} {arrow} {end}")
        if broken_ids:
            lines.append("  classDef broken stroke-dasharray: 5 5;")
        return "\n".join(lines) + "\n"

    def _broken_targets(self) -> list[str]:
        return list(dict.fromkeys(edge.ref.target for edge in self.broken()))

    def _distinct_links(self) -> list[tuple[str, str, bool]]:
        """(source, target or written target, broken), once per pair, for drawing."""
        links = (
            (e.source, e.target if e.target is not None else e.ref.target, e.target is None)
            for e in self._edges
        )
        return list(dict.fromkeys(links))


def _label(note: NoteInfo) -> str:
    return note.title or note.path


def _dot_quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", " ").replace("\n", " ") + '"'


def _mermaid_text(text: str) -> str:
    # Inside a quoted Mermaid label only entity codes are safe for '#' and '"'.
    text = " ".join(text.split())
    return text.replace("#", "#35;").replace('"', "#quot;")
