"""CodeGraph: a tree-sitter index of a code repository (symbols, imports, calls, routes).

``from clawql_git.codegraph import CodeGraph`` (loaded on first use, so importing the
extractor contract in ``codegraph.model`` stays light).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clawql_git.codegraph.graph import Answer, CodeGraph

__all__ = ["Answer", "CodeGraph"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from clawql_git.codegraph import graph

        return getattr(graph, name)
    raise AttributeError(name)
