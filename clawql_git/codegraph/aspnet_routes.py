"""ASP.NET Core routes in one C# file: attribute routing on controllers and minimal APIs.

Attribute routing (as ASP.NET joins it):

- ``[Route("api/[controller]")]`` on a class is a :class:`RouterDef` named after the class,
  ``[controller]`` replaced by the class name without its ``Controller`` suffix.
- ``[HttpGet("{id}")]`` / ``[HttpPost]`` / ... on a method is a :class:`Route` under the class
  prefix; a method's own ``[Route("x")]`` adds its template (``ANY`` without a verb);
  ``[action]`` becomes the method name. A template starting with ``/`` or ``~/`` ignores the
  class prefix (owner ''). ``[Authorize...]`` / ``[AllowAnonymous]`` (class, then method) are
  the middleware.

Minimal APIs: ``app.MapGet/MapPost/MapPut/MapDelete/MapPatch("/p", handler)``, ``Map`` and
``MapMethods`` (verbs from the string array) are routes on the receiver variable;
``var g = x.MapGroup("/p")`` is a router ``g`` mounted on ``x`` under ``/p``; calls chained
after a route or a group (``.RequireAuthorization()``, ``.AllowAnonymous()``,
``.RequireCors(...)``, ``.AddEndpointFilter<...>()``) are its middleware. A handler named by
an identifier is that method; a lambda has no handler symbol.
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, text

VERBS = {
    "HttpGet": "GET",
    "HttpPost": "POST",
    "HttpPut": "PUT",
    "HttpDelete": "DELETE",
    "HttpPatch": "PATCH",
    "HttpHead": "HEAD",
    "HttpOptions": "OPTIONS",
}
MAP_VERBS = {
    "MapGet": "GET",
    "MapPost": "POST",
    "MapPut": "PUT",
    "MapDelete": "DELETE",
    "MapPatch": "PATCH",
    "Map": "ANY",
}
GUARDS = frozenset({"Authorize", "AllowAnonymous", "RequireHttps", "EnableCors"})
CHAINED = frozenset(
    {"RequireAuthorization", "AllowAnonymous", "RequireCors", "RequireRateLimiting", "RequireHost"}
)
_TYPES = frozenset({"class_declaration", "record_declaration", "struct_declaration"})


def aspnet_routes(root: Node, facts: FileFacts) -> None:
    """Add the controllers' attribute routes and the minimal-API routes of the file."""
    _visit(root, "", facts)


def _visit(node: Node, outer: str, facts: FileFacts) -> None:
    for child in node.named_children:
        if child.type in _TYPES:
            name = text(child.child_by_field_name("name"))
            qual = f"{outer}.{name}" if outer else name
            _controller(child, qual, facts)
            body = child.child_by_field_name("body")
            if body is not None:
                _visit(body, qual, facts)
            continue
        if child.type == "invocation_expression":
            _minimal(child, facts)
        elif child.type == "variable_declarator":
            _declared(child, facts)
        _visit(child, outer, facts)


# ------------------------------------------------------------ attribute routing


def attributes(node: Node) -> list[Node]:
    """Every attribute of a declaration, over all its ``[...]`` lists."""
    lists = [c for c in node.named_children if c.type == "attribute_list"]
    return [a for lst in lists for a in lst.named_children if a.type == "attribute"]


def attribute_name(node: Node) -> str:
    name = text(node.child_by_field_name("name")).rsplit(".", 1)[-1]
    return name.removesuffix("Attribute")


def _template(node: Node) -> str | None:
    """The attribute's first string argument (or ``Template = "..."``); None when absent."""
    args = next((c for c in node.named_children if c.type == "attribute_argument_list"), None)
    for arg in args.named_children if args is not None else []:
        value = arg.named_children[-1] if arg.named_children else None
        named = len(arg.named_children) > 1
        key = text(arg.named_children[0]) if named else ""
        if value is not None and value.type == "string_literal" and key in {"", "Template"}:
            return text(value)[1:-1]
    return None


def _controller(cls: Node, qual: str, facts: FileFacts) -> None:
    own = attributes(cls)
    name = qual.rsplit(".", 1)[-1]
    token = name.removesuffix("Controller") or name
    route = next((a for a in own if attribute_name(a) == "Route"), None)
    prefix = (_template(route) or "") if route is not None else ""
    if route is not None:
        prefix = prefix.replace("[controller]", token)
        facts.routers.append(
            RouterDef(qual, "Route", "/" + prefix.strip("/"), line(route), "aspnet")
        )
    shared = _guards(own)
    body = cls.child_by_field_name("body")
    for method in body.named_children if body is not None else []:
        if method.type == "method_declaration":
            _action(method, qual, token, shared, facts)


def _action(method: Node, cls: str, token: str, shared: tuple[str, ...], facts: FileFacts) -> None:
    marks = attributes(method)
    name = text(method.child_by_field_name("name"))
    routes = _templates(marks)
    guards = shared + _guards(marks)
    for verbs, template in dict.fromkeys(routes):
        path = template.replace("[controller]", token).replace("[action]", name)
        rooted = path.startswith(("/", "~/"))
        owner = "" if rooted else cls
        path = "/" + path.lstrip("~/") if rooted else path
        route = Route(path, verbs, f"{cls}.{name}", owner, line(method), "aspnet", guards)
        facts.routes.append(route)


def _templates(marks: list[Node]) -> list[tuple[tuple[str, ...], str]]:
    """(verbs, template) per route of an action: a verb attribute with a template is a route
    of its own; the verbs without one share the ``[Route]`` templates (or the class's); a
    ``[Route]`` without any verb is ``ANY``."""
    own = [(VERBS[attribute_name(a)], _template(a)) for a in marks if attribute_name(a) in VERBS]
    plain = [t for a in marks if attribute_name(a) == "Route" for t in [_template(a)] if t]
    out: list[tuple[tuple[str, ...], str]] = [((verb,), t) for verb, t in own if t is not None]
    bare = tuple(verb for verb, t in own if t is None)
    if bare or (plain and not own):
        out += [(bare or ("ANY",), t) for t in plain or [""]]
    return out


def _guards(marks: list[Node]) -> tuple[str, ...]:
    return tuple(collapse(text(m)) for m in marks if attribute_name(m) in GUARDS)


# ------------------------------------------------------------ minimal APIs


def _call_parts(node: Node) -> tuple[Node | None, str, list[Node]]:
    """(receiver, method name, argument expressions) of ``recv.Method(args)``."""
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    values = [a.named_children[-1] for a in args.named_children if a.named_children] if args else []
    if fn is None or fn.type != "member_access_expression":
        return None, "", values
    name = text(fn.child_by_field_name("name")).split("<", 1)[0]
    return fn.child_by_field_name("expression"), name, values


def _chain(node: Node) -> tuple[Node, tuple[str, ...]]:
    """Strip trailing ``.RequireAuthorization()``-style calls: the inner call and the calls."""
    mids: list[str] = []
    while node.type == "invocation_expression":
        recv, name, _ = _call_parts(node)
        if recv is None or (name not in CHAINED and not name.startswith("AddEndpointFilter")):
            break
        mids.append(collapse(text(node)[len(text(recv)) :].lstrip(".")))
        node = recv
    return node, tuple(reversed(mids))


def _minimal(node: Node, facts: FileFacts) -> None:
    """A route call, possibly with middleware chained after it (seen at the outermost call)."""
    parent = node.parent
    if parent is not None and parent.type == "member_access_expression":
        return  # an inner call of a chain: its outermost call handles it
    inner, mids = _chain(node)
    recv, name, args = _call_parts(inner)
    if recv is None or not args or args[0].type != "string_literal":
        return
    verbs = _map_verbs(name, args)
    if verbs is None:
        return
    owner = _owner(recv, facts)
    handler = text(args[-1]) if args[-1].type in {"identifier", "member_access_expression"} else ""
    facts.routes.append(
        Route(text(args[0])[1:-1], verbs, handler, owner, line(inner), "aspnet", mids)
    )


def _map_verbs(name: str, args: list[Node]) -> tuple[str, ...] | None:
    if name in MAP_VERBS:
        return (MAP_VERBS[name],)
    if name == "MapMethods" and len(args) >= 2:
        found = [text(s)[1:-1].upper() for s in _strings(args[1])]
        return tuple(found) or ("ANY",)
    return None


def _strings(node: Node) -> list[Node]:
    if node.type == "string_literal":
        return [node]
    return [s for c in node.named_children for s in _strings(c)]


def _owner(recv: Node, facts: FileFacts) -> str:
    """The router a route is declared on: a variable, or an inline ``x.MapGroup("/p")``."""
    recv, mids = _chain(recv)
    if recv.type == "identifier":
        return text(recv)
    group = _group(recv, facts, mids)
    return group or collapse(text(recv))


def _group(node: Node, facts: FileFacts, mids: tuple[str, ...], name: str = "") -> str:
    """Record ``x.MapGroup("/p")`` as a router mounted on ``x``; its name ('' if not one)."""
    recv, method, args = (
        _call_parts(node) if node.type == "invocation_expression" else (None, "", [])
    )
    if recv is None or method != "MapGroup" or not args or args[0].type != "string_literal":
        return ""
    name = name or f"MapGroup@{line(node)}:{node.start_point[1]}"
    facts.routers.append(RouterDef(name, "MapGroup", "", line(node), "aspnet"))
    parent = _owner(recv, facts)
    facts.mounts.append(Mount(parent, name, text(args[0])[1:-1], line(node), "aspnet", mids))
    return name


def _declared(node: Node, facts: FileFacts) -> None:
    """``var g = app.MapGroup("/p")...``: a named group."""
    name = node.child_by_field_name("name")
    value = next((c for c in node.named_children if c.type == "invocation_expression"), None)
    if name is None or value is None:
        return
    inner, mids = _chain(value)
    _group(inner, facts, mids, text(name))
