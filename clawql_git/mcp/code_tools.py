"""The code graph's MCP tools (cg_*): thin adapters over ``CodeGraph`` queries, served by the
same server as the memory tools, each answering a bounded JSON record."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from clawql_git.mcp.common import READ_ONLY, answer, make_tools, tool_errors

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool

    from clawql_git.codegraph.graph import Answer, CodeGraph
    from clawql_git.vault.facade import Vault

Repo = Annotated[
    str | None,
    Field(description="The repository (a directory inside it); default: where the server runs."),
]
Limit = Annotated[int, Field(ge=1, le=500, description="At most this many items.")]
MaxChars = Annotated[
    int, Field(ge=200, le=200_000, description="At most this many characters of items.")
]
File = Annotated[str | None, Field(description="The definition's file when the name is ambiguous.")]
SymbolName = Annotated[
    str,
    Field(description="A name, Class.method, or path/to/file.py:qualname, e.g. Flask.route."),
]


class CodeGraphTools:
    """The cg_* tools over the graphs of one or more repositories (the graph must have been
    built with ``clawql code index``). Graphs stay open across calls (``OpenGraphs``: one
    ``stat`` per call sees a graph rebuilt or removed on disk), so a call costs its query."""

    def __init__(
        self, default_repo: str | None = None, memory: bool = False, vault: str | None = None
    ) -> None:
        from clawql_git.codegraph.graph import OpenGraphs

        self.default_repo = default_repo
        self._graphs = OpenGraphs()
        self._lock = threading.Lock()
        # With ``memory``, find-symbol and explain-module list the entries of the vault at
        # ``vault`` anchored to each definition (the vault is opened here, on first use).
        self.memory = memory
        self.vault_path = vault
        self._vault: Vault | None = None

    def graph(self, repo: str | None) -> CodeGraph:
        return self._graphs.get(repo or self.default_repo or ".")

    def call(
        self, repo: str | None, fn: Callable[[CodeGraph], Answer], memory: bool = False
    ) -> CallToolResult:
        with self._lock, tool_errors():
            graph = self.graph(repo)
            found = fn(graph)
            return answer((self._with_memory(found, graph) if memory else found).to_record())

    def _with_memory(self, found: Answer, graph: CodeGraph) -> Answer:
        """``found`` with the anchored memory entries, when the server has a vault."""
        from clawql_git.errors import ClawqlError
        from clawql_git.vault.anchoring import with_memory
        from clawql_git.vault.facade import Vault

        if not self.memory:
            return found
        try:
            if self._vault is None:
                self._vault = Vault.open(self.vault_path)
        except ClawqlError:  # no vault where the server runs: the code answer stands alone
            return found
        return with_memory(found, self._vault, graph)

    def cg_find_symbol(
        self,
        name: SymbolName,
        kind: Annotated[
            str | None, Field(description="Only this kind: function, class, method, ...")
        ] = None,
        repo: Repo = None,
        limit: Limit = 20,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """Find where a function, class, method or module variable is defined: file, line
        range, signature and docstring. Exact names first; `match` is "fuzzy" when nothing is
        named exactly so (substring and close spellings). Read these instead of grepping.
        Each lists under `memory` the vault entries anchored to it (why it is so), with
        `state` fresh, or changed/moved/vanished when the code moved on since."""
        return self.call(repo, lambda g: g.find_symbol(name, limit, max_chars, kind), True)

    def cg_find_callers(
        self,
        name: SymbolName,
        file: File = None,
        repo: Repo = None,
        limit: Limit = 50,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """Every call site of a definition: file, line, the calling function, and how the edge
        was resolved (exact 1.0, inferred from a type 0.8). Calls of the same name that could
        not be resolved follow with confidence 0 (check them by reading the line)."""
        return self.call(repo, lambda g: g.callers(name, file, limit, max_chars))

    def cg_explain_module(
        self,
        module: Annotated[
            str, Field(description="A file path (src/app/db.py) or dotted module (app.db).")
        ],
        repo: Repo = None,
        limit: Limit = 50,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """A module at a glance: the summary line of its docstring, its exported symbols with
        signatures, what it imports (repository files and external modules), what imports it,
        and its recent commits with a recency-weighted change score; `memory` lists the vault
        entries anchored to the module and to each export."""
        return self.call(repo, lambda g: g.explain_module(module, limit, max_chars), True)

    def cg_type_hierarchy(
        self,
        name: Annotated[
            str, Field(description="A type: class, interface, struct or trait (e.g. Base).")
        ],
        direction: Annotated[
            Literal["up", "down", "both"],
            Field(description="up: ancestors, down: descendants, both (default)."),
        ] = "both",
        depth: Annotated[int, Field(ge=1, le=100, description="At most this many steps.")] = 5,
        file: File = None,
        repo: Repo = None,
        limit: Limit = 50,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """The type hierarchy of a class, interface, struct or trait: its bases, implemented
        interfaces, embedded types and traits (up) and its subtypes (down), each edge with the
        file and line, the relation, and whether the base resolved to a definition of the
        repository (`resolution` exact) or is external. An external base (abc.ABC) has down."""
        return self.call(
            repo, lambda g: g.hierarchy(name, direction, depth, file, limit, max_chars)
        )

    def cg_changes(
        self,
        since: Annotated[
            str, Field(description="Commits not older than: 30d, 12h, a date or a timestamp.")
        ] = "30d",
        path: Annotated[
            str | None, Field(description="Only definitions under this file or folder.")
        ] = None,
        by: Annotated[
            Literal["recent", "count"],
            Field(description="recent: most recently changed first; count: most often first."),
        ] = "recent",
        repo: Repo = None,
        limit: Limit = 50,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """Which definitions changed recently and how often: for each, the file, the number of
        commits in the window that changed it, and the last commit (sha, date, subject, what
        changed: added, removed, signature or body). Read before editing hot code."""
        from clawql_git.model.times import parse_when

        def run(g: CodeGraph) -> Answer:
            return g.changes(parse_when(since, what="since"), path, limit, max_chars, by)

        return self.call(repo, run)

    def cg_dependency_path(
        self,
        source: Annotated[str, Field(description="The importing module (path or dotted).")],
        target: Annotated[str, Field(description="The imported module (path or dotted).")],
        repo: Repo = None,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """The shortest chain of imports from one module to another (`found` false when the
        source does not reach the target)."""
        return self.call(repo, lambda g: g.dependency_path(source, target, max_chars))

    def cg_find_route(
        self,
        path: Annotated[
            str, Field(description="A concrete request path, e.g. /v1/chat/42, or a pattern.")
        ],
        method: Annotated[str | None, Field(description="Only this HTTP method.")] = None,
        repo: Repo = None,
        limit: Limit = 20,
        max_chars: MaxChars = 8000,
    ) -> CallToolResult:
        """Which handler serves a URL: routes whose pattern (with every router prefix joined)
        matches the path, most specific first, with methods, handler, file, line, framework,
        middleware/dependencies and the path parameters."""
        return self.call(repo, lambda g: g.find_route(path, method, limit, max_chars))


TOOLS: dict[str, ToolAnnotations] = {
    "cg_find_symbol": READ_ONLY,
    "cg_find_callers": READ_ONLY,
    "cg_explain_module": READ_ONLY,
    "cg_dependency_path": READ_ONLY,
    "cg_find_route": READ_ONLY,
    "cg_type_hierarchy": READ_ONLY,
    "cg_changes": READ_ONLY,
}


def make(tools: CodeGraphTools | None = None) -> list[Tool]:
    """The cg_* tools for an MCP server."""
    return make_tools(tools or CodeGraphTools(), TOOLS)
