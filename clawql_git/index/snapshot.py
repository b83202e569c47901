"""The link graph and category tree of an index state, kept on disk for the next process.

A warm process builds both once (0.45 s at 10,000 entries, several seconds at 100,000: every
note's names, every link resolved, every catalog line stemmed) and then patches them after
each write. A cold `clawql memory recall` would build them again for one query. So the
process that builds them from scratch writes them next to the index, keyed by the index's
stamp file as it was when the rows were read (the stamp is replaced on every write: another
state never matches), and a later process on the same state reads them instead.

The format is `marshal` (plain dicts, lists, tuples, sets and strings: fast to read, no code
run on load); the Python version is part of the key, and anything unreadable or of the wrong
shape counts as absent. Writes are atomic (a temporary file, then a rename).
"""

from __future__ import annotations

import marshal
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from clawql_git.index.graph import GraphState
from clawql_git.links import NoteInfo
from clawql_git.recall_tree import CategoryTree

_TREE_FIELDS = ("members", "children", "labels", "words", "entry_terms", "postings")


def read(path: Path, key: str) -> tuple[GraphState, CategoryTree] | None:
    """The graph and tree saved for ``key``, or None (absent, other state, unreadable)."""
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    try:
        return _graph(data["graph"]), CategoryTree(**{f: data["tree"][f] for f in _TREE_FIELDS})
    except (KeyError, TypeError, ValueError):
        return None


def write(path: Path, key: str, graph: GraphState, tree: CategoryTree) -> None:
    """Save ``graph`` and ``tree`` for ``key`` (best effort: a cache, never an error)."""
    data = {
        "key": key,
        "graph": {
            "notes": [(n.path, n.title, n.aliases, n.source_path) for n in graph.notes.values()],
            "by_key": dict(graph.by_key),
            "links": dict(graph.links),
            "link_keys": dict(graph.link_keys),
            "targets": dict(graph.targets),
            "edges": dict(graph.edges),
            "graph": dict(graph.graph),
        },
        "tree": {f: dict(getattr(tree, f)) for f in _TREE_FIELDS},  # marshal takes no subclass
    }
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(marshal.dumps(data))
        os.replace(tmp, path)
    except (OSError, ValueError):
        tmp.unlink(missing_ok=True)


def _graph(data: dict[str, Any]) -> GraphState:
    state = GraphState()
    state.notes = {n[0]: NoteInfo(n[0], n[1], tuple(n[2]), n[3]) for n in data["notes"]}
    state.by_key = defaultdict(set, data["by_key"])
    state.links = data["links"]
    state.link_keys = defaultdict(set, data["link_keys"])
    state.targets = data["targets"]
    state.edges = Counter(data["edges"])
    state.graph = defaultdict(set, data["graph"])
    return state
