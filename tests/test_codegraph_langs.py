"""The JS/TS/TSX, Go, Rust and Java extractors on small fixture repositories.

Each fixture under ``tests/fixtures/code/<lang>/`` is a tiny repository written for these
tests; every expectation is stated exactly (symbols, imports and the files they resolve
to, calls with their caller and context, type evidence, routes, mounts, routers).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from clawql_git.codegraph.model import Extractor, FileFacts, Symbol

FIXTURES = Path(__file__).parent / "fixtures" / "code"
MODULES = {
    ".ts": "lang_js",
    ".tsx": "lang_js",
    ".js": "lang_js",
    ".mjs": "lang_js",
    ".cjs": "lang_js",
    ".go": "lang_go",
    ".rs": "lang_rust",
    ".java": "lang_java",
}


class DirRepo:
    """A RepoView over a fixture directory: its source files, and bytes of any file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = frozenset(
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.is_file() and p.suffix in MODULES
        )

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()


def extractor(suffix: str) -> Extractor:
    found: Extractor = importlib.import_module(f"clawql_git.codegraph.{MODULES[suffix]}").EXTRACTOR
    return found


def extract(fixture: str, path: str) -> FileFacts:
    source = (FIXTURES / fixture / path).read_bytes()
    ex = extractor(Path(path).suffix)
    return ex.extract(path, source, ex.suffixes[Path(path).suffix])


def resolve(fixture: str, importer: str, module: str) -> list[str]:
    ex = extractor(Path(importer).suffix)
    return ex.resolve_module(importer, module, DirRepo(FIXTURES / fixture))


def syms(f: FileFacts) -> list[tuple[str, str, int, int, bool]]:
    return [(s.qualname, s.kind, s.line, s.end_line, s.exported) for s in f.symbols]


def sym(f: FileFacts, qualname: str, index: int = 0) -> Symbol:
    return [s for s in f.symbols if s.qualname == qualname][index]


def imps(f: FileFacts) -> list[tuple[str, ...]]:
    return [(i.module, i.name, i.alias) + ((i.scope,) if i.scope else ()) for i in f.imports]


def calls(f: FileFacts) -> list[tuple[object, ...]]:
    return [
        (c.callee, c.caller, c.line) + ((c.context,) if c.context != "body" else ())
        for c in f.calls
    ]


def asgs(f: FileFacts) -> list[tuple[str, str, str, bool]]:
    return [(a.target, a.value, a.scope, a.annotation) for a in f.assignments]


def routes(f: FileFacts) -> list[tuple[object, ...]]:
    return sorted(
        (r.methods, r.path, r.handler, r.owner, r.line, r.middleware, r.framework) for r in f.routes
    )


# --------------------------------------------------------------------------- contract


@pytest.mark.parametrize(
    ("module", "suffixes"),
    [
        (
            "lang_js",
            {".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"},
        ),
        ("lang_go", {".go"}),
        ("lang_rust", {".rs"}),
        ("lang_java", {".java"}),
    ],
)
def test_each_module_exposes_an_extractor(module: str, suffixes: set[str]) -> None:
    ex = importlib.import_module(f"clawql_git.codegraph.{module}").EXTRACTOR
    assert set(ex.suffixes) == suffixes
    for language in set(ex.suffixes.values()):
        facts = ex.extract("empty", b"", language)
        assert (facts.path, facts.language, facts.errors, facts.symbols) == (
            "empty",
            language,
            0,
            [],
        )


# --------------------------------------------------------------------------- TypeScript


def test_ts_functions_arrows_types_docs_and_defaults() -> None:
    f = extract("ts", "src/util.ts")
    assert syms(f) == [
        ("formatName", "function", 2, 4, True),
        ("defaultLast", "function", 6, 8, False),
        ("shout", "function", 10, 10, True),
        ("Name", "type", 12, 12, True),
    ]
    fmt = sym(f, "formatName")
    assert fmt.signature == (
        "export function formatName(first: string, last = defaultLast()): string"
    )
    assert fmt.docstring == "Formats a user's name."
    assert sym(f, "shout").signature == "export const shout = (s: string): string =>"
    assert calls(f) == [
        ("defaultLast", "formatName", 2, "default"),
        ("`${first} ${last}`.trim", "formatName", 3),
        ("s.toUpperCase", "shout", 10),
    ]


def test_ts_class_with_parameter_properties_interfaces_enums() -> None:
    f = extract("ts", "src/models/index.ts")
    assert syms(f) == [
        ("Entity", "interface", 3, 5, True),
        ("User", "class", 8, 14, True),
        ("User.constructor", "method", 9, 9, True),
        ("User.save", "method", 11, 13, True),
        ("Role", "enum", 16, 19, True),
    ]
    user = sym(f, "User")
    assert (user.bases, user.docstring) == (("Entity",), "A user of the shop.")
    assert imps(f) == [("../repo.js", "UserRepo", "UserRepo")]
    assert calls(f) == [("this.repo.store", "User.save", 12)]
    assert asgs(f) == [
        ("this", "User", "User.constructor", True),
        ("id", "?", "User.constructor", True),  # of no nominal type: hides an outer `id`
        ("repo", "UserRepo", "User.constructor", True),
        ("this.repo", "UserRepo", "User.constructor", True),
        ("this", "User", "User.save", True),
    ]
    repo = extract("ts", "src/repo.ts")
    assert imps(repo) == [("./models", "User", "User")]
    assert asgs(repo) == [
        ("cache", "Map", "UserRepo", False),
        ("this", "UserRepo", "UserRepo.store", True),
        ("user", "User", "UserRepo.store", True),
    ]


def test_ts_reexports_aliases_and_dynamic_import() -> None:
    f = extract("ts", "src/index.ts")
    assert imps(f) == [
        ("./util", "formatName", "fmt"),
        ("./models", "*", ""),
        ("./repo", "", "repo"),
        ("@lib/strings", "shout", "shout"),
        ("node:fs", "default", "fs"),
        ("./util", "", "", "lazy"),
    ]
    assert f.exports == ["fmt", "repo"]
    assert syms(f) == [("lazy", "function", 7, 7, True)]
    assert calls(f) == [("shout", "", 8), ("fs.readFileSync", "", 8)]


def test_tsx_components_and_default_export() -> None:
    app = extract("ts", "src/App.tsx")
    assert syms(app) == [("App", "function", 5, 12, True)]
    assert sym(app, "App").docstring == "The app."
    assert imps(app) == [("react", "default", "React"), ("./components/Button", "Button", "Button")]
    assert calls(app) == [("React.useState", "App", 6), ("Button", "App", 9), ("setN", "App", 9)]
    assert app.exports == ["default"]
    assert asgs(app) == [("default", "=App", "", False)]
    button = extract("ts", "src/components/Button.tsx")
    assert syms(button) == [
        ("ButtonProps", "interface", 1, 4, True),
        ("ButtonProps.onClick", "method", 3, 3, True),
        ("Button", "function", 6, 8, True),
    ]
    assert button.language == "tsx"


@pytest.mark.parametrize(
    ("importer", "module", "files"),
    [
        ("src/index.ts", "./util", ["src/util.ts"]),
        ("src/index.ts", "./models", ["src/models/index.ts"]),
        ("src/models/index.ts", "../repo.js", ["src/repo.ts"]),
        ("src/App.tsx", "./components/Button", ["src/components/Button.tsx"]),
        ("src/index.ts", "@lib/strings", ["src/lib/strings.ts"]),
        ("src/index.ts", "src/util", ["src/util.ts"]),  # baseUrl
        ("src/index.ts", "node:fs", []),
        ("src/App.tsx", "react", []),
        ("src/index.ts", "./missing", []),
        ("src/index.ts", "../../outside", []),
    ],
)
def test_ts_resolve_module(importer: str, module: str, files: list[str]) -> None:
    assert resolve("ts", importer, module) == files


# --------------------------------------------------------------------------- JavaScript


def test_js_commonjs_classes_private_methods_and_exports() -> None:
    f = extract("js", "lib/math.js")
    assert syms(f) == [
        ("add", "function", 4, 6, True),
        ("Calculator", "class", 8, 20, True),
        ("Calculator.constructor", "method", 9, 11, True),
        ("Calculator.sum", "method", 14, 17, True),
        ("Calculator.#reset", "method", 19, 19, False),
    ]
    assert sym(f, "Calculator.sum").docstring == "Sums all arguments."
    assert imps(f) == [("./history.cjs", "", "History")]
    assert f.exports == ["add", "Calculator"]
    assert calls(f) == [
        ("History", "Calculator.constructor", 10),
        ("this.history.push", "Calculator.sum", 15),
        ("xs.reduce", "Calculator.sum", 16),
    ]
    assert ("this.history", "History", "Calculator.constructor", False) in asgs(f)
    history = extract("js", "lib/history.cjs")
    assert (history.exports, asgs(history)[-2:]) == (
        ["default"],
        [("default", "=History", "", False), ("module.exports", "=History", "", False)],
    )


def test_js_esm_namespace_import_reexport_and_dynamic_import() -> None:
    f = extract("js", "main.mjs")
    assert imps(f) == [
        ("node:fs/promises", "readFile", "readFile"),
        ("./lib/math.js", "", "math"),
        ("./lib/math.js", "add", "plus"),
        ("./lib/parse.js", "parse", "parse", "load"),
    ]
    assert f.exports == ["plus"]
    assert syms(f) == [
        ("calc", "constant", 5, 5, False),
        ("total", "variable", 6, 6, True),
        ("load", "function", 8, 11, True),
    ]
    assert calls(f) == [
        ("math.Calculator", "", 5),
        ("calc.sum", "", 6),
        ("parse", "load", 10),
        ("readFile", "load", 10),
    ]
    assert asgs(f) == [
        ("calc", "math.Calculator", "", False),
        ("total", "calc.sum", "", False),
        ("path", "?", "load", True),  # the parameter hides any outer path
    ]
    assert resolve("js", "main.mjs", "./lib/math.js") == ["lib/math.js"]
    assert resolve("js", "lib/math.js", "./history.cjs") == ["lib/history.cjs"]


# --------------------------------------------------------------------------- Go


def test_go_pointer_and_value_receivers_structs_interfaces() -> None:
    f = extract("go", "internal/store/store.go")
    assert syms(f) == [
        ("MaxItems", "constant", 7, 7, True),
        ("Store", "struct", 10, 14, True),
        ("NewStore", "function", 17, 19, True),
        ("Store.Get", "method", 22, 26, True),
        ("Store.Count", "method", 28, 30, True),
        ("Getter.Get", "method", 34, 34, True),
        ("Getter", "interface", 33, 35, True),
    ]
    store = sym(f, "Store")
    assert (store.bases, store.docstring) == (("sync.Mutex",), "Store holds items.")
    assert sym(f, "Store.Get").signature == "func (s *Store) Get(key string) string"
    assert f.module_doc == "Package store keeps things."
    assert calls(f) == [
        ("Store{}", "NewStore", 18),  # &Store{cache: newCache()}: a composite literal
        ("newCache", "NewStore", 18),
        ("s.Lock", "Store.Get", 23),
        ("s.Unlock", "Store.Get", 24),
        ("s.cache.Get", "Store.Get", 25),
        ("len", "Store.Count", 29),
    ]
    assert asgs(f) == [
        ("name", "string", "Store", True),
        ("cache", "Cache", "Store", True),
        ("name", "string", "NewStore", True),
        ("s", "Store", "Store.Get", True),
        ("key", "string", "Store.Get", True),
        ("s", "Store", "Store.Count", True),
        ("<package>", "store", "", True),
    ]
    # a local is in scope from the end of its declaration to the end of its block
    assert [a.span for a in f.assignments if a.scope == "Store.Get"] == [(22, 39, 26, 1)] * 2
    assert sym(f, "NewStore").returns == "Store"


def test_go_imports_with_aliases_calls_and_locals() -> None:
    f = extract("go", "cmd/shop/main.go")
    assert imps(f) == [
        ("fmt", "", "fmt"),
        ("github.com/acme/shop/internal/store", "", "st"),
        ("github.com/google/uuid", "", "uuid"),
    ]
    assert syms(f) == [
        ("defaultStore", "variable", 10, 10, False),
        ("main", "function", 12, 17, False),
    ]
    assert calls(f) == [
        ("st.NewStore", "", 10),
        ("st.NewStore", "main", 13),
        ("uuid.NewString", "main", 13),
        ("c.Put", "main", 15),
        ("fmt.Println", "main", 16),
        ("s.Get", "main", 16),
        ("defaultStore.Count", "main", 16),
    ]
    assert asgs(f) == [
        ("defaultStore", "st.NewStore", "", False),
        ("s", "st.NewStore", "main", False),
        ("c", "st.Cache", "main", True),
        ("<package>", "main", "", True),
    ]


def test_go_composite_literals_new_and_field_assignments() -> None:
    source = b"package p\nfunc f() {\n\tx := &Foo{}\n\ty := new(Bar)\n\tx.db = NewDB()\n}\n"
    ex = extractor(".go")
    f = ex.extract("p.go", source, "go")
    assert asgs(f) == [
        ("x", "Foo", "f", True),
        ("y", "Bar", "f", True),
        ("x.db", "NewDB", "f", False),
        ("<package>", "p", "", True),
    ]


@pytest.mark.parametrize(
    ("module", "files"),
    [
        (
            "github.com/acme/shop/internal/store",
            ["internal/store/cache.go", "internal/store/store.go"],
        ),
        ("github.com/acme/shop/cmd/shop", ["cmd/shop/main.go"]),
        ("github.com/acme/shopping", []),
        ("fmt", []),
        ("github.com/google/uuid", []),
    ],
)
def test_go_resolve_module_reads_go_mod(module: str, files: list[str]) -> None:
    assert resolve("go", "cmd/shop/main.go", module) == files


# --------------------------------------------------------------------------- Rust


def test_rust_impl_blocks_trait_impls_derives_docs() -> None:
    f = extract("rust", "src/models.rs")
    assert syms(f) == [
        ("User", "struct", 5, 8, True),
        ("Role", "enum", 11, 14, True),
        ("Role.Admin", "constant", 12, 12, True),  # variants, exported with their enum
        ("Role.Guest", "constant", 13, 13, True),
        ("User.new", "method", 18, 20, True),
        ("User.fmt", "method", 24, 26, True),
    ]
    user = sym(f, "User")
    assert (user.docstring, user.decorators, user.bases) == (
        "A user.",
        ("derive(Debug, Clone)",),
        ("fmt::Display",),
    )
    assert sym(f, "User.new").signature == "pub fn new(id: u32, name: &str) -> Self"
    assert imps(f) == [("std", "fmt", "fmt")]
    assert calls(f) == [
        ("User", "User.new", 19),  # ``User { .. }`` constructs a User
        ("name.to_string", "User.new", 19),
        ("self.name.to_uppercase", "User.fmt", 25),
    ]
    assert ("self", "User", "User.fmt", True) in asgs(f)
    assert ("Self", "User", "User.new", True) in asgs(f)


def test_rust_traits_use_trees_mods_and_smart_pointer_fields() -> None:
    f = extract("rust", "src/service/mod.rs")
    assert syms(f) == [
        ("Repo", "trait", 7, 12, True),
        ("Repo.find", "method", 8, 8, True),
        ("Repo.count", "method", 9, 11, True),
        ("Service", "struct", 14, 17, True),
        ("Service.new", "method", 20, 23, True),
        ("Service.greet", "method", 25, 28, True),
    ]
    assert sym(f, "Repo").bases == ("Send",)
    assert imps(f) == [
        ("self::helpers", "", "helpers"),
        ("super::models", "User", "User"),
        ("self::helpers", "*", ""),
        ("std::collections", "HashMap", "HashMap"),
    ]
    assert calls(f) == [
        ("Box::new", "Service.new", 21),
        ("helpers::MemRepo::default", "Service.new", 21),
        ("Service", "Service.new", 22),  # a struct expression
        ("self.repo.find().cloned().unwrap_or_else", "Service.greet", 26),
        ("self.repo.find().cloned", "Service.greet", 26),
        ("self.repo.find", "Service.greet", 26),
        ("User::new", "Service.greet", 26),
        ("normalize", "Service.greet", 27),
    ]
    fields = [a for a in asgs(f) if a[2] == "Service"]
    assert fields == [
        ("users", "HashMap<u32, User>", "Service", True),  # types as written
        ("repo", "Box<dyn Repo>", "Service", True),
    ]


def test_rust_use_aliases_macro_calls_and_crate_doc() -> None:
    f = extract("rust", "src/lib.rs")
    assert f.module_doc == "The shop crate."
    assert imps(f) == [
        ("self::models", "", "models"),
        ("self::service", "", "service"),
        ("crate::models", "Role", "R"),
        ("crate::models", "User", "User"),
        ("std::collections", "HashMap", "HashMap"),
    ]
    assert calls(f) == [
        ("HashMap::new", "build", 10),
        ("users.len", "build", 11),  # inside println!
        ("service::Service::new", "build", 12),
    ]
    helpers = extract("rust", "src/service/helpers.rs")
    assert sym(helpers, "MemRepo").bases == ("super::Repo",)
    assert syms(helpers)[1] == ("MemRepo.find", "method", 7, 9, True)


@pytest.mark.parametrize(
    ("importer", "module", "files"),
    [
        ("src/lib.rs", "self::models", ["src/models.rs"]),
        ("src/lib.rs", "self::service", ["src/service/mod.rs"]),
        ("src/lib.rs", "crate::models", ["src/models.rs"]),
        ("src/lib.rs", "crate", ["src/lib.rs"]),
        ("src/service/mod.rs", "self::helpers", ["src/service/helpers.rs"]),
        ("src/service/mod.rs", "super::models", ["src/models.rs"]),
        ("src/service/helpers.rs", "super", ["src/service/mod.rs"]),
        ("src/service/helpers.rs", "crate::models", ["src/models.rs"]),
        ("src/service/helpers.rs", "crate::service::helpers", ["src/service/helpers.rs"]),
        ("src/lib.rs", "std::collections", []),
        ("src/lib.rs", "serde", []),
    ],
)
def test_rust_resolve_module(importer: str, module: str, files: list[str]) -> None:
    assert resolve("rust", importer, module) == files


# --------------------------------------------------------------------------- Java


def test_java_nested_classes_overloads_constructors_constants() -> None:
    f = extract("java", "src/main/java/com/acme/App.java")
    assert syms(f) == [
        ("com.acme", "module", 1, 1, True),  # the package, as a C# namespace
        ("App", "class", 9, 44, True),
        ("App.NAME", "constant", 11, 11, True),
        ("App.App", "method", 13, 15, True),
        ("App.greet", "method", 18, 24, True),
        ("App.greet", "method", 26, 28, True),
        ("App.Config", "class", 31, 38, False),
        ("App.Config.port", "method", 34, 37, False),
        ("App.main", "method", 40, 43, True),
    ]
    assert [s.signature for s in f.symbols if s.qualname == "App.greet"] == [
        "public String greet()",
        "public String greet(String prefix)",
    ]
    assert sym(f, "App.greet").docstring == "Greets everyone."
    assert sym(f, "App.Config.port").decorators == ("Deprecated",)
    assert imps(f) == [
        ("com.acme.model", "User", "User"),
        ("com.acme.util", "*", ""),
        ("java.util", "List", "List"),
        ("com.acme.util.Strings", "shout", "shout"),
    ]
    assert calls(f) == [
        ("StringBuilder", "App.greet", 19),
        ("out.append", "App.greet", 21),
        ("shout", "App.greet", 21),
        ("u.getName", "App.greet", 21),
        ("out.toString", "App.greet", 23),
        ("Strings.trim", "App.greet", 27),
        ("greet", "App.greet", 27),
        ("App", "App.main", 41),
        ("List.of", "App.main", 41),
        ("User", "App.main", 41),
        ("System.out.println", "App.main", 42),
        ("app.greet", "App.main", 42),
    ]
    evidence = asgs(f)
    for expected in [
        ("users", "List<User>", "App", True),  # type arguments kept
        ("this", "App", "App.App", True),
        ("out", "StringBuilder", "App.greet", True),
        ("u", "User", "App.greet", True),
        ("this", "App.Config", "App.Config.port", True),
        ("app", "App", "App.main", False),
    ]:
        assert expected in evidence


def test_java_annotation_arguments_are_decorator_calls() -> None:
    source = (
        b'class A {\n  @Cached(key = Keys.of("x"))\n'
        b"  void m() { new Runnable() { public void run() { go(); } }; }\n}\n"
    )
    f = extractor(".java").extract("A.java", source, "java")
    assert calls(f) == [
        ("Keys.of", "A", 2, "decorator"),
        ("Runnable", "A.m", 3),
        ("go", "A.m.run", 3),
    ]
    assert ("this", "Runnable", "A.m.run", True) in asgs(f)


@pytest.mark.parametrize(
    ("module", "files"),
    [
        ("com.acme.model", ["src/main/java/com/acme/model/User.java"]),
        ("com.acme.model.User", ["src/main/java/com/acme/model/User.java"]),
        ("com.acme.util", ["src/main/java/com/acme/util/Strings.java"]),
        ("com.acme.util.Strings", ["src/main/java/com/acme/util/Strings.java"]),
        ("com.acme.App.Config", ["src/main/java/com/acme/App.java"]),
        ("java.util", []),
        ("org.other.Thing", []),
    ],
)
def test_java_resolve_module(module: str, files: list[str]) -> None:
    assert resolve("java", "src/main/java/com/acme/App.java", module) == files


# --------------------------------------------------------------------------- routes


def test_express_apps_and_routers_by_constructor_with_mounts() -> None:
    f = extract("express", "src/server.js")
    assert [(r.name, r.constructor, r.prefix, r.line, r.framework) for r in f.routers] == [
        ("api", "express", "", 5, "express"),
        ("v1", "express.Router", "", 6, "express"),
    ]
    assert [(m.parent, m.child, m.prefix, m.middleware) for m in f.mounts] == [
        ("api", "requireAuth", "/api/v1", ()),
        ("api", "v1", "/api/v1", ("requireAuth",)),
        ("v1", "usersRouter", "/users", ()),
        ("default", "api", "", ()),  # module.exports = api
    ]
    assert routes(f) == [
        (("ANY",), "/ping", "ping", "v1", 13, (), "express"),
        (("GET",), "/health", "<anonymous>", "api", 12, (), "express"),
    ]


def test_express_chained_route_array_paths_and_typed_router_params() -> None:
    f = extract("express", "src/routes/users.ts")
    assert [(r.name, r.constructor) for r in f.routers] == [("users", "Router")]
    assert routes(f) == [
        (("DELETE",), "/:id", "ctrl.remove", "users", 11, (), "express"),
        (("GET",), "/:id", "ctrl.show", "users", 9, (), "express"),
        (("PATCH",), "/admin/users/:id", "<anonymous>", "admin", 16, (), "express"),
        (("POST",), "/", "ctrl.create", "users", 13, ('validate("body")',), "express"),
        (("POST",), "/new", "ctrl.create", "users", 13, ('validate("body")',), "express"),
        (("PUT",), "/:id", "ctrl.update", "users", 10, ('validate("body")',), "express"),
    ]
    assert f.exports == ["default"]
    assert ("default", "=users", "", False) in asgs(f)
    assert [(m.parent, m.child, m.prefix) for m in f.mounts] == [("default", "users", "")]


def test_express_needs_a_router_or_an_express_file() -> None:
    source = b"const cache = new Map();\ncache.get('/x', 1);\nlist.use('/y', other);\n"
    f = extractor(".js").extract("a.js", source, "javascript")
    assert (f.routes, f.mounts, f.routers) == ([], [], [])


def test_express_routes_on_an_app_handed_to_a_module() -> None:
    source = (
        b"module.exports = function (app) {\n"
        b"  app.get('/status', (req, res) => res.json({}));\n"
        b"  app.get('/x', handler);\n"
        b"};\n"
    )
    f = extractor(".js").extract("routes.js", source, "javascript")
    assert routes(f) == [(("GET",), "/status", "<anonymous>", "app", 2, (), "express")]


def test_nestjs_controller_prefix_routes_and_guards() -> None:
    f = extract("nestjs", "src/cats/cats.controller.ts")
    assert [(r.name, r.constructor, r.prefix, r.framework) for r in f.routers] == [
        ("CatsController", "Controller", "/cats", "nestjs")
    ]
    guard = "UseGuards(AuthGuard)"
    assert routes(f) == [
        (("DELETE",), ":id", "CatsController.remove", "CatsController", 31, (guard,), "nestjs"),
        (("GET",), "", "CatsController.findAll", "CatsController", 14, (guard,), "nestjs"),
        (("GET",), ":id", "CatsController.findOne", "CatsController", 20, (guard,), "nestjs"),
        (
            ("POST",),
            "",
            "CatsController.create",
            "CatsController",
            26,
            (guard, "UseInterceptors(LoggingInterceptor)"),
            "nestjs",
        ),
    ]
    assert sym(f, "CatsController.findOne").docstring == "One cat."
    assert ("this.catsService", "CatsService", "CatsController.constructor", True) in asgs(f)
    assert ("Param", "CatsController.findOne", 20, "decorator") in calls(f)


def test_nestjs_path_objects_path_arrays_and_versions() -> None:
    f = extract("nestjs", "src/admin.controller.ts")
    assert [(r.name, r.prefix) for r in f.routers] == [("AdminController", "/admin")]
    assert routes(f) == [
        (
            ("GET",),
            "metrics",
            "AdminController.stats",
            "AdminController",
            7,
            ('Version("2")',),
            "nestjs",
        ),
        (
            ("GET",),
            "stats",
            "AdminController.stats",
            "AdminController",
            7,
            ('Version("2")',),
            "nestjs",
        ),
    ]
    service = extract("nestjs", "src/cats/cats.service.ts")
    assert (service.routes, service.routers) == ([], [])


# --------------------------------------------------------------------------- robustness

BROKEN = {
    "typescript": b"export function ok(): number { return 1 }\nclass {{ oops\n\xff const x = ;\n",
    "tsx": b"export const A = () => <div className='a' />;\nfunction broken( {\n\xff\n",
    "javascript": b"function ok() { go() }\nif (( {\n\xc3\x28\nfunction after() {}\n",
    "go": b"package p\nfunc Ok() { go1() }\nfunc ( {\n\xff\nfunc After() {}\n",
    "rust": b"pub fn ok() { go(); }\nfn broken( {\n\xff\npub fn after() {}\n",
    "java": b"class A { void ok() { go(); } void broken( { \xff }\nclass B { void after() {} }\n",
}
SUFFIX = {
    "typescript": ".ts",
    "tsx": ".tsx",
    "javascript": ".js",
    "go": ".go",
    "rust": ".rs",
    "java": ".java",
}


@pytest.mark.parametrize("language", sorted(BROKEN))
def test_syntax_errors_and_bad_bytes_are_counted_not_fatal(language: str) -> None:
    f = extractor(SUFFIX[language]).extract("broken", BROKEN[language], language)
    assert f.errors > 0
    names = {s.name for s in f.symbols}
    first = {
        "typescript": "ok",
        "tsx": "A",
        "javascript": "ok",
        "go": "Ok",
        "rust": "ok",
        "java": "ok",
    }
    assert first[language] in names


def test_non_utf8_names_decode_with_replacement() -> None:
    f = extractor(".go").extract("x.go", b"package p\n// Doc \xff.\nfunc F() {}\n", "go")
    assert (syms(f), f.symbols[0].docstring) == ([("F", "function", 3, 3, True)], "Doc \ufffd.")


def test_deeply_nested_expressions_need_no_deep_recursion() -> None:
    nested = b"const x = " + b"[" * 3000 + b"f()" + b"]" * 3000 + b";\n"
    parens = b"const y = " + b"(" * 1500 + b"h()" + b")" * 1500 + b";\n"
    f = extractor(".js").extract(
        "deep.js", nested + parens + b"function after() { g() }\n", "javascript"
    )
    assert (f.errors, [s.name for s in f.symbols]) == (0, ["x", "y", "after"])
    assert [c.callee for c in f.calls] == ["f", "h", "g"]


def test_ts_field_decorators_static_getters_namespaces() -> None:
    source = b"""namespace NS {
  export function f() { g(); }
}
class C {
  @Input() name = "x";
  static create(): C { return new C(); }
  get size(): number { return this.items?.length ?? 0; }
  @HostListener("click") onClick() {}
}
"""
    f = extractor(".ts").extract("c.ts", source, "typescript")
    assert syms(f) == [
        ("NS", "module", 1, 3, False),
        ("NS.f", "function", 2, 2, True),
        ("C", "class", 4, 9, False),
        ("C.create", "method", 6, 6, True),
        ("C.size", "method", 7, 7, True),
        ("C.onClick", "method", 8, 8, True),
    ]
    assert sym(f, "C.onClick").decorators == ('HostListener("click")',)
    assert calls(f) == [
        ("g", "NS.f", 2),
        ("Input", "C", 5, "decorator"),
        ("C", "C.create", 6),
        ("HostListener", "C", 8, "decorator"),
    ]


def test_ts_resolve_through_extended_tsconfig_and_jsconfig(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "tsconfig.json").write_text(
        '{"compilerOptions": {"baseUrl": "..", "paths": {"~/*": ["app/*"]}}}'
    )
    (tmp_path / "app" / "core").mkdir(parents=True)
    (tmp_path / "app" / "tsconfig.json").write_text('{"extends": "../base/tsconfig.json"}')
    (tmp_path / "app" / "core" / "db.ts").write_text("export const db = 1;\n")
    (tmp_path / "app" / "main.ts").write_text("import { db } from '~/core/db';\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "jsconfig.json").write_text('{"compilerOptions": {"baseUrl": "."}}')
    (tmp_path / "web" / "lib.js").write_text("")
    repo = DirRepo(tmp_path)
    ex = extractor(".ts")
    assert ex.resolve_module("app/main.ts", "~/core/db", repo) == ["app/core/db.ts"]
    assert ex.resolve_module("app/main.ts", "core/db", repo) == []  # baseUrl is the root
    assert ex.resolve_module("web/index.js", "lib", repo) == ["web/lib.js"]
    assert ex.resolve_module("web/index.js", "lodash", repo) == []


def test_js_commonjs_function_exports_and_prototype_methods() -> None:
    source = b"""/** Handles. */
exports.handler = async (event) => { return process(event); };
module.exports.other = function () { helper(); };
function Foo() {}
Foo.prototype.bar = function (a) { return this.baz(a); };
"""
    f = extractor(".js").extract("d.js", source, "javascript")
    assert syms(f) == [
        ("handler", "function", 2, 2, True),
        ("other", "function", 3, 3, True),
        ("Foo", "function", 4, 4, False),
        ("Foo.bar", "method", 5, 5, True),
    ]
    assert sym(f, "handler").docstring == "Handles."
    assert f.exports == ["handler", "other"]
    assert calls(f) == [
        ("process", "handler", 2),
        ("helper", "other", 3),
        ("this.baz", "Foo.bar", 5),
    ]


def test_java_package_is_a_module_symbol() -> None:
    """``package a.b;`` is a 'module' symbol (as a C# namespace): one per file, with the doc
    of ``package-info.java``; it is not part of the classes' qualnames."""
    ex = extractor(".java")
    info = ex.extract(
        "src/main/java/com/acme/util/package-info.java",
        b"/**\n * Small helpers.\n */\npackage com.acme.util;\n",
        "java",
    )
    assert [
        (s.qualname, s.kind, s.line, s.end_line, s.signature, s.docstring) for s in info.symbols
    ] == [("com.acme.util", "module", 4, 4, "package com.acme.util", "Small helpers.")]
    assert info.module_doc == "Small helpers."
    app = ex.extract(
        "src/main/java/com/acme/util/Strings.java",
        b"package com.acme.util;\n\npublic final class Strings {\n"
        b"  static String trim(String s) { return s; }\n}\n",
        "java",
    )
    assert syms(app) == [
        ("com.acme.util", "module", 1, 1, True),
        ("Strings", "class", 3, 5, True),
        ("Strings.trim", "method", 4, 4, False),
    ]
