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
C = "app/Http/Controllers/"
SANCTUM = ("api", "auth:sanctum")
TRACE = "TraceLayer::new_for_http()"

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
    "nextjs": {
        (("GET",), "/"): ("app/page.tsx", "Home", ()),
        (("GET",), "/products/:id"): ("app/(shop)/products/[id]/page.tsx", "ProductPage", ()),
        (("GET",), "/api/orders/:orderId"): ("app/api/orders/[orderId]/route.ts", "GET", ()),
        (("DELETE",), "/api/orders/:orderId"): (
            "app/api/orders/[orderId]/route.ts",
            "DELETE",
            (),
        ),
        (("GET",), "/docs/{slug:path}"): ("app/docs/[...slug]/page.tsx", "Docs", ()),
        (("GET",), "/about"): ("pages/about.tsx", "About", ()),
        (("GET",), "/blog"): ("pages/blog/index.tsx", "BlogIndex", ()),
        (("GET",), "/blog/:slug"): ("pages/blog/[slug].tsx", "Post", ()),
        (("ANY",), "/api/health"): ("pages/api/health.ts", "handler", ()),
    },
    "sveltekit": {
        (("GET",), "/dashboard"): ("src/routes/(app)/dashboard/+page.ts", "load", ()),
        (("GET",), "/blog/:slug"): ("src/routes/blog/[slug]/+page.server.ts", "load", ()),
        (("POST",), "/blog/:slug"): ("src/routes/blog/[slug]/+page.server.ts", "actions", ()),
        (("GET",), "/api/items"): ("src/routes/api/items/+server.ts", "GET", ()),
        (("POST",), "/api/items"): ("src/routes/api/items/+server.ts", "POST", ()),
    },
    "laravel": {
        (("GET",), "/"): (None, None, ("web",)),
        (("GET",), "/users/{id}"): (
            C + "UserController.php",
            "UserController.show",
            ("web", "auth"),
        ),
        (("GET",), "/admin/dashboard"): (
            C + "AdminController.php",
            "AdminController.index",
            ("web", "auth", "admin"),
        ),
        (("GET", "POST"), "/admin/reports/{year}"): (
            C + "AdminController.php",
            "AdminController.report",
            ("web", "auth", "admin"),
        ),
        (("GET",), "/photos"): (C + "PhotoController.php", "PhotoController.index", ("web",)),
        (("GET",), "/photos/{photo}"): (
            C + "PhotoController.php",
            "PhotoController.show",
            ("web",),
        ),
        (("DELETE",), "/photos/{photo}"): (
            C + "PhotoController.php",
            "PhotoController.destroy",
            ("web",),
        ),
        # routes/api.php: under /api and the api group; apiResource has no create/edit
        (("GET",), "/api/posts"): (C + "PostController.php", "PostController.index", SANCTUM),
        (("POST",), "/api/posts"): (C + "PostController.php", "PostController.store", SANCTUM),
        (("GET",), "/api/posts/{post}"): (C + "PostController.php", "PostController.show", SANCTUM),
        (("PUT", "PATCH"), "/api/posts/{post}"): (
            C + "PostController.php",
            "PostController.update",
            SANCTUM,
        ),
        (("DELETE",), "/api/posts/{post}"): (
            C + "PostController.php",
            "PostController.destroy",
            SANCTUM,
        ),
        (("GET",), "/api/orders/{id}"): (
            C + "OrderController.php",
            "OrderController.show",
            SANCTUM,
        ),
        (("POST",), "/api/orders"): (C + "OrderController.php", "OrderController.store", SANCTUM),
        (("ANY",), "/api/ping"): (C + "OrderController.php", "OrderController.ping", ("api",)),
    },
    "rust": {
        # Axum: layer wraps what was added before it, nested routers included
        (("GET",), "/"): ("src/main.rs", "root", (TRACE,)),
        (("GET",), "/users"): ("src/handlers.rs", "list_users", (TRACE,)),
        (("POST",), "/users"): ("src/handlers.rs", "create_user", (TRACE,)),
        (("GET",), "/api/items/:id"): ("src/main.rs", "show_item", (TRACE, "RequireAuth::new()")),
        (("DELETE",), "/api/items/:id"): (
            "src/main.rs",
            "delete_item",
            (TRACE, "RequireAuth::new()"),
        ),
        (("ANY",), "/metrics"): ("src/main.rs", "metrics", ()),
        # Actix: macros mounted by .service, scopes, resources, configure, wrap
        (("GET",), "/admin/hello/{name}"): ("src/main.rs", "greet", ("Logger::default()",)),
        (("GET",), "/admin/health"): ("src/main.rs", "health", ("Logger::default()",)),
        (("DELETE",), "/admin/reports/{id}"): (
            "src/main.rs",
            "drop_report",
            ("Logger::default()",),
        ),
        (("GET", "HEAD"), "/legacy"): ("src/main.rs", "legacy", ()),
    },
    "react": {
        # JSX: the index route stands for "/", the layout only wraps it
        (("GET",), "/"): ("src/pages/Home.tsx", "Home", ()),
        (("GET",), "/users/:id"): ("src/pages/User.tsx", "User", ()),
        # route objects: children joined under /app, Component and loader
        (("GET",), "/app"): ("src/Layout.tsx", "Root", ()),
        (("GET",), "/app/team/:teamId"): ("src/pages/Team.tsx", "Team", ("loader=teamLoader",)),
        (("GET",), "/app/settings"): ("src/router.tsx", "Settings", ()),
    },
}
VAPOR = "Sources/App/"
EXPECTED["vapor"] = {
    (("GET",), "/"): (None, None, ()),
    (("GET",), "/hello/:name"): (None, None, ()),
    (("POST",), "/api/v1/login"): (VAPOR + "routes.swift", "login", ()),
    (("GET",), "/api/v1/me"): (VAPOR + "routes.swift", "me", ("User.authenticator()",)),
    (("DELETE",), "/admin/cache"): (VAPOR + "routes.swift", "clearCache", ()),
    (("GET",), "/todos"): (VAPOR + "Controllers/TodoController.swift", "TodoController.index", ()),
    (("PATCH",), "/todos/:todoID"): (
        VAPOR + "Controllers/TodoController.swift",
        "TodoController.update",
        (),
    ),
}
FRAMEWORKS = {
    "react": {"react-router"},
    "go": {"gin", "chi", "echo", "nethttp", "gorilla"},
    "rust": {"axum", "actix"},
}


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


def test_file_routes_need_their_framework_folder(tmp_path: Path) -> None:
    """A ``pages/`` folder without a ``next.config.*`` and a ``page.tsx`` outside ``app/``
    are not routes (no Next.js there)."""
    root = tmp_path / "plain"
    (root / "pages").mkdir(parents=True)
    (root / "pages" / "about.tsx").write_text("export default function About() {}\n")
    (root / "ui").mkdir()
    (root / "ui" / "page.tsx").write_text("export default function Page() {}\n")
    graph = CodeGraph.open(root)
    graph.index()
    assert graph.routes() == []


def test_find_route_matches_a_file_route(tmp_path: Path) -> None:
    graph = _graph(tmp_path, "nextjs")
    found = graph.find_route("/docs/guides/install").items
    assert [r["handler_qualname"] for r in found] == ["Docs"]
    assert found[0]["params"] == {"slug": "guides/install"}


RAILS = {
    (("GET",), "/"): "PagesController.home",
    (("GET",), "/about"): "PagesController.about",
    (("POST",), "/login"): "SessionsController.create",
    (("GET", "POST"), "/search"): "SearchController.run",
    (("GET",), "/articles"): "ArticlesController.index",
    (("GET",), "/articles/:id"): "ArticlesController.show",
    (("POST",), "/articles/:article_id/comments"): "CommentsController.create",
    (("POST",), "/articles/:id/publish"): "ArticlesController.publish",
    (("GET",), "/profile/new"): "ProfilesController.new",
    (("POST",), "/profile"): "ProfilesController.create",
    (("GET",), "/profile"): "ProfilesController.show",
    (("GET",), "/profile/edit"): "ProfilesController.edit",
    (("PATCH", "PUT"), "/profile"): "ProfilesController.update",
    (("GET",), "/admin/users"): "Admin.UsersController.index",
    (("DELETE",), "/admin/users/:id"): "Admin.UsersController.destroy",
    (("GET",), "/api/status"): "Api.StatusController.show",
}


def test_rails_routes_joined_in_the_graph(tmp_path: Path) -> None:
    """Through the Ruby extractor: handlers resolve to the controllers the fixture defines
    (the others stay unresolved, not guessed)."""
    routes = _graph(tmp_path, "rails").routes()
    assert {(tuple(r["methods"]), r["pattern"]) for r in routes} == set(RAILS)
    defined = {r["handler_qualname"]: r["handler_file"] for r in routes if r["handler_file"]}
    assert defined == {
        "PagesController.home": "app/controllers/pages_controller.rb",
        "PagesController.about": "app/controllers/pages_controller.rb",
        "ArticlesController.index": "app/controllers/articles_controller.rb",
        "ArticlesController.show": "app/controllers/articles_controller.rb",
        "ArticlesController.publish": "app/controllers/articles_controller.rb",
        "Admin.UsersController.index": "app/controllers/admin/users_controller.rb",
        "Admin.UsersController.destroy": "app/controllers/admin/users_controller.rb",
        "Api.StatusController.show": "app/controllers/api/status_controller.rb",
    }


def test_rails_routes_expand_the_routing_dsl() -> None:
    """resources/resource with only/except, nesting, member blocks, namespace, scope with
    module, root, match via, and the ``"path" => "c#a"`` form."""
    ruby = pytest.importorskip("tree_sitter_ruby")
    from tree_sitter import Language, Parser

    from clawql_git.codegraph.model import FileFacts
    from clawql_git.codegraph.rails_routes import rails_routes

    source = (FIXTURES / "routes_rails" / "config" / "routes.rb").read_bytes()
    facts = FileFacts("config/routes.rb", "ruby")
    rails_routes(Parser(Language(ruby.language())).parse(source).root_node, facts)
    assert {(r.methods, r.path): r.handler for r in facts.routes} == RAILS
    other = FileFacts("app/models/user.rb", "ruby")
    rails_routes(Parser(Language(ruby.language())).parse(source).root_node, other)
    assert other.routes == []  # only the routes files are read as routes


def test_vapor_routes_on_routers_groups_and_collections() -> None:
    swift = pytest.importorskip("tree_sitter_swift")
    from tree_sitter import Language, Parser

    from clawql_git.codegraph.model import FileFacts
    from clawql_git.codegraph.vapor_routes import vapor_routes

    parser = Parser(Language(swift.language()))
    found = {}
    for name in ("routes.swift", "Controllers/TodoController.swift"):
        facts = FileFacts(name, "swift")
        source = (FIXTURES / "routes_vapor" / "Sources" / "App" / name).read_bytes()
        vapor_routes(parser.parse(source).root_node, facts)
        found[name] = facts
    routes = {(r.methods, r.path, r.owner): r.handler for f in found.values() for r in f.routes}
    assert routes == {
        (("GET",), "", "routes.app"): "",
        (("GET",), "/hello/:name", "routes.app"): "",
        (("POST",), "/login", "routes.api"): "login",
        (("GET",), "/me", "routes.secure"): "me",
        (("DELETE",), "/cache", "routes.group@14:4"): "clearCache",
        (("GET",), "", "boot.todos"): "TodoController.index",
        (("PATCH",), "/:todoID", "boot.todos"): "TodoController.update",
    }
    mounts = {
        (m.parent, m.child): (m.prefix, m.middleware) for f in found.values() for m in f.mounts
    }
    assert mounts[("routes.app", "routes.api")] == ("/api/v1", ())
    assert mounts[("routes.api", "routes.secure")] == ("", ("User.authenticator()",))
    assert mounts[("routes.app", "routes.group@14:4")] == ("/admin", ())
    assert mounts[("TodoController", "boot.todos")] == ("/todos", ())
    assert mounts[("routes.app", "TodoController")] == ("", ())
