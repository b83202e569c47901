"""The language-independent parts of resolution and routing, on facts as the other
languages' extractors hand them over (FileFacts of the model contract): same-file
definitions, named imports through ``resolve_module``, ``receiver.method`` typed by an
Assignment, Go packages spread over files, Java class imports and implicit ``this``, and
Express/NestJS prefixes joined through Mount/RouterDef."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import ClassVar

from clawql_git.codegraph.indexer import WorkTree
from clawql_git.codegraph.model import (
    Assignment,
    Call,
    FileFacts,
    Import,
    Mount,
    RepoView,
    Route,
    RouterDef,
    Symbol,
)
from clawql_git.codegraph.resolve import Resolver
from clawql_git.codegraph.routes import join_routes


class PathModules:
    """Module resolution of a path-based language (what lang_js/lang_go implement): ``./x``
    relative to the importer, a Go import path's last segments as a directory."""

    suffixes: ClassVar[dict[str, str]] = {".ts": "typescript", ".go": "go", ".java": "java"}

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        raise AssertionError("facts are given")

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        if module.startswith("./"):
            stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            return [f for f in (stem + ".ts", stem + "/index.ts") if f in repo.files]
        if module.startswith("example.com/m/"):
            folder = module.removeprefix("example.com/m/")
            return sorted(f for f in repo.files if posixpath.dirname(f) == folder)
        if module.startswith("com.acme."):
            path = "src/" + module.replace(".", "/") + ".java"
            return [path] if path in repo.files else []
        return []


def sym(name: str, kind: str = "function", qual: str | None = None) -> Symbol:
    return Symbol(name=name, qualname=qual or name, kind=kind, line=1, end_line=2)  # type: ignore[arg-type]


def resolver(*files: FileFacts) -> Resolver:
    by_path = {f.path: f for f in files}
    ex = PathModules()
    extractors = {lang: ex for lang in ex.suffixes.values()}
    return Resolver(by_path, extractors, WorkTree(Path("/nonexistent"), frozenset(by_path)))  # type: ignore[arg-type]


def targets(r: Resolver, path: str) -> dict[str, str]:
    return {
        e.callee: f"{e.target_path}:{e.target_qualname}" if e.target_path else e.resolution
        for e in r.edges(path)
    }


def test_typescript_imports_types_and_externals() -> None:
    util = FileFacts(
        "src/util.ts",
        "typescript",
        symbols=[sym("parseConfig"), sym("Loader", "class"), sym("load", "method", "Loader.load")],
    )
    main = FileFacts(
        "src/main.ts",
        "typescript",
        symbols=[sym("main"), sym("local")],
        imports=[
            Import("./util", "parseConfig", "parse", 1),
            Import("./util", "Loader", "", 2),
            Import("lodash", "default", "_", 3),
        ],
        calls=[
            Call("parse", "main", 5),
            Call("loader.load", "main", 6),
            Call("local", "main", 7),
            Call("_.map", "main", 8),
            Call("missing", "main", 9),
        ],
        assignments=[Assignment("loader", "Loader", "main", 4)],
    )
    assert targets(resolver(util, main), "src/main.ts") == {
        "parse": "src/util.ts:parseConfig",
        "loader.load": "src/util.ts:Loader.load",
        "local": "src/main.ts:local",
        "_.map": "external",
        "missing": "unresolved",
    }


def test_go_package_spread_over_files() -> None:
    a = FileFacts("pkg/a.go", "go", symbols=[sym("Server", "struct")])
    b = FileFacts("pkg/b.go", "go", symbols=[sym("Do"), sym("Start", "method", "Server.Start")])
    main = FileFacts(
        "main.go",
        "go",
        symbols=[sym("main")],
        imports=[Import("example.com/m/pkg", "", "", 1), Import("fmt", "", "", 2)],
        calls=[
            Call("pkg.Do", "main", 4),
            Call("s.Start", "main", 5),
            Call("fmt.Println", "main", 6),
        ],
        assignments=[Assignment("s", "pkg.Server", "main", 3)],
    )
    assert targets(resolver(a, b, main), "main.go") == {
        "pkg.Do": "pkg/b.go:Do",
        "s.Start": "pkg/b.go:Server.Start",
        "fmt.Println": "external",
    }


def test_java_class_import_and_implicit_this() -> None:
    repo = FileFacts(
        "src/com/acme/Repo.java",
        "java",
        symbols=[sym("Repo", "class"), sym("find", "method", "Repo.find")],
    )
    svc = FileFacts(
        "src/com/acme/Service.java",
        "java",
        symbols=[
            sym("Service", "class"),
            sym("run", "method", "Service.run"),
            sym("helper", "method", "Service.helper"),
        ],
        imports=[Import("com.acme.Repo", "", "", 1)],
        calls=[
            Call("helper", "Service.run", 5),
            Call("this.helper", "Service.run", 6),
            Call("repo.find", "Service.run", 7),
        ],
        assignments=[Assignment("repo", "Repo", "Service.run", 4)],
    )
    assert targets(resolver(repo, svc), "src/com/acme/Service.java") == {
        "helper": "src/com/acme/Service.java:Service.helper",
        "this.helper": "src/com/acme/Service.java:Service.helper",
        "repo.find": "src/com/acme/Repo.java:Repo.find",
    }


def test_express_and_nest_prefixes() -> None:
    routes_ts = FileFacts(
        "src/routes.ts",
        "typescript",
        symbols=[sym("getUser")],
        routers=[RouterDef("router", "express.Router", "", 1, "express")],
        routes=[
            Route("/users/:id", ("GET",), "getUser", "router", 3, "express"),
            Route("/users", ("POST",), "getUser", "router", 4, "express", ("auth",)),
        ],
    )
    app_ts = FileFacts(
        "src/app.ts",
        "typescript",
        imports=[Import("./routes", "default", "api", 1)],
        routers=[RouterDef("server", "express", "", 2, "express")],
        mounts=[Mount("server", "api", "/api", 3, "express", ("cors",))],
    )
    cats = FileFacts(
        "src/cats.ts",
        "typescript",
        symbols=[
            sym("CatsController", "class"),
            sym("findOne", "method", "CatsController.findOne"),
        ],
        routers=[RouterDef("CatsController", "Controller", "cats", 1, "nestjs")],
        routes=[Route(":id", ("GET",), "CatsController.findOne", "CatsController", 3, "nestjs")],
    )
    rows = {(r.pattern, r.methods): r for r in join_routes(resolver(routes_ts, app_ts, cats))}
    assert set(rows) == {
        ("/api/users/:id", ("GET",)),
        ("/api/users", ("POST",)),
        ("/cats/:id", ("GET",)),
    }
    assert rows[("/api/users", ("POST",))].middleware == ("cors", "auth")
    assert rows[("/api/users/:id", ("GET",))].handler_path == "src/routes.ts"
    assert rows[("/cats/:id", ("GET",))].handler_qualname == "CatsController.findOne"
