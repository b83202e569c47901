"""React Router routes in one JS/TS file that imports ``react-router`` or ``react-router-dom``.

- JSX: ``<Route path="users/:id" element={<User />} />`` nested in ``<Route>`` elements, paths
  joined as React Router joins them (a relative child under its parent, an absolute one as
  written); ``<Route index element={...}>`` is its parent's path.
- objects: the route arrays given to ``createBrowserRouter``, ``createHashRouter``,
  ``createMemoryRouter``, ``createStaticRouter`` and ``useRoutes``: ``{ path, element |
  Component, children, index }`` nested the same way.

Each is a GET route (a page) handled by the component the element renders (``User``) or the
``Component`` named; ``loader``/``action`` functions are kept as its middleware
(``loader=teamLoader``) since they run before the page.
"""

from __future__ import annotations

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, Route
from clawql_git.codegraph.ts_util import line, text

PACKAGES = frozenset({"react-router", "react-router-dom"})
FACTORIES = frozenset(
    {
        "createBrowserRouter",
        "createHashRouter",
        "createMemoryRouter",
        "createStaticRouter",
        "useRoutes",
    }
)
_ELEMENTS = frozenset({"jsx_element", "jsx_self_closing_element"})


def react_routes(root: Node, facts: FileFacts) -> None:
    """Add the React Router routes of the file (none unless it imports React Router)."""
    if not any(imp.module in PACKAGES for imp in facts.imports):
        return
    _walk(root, "", facts)


def _walk(node: Node, parent: str, facts: FileFacts) -> None:
    for child in node.named_children:
        if child.type in _ELEMENTS and _tag(child) == "Route":
            _jsx_route(child, parent, facts)
        elif child.type == "call_expression" and _callee(child) in FACTORIES:
            args = child.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type == "array":
                _objects(first, parent, facts)
        else:
            _walk(child, parent, facts)


# ------------------------------------------------------------ JSX


def _opening(node: Node) -> Node:
    if node.type == "jsx_element":
        return node.child_by_field_name("open_tag") or node.named_children[0]
    return node


def _tag(node: Node) -> str:
    return text(_opening(node).child_by_field_name("name"))


def _attributes(node: Node) -> dict[str, Node | None]:
    out: dict[str, Node | None] = {}
    for attr in _opening(node).named_children:
        if attr.type == "jsx_attribute" and attr.named_children:
            key = text(attr.named_children[0])
            out[key] = attr.named_children[1] if len(attr.named_children) > 1 else None
    return out


def _jsx_route(node: Node, parent: str, facts: FileFacts) -> None:
    attrs = _attributes(node)
    path = _joined(parent, _value_string(attrs.get("path")), "index" in attrs)
    component = _component(attrs.get("element")) or _name(attrs.get("Component"))
    children = [c for c in node.named_children if c.type in _ELEMENTS and _tag(c) == "Route"]
    if _renders_itself(("path" in attrs or "index" in attrs), [_attributes(c) for c in children]):
        mids = _hooks({k: v for k, v in attrs.items() if k in {"loader", "action"}})
        facts.routes.append(Route(path, ("GET",), component, "", line(node), "react-router", mids))
    if node.type == "jsx_element":
        _walk(node, path, facts)


def _renders_itself(has_path: bool, children: list[dict[str, Node | None]]) -> bool:
    """A route is a page of its own when it has a path (or is an index) and no index child
    stands for it (a pathless layout route only wraps its children)."""
    return has_path and not any("index" in c and "path" not in c for c in children)


def _value_string(node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "string":
        return text(node)[1:-1]
    if node.type == "jsx_expression" and node.named_children:
        inner = node.named_children[0]
        return text(inner)[1:-1] if inner.type in {"string", "template_string"} else None
    return None


def _component(node: Node | None) -> str:
    """``User`` of ``{<User />}`` or ``{<User id={1}>...</User>}``."""
    if node is None:
        return ""
    inner = (
        node.named_children[0] if node.type == "jsx_expression" and node.named_children else node
    )
    if inner.type in _ELEMENTS:
        return _tag(inner)
    return ""


def _name(node: Node | None) -> str:
    if node is None:
        return ""
    inner = (
        node.named_children[0] if node.type == "jsx_expression" and node.named_children else node
    )
    return text(inner) if inner.type in {"identifier", "member_expression"} else ""


def _hooks(values: dict[str, Node | None]) -> tuple[str, ...]:
    return tuple(f"{k}={_name(v)}" for k, v in values.items() if _name(v))


# ------------------------------------------------------------ route objects


def _objects(array: Node, parent: str, facts: FileFacts) -> None:
    for item in array.named_children:
        if item.type != "object":
            continue
        props = _props(item)
        index = text(props.get("index")) == "true" if "index" in props else False
        path = _joined(parent, _string(props.get("path")), index)
        component = _component(props.get("element")) or _name(props.get("Component"))
        kids = props.get("children")
        kid_props = [_props(k) for k in kids.named_children if k.type == "object"] if kids else []
        shadowed = any(text(k.get("index")) == "true" for k in kid_props if "index" in k)
        if ("path" in props or index) and not shadowed:
            hooks = _hooks({k: v for k, v in props.items() if k in {"loader", "action"}})
            route = Route(path, ("GET",), component, "", line(item), "react-router", hooks)
            facts.routes.append(route)
        children = props.get("children")
        if children is not None and children.type == "array":
            _objects(children, path, facts)


def _props(obj: Node) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for pair in obj.named_children:
        if pair.type == "pair":
            key = text(pair.child_by_field_name("key")).strip("'\"")
            value = pair.child_by_field_name("value")
            if value is not None:
                out[key] = value
        elif pair.type == "shorthand_property_identifier":
            out[text(pair)] = pair
    return out


def _string(node: Node | None) -> str | None:
    if node is None or node.type not in {"string", "template_string"}:
        return None
    return text(node)[1:-1]


def _joined(parent: str, path: str | None, index: bool) -> str:
    """React Router's join: an absolute path as written, a relative one under its parent."""
    if index or path is None:
        return parent or "/"
    if path.startswith("/"):
        return path
    return parent.rstrip("/") + "/" + path if parent else "/" + path


def _callee(call: Node) -> str:
    return text(call.child_by_field_name("function")).rsplit(".", 1)[-1]
