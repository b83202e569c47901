"""Python's module resolution over the repository's files: relative imports from the
importer's directory, absolute ones through dotted names whose package roots are found by
walking up ``__init__.py`` files (namespace subpackages inside a package included)."""

from __future__ import annotations

import posixpath
from typing import Any

from clawql_git.codegraph.model import RepoView


def resolve_python_module(importer: str, module: str, repo: RepoView) -> list[str]:
    """The file an import names ([] when it is not in the repository)."""
    if module.startswith("."):
        dots = len(module) - len(module.lstrip("."))
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        rest = module[dots:]
        stem = posixpath.join(base, *rest.split(".")) if rest else base
        return _module_file(stem, repo.files, bool(rest))
    names = module_map(repo)
    found = names.get(module)
    if not found:
        return []
    if len(found) == 1:
        return [found[0]]
    return [max(found, key=lambda f: _shared_prefix(f, importer))]


def _module_file(stem: str, files: frozenset[str], allow_plain: bool) -> list[str]:
    for candidate in ((stem + ".py", stem + ".pyi") if allow_plain else ()) + (
        posixpath.join(stem, "__init__.py"),
        posixpath.join(stem, "__init__.pyi"),
    ):
        candidate = candidate.lstrip("/") if candidate.startswith("/") else candidate
        if candidate.startswith("./"):
            candidate = candidate[2:]
        if candidate in files:
            return [candidate]
    return []


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def module_name(path: str, files: frozenset[str]) -> str:
    """The dotted name a file is imported as: its directories up to the first one without an
    ``__init__.py`` (the package root), then the file stem."""
    parts = path[: -len(posixpath.splitext(path)[1])].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    dirs = path.split("/")[:-1]
    depth = 0
    while depth < len(dirs):
        pkg = "/".join(dirs[: len(dirs) - depth])
        up = "/".join(dirs[: len(dirs) - depth - 1])
        # a directory without __init__ inside a package is a namespace subpackage
        if not _is_package(pkg, files) and not (up and _is_package(up, files)):
            break
        depth += 1
    keep = depth + (0 if path.endswith(("__init__.py", "__init__.pyi")) else 1)
    return ".".join(parts[len(parts) - keep :]) if keep else ""


def _is_package(folder: str, files: frozenset[str]) -> bool:
    return folder + "/__init__.py" in files or folder + "/__init__.pyi" in files


def module_map(repo: RepoView) -> dict[str, list[str]]:
    """Dotted module name -> files, computed once per repository view (kept on the view)."""
    cache: dict[str, Any] | None = getattr(repo, "cache", None)
    if cache is not None and "python_modules" in cache:
        result: dict[str, list[str]] = cache["python_modules"]
        return result
    out: dict[str, list[str]] = {}
    for path in repo.files:
        if path.endswith((".py", ".pyi")):
            name = module_name(path, repo.files)
            if name:
                out.setdefault(name, []).append(path)
    if cache is not None:
        cache["python_modules"] = out
    return out
