"""The link graph and category tree of an index state, kept on disk for the next process.

A warm process builds both once (0.45 s at 10,000 entries, several seconds at 100,000: every
note's names, every link resolved, every catalog line stemmed) and then patches them after
each write. A cold `clawql memory recall` would build them again for one query. So the
process that builds them from rows it loaded from scratch writes them next to the index, and
a later process whose rows are the same reads them instead.

"The same rows" is checked, not assumed: the key is a digest of every entries row's
`(path, blob, worm_ref)` in table order (what the rows, their links and the order that
breaks resolution ties are a function of), with this format and Python's version. The key
is the file's first line, so a file of another state is rejected after reading one line.

The format is `marshal` (plain dicts, lists, tuples, sets and strings: fast to read, no code
run on load); anything unreadable or of the wrong shape counts as absent. Writes are atomic
(a temporary file, then a rename) and best effort: a snapshot is a cache, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from clawql_git.index.categories import CategoryTree
from clawql_git.index.graph import GraphState
from clawql_git.index.resident import row_ids
from clawql_git.links import NoteInfo

FORMAT = 1
_TREE_FIELDS = ("members", "children", "labels", "words", "entry_terms", "postings")
_BAD_PAYLOAD = (KeyError, TypeError, ValueError, IndexError, AttributeError, EOFError)


def rows_key(keys: Any) -> str:
    """The key of an index state: a digest of its entries rows' ids (``row_ids``: what a
    refresh compares) in table order, with this format and Python's version."""
    digest = hashlib.blake2b(f"{FORMAT}|{sys.version_info[:2]}".encode(), digest_size=20)
    digest.update("\x1e".join(row_ids(keys).to_pylist()).encode())
    return digest.hexdigest()


def read(path: Path, key: str) -> tuple[GraphState, CategoryTree] | None:
    """The graph and tree saved for ``key``, or None (absent, other state, unreadable)."""
    try:
        with path.open("rb") as fh:
            if fh.readline() != key.encode() + b"\n":  # another state costs one line
                return None
            data = marshal.loads(fh.read())  # (marshal.load on a file is several times slower)
    except (OSError, *_BAD_PAYLOAD):
        return None
    try:
        tree = CategoryTree(**{f: data["tree"][f] for f in _TREE_FIELDS})
        return _graph(data["graph"]), tree
    except _BAD_PAYLOAD:
        return None


def write(path: Path, key: str, graph: GraphState, tree: CategoryTree) -> None:
    """Save ``graph`` and ``tree`` for ``key``; any failure leaves no file behind."""
    data = {
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
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.encode() + b"\n")
            fh.write(marshal.dumps(data))
        os.replace(tmp, path)
    except (OSError, ValueError):
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _graph(data: dict[str, Any]) -> GraphState:
    """A GraphState from its saved fields, with the container types the build path makes."""
    state = GraphState()
    state.notes = {n[0]: NoteInfo(n[0], n[1], tuple(n[2]), n[3]) for n in data["notes"]}
    state.by_key = defaultdict(set, data["by_key"])
    state.links = data["links"]
    state.link_keys = defaultdict(set, data["link_keys"])
    state.targets = data["targets"]
    state.edges = Counter(data["edges"])
    state.graph = defaultdict(set, data["graph"])
    return state
