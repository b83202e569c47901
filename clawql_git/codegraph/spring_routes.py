"""Spring MVC / WebFlux routes in one Java file, read from the annotations after the walk.

- ``@RequestMapping("/api")`` (or ``value =`` / ``path =``) on a class is a :class:`RouterDef`
  named after the class (constructor 'RequestMapping'), so every method route of the class is
  joined under it, as Spring joins them.
- ``@GetMapping`` / ``@PostMapping`` / ``@PutMapping`` / ``@DeleteMapping`` /
  ``@PatchMapping`` on a method is a :class:`Route` per path (``{"/a", "/b"}`` gives two; no
  path is the class's own); ``@RequestMapping(method = RequestMethod.X)`` on a method gives
  its methods, 'ANY' when it names none. The handler is ``Class.method``.
- ``@PreAuthorize`` / ``@Secured`` / ``@RolesAllowed`` (class first, then method) are kept as
  the route's middleware, as written without the ``@``.
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Route, RouterDef
from clawql_git.codegraph.ts_util import collapse, line, text

VERBS = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH",
}
GUARDS = frozenset({"PreAuthorize", "Secured", "RolesAllowed", "PermitAll", "DenyAll"})
_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
_TYPES = frozenset({"class_declaration", "interface_declaration", "record_declaration"})


def spring_routes(root: Node, facts: FileFacts) -> None:
    """Add the routes and class prefixes of every controller in the file to ``facts``."""
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
        elif child.type in {"program", "class_body"}:
            _visit(child, outer, facts)


def annotations_of(node: Node) -> list[Node]:
    """The annotations in a declaration's modifiers."""
    mods = next((c for c in node.named_children if c.type == "modifiers"), None)
    return [a for a in mods.named_children if a.type in _ANNOTATIONS] if mods else []


def annotation_name(node: Node) -> str:
    """``GetMapping`` of ``@GetMapping("/x")`` or ``@org.springframework...GetMapping``."""
    name = text(node.child_by_field_name("name"))
    return name.rsplit(".", 1)[-1]


def argument(node: Node, *keys: str) -> Node | None:
    """The value of ``key = ...`` in the annotation's arguments, or the lone positional one
    when ``"value"`` is among ``keys``."""
    args = node.child_by_field_name("arguments")
    if args is None:
        return None
    for arg in args.named_children:
        if arg.type == "element_value_pair":
            if text(arg.child_by_field_name("key")) in keys:
                return arg.child_by_field_name("value")
        elif "value" in keys:
            return arg
    return None


def strings(node: Node | None) -> list[str]:
    """The string literals of a value: one, or each of ``{"/a", "/b"}``; [] otherwise."""
    if node is None:
        return []
    if node.type == "string_literal":
        return [text(node)[1:-1]]
    if node.type == "element_value_array_initializer":
        return [s for c in node.named_children for s in strings(c)]
    return []


def _paths(node: Node) -> list[str]:
    return strings(argument(node, "value", "path")) or [""]


def _controller(cls: Node, qual: str, facts: FileFacts) -> None:
    own = annotations_of(cls)
    mapping = next((a for a in own if annotation_name(a) == "RequestMapping"), None)
    if mapping is not None:
        prefix = _paths(mapping)[0]
        facts.routers.append(RouterDef(qual, "RequestMapping", prefix, line(mapping), "spring"))
    shared = _guards(own)
    body = cls.child_by_field_name("body")
    for method in body.named_children if body is not None else []:
        if method.type == "method_declaration":
            _method_routes(method, qual, shared, facts)


def _method_routes(method: Node, cls: str, shared: tuple[str, ...], facts: FileFacts) -> None:
    marks = annotations_of(method)
    name = text(method.child_by_field_name("name"))
    guards = shared + _guards(marks)
    for mark in marks:
        verbs = _verbs(mark)
        if verbs is None:
            continue
        for path in _paths(mark):
            facts.routes.append(
                Route(path, verbs, f"{cls}.{name}", cls, line(mark), "spring", guards)
            )


def _verbs(mark: Node) -> tuple[str, ...] | None:
    """The HTTP methods of a mapping annotation; None when it is not one."""
    name = annotation_name(mark)
    if name in VERBS:
        return (VERBS[name],)
    if name != "RequestMapping":
        return None
    value = argument(mark, "method")
    if value is None:
        return ("ANY",)
    items = value.named_children if value.type == "element_value_array_initializer" else [value]
    return tuple(text(i).rsplit(".", 1)[-1].upper() for i in items) or ("ANY",)


def _guards(marks: list[Node]) -> tuple[str, ...]:
    return tuple(collapse(text(m)).lstrip("@") for m in marks if annotation_name(m) in GUARDS)
