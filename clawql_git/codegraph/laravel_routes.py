"""Laravel routes in the files of a ``routes/`` folder (``routes/web.php``, ``routes/api.php``).

A statement is a chain ``Route::a(...)->b(...)->c(...)``:

- ``get/post/put/patch/delete/options(uri, action)``, ``any`` (ANY) and ``match([verbs], uri,
  action)`` are routes; ``->middleware(...)`` chained after one is its middleware.
- ``resource(name, Controller::class)`` is the seven resource routes (``apiResource``: five,
  without ``create`` and ``edit``), narrowed by ``->only([...])`` / ``->except([...])``; the
  parameter is the singular of the name (``photos`` -> ``{photo}``).
- a chain ending in ``group(function () { ... })`` applies its ``prefix``, ``middleware`` and
  ``controller`` to the routes in the closure, nested groups joined.
- ``routes/api.php`` is under ``/api`` and the ``api`` middleware group, as Laravel's
  bootstrap registers it; ``routes/web.php`` has the ``web`` group.

Actions: ``[Controller::class, 'method']`` and ``'Controller@method'`` -> handler
``Controller.method``; ``Controller::class`` alone -> ``Controller.__invoke``; a method name
inside a ``controller(...)`` group -> that controller's method; a closure has no handler.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Route
from clawql_git.codegraph.ts_util import line, text

VERBS = frozenset({"get", "post", "put", "patch", "delete", "options"})
RESOURCE = (
    ("index", ("GET",), ""),
    ("create", ("GET",), "/create"),
    ("store", ("POST",), ""),
    ("show", ("GET",), "/{%s}"),
    ("edit", ("GET",), "/{%s}/edit"),
    ("update", ("PUT", "PATCH"), "/{%s}"),
    ("destroy", ("DELETE",), "/{%s}"),
)
FILE_GROUPS = {"api.php": ("/api", ("api",)), "web.php": ("", ("web",))}


@dataclass(frozen=True)
class _Group:
    prefix: str = ""
    middleware: tuple[str, ...] = ()
    controller: str = ""


Link = tuple[str, list[Node], Node]  # (method, argument expressions, call node)


def laravel_routes(root: Node, facts: FileFacts) -> None:
    """Add the routes declared in a Laravel route file to ``facts``."""
    folder, name = posixpath.split(facts.path)
    if posixpath.basename(folder) != "routes":
        return
    prefix, mids = FILE_GROUPS.get(name, ("", ()))
    _statements(root, _Group(prefix, mids), facts)


def _statements(node: Node, group: _Group, facts: FileFacts) -> None:
    for child in node.named_children:
        if child.type == "expression_statement" and child.named_children:
            chain = _chain(child.named_children[0])
            if chain:
                _statement(chain, group, facts)
        elif child.type in {"compound_statement", "program"}:
            _statements(child, group, facts)


def _chain(node: Node) -> list[Link]:
    """``Route::a(x)->b(y)`` as [(a, [x], node), (b, [y], node)]; [] when not a Route chain."""
    if node.type == "member_call_expression":
        inner = node.child_by_field_name("object")
        head = _chain(inner) if inner is not None else []
        return [*head, _link(node)] if head else []
    if node.type == "scoped_call_expression":
        scope = text(node.child_by_field_name("scope")).lstrip("\\")
        if scope.rsplit("\\", 1)[-1] == "Route":
            return [_link(node)]
    return []


def _link(node: Node) -> Link:
    args = node.child_by_field_name("arguments")
    values = [a.named_children[-1] for a in args.named_children if a.named_children] if args else []
    return text(node.child_by_field_name("name")), values, node


def _statement(chain: list[Link], group: _Group, facts: FileFacts) -> None:
    last_name, last_args, _ = chain[-1]
    if last_name == "group" and last_args and last_args[-1].type in _CLOSURES:
        inner = _nested(chain[:-1], group)
        body = last_args[-1].child_by_field_name("body")
        if body is not None:
            _statements(body, inner, facts)
        return
    head, args, node = chain[0]
    mids = group.middleware + _chained_middleware(chain[1:])
    if head in {"resource", "apiResource"}:
        _resource(head, args, chain[1:], group, mids, facts, line(node))
        return
    found = _verbs_and_rest(head, args)
    if found is None:
        return
    verbs, uri, action = found
    handler = _handler(action, group.controller)
    path = _join(group.prefix, uri)
    facts.routes.append(Route(path, verbs, handler, "", line(node), "laravel", mids))


_CLOSURES = frozenset(
    {"anonymous_function", "arrow_function", "anonymous_function_creation_expression"}
)


def _nested(chain: list[Link], group: _Group) -> _Group:
    prefix, mids, controller = group.prefix, group.middleware, group.controller
    for name, args, _ in chain:
        if name == "prefix" and args:
            prefix = _join(prefix, _string(args[0]) or "")
        elif name == "middleware":
            mids += tuple(_strings(args))
        elif name == "controller" and args:
            controller = _class(args[0]) or controller
    return _Group(prefix, mids, controller)


def _chained_middleware(links: list[Link]) -> tuple[str, ...]:
    return tuple(s for name, args, _ in links if name == "middleware" for s in _strings(args))


def _verbs_and_rest(head: str, args: list[Node]) -> tuple[tuple[str, ...], str, Node | None] | None:
    if head in VERBS and args:
        return (head.upper(),), _string(args[0]) or "", args[1] if len(args) > 1 else None
    if head == "any" and args:
        return ("ANY",), _string(args[0]) or "", args[1] if len(args) > 1 else None
    if head == "match" and len(args) >= 2:
        verbs = tuple(v.upper() for v in _strings([args[0]]))
        return verbs or ("ANY",), _string(args[1]) or "", args[2] if len(args) > 2 else None
    return None


def _resource(
    head: str,
    args: list[Node],
    links: list[Link],
    group: _Group,
    mids: tuple[str, ...],
    facts: FileFacts,
    at: int,
) -> None:
    if len(args) < 2:
        return
    name = _string(args[0]) or ""
    controller = _class(args[1])
    actions = [a for a in RESOURCE if head == "resource" or a[0] not in {"create", "edit"}]
    for method, link_args, _ in links:
        wanted = set(_strings(link_args))
        if method == "only":
            actions = [a for a in actions if a[0] in wanted]
        elif method == "except":
            actions = [a for a in actions if a[0] not in wanted]
    *parents, last = name.split(".")  # photos.comments: /photos/{photo}/comments
    param = _singular(last.rsplit("/", 1)[-1])
    nested = "".join(f"{p}/{{{_singular(p)}}}/" for p in parents)
    base = _join(group.prefix, nested + last)
    for action, verbs, tail in actions:
        path = base + (tail % param if "%s" in tail else tail)
        handler = f"{controller}.{action}" if controller else ""
        facts.routes.append(Route(path, verbs, handler, "", at, "laravel", mids))


def _handler(action: Node | None, controller: str) -> str:
    if action is None:
        return ""
    if action.type == "array_creation_expression":
        parts = [c.named_children[-1] for c in action.named_children if c.named_children]
        if len(parts) == 2:
            return f"{_class(parts[0])}.{_string(parts[1]) or ''}"
        return ""
    if action.type == "class_constant_access_expression":
        return f"{_class(action)}.__invoke"
    value = _string(action)
    if value is None:
        return ""
    if "@" in value:
        cls, _, method = value.partition("@")
        return f"{cls.rsplit(chr(92), 1)[-1]}.{method}"
    return f"{controller}.{value}" if controller else ""


def _class(node: Node) -> str:
    """``UserController`` of ``UserController::class`` (namespace dropped)."""
    if node.type != "class_constant_access_expression" or not node.named_children:
        return ""
    return text(node.named_children[0]).rsplit("\\", 1)[-1]


def _string(node: Node) -> str | None:
    if node.type not in {"string", "encapsed_string"}:
        return None
    return text(node)[1:-1]


def _strings(nodes: list[Node]) -> list[str]:
    out: list[str] = []
    for n in nodes:
        value = _string(n)
        if value is not None:
            out.append(value)
        elif n.type in {"array_creation_expression", "array_element_initializer"}:
            out += _strings(list(n.named_children))
    return out


def _join(prefix: str, uri: str) -> str:
    joined = "/".join(p.strip("/") for p in (prefix, uri) if p.strip("/"))
    return "/" + joined


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name
