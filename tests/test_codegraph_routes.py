"""Python routes on a fixture repository (tests/fixtures/code/python_routes) with every route
stated: Flask blueprints (url_prefix at construction and at registration), ``add_url_rule``,
``@app.get`` inside an app factory; FastAPI ``APIRouter`` prefixes joined with
``include_router`` prefixes and dependencies, websockets, ``api_route``; Django ``path``,
``re_path`` and ``include``. Then ``find-route`` on concrete paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.routes import join, match

FIXTURE = Path(__file__).parent / "fixtures" / "code" / "python_routes"

EXPECTED = {
    # (methods, pattern): (handler file, handler qualname, framework)
    (("GET", "POST"), "/v1/chat/<int:chat_id>"): ("flask_app/views.py", "chat", "flask"),
    (("POST",), "/v1/items"): ("flask_app/views.py", "create_item", "flask"),
    (("DELETE",), "/admin/users/<user_id>"): ("flask_app/admin.py", "delete_user", "flask"),
    (("GET", "HEAD"), "/health"): ("flask_app/__init__.py", "health", "flask"),
    (("GET",), "/ping"): ("flask_app/__init__.py", "create_app.ping", "flask"),
    (("GET",), "/late"): (None, None, "flask"),  # an endpoint name, no view_func
    (("GET",), "/api/users/{user_id}"): ("api/users.py", "read_user", "fastapi"),
    (("PATCH",), "/api/users/{user_id}"): ("api/users.py", "update_user", "fastapi"),
    (("OPTIONS",), "/api/users/"): ("api/users.py", "user_options", "fastapi"),
    (("WS",), "/ws"): ("api/main.py", "stream", "fastapi"),
    (("GET", "PUT"), "/multi"): ("api/main.py", "multi", "fastapi"),
    (("ANY",), "/"): ("mysite/views.py", "home", "django"),
    (("ANY",), "/blog/<int:pk>/"): ("blog/views.py", "detail", "django"),
    (("ANY",), "re:archive/(?P<year>[0-9]{4})/"): ("mysite/views.py", "archive", "django"),
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    root = tmp_path_factory.mktemp("routes") / "repo"
    shutil.copytree(FIXTURE, root)
    g = CodeGraph.open(root)
    g.index()
    return g


def test_every_route_with_its_prefixes_joined(graph: CodeGraph) -> None:
    found = {
        (tuple(r["methods"]), r["pattern"]): (
            r["handler_file"],
            r["handler_qualname"],
            r["framework"],
        )
        for r in graph.routes()
    }
    assert found == EXPECTED


def test_dependencies_and_websockets(graph: CodeGraph) -> None:
    routes = {r["pattern"] + " " + ",".join(r["methods"]): r for r in graph.routes()}
    assert routes["/api/users/{user_id} GET"]["middleware"] == ["Depends(auth)"]
    assert routes["/ws WS"]["websocket"] is True
    assert routes["/multi GET,PUT"]["middleware"] == []


@pytest.mark.parametrize(
    ("path", "method", "handler", "params"),
    [
        ("/v1/chat/42", None, "chat", {"chat_id": "42"}),
        ("/api/users/7", "PATCH", "update_user", {"user_id": "7"}),
        ("/api/users/7", "GET", "read_user", {"user_id": "7"}),
        ("/blog/3/", None, "detail", {"pk": "3"}),
        ("/blog/3", None, "detail", {"pk": "3"}),
        ("/archive/2024/", None, "archive", {"year": "2024"}),
        ("/admin/users/bob", "DELETE", "delete_user", {"user_id": "bob"}),
        ("/", None, "home", {}),
    ],
)
def test_find_route_matches_concrete_paths(
    graph: CodeGraph, path: str, method: str | None, handler: str, params: dict[str, str]
) -> None:
    answer = graph.find_route(path, method)
    assert answer.total == 1, answer.items
    assert answer.items[0]["handler_qualname"] == handler
    assert answer.items[0]["params"] == params


def test_find_route_refuses_what_does_not_match(graph: CodeGraph) -> None:
    assert graph.find_route("/v1/chat/not-a-number").total == 0
    assert graph.find_route("/api/users/7", "DELETE").total == 0
    assert graph.find_route("/archive/24/").total == 0


def test_pattern_syntaxes() -> None:
    assert match("/users/:id", "/users/9") == {"id": "9"}  # Express
    assert match("/files/{p:path}", "/files/a/b.txt") == {"p": "a/b.txt"}
    assert match("/files/<path:p>", "/files/a/b") == {"p": "a/b"}
    assert match("/x/<uuid:u>", "/x/not-hex!") is None
    assert join("/api/", "/users") == "/api/users"
    assert join("", "/users") == "/users"


def test_cli_find_route(graph: CodeGraph) -> None:
    done = CliRunner().invoke(
        cli, ["code", "find-route", "/v1/chat/42", "-C", str(graph.root), "--json"]
    )
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert record["total"] == 1 and record["items"][0]["file"] == "flask_app/views.py"
    assert record["items"][0]["methods"] == ["GET", "POST"]
