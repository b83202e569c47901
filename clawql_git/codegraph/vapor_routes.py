"""Vapor routes in one Swift file.

Routers are parameters typed ``Application`` or ``RoutesBuilder`` (``routes(_ app:)``, a
``RouteCollection``'s ``boot(routes:)``, named after its type so that
``app.register(collection: TodoController())`` mounts it). On a router:

- ``get/post/put/patch/delete("a", ":id", use: handler)`` (or a trailing closure) and
  ``on(.GET, "a", use: handler)`` are routes, path components joined (``/a/:id``);
- ``let x = r.grouped("a", "b")`` is a router ``x`` mounted under ``/a/b``; arguments that
  are not strings (``User.authenticator()``) are its middleware;
- ``r.group("a") { x in ... }`` is the same for the closure's parameter.

``use: index`` inside a type is the type's method (``TodoController.index``).
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, text

VERBS = frozenset({"get", "post", "put", "patch", "delete"})
ROUTER_TYPES = frozenset({"Application", "RoutesBuilder"})
_TYPES = frozenset({"class_declaration", "protocol_declaration"})


class _Pass:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def walk(self, node: Node, owner_type: str) -> None:
        for child in node.named_children:
            if child.type in _TYPES:
                name = text(child.child_by_field_name("name"))
                self.walk(child, name)
            elif child.type == "function_declaration":
                self.function(child, owner_type)
            elif child.type in {"class_body", "source_file"}:
                self.walk(child, owner_type)

    def function(self, fn: Node, owner_type: str) -> None:
        name = text(fn.child_by_field_name("name"))
        scope: dict[str, str] = {}
        for param in (c for c in fn.named_children if c.type == "parameter"):
            ptype = text(next((c for c in param.named_children if c.type == "user_type"), None))
            if ptype in ROUTER_TYPES:
                ident = [c for c in param.named_children if c.type == "simple_identifier"]
                router = (
                    owner_type if owner_type and name == "boot" else f"{name}.{text(ident[-1])}"
                )
                scope[text(ident[-1])] = router
                self.facts.routers.append(RouterDef(router, ptype, "", line(param), "vapor"))
        body = next((c for c in fn.named_children if c.type == "function_body"), None)
        if scope:
            self.statements(body, scope, owner_type, name)

    def statements(self, node: Node | None, scope: dict[str, str], cls: str, fn: str) -> None:
        for child in node.named_children if node is not None else []:
            if child.type == "property_declaration":
                self.binding(child, scope, fn)
            elif child.type == "call_expression":
                self.call(child, scope, cls, fn)
            elif child.type not in {"lambda_literal", "function_declaration"}:
                self.statements(child, scope, cls, fn)

    def binding(self, node: Node, scope: dict[str, str], fn: str) -> None:
        pattern = next((c for c in node.named_children if c.type == "pattern"), None)
        value = next((c for c in node.named_children if c.type == "call_expression"), None)
        if pattern is None or value is None:
            return
        recv, method, args, _ = _parts(value)
        if method == "grouped" and recv in scope:
            name = f"{fn}.{text(pattern)}"
            self.group(scope[recv], name, args, value)
            scope[text(pattern)] = name

    def group(self, parent: str, name: str, args: list[Node], node: Node) -> None:
        path = _path(args)
        mids = tuple(collapse(text(a)) for a in args if not _is_string(a))
        self.facts.routers.append(RouterDef(name, "grouped", "", line(node), "vapor"))
        self.facts.mounts.append(Mount(parent, name, path, line(node), "vapor", mids))

    def call(self, node: Node, scope: dict[str, str], cls: str, fn: str) -> None:
        recv, method, args, closure = _parts(node)
        owner = scope.get(recv)
        if owner is None:
            return
        if method == "group" and closure is not None:
            name = f"{fn}.group@{line(node)}:{node.start_point[1]}"
            self.group(owner, name, args, node)
            inner = dict(scope)
            for p in _closure_params(closure):
                inner[p] = name
            self.statements(closure, inner, cls, fn)
            return
        if method == "register":  # register(collection: TodoController())
            collection = _labelled(node, "collection").split("(", 1)[0]
            if collection:
                self.facts.mounts.append(Mount(owner, collection, "", line(node), "vapor"))
            return
        verbs = _verbs(method, args)
        if verbs is None:
            return
        handler = _labelled(node, "use")
        qual = f"{cls}.{handler}" if cls and handler and "." not in handler else handler
        self.facts.routes.append(Route(_path(args), verbs, qual, owner, line(node), "vapor"))


def vapor_routes(root: Node, facts: FileFacts) -> None:
    """Add the Vapor routes, routers and mounts of one Swift file to ``facts``."""
    _Pass(facts).walk(root, "")


def _parts(call: Node) -> tuple[str, str, list[Node], Node | None]:
    """(receiver, method, unlabelled argument expressions, trailing closure)."""
    nav = call.named_children[0] if call.named_children else None
    suffix = next((c for c in call.named_children if c.type == "call_suffix"), None)
    if nav is None or nav.type != "navigation_expression" or suffix is None:
        return "", "", [], None
    recv = text(nav.named_children[0])
    nsuffix = next((c for c in nav.named_children if c.type == "navigation_suffix"), None)
    method = text(nsuffix.named_children[-1]) if nsuffix is not None else ""
    values = next((c for c in suffix.named_children if c.type == "value_arguments"), None)
    args = [
        a.named_children[-1]
        for a in (values.named_children if values is not None else [])
        if a.type == "value_argument"
        and not any(c.type == "value_argument_label" for c in a.named_children)
    ]
    closure = next((c for c in suffix.named_children if c.type == "lambda_literal"), None)
    return recv, method, args, closure


def _labelled(call: Node, label: str) -> str:
    suffix = next((c for c in call.named_children if c.type == "call_suffix"), None)
    values = (
        next((c for c in suffix.named_children if c.type == "value_arguments"), None)
        if suffix
        else None
    )
    for arg in values.named_children if values is not None else []:
        labels = [c for c in arg.named_children if c.type == "value_argument_label"]
        if labels and text(labels[0]) == label:
            return text(arg.named_children[-1]).replace("self.", "")
    return ""


def _verbs(method: str, args: list[Node]) -> tuple[str, ...] | None:
    if method in VERBS:
        return (method.upper(),)
    if method == "on" and args and text(args[0]).startswith("."):
        return (text(args[0])[1:].upper(),)
    return None


def _is_string(node: Node) -> bool:
    return node.type == "line_string_literal"


def _path(args: list[Node]) -> str:
    parts = [text(a)[1:-1].strip("/") for a in args if _is_string(a)]
    return "/" + "/".join(p for p in parts if p) if any(parts) else ""


def _closure_params(closure: Node) -> list[str]:
    out: list[str] = []
    for node in closure.named_children:
        if node.type == "lambda_function_type":
            params = next(
                (c for c in node.named_children if c.type == "lambda_function_type_parameters"),
                None,
            )
            for p in params.named_children if params is not None else []:
                out += [text(c) for c in p.named_children if c.type == "simple_identifier"][:1]
    return out
