"""Routes of the frameworks beyond Python and Express/Nest, one fixture repository each under
tests/fixtures/code/routes_<framework>, written from each framework's own documentation, with
every route stated: (methods, joined pattern) -> (handler file, handler qualname, middleware)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from clawql_git.codegraph.graph import CodeGraph

FIXTURES = Path(__file__).parent / "fixtures" / "code"
SPRING = "src/main/java/com/acme/shop/web/"
PRODUCTS = "Controllers/ProductsController.cs"
AUTH = "Authorize"

Expected = dict[tuple[tuple[str, ...], str], tuple[str | None, str | None, tuple[str, ...]]]

EXPECTED: dict[str, Expected] = {
    "spring": {
        (("GET",), "/api/orders"): (
            SPRING + "OrderController.java",
            "OrderController.list",
            ('PreAuthorize("isAuthenticated()")',),
        ),
        (("GET",), "/api/orders/{id}"): (
            SPRING + "OrderController.java",
            "OrderController.show",
            ('PreAuthorize("isAuthenticated()")',),
        ),
        (("POST",), "/api/orders"): (
            SPRING + "OrderController.java",
            "OrderController.create",
            (
                'PreAuthorize("isAuthenticated()")',
                "PreAuthorize(\"hasRole('CLERK')\")",
            ),
        ),
        (("PUT", "PATCH"), "/api/orders/{id}"): (
            SPRING + "OrderController.java",
            "OrderController.update",
            ('PreAuthorize("isAuthenticated()")',),
        ),
        (("PUT", "PATCH"), "/api/orders/{id}/replace"): (
            SPRING + "OrderController.java",
            "OrderController.update",
            ('PreAuthorize("isAuthenticated()")',),
        ),
        (("DELETE",), "/api/orders/{id}"): (
            SPRING + "OrderController.java",
            "OrderController.delete",
            ('PreAuthorize("isAuthenticated()")',),
        ),
        (("GET",), "/api/orders/{orderId}/items"): (
            SPRING + "OrderController.java",
            "OrderController.ItemController.items",
            (),
        ),
        (("GET",), "/health"): (SPRING + "HealthController.java", "HealthController.health", ()),
        (("ANY",), "/status"): (SPRING + "HealthController.java", "HealthController.status", ()),
    },
    "aspnet": {
        (("GET",), "/"): (None, None, ()),
        (("POST",), "/login"): ("Program.cs", "Login", ("AllowAnonymous()",)),
        (("GET",), "/todos/{id}"): ("Program.cs", "GetTodo", ("RequireAuthorization()",)),
        (("PUT", "PATCH"), "/todos/{id}"): (
            "Program.cs",
            "UpdateTodo",
            ("RequireAuthorization()",),
        ),
        (("DELETE",), "/admin/cache"): ("Program.cs", "ClearCache", ()),
        (("GET",), "/api/Products"): (
            PRODUCTS,
            "ProductsController.List",
            (AUTH, "AllowAnonymous"),
        ),
        (("GET",), "/api/Products/{id:int}"): (PRODUCTS, "ProductsController.Get", (AUTH,)),
        (("POST",), "/api/Products/bulk"): (PRODUCTS, "ProductsController.Bulk", (AUTH,)),
        (("PUT",), "/api/Products/{id:int}"): (PRODUCTS, "ProductsController.Update", (AUTH,)),
        (("PATCH",), "/api/Products/{id:int}"): (PRODUCTS, "ProductsController.Update", (AUTH,)),
        (("ANY",), "/api/Products/Export"): (PRODUCTS, "ProductsController.Export", (AUTH,)),
        (("DELETE",), "/admin/products/{id}"): (
            PRODUCTS,
            "ProductsController.Purge",
            (AUTH, 'Authorize(Roles = "Admin")'),
        ),
    },
    "go": {
        # Gin: r.Use before the group, group middleware, per-route middleware before the handler
        (("GET",), "/ping"): ("main.go", "ping", ("gin.Logger()",)),
        (("POST",), "/v1/login"): ("handlers/auth.go", "Login", ("gin.Logger()", "authRequired()")),
        (("GET",), "/v1/orders/:id"): (
            "handlers/auth.go",
            "ShowOrder",
            ("gin.Logger()", "authRequired()", "rateLimit"),
        ),
        # chi: nested Route closures, With, Mount of a router another function returns
        (("GET",), "/articles/"): ("main.go", "listArticles", ("requestID", "paginate")),
        (("GET",), "/articles/{articleID}/"): ("main.go", "getArticle", ("requestID",)),
        (("PUT",), "/articles/{articleID}/"): ("main.go", "updateArticle", ("requestID",)),
        (("GET",), "/admin/stats"): ("main.go", "stats", ("requestID",)),
        # Echo: middleware after the handler, groups, Match
        (("GET",), "/users/:id"): ("main.go", "getUser", ("audit",)),
        (("DELETE",), "/admin/users/:id"): ("main.go", "deleteUser", ("basicAuth",)),
        (("PUT", "PATCH"), "/users/:id"): ("main.go", "saveUser", ()),
        # net/http with Go 1.22 method patterns; gorilla/mux subrouters and .Methods
        (("GET",), "/items/{id}"): ("main.go", "getItem", ()),
        (("ANY",), "/static/"): ("main.go", "static", ()),
        (("GET", "HEAD"), "/backoffice/reports/{id}"): ("admin/gorilla.go", "report", ()),
        (("POST",), "/login"): ("admin/gorilla.go", "login", ()),
    },
}
FRAMEWORKS = {"go": {"gin", "chi", "echo", "nethttp", "gorilla"}}


def _graph(tmp: Path, name: str) -> CodeGraph:
    root = tmp / name
    shutil.copytree(FIXTURES / f"routes_{name}", root)
    graph = CodeGraph.open(root)
    graph.index()
    return graph


def _found(routes: list[dict[str, Any]]) -> Expected:
    return {
        (tuple(r["methods"]), r["pattern"]): (
            r["handler_file"],
            r["handler_qualname"],
            tuple(r["middleware"]),
        )
        for r in routes
    }


@pytest.mark.parametrize("framework", sorted(EXPECTED))
def test_every_route_of_the_framework(tmp_path: Path, framework: str) -> None:
    graph = _graph(tmp_path, framework)
    routes = graph.routes()
    assert {r["framework"] for r in routes} == FRAMEWORKS.get(framework, {framework})
    assert _found(routes) == EXPECTED[framework]
    assert all(r["line"] > 0 for r in routes)
