"""Routes that frameworks derive from file paths: Next.js (App Router and Pages Router) and
SvelteKit. They are computed over the whole set of indexed files, as the frameworks do.

Next.js App Router (a folder ``app/`` or ``src/app/``): ``page.{js,jsx,ts,tsx,mdx}`` is a GET
page handled by its default export; ``route.{js,ts}`` handles the HTTP methods it exports
(``export async function GET``). Route groups ``(marketing)`` and slots ``@modal`` are not part
of the path; ``_private`` folders and intercepting ``(.)x`` folders are not routes.
Pages Router (``pages/`` or ``src/pages/`` beside a ``next.config.*``): every page file but
``_app``/``_document``/``_error``, ``index`` being its folder; ``pages/api/**`` are API routes
(ANY, the default export).
SvelteKit (``src/routes/``): ``+page.svelte`` / ``+page.{js,ts}`` / ``+page.server.{js,ts}``
give one GET page per folder (POST too when ``+page.server`` exports ``actions``); ``+server.
{js,ts}`` handles the methods it exports; groups ``(app)`` are not part of the path.

Dynamic segments become the route map's parameters: ``[id]`` -> ``:id``, ``[...rest]`` and
``[[...rest]]`` -> ``{rest:path}``, SvelteKit's ``[[lang]]`` -> ``:lang`` and ``[id=integer]``
-> ``:id``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from clawql_git.codegraph.model import FileFacts, Route

VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_PAGE = re.compile(r"^page\.(?:jsx?|tsx?|mdx)$")
_ROUTE = re.compile(r"^route\.(?:js|ts)$")
_SCRIPT = re.compile(r"\.(?:jsx?|tsx?|mdx)$")
_NEXT_CONFIG = re.compile(r"(?:^|/)next\.config\.(?:js|mjs|cjs|ts)$")
_KIT = {
    "+page.svelte": "page",
    "+page.js": "page",
    "+page.ts": "page",
    "+page.server.js": "server-page",
    "+page.server.ts": "server-page",
    "+server.js": "endpoint",
    "+server.ts": "endpoint",
}
_CATCH_ALL = re.compile(r"^\[\[?\.\.\.(\w+)\]\]?$")
_PARAM = re.compile(r"^\[\[?(\w+)(?:=\w+)?\]\]?$")


def file_routes(files: Mapping[str, FileFacts]) -> dict[str, list[Route]]:
    """File -> the routes its path declares (owner '': no prefix is joined)."""
    out: dict[str, list[Route]] = {}
    next_roots = {posixpath.dirname(p) for p in files if _NEXT_CONFIG.search(p)}
    kit_pages: dict[str, str] = {}  # route folder -> the file that stands for its page
    for path in sorted(files):
        routes = _next_app(path, files[path]) or _next_pages(path, files[path], next_roots)
        if routes:
            out[path] = routes
        elif _kit_kind(path):
            _sveltekit(path, files[path], out, kit_pages)
    return out


# ------------------------------------------------------------ Next.js


def _under(path: str, folder: str) -> tuple[str, list[str]] | None:
    """(the folder's parent, the segments below it) for the first ``folder`` in ``path``."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part == folder:
            return "/".join(parts[:i]), parts[i + 1 :]
    return None


def _pattern(segments: list[str]) -> str | None:
    """The route path of folder segments; None when one of them makes it no route."""
    out: list[str] = []
    for seg in segments:
        if seg.startswith("_") or seg.startswith("(."):
            return None
        if (seg.startswith("(") and seg.endswith(")")) or seg.startswith("@"):
            continue
        catch = _CATCH_ALL.match(seg)
        param = _PARAM.match(seg)
        out.append(
            f"{{{catch.group(1)}:path}}" if catch else f":{param.group(1)}" if param else seg
        )
    return "/" + "/".join(out)


def _exported(facts: FileFacts) -> list[str]:
    return [s.name for s in facts.symbols if s.exported and "." not in s.qualname]


def _default(facts: FileFacts) -> str:
    """The page component: the exported top-level function or class named in PascalCase."""
    for s in facts.symbols:
        top = s.exported and "." not in s.qualname
        if top and s.kind in {"function", "class"} and s.name[:1].isupper():
            return s.qualname
    return ""


def _next_app(path: str, facts: FileFacts) -> list[Route]:
    found = _under(path, "app")
    name = posixpath.basename(path)
    if found is None or not (_PAGE.match(name) or _ROUTE.match(name)):
        return []
    pattern = _pattern(found[1][:-1])
    if pattern is None:
        return []
    if _PAGE.match(name):
        return [_page(pattern, ("GET",), _default(facts), facts, "nextjs")]
    return _endpoint(pattern, facts, "nextjs")


def _page(
    pattern: str, verbs: tuple[str, ...], handler: str, facts: FileFacts, framework: str
) -> Route:
    """A route handled by ``handler`` (its line, or the file's first when none)."""
    return Route(pattern, verbs, handler, "", _line(facts, handler), framework)


def _endpoint(pattern: str, facts: FileFacts, framework: str) -> list[Route]:
    """One route per HTTP method the file exports as a function."""
    names = set(_exported(facts))
    return [
        Route(pattern, (verb,), verb, "", _line(facts, verb), framework)
        for verb in VERBS
        if verb in names
    ]


def _line(facts: FileFacts, name: str) -> int:
    return next((s.line for s in facts.symbols if s.qualname == name), 1)


def _next_pages(path: str, facts: FileFacts, roots: set[str]) -> list[Route]:
    found = _under(path, "pages")
    if found is None or not _SCRIPT.search(path):
        return []
    parent, segments = found
    if parent not in roots and posixpath.dirname(parent) not in roots:
        return []
    stem = _SCRIPT.sub("", segments[-1])
    if stem.startswith("_") or segments[0] == "_":
        return []
    folders = segments[:-1] + ([] if stem == "index" else [stem])
    pattern = _pattern(folders)
    if pattern is None:
        return []
    if segments[0] == "api":
        return [_page(pattern, ("ANY",), _default(facts) or _first(facts), facts, "nextjs")]
    return [_page(pattern, ("GET",), _default(facts), facts, "nextjs")]


def _first(facts: FileFacts) -> str:
    names = [s.qualname for s in facts.symbols if s.exported and s.kind == "function"]
    return names[0] if names else ""


# ------------------------------------------------------------ SvelteKit


def _kit_kind(path: str) -> str:
    return _KIT.get(posixpath.basename(path), "") if _under(path, "routes") else ""


def _sveltekit(
    path: str, facts: FileFacts, out: dict[str, list[Route]], pages: dict[str, str]
) -> None:
    found = _under(path, "routes")
    if found is None or not (found[0] == "src" or found[0].endswith("/src")):
        return
    kind = _kit_kind(path)
    pattern = _pattern(found[1][:-1])
    if pattern is None:
        return
    if kind == "endpoint":
        out[path] = _endpoint(pattern, facts, "sveltekit")
        return
    folder = posixpath.dirname(path)
    if folder not in pages:  # one GET page per folder, whichever of its files comes first
        pages[folder] = path
        handler = _default(facts) or ("load" if "load" in _exported(facts) else "")
        out.setdefault(path, []).append(_page(pattern, ("GET",), handler, facts, "sveltekit"))
    if kind == "server-page" and "actions" in _exported(facts):
        out.setdefault(path, []).append(
            Route(pattern, ("POST",), "actions", "", _line(facts, "actions"), "sveltekit")
        )
