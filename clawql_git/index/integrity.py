"""Derived state checked against its commit: what a commit's entries say, as the index derives
them (kept per blob id, so a warm process checks a recall hit with a tree lookup), and the
whole-index check behind ``clawql memory verify --index``.

The index and the recall cache live under ``$GIT_DIR/clawql`` and anyone who can write the
repository can edit them; they are derived, so they are checked against the commit rather
than trusted, and what does not match is rebuilt rather than served."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clawql_git.gitstore import Commit, GitStore, Tree
from clawql_git.index import rows as schema
from clawql_git.index.builder import EntryRecord, WormRefs, entry_paths, read_record

if TYPE_CHECKING:
    from clawql_git.index.store import SearchIndex

KNOWN_LIMIT = 20_000  # records kept per process (a few KB each); past it, the memo restarts
TREES_KEPT = 1_024  # trees of worm_ref commits kept (an import's commit message lists every
# path it wrote, and libgit2 keeps no commit over 4 KB: reading one again costs ~1 ms)


@dataclass(frozen=True)
class Known:
    """One entry as its blob says it: the index row, the frontmatter and the snippets a hit
    on it may carry."""

    record: EntryRecord
    row: dict[str, Any]
    frontmatter: dict[str, Any]
    snippets: frozenset[str]


class Truth:
    """Entries of commits, parsed once per (path, blob id): a blob id names its content, so a
    record read for it never goes stale."""

    def __init__(self, store: GitStore) -> None:
        self.store = store
        self._known: dict[tuple[str, str], Known | None] = {}
        self._holds: dict[tuple[str, str], str] = {}
        self._trees: dict[str, Tree | None] = {}

    def known(self, tree: Tree | None, path: str) -> Known | None:
        """The entry at ``path`` in ``tree``, or None when there is none (or it does not
        parse, and so is not indexed either)."""
        blob = self.store.blob_id_at(tree, path)
        if not blob or tree is None:
            return None
        key = (path, blob)
        if key not in self._known:
            if len(self._known) >= KNOWN_LIMIT:
                self._known.clear()
            self._known[key] = _known(read_record(self.store, tree, path))
        return self._known[key]

    def blob_in(self, sha: str, path: str) -> str:
        """The blob id at ``path`` in commit ``sha`` (``""`` when there is no such commit or
        path); commits never change, so each answer is kept."""
        key = (sha, path)
        if key not in self._holds:
            if len(self._holds) >= KNOWN_LIMIT:
                self._holds.clear()
            self._holds[key] = self.store.blob_id_at(self._tree_of(sha), path)
        return self._holds[key]

    def _tree_of(self, sha: str) -> Tree | None:
        """The tree of commit ``sha`` (None when there is no such commit), kept: many hits
        name the same commit (every entry of one import does)."""
        if sha not in self._trees:
            if len(self._trees) >= TREES_KEPT:
                self._trees.clear()
            commit = self.store.commit_of(sha)
            self._trees[sha] = commit.tree if commit is not None else None
        return self._trees[sha]


def _known(rec: EntryRecord | None) -> Known | None:
    if rec is None:
        return None
    row = rec.row()
    snippets = {c.body for c in rec.chunks} | {row["description"], row["title"]}
    return Known(rec, row, json.loads(row["frontmatter"]), frozenset(snippets - {""}))


# ---------------------------------------------------------------- the whole index


@dataclass
class IndexCheck:
    """Whether an index matches the commit it is stamped with."""

    commit: str | None
    head: str | None
    entries: int = 0
    chunks: int = 0
    checks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_record(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "commit": self.commit,
            "head": self.head,
            "entries": self.entries,
            "chunks": self.chunks,
            "checks": self.checks,
            "problems": self.problems,
        }


def check_index(store: GitStore, index: SearchIndex) -> IndexCheck:
    """Every indexed entry, chunk, link and category against the entry blobs of the commit
    the index is stamped with (the text of every chunk must be the one that commit's blob
    gives), and every entry of that commit indexed. Vectors are not checked: they rank, and
    what they rank is checked. Nothing is repaired (``index rebuild`` does that)."""
    head = store.head_commit()
    stamp = index.stamp()
    out = IndexCheck(stamp.commit if stamp else None, str(head.id) if head else None)
    if stamp is None:
        out.checks.append("no index yet: nothing to check (the next recall builds it)")
        return out
    if stamp.stale:
        out.problems.append("the index is marked stale (its last update failed)")
    commit = store.commit_of(stamp.commit)
    if commit is None:
        out.problems.append(f"the index is stamped with git:{stamp.commit}, not a commit here")
        return out
    records = _records(store, commit)
    tables = _tables(index)
    out.entries, out.chunks = len(records), tables["chunks"].num_rows
    out.problems += _entry_problems(records, tables["entries"].to_pylist())
    out.problems += _chunk_problems(records, tables["chunks"].to_pylist())
    out.problems += _link_problems(records, tables["links"].to_pylist())
    expected = schema.categories_table(r.page_index_path for r in records.values()).to_pylist()
    if tables["categories"].to_pylist() != expected:
        out.problems.append("the categories table does not match the entries' categories")
    out.checks.append(f"{len(records)} entries of git:{stamp.commit} against the index")
    if head is not None and str(head.id) != stamp.commit:
        out.checks.append("the index is behind HEAD (the next recall catches it up)")
    return out


def _records(store: GitStore, commit: Commit) -> dict[str, EntryRecord]:
    paths = list(entry_paths(store, commit.tree))
    refs = WormRefs()
    refs.fill(store, commit, paths)
    out = {}
    for path in paths:
        rec = read_record(store, commit.tree, path)
        if rec is not None:
            sha = refs.refs.get(path, str(commit.id))
            out[path] = EntryRecord(
                rec.path, rec.blob, rec.entry, rec.chunks, rec.page_index_path, sha
            )
    return out


def _tables(index: SearchIndex) -> dict[str, Any]:
    """Every table as it is on disk now, without vectors (a fresh connection: nothing held in
    memory by a process is trusted either)."""
    from clawql_git.index.lance import import_lancedb
    from clawql_git.index.store import lance_errors

    with lance_errors("verify"):
        db = import_lancedb().connect(str(index.root))
        out = {}
        for name in ("entries", "chunks", "links", "categories"):
            table = db.open_table(name).to_arrow()
            out[name] = table.drop_columns(["vector"]) if "vector" in table.column_names else table
    return out


def _entry_problems(records: dict[str, EntryRecord], rows: list[dict[str, Any]]) -> list[str]:
    problems = []
    seen: set[str] = set()
    for row in rows:
        path = row["path"]
        rec = records.get(path)
        if path in seen:
            problems.append(f"{path}: indexed twice")
        seen.add(path)
        if rec is None:
            problems.append(f"{path}: indexed, but the commit holds no such entry")
            continue
        wrong = sorted(k for k, v in rec.row().items() if row.get(k) != v)
        if wrong:
            problems.append(f"{path}: indexed {', '.join(wrong)} not from the entry's blob")
    problems += [f"{p}: not indexed" for p in sorted(set(records) - seen)]
    return problems


def _chunk_problems(records: dict[str, EntryRecord], rows: list[dict[str, Any]]) -> list[str]:
    problems = []
    by_path: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_path[row["path"]].append(row)
    for path in sorted(by_path):
        rec = records.get(path)
        if rec is None:
            problems.append(f"{path}: chunks indexed, but the commit holds no such entry")
            continue
        expected = [schema.chunk_row(rec, c) for c in rec.chunks]
        if sorted(by_path[path], key=lambda r: int(r["chunk"])) != expected:
            problems.append(f"{path}: chunk text not from the entry's blob at that commit")
    missing = [p for p in sorted(records) if p not in by_path]
    return problems + [f"{p}: chunks not indexed" for p in missing]


def _link_problems(records: dict[str, EntryRecord], rows: list[dict[str, Any]]) -> list[str]:
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    problems = []
    for path in sorted(set(by_source) | set(records)):
        rec = records.get(path)
        expected = schema.links(rec) if rec is not None else []
        if _sorted(by_source.get(path, [])) != _sorted(expected):
            problems.append(f"{path}: links not from the entry's blob at that commit")
    return problems


def _sorted(links: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(links, key=lambda r: (int(r["line"]), str(r["target"]), str(r["kind"])))
