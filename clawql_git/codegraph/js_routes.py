"""Express and NestJS routes, seen from inside one JS/TS file during the extractor's walk.

Express apps and routers are recognised by their constructor, whatever the variable is
called: ``express()`` (an app), ``express.Router()`` / ``Router()`` imported from express
(a router), and parameters typed ``Router`` / ``Express`` / ``Application``. Each is a
:class:`RouterDef`; ``x.get/post/.../all(path, ...mw, handler)`` and
``x.route(path).get(h).post(h2)`` are :class:`Route` facts (one per method call, path
per path when an array is given, ``all`` kept as method 'ANY'), ``x.use([path,] ...)`` a
:class:`Mount` for every non-call argument (the resolver decides which one is a router;
the arguments before it are its middleware). Owners that are not known routers count in a
file that imports express when a path literal comes first and a handler after it, and in
any file when that handler is an inline ``(req, res) =>`` function.

NestJS: ``@Controller('cats')`` is a RouterDef named after the class (constructor
'Controller', prefix '/cats', rooted as Nest roots it; ``@Controller()`` -> '/');
``@Get(':id')`` and friends on methods are Routes owned by that class with handler
``CatsController.findOne``. ``@UseGuards`` / ``@UseInterceptors`` /
``@UsePipes`` / ``@UseFilters`` / ``@Version`` decorators (class first, then method) are
kept as the route's middleware, as written without the ``@``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, string_value, text

HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete", "del", "options", "head", "all"})
ROUTER_TYPES = frozenset({"Router", "Express", "Application", "IRouter"})
NEST_METHODS = {
    "Get": "GET",
    "Post": "POST",
    "Put": "PUT",
    "Patch": "PATCH",
    "Delete": "DELETE",
    "Options": "OPTIONS",
    "Head": "HEAD",
    "All": "ANY",
    "Sse": "GET",
}
NEST_MIDDLEWARE = frozenset({"UseGuards", "UseInterceptors", "UsePipes", "UseFilters", "Version"})
_NAMES = frozenset({"identifier", "this", "super", "property_identifier", "type_identifier"})


def callee_name(node: Node) -> str:
    """A JS callee as written: ``this.repo.find``, ``a.b().c``, ``x[]``."""
    kind = node.type
    if kind in _NAMES:
        return text(node)
    if kind == "member_expression":
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        return f"{callee_name(obj) if obj else ''}.{text(prop)}"
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        return f"{callee_name(fn)}()" if fn is not None else ""
    if kind in {"parenthesized_expression", "non_null_expression", "await_expression"}:
        inner = node.named_children
        return callee_name(inner[0]) if inner else ""
    if kind == "subscript_expression":
        obj = node.child_by_field_name("object")
        return f"{callee_name(obj)}[]" if obj is not None else ""
    return collapse(text(node), 80)


def arguments(node: Node | None) -> list[Node]:
    """The argument expressions of an ``arguments`` node, comments left out."""
    if node is None:
        return []
    return [c for c in node.named_children if c.type != "comment"]


def path_literals(node: Node) -> list[str] | None:
    """Route path(s) from a literal (a string, a regex, or an array of them), else None."""
    if node.type == "array":
        paths = [p for c in node.named_children for p in (path_literals(c) or [])]
        return paths or None
    if node.type == "regex":
        return [text(node)]
    value = string_value(node)
    return None if value is None else [value]


def decorator_parts(node: Node) -> tuple[str, list[Node]]:
    """``@Get(':id')`` -> ('Get', [the argument nodes]); ``@Injectable`` -> ('Injectable', [])."""
    expr = node.named_children[0] if node.named_children else None
    if expr is None:
        return "", []
    if expr.type == "call_expression":
        fn = expr.child_by_field_name("function")
        name = callee_name(fn) if fn is not None else ""
        return name, arguments(expr.child_by_field_name("arguments"))
    return callee_name(expr), []


def decorator_text(node: Node) -> str:
    """A decorator as written, without its ``@``, on one line."""
    return collapse(text(node).lstrip("@"))


def _takes_request(node: Node) -> bool:
    """An inline function of two or more parameters: ``(req, res) => ...``."""
    if node.type not in {"arrow_function", "function_expression", "function"}:
        return False
    params = node.child_by_field_name("parameters")
    return params is not None and len(params.named_children) >= 2


def _handler(node: Node) -> str:
    if node.type in {"arrow_function", "function_expression", "function"}:
        return "<anonymous>"
    if node.type in {"identifier", "member_expression"}:
        return callee_name(node)
    return collapse(text(node), 120)


@dataclass
class ExpressTracker:
    """Per-file state: which local names are express, its Router, and router variables."""

    facts: FileFacts
    express_names: set[str] = field(default_factory=lambda: {"express"})
    router_ctors: set[str] = field(default_factory=set)
    router_types: set[str] = field(default_factory=set)
    routers: set[str] = field(default_factory=set)
    imports_express: bool = False

    def note_import(self, module: str, name: str, alias: str) -> None:
        """Remember the local names bound to express and its Router."""
        if module != "express" or not alias:
            return
        self.imports_express = True
        if name in {"", "default"}:
            self.express_names.add(alias)
        elif name == "Router":
            self.router_ctors.add(alias)
        if name in ROUTER_TYPES:
            self.router_types.add(alias)

    def note_param(self, name: str, type_name: str) -> None:
        """A parameter typed as an express app or router is a router in its body."""
        last = type_name.rsplit(".", 1)[-1]
        if last in ROUTER_TYPES and (type_name in self.router_types or "." in type_name):
            self.routers.add(name)

    def constructor(self, value: Node) -> str:
        """The express constructor ``value`` calls ('express', 'express.Router'), else ''."""
        if value.type == "await_expression" and value.named_children:
            value = value.named_children[0]
        key = "function" if value.type == "call_expression" else "constructor"
        if value.type not in {"call_expression", "new_expression"}:
            return ""
        fn = value.child_by_field_name(key)
        callee = callee_name(fn) if fn is not None else ""
        head, _, tail = callee.rpartition(".")
        if callee in self.express_names or callee in self.router_ctors:
            return callee
        if tail == "Router" and head in self.express_names:
            return callee
        return ""

    def note_binding(self, target: str, value: Node) -> None:
        """``target = express()`` / ``express.Router()``: a RouterDef under any name."""
        ctor = self.constructor(value)
        if ctor:
            self.routers.add(target)
            self.facts.routers.append(RouterDef(target, ctor, "", line(value), "express"))

    def on_call(self, node: Node, fn: Node, args: list[Node]) -> None:
        """Route and mount registrations: ``x.get(...)``, ``x.route(p).post(...)``, ``x.use``."""
        if fn.type != "member_expression":
            return
        obj = fn.child_by_field_name("object")
        method = text(fn.child_by_field_name("property"))
        if obj is None:
            return
        if method in HTTP_METHODS:
            chained = self._route_base(obj)
            if chained is not None:
                self._add_routes(chained[0], [chained[1]], method, args, node)
            elif args and self._is_router(callee_name(obj), args):
                paths = path_literals(args[0])
                if paths is not None:
                    self._add_routes(callee_name(obj), paths, method, args[1:], node)
        elif method == "use" and self._is_router(callee_name(obj), None):
            self._add_mounts(callee_name(obj), args, node)

    def _is_router(self, owner: str, args: list[Node] | None) -> bool:
        """A known router; in an express file, anything called with a path and a handler;
        elsewhere (a module handed the app: ``module.exports = (app) => ...``) only with
        an inline ``(req, res) =>`` handler."""
        if owner in self.routers:
            return True
        if args is None:
            return self.imports_express
        paths = path_literals(args[0]) if len(args) >= 2 else None
        if not paths or not all(p[:1] in {"/", "*", "("} for p in paths):
            return False
        return self.imports_express or _takes_request(args[-1])

    def _route_base(self, obj: Node) -> tuple[str, str] | None:
        """(owner, path) when ``obj`` is ``owner.route(path)`` or a method chained on one."""
        while obj.type == "call_expression":
            fn = obj.child_by_field_name("function")
            if fn is None or fn.type != "member_expression":
                return None
            inner = fn.child_by_field_name("object")
            name = text(fn.child_by_field_name("property"))
            if name == "route" and inner is not None:
                args = arguments(obj.child_by_field_name("arguments"))
                paths = path_literals(args[0]) if args else None
                if paths:
                    return callee_name(inner), paths[0]
                return None
            if name not in HTTP_METHODS or inner is None:
                return None
            obj = inner
        return None

    def _add_routes(
        self, owner: str, paths: list[str], method: str, rest: list[Node], node: Node
    ) -> None:
        if not rest:
            return
        verb = {"del": "DELETE", "all": "ANY"}.get(method, method.upper())
        handler = _handler(rest[-1])
        middleware = tuple(collapse(text(a), 120) for a in rest[:-1])
        fn = node.child_by_field_name("function")
        prop = fn.child_by_field_name("property") if fn is not None else None
        at = line(prop if prop is not None else node)  # chained: the line of ``.get(``
        for path in paths:
            self.facts.routes.append(
                Route(path, (verb,), handler, owner, at, "express", middleware)
            )

    def _add_mounts(self, owner: str, args: list[Node], node: Node) -> None:
        prefix = ""
        if args:
            paths = path_literals(args[0])
            if paths is not None:
                prefix, args = paths[0], args[1:]
        for index, arg in enumerate(args):
            if arg.type in {"identifier", "member_expression"}:
                middleware = tuple(collapse(text(a), 120) for a in args[:index])
                child = callee_name(arg)
                self.facts.mounts.append(
                    Mount(owner, child, prefix, line(node), "express", middleware)
                )


def nest_routes(
    facts: FileFacts,
    cls: str,
    class_decorators: list[Node],
    methods: list[tuple[str, int, list[Node]]],
) -> None:
    """Routes of a NestJS controller: ``methods`` holds (name, line, decorators) per method."""
    controller = next((d for d in class_decorators if decorator_parts(d)[0] == "Controller"), None)
    if controller is None:
        return
    prefix = "/" + _nest_path(decorator_parts(controller)[1]).strip("/")  # Nest roots paths
    facts.routers.append(RouterDef(cls, "Controller", prefix, line(controller), "nestjs"))
    shared = _nest_middleware(class_decorators)
    for name, lineno, decorators in methods:
        own = _nest_middleware(decorators)
        for dec in decorators:
            dec_name, args = decorator_parts(dec)
            verb = NEST_METHODS.get(dec_name)
            if verb is None:
                continue
            paths = path_literals(args[0]) if args else None
            for path in paths or [_nest_path(args)]:
                facts.routes.append(
                    Route(path, (verb,), f"{cls}.{name}", cls, lineno, "nestjs", shared + own)
                )


def _nest_path(args: list[Node]) -> str:
    """'cats' from ``('cats')`` or ``({ path: 'cats', host: ... })``; '' when absent."""
    if not args:
        return ""
    first = args[0]
    if first.type == "object":
        for pair in first.named_children:
            key = pair.child_by_field_name("key")
            if pair.type == "pair" and text(key).strip("'\"") == "path":
                value = pair.child_by_field_name("value")
                paths = path_literals(value) if value is not None else None
                return paths[0] if paths else ""
        return ""
    paths = path_literals(first)
    return paths[0] if paths else ""


def _nest_middleware(decorators: list[Node]) -> tuple[str, ...]:
    return tuple(decorator_text(d) for d in decorators if decorator_parts(d)[0] in NEST_MIDDLEWARE)
