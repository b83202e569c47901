"""Rust HTTP routes in one file: Axum's ``Router`` builder and Actix Web (route macros, ``App``,
``web::scope``, ``web::resource``, ``ServiceConfig``).

Axum: a chain rooted at ``Router::new()`` is a router, named after its function when the
function returns it, else ``function.variable``. ``.route("/p", get(h).post(h2))`` gives one
route per method (``any(h)`` -> ANY); ``.nest("/p", other)`` and ``.merge(other)`` mount the
router ``other`` names (a function's or a variable's); ``.layer(l)`` / ``.route_layer(l)`` are
middleware of the routes added before them in the chain, as Axum applies them.

Actix: ``#[get("/p")]`` (``post``, ..., ``route("/p", method = "GET")``) on a function is a
route owned by that function; ``.service(f)`` mounts it where it is registered. A chain
rooted at ``App::new()``, ``web::scope("/p")`` or ``web::resource("/p")``, or on a
``ServiceConfig`` parameter, is a router: ``.route("/p", web::get().to(h))``,
``.service(...)``, ``.configure(f)`` (mounts the function ``f``'s ``ServiceConfig``) and
``.wrap(mw)`` (middleware of the whole scope) are read as Actix reads them.
"""

from __future__ import annotations

import dataclasses

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, text

AXUM_VERBS = {v: v.upper() for v in ("get", "post", "put", "patch", "delete", "head", "options")}
MACROS = {**AXUM_VERBS, "trace": "TRACE", "connect": "CONNECT"}
ROOTS = {"Router::new": "axum", "App::new": "actix"}
ACTIX_SCOPES = {"web::scope": "scope", "web::resource": "resource", "scope": "scope"}

Link = tuple[str, list[Node], Node]


class _Pass:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def file(self, root: Node) -> None:
        for item in _items(root):
            if item.type == "function_item":
                self.function(item)

    def function(self, fn: Node) -> None:
        name = text(fn.child_by_field_name("name"))
        self.macro(fn, name)
        params = fn.child_by_field_name("parameters")
        config = _config_param(params)
        body = fn.child_by_field_name("body")
        tail = _tail(body)
        for call in _outermost_calls(body):
            root, links = _flatten(call)
            is_tail = tail is not None and call.id == tail.id
            var = _bound_to(call)
            if config and text(root) == config:
                self.chain(name, "actix", links)
            elif root.type == "call_expression" and _callee(root) in ROOTS:
                owner = name if is_tail else f"{name}.{var or 'router'}@{line(call)}"
                framework = ROOTS[_callee(root)]
                self.facts.routers.append(
                    RouterDef(owner, _callee(root), "", line(root), framework)
                )
                self.chain(owner, framework, links)

    def macro(self, fn: Node, name: str) -> None:
        """``#[get("/p")]`` above a function: a route owned by the function itself."""
        for attr in _attributes(fn):
            ident = text(attr.named_children[0]) if attr.named_children else ""
            args = _token_strings(attr)
            if ident in MACROS and args:
                verbs: tuple[str, ...] = (MACROS[ident],)
            elif ident == "route" and args:
                verbs = tuple(a.upper() for a in args[1:]) or ("ANY",)
            else:
                continue
            self.facts.routers.append(RouterDef(name, ident, "", line(attr), "actix"))
            self.facts.routes.append(Route(args[0], verbs, name, name, line(attr), "actix"))

    def chain(self, owner: str, framework: str, links: list[Link]) -> tuple[str, ...]:
        """Read one builder chain; the Actix ``wrap`` middleware of the whole router."""
        routes: list[int] = []  # indexes of the routes and mounts added so far, for .layer()
        mounts: list[int] = []
        wraps: list[str] = []
        for method, args, _ in links:
            if method == "route" and args and (len(args) == 1 or _is_string(args[0])):
                path = _string(args[0]) if len(args) == 2 else ""  # web::resource's own path
                for verbs, handler, mids in _method_router(args[-1]):
                    routes.append(len(self.facts.routes))
                    at = line(args[0])
                    self.facts.routes.append(
                        Route(path, verbs, handler, owner, at, framework, mids)
                    )
            elif method in {"nest", "merge", "service", "configure", "default_service"}:
                mounts.append(len(self.facts.mounts))
                self.mount(owner, framework, method, args)
            elif method == "wrap" and args:
                wraps.append(collapse(text(args[0])))
            elif method in {"layer", "route_layer"} and args:
                self.layer(routes, mounts if method == "layer" else [], collapse(text(args[0])))
        return tuple(wraps)

    def mount(self, owner: str, framework: str, method: str, args: list[Node]) -> None:
        prefix = _string(args[0]) if method == "nest" and args else ""
        child, wraps = self.sub_router(args[-1], owner, framework) if args else ("", ())
        if child:
            self.facts.mounts.append(Mount(owner, child, prefix, line(args[0]), framework, wraps))

    def sub_router(self, node: Node, parent: str, framework: str) -> tuple[str, tuple[str, ...]]:
        """The router an argument names (a function, a variable, or an inline chain) and the
        middleware its chain wraps it in."""
        if node.type in {"identifier", "scoped_identifier"}:
            return text(node).rsplit("::", 1)[-1], ()
        if node.type != "call_expression":
            return "", ()
        root, links = _flatten(node)
        callee = _callee(root) if root.type == "call_expression" else ""
        if callee in ACTIX_SCOPES or callee in ROOTS:
            args = _args(root)
            prefix = _string(args[0]) if args and args[0].type == "string_literal" else ""
            name = f"{parent}/{callee}@{line(node)}:{node.start_point[1]}"
            self.facts.routers.append(RouterDef(name, callee, prefix, line(node), framework))
            return name, self.chain(name, framework, links)
        if not links:  # api_routes()
            return callee.rsplit("::", 1)[-1], ()
        return "", ()

    def layer(self, routes: list[int], mounts: list[int], mw: str) -> None:
        """Axum: ``layer`` wraps the routes and nested routers added before it."""
        for i in routes:
            r = self.facts.routes[i]
            self.facts.routes[i] = dataclasses.replace(r, middleware=(*r.middleware, mw))
        for i in mounts:
            m = self.facts.mounts[i]
            self.facts.mounts[i] = dataclasses.replace(m, middleware=(*m.middleware, mw))


def rust_routes(root: Node, facts: FileFacts) -> None:
    """Add the routes, routers and mounts of one Rust file to ``facts``."""
    _Pass(facts).file(root)


def _items(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in node.named_children:
        if child.type == "function_item":
            out.append(child)
        elif child.type in {"mod_item", "impl_item", "declaration_list"}:
            out += _items(child.child_by_field_name("body") or child)
    return out


def _attributes(fn: Node) -> list[Node]:
    """The ``#[...]`` attributes right above a function."""
    out: list[Node] = []
    prev = fn.prev_named_sibling
    while prev is not None and prev.type in {"attribute_item", "line_comment"}:
        if prev.type == "attribute_item" and prev.named_children:
            out.append(prev.named_children[0])
        prev = prev.prev_named_sibling
    return out


def _token_strings(attr: Node) -> list[str]:
    tree = next((c for c in attr.named_children if c.type == "token_tree"), None)
    found = [_string(c) for c in tree.named_children if c.type == "string_literal"] if tree else []
    return found


def _config_param(params: Node | None) -> str:
    """The name of a ``&mut web::ServiceConfig`` parameter, '' when there is none."""
    for p in params.named_children if params is not None else []:
        if p.type == "parameter" and "ServiceConfig" in text(p.child_by_field_name("type")):
            return text(p.child_by_field_name("pattern"))
    return ""


def _tail(body: Node | None) -> Node | None:
    """The expression a block returns (its last expression without ``;``, or ``return x``)."""
    if body is None or not body.named_children:
        return None
    last = body.named_children[-1]
    if last.type == "return_expression" and last.named_children:
        return last.named_children[0]
    if last.type == "expression_statement":
        return None
    return last


def _outermost_calls(node: Node | None) -> list[Node]:
    """Call expressions that are not part of a longer chain or another call's callee."""
    out: list[Node] = []
    if node is None:
        return out
    for child in node.named_children:
        if child.type == "call_expression":
            out.append(child)
        elif child.type not in {"function_item", "closure_expression"}:
            out += _outermost_calls(child)
    return out


def _flatten(call: Node) -> tuple[Node, list[Link]]:
    """``a.b(x).c(y)`` -> (a, [(b, [x], ..), (c, [y], ..)]); a plain call is its own root."""
    links: list[Link] = []
    node = call
    while node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is None or fn.type != "field_expression":
            break
        links.append((text(fn.child_by_field_name("field")), _args(node), node))
        node = fn.child_by_field_name("value") or node
    return node, list(reversed(links))


def _args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if "comment" not in a.type] if args else []


def _callee(call: Node) -> str:
    return text(call.child_by_field_name("function")).replace(" ", "")


def _bound_to(call: Node) -> str:
    parent = call.parent
    if parent is not None and parent.type == "let_declaration":
        return text(parent.child_by_field_name("pattern"))
    return ""


def _method_router(node: Node) -> list[tuple[tuple[str, ...], str, tuple[str, ...]]]:
    """(methods, handler, middleware) of ``get(h).post(h2)`` or ``web::get().to(h)``."""
    root, links = _flatten(node)
    out: list[tuple[tuple[str, ...], str, tuple[str, ...]]] = []
    if root.type == "call_expression":
        name = _callee(root).rsplit("::", 1)[-1]
        args = _args(root)
        if name in AXUM_VERBS and args:
            out.append(((AXUM_VERBS[name],), _handler(args[0]), ()))
        elif name == "any" and args:
            out.append((("ANY",), _handler(args[0]), ()))
        elif name in AXUM_VERBS or name in {"route", "method"}:  # actix web::get().to(h)
            verb = AXUM_VERBS.get(name, "ANY")
            to = next((a for m, a, _ in links if m == "to" and a), None)
            return [((verb,), _handler(to[0]) if to else "", ())]
    for method, args, _ in links:
        if method in AXUM_VERBS and args:
            out.append(((AXUM_VERBS[method],), _handler(args[0]), ()))
        elif method in {"layer", "route_layer"} and args:
            out = [(v, h, (*m, collapse(text(args[0])))) for v, h, m in out]
    return out


def _handler(node: Node) -> str:
    if node.type in {"identifier", "scoped_identifier"}:
        return text(node).replace("::", ".")
    return ""


def _is_string(node: Node) -> bool:
    return node.type == "string_literal"


def _string(node: Node) -> str:
    return text(node)[1:-1]
