"""Applies the catalog rules of ``catalog`` to Git trees: incremental updates along the changed
paths for an ingest, and full regeneration from a commit's tree and history for checks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from clawql_git.catalog import render as catalog
from clawql_git.catalog.render import PENDING, FolderListing, LogEvent
from clawql_git.errors import ClawqlError
from clawql_git.gitstore import Commit, GitStore, Tree, parse_trailers
from clawql_git.model.entry import Entry, decode_text
from clawql_git.model.paths import INDEX, LOG, is_catalog_folder, is_entry_path
from clawql_git.model.times import utc

HISTORY_SCAN_LIMIT = 2000


@dataclass
class _Plan:
    texts: dict[str, str | None] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


class TreeView:
    """A tree as it will be: a base tree with pending file changes laid over it, so catalogs are
    computed before any intermediate tree object is written."""

    def __init__(
        self, store: GitStore, base: Tree | None, files: Mapping[str, bytes | None]
    ) -> None:
        self.store = store
        self.base = base
        self.files = files

    def blob(self, path: str) -> bytes | None:
        if path in self.files:
            return self.files[path]
        return self.store.blob_at(self.base, path)

    def children(self, folder: str) -> tuple[set[str], list[str]]:
        """Entry file names and catalog folder names directly in ``folder``."""
        files, dirs = _children(self.store.subtree(self.base, folder), folder)
        prefix = f"{folder}/" if folder else ""
        for path, data in self.files.items():
            if not path.startswith(prefix):
                continue
            head, _, rest = path[len(prefix) :].partition("/")
            if rest and data is not None and head not in dirs and is_catalog_folder(prefix + head):
                dirs.append(head)
            elif not rest and is_entry_path(path):
                (files.add if data is not None else files.discard)(head)
        return files, dirs


class Cataloger:
    """Computes catalog and log files for a tree of a vault."""

    def __init__(self, store: GitStore, recent: int, log_page: int) -> None:
        self.store = store
        self.recent = recent
        self.log_page = log_page

    # ------------------------------------------------------------ incremental

    def incremental(
        self,
        old_tree: Tree | None,
        files: Mapping[str, bytes | None],
        changed: Mapping[str, Entry | None],
        parent: Commit | None,
        new_events: list[LogEvent],
    ) -> dict[str, bytes | None]:
        """Catalog files to write when ``files`` (holding the ``changed`` entries) are written
        over ``old_tree``; ``new_events`` are this commit's log lines, newest first (they get
        the entries' descriptions here, and stay pending until the next logged commit)."""
        plan = _Plan()
        tree = TreeView(self.store, old_tree, files)
        by_folder: dict[str, dict[str, Entry | None]] = {}
        for path, entry in changed.items():
            folder, _, name = path.rpartition("/")
            by_folder.setdefault(folder, {})[name] = entry
        for folder in sorted(_ancestors(changed), key=lambda f: -f.count("/")):
            self._plan_folder(plan, old_tree, tree, folder, by_folder.get(folder, {}))
        plan.texts[INDEX] = self._root(plan, tree, changed, parent)
        old_log = self._text(old_tree, LOG)
        archive = lambda month: self._text(old_tree, f"log/{month}.md")  # noqa: E731
        fresh = [replace(e, worm_ref=PENDING).described(changed.get(e.path)) for e in new_events]
        previous = self._last_logged(parent) if fresh else ""
        plan.texts.update(catalog.log_changes(old_log, archive, fresh, self.log_page, previous))
        return {p: None if t is None else t.encode() for p, t in plan.texts.items()}

    def _plan_folder(
        self,
        plan: _Plan,
        old_tree: Tree | None,
        tree: TreeView,
        folder: str,
        changed_here: Mapping[str, Entry | None],
    ) -> None:
        """Regenerate one folder's catalog; ``changed_here`` maps file names in it to entries."""
        old_text = self._text(old_tree, f"{folder}/{INDEX}")
        lines = catalog.parse_entry_lines(old_text, folder)
        known = catalog.parse_folder_counts(old_text)
        for name, entry in changed_here.items():
            lines.pop(name, None)
            if entry is not None:
                lines[name] = catalog.entry_line(f"{folder}/{name}", entry)
        listing = self._listing(plan, tree, folder, lines, known)
        self._record(plan, folder, listing)

    def _listing(
        self,
        plan: _Plan,
        tree: TreeView,
        folder: str,
        lines: dict[str, str],
        known: dict[str, int] | None = None,
    ) -> FolderListing:
        files, dirs = tree.children(folder)
        for name in set(lines) - files:
            del lines[name]
        for name in files - set(lines):  # not in the old catalog: read it once
            path = f"{folder}/{name}"
            lines[name] = catalog.entry_line(path, self._entry(tree, path))
        subfolders = tuple((d, self._count(plan, tree, f"{folder}/{d}", known)) for d in dirs)
        return FolderListing(folder, tuple(s for s in subfolders if s[1]), tuple(lines.items()))

    def _record(self, plan: _Plan, folder: str, listing: FolderListing) -> None:
        plan.counts[folder] = listing.count
        plan.texts[f"{folder}/{INDEX}"] = catalog.render_folder(listing) if listing.count else None

    def _count(
        self, plan: _Plan, tree: TreeView, folder: str, known: dict[str, int] | None = None
    ) -> int:
        """A folder's entry count: just computed, else as its parent's catalog stated it (the
        folder did not change), else as its own catalog states it."""
        if folder in plan.counts:
            return plan.counts[folder]
        name = folder.rsplit("/", 1)[-1]
        if known and name in known:
            return known[name]
        return catalog.parse_count(_decode(tree.blob(f"{folder}/{INDEX}")))

    def _root(
        self,
        plan: _Plan,
        tree: TreeView,
        changed: Mapping[str, Entry | None],
        parent: Commit | None,
    ) -> str:
        files, dirs = tree.children("")
        known = catalog.parse_folder_counts(_decode(tree.blob(INDEX))) if changed else None
        categories = [(d, self._count(plan, tree, d, known)) for d in dirs]
        entries = [(n, catalog.entry_line(n, self._entry(tree, n))) for n in sorted(files)]
        first = [p for p, e in changed.items() if e is not None]
        lines = catalog.parse_recent_lines(_decode(tree.blob(INDEX))) if changed else {}
        recent = self._recent(tree, first, parent, changed, lines)
        return catalog.render_root([c for c in categories if c[1]], entries, recent)

    def _recent(
        self,
        tree: TreeView,
        first: list[str],
        start: Commit | None,
        changed: Mapping[str, Entry | None],
        known: dict[str, str],
    ) -> list[str]:
        """Lines for the most recently written entries that still exist; lines of entries the
        old catalog already listed (and this write did not change) are reused as they were."""
        seen: list[str] = []
        for path in _recent_candidates(self.store, first, start):
            if path not in seen and tree.blob(path) is not None:
                seen.append(path)
                if len(seen) == self.recent:
                    break
        out = []
        for path in seen:
            entry = changed.get(path)
            if entry is None and path in known:
                out.append(known[path])
            else:
                out.append(catalog.recent_line(path, entry or self._entry(tree, path)))
        return out

    # ------------------------------------------------------------ full regeneration

    def full(self, commit: Commit) -> dict[str, bytes]:
        """Every catalog and log file, regenerated from the commit's tree and history."""
        plan = _Plan()
        tree = TreeView(self.store, commit.tree, {})
        by_folder: dict[str, dict[str, str]] = {}
        for path in _entry_paths(self.store, commit.tree, ""):
            folder, name = str(PurePosixPath(path).parent), PurePosixPath(path).name
            if folder != ".":
                by_folder.setdefault(folder, {})[name] = catalog.entry_line(
                    path, self._entry(tree, path)
                )
        folders = {a for f in by_folder for a in _folder_chain(f)}
        for folder in sorted(folders, key=lambda f: -f.count("/")):
            listing = self._listing(plan, tree, folder, dict(by_folder.get(folder, {})))
            self._record(plan, folder, listing)
        plan.texts[INDEX] = self._root(plan, tree, {}, commit)
        plan.texts.update(catalog.full_log(self._history_events(commit), self.log_page))
        return {p: t.encode() for p, t in plan.texts.items() if t is not None}

    def merged(
        self,
        main: Commit,
        merged: Commit,
        files: Mapping[str, bytes | None],
        changed: Mapping[str, Entry | None],
    ) -> dict[str, bytes | None]:
        """The catalogs of a merge without re-reading every entry: folder catalogs and the root
        index incrementally along the merged-in entries (main's catalogs are consistent, so
        only those folders change), and the log regenerated from the merged history (the two
        sides interleave by time, which no prepend can reproduce)."""
        out = self.incremental(main.tree, files, changed, main, [])
        logs = catalog.full_log(self._history_events(merged), self.log_page)
        out.update({p: text.encode() for p, text in logs.items()})
        for item in self.store.subtree(main.tree, "log") or ():
            out.setdefault(f"log/{item.name}", None)  # a page the regenerated log no longer has
        return out

    def entry_paths(self, tree: Tree | None) -> list[str]:
        """Every entry path of a tree, folder by folder."""
        return list(_entry_paths(self.store, tree, ""))

    def _history_events(self, commit: Commit) -> list[LogEvent]:
        """Every logged event of the history, oldest first, with the entries' descriptions as
        each commit wrote them; the newest logged commit's lines are pending, the others carry
        their commit's sha."""
        commits = list(self.store.walk(commit, first_parent=False))  # merged branches too
        newest = next((c for c in commits if _logged(c)), None)
        events: list[LogEvent] = []
        for c in reversed(commits):
            trailers = parse_trailers(c.message).as_dict()
            ref = PENDING if newest is not None and c.id == newest.id else f"git:{c.id}"
            tree = TreeView(self.store, c.tree, {})
            for event in catalog.events_from_trailers(utc(c.author.time), trailers):
                entry = self._entry(tree, event.path) if event.path else None
                events.append(replace(event, worm_ref=ref).described(entry))
        return events

    def _last_logged(self, parent: Commit | None) -> str:
        """The sha of the newest logged commit in ``parent``'s history: ``parent`` itself but
        after a commit that logs nothing (a catalog fix, a hand commit)."""
        if parent is None or _logged(parent):
            return "" if parent is None else str(parent.id)
        found = next((c for c in self.store.walk(parent, first_parent=False) if _logged(c)), None)
        return "" if found is None else str(found.id)

    def drift(self, commit: Commit) -> dict[str, tuple[bytes | None, bytes | None]]:
        """path -> (stored, expected) for every catalog file that differs from regeneration."""
        expected: dict[str, bytes | None] = dict(self.full(commit))
        for path in _generated_paths(self.store, commit.tree):
            expected.setdefault(path, None)
        out: dict[str, tuple[bytes | None, bytes | None]] = {}
        for path, want in expected.items():
            have = self.store.blob_at(commit.tree, path)
            if have != want:
                out[path] = (have, want)
        return out

    # ------------------------------------------------------------ reading

    def _text(self, tree: Tree | None, path: str) -> str:
        return _decode(self.store.blob_at(tree, path))

    def _entry(self, tree: TreeView, path: str) -> Entry:
        data = tree.blob(path) or b""
        try:
            return Entry.parse(path, decode_text(data, path))
        except ClawqlError:
            return Entry(path, "", {}, "")  # a broken file still gets a catalog line


def _logged(commit: Commit) -> bool:
    return catalog.is_logged(parse_trailers(commit.message).as_dict())


def _decode(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data is not None else ""


def _ancestors(changed: Mapping[str, Entry | None]) -> set[str]:
    out: set[str] = set()
    for path in changed:
        out.update(_folder_chain(str(PurePosixPath(path).parent)))
    return out


def _folder_chain(folder: str) -> list[str]:
    parts = [] if folder in ("", ".") else folder.split("/")
    chain = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return [f for f in chain if is_catalog_folder(f)]


def _children(tree: Tree | None, folder: str) -> tuple[set[str], list[str]]:
    files: set[str] = set()
    dirs: list[str] = []
    if tree is None:
        return files, dirs
    for item in tree:
        name = item.name or ""
        path = f"{folder}/{name}" if folder else name
        if item.type_str == "tree":
            if is_catalog_folder(path):
                dirs.append(name)
        elif is_entry_path(path):
            files.add(name)
    return files, dirs


def _entry_paths(store: GitStore, tree: Tree | None, folder: str) -> Iterator[str]:
    files, dirs = _children(tree, folder)
    for name in sorted(files):
        yield f"{folder}/{name}" if folder else name
    for name in dirs:
        path = f"{folder}/{name}" if folder else name
        yield from _entry_paths(store, store.subtree(tree, name), path)


def _generated_paths(store: GitStore, tree: Tree) -> Iterator[str]:
    """Catalog files present in a tree (so stale ones count as drift)."""
    log_tree = store.subtree(tree, "log")
    if log_tree is not None:
        yield from (f"log/{i.name}" for i in log_tree if (i.name or "").endswith(".md"))
    yield from _indexes(store, tree, "")


def _indexes(store: GitStore, tree: Tree | None, folder: str) -> Iterator[str]:
    if tree is None:
        return
    for item in tree:
        name = item.name or ""
        path = f"{folder}/{name}" if folder else name
        if item.type_str == "tree" and is_catalog_folder(path):
            sub = store.subtree(tree, name)
            yield from _indexes(store, sub, path)
        elif name == INDEX and folder:
            yield path


def _recent_candidates(store: GitStore, first: list[str], start: Commit | None) -> Iterator[str]:
    yield from reversed(first)
    for n, commit in enumerate(store.walk(start)):
        if n >= HISTORY_SCAN_LIMIT:
            return
        yield from reversed(parse_trailers(commit.message).entry_paths())
