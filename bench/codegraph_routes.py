"""Route declarations found, against a reading of the source with Python's ``ast``: every
``@<obj>.route/get/post/.../websocket/api_route("/path")`` decorator, every
``add_url_rule("/path", ...)``, ``add_api_route("/path", ...)`` and
``add_api_websocket_route(...)`` call, and every ``path()/re_path()`` in a Django
``urlpatterns``. Compared by (file, line) with the declarations in the code graph's route map.

    PYTHONPATH=. python bench/codegraph_routes.py [REPO ...]   (flask and fastapi by default)

Goal: at least 98% of the declarations found.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

DECORATORS = {
    "route",
    "get",
    "post",
    "put",
    "delete",
    "patch",
    "head",
    "options",
    "trace",
    "websocket",
    "websocket_route",
    "api_route",
}
CALLS = {
    "add_url_rule",
    "add_api_route",
    "add_api_websocket_route",
    "add_route",
    "add_websocket_route",
}


def _path_arg(call: ast.Call, names: tuple[str, ...]) -> str | None:
    node = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg in names), None)
    )
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def declarations(root: Path) -> set[tuple[str, int]]:
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    out: set[tuple[str, int]] = set()
    for f in files:
        if any(p in ("vendor", "node_modules") for p in f.split("/")):
            continue
        try:
            tree = ast.parse((root / f).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in node.decorator_list:
                    if (
                        isinstance(deco, ast.Call)
                        and isinstance(deco.func, ast.Attribute)
                        and deco.func.attr in DECORATORS
                    ):
                        path = _path_arg(deco, ("rule", "path"))
                        if path is not None and (path == "" or path.startswith("/")):
                            out.add((f, deco.lineno))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CALLS
            ):
                path = _path_arg(node, ("rule", "path"))
                if path is not None and (path == "" or path.startswith("/")):
                    has_view = len(node.args) > 1 or any(
                        k.arg in ("view_func", "endpoint") for k in node.keywords
                    )
                    if has_view:
                        out.add((f, node.lineno))
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "urlpatterns" for t in node.targets
            ):
                for call in ast.walk(node.value):
                    if (
                        isinstance(call, ast.Call)
                        and isinstance(call.func, ast.Name)
                        and call.func.id in ("path", "re_path", "url")
                        and len(call.args) > 1
                    ):
                        out.add((f, call.lineno))
    return out


def ours(root: Path) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    from clawql_git.codegraph.graph import CodeGraph

    graph = CodeGraph.open(root)
    graph.index(history=False)
    found = {(r[0], r[1]) for r in graph.store.query("SELECT path, line FROM routes")}
    mounts = {(f.path, m.line) for f in graph.store.facts().values() for m in f.mounts}
    return found, mounts  # a Django include() is a mount, not a route


def main(argv: list[str]) -> None:
    repos = [Path(a) for a in argv] or [
        Path("/work/bench-repos/flask"),
        Path("/work/bench-repos/fastapi"),
    ]
    print(f"{'repo':10} {'declared':>9} {'found':>7} {'found %':>8} {'not in ast reading':>19}")
    for root in repos:
        truth = declarations(root)
        routes, mounts = ours(root)
        found = routes | mounts
        hit = truth & found
        print(
            f"{root.name:10} {len(truth):9d} {len(hit):7d} "
            f"{100 * len(hit) / max(1, len(truth)):7.2f}% {len(routes - truth):19d}"
        )
        for miss in sorted(truth - found)[:10]:
            print("   missed", miss)
    print("goal: >= 98% of declarations found")


if __name__ == "__main__":
    main(sys.argv[1:])
