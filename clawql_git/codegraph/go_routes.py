"""Go HTTP routes in one file: Gin, Echo, chi, gorilla/mux and the standard library's ServeMux.

Routers are variables bound to a constructor (``gin.Default()``, ``gin.New()``, ``echo.New()``,
``chi.NewRouter()``, ``mux.NewRouter()``, ``http.NewServeMux()``) or parameters of a router
type (``*gin.Engine``, ``*gin.RouterGroup``, ``*echo.Group``, ``chi.Router``, ...). Each is a
:class:`RouterDef` named ``function.variable`` (Go scopes names per function); a router that
its function returns is named after the function instead, so ``r.Mount("/admin",
adminRouter())`` joins the routes ``adminRouter`` declares.

- routes: ``x.GET/POST/...("/p", h)`` (Gin, Echo), ``x.Get/Post/...`` (chi), ``Any``,
  ``Handle``/``HandleFunc`` (``"GET /p"`` patterns of Go 1.22 give the method; gorilla's
  ``.Methods("GET")`` chained after), ``Match([]string{...}, "/p", h)`` (Echo) and
  ``Method("GET", "/p", h)`` (chi). The handler is the last argument as written.
- prefixes: ``g := x.Group("/p", mw...)`` (Gin, Echo), ``x.Route("/p", func(r chi.Router)
  {...})`` and ``x.Group(func(r chi.Router) {...})`` (chi), ``x.Mount("/p", h)`` (chi),
  ``x.PathPrefix("/p").Subrouter()`` (gorilla) are :class:`Mount` facts.
- middleware: ``x.Use(mw)`` applies to the routes ``x`` declares after it, ``x.With(mw)`` to
  the one route it is chained into, group arguments after the prefix to the group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, text

CONSTRUCTORS = {
    "gin.Default": "gin",
    "gin.New": "gin",
    "echo.New": "echo",
    "chi.NewRouter": "chi",
    "chi.NewMux": "chi",
    "mux.NewRouter": "gorilla",
    "http.NewServeMux": "nethttp",
}
ROUTER_TYPES = {
    "gin.Engine": "gin",
    "gin.RouterGroup": "gin",
    "gin.IRouter": "gin",
    "gin.IRoutes": "gin",
    "echo.Echo": "echo",
    "echo.Group": "echo",
    "chi.Router": "chi",
    "chi.Mux": "chi",
    "mux.Router": "gorilla",
    "http.ServeMux": "nethttp",
}
UPPER = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE"})
CHI_VERBS = {v.capitalize(): v for v in UPPER}
_HANDLE = frozenset({"Handle", "HandleFunc"})
_STRINGS = frozenset({"interpreted_string_literal", "raw_string_literal"})


@dataclass
class _Scope:
    """The routers visible in one function: variable -> (router name, framework)."""

    function: str
    routers: dict[str, tuple[str, str]] = field(default_factory=dict)


class _Pass:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.uses: dict[str, list[str]] = {}

    # -------------------------------------------------------------- walk

    def file(self, root: Node) -> None:
        for decl in root.named_children:
            if decl.type in {"function_declaration", "method_declaration"}:
                name = text(decl.child_by_field_name("name"))
                scope = _Scope(name)
                self.params(decl.child_by_field_name("parameters"), scope, name)
                returned = _returned(decl.child_by_field_name("body"))
                self.body(decl.child_by_field_name("body"), scope, returned)

    def params(self, params: Node | None, scope: _Scope, prefix: str) -> None:
        for p in params.named_children if params is not None else []:
            framework = ROUTER_TYPES.get(text(p.child_by_field_name("type")).lstrip("*"))
            if framework is None:
                continue
            for ident in p.named_children:
                if ident.type == "identifier":
                    scope.routers[text(ident)] = (f"{prefix}.{text(ident)}", framework)

    def body(self, node: Node | None, scope: _Scope, returned: str = "") -> None:
        for child in node.named_children if node is not None else []:
            if child.type in {"short_var_declaration", "assignment_statement"}:
                self.bind(child, scope, returned)
            elif child.type == "call_expression" and self.call(child, scope):
                continue  # a chi closure walks its own body
            if child.type != "func_literal":
                self.body(child, scope, returned)

    def bind(self, node: Node, scope: _Scope, returned: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        names = [text(n) for n in left.named_children] if left is not None else []
        values = right.named_children if right is not None else []
        for name, value in zip(names, values, strict=False):
            if value.type != "call_expression":
                continue
            router = name if name == returned else f"{scope.function}.{name}"
            callee = text(value.child_by_field_name("function"))
            if callee in CONSTRUCTORS:
                framework = CONSTRUCTORS[callee]
                scope.routers[name] = (scope.function if name == returned else router, framework)
                self.facts.routers.append(
                    RouterDef(scope.routers[name][0], callee, "", line(value), framework)
                )
            else:
                group = self.group(value, scope, scope.function if name == returned else router)
                if group is not None:
                    scope.routers[name] = group

    # -------------------------------------------------------------- calls

    def call(self, node: Node, scope: _Scope) -> bool:
        """A route, a mount, a ``Use`` or a chi closure; True when the call was consumed."""
        recv, method, args = _parts(node)
        if recv is None:
            return False
        if method == "Methods" and recv.type == "call_expression":  # gorilla
            verbs = tuple(s.upper() for s in _strings(args))
            return self.route(recv, scope, verbs)
        owner = self.owner(recv, scope)
        if owner is None:
            return False
        name, framework, mids = owner
        if method == "Use":
            self.uses.setdefault(name, []).extend(collapse(text(a)) for a in args)
            return True
        if method in {"Route", "Group"} and args and args[-1].type == "func_literal":
            self.closure(node, scope, owner, method, args)
            return True
        if method == "Mount" and len(args) == 2 and args[0].type in _STRINGS:
            child = _callee_or_name(args[1])
            mids = tuple(self.uses.get(name, ())) + mids
            self.facts.mounts.append(
                Mount(name, child, _string(args[0]), line(node), framework, mids)
            )
            return True
        return self.route(node, scope, ())

    def route(self, node: Node, scope: _Scope, verbs: tuple[str, ...]) -> bool:
        recv, method, args = _parts(node)
        owner = self.owner(recv, scope) if recv is not None else None
        if owner is None:
            return False
        name, framework, mids = owner
        found = _route_args(method, args, framework)
        if found is None:
            return False
        path, own_verbs, handler, own_mids = found
        verbs = verbs or own_verbs
        at = tuple(self.uses.get(name, ())) + mids + own_mids
        self.facts.routes.append(Route(path, verbs, handler, name, line(node), framework, at))
        return True

    def owner(self, recv: Node, scope: _Scope) -> tuple[str, str, tuple[str, ...]] | None:
        """(router name, framework, inline middleware) of a receiver expression."""
        if recv.type == "identifier":
            known = scope.routers.get(text(recv))
            return (known[0], known[1], ()) if known else None
        if recv.type != "call_expression":
            return None
        inner, method, args = _parts(recv)
        if inner is None:
            return None
        if method == "With":  # chi: middleware for the chained route only
            base = self.owner(inner, scope)
            return (
                (base[0], base[1], base[2] + tuple(collapse(text(a)) for a in args))
                if base
                else None
            )
        group = self.group(
            recv, scope, f"{scope.function}.group@{line(recv)}:{recv.start_point[1]}"
        )
        return (group[0], group[1], ()) if group else None

    def group(self, node: Node, scope: _Scope, name: str) -> tuple[str, str] | None:
        """``x.Group("/p", mw...)`` or ``x.PathPrefix("/p").Subrouter()``: a router mounted
        on ``x``; None when ``node`` is not one."""
        recv, method, args = _parts(node)
        if recv is None:
            return None
        if method == "Subrouter" and recv.type == "call_expression":
            recv, method, args = _parts(recv)
            if recv is None or method != "PathPrefix":
                return None
        elif method != "Group" or not args or args[0].type not in _STRINGS:
            return None
        base = self.owner(recv, scope)
        if base is None:
            return None
        mids = tuple(self.uses.get(base[0], ())) + tuple(collapse(text(a)) for a in args[1:])
        self.facts.routers.append(RouterDef(name, method, "", line(node), base[1]))
        self.facts.mounts.append(
            Mount(base[0], name, _string(args[0]), line(node), base[1], base[2] + mids)
        )
        return name, base[1]

    def closure(
        self,
        node: Node,
        scope: _Scope,
        owner: tuple[str, str, tuple[str, ...]],
        method: str,
        args: list[Node],
    ) -> None:
        """chi's ``Route("/p", func(r chi.Router) {...})`` / ``Group(func(r) {...})``."""
        fn = args[-1]
        prefix = _string(args[0]) if method == "Route" and args[0].type in _STRINGS else ""
        name = f"{scope.function}.{method.lower()}@{line(node)}:{node.start_point[1]}"
        self.facts.routers.append(RouterDef(name, method, "", line(node), owner[1]))
        mids = owner[2] + tuple(self.uses.get(owner[0], ()))
        self.facts.mounts.append(Mount(owner[0], name, prefix, line(node), owner[1], mids))
        inner = _Scope(scope.function, dict(scope.routers))
        params = fn.child_by_field_name("parameters")
        for p in params.named_children if params is not None else []:
            for ident in p.named_children:
                if ident.type == "identifier":
                    inner.routers[text(ident)] = (name, owner[1])
        self.body(fn.child_by_field_name("body"), inner)


def go_routes(root: Node, facts: FileFacts) -> None:
    """Add the routes, routers and mounts of one Go file to ``facts``."""
    _Pass(facts).file(root)


def _parts(node: Node) -> tuple[Node | None, str, list[Node]]:
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    values = [a for a in args.named_children if a.type != "comment"] if args else []
    if fn is None or fn.type != "selector_expression":
        return None, "", values
    return fn.child_by_field_name("operand"), text(fn.child_by_field_name("field")), values


def _route_args(
    method: str, args: list[Node], framework: str
) -> tuple[str, tuple[str, ...], str, tuple[str, ...]] | None:
    """(path, methods, handler, middleware) of a route call; None when it is not one. Gin
    takes ``(path, mw..., handler)``, Echo ``(path, handler, mw...)``."""
    if len(args) < 2:
        return None
    first = args[0].type in _STRINGS
    if framework == "echo" and first and (method in UPPER or method == "Any"):
        verbs = (method,) if method in UPPER else ("ANY",)
        return _string(args[0]), verbs, _handler(args[1]), _texts(args[2:])
    handler, mids = _handler(args[-1]), _texts(args[1:-1])
    if first and (
        (method in UPPER and framework == "gin") or (method in CHI_VERBS and framework == "chi")
    ):
        return _string(args[0]), (method.upper(),), handler, mids
    if first and method == "Any":
        return _string(args[0]), ("ANY",), handler, mids
    three = method in {"Method", "MethodFunc", "Handle"} and len(args) == 3
    if three and first and args[1].type in _STRINGS:  # chi Method / gin Handle("GET", "/p", h)
        return _string(args[1]), (_string(args[0]).upper(),), handler, ()
    if method == "Match" and len(args) >= 3 and args[1].type in _STRINGS:
        matched = tuple(s.upper() for s in _strings([args[0]]))
        return _string(args[1]), matched, _handler(args[2]), _texts(args[3:])
    if method in _HANDLE and first and len(args) == 2:
        verb, _, path = _string(args[0]).partition(" ")
        if not path:
            return verb, ("ANY",), handler, ()
        return path.strip(), (verb.upper(),), handler, ()
    return None


def _texts(nodes: list[Node]) -> tuple[str, ...]:
    return tuple(collapse(text(n)) for n in nodes)


def _handler(node: Node) -> str:
    if node.type in {"identifier", "selector_expression"}:
        return text(node)
    if node.type == "call_expression":  # http.HandlerFunc(h), gin.WrapF(h)
        args = node.child_by_field_name("arguments")
        inner = args.named_children if args is not None else []
        return _handler(inner[0]) if len(inner) == 1 else ""
    return ""


def _callee_or_name(node: Node) -> str:
    if node.type == "call_expression":
        return text(node.child_by_field_name("function"))
    return text(node)


def _string(node: Node) -> str:
    return text(node)[1:-1]


def _strings(nodes: list[Node]) -> list[str]:
    out: list[str] = []
    for n in nodes:
        if n.type in _STRINGS:
            out.append(_string(n))
        else:
            out += _strings(list(n.named_children))
    return out


def _returned(body: Node | None) -> str:
    """The identifier a function returns last (``return r``), '' when none."""
    found = ""
    children = list(body.named_children) if body is not None else []
    if len(children) == 1 and children[0].type == "statement_list":
        children = list(children[0].named_children)
    for child in children:
        if child.type == "return_statement":
            values = child.named_children
            exprs = (
                values[0].named_children
                if values and values[0].type == "expression_list"
                else values
            )
            if len(exprs) == 1 and exprs[0].type == "identifier":
                found = text(exprs[0])
    return found
