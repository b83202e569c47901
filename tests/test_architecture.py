"""The import boundaries of clawql_git, read from the AST of every module.

Every import of the package's own modules counts: top-level ones, the ones inside functions
(the lazy imports that keep ``clawql --help`` fast), the ones under ``TYPE_CHECKING`` and
``importlib.import_module("clawql_git....")`` with a literal name. The checker is a function
of the package root, so the tests of the test run it on a copy with one planted violation.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "clawql_git"

RANK: dict[str, int] = {
    "errors": 0,
    "config": 1,
    "codegraph": 1,
    "onyx": 1,
    "model": 2,
    "llm": 2,
    "links": 3,
    "gitstore": 3,
    "catalog": 4,
    "ontology": 4,
    "audit": 5,
    "index": 5,
    "recall": 6,
    "distill": 6,
    "vault": 7,
    "review": 8,
    "team": 8,
    "workspace": 8,
    "sync": 8,
    "cli": 9,
    "mcp": 9,
}
"""The layers of clawql_git, bottom (0) to top, keyed by the first name under ``clawql_git``
(``errors`` is ``clawql_git/errors.py``, ``vault`` is ``clawql_git/vault/``).

A module may import its own package and any package of its rank or below, never one above:
``model`` (2) may use ``errors`` and ``config``, ``vault`` (7) everything under it, and the
four services of rank 8 (review, team, workspace, sync) the vault and each other (there are
no circles anyway). ``cli`` and ``mcp`` (9) are the adapters: they share a rank but never
import each other, and nothing else imports them.

``codegraph`` stands beside the stack: it imports nothing of ours but ``errors``
(:data:`ONLY`), and what sits above it may use it. The root ``clawql_git/__init__.py``
(lazy re-exports of the public surface) and ``__main__.py`` are exempt as importers; the
root package counts as rank 9 when imported, since it re-exports the vault facade: only an
adapter may import it. A package missing from this table is a violation, so the table stays
the whole statement of the layers.
"""

ONLY: dict[str, frozenset[str]] = {
    "codegraph": frozenset({"errors"}),
    "onyx": frozenset({"errors"}),  # the Onyx HTTP client: beside the stack, like codegraph
}
"""Layers that may import only the listed layers (and themselves), whatever their rank."""

ADAPTERS = frozenset({"cli", "mcp"})
EXEMPT = frozenset({"", "__main__"})  # the root package and ``python -m clawql_git``
ROOT_TARGET_RANK = 9
GIT_BINDING = "pygit2"
GIT_LAYER = "gitstore"


@dataclass(frozen=True)
class Edge:
    """One import of a module of the package: who, what (a module), which name, where."""

    importer: str
    target: str
    name: str | None
    where: str


@dataclass(frozen=True)
class Violation:
    """One broken rule, at ``where`` (``path:line``)."""

    where: str
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: [{self.rule}] {self.detail}"


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    rel: str
    is_package: bool


def modules_of(root: Path) -> dict[str, Module]:
    """Every module under the package directory ``root``, by dotted name."""
    out: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        rel = path.relative_to(root.parent).as_posix()
        out[".".join(parts)] = Module(".".join(parts), path, rel, is_package)
    return out


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.name.split(".")
    if not module.is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _existing(name: str, known: dict[str, Module]) -> str:
    """The longest prefix of ``name`` that is a module (``a.b.c`` of a name ``c`` in ``a.b``)."""
    parts = name.split(".")
    while len(parts) > 1 and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts)


def _literal_import_module(node: ast.Call) -> str | None:
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called != "import_module" or not node.args:
        return None
    arg = node.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def imports_of(module: Module, known: dict[str, Module]) -> Iterator[tuple[str, str | None, int]]:
    """(imported dotted name, the name taken from it or None, line) for every import."""
    for node in ast.walk(ast.parse(module.path.read_text(), module.rel)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                if candidate in known:
                    yield candidate, None, node.lineno
                else:
                    yield source, None if alias.name == "*" else alias.name, node.lineno
        elif isinstance(node, ast.Call) and (target := _literal_import_module(node)):
            yield target, None, node.lineno


def _ours(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def layer_of(name: str) -> str:
    """``clawql_git.vault.facade`` -> ``vault``; the root package -> ``''``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def collect(root: Path) -> tuple[list[Edge], list[Violation]]:
    """The edges between our modules, and the imports of the git binding outside gitstore."""
    known = modules_of(root)
    package = root.name
    edges: list[Edge] = []
    binding: list[Violation] = []
    for module in known.values():
        for name, taken, line in imports_of(module, known):
            where = f"{module.rel}:{line}"
            if _ours(name, package):
                edges.append(Edge(module.name, _existing(name, known), taken, where))
            elif name.split(".")[0] == GIT_BINDING and layer_of(module.name) != GIT_LAYER:
                binding.append(
                    Violation(where, "pygit2", f"{module.name} imports {name}; only gitstore may")
                )
    return edges, binding


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _counts_for_circles(edge: Edge, imported_back: set[tuple[str, str]]) -> bool:
    """A package's ``__init__`` re-exporting its own submodule is not a circle unless that
    submodule imports the package back."""
    if edge.importer == edge.target:
        return False
    own = edge.target.startswith(edge.importer + ".")
    return not own or (edge.target, edge.importer) in imported_back


def circles(edges: list[Edge]) -> list[Violation]:
    """One violation per import circle, listing every import inside it."""
    direct = {(e.importer, e.target) for e in edges}
    kept = [e for e in edges if _counts_for_circles(e, direct)]
    graph: dict[str, set[str]] = {}
    for e in kept:
        graph.setdefault(e.importer, set()).add(e.target)
        graph.setdefault(e.target, set())
    out = []
    for component in _strongly_connected(graph):
        members = set(component)
        inside = sorted(
            {(e.where, e.importer, e.target) for e in kept if {e.importer, e.target} <= members},
            key=lambda t: (t[0].rpartition(":")[0], int(t[0].rpartition(":")[2])),
        )
        listing = "; ".join(f"{a} -> {b} ({where})" for where, a, b in inside)
        detail = f"import circle between {', '.join(component)}: {listing}"
        out.append(Violation(inside[0][0], "circle", detail))
    return out


def private_imports(edges: list[Edge]) -> list[Violation]:
    """``from clawql_git.x import _y`` (a name, not a module) from another module."""
    return [
        Violation(e.where, "private", f"{e.importer} imports {e.name} from {e.target}")
        for e in edges
        if e.name
        and e.name.startswith("_")
        and not (e.name.startswith("__") and e.name.endswith("__"))
        and e.target != e.importer
    ]


def adapter_imports(edges: list[Edge]) -> list[Violation]:
    """The adapters never import each other; the library never imports an adapter."""
    out = []
    for e in edges:
        mine, theirs = layer_of(e.importer), layer_of(e.target)
        if theirs not in ADAPTERS or mine == theirs or mine == "__main__":
            continue
        who = "adapter" if mine in ADAPTERS else "library module"
        out.append(Violation(e.where, "adapter", f"{who} {e.importer} imports {e.target}"))
    return out


def _rank_of_target(layer: str) -> int | None:
    return ROOT_TARGET_RANK if layer == "" else RANK.get(layer)


def layer_imports(edges: list[Edge], known: dict[str, Module]) -> list[Violation]:
    """Per :data:`RANK` and :data:`ONLY`: no layer imports one above it."""
    out = [
        Violation(f"{m.rel}:1", "layer", f"{m.name}: package {layer_of(name)!r} is not in RANK")
        for name, m in known.items()
        if layer_of(name) not in EXEMPT and layer_of(name) not in RANK
    ]
    for e in edges:
        mine, theirs = layer_of(e.importer), layer_of(e.target)
        if mine in EXEMPT or mine not in RANK or mine == theirs:
            continue
        if mine in ONLY:
            if theirs not in ONLY[mine]:
                allowed = ", ".join(sorted(ONLY[mine]))
                detail = f"{e.importer} imports {e.target}; {mine} may import only {allowed}"
                out.append(Violation(e.where, "layer", detail))
            continue
        rank = _rank_of_target(theirs)
        if rank is not None and rank > RANK[mine]:
            detail = f"{e.importer} (rank {RANK[mine]}) imports {e.target} (rank {rank})"
            out.append(Violation(e.where, "layer", detail))
    return out


def check(root: Path) -> list[Violation]:
    """Every import-boundary violation in the package directory ``root``."""
    edges, binding = collect(root)
    found = [
        *circles(edges),
        *private_imports(edges),
        *binding,
        *adapter_imports(edges),
        *layer_imports(edges, modules_of(root)),
    ]
    return sorted(set(found), key=_place)


def _place(v: Violation) -> tuple[str, int, str, str]:
    path, _, line = v.where.rpartition(":")
    return path, int(line), v.rule, v.detail


def test_import_boundaries() -> None:
    violations = check(PACKAGE)
    assert not violations, f"{len(violations)} import-boundary violations:\n" + "\n".join(
        map(str, violations)
    )


# ---------------------------------------------------------------- the test of the test


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "clawql_git"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def plant(root: Path, files: dict[str, str]) -> set[Violation]:
    """The violations that planting ``files`` (new modules) adds to the copy at ``root``.
    New modules, so the lines of what is already there (and its violations) do not move."""
    before = set(check(root))
    for rel, text in files.items():
        (root / rel).write_text(text)
    return set(check(root)) - before


CIRCLE_A = "from clawql_git.model import planted_b\n"
CIRCLE_B = '"""b"""\n\n\ndef late() -> None:\n    from clawql_git.model.planted_a import x\n'


def test_checker_reports_a_circle_through_an_in_function_import(copy: Path) -> None:
    added = plant(copy, {"model/planted_a.py": CIRCLE_A, "model/planted_b.py": CIRCLE_B})
    assert [(v.rule, v.where) for v in added] == [("circle", "clawql_git/model/planted_a.py:1")]
    (v,) = added
    assert "clawql_git/model/planted_b.py:5" in v.detail


def test_checker_reports_a_private_import(copy: Path) -> None:
    added = plant(copy, {"recall/planted.py": "from clawql_git.model.entry import _hidden\n"})
    assert added == {
        Violation(
            "clawql_git/recall/planted.py:1",
            "private",
            "clawql_git.recall.planted imports _hidden from clawql_git.model.entry",
        )
    }


def test_checker_reports_pygit2_outside_gitstore(copy: Path) -> None:
    text = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import pygit2.enums\n"
    assert plant(copy, {"index/planted.py": text}) == {
        Violation(
            "clawql_git/index/planted.py:4",
            "pygit2",
            "clawql_git.index.planted imports pygit2.enums; only gitstore may",
        )
    }


def test_checker_reports_an_adapter_importing_the_other(copy: Path) -> None:
    text = "def run() -> None:\n    from clawql_git.mcp.server import build_server\n"
    assert plant(copy, {"cli/planted.py": text}) == {
        Violation(
            "clawql_git/cli/planted.py:2",
            "adapter",
            "adapter clawql_git.cli.planted imports clawql_git.mcp.server",
        )
    }


def test_checker_reports_the_library_importing_an_adapter(copy: Path) -> None:
    text = "import importlib\n\nimportlib.import_module('clawql_git.cli')\n"
    assert plant(copy, {"vault/planted.py": text}) == {
        Violation(
            "clawql_git/vault/planted.py:3",
            "adapter",
            "library module clawql_git.vault.planted imports clawql_git.cli",
        ),
        Violation(
            "clawql_git/vault/planted.py:3",
            "layer",
            "clawql_git.vault.planted (rank 7) imports clawql_git.cli (rank 9)",
        ),
    }


def test_checker_reports_a_layer_importing_one_above(copy: Path) -> None:
    text = "from clawql_git.vault.facade import Vault\n"
    assert plant(copy, {"model/planted.py": text}) == {
        Violation(
            "clawql_git/model/planted.py:1",
            "layer",
            "clawql_git.model.planted (rank 2) imports clawql_git.vault.facade (rank 7)",
        )
    }


def test_checker_keeps_codegraph_independent(copy: Path) -> None:
    text = "from clawql_git.errors import NotFound\nfrom clawql_git.vault.facade import Vault\n"
    assert plant(copy, {"codegraph/planted.py": text}) == {
        Violation(
            "clawql_git/codegraph/planted.py:2",
            "layer",
            "clawql_git.codegraph.planted imports clawql_git.vault.facade; "
            "codegraph may import only errors",
        )
    }


def test_checker_reports_a_package_missing_from_the_table(copy: Path) -> None:
    (copy / "plugins").mkdir()
    added = plant(copy, {"plugins/__init__.py": '"""plugins"""\n'})
    assert added == {
        Violation(
            "clawql_git/plugins/__init__.py:1",
            "layer",
            "clawql_git.plugins: package 'plugins' is not in RANK",
        )
    }


LAZY_INIT = (
    '"""re-exports"""\n\n\ndef __getattr__(name: str) -> object:\n'
    "    from clawql_git.links.planted import sub\n\n    return sub\n"
)


def test_checker_allows_a_package_lazily_reexporting_its_own_submodule(copy: Path) -> None:
    (copy / "links" / "planted").mkdir()
    sub = "from clawql_git.model.entry import Entry\n"
    files = {"links/planted/__init__.py": LAZY_INIT, "links/planted/sub.py": sub}
    assert plant(copy, files) == set()


def test_checker_reports_a_submodule_importing_its_package_back(copy: Path) -> None:
    (copy / "links" / "planted").mkdir()
    sub = "from clawql_git.links.planted import something\n"
    files = {"links/planted/__init__.py": LAZY_INIT, "links/planted/sub.py": sub}
    (v,) = plant(copy, files)
    assert (v.rule, v.where) == ("circle", "clawql_git/links/planted/__init__.py:5")
    assert "clawql_git/links/planted/sub.py:1" in v.detail
