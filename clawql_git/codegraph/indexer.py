"""Building and updating the graph: parse what changed (by content hash), resolve calls and
imports across files, join routes, and write it all in one transaction. The project files the
resolver reads (C#'s ``.csproj``) are kept by content hash too: an edit of one alone relinks
the files it governs."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawql_git.codegraph.csharp_projects import (
    PROJECT_SUFFIXES,
    is_project_file,
    project_users,
)
from clawql_git.codegraph.files import (
    SourceFile,
    discover,
    language_of,
    linguist_marked,
    skipped_files,
    suffix_map,
    vendored_reason,
)
from clawql_git.codegraph.model import Extractor, FileFacts
from clawql_git.codegraph.py_fixtures import fixture_users
from clawql_git.codegraph.resolve import C_HEADERS, C_SOURCES, Resolver
from clawql_git.codegraph.routes import join_routes
from clawql_git.codegraph.store import Store, delete_file, write_file

Progress = Callable[[int, int, str], None]
Projects = dict[str, str]  # project file -> content digest


@dataclass
class WorkTree:
    """The repository as extractors and the resolver see it (a :class:`RepoView`)."""

    root: Path
    files: frozenset[str]
    cache: dict[str, Any] = field(default_factory=dict)

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()


@dataclass(frozen=True)
class IndexReport:
    """What one index run did."""

    files: int
    parsed: int
    unchanged: int
    removed: int
    symbols: int
    calls: int
    resolved: int
    routes: int
    seconds: float
    languages: dict[str, int]
    changed: tuple[str, ...] = ()
    relinked: tuple[str, ...] = ()  # the files whose calls and imports were resolved again

    def to_record(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "parsed": self.parsed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "symbols": self.symbols,
            "calls": self.calls,
            "resolved_calls": self.resolved,
            "routes": self.routes,
            "seconds": round(self.seconds, 3),
            "languages": self.languages,
            "changed": list(self.changed),
            "relinked": len(self.relinked),
        }


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Indexer:
    """Keeps one repository's graph in step with its work tree; holds the parsed facts in
    memory between updates (the watcher re-resolves without re-reading the store)."""

    def __init__(self, root: Path, store: Store, extractors: dict[str, Extractor]) -> None:
        self.root = root
        self.store = store
        self.extractors = extractors
        self.suffixes = suffix_map(extractors)
        self.facts: dict[str, FileFacts] | None = None
        self.modules: dict[str, str] = {}
        self._resolver: Resolver | None = None
        self.tracks_projects = "csharp" in self.suffixes.values()
        self._check_stamp()

    def _check_stamp(self) -> None:
        """Facts parsed by another version of an extractor are parsed again (the stamp is
        each language's extractor ``version``)."""
        stamp = ",".join(
            f"{lang}:{getattr(ex, 'version', '0')}" for lang, ex in sorted(self.extractors.items())
        )
        if self.store.get_meta("extractors") != stamp:
            with self.store.transaction() as db:
                db.execute("DELETE FROM files")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('extractors', ?)", (stamp,))

    def full(self, progress: Progress | None = None) -> IndexReport:
        """Index every file: parse the changed ones, drop the vanished ones, relink all."""
        start = time.perf_counter()
        wanted = {**self.suffixes, **PROJECT_SUFFIXES} if self.tracks_projects else self.suffixes
        found = list(discover(self.root, wanted))
        sources = self._own_sources([s for s in found if language_of(s.path, self.suffixes)])
        projects = (
            self._digests(s.path for s in found if is_project_file(s.path))
            if self.tracks_projects
            else None
        )
        self.modules = {s.path: s.module for s in sources}
        known = self.store.hashes()
        parsed: dict[str, FileFacts] = {}
        rows: list[tuple[FileFacts, str, str, int]] = []
        unchanged = 0
        for i, src in enumerate(sources):
            if progress is not None:
                progress(i, len(sources), src.path)
            row = self._parse(src, known.get(src.path), parsed)
            if row is None:
                unchanged += 1
            else:
                rows.append(row)
        gone = [p for p in known if p not in self.modules]
        changed = tuple(r[0].path for r in rows) + tuple(gone)
        moved = self._moved(projects) if projects is not None else ()
        if changed or self.store.get_meta("indexed_at") is None:
            # stored facts are read only when something changed: they are relinked with it
            facts = self.store.facts() if self.facts is None else dict(self.facts)
            facts.update(parsed)
            self.facts = {p: f for p, f in facts.items() if p in self.modules}
            report = self._write(rows, gone, None, start, changed + moved, projects)
        elif projects is not None and moved:
            self.load()
            report = self._write([], [], self._project_users(projects), start, moved, projects)
        else:
            report = self._report(0, 0, unchanged, start, ())
        self._note_skipped()
        if progress is not None:
            progress(len(sources), len(sources), "")
        return report

    def _own_sources(self, found: list[SourceFile]) -> list[SourceFile]:
        """``found`` without the bundled and minified copies, which are remembered with their
        reason (``code status`` lists them: nothing is left out silently)."""
        vendored = linguist_marked(self.root, [s.path for s in found if not s.module])
        for src in found:
            if src.path not in vendored:
                reason = vendored_reason(self.root, src.path)
                if reason:
                    vendored[src.path] = reason
        record = json.dumps(dict(sorted(vendored.items())))
        if self.store.get_meta("vendored") != record:
            with self.store.transaction() as db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('vendored', ?)", (record,))
        return [s for s in found if s.path not in vendored]

    def _note_skipped(self) -> None:
        """Remember which source files no extractor reads, by language (``code status``)."""
        skipped = json.dumps(skipped_files(self.root, self.suffixes))
        if self.store.get_meta("skipped") != skipped:
            with self.store.transaction() as db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('skipped', ?)", (skipped,))

    def _parse(
        self, src: SourceFile, known: str | None, facts: dict[str, FileFacts]
    ) -> tuple[FileFacts, str, str, int] | None:
        try:
            data = (self.root / src.path).read_bytes()
        except OSError:
            return None
        code = digest(data)
        if known == code:
            return None
        language = language_of(src.path, self.suffixes)
        found = self.extractors[language].extract(src.path, data, language)
        facts[src.path] = found
        return found, code, src.module, data.count(b"\n") + 1

    def load(self) -> None:
        """Read every file's facts from the store (a watcher does it once, up front)."""
        if self.facts is None:
            self.facts = self.store.facts()

    def update(self, paths: Iterable[str]) -> IndexReport:
        """Re-read the given files (changed, added or deleted) and relink the files that can
        see them: themselves and every file importing them."""
        start = time.perf_counter()
        if self.facts is None:
            self.facts = self.store.facts()
        known = self.store.hashes()
        left_out = json.loads(self.store.get_meta("vendored") or "{}")  # by the last full index
        rows, gone = [], []
        projects = self._projects_after(paths)
        for path in sorted(set(paths)):
            full = self.root / path
            skip = path in left_out or vendored_reason(self.root, path)
            if not language_of(path, self.suffixes) or skip:
                continue
            if not full.is_file():
                if path in self.facts:
                    gone.append(path)
                    self.facts.pop(path)
                continue
            src = SourceFile(path, self.modules.get(path, ""))
            row = self._parse(src, known.get(path), self.facts)
            if row is not None:
                rows.append(row)
        touched = {r[0].path for r in rows} | set(gone)
        moved = self._moved(projects) if projects is not None else ()
        if not touched and not moved:
            return self._report(0, 0, 0, start, ())
        changed = tuple(sorted(touched | set(moved)))
        if projects is not None and moved:
            touched |= self._project_users(projects)
        added = any(r[0].path not in known for r in rows)
        # a file that appears or vanishes changes what other imports resolve to: relink all
        scope = None if added or gone else touched
        return self._write(rows, gone, scope, start, changed, projects)

    # ------------------------------------------------------------ project files

    def _digests(self, paths: Iterable[str]) -> Projects:
        """The content digest of each project file of ``paths`` that exists."""
        out = {}
        for path in paths:
            try:
                out[path] = digest((self.root / path).read_bytes())
            except OSError:
                continue
        return out

    def _stored_projects(self) -> Projects:
        """The project files (and digests) the graph was last linked with."""
        return dict(json.loads(self.store.get_meta("projects") or "{}"))

    def _projects_after(self, paths: Iterable[str]) -> Projects | None:
        """The stored project files with those of ``paths`` read again (None: ``paths`` holds
        none, or no C# is indexed)."""
        mine = {p for p in paths if is_project_file(p)}
        if not mine or not self.tracks_projects:
            return None
        projects = self._stored_projects()
        for path in mine:
            projects.pop(path, None)
            projects.update(self._digests([path]))
        return projects

    def _moved(self, projects: Projects) -> tuple[str, ...]:
        """The project files added, edited or deleted since the graph was last linked."""
        old = self._stored_projects()
        return tuple(
            sorted(p for p in old.keys() | projects.keys() if old.get(p) != projects.get(p))
        )

    def _project_users(self, projects: Projects) -> set[str]:
        """The C# files to relink for the change from the stored project files to ``projects``;
        the resolver is made again (it keeps what it read of the old ones)."""
        assert self.facts is not None
        self._resolver = None
        csharp = [p for p, f in self.facts.items() if f.language == "csharp"]
        repo = WorkTree(self.root, frozenset(self.facts))
        return project_users(self._stored_projects(), projects, csharp, repo)

    def _write(
        self,
        rows: list[tuple[FileFacts, str, str, int]],
        gone: list[str],
        touched: set[str] | None,
        start: float,
        changed: tuple[str, ...],
        projects: Projects | None,
    ) -> IndexReport:
        """Store the parsed ``rows``, drop ``gone``, relink ``touched`` and what sees them (all
        files: None), and remember ``projects`` as the project files they were linked with
        (None: unchanged)."""
        assert self.facts is not None
        if touched is None or self._resolver is None:
            repo = WorkTree(self.root, frozenset(self.facts))
            self._resolver = Resolver(self.facts, self.extractors, repo)
        else:  # same files: only the edited ones' lookups change
            for found, *_ in rows:
                self._resolver.replace(found)
        resolver = self._resolver
        relink = set(self.facts) if touched is None else self._affected(resolver, touched)
        with self.store.transaction() as db:
            for path in gone:
                delete_file(db, path)
            for found, code, module, lines in rows:
                write_file(db, found, code, module, lines)
            for path in relink:
                self._write_links(db, resolver, path)
            db.execute("DELETE FROM routes")
            db.executemany(
                "INSERT INTO routes VALUES (?,?,?,?,?,?,?,?,?,?)",
                [r.to_row() for r in join_routes(resolver)],
            )
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('indexed_at', ?)", (f"{time.time():.6f}",)
            )
            if projects is not None:
                record = json.dumps(dict(sorted(projects.items())))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('projects', ?)", (record,))
        self.store.checkpoint()
        unchanged = len(self.facts) - len(rows)
        return self._report(len(rows), len(gone), unchanged, start, changed, tuple(sorted(relink)))

    def _affected(self, resolver: Resolver, touched: set[str]) -> set[str]:
        """The touched files plus their importers (transitively through packages, whose
        ``__init__`` re-exports pass names along, and through C/C++ headers, which pass on
        what they include). A C/C++ source also relinks the includers of its own headers:
        their calls may go to its definitions."""
        out = {p for p in touched if p in resolver.index}
        frontier = set(touched)
        importers: dict[str, set[str]] = {}
        for row in self.store.query("SELECT path, target FROM deps"):
            importers.setdefault(row["target"], set()).add(row["path"])
            if row["path"] in touched and row["path"].endswith(C_SOURCES):
                frontier.add(row["target"])
        while frontier:
            nxt: set[str] = set()
            for path in frontier:
                for importer in importers.get(path, ()):
                    if importer not in out and importer in resolver.index:
                        out.add(importer)
                        if importer.endswith(("__init__.py", *C_HEADERS)):
                            nxt.add(importer)
            frontier = nxt
        return out | fixture_users(out, resolver.index)  # a conftest's fixtures reach its tests

    def _write_links(self, db: Any, resolver: Resolver, path: str) -> None:
        db.execute("DELETE FROM calls WHERE path=?", (path,))
        db.execute("DELETE FROM deps WHERE path=?", (path,))
        db.execute("DELETE FROM supertypes WHERE path=?", (path,))
        db.executemany(
            "INSERT INTO supertypes VALUES (?,?,?,?,?,?,?,?,?,?)",
            [e.to_row() for e in resolver.supertypes(path)],
        )
        db.executemany(
            "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    e.path,
                    e.caller,
                    e.callee,
                    e.line,
                    e.column,
                    e.context,
                    e.target_path,
                    e.target_qualname,
                    e.confidence,
                    e.resolution,
                    e.callee.rsplit(".", 1)[-1],
                )
                for e in resolver.edges(path)
            ],
        )
        seen = set()
        deps = []
        for imp, files in resolver.import_targets(path):
            for target in files:
                if target != path and target not in seen:
                    seen.add(target)
                    deps.append((path, target, imp.module, imp.line))
        db.executemany("INSERT INTO deps VALUES (?,?,?,?)", deps)

    def _report(
        self,
        parsed: int,
        removed: int,
        unchanged: int,
        start: float,
        changed: tuple[str, ...],
        relinked: tuple[str, ...] = (),
    ) -> IndexReport:
        counts = self.store.query(
            "SELECT (SELECT count(*) FROM symbols), (SELECT count(*) FROM calls),"
            " (SELECT count(*) FROM calls WHERE target_path != ''), (SELECT count(*) FROM routes)"
        )[0]
        languages = {
            str(r[0]): int(r[1])
            for r in self.store.query("SELECT language, count(*) FROM files GROUP BY language")
        }
        return IndexReport(
            files=sum(languages.values()),
            parsed=parsed,
            unchanged=unchanged,
            removed=removed,
            symbols=counts[0],
            calls=counts[1],
            resolved=counts[2],
            routes=counts[3],
            seconds=time.perf_counter() - start,
            languages=languages,
            changed=changed,
            relinked=relinked,
        )
