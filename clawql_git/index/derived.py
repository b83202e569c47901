"""The link graph and category tree of the resident rows, carried from one state of the rows
to the next so a refresh patches them instead of building them again."""

from __future__ import annotations

from dataclasses import dataclass, field

from clawql_git.index.categories import CategoryTree
from clawql_git.index.graph import GraphState


@dataclass
class Derived:
    """What a refresh carries to the next rows: the graph and tree last built, the entries
    each must still catch up on (None: nothing carried, build it from every row), and the
    catalog terms of every entry (path -> (catalog line, its terms)), which a tree build reads
    and fills so it stems only the lines that changed."""

    graph: GraphState | None = None
    graph_stale: set[str] | None = None
    tree: CategoryTree | None = None
    tree_stale: set[str] | None = None
    terms: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)

    def mark_touched(self, touched: set[str], appended: bool) -> None:
        """After a refresh replaced or removed the entries in ``touched``: the carried graph
        and tree must catch up on them. The tree is patched by appending, so when the new
        rows are not simply appended it is built again instead."""
        for stale in (self.graph_stale, self.tree_stale):
            if stale is not None:
                stale.update(touched)
        if not appended:
            self.tree_stale = None

    def take_graph(self) -> tuple[GraphState | None, set[str] | None]:
        """The carried graph and what it must catch up on, no longer carried (until
        ``keep_graph``: a patch that fails leaves nothing half-patched behind)."""
        taken = self.graph, self.graph_stale
        self.graph = self.graph_stale = None
        return taken

    def take_tree(self) -> tuple[CategoryTree | None, set[str] | None]:
        """The carried tree and what it must catch up on, no longer carried (until
        ``keep_tree``)."""
        taken = self.tree, self.tree_stale
        self.tree = self.tree_stale = None
        return taken

    def keep_graph(self, graph: GraphState) -> None:
        """Carry ``graph``, up to date with the current rows."""
        self.graph, self.graph_stale = graph, set()

    def keep_tree(self, tree: CategoryTree) -> None:
        """Carry ``tree``, up to date with the current rows."""
        self.tree, self.tree_stale = tree, set()
