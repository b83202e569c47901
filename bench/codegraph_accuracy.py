"""How far the code graph's Python call edges can be trusted, against a ground truth computed
independently with Python's ``ast`` and ``symtable`` on a real repository.

Ground truth (conservative: a call site is included only when its target is certain):

* definitions: every ``def``, ``async def`` and ``class`` at any depth, by dotted qualname;
* resolvable call sites: ``f(...)`` / ``a.b.f(...)`` whose head name is global in its scope
  (symtable) and bound once at module level to a definition of the file or to an import of a
  repository module (followed through re-exports), and ``self.m(...)`` in a method where ``m``
  is a ``def`` of the class body;
* external call sites: the head is bound to an import of a module outside the repository, or
  is an unbound builtin.

Printed: definitions found %, import-verifiable call edges pointing at the right definition %,
resolvable call sites found %, edges into external code (count).

    PYTHONPATH=. python bench/codegraph_accuracy.py [-v] [REPO ...]  (flask, fastapi by default)

Java, TypeScript and Go (javac, tsc and go/types as the reference, see codegraph_truth.py):

    PYTHONPATH=. python bench/codegraph_accuracy.py --java [jsoup|PATH] [--no-codegraph] [-v]
    PYTHONPATH=. python bench/codegraph_accuracy.py --ts [ky|PATH] [--no-codegraph] [-v]
    PYTHONPATH=. python bench/codegraph_accuracy.py --go [chi|PATH] [--no-codegraph] [-v]
"""

from __future__ import annotations

import ast
import builtins
import subprocess
import symtable
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BUILTINS = set(dir(builtins))
Target = tuple[str, str]  # (file, qualname)
Site = tuple[str, int, int, str]  # (file, line, col, dotted callee)


def py_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    skip = ("vendor/", "node_modules/")
    return sorted(p for p in out if not any(s in "/" + p for s in ("/" + x for x in skip)))


def module_names(files: list[str]) -> dict[str, list[str]]:
    """Dotted module name -> files (package roots: walk up while ``__init__.py`` exists)."""
    present = set(files)
    out: dict[str, list[str]] = {}
    for f in files:
        parts = f[:-3].split("/")
        dirs = parts[:-1]
        depth = 0
        while depth < len(dirs) and (
            "/".join(dirs[: len(dirs) - depth]) + "/__init__.py" in present
            or "/".join(dirs[: len(dirs) - depth - 1]) + "/__init__.py" in present
        ):
            depth += 1
        names = parts[len(parts) - depth - 1 :]
        if names[-1] == "__init__":
            names = names[:-1]
        if names:
            out.setdefault(".".join(names), []).append(f)
    return out


@dataclass
class ModuleInfo:
    path: str
    tree: ast.Module
    bindings: dict[str, list[tuple[str, object]]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)


class Truth:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = py_files(root)
        self.modules = module_names(self.files)
        self.info: dict[str, ModuleInfo] = {}
        self.defs: set[Target] = set()
        self.sites: dict[Site, Target] = {}
        self.external: set[Site] = set()
        for f in self.files:
            try:
                src = (root / f).read_text(encoding="utf-8")
                tree = ast.parse(src)
                table = symtable.symtable(src, f, "exec")
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            self.info[f] = self._module(f, tree)
            self._tables = {}
            self._index_tables(table)
            self._walk_defs(tree.body, "", f)
            self.info[f].tables = self._tables  # type: ignore[attr-defined]
        for info in self.info.values():
            self._calls(info)

    # ---------------------------------------------------------------- module bindings

    def _module(self, path: str, tree: ast.Module) -> ModuleInfo:
        info = ModuleInfo(path, tree)
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                info.bindings.setdefault(node.name, []).append(("def", node.name))
                if isinstance(node, ast.ClassDef):
                    info.classes[node.name] = node
            elif isinstance(node, ast.Import):
                for a in node.names:
                    name = a.asname or a.name.split(".")[0]
                    mod = a.name if a.asname else a.name.split(".")[0]
                    info.bindings.setdefault(name, []).append(("module", mod))
            elif isinstance(node, ast.ImportFrom):
                base = self._absolute(path, node.module or "", node.level)
                for a in node.names:
                    if a.name != "*":
                        info.bindings.setdefault(a.asname or a.name, []).append(
                            ("from", (base, a.name))
                        )
            else:
                for target in _assigned(node):
                    info.bindings.setdefault(target, []).append(("assign", None))
        return info

    def _absolute(self, path: str, module: str, level: int) -> str:
        """A relative import as a module key: "file:<path>" of the directory-based target."""
        if not level:
            return module
        parts = path.split("/")[:-1]
        parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
        return "dir:" + "/".join([*parts, *(module.split(".") if module else [])])

    def module_file(self, name: str, near: str) -> str | None:
        if name.startswith("dir:"):
            stem = name[4:].strip("/")
            for cand in (stem + ".py", stem + "/__init__.py"):
                if cand in self.info or cand in self.modules.get("", []):
                    return cand
            return None
        found = self.modules.get(name)
        if not found:
            return None
        return max(found, key=lambda f: len(_common(f, near)))

    def lookup(self, path: str, name: str, depth: int = 0) -> tuple[str, object] | None:
        """What a module-level name of ``path`` is: ("def", (file, qual)), ("mod", file),
        ("ext", name), or None when uncertain."""
        info = self.info.get(path)
        if info is None or depth > 10:
            return None
        bound = info.bindings.get(name)
        if not bound or len(bound) != 1:
            if not bound and path.endswith("__init__.py"):
                sub = self.module_file(self._absolute(path, name, 1), path)
                return ("mod", sub) if sub else None
            return None
        kind, value = bound[0]
        if kind == "def":
            return ("def", (path, name))
        if kind == "module":
            f = self.module_file(str(value), path)
            return ("mod", f) if f else ("ext", value)
        if kind == "from":
            base, attr = value  # type: ignore[misc]
            f = self.module_file(base, path)
            if f is None:
                sub = self.module_file(_sub(base, attr), path)
                return ("mod", sub) if sub else ("ext", base)
            got = self.lookup(f, attr, depth + 1)
            if got is None:
                sub = self.module_file(_sub(base, attr), path)
                return ("mod", sub) if sub else None
            return got
        return None

    def attr(self, entity: tuple[str, object], name: str) -> tuple[str, object] | None:
        kind, value = entity
        if kind == "mod":
            return self.lookup(str(value), name)
        if kind == "def":
            path, qual = value  # type: ignore[misc]
            klass = self.info[path].classes.get(qual)
            if klass is None:
                return None
            members = [
                n
                for n in klass.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.name == name
            ]
            return ("def", (path, f"{qual}.{name}")) if len(members) == 1 else None
        return entity if kind == "ext" else None

    # ---------------------------------------------------------------- defs and calls

    def _index_tables(self, table: symtable.SymbolTable) -> None:
        self._tables[(table.get_type(), table.get_name(), table.get_lineno())] = table
        for child in table.get_children():
            self._index_tables(child)

    def _walk_defs(self, body: list[ast.stmt], prefix: str, path: str) -> None:
        stack: list[tuple[ast.AST, str]] = [(n, prefix) for n in body]
        while stack:
            node, pre = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{pre}.{node.name}" if pre else node.name
                self.defs.add((path, qual))
                stack.extend((c, qual) for c in node.body)
                continue
            stack.extend((c, pre) for c in ast.iter_child_nodes(node))

    def _calls(self, info: ModuleInfo) -> None:
        tables = info.tables  # type: ignore[attr-defined]
        module_table = next(t for t in tables.values() if _kind(t) == "module")
        self._visit(info, info.tree.body, module_table, tables, None)

    def _visit(
        self,
        info: ModuleInfo,
        nodes: list[ast.AST],
        table: symtable.SymbolTable,
        tables: dict[object, symtable.SymbolTable],
        method: tuple[str, str] | None,
    ) -> None:
        """Calls under ``nodes`` in ``table``'s scope; function bodies get their own scope."""
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                outer: list[ast.AST] = []
                if not isinstance(node, ast.Lambda):
                    outer += node.decorator_list
                if isinstance(node, ast.ClassDef):
                    outer += node.bases + [k.value for k in node.keywords]
                else:
                    a = node.args
                    outer += a.defaults + [d for d in a.kw_defaults if d is not None]
                stack.extend(outer)
                inner = _table(tables, node)
                if inner is None:
                    continue
                self_method = None
                if (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and _kind(table) == "class"
                    and node.args.args
                ):
                    self_method = (table.get_name(), node.args.args[0].arg)
                body = node.body if isinstance(node.body, list) else [node.body]
                self._visit(
                    info,
                    body,
                    inner,
                    tables,
                    self_method if not isinstance(node, ast.Lambda) else method,
                )
                continue
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                inner = _table(tables, node)
                if inner is not None:
                    self._visit(info, list(ast.iter_child_nodes(node)), inner, tables, method)
                    continue
            if isinstance(node, ast.Call):
                self._site(info, node, table, method)
            stack.extend(ast.iter_child_nodes(node))

    def _site(
        self,
        info: ModuleInfo,
        call: ast.Call,
        table: symtable.SymbolTable,
        method: tuple[str, str] | None,
    ) -> None:
        dotted = _dotted(call.func)
        if dotted is None:
            return
        head, *rest = dotted.split(".")
        key = (info.path, call.lineno, call.col_offset, dotted)
        try:
            sym = table.lookup(head)
        except KeyError:
            sym = None
        if (
            method is not None
            and head == method[1]
            and len(rest) == 1
            and sym is not None
            and (sym.is_parameter())
        ):
            self._self_site(info, key, method[0], rest[0], table)
            return
        if sym is not None and (sym.is_local() or sym.is_free()) and _kind(table) != "module":
            return
        entity = self.lookup(info.path, head)
        if entity is None:
            if head not in info.bindings and head in BUILTINS:
                self.external.add(key)
            return
        for part in rest:
            if entity is None or entity[0] == "ext":
                break
            entity = self.attr(entity, part)
        if entity is None:
            return
        if entity[0] == "ext":
            self.external.add(key)
        elif entity[0] == "def":
            self.sites[key] = entity[1]  # type: ignore[assignment]

    def _self_site(
        self, info: ModuleInfo, key: Site, klass: str, name: str, table: symtable.SymbolTable
    ) -> None:
        """``self.name()``: the def in the class body, else up a chain of single repository
        bases (where the method resolution order is that chain)."""
        path, node = info.path, info.classes.get(klass)
        seen = 0
        while node is not None and seen < 10:
            seen += 1
            defs = [
                n
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
            ]
            assigned = any(
                isinstance(t, ast.Attribute) and t.attr == name
                for n in ast.walk(node)
                if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            )
            if assigned or len(defs) > 1:
                return
            if defs:
                self.sites[key] = (path, f"{node.name}.{name}")
                return
            if len(node.bases) != 1 or node.keywords:
                return
            base = _dotted(node.bases[0])
            if base is None:
                return
            head, *rest = base.split(".")
            entity = self.lookup(path, head)
            for part in rest:
                entity = self.attr(entity, part) if entity is not None else None
            if entity is None or entity[0] != "def":
                return
            path, qual = entity[1]  # type: ignore[misc]
            node = self.info[path].classes.get(qual)


def _table(
    tables: dict[object, symtable.SymbolTable], node: ast.AST
) -> symtable.SymbolTable | None:
    kind = {ast.ClassDef: "class", ast.Lambda: "function"}.get(type(node), "function")
    names = {
        ast.Lambda: "lambda",
        ast.ListComp: "listcomp",
        ast.SetComp: "setcomp",
        ast.DictComp: "dictcomp",
        ast.GeneratorExp: "genexpr",
    }
    name = names.get(type(node), getattr(node, "name", ""))
    line = node.lineno
    if (
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.decorator_list
    ):
        line = node.decorator_list[0].lineno
    for (t, n, lineno), table in tables.items():
        if (
            n == name
            and lineno in (node.lineno, line)
            and str(getattr(t, "value", t))
            in (kind, "function", "class", "annotation", "type parameters")
        ):
            return table
    return None


def _sub(base: str, attr: str) -> str:
    return f"{base}/{attr}" if base.startswith("dir:") else f"{base}.{attr}"


def _kind(table: symtable.SymbolTable) -> str:
    t = table.get_type()
    return str(getattr(t, "value", t))


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            inner = list(node.body) + list(getattr(node, "orelse", []))
            for handler in getattr(node, "handlers", []):
                inner += handler.body
            inner += list(getattr(node, "finalbody", []))
            out += _top_level(inner)
    return out


def _assigned(node: ast.stmt) -> list[str]:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    names: list[str] = []
    for t in targets:
        names += [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _common(a: str, b: str) -> list[str]:
    out = []
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        out.append(x)
    return out


def ours(root: Path) -> tuple[set[Target], dict[Site, tuple[str, str, str]], float]:
    from clawql_git.codegraph.graph import CodeGraph

    graph = CodeGraph.open(root)
    start = time.perf_counter()
    graph.index(history=False)
    seconds = time.perf_counter() - start
    defs = {
        (r[0], r[1])
        for r in graph.store.query(
            "SELECT path, qualname FROM symbols WHERE kind IN ('function','method','class')"
        )
    }
    edges = {
        (r[0], r[1], r[2], r[3]): (r[4], r[5], r[6])
        for r in graph.store.query(
            "SELECT path, line, col, callee, target_path, target_qualname, resolution FROM calls"
        )
    }
    return defs, edges, seconds


CODEGRAPH_BIN = Path("/work/bench-tools/node_modules/.bin/codegraph")


def theirs(root: Path, truth: Truth) -> dict[str, float] | str:
    """The same figures for @colbymchenry/codegraph, from its SQLite index of a shared clone
    (its call edges matched to ground-truth sites by file, line and callee name)."""
    import os
    import shutil
    import sqlite3
    import tempfile

    if not CODEGRAPH_BIN.exists():
        return f"codegraph not installed at {CODEGRAPH_BIN}"
    work = Path(tempfile.mkdtemp(prefix="cg-acc-")) / root.name
    try:
        subprocess.run(["git", "clone", "-q", "--shared", str(root), str(work)], check=True)
        env = {**os.environ, "CODEGRAPH_TELEMETRY": "0"}
        done = subprocess.run(
            [str(CODEGRAPH_BIN), "init", "-y", str(work)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        db_path = work / ".codegraph" / "codegraph.db"
        if done.returncode != 0 or not db_path.exists():
            return f"codegraph init failed: {done.stderr.strip()[-200:]}"
        db = sqlite3.connect(db_path)
        defs = {
            (f, q.replace("::", "."))
            for f, q in db.execute(
                "SELECT file_path, qualified_name FROM nodes WHERE kind IN "
                "('function','method','class')"
            )
        }
        calls: dict[tuple[str, int, str], set[tuple[str, str]]] = {}
        for sf, line, name, tq, tf in db.execute(
            "SELECT s.file_path, e.line, t.name, t.qualified_name, t.file_path FROM edges e "
            "JOIN nodes s ON s.id=e.source JOIN nodes t ON t.id=e.target "
            "WHERE e.kind IN ('calls','instantiates')"
        ):
            calls.setdefault((sf, line, name), set()).add((tf, tq.replace("::", ".")))
        db.close()
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)

    def at(site: Site) -> set[tuple[str, str]]:
        return calls.get((site[0], site[1], site[3].rsplit(".", 1)[-1]), set())

    def same(a: tuple[str, str], b: Target) -> bool:
        return a[0] == b[0] and (a[1] == b[1] or b[1].endswith("." + a[1]))

    resolved = {s: at(s) for s in truth.sites if at(s)}
    right = sum(1 for s, ts in resolved.items() if any(same(t, truth.sites[s]) for t in ts))
    return {
        "definitions_found_pct": 100 * len(truth.defs & defs) / max(1, len(truth.defs)),
        "right_pct": 100 * right / max(1, len(resolved)),
        "found_pct": 100 * len(resolved) / max(1, len(truth.sites)),
        "edges_into_external": sum(1 for s in truth.external if at(s)),
    }


def measure(root: Path, compare: bool = False) -> dict[str, float]:
    truth = Truth(root)
    defs, edges, seconds = ours(root)
    found_defs = len(truth.defs & defs) / max(1, len(truth.defs))
    resolved = {s: edges[s] for s in truth.sites if s in edges and edges[s][0]}
    right = sum(1 for s, e in resolved.items() if (e[0], e[1]) == truth.sites[s])
    into_repo = [s for s in truth.external if s in edges and edges[s][0]]
    return {
        "files": len(truth.info),
        "definitions": len(truth.defs),
        "definitions_found_pct": 100 * found_defs,
        "resolvable_sites": len(truth.sites),
        "edges_at_resolvable_sites": len(resolved),
        "right_pct": 100 * right / max(1, len(resolved)),
        "found_pct": 100 * len(resolved) / max(1, len(truth.sites)),
        "right_of_all_pct": 100 * right / max(1, len(truth.sites)),
        "external_sites": len(truth.external),
        "edges_into_external": len(into_repo),
        "index_seconds": seconds,
        "_wrong": [
            (s, edges[s], truth.sites[s])
            for s in resolved
            if (edges[s][0], edges[s][1]) != truth.sites[s]
        ][:15],  # type: ignore[dict-item]
        "_missed": [(s, edges.get(s), truth.sites[s]) for s in truth.sites if s not in resolved][
            :15
        ],  # type: ignore[dict-item]
        "_external": into_repo[:10],  # type: ignore[dict-item]
        "_codegraph": theirs(root, truth) if compare else None,  # type: ignore[dict-item]
    }


def _row(name: str, m: dict[str, float], sites: str, ext: str, tool: str) -> str:
    return (
        f"{name:10} {m['definitions_found_pct']:9.2f}% {m['right_pct']:7.2f}% "
        f"{m['found_pct']:7.2f}% {int(m['edges_into_external']):9d} {sites:>9} {ext:>7}  {tool}"
    )


def main(argv: list[str]) -> None:
    if "--java" in argv or "--ts" in argv or "--go" in argv:
        import codegraph_truth as truth

        lang = truth.JAVA if "--java" in argv else truth.GO if "--go" in argv else truth.TS
        truth.main([a for a in argv if a not in ("--java", "--ts", "--go")], lang)
        return
    verbose = "-v" in argv
    compare = "--no-codegraph" not in argv
    repos = [Path(a) for a in argv if not a.startswith("-")] or [
        Path("/work/bench-repos/flask"),
        Path("/work/bench-repos/fastapi"),
    ]
    print(
        f"{'repo':10} {'defs found':>10} {'right':>8} {'found':>8} {'external':>9} "
        f"{'GT sites':>9} {'GT ext':>7}  tool"
    )
    for root in repos:
        m = measure(root, compare)
        sites, ext = str(int(m["resolvable_sites"])), str(int(m["external_sites"]))
        print(_row(root.name, m, sites, ext, "clawql"))
        other = m["_codegraph"]
        if isinstance(other, dict):
            print(_row("", other, "", "", "codegraph 1.6.1"))
        elif other:
            print(f"{'':10} codegraph: {other}")
        if verbose:
            for key in ("_wrong", "_missed", "_external"):
                print(key)
                for row in m[key]:  # type: ignore[attr-defined]
                    print("   ", row)
    print("goals: defs 100%, right >= 97%, found >= 95%, external 0")


if __name__ == "__main__":
    main(sys.argv[1:])
