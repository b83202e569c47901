"""Route declarations in Python source: Flask, FastAPI/Starlette and Django, recorded as the
Route, Mount and RouterDef facts of one file (prefixes are joined later, across files)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawql_git.codegraph.model import FileFacts, Mount, Route, RouterDef

if TYPE_CHECKING:
    from tree_sitter import Node

HTTP = ("get", "post", "put", "delete", "patch", "head", "options", "trace")
CONSTRUCTORS = {
    "Flask": "flask",
    "Blueprint": "flask",
    "FastAPI": "fastapi",
    "APIRouter": "fastapi",
    "Starlette": "starlette",
    "Router": "starlette",
}
DJANGO_ROUTES = ("path", "re_path", "url")


def _text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def _literal(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    if any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(_text(c) for c in node.named_children if c.type == "string_content")


def arguments(call: Node) -> tuple[list[Node], dict[str, Node]]:
    """A call's positional and keyword arguments."""
    args = call.child_by_field_name("arguments")
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    if args is None:
        return positional, keywords
    for arg in args.named_children:
        if arg.type == "keyword_argument":
            name = _text(arg.child_by_field_name("name"))
            value = arg.child_by_field_name("value")
            if value is not None:
                keywords[name] = value
        elif arg.type != "comment":
            positional.append(arg)
    return positional, keywords


def _strings(node: Node | None) -> tuple[str, ...]:
    if node is None or node.type not in ("list", "tuple", "set"):
        return ()
    return tuple(v.upper() for v in (_literal(c) for c in node.named_children) if v is not None)


def _items(node: Node | None) -> tuple[str, ...]:
    if node is None or node.type not in ("list", "tuple"):
        return ()
    return tuple(_text(c) for c in node.named_children if c.type != "comment")


def _split(fn: Node) -> tuple[str, str]:
    """``owner.method`` of a call's function ('' owner for a bare name)."""
    if fn.type == "attribute":
        return _text(fn.child_by_field_name("object")), _text(fn.child_by_field_name("attribute"))
    return "", _text(fn)


def _route_path(node: Node | None) -> str | None:
    value = _literal(node)
    if value is None or (value and not value.startswith("/")):
        return None
    return value


class RouteCollector:
    """Adds route facts to ``facts`` as the walker meets decorators, calls and assignments."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def decorator(self, expr: Node, handler: str, target: Node, scope: str) -> None:
        """``@app.route('/x', methods=[...])``, ``@router.get('/x')``, ``@app.websocket('/ws')``."""
        if expr.type != "call" or target.type != "function_definition":
            return
        fn = expr.child_by_field_name("function")
        if fn is None or fn.type != "attribute":
            return
        owner, method = _split(fn)
        positional, keywords = arguments(expr)
        path = _route_path(
            keywords.get("path") or keywords.get("rule") or (positional[0] if positional else None)
        )
        if path is None:
            return
        line = expr.start_point[0] + 1
        deps = _items(keywords.get("dependencies"))
        if method == "route" or method == "api_route":
            methods = _strings(keywords.get("methods")) or ("GET",)
            framework = "flask" if method == "route" else "fastapi"
            self._route(path, methods, handler, owner, line, framework, deps)
        elif method in HTTP:
            self._route(path, (method.upper(),), handler, owner, line, "python", deps)
        elif method in ("websocket", "websocket_route"):
            self._route(path, ("WS",), handler, owner, line, "python", deps, websocket=True)

    def _route(
        self,
        path: str,
        methods: tuple[str, ...],
        handler: str,
        owner: str,
        line: int,
        framework: str,
        middleware: tuple[str, ...] = (),
        websocket: bool = False,
    ) -> None:
        self.facts.routes.append(
            Route(path, methods, handler, owner, line, framework, middleware, websocket)
        )

    def call(self, call: Node, fn: Node, scope: str) -> None:
        """``add_url_rule``, ``register_blueprint``, ``include_router``, ``add_api_route``,
        ``mount``: registrations written as calls."""
        if fn.type != "attribute":
            return
        owner, method = _split(fn)
        positional, keywords = arguments(call)
        line = call.start_point[0] + 1
        if method == "add_url_rule":
            path = _route_path(keywords.get("rule") or (positional[0] if positional else None))
            view = keywords.get("view_func") or (positional[2] if len(positional) > 2 else None)
            endpoint = keywords.get("endpoint") or (positional[1] if len(positional) > 1 else None)
            # without a view_func the rule names an endpoint bound elsewhere (@app.endpoint)
            handler = _text(view) if view is not None else _literal(endpoint)
            if path is not None and handler:
                methods = _strings(keywords.get("methods")) or ("GET",)
                self._route(path, methods, handler, owner, line, "flask")
        elif method in (
            "add_api_route",
            "add_route",
            "add_api_websocket_route",
            "add_websocket_route",
        ):
            path = _route_path(keywords.get("path") or (positional[0] if positional else None))
            view = keywords.get("endpoint") or (positional[1] if len(positional) > 1 else None)
            if path is None or view is None:
                return
            ws = "websocket" in method
            methods = ("WS",) if ws else _strings(keywords.get("methods")) or ("GET",)
            self._route(
                path,
                methods,
                _text(view),
                owner,
                line,
                "fastapi",
                _items(keywords.get("dependencies")),
                websocket=ws,
            )
        elif method in ("register_blueprint", "include_router", "mount") and positional:
            child_node = (
                positional[1]
                if method == "mount" and len(positional) > 1
                else (keywords.get("app") if method == "mount" else positional[0])
            )
            if child_node is None:
                return
            prefix_node = (
                positional[0]
                if method == "mount"
                else keywords.get("url_prefix" if method == "register_blueprint" else "prefix")
            )
            prefix = _literal(prefix_node) or ""
            framework = "flask" if method == "register_blueprint" else "fastapi"
            deps = _items(keywords.get("dependencies"))
            self.facts.mounts.append(Mount(owner, _text(child_node), prefix, line, framework, deps))

    def assignment(self, left: Node | None, right: Node, scope: str) -> None:
        """Router constructors (``bp = Blueprint(..., url_prefix='/x')``) and Django's
        ``urlpatterns = [path(...), ...]``."""
        if left is None or left.type not in ("identifier", "attribute"):
            return
        name = _text(left)
        if name == "urlpatterns" and right.type in ("list", "tuple", "binary_operator"):
            self.urlpatterns(right)
            return
        if right.type != "call":
            return
        fn = right.child_by_field_name("function")
        if fn is None:
            return
        ctor = _text(fn).rsplit(".", 1)[-1]
        framework = CONSTRUCTORS.get(ctor)
        if framework is None:
            return
        _, keywords = arguments(right)
        prefix = _literal(keywords.get("url_prefix") or keywords.get("prefix")) or ""
        self.facts.routers.append(
            RouterDef(name, _text(fn), prefix, right.start_point[0] + 1, framework)
        )

    def urlpatterns(self, node: Node) -> None:
        """Django: each ``path(route, view)``; ``include('app.urls')`` becomes a Mount."""
        stack = [node]
        while stack:
            cur = stack.pop()
            if cur.type in ("list", "tuple", "binary_operator", "parenthesized_expression"):
                stack.extend(reversed(cur.named_children))
                continue
            if cur.type != "call":
                continue
            fn = cur.child_by_field_name("function")
            if fn is None or _text(fn).rsplit(".", 1)[-1] not in DJANGO_ROUTES:
                continue
            positional, keywords = arguments(cur)
            route = _literal(positional[0] if positional else keywords.get("route"))
            view = positional[1] if len(positional) > 1 else keywords.get("view")
            if route is None or view is None:
                continue
            line = cur.start_point[0] + 1
            if _text(fn).endswith("re_path") or _text(fn).endswith("url"):
                route = "re:" + route
            if view.type == "call" and _text(view.child_by_field_name("function")).endswith(
                "include"
            ):
                vpos, _ = arguments(view)
                target = _literal(vpos[0]) if vpos else None
                child = target if target is not None else (_text(vpos[0]) if vpos else "")
                self.facts.mounts.append(Mount("urlpatterns", child, route, line, "django"))
            else:
                self._route(route, ("ANY",), _text(view), "urlpatterns", line, "django")
