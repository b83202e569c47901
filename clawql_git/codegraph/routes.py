"""The route map: route declarations joined with the prefixes of the routers they sit on
(Blueprint ``url_prefix``, ``include_router``, ``app.use``, Django ``include``), and matching a
concrete request path against the joined patterns."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from clawql_git.codegraph.file_routes import file_routes
from clawql_git.codegraph.model import Mount, RouterDef
from clawql_git.codegraph.resolve import DOTTED, ResolutionNotes, Resolver

Node = tuple[str, str]  # (file, variable) of a router/app object
MAX_MOUNT_DEPTH = 8
MAX_PREFIXES = 16


@dataclass(frozen=True)
class RouteRow:
    """One route with its full pattern (every prefix joined)."""

    pattern: str
    methods: tuple[str, ...]
    handler: str
    handler_path: str
    handler_qualname: str
    path: str
    line: int
    framework: str
    middleware: tuple[str, ...]
    websocket: bool

    def to_row(self) -> tuple[object, ...]:
        return (
            self.pattern,
            ",".join(self.methods),
            self.handler,
            self.handler_path,
            self.handler_qualname,
            self.path,
            self.line,
            self.framework,
            json.dumps(list(self.middleware)),
            int(self.websocket),
        )


class _Joiner:
    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.defs: dict[Node, RouterDef] = {}
        self.mounts: dict[Node, list[tuple[Node, Mount]]] = {}
        self._prefixes: dict[Node, list[tuple[str, tuple[str, ...]]]] = {}
        for path, idx in resolver.index.items():
            for rd in idx.facts.routers:
                self.defs.setdefault((path, rd.name), rd)
        for path, idx in resolver.index.items():
            for m in idx.facts.mounts:
                child = self.child(path, m)
                if child is not None:
                    self.mounts.setdefault(child, []).append((self.locate(path, m.parent), m))

    def child(self, path: str, m: Mount) -> Node | None:
        if m.framework == "django":
            if not DOTTED.match(m.child):
                return None
            files = self.resolver.module_files(path, m.child)
            return (files[0], "urlpatterns") if files else None
        return self.locate(path, m.child)

    def locate(self, path: str, dotted: str, depth: int = 0) -> Node:
        """The router object a name denotes: a definition here, or one reached by imports."""
        if depth > MAX_MOUNT_DEPTH or (path, dotted) in self.defs or not DOTTED.match(dotted):
            return (path, dotted)
        head, _, rest = dotted.partition(".")
        idx = self.resolver.index[path]
        imports = idx.imports.get(("", head))
        if not imports:
            return (path, dotted)
        imp = imports[-1]
        if imp.name:
            files = self.resolver.module_files(path, imp.module)
            sub = self.resolver.module_files(path, _join(imp.module, imp.name))
            for f in files:
                if (f, imp.name) in self.defs or ("", imp.name) in self.resolver.index[f].imports:
                    return self.locate(f, imp.name + ("." + rest if rest else ""), depth + 1)
                routers = self.resolver.index[f].facts.routers
                if imp.name == "default" and len(routers) == 1:  # export default router
                    return (f, routers[0].name)
            if sub and rest:
                return self.locate(sub[0], rest, depth + 1)
            return (files[0], imp.name) if files else (path, dotted)
        files = self.resolver.module_files(path, imp.module)
        if files and rest:
            return self.locate(files[0], rest, depth + 1)
        default = self.resolver.commonjs_default(files)
        if default and self.resolver.index[path].facts.language != "python":
            return self.locate(files[0], default, depth + 1)  # `r = require('./routes')`
        return (path, dotted)

    def _unused_default(self, node: Node) -> bool:
        """A module's ``default`` export that no importer mounts (the extractor mounts a
        default-exported router on it, for importers that mount 'default')."""
        return node[1] == "default" and node not in self.defs and not self.mounts.get(node)

    def prefixes(
        self, node: Node, path: frozenset[Node] = frozenset()
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Every full prefix of a router (one per chain of mounts up to a root), without
        cycles, at most MAX_PREFIXES of them (test suites mount one router in many ways)."""
        if not path and node in self._prefixes:
            return self._prefixes[node]
        rd = self.defs.get(node)
        own = rd.prefix if rd is not None else ""
        mounted = [(p, m) for p, m in self.mounts.get(node, []) if p not in path and p != node]
        live = [(p, m) for p, m in mounted if not self._unused_default(p)]
        mounted = live or mounted  # mounted by an importer: not also a root via its export
        if not mounted or len(path) > MAX_MOUNT_DEPTH:
            return [(own, ())]
        out: dict[tuple[str, tuple[str, ...]], None] = {}
        for parent, m in mounted:
            here = m.prefix if (m.framework == "flask" and m.prefix) else join(m.prefix, own)
            for pre, mids in self.prefixes(parent, path | {node}):
                out[(join(pre, here), mids + m.middleware)] = None
                if len(out) >= MAX_PREFIXES:
                    break
        result = list(out)[:MAX_PREFIXES]
        if not path:
            self._prefixes[node] = result
        return result


def _join(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"


def join(prefix: str, path: str) -> str:
    """Join two route parts; regex parts (``re:``) make the whole a regex."""
    if prefix.startswith("re:") or path.startswith("re:"):
        return "re:" + _as_regex(prefix) + _as_regex(path)
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix.rstrip("/") + "/" + path.lstrip("/")


def _as_regex(part: str) -> str:
    if part.startswith("re:"):
        return part[3:].lstrip("^").rstrip("$")
    return _PARAM.sub(
        lambda m: f"(?P<{_param_name(m)}>{_param_regex(m)})",
        re.escape(part)
        .replace(r"\<", "<")
        .replace(r"\>", ">")
        .replace(r"\{", "{")
        .replace(r"\}", "}")
        .replace(r"\:", ":"),
    )


def join_routes(resolver: Resolver) -> list[RouteRow]:
    """Every route of the repository with its prefixes joined."""
    joiner = _Joiner(resolver)
    out: list[RouteRow] = []
    by_path = file_routes({path: idx.facts for path, idx in resolver.index.items()})
    for path, idx in sorted(resolver.index.items()):
        for route in [*idx.facts.routes, *by_path.get(path, ())]:
            node = joiner.locate(path, route.owner) if route.owner else (path, "")
            rd = joiner.defs.get(node)
            framework = rd.framework if route.framework == "python" and rd else route.framework
            hpath, hqual = _handler(resolver, path, route.handler)
            for prefix, mids in joiner.prefixes(node):
                pattern = join(prefix, route.path)
                if not pattern.startswith(("re:", "/")):
                    pattern = "/" + pattern
                out.append(
                    RouteRow(
                        pattern or "/",
                        route.methods,
                        route.handler,
                        hpath,
                        hqual,
                        path,
                        route.line,
                        framework,
                        mids + route.middleware,
                        route.websocket,
                    )
                )
    return out


def _handler(resolver: Resolver, path: str, handler: str) -> tuple[str, str]:
    idx = resolver.index[path]
    if handler in idx.defs:
        return path, handler
    if DOTTED.match(handler):
        e = resolver.expression(path, "", handler, ResolutionNotes())
        if e[0] == "def":
            return e[1], e[2]
    return "", ""


# ------------------------------------------------------------ matching

_PARAM = re.compile(
    r"<(?:(?P<conv>\w+)(?:\([^)]*\))?:)?(?P<a>\w+)>|\{(?P<b>\w+)(?::(?P<bc>\w+))?\}"
    r"|:(?P<c>\w+)\??|\\\*"
)
_CONVERTERS = {"int": r"\d+", "float": r"[\d.]+", "path": r".+", "uuid": r"[0-9a-fA-F-]+"}


def _param_name(m: re.Match[str]) -> str:
    return m.group("a") or m.group("b") or m.group("c") or "wildcard"


def _param_regex(m: re.Match[str]) -> str:
    if m.group(0) == r"\*":
        return ".*"
    conv = m.group("conv") or m.group("bc") or ""
    return _CONVERTERS.get(conv, r"[^/]+")


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str] | None:
    """A route pattern as a regex over the request path (``/`` optional at the end)."""
    try:
        if pattern.startswith("re:"):
            body = pattern[3:].lstrip("^").rstrip("$").lstrip("/")
            return re.compile("^/?" + body + "/?$")
        body = _as_regex(pattern).rstrip("/")
        seen: set[str] = set()

        def dedupe(m: re.Match[str]) -> str:  # the same name twice is not a valid regex
            name = m.group(1)
            if name in seen:
                return "(?:"
            seen.add(name)
            return m.group(0)

        body = re.sub(r"\(\?P<(\w+)>", dedupe, body)
        return re.compile("^" + body + "/?$")
    except re.error:
        return None


def match(pattern: str, path: str) -> dict[str, str] | None:
    """The parameters of ``path`` under ``pattern``, or None when it does not match."""
    rx = compile_pattern(pattern)
    if rx is None:
        return None
    m = rx.match(path if path.startswith("/") or pattern.startswith("re:") else "/" + path)
    return None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}


def specificity(pattern: str) -> int:
    """How literal a pattern is: literal characters count, parameters do not."""
    return len(_PARAM.sub("", pattern))
