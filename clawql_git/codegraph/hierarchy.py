"""The type hierarchy: walks of the ``supertypes`` table up (ancestors) and down (descendants).

An edge is a subtype, the base as written, the file and line where the base is written, the
relation (extends, implements, embeds) and whether the base resolved to a definition of the
repository (``exact``), to stdlib or a dependency (``external``) or to nothing proven
(``unresolved``). A walk follows resolved definitions only, breadth first, each edge once.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from clawql_git.codegraph.store import Store
from clawql_git.errors import InvalidInput

DIRECTIONS = ("up", "down", "both")
MAX_DEPTH = 100

Node = tuple[str, str]  # (file, qualname)


def edge_record(row: Any, direction: str, depth: int) -> dict[str, Any]:
    child = f"{row['child_path']}:{row['child_qualname']}" if row["child_path"] else row["child"]
    return {
        "direction": direction,
        "depth": depth,
        "child": child,
        "child_file": row["child_path"] or None,
        "child_qualname": row["child_qualname"] or None,
        "base": row["base"],
        "base_file": row["target_path"] or None,
        "base_qualname": row["target_qualname"] or None,
        "relation": row["relation"],
        "file": row["path"],
        "line": row["line"],
        "resolved": bool(row["target_path"]),
        "resolution": row["resolution"],
    }


def _edges(store: Store, node: Node, direction: str) -> list[Any]:
    side = "child" if direction == "up" else "target"
    return store.query(
        f"SELECT * FROM supertypes WHERE {side}_path=? AND {side}_qualname=?"
        " ORDER BY path, line, base",
        node,
    )


def walk(store: Store, starts: list[Node], direction: str, depth: int) -> list[dict[str, Any]]:
    """The edges within ``depth`` steps of ``starts`` in one direction ('up' or 'down')."""
    seen_nodes = set(starts)
    seen_edges: set[tuple[Any, ...]] = set()
    queue = deque((n, 1) for n in starts)
    out = []
    while queue:
        node, level = queue.popleft()
        if level > depth:
            continue
        for row in _edges(store, node, direction):
            key = tuple(row)
            if key in seen_edges:
                continue
            seen_edges.add(key)
            out.append(edge_record(row, direction, level))
            nxt = (
                (row["target_path"], row["target_qualname"])
                if direction == "up"
                else (row["child_path"], row["child_qualname"])
            )
            if nxt[0] and nxt not in seen_nodes:
                seen_nodes.add(nxt)
                queue.append((nxt, level + 1))
    return out


def external_children(store: Store, name: str) -> list[Any]:
    """Edges whose base is ``name`` written outside the repository (``abc.ABC``, ``ABC``,
    ``fmt::Display``): what a down walk of a type the repository does not define starts from."""
    short = name.replace("::", ".").rsplit(".", 1)[-1]
    rows = store.query(
        "SELECT * FROM supertypes WHERE target_path='' AND (base=? OR base LIKE ? OR base LIKE ?)"
        " ORDER BY path, line",
        (name, f"%.{short}", f"%::{short}"),
    )
    return [r for r in rows if r["base"] == name or _tail(r["base"]) == short]


def _tail(base: str) -> str:
    return base.replace("::", ".").rsplit(".", 1)[-1]


def check(direction: str, depth: int) -> None:
    if direction not in DIRECTIONS:
        raise InvalidInput(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"--depth must be a whole number from 1 to {MAX_DEPTH}, got {depth!r}")
