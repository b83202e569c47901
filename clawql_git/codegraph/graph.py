"""``CodeGraph``: the library face of the code graph (index, status, and the queries agents
ask instead of rereading files). Every answer is bounded and says its total."""

from __future__ import annotations

import difflib
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from clawql_git.codegraph import hierarchy, recency
from clawql_git.codegraph.churn import write_history
from clawql_git.codegraph.files import load_extractors
from clawql_git.codegraph.indexer import Indexer, IndexReport, Progress
from clawql_git.codegraph.location import locate
from clawql_git.codegraph.routes import match, specificity
from clawql_git.codegraph.store import Store
from clawql_git.errors import InvalidInput, NotFound

DEFAULT_LIMIT = 50
DEFAULT_MAX_CHARS = 20_000


@dataclass(frozen=True)
class Answer:
    """A bounded query answer: the leading ``items``, the ``total`` there were, and whether
    some were left out (by ``limit`` or by ``max_chars``)."""

    query: str
    items: list[dict[str, Any]]
    total: int
    truncated: bool
    extra: dict[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        return {
            "query": self.query,
            **self.extra,
            "total": self.total,
            "returned": len(self.items),
            "truncated": self.truncated,
            "items": self.items,
        }


def bounded(
    query: str,
    items: list[dict[str, Any]],
    limit: int,
    max_chars: int,
    extra: dict[str, Any] | None = None,
) -> Answer:
    """Keep the leading items within ``limit`` and ``max_chars`` (of their JSON)."""
    if limit < 1 or max_chars < 1:
        raise InvalidInput("--limit and --max-chars must be positive")
    kept: list[dict[str, Any]] = []
    used = 0
    for item in items[:limit]:
        used += len(json.dumps(item, ensure_ascii=False, default=str)) + 2
        if used > max_chars and kept:
            break
        kept.append(item)
    return Answer(query, kept, len(items), len(kept) < len(items), extra or {})


class CodeGraph:
    """One repository's code graph. ``CodeGraph.open(path)`` then ``index()`` and queries."""

    def __init__(self, root: Path, db_path: Path) -> None:
        self.root = root
        self.db_path = db_path
        self.store = Store(db_path)
        self.indexer = Indexer(root, self.store, load_extractors())
        self._routes_cache: (
            tuple[str | None, tuple[list[Any], dict[str, list[Any]], list[Any]]] | None
        ) = None
        self._deps_cache: tuple[str | None, dict[str, list[str]]] | None = None
        self._blob_defs: recency.Parsed = {}  # (path, blob sha) -> definitions, for changes()

    @classmethod
    def open(cls, path: str | Path = ".", create: bool = True) -> CodeGraph:
        """The graph of the repository at ``path``; with ``create=False`` (queries) a repository
        never indexed is NotFound and nothing is written."""
        root, db_path = locate(path)
        if not create and not db_path.exists():
            raise NotFound(f"{root} has no code graph yet; run `clawql code index`")
        return cls(root, db_path)

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ building

    def index(self, progress: Progress | None = None, history: bool = True) -> IndexReport:
        """Bring the graph in step with the work tree (unchanged content is not re-parsed)."""
        report = self.indexer.full(progress)
        if history:
            with self.store.transaction() as db:
                write_history(db, self.root)
        return report

    def update(self, paths: list[str]) -> IndexReport:
        """Re-read some files (work-tree relative) and relink what can see them."""
        return self.indexer.update(paths)

    def watch(
        self,
        on_update: Callable[[IndexReport], None] | None = None,
        stop: threading.Event | None = None,
        debounce_ms: int = 50,
    ) -> None:
        """Keep the graph current from filesystem events until ``stop`` is set."""
        from clawql_git.codegraph.watch import watch

        watch(self, on_update, stop, debounce_ms)

    def status(self) -> dict[str, Any]:
        """What is indexed: files by language, symbols, calls (resolved share), routes."""
        row = self.store.query(
            "SELECT (SELECT count(*) FROM files) f, (SELECT count(*) FROM symbols) s,"
            " (SELECT count(*) FROM calls) c, (SELECT count(*) FROM calls WHERE target_path!='') r,"
            " (SELECT count(*) FROM deps) d, (SELECT count(*) FROM routes) rt,"
            " (SELECT coalesce(sum(lines),0) FROM files) l"
        )[0]
        languages = {
            r["language"]: r["n"]
            for r in self.store.query(
                "SELECT language, count(*) n FROM files GROUP BY language ORDER BY n DESC"
            )
        }
        return {
            "root": str(self.root),
            "graph": str(self.db_path),
            "files": row["f"],
            "lines": row["l"],
            "symbols": row["s"],
            "calls": row["c"],
            "resolved_calls": row["r"],
            "imports": row["d"],
            "routes": row["rt"],
            "languages": languages,
            "skipped": json.loads(self.store.get_meta("skipped") or "{}"),  # by language
            "vendored": json.loads(self.store.get_meta("vendored") or "{}"),  # path -> reason
            "indexed_at": self.store.get_meta("indexed_at"),
            "size_bytes": self.db_path.stat().st_size if self.db_path.exists() else 0,
        }

    def _require_index(self) -> None:
        if self.store.get_meta("indexed_at") is None:
            raise NotFound(f"{self.root} has no code graph yet; run `clawql code index`")

    # ------------------------------------------------------------ symbols

    def symbols(self, name: str) -> list[dict[str, Any]]:
        """Definitions whose name or qualname is ``name`` (``file.py:Class.method`` narrows)."""
        path, _, qual = name.rpartition(":")
        sql = (
            "SELECT * FROM symbols WHERE (name=? OR qualname=?)"
            + (" AND path=?" if path else "")
            + " ORDER BY exported DESC, path, line"
        )
        params = (qual, qual, path) if path else (qual, qual)
        return [_symbol(r) for r in self.store.query(sql, params)]

    def find_symbol(
        self,
        name: str,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
        kind: str | None = None,
    ) -> Answer:
        """Definitions named ``name``: exact matches, else fuzzy ones (substring, close names)."""
        self._require_index()
        found = self.symbols(name) or self._specialised(name)
        found = [s for s in found if kind is None or s["kind"] == kind]
        how = "exact"
        if not found:
            how = "fuzzy"
            found = self._fuzzy(name, kind)
        return bounded(name, found, limit, max_chars, {"match": how})

    def _specialised(self, name: str) -> list[dict[str, Any]]:
        """``digits10<uint128_t>``: the definitions of ``digits10`` whose signature writes
        those template arguments (a C++ specialisation keeps its template's name)."""
        base, _, args = name.partition("<")
        if not args.endswith(">"):
            return []
        written = (base.rpartition(":")[2].rsplit(".", 1)[-1] + "<" + args).replace(" ", "")
        return [s for s in self.symbols(base) if written in s["signature"].replace(" ", "")]

    def _fuzzy(self, name: str, kind: str | None) -> list[dict[str, Any]]:
        short = name.rpartition(":")[2].rsplit(".", 1)[-1]
        rows = self.store.query(
            "SELECT * FROM symbols WHERE name LIKE ? ESCAPE '\\' ORDER BY length(name), path",
            ("%" + short.replace("%", "\\%").replace("_", "\\_") + "%",),
        )
        names = [r[0] for r in self.store.query("SELECT DISTINCT name FROM symbols")]
        close = set(difflib.get_close_matches(short, names, n=10, cutoff=0.75))
        seen = {(r["path"], r["qualname"]) for r in rows}
        more = [
            r
            for n in close
            for r in self.store.query("SELECT * FROM symbols WHERE name=?", (n,))
            if (r["path"], r["qualname"]) not in seen
        ]
        return [_symbol(r) for r in [*rows, *more] if kind is None or r["kind"] == kind]

    def _targets(self, name: str, file: str | None) -> list[dict[str, Any]]:
        targets = self.symbols(name)
        if file:
            targets = [t for t in targets if t["file"] == file or t["file"].endswith("/" + file)]
        if not targets:
            raise NotFound(f"no definition named {name!r}" + (f" in {file}" if file else ""))
        return targets

    def callers(
        self,
        name: str,
        file: str | None = None,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
        unresolved: bool = True,
    ) -> Answer:
        """Every call site of a definition (resolved edges first, with their confidence), then
        calls of the same name that could not be resolved to anything (confidence 0)."""
        self._require_index()
        targets = self._targets(name, file)
        items: list[dict[str, Any]] = []
        for t in targets:
            rows = self.store.query(
                "SELECT * FROM calls WHERE target_path=? AND target_qualname=? ORDER BY path, line",
                (t["file"], t["qualname"]),
            )
            items += [_call(r) for r in rows]
        if unresolved:
            tail = name.rpartition(":")[2].rsplit(".", 1)[-1]
            rows = self.store.query(
                "SELECT * FROM calls WHERE tail=? AND resolution='unresolved' ORDER BY path, line",
                (tail,),
            )
            items += [_call(r) for r in rows]
        extra = {"targets": [f"{t['file']}:{t['qualname']}" for t in targets]}
        return bounded(name, items, limit, max_chars, extra)

    def callees(
        self,
        name: str,
        file: str | None = None,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Answer:
        """Every call made inside a definition, with what each resolved to."""
        self._require_index()
        targets = self._targets(name, file)
        items: list[dict[str, Any]] = []
        for t in targets:
            rows = self.store.query(
                "SELECT * FROM calls WHERE path=? AND (caller=? OR caller LIKE ?) ORDER BY line",
                (t["file"], t["qualname"], t["qualname"] + ".%"),
            )
            items += [_call(r) for r in rows]
        extra = {"targets": [f"{t['file']}:{t['qualname']}" for t in targets]}
        return bounded(name, items, limit, max_chars, extra)

    # ------------------------------------------------------------ modules

    def module_path(self, name: str) -> str:
        """A file of the graph from a path or a dotted module name."""
        clean = name.strip().removeprefix("./")
        if self.store.query("SELECT 1 FROM files WHERE path=?", (clean,)):
            return clean
        stem = clean.replace(".", "/")
        for candidate in self.store.query(
            "SELECT path FROM files WHERE path LIKE ? OR path LIKE ? ORDER BY length(path)",
            (f"%{stem}.%", f"%{stem}/__init__.py"),
        ):
            path = str(candidate[0])
            bare = path.rsplit(".", 1)[0].removesuffix("/__init__")
            if bare == stem or bare.endswith("/" + stem):
                return path
        # a module that is a symbol, named apart from its file (Elixir's Plug.Conn)
        for row in self.store.query(
            "SELECT path FROM symbols WHERE qualname=? AND kind='module' ORDER BY length(path)",
            (clean,),
        ):
            return str(row[0])
        raise NotFound(f"no indexed module {name!r}")

    def folder_path(self, name: str) -> str | None:
        """The folder ``name`` denotes when it holds indexed files and names no file ('' is
        the repository root), else None."""
        clean = name.strip().removeprefix("./").strip("/")
        if clean in ("", "."):
            return ""
        if self.store.query("SELECT 1 FROM files WHERE path=?", (clean,)):
            return None
        rows = self.store.query(
            f"SELECT 1 FROM files WHERE path LIKE ? {ESCAPE} LIMIT 1", (_under(clean),)
        )
        return clean if rows else None

    def _top_level(self, path: str) -> list[Any]:
        """The exported top-level symbols of ``path``: ``f`` and ``Cls``, not ``Cls.method``;
        and a module's own members beside it, where a module is a symbol (Elixir's
        ``defmodule Plug.Conn`` gives ``Plug.Conn`` and ``Plug.Conn.send_resp``, not a
        member's members). A module with no member in the file (Java's ``package``) is not
        one of its exports."""
        rows = self.store.query("SELECT * FROM symbols WHERE path=? ORDER BY line", (path,))
        kinds = {str(r["qualname"]): str(r["kind"]) for r in rows}
        outer = {q: _container(q, kinds) for q in kinds}
        holders = {o for o in outer.values() if o is not None}
        tops = {
            q
            for q, kind in kinds.items()
            if "." not in q or (kind == "module" and outer[q] is None and q in holders)
        }
        modules = {q for q in tops if kinds[q] == "module"}
        return [
            r
            for r in rows
            if r["exported"]
            and (str(r["qualname"]) in tops or outer[str(r["qualname"])] in modules)
        ]

    def explain_module(
        self, name: str, limit: int = DEFAULT_LIMIT, max_chars: int = DEFAULT_MAX_CHARS
    ) -> Answer:
        """A module at a glance: its docstring summary, exported top-level symbols, what it
        imports, what imports it, and its recent changes (scored by recency). A folder (a
        package directory, in any language) answers for every module beneath it."""
        self._require_index()
        folder = self.folder_path(name)
        if folder is not None:
            return self._explain_folder(folder, limit, max_chars)
        path = self.module_path(name)
        row = self.store.query("SELECT language, doc, imports FROM files WHERE path=?", (path,))[0]
        symbols = [_symbol(r) for r in self._top_level(path)]
        deps = [
            r[0]
            for r in self.store.query(
                "SELECT DISTINCT target FROM deps WHERE path=? ORDER BY target", (path,)
            )
        ]
        users = [
            r[0]
            for r in self.store.query(
                "SELECT DISTINCT path FROM deps WHERE target=? ORDER BY path", (path,)
            )
        ]
        external = sorted(
            set(json.loads(row["imports"]))
            - {r[0] for r in self.store.query("SELECT module FROM deps WHERE path=?", (path,))}
        )
        commits = [
            dict(r)
            for r in self.store.query(
                "SELECT c.sha, c.time, c.author, c.subject FROM file_commits f JOIN commits c"
                " ON c.sha=f.sha WHERE f.path=? ORDER BY c.time DESC LIMIT 10",
                (path,),
            )
        ]
        change = self.store.query("SELECT score, commits, last FROM changes WHERE path=?", (path,))
        summary = str(row["doc"]).strip().split("\n\n")[0].strip()
        extra = {
            "kind": "module",
            "path": path,
            "language": row["language"],
            "summary": summary,
            "dependencies": deps[:limit],
            "external_dependencies": external[:limit],
            "dependants": users[:limit],
            "dependants_total": len(users),
            "recent_changes": commits,
            "change_score": dict(change[0]) if change else {"score": 0, "commits": 0, "last": 0},
        }
        return bounded(path, symbols, limit, max_chars, extra)

    def _explain_folder(self, folder: str, limit: int, max_chars: int) -> Answer:
        """A folder at a glance: its modules (with their summaries and exports), the files
        outside it that its modules import and that import them, and its recent commits."""
        inside = [
            r
            for r in self.store.query(
                "SELECT path, language, doc, imports FROM files ORDER BY path"
            )
            if not folder or str(r["path"]).startswith(folder + "/")
        ]
        paths = {str(r["path"]) for r in inside}
        symbols = [_symbol(r) for p in sorted(paths) for r in self._top_level(p)]
        deps_rows = self.store.query("SELECT path, target, module FROM deps")
        deps = sorted({r[1] for r in deps_rows if r[0] in paths and r[1] not in paths})
        users = sorted({r[0] for r in deps_rows if r[1] in paths and r[0] not in paths})
        resolved = {(r[0], r[2]) for r in deps_rows if r[0] in paths}
        external = sorted(
            {
                m
                for r in inside
                for m in json.loads(r["imports"])
                if (r["path"], m) not in resolved and not _relative_import(m)
            }
        )
        exports: dict[str, int] = {}
        for sym in symbols:
            exports[sym["file"]] = exports.get(sym["file"], 0) + 1
        modules = [
            {
                "path": r["path"],
                "language": r["language"],
                "summary": _summary(r["doc"]),
                "exports": exports.get(r["path"], 0),
            }
            for r in inside
        ]
        entry = next((m for m in modules if _is_entry(m["path"], folder)), None)
        prefix = _under(folder)
        commits = [
            dict(r)
            for r in self.store.query(
                "SELECT DISTINCT c.sha, c.time, c.author, c.subject FROM file_commits f"
                f" JOIN commits c ON c.sha=f.sha WHERE f.path LIKE ? {ESCAPE}"
                " ORDER BY c.time DESC"
                " LIMIT 10",
                (prefix,),
            )
        ]
        score = self.store.query(
            "SELECT coalesce(sum(score),0) score, coalesce(max(last),0) last FROM changes"
            f" WHERE path LIKE ? {ESCAPE}",
            (prefix,),
        )[0]
        touched = self.store.query(
            f"SELECT count(DISTINCT sha) FROM file_commits WHERE path LIKE ? {ESCAPE}", (prefix,)
        )[0][0]
        first = entry or next((m for m in modules if m["summary"]), None)
        extra = {
            "kind": "folder",
            "path": folder or ".",
            "language": ",".join(sorted({m["language"] for m in modules})),
            "summary": first["summary"] if first else "",
            "entry": entry["path"] if entry else None,
            "modules": modules[:limit],
            "modules_total": len(modules),
            "dependencies": deps[:limit],
            "external_dependencies": external[:limit],
            "dependants": users[:limit],
            "dependants_total": len(users),
            "recent_changes": commits,
            "change_score": {
                "score": round(float(score["score"]), 4),
                "commits": int(touched),
                "last": int(score["last"]),
            },
        }
        return bounded(folder or ".", symbols, limit, max_chars, extra)

    # ------------------------------------------------------------ types and changes

    def hierarchy(
        self,
        name: str,
        direction: str = "both",
        depth: int = 5,
        file: str | None = None,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Answer:
        """The type hierarchy of ``name``: its ancestors (up: bases, implemented interfaces,
        embedded types, traits) and descendants (down), each edge with its file and line and
        whether the base resolved in the repository. A type the repository does not define
        (``abc.ABC``, ``fmt.Stringer``) has descendants only."""
        self._require_index()
        hierarchy.check(direction, depth)
        try:
            targets = [(t["file"], t["qualname"]) for t in self._targets(name, file)]
        except NotFound:
            targets = []
        items: list[dict[str, Any]] = []
        if targets:
            if direction in ("up", "both"):
                items += hierarchy.walk(self.store, targets, "up", depth)
            if direction in ("down", "both"):
                items += hierarchy.walk(self.store, targets, "down", depth)
        else:
            rows = (
                [] if file or direction == "up" else hierarchy.external_children(self.store, name)
            )
            if not rows:
                raise NotFound(
                    f"no type named {name!r}"
                    + (f" in {file}" if file else "")
                    + " (neither defined in the repository nor an external base of one)"
                )
            items = [hierarchy.edge_record(r, "down", 1) for r in rows]
            nxt = sorted({(r["child_path"], r["child_qualname"]) for r in rows if r["child_path"]})
            if depth > 1 and nxt:
                items += [
                    {**e, "depth": e["depth"] + 1}
                    for e in hierarchy.walk(self.store, nxt, "down", depth - 1)
                ]
        extra = {
            "targets": [f"{p}:{q}" for p, q in targets],
            "external": not targets,
            "direction": direction,
            "depth": depth,
        }
        return bounded(name, items, limit, max_chars, extra)

    def changes(
        self,
        since: datetime | None = None,
        path: str | None = None,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
        by: str = "recent",
    ) -> Answer:
        """The definitions git commits changed since ``since`` (default: 30 days ago), under
        ``path`` (a file or folder) when given: how often, and the last commit and date, most
        recent first (``by="count"``: most often first)."""
        self._require_index()
        recency.order([], by)
        start = since or datetime.now(UTC) - timedelta(days=30)
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        prefix = ""
        if path:
            folder = self.folder_path(path)
            prefix = folder if folder is not None else self.module_path(path)
        commits = recency.read_commits(self.root, int(start.timestamp()), prefix)
        tallies = recency.tally(self.root, commits, self._blob_defs)
        alive = {(r[0], r[1]) for r in self.store.query("SELECT path, qualname FROM symbols")}
        records = [t.to_record(key in alive) for key, t in tallies.items()]
        extra = {
            "since": start.isoformat(timespec="seconds"),
            "path": prefix or None,
            "by": by,
            "commits": len(commits),
            "commits_truncated": len(commits) >= recency.MAX_COMMITS,
        }
        return bounded("changes", recency.order(records, by), limit, max_chars, extra)

    def dependency_path(
        self, source: str, target: str, max_chars: int = DEFAULT_MAX_CHARS
    ) -> Answer:
        """The shortest import chain from one module to another (empty when none)."""
        self._require_index()
        start, goal = self.module_path(source), self.module_path(target)
        edges = self._import_graph()
        before: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue and goal not in before:
            cur = queue.popleft()
            for nxt in edges.get(cur, ()):
                if nxt not in before:
                    before[nxt] = cur
                    queue.append(nxt)
        chain: list[str] = []
        if goal in before:
            node: str | None = goal
            while node is not None:
                chain.append(node)
                node = before[node]
            chain.reverse()
        items = [{"step": i, "file": f} for i, f in enumerate(chain)]
        answer = bounded(
            f"{start} -> {goal}",
            items,
            max(1, len(items)),
            max_chars,
            {"found": bool(chain), "hops": max(0, len(chain) - 1)},
        )
        return answer

    # ------------------------------------------------------------ routes

    def routes(self) -> list[dict[str, Any]]:
        """Every route of the graph, its prefixes joined."""
        return [_route(r) for r in self._route_rows()]

    def _import_graph(self) -> dict[str, list[str]]:
        """File -> the files it imports (sorted), kept until the graph is written again."""
        stamp = self.store.get_meta("indexed_at")
        if self._deps_cache is None or self._deps_cache[0] != stamp:
            edges: dict[str, list[str]] = {}
            for row in self.store.query("SELECT DISTINCT path, target FROM deps ORDER BY 1, 2"):
                edges.setdefault(row[0], []).append(row[1])
            self._deps_cache = (stamp, edges)
        return self._deps_cache[1]

    def _route_rows(self) -> list[Any]:
        """The route rows, kept until the graph is written again (find-route runs often)."""
        return self._route_index()[0]

    def _route_index(self) -> tuple[list[Any], dict[str, list[Any]], list[Any]]:
        """(all rows, rows by their literal first segment, rows starting with a parameter or
        a regex): a request path is only matched against the rows that can match it."""
        stamp = self.store.get_meta("indexed_at")
        if self._routes_cache is None or self._routes_cache[0] != stamp:
            rows = self.store.query("SELECT * FROM routes ORDER BY pattern")
            by_head: dict[str, list[Any]] = {}
            other: list[Any] = []
            for row in rows:
                head = _head(row["pattern"])
                (other if head is None else by_head.setdefault(head, [])).append(row)
            self._routes_cache = (stamp, (rows, by_head, other))
        return self._routes_cache[1]

    def find_route(
        self,
        path: str,
        method: str | None = None,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Answer:
        """Routes whose pattern matches a concrete request path (most specific first); a
        pattern given as written (``/users/{id}``) matches itself too."""
        self._require_index()
        wanted = {method.upper(), "ANY"} if method else None
        _, by_head, other = self._route_index()
        head = path.strip("/").split("/", 1)[0]
        items = []
        for row in [*by_head.get(head, []), *other]:
            params = match(row["pattern"], path)
            if params is None and row["pattern"] != path:
                continue
            if wanted and not (wanted & set(row["methods"].split(","))):
                continue
            items.append({**_route(row), "params": params or {}})
        items.sort(key=lambda r: -specificity(r["pattern"]))
        return bounded(path, items, limit, max_chars)


ENTRY_FILES = frozenset(
    {
        "__init__.py",
        "index.js",
        "index.ts",
        "index.tsx",
        "index.jsx",
        "index.mjs",
        "index.cjs",
        "doc.go",
        "mod.rs",
        "lib.rs",
        "main.rs",
        "package-info.java",
    }
)


ESCAPE = "ESCAPE '\\'"


def _under(folder: str) -> str:
    """A LIKE pattern for the paths beneath ``folder`` (every path for the root)."""
    if not folder:
        return "%"
    return folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"


def _is_entry(path: str, folder: str) -> bool:
    """The file that stands for a folder: ``__init__.py``, ``index.js``, ``mod.rs``, ..."""
    parent, _, base = path.rpartition("/")
    return parent == folder and base in ENTRY_FILES


def _summary(doc: str) -> str:
    return str(doc).strip().split("\n\n")[0].strip()


def _relative_import(module: str) -> bool:
    """An import written relative to its file (``./x``, ``.mod``, ``self::x``) that did not
    resolve: a missing file of the repository, not an external dependency."""
    return module.startswith((".", "self::", "super::", "crate::"))


def _head(pattern: str) -> str | None:
    """A pattern's first path segment when it is literal (None: a parameter, a regex)."""
    if pattern.startswith("re:"):
        return None
    head = pattern.strip("/").split("/", 1)[0]
    return None if any(c in head for c in "<{:*") else head


def _symbol(r: Any) -> dict[str, Any]:
    return {
        "name": r["name"],
        "qualname": r["qualname"],
        "kind": r["kind"],
        "file": r["path"],
        "line": r["line"],
        "end_line": r["end_line"],
        "signature": r["signature"],
        "docstring": r["docstring"],
        "exported": bool(r["exported"]),
    }


def _call(r: Any) -> dict[str, Any]:
    return {
        "file": r["path"],
        "line": r["line"],
        "column": r["col"],
        "caller": r["caller"],
        "callee": r["callee"],
        "context": r["context"],
        "target": f"{r['target_path']}:{r['target_qualname']}" if r["target_path"] else None,
        "confidence": r["confidence"],
        "resolution": r["resolution"],
    }


def _route(r: Any) -> dict[str, Any]:
    return {
        "pattern": r["pattern"],
        "methods": r["methods"].split(","),
        "handler": r["handler"],
        "handler_file": r["handler_path"] or None,
        "handler_qualname": r["handler_qualname"] or None,
        "file": r["path"],
        "line": r["line"],
        "framework": r["framework"],
        "middleware": json.loads(r["middleware"]),
        "websocket": bool(r["websocket"]),
    }


@dataclass
class _Opened:
    graph: CodeGraph
    # (st_dev, st_ino) of the graph file when it was opened; the open file keeps its inode
    # from being reused, so a file rebuilt at the same path always differs
    identity: tuple[int, int]


class OpenGraphs:
    """Graphs kept open across queries, for a process answering many (the MCP server): a
    path's repository is located once (``git rev-parse`` is two processes), and each ``get``
    checks with one ``stat`` that the graph file is still the one opened. A graph written in
    place is read as it is now (SQLite); one deleted and rebuilt as a new file is reopened; a
    removed one is NotFound; a ``.git`` appearing between the path and its cached root (a
    nested repository) sends the path through ``locate`` again. Not thread-safe: callers
    serialise (the MCP tools hold a lock)."""

    def __init__(self) -> None:
        self._roots: dict[Path, Path] = {}  # a resolved directory -> its work-tree root
        self._graphs: dict[Path, _Opened] = {}  # a work-tree root -> its open graph

    def get(self, path: str | Path) -> CodeGraph:
        """The graph of the repository at ``path`` (never created: NotFound if not indexed)."""
        target = Path(path).resolve()
        root = self._roots.get(target)
        if root is not None and root in self._graphs and not _nested(target, root):
            opened = self._graphs[root]
            if _identity(opened.graph.db_path) == opened.identity:
                return opened.graph
        return self._reopen(path, target)

    def _reopen(self, path: str | Path, target: Path) -> CodeGraph:
        self._roots.pop(target, None)
        root, db_path = locate(path)
        identity = _identity(db_path)
        held = self._graphs.get(root)
        if held is not None and (held.identity, held.graph.db_path) == (identity, db_path):
            self._roots[target] = root  # another path into a repository already open
            return held.graph
        if held is not None:
            held.graph.close()
            del self._graphs[root]
        if identity is None:
            raise NotFound(f"{root} has no code graph yet; run `clawql code index`")
        graph = CodeGraph(root, db_path)
        self._roots[target] = root
        self._graphs[root] = _Opened(graph, identity)
        return graph

    def close(self) -> None:
        for opened in self._graphs.values():
            opened.graph.close()
        self._graphs.clear()
        self._roots.clear()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _nested(target: Path, root: Path) -> bool:
    """Whether a directory from ``target`` up to (not including) ``root`` holds a ``.git``."""
    below = [target, *target.parents]
    return any((d / ".git").exists() for d in below[: below.index(root)]) if root in below else True


def _container(qualname: str, names: dict[str, str]) -> str | None:
    """The nearest of ``names`` that contains ``qualname`` (``A.B`` for ``A.B.f``), if any."""
    parts = qualname.split(".")
    for n in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in names:
            return prefix
    return None
