"""Code-anchored memory: the entries of a vault that name code (a ``code_change`` entry's
``affected_symbols`` and ``affected_files``, backticked symbols the code graph resolves,
backticked or linked repository files) pinned to those definitions at a commit, and flagged
stale when a later commit changes, moves or removes them.

An entry is anchored at the commit it was written against: a ``code_change`` entry at its
``to_rev``, any other entry at the last commit of the repository's HEAD made before the
entry's ``timestamp``. Both follow from the entry and the code history alone, so the anchor
store (``$GIT_DIR/clawql/anchors.sqlite`` of the vault) is derived state, rebuilt when lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from clawql_git.codegraph.anchor_store import FILE_NAME, AnchorStore
from clawql_git.codegraph.anchors import (
    Anchor,
    AnchorCheck,
    CodeAt,
    CodeCache,
    check_all,
    check_key,
    git,
)
from clawql_git.codegraph.anchors import make_anchor as anchor_to
from clawql_git.errors import NotFound, StorageError

if TYPE_CHECKING:
    from clawql_git.codegraph.graph import Answer, CodeGraph
    from clawql_git.model.entry import Entry
    from clawql_git.vault.facade import Vault

Resolver = Callable[[str], list[tuple[str, str]]]
"""A symbol name as written -> the (file, qualname) definitions it names."""

BACKTICK = re.compile(r"`([^`\n]{2,200})`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
NAME = re.compile(
    r"^(?:(?P<file>[\w./-]+\.\w+):)?(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*)?$"
)
NOT_CURRENT = ("superseded", "retracted", "archived")


@dataclass(frozen=True)
class StaleEntry:
    """An entry some of whose anchors no longer hold."""

    path: str
    title: str
    checks: tuple[AnchorCheck, ...]

    def to_record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "stale": [c.to_record() for c in self.checks],
        }


@dataclass(frozen=True)
class CodeStaleness:
    """Every anchor of a vault into one repository, checked against one of its commits."""

    repo: str
    checked_at: str
    anchors: int
    entries: int
    stale: tuple[StaleEntry, ...]

    def to_record(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "checked_at": self.checked_at,
            "anchors": self.anchors,
            "anchored_entries": self.entries,
            "stale_entries": len(self.stale),
            "stale": [s.to_record() for s in self.stale],
        }


def store_path(vault: Vault) -> Path:
    """The vault's anchor store (derived state under its git directory)."""
    return vault.store.state_dir / FILE_NAME


def graph_resolver(graph: CodeGraph | None) -> Resolver:
    """Names resolved by the code graph (nothing when the repository has no graph)."""
    if graph is None or graph.store.get_meta("indexed_at") is None:
        return lambda name: []
    return lambda name: [(s["file"], s["qualname"]) for s in graph.symbols(name)]


# ------------------------------------------------------------ which code an entry names


def code_refs(entry: Entry, resolve: Resolver, files: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, qualname or '', how it is named) for each piece of code ``entry`` names; ``files``
    are the repository's files at the entry's commit."""
    refs: list[tuple[str, str, str]] = []
    if entry.type == "code_change":
        refs += _declared(entry.meta, files)
    refs += _named_in_body(entry.body, resolve, files)
    with_symbols = {file for file, qual, _ in refs if qual}
    seen: set[tuple[str, str]] = set()
    out = []
    for file, qual, source in refs:
        if (file, qual) in seen or (not qual and file in with_symbols):
            continue  # a file whose definitions are anchored is covered by them
        seen.add((file, qual))
        out.append((file, qual, source))
    return out


def _declared(meta: Any, files: dict[str, str]) -> list[tuple[str, str, str]]:
    out = []
    for item in _strings(meta.get("affected_symbols")):
        file, _, qual = item.rpartition(":")
        if file and qual:
            out.append((file, qual, "affected_symbols"))
    with_symbols = {f for f, _, _ in out}
    for file in _strings(meta.get("affected_files")):
        if file in files and file not in with_symbols:
            out.append((file, "", "affected_files"))
    return out


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _named_in_body(
    body: str, resolve: Resolver, files: dict[str, str]
) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for target in LINK.findall(body):
        file = _repo_file(target, files)
        if file:
            out.append((file, "", "link"))
    for token in BACKTICK.findall(body):
        out += _backtick(token.strip(), resolve, files)
    return out


def _repo_file(target: str, files: dict[str, str]) -> str:
    """A link target or token as a repository file ('' when it is none)."""
    clean = unquote(target)
    while clean.startswith(("../", "./")):
        clean = clean.split("/", 1)[1]
    return clean if clean in files else ""


def _backtick(token: str, resolve: Resolver, files: dict[str, str]) -> list[tuple[str, str, str]]:
    file = _repo_file(token, files)
    if file:
        return [(file, "", "backtick")]
    found = NAME.match(token)
    if found is None or len(found["name"]) < 3:
        return []
    defs = resolve(f"{found['file']}:{found['name']}" if found["file"] else found["name"])
    if len(defs) != 1:  # unknown, or ambiguous (`get`): naming is not pinning
        return []
    return [(defs[0][0], defs[0][1], "backtick")]


# ------------------------------------------------------------ anchoring


def anchor_commit(entry: Entry, root: Path, tip: str = "HEAD") -> str:
    """The commit ``entry`` was written against ('' when the repository has none before it):
    a code_change entry's ``to_rev``, else the last commit of ``tip`` before its timestamp."""
    to_rev = entry.meta.get("to_rev")
    if entry.type == "code_change" and isinstance(to_rev, str) and to_rev:
        try:
            return (
                git(root, "rev-parse", "--verify", "--quiet", to_rev + "^{commit}").decode().strip()
            )
        except NotFound:
            return ""
    when = entry.timestamp or ""
    args = ["rev-list", "-1", *([f"--before={when}"] if when else []), tip]
    try:
        return git(root, *args).decode().strip()
    except NotFound:  # a repository without commits
        return ""


def _for_repo(entry: Entry, root: Path) -> bool:
    """Whether ``entry`` may name this repository's code (a ``resource`` naming another local
    directory says it is about another one)."""
    if entry.status in NOT_CURRENT:
        return False
    resource = entry.meta.get("resource")
    if not isinstance(resource, str) or not resource.startswith("file://"):
        return True
    return Path(unquote(urlparse(resource).path)).resolve() == root.resolve()


@dataclass
class _Anchoring:
    """One pass over a vault's entries: code read once per commit, definitions once per blob."""

    root: Path
    resolve: Resolver
    tip: str
    codes: dict[str, CodeAt]
    cache: CodeCache

    def anchors(self, entry: Entry) -> list[Anchor]:
        if not _for_repo(entry, self.root):
            return []
        commit = anchor_commit(entry, self.root, self.tip)
        if not commit:
            return []
        if commit not in self.codes:
            self.codes[commit] = CodeAt.read(self.root, commit, self.cache)
        code = self.codes[commit]
        made = [
            anchor_to(code, entry.path, f, q, s)
            for f, q, s in code_refs(entry, self.resolve, code.blobs)
        ]
        return [a for a in made if a is not None]


def _rebuilt_if_broken(path: Path) -> AnchorStore:
    """The anchor store at ``path``; one that cannot be read is derived state: start afresh."""
    try:
        return AnchorStore(path)
    except StorageError:
        path.unlink(missing_ok=True)
        return AnchorStore(path)


def sync_anchors(
    vault: Vault, root: Path, resolve: Resolver, tip: str = "HEAD", seen: CodeAt | None = None
) -> AnchorStore:
    """The vault's anchor store with the anchors of HEAD's entries into ``root`` (only entries
    whose blob changed since the last sync are read again). ``tip`` is the newest commit an
    entry may have been written against: the post-commit hook passes the new commit's parent,
    since every entry already in the vault was written before that commit. ``seen`` is a
    commit already read (its definitions are not parsed again)."""
    store = _rebuilt_if_broken(store_path(vault))
    head = vault.store.head_commit()
    repo = str(root)
    if head is None or store.stamp(repo) == str(head.id):
        return store
    tree = head.tree
    paths = vault.cataloger.entry_paths(tree)
    blobs = {p: vault.store.blob_id_at(tree, p) for p in paths}
    known = store.entry_blobs(repo)
    codes = {seen.commit: seen} if seen else {}
    pass_ = _Anchoring(root, resolve, tip, codes, seen.cache if seen else CodeCache())
    made: dict[str, tuple[str, str, list[Anchor]]] = {}
    for path in paths:
        if known.get(path) != blobs[path]:
            entry = vault.reader.load(tree, path)
            made[path] = (blobs[path], entry.title, pass_.anchors(entry))
    store.replace(repo, str(head.id), made, [p for p in known if p not in blobs])
    return store


def check_code(
    vault: Vault,
    root: Path,
    resolve: Resolver,
    rev: str = "HEAD",
    cache: CodeCache | None = None,
) -> CodeStaleness:
    """Anchor the vault's entries into ``root`` and check every anchor against ``rev``; the
    outcome is kept in the anchor store (recall labels its hits from it)."""
    now = CodeAt.read(root, rev, cache)  # a bad revision is refused before anything is made
    store = sync_anchors(vault, root, resolve, seen=now)
    try:
        anchors = store.anchors(str(root))
        before = {check_key(c.anchor): c for c in store.checks(str(root))}
        checks = check_all(anchors, now, before)
        store.save_checks(str(root), checks)
        titles = store.titles(str(root))
    finally:
        store.close()
    return _report(str(root), now.commit, checks, titles)


def _report(
    repo: str, sha: str, checks: list[AnchorCheck], titles: dict[str, str]
) -> CodeStaleness:
    by_entry: dict[str, list[AnchorCheck]] = {}
    for c in checks:
        by_entry.setdefault(c.anchor.key, []).append(c)
    stale = tuple(
        StaleEntry(path, titles.get(path, ""), tuple(c for c in found if c.stale))
        for path, found in sorted(by_entry.items())
        if any(c.stale for c in found)
    )
    return CodeStaleness(repo, sha, len(checks), len(by_entry), stale)


# ------------------------------------------------------------ what the code graph shows


def anchored_memory(
    vault: Vault, root: Path, file: str, qualname: str | None
) -> list[dict[str, Any]]:
    """The entries anchored to ``file``:``qualname`` (any definition of the file when None),
    each with its title and the state its last check found."""
    path = store_path(vault)
    if not path.exists():
        return []
    store = AnchorStore(path)
    try:
        return store.for_symbol(str(root), file, qualname)
    finally:
        store.close()


def with_memory(answer: Answer, vault: Vault, graph: CodeGraph) -> Answer:
    """A find-symbol or explain-module answer with, on each definition, the memory entries
    anchored to it (``memory``); a module answer also lists those anchored to its file. The
    anchors are brought up to date with the vault first."""
    from dataclasses import replace

    store = sync_anchors(vault, graph.root, graph_resolver(graph))
    repo = str(graph.root)
    try:
        items = [
            {**item, "memory": store.for_symbol(repo, item["file"], item["qualname"])}
            for item in answer.items
        ]
        extra = dict(answer.extra)
        if extra.get("kind") == "module":
            extra["memory"] = store.for_symbol(repo, str(extra["path"]), None)
    finally:
        store.close()
    return replace(answer, items=items, extra=extra)
