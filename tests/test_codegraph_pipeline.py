"""The whole code-graph pipeline (index -> resolve -> query) on the non-Python fixture
repositories: each is committed to a real git repository, indexed with ``CodeGraph``, and
queried; the expected definitions, call targets, import chains, module summaries and routes
are stated here from the fixtures' code. The extractor tests check facts per file; these
check that the core resolves them across files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from clawql_git.codegraph.graph import CodeGraph

from .conftest import git

FIXTURES = Path(__file__).parent / "fixtures" / "code"


def indexed(tmp_path: Path, fixture: str, extra: dict[str, str] | None = None) -> CodeGraph:
    """The fixture (plus ``extra`` files) committed to a fresh repository and indexed."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    for rel, text in (extra or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(tmp_path, "init", "-q", str(root))
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "first")
    graph = CodeGraph.open(root)
    graph.index()
    return graph


def where(graph: CodeGraph, name: str) -> list[tuple[str, str, str]]:
    """(file, qualname, kind) of every exact definition of ``name``."""
    answer = graph.find_symbol(name)
    assert answer.extra["match"] == "exact"
    return [(s["file"], s["qualname"], s["kind"]) for s in answer.items]


def callees(graph: CodeGraph, name: str, file: str) -> set[tuple[str, str | None, str, float]]:
    """(callee as written, target, resolution, confidence) of each call inside ``name``."""
    return {
        (c["callee"], c["target"], c["resolution"], c["confidence"])
        for c in graph.callees(name, file).items
    }


def callers(graph: CodeGraph, name: str, file: str | None = None) -> set[tuple[str, str, str]]:
    """(calling file, caller, resolution) of each resolved call site of ``name``."""
    answer = graph.callers(name, file, unresolved=False)
    return {(c["file"], c["caller"], c["resolution"]) for c in answer.items}


def chain(graph: CodeGraph, source: str, target: str) -> list[str]:
    return [step["file"] for step in graph.dependency_path(source, target).items]


def module(graph: CodeGraph, name: str) -> tuple[set[str], list[str], list[str]]:
    """(exported top-level symbols, dependencies, dependants) of a module."""
    answer = graph.explain_module(name)
    x = answer.extra
    return {s["name"] for s in answer.items}, x["dependencies"], x["dependants"]


def route(graph: CodeGraph, path: str, method: str) -> list[dict[str, Any]]:
    """(pattern, handler, handler target, params) of each route matching a request."""
    return [
        {
            "pattern": r["pattern"],
            "handler": r["handler"],
            "target": f"{r['handler_file']}:{r['handler_qualname']}" if r["handler_file"] else None,
            "params": r["params"],
            "middleware": r["middleware"],
        }
        for r in graph.find_route(path, method).items
    ]


# ---------------------------------------------------------------- JavaScript (ESM + CommonJS)

JS_EXTRA = {  # a CommonJS require bound to another name than the class it exports
    "lib/keeper.js": (
        'const Hist = require("./history.cjs");\n\n'
        "function keep(x) {\n  const h = new Hist();\n  h.push(x);\n  return h;\n}\n\n"
        "module.exports = { keep };\n"
    ),
}


@pytest.fixture(scope="module")
def js(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "js", JS_EXTRA)


def test_js_symbols(js: CodeGraph) -> None:
    assert where(js, "Calculator.sum") == [("lib/math.js", "Calculator.sum", "method")]
    assert where(js, "History") == [("lib/history.cjs", "History", "class")]
    assert where(js, "load") == [("main.mjs", "load", "function")]


def test_js_calls_through_esm_and_commonjs(js: CodeGraph) -> None:
    assert callees(js, "Calculator.sum", "lib/math.js") == {
        ("this.history.push", "lib/history.cjs:History.push", "inferred", 0.8),
        ("xs.reduce", None, "unresolved", 0.0),
    }
    # `const History = require('./history.cjs')` of `module.exports = History`, whatever the
    # binding is called
    assert callers(js, "History") == {
        ("lib/math.js", "Calculator.constructor", "exact"),
        ("lib/keeper.js", "keep", "exact"),
    }
    assert callers(js, "History.push") == {
        ("lib/math.js", "Calculator.sum", "inferred"),
        ("lib/keeper.js", "keep", "inferred"),
    }
    assert callers(js, "Calculator.sum") == {("main.mjs", "", "inferred")}
    assert ("parse", "lib/parse.js:parse", "exact", 1.0) in callees(js, "load", "main.mjs")


def test_js_modules(js: CodeGraph) -> None:
    assert chain(js, "main.mjs", "lib/history.cjs") == [
        "main.mjs",
        "lib/math.js",
        "lib/history.cjs",
    ]
    assert module(js, "lib/math.js") == ({"add", "Calculator"}, ["lib/history.cjs"], ["main.mjs"])
    assert module(js, "lib/history.cjs") == (
        {"History"},
        [],
        ["lib/keeper.js", "lib/math.js"],
    )


# ---------------------------------------------------------------- TypeScript / TSX


@pytest.fixture(scope="module")
def ts(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "ts")


def test_ts_symbols(ts: CodeGraph) -> None:
    assert where(ts, "User.save") == [("src/models/index.ts", "User.save", "method")]
    assert where(ts, "shout") == [
        ("src/lib/strings.ts", "shout", "function"),
        ("src/util.ts", "shout", "function"),
    ]
    assert where(ts, "Role") == [("src/models/index.ts", "Role", "enum")]


def test_ts_calls_across_files(ts: CodeGraph) -> None:
    assert callers(ts, "UserRepo.store") == {("src/models/index.ts", "User.save", "inferred")}
    assert callers(ts, "Button") == {("src/App.tsx", "App", "exact")}  # a JSX element
    # `@lib/strings` through tsconfig paths: not the other `shout` in src/util.ts
    assert callers(ts, "shout", "src/lib/strings.ts") == {("src/index.ts", "", "exact")}
    assert callers(ts, "shout", "src/util.ts") == set()
    assert callees(ts, "formatName", "src/util.ts") == {
        ("defaultLast", "src/util.ts:defaultLast", "exact", 1.0),
        ("`${first} ${last}`.trim", None, "unresolved", 0.0),
    }


def test_ts_modules(ts: CodeGraph) -> None:
    assert chain(ts, "src/index.ts", "src/repo.ts") == ["src/index.ts", "src/repo.ts"]
    assert chain(ts, "src/repo.ts", "src/models/index.ts") == [
        "src/repo.ts",
        "src/models/index.ts",
    ]
    assert chain(ts, "src/App.tsx", "src/util.ts") == []
    assert module(ts, "src/util.ts") == ({"formatName", "shout", "Name"}, [], ["src/index.ts"])
    assert module(ts, "src/models/index.ts") == (
        {"Entity", "User", "Role"},
        ["src/repo.ts"],
        ["src/index.ts", "src/repo.ts"],
    )


# ---------------------------------------------------------------- Go


@pytest.fixture(scope="module")
def go(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "go")


def test_go_symbols(go: CodeGraph) -> None:
    assert where(go, "Store.Get") == [("internal/store/store.go", "Store.Get", "method")]
    assert where(go, "Store.Count") == [("internal/store/store.go", "Store.Count", "method")]
    assert where(go, "newCache") == [("internal/store/cache.go", "newCache", "function")]


def test_go_package_scope_spans_the_directory(go: CodeGraph) -> None:
    # newCache and the Cache type are in cache.go, used from store.go: one package
    assert callees(go, "NewStore", "internal/store/store.go") == {
        ("Store{}", "internal/store/store.go:Store", "exact", 1.0),  # &Store{...}
        ("newCache", "internal/store/cache.go:newCache", "exact", 1.0),
    }
    assert ("s.cache.Get", "internal/store/cache.go:Cache.Get", "inferred", 0.8) in callees(
        go, "Store.Get", "internal/store/store.go"
    )
    assert callers(go, "NewStore") == {
        ("cmd/shop/main.go", "", "exact"),
        ("cmd/shop/main.go", "main", "exact"),
        ("internal/store/store_test.go", "TestGet", "exact"),
    }
    assert callers(go, "Cache.Put") == {("cmd/shop/main.go", "main", "inferred")}
    # `s := st.NewStore(..)`: typed by NewStore's result `*Store` (package var too), and
    # `NewStore("x").Get("k")` in the test
    assert callers(go, "Store.Get") == {
        ("cmd/shop/main.go", "main", "inferred"),
        ("internal/store/store_test.go", "TestGet", "inferred"),
    }
    assert callers(go, "Store.Count") == {("cmd/shop/main.go", "main", "inferred")}
    assert callers(go, "Cache.Get") == {("internal/store/store.go", "Store.Get", "inferred")}


def test_go_modules(go: CodeGraph) -> None:
    assert chain(go, "cmd/shop/main.go", "internal/store/cache.go") == [
        "cmd/shop/main.go",
        "internal/store/cache.go",
    ]
    answer = go.explain_module("internal/store/store.go")
    assert answer.extra["summary"] == "Package store keeps things."
    assert module(go, "internal/store/store.go") == (
        {"MaxItems", "Store", "NewStore", "Getter"},
        [],
        ["cmd/shop/main.go"],
    )
    assert answer.extra["external_dependencies"] == ["sync"]


# ---------------------------------------------------------------- Rust


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "rust")


def test_rust_symbols(rust: CodeGraph) -> None:
    assert where(rust, "Service.new") == [("src/service/mod.rs", "Service.new", "method")]
    assert where(rust, "User.fmt") == [("src/models.rs", "User.fmt", "method")]  # trait impl
    assert where(rust, "normalize") == [("src/service/helpers.rs", "normalize", "function")]


def test_rust_paths_resolve(rust: CodeGraph) -> None:
    assert ("service::Service::new", "src/service/mod.rs:Service.new", "exact", 1.0) in callees(
        rust, "build", "src/lib.rs"
    )
    assert callers(rust, "User.new") == {("src/service/mod.rs", "Service.greet", "exact")}
    greet = callees(rust, "Service.greet", "src/service/mod.rs")
    assert ("User::new", "src/models.rs:User.new", "exact", 1.0) in greet
    assert ("normalize", "src/service/helpers.rs:normalize", "exact", 1.0) in greet  # glob use
    assert ("self.repo.find", "src/service/mod.rs:Repo.find", "inferred", 0.8) in greet
    # std paths are external, never a definition of the crate
    build = {c[0]: c[2] for c in callees(rust, "build", "src/lib.rs")}
    assert build["HashMap::new"] == "external"


def test_rust_modules(rust: CodeGraph) -> None:
    assert chain(rust, "src/lib.rs", "src/service/helpers.rs") == [
        "src/lib.rs",
        "src/service/mod.rs",
        "src/service/helpers.rs",
    ]
    assert module(rust, "src/service/mod.rs") == (
        {"Repo", "Service"},
        ["src/models.rs", "src/service/helpers.rs"],
        ["src/lib.rs"],
    )
    assert module(rust, "src/models.rs") == (
        {"User", "Role"},
        [],
        ["src/lib.rs", "src/service/helpers.rs", "src/service/mod.rs"],
    )


# ---------------------------------------------------------------- Java

APP = "src/main/java/com/acme/App.java"
USER = "src/main/java/com/acme/model/User.java"
STRINGS = "src/main/java/com/acme/util/Strings.java"


@pytest.fixture(scope="module")
def java(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "java")


def test_java_symbols(java: CodeGraph) -> None:
    assert where(java, "User.User") == [(USER, "User.User", "method")]  # a constructor
    assert where(java, "App.Config.port") == [(APP, "App.Config.port", "method")]
    assert [w[1] for w in where(java, "App.greet")] == ["App.greet", "App.greet"]  # overloads


def test_java_calls_across_packages(java: CodeGraph) -> None:
    assert callers(java, "User.getName") == {(APP, "App.greet", "inferred")}
    assert callers(java, "Strings.trim") == {(APP, "App.greet", "exact")}
    assert callers(java, "Strings.shout") == {(APP, "App.greet", "exact")}  # import static
    main = callees(java, "App.main", APP)
    assert ("User", f"{USER}:User", "exact", 1.0) in main
    assert ("app.greet", f"{APP}:App.greet", "inferred", 0.8) in main
    assert ("List.of", None, "external", 0.0) in main


def test_java_modules(java: CodeGraph) -> None:
    assert chain(java, APP, STRINGS) == [APP, STRINGS]
    assert chain(java, USER, APP) == []
    assert module(java, APP) == ({"App"}, [USER, STRINGS], [])
    assert module(java, USER) == ({"User"}, [], [APP])


# ---------------------------------------------------------------- Express


@pytest.fixture(scope="module")
def express(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "express")


def test_express_routes_under_mounted_routers(express: CodeGraph) -> None:
    # users.ts `export default users` is required by server.js and mounted at /users on v1,
    # itself mounted at /api/v1 (with requireAuth) on the app; chained .route('/:id')
    assert route(express, "/api/v1/users/42", "GET") == [
        {
            "pattern": "/api/v1/users/:id",
            "handler": "ctrl.show",
            "target": None,
            "params": {"id": "42"},
            "middleware": ["requireAuth"],
        }
    ]
    assert [r["handler"] for r in route(express, "/api/v1/users/42", "DELETE")] == ["ctrl.remove"]
    assert [(r["pattern"], r["handler"]) for r in route(express, "/api/v1/users/new", "POST")] == [
        ("/api/v1/users/new", "ctrl.create")
    ]
    assert route(express, "/api/v1/ping", "OPTIONS") == [  # .all(): any method
        {
            "pattern": "/api/v1/ping",
            "handler": "ping",
            "target": "src/server.js:ping",
            "params": {},
            "middleware": ["requireAuth"],
        }
    ]
    assert [r["handler"] for r in route(express, "/health", "GET")] == ["<anonymous>"]
    assert route(express, "/users/42", "GET") == []  # only under its mount


def test_express_modules(express: CodeGraph) -> None:
    assert chain(express, "src/server.js", "src/routes/users.ts") == [
        "src/server.js",
        "src/routes/users.ts",
    ]


# ---------------------------------------------------------------- NestJS


@pytest.fixture(scope="module")
def nest(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return indexed(tmp_path_factory.mktemp("p"), "nestjs")


def test_nestjs_routes(nest: CodeGraph) -> None:
    cats = "src/cats/cats.controller.ts"
    assert route(nest, "/cats/7", "GET") == [
        {
            "pattern": "/cats/:id",
            "handler": "CatsController.findOne",
            "target": f"{cats}:CatsController.findOne",
            "params": {"id": "7"},
            "middleware": ["UseGuards(AuthGuard)"],
        }
    ]
    assert [r["target"] for r in route(nest, "/cats/7", "DELETE")] == [
        f"{cats}:CatsController.remove"
    ]
    assert [r["target"] for r in route(nest, "/cats", "POST")] == [f"{cats}:CatsController.create"]
    assert [r["target"] for r in route(nest, "/admin/metrics", "GET")] == [
        "src/admin.controller.ts:AdminController.stats"
    ]
    assert route(nest, "/cats/7", "POST") == []


def test_nestjs_controller_calls_its_service(nest: CodeGraph) -> None:
    assert callers(nest, "CatsService.findOne") == {
        ("src/cats/cats.controller.ts", "CatsController.findOne", "inferred")
    }
    assert module(nest, "src/cats/cats.service.ts") == (
        {"CatsService"},
        [],
        ["src/cats/cats.controller.ts"],
    )


def test_rust_mod_declarations_are_relative_to_their_file(tmp_path: Path) -> None:
    # `mod inner;` in src/lib.rs is src/inner.rs, in src/util.rs (same folder) src/util/inner.rs
    root = tmp_path / "crate"
    files = {
        "Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n',
        "src/lib.rs": "mod inner;\nmod util;\n\npub fn top() {\n    inner::deep();\n}\n",
        "src/inner.rs": (
            "pub fn deep() {\n    let t = Thing::new();\n    t.run();\n}\n\n"
            "pub struct Thing;\n\nimpl Thing {\n"
            "    pub fn new() -> Self {\n        Thing\n    }\n\n"
            "    pub fn run(&self) {}\n}\n"
        ),
        "src/util.rs": "mod inner;\n\npub fn go() {\n    inner::deep();\n}\n",
        "src/util/inner.rs": "pub fn deep() {}\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(tmp_path, "init", "-q", str(root))
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "first")
    graph = CodeGraph.open(root)
    graph.index()
    assert callees(graph, "top", "src/lib.rs") == {
        ("inner::deep", "src/inner.rs:deep", "exact", 1.0)
    }
    assert callees(graph, "go", "src/util.rs") == {
        ("inner::deep", "src/util/inner.rs:deep", "exact", 1.0)
    }
    assert chain(graph, "src/util.rs", "src/util/inner.rs") == ["src/util.rs", "src/util/inner.rs"]
    assert chain(graph, "src/util.rs", "src/inner.rs") == []
    # `let t = Thing::new()` with `fn new() -> Self`: t is a Thing
    assert callers(graph, "Thing.run") == {("src/inner.rs", "deep", "inferred")}
