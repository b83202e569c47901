"""JS/TS definitions written as values (issue #18): functions assigned to members of an
object, methods of module-level object literals, named function expressions, TypeScript's
function-typed members of interfaces and type literals; SvelteKit components by file name."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, symbols

APP = "lib/application.js"
FILES = {
    APP: (
        "var app = exports = module.exports = {};\n"
        "\n"
        "/** Enables a setting. */\n"
        "app.enable = function enable(setting) {\n"
        "  return this.set(setting, true);\n"
        "};\n"
        "\n"
        "app.set = function set(setting, val) {\n"
        "  this.settings[setting] = val;\n"
        "  return this;\n"
        "};\n"
        "\n"
        "app.locals = {};\n"
        "app.count = 1;\n"
        "app.handler.wrap = (fn) => fn;\n"
        "this.local = function () {};\n"
        "app.route = function (path) {\n"
        "  route.all(function createError(req) {\n"
        "    fail(req);\n"
        "  });\n"
        "  return function generateETag(body) {\n"
        "    return hash(body);\n"
        "  };\n"
        "};\n"
        "app.enable('x');\n"
    ),
    "lib/proto.js": (
        "function View(name) { this.name = name; }\n"
        "View.prototype.lookup = function lookup(name) { return this.resolve(name); };\n"
        "View.prototype.resolve = function (name) { return name; };\n"
    ),
    "lib/render.js": (
        "/** Renders a file. */\n"
        "module.exports = function renderFile(name) {\n"
        "  return read(name);\n"
        "};\n"
    ),
    "lib/helpers.cjs": (
        "module.exports = {\n"
        "  /** Parses. */\n"
        "  parse: function (s) { return split(s); },\n"
        "  format(value) { return String(value); },\n"
        "  level: 3,\n"
        "};\n"
    ),
    "src/routes/article/+page.server.js": (
        "/** @type {import('./$types').Actions} */\n"
        "export const actions = {\n"
        "  /** Adds a comment. */\n"
        "  createComment: async ({ request }) => {\n"
        "    await save(request);\n"
        "  },\n"
        "\n"
        "  default: async () => {\n"
        "    this.createComment();\n"
        "  },\n"
        "  limit: 10,\n"
        "  [computed]: () => 1,\n"
        "};\n"
        "function helper() { const local = { inner: () => 1 }; return local; }\n"
    ),
    "src/routes/+page.svelte": "<script>\n  let n = 1;\n</script>\n<h1>{n}</h1>\n",
    "src/types/ResponsePromise.ts": (
        "export type ResponsePromise<T = unknown> = {\n"
        "  /** The body as an ArrayBuffer. */\n"
        "  arrayBuffer: () => Promise<ArrayBuffer>;\n"
        "  json: <J = T>() => Promise<J>;\n"
        "  text(): Promise<string>;\n"
        "  status: number;\n"
        "  maybe: string | (() => void);\n"
        "} & Promise<T>;\n"
        "\n"
        "export interface Hooks {\n"
        "  /** Before each request. */\n"
        "  beforeRequest?: (request: Request) => void;\n"
        "  retries: number;\n"
        "}\n"
        "type Alias = Promise<string>;\n"
    ),
}


def test_functions_assigned_to_members_are_methods_of_the_object(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert symbols(graph, APP) == [
        ("app", "variable", 1, 1, 0, "var app = exports = module.exports = {}", ""),
        (
            "app.enable",
            "method",
            4,
            6,
            1,
            "app.enable = function enable(setting)",
            "Enables a setting.",
        ),
        ("app.set", "method", 8, 11, 1, "app.set = function set(setting, val)", ""),
        ("app.handler.wrap", "method", 15, 15, 1, "app.handler.wrap = (fn) =>", ""),
        ("app.route", "method", 17, 24, 1, "app.route = function (path)", ""),
        # named function expressions: functions of their own name where they stand
        ("app.route.createError", "function", 18, 20, 0, "function createError(req)", ""),
        ("app.route.generateETag", "function", 21, 23, 0, "function generateETag(body)", ""),
    ]  # app.locals = {}, app.count = 1 and this.local = function are no definitions
    assert calls(graph, APP) == [
        ("app.enable", "this.set", 5, APP, "app.set", 1.0, "exact"),  # `this` is `app`
        ("app.route", "route.all", 18, "", "", 0.0, "unresolved"),
        ("app.route.createError", "fail", 19, "", "", 0.0, "unresolved"),
        ("app.route.generateETag", "hash", 22, "", "", 0.0, "unresolved"),
        ("", "app.enable", 25, APP, "app.enable", 1.0, "exact"),
    ]


def test_prototype_methods_resolve_this_to_their_constructor(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert symbols(graph, "lib/proto.js") == [
        ("View", "function", 1, 1, 0, "function View(name)", ""),
        ("View.lookup", "method", 2, 2, 1, "View.prototype.lookup = function lookup(name)", ""),
        ("View.resolve", "method", 3, 3, 1, "View.prototype.resolve = function (name)", ""),
    ]
    assert calls(graph, "lib/proto.js") == [
        ("View.lookup", "this.resolve", 2, "lib/proto.js", "View.resolve", 1.0, "exact"),
    ]


def test_commonjs_exports_of_a_function_or_an_object_of_functions(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert symbols(graph, "lib/render.js") == [
        ("renderFile", "function", 2, 4, 1, "function renderFile(name)", "Renders a file."),
    ]
    assert symbols(graph, "lib/helpers.cjs") == [
        ("parse", "function", 3, 3, 1, "parse: function (s)", "Parses."),
        ("format", "function", 4, 4, 1, "format(value)", ""),
    ]  # level: 3 is no definition


def test_object_literal_functions_are_methods_of_the_constant(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    page = "src/routes/article/+page.server.js"
    rows = symbols(graph, page)
    assert [r[:5] for r in rows] == [
        ("actions", "constant", 2, 13, 1),
        ("actions.createComment", "method", 4, 6, 1),
        ("actions.default", "method", 8, 10, 1),
        ("helper", "function", 14, 14, 0),
    ]  # a computed key, a number and an object inside a function are not definitions
    assert rows[1][5:] == ("createComment: async ({ request }) =>", "Adds a comment.")
    assert rows[2][5:] == ("default: async () =>", "")
    # an arrow function's `this` is not the object: left unresolved
    assert ("actions.default", "this.createComment", 9, "", "", 0.0, "unresolved") in calls(
        graph, page
    )


def test_ts_function_typed_members_of_type_literals_and_interfaces(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    rows = symbols(graph, "src/types/ResponsePromise.ts")
    assert [r[:5] for r in rows] == [
        ("ResponsePromise", "type", 1, 8, 1),
        ("ResponsePromise.arrayBuffer", "method", 3, 3, 1),
        ("ResponsePromise.json", "method", 4, 4, 1),
        ("ResponsePromise.text", "method", 5, 5, 1),
        ("Hooks", "interface", 10, 14, 1),
        ("Hooks.beforeRequest", "method", 12, 12, 1),
        ("Alias", "type", 15, 15, 0),
    ]  # status: number, maybe: string | (() => void) and retries: number are not methods
    by_name = {r[0]: r[5:] for r in rows}
    assert by_name["ResponsePromise.arrayBuffer"] == (
        "arrayBuffer: () => Promise<ArrayBuffer>",
        "The body as an ArrayBuffer.",
    )
    assert by_name["ResponsePromise.json"] == ("json: <J = T>() => Promise<J>", "")
    assert by_name["Hooks.beforeRequest"] == (
        "beforeRequest?: (request: Request) => void",
        "Before each request.",
    )


def test_sveltekit_component_is_named_as_its_file_and_found_by_the_old_name(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, FILES)
    assert symbols(graph, "src/routes/+page.svelte")[0] == (
        "+page",
        "class",
        1,
        4,
        1,
        "<+page>",
        "",
    )
    exact = graph.find_symbol("+page")
    assert exact.extra["match"] == "exact"
    assert [r["file"] for r in exact.items] == ["src/routes/+page.svelte"]
    old = graph.find_symbol("page")  # what it was called before: still found, fuzzily
    assert old.extra["match"] == "fuzzy"
    assert "src/routes/+page.svelte" in [r["file"] for r in old.items]


# CommonJS objects built by assignment, the way express writes them. Expected edges follow
# Node's module docs (require() of a directory loads its index.js; what require() gives is
# module.exports; ``exports = module.exports = f`` makes ``exports.x`` a property of f) and
# MDN's ``this`` (in a method call, the object the method was called on; a plain function
# call has its own ``this``, an arrow function none).
EXPRESS = {
    "index.js": "module.exports = require('./lib/express');\n",
    "lib/express.js": (
        "var proto = require('./application');\n"
        "exports = module.exports = createApplication;\n"
        "function createApplication() {\n"
        "  var app = function (req, res, next) { app.handle(req, res, next); };\n"
        "  mixin(app, proto, false);\n"
        "  return app;\n"
        "}\n"
        "exports.application = proto;\n"
        "exports.Router = Router;\n"
        "var Router = require('router');\n"
    ),
    "lib/lost.js": (
        "module.exports = f;\n"
        "function f() {}\n"
        "exports.g = function g() {};\n"  # set on the object module.exports no longer is
        "module.exports.h = function h() {};\n"
        "exports.k = make();\n"
        "function make() { return function made() {}; }\n"
    ),
    "lib/application.js": (
        "var app = exports = module.exports = {};\n"
        "app.handle = function handle(req, res) {\n"
        "  this.router.handle(req, res);\n"
        "};\n"
    ),
    "lib/utils.js": (
        "exports.normalizeType = function (type) {\n  return type;\n};\n"
        "exports.etag = createETagGenerator({ weak: false });\n"
        "function createETagGenerator(options) {\n"
        "  return function generateETag(body) { return body; };\n"
        "}\n"
    ),
    "lib/response.js": (
        "var vary = require('vary');\n"
        "var utils = require('./utils');\n"
        "var res = Object.create(http.ServerResponse.prototype);\n"
        "module.exports = res;\n"
        "res.status = function status(code) {\n"
        "  this.statusCode = code;\n"
        "  return this;\n"
        "};\n"
        "res.set =\n"
        "res.header = function header(field, val) {\n"
        "  if (Array.isArray(field)) { return this; }\n"
        "  this.setHeader(field, val);\n"
        "  return this;\n"
        "};\n"
        "res.location = function location(url) {\n"
        "  return this.set('Location', url);\n"
        "};\n"
        "res.send = function send(body) {\n"
        "  var self = this;\n"
        "  this.set('Content-Type', utils.normalizeType('html'));\n"
        "  this.status(200).location('/').set('X', 1);\n"
        "  render(function () { self.status(404); });\n"
        "  function render(done) { this.status(500); done(); }\n"
        "  vary(this, 'Accept');\n"
        "};\n"
        "res.vary = function (field) {\n"
        "  vary(this, field);\n"
        "  return this.send();\n"
        "};\n"
    ),
    "lib/view.js": (
        "var resolve = require('node:path').resolve;\n"
        "module.exports = View;\n"
        "function View(name) {\n"
        "  this.path = this.lookup(name);\n"
        "}\n"
        "View.prototype.lookup = function lookup(name) {\n"
        "  return this.resolve(resolve('.', name));\n"
        "};\n"
        "View.prototype.resolve = function (dir) { return dir; };\n"
        "var path = require('node:path');\n"
        "var join = path.join;\n"
        "View.prototype.dir = function () { return join('a'); };\n"
    ),
    "test/app.js": (
        "var express = require('../');\n"
        "var request = require('supertest');\n"
        "var app = express();\n"
        "app.handle({}, {});\n"
        "request(app).get('/');\n"
        "require('../lib/utils').normalizeType('x');\n"
        "require('supertest').agent(app);\n"
        "express.application.handle();\n"
        "express.Router();\n"
        "var lost = require('../lib/lost');\n"
        "lost.g();\n"
        "lost.h();\n"
        "require('../lib/utils').etag('body');\n"
        "lost.k();\n"
    ),
}
RES = "lib/response.js"


def test_commonjs_require_of_a_directory_and_module_exports_of_a_function(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, EXPRESS)
    assert calls(graph, "test/app.js") == [
        ("", "express", 3, "lib/express.js", "createApplication", 1.0, "exact"),
        # express() mixes proto into its app through an external module: not proven
        ("", "app.handle", 4, "", "", 0.0, "unresolved"),
        ("", "request", 5, "", "", 0.0, "external"),
        ("", "request().get", 5, "", "", 0.0, "external"),
        ("", "require().normalizeType", 6, "lib/utils.js", "normalizeType", 1.0, "exact"),
        ("", "require().agent", 7, "", "", 0.0, "external"),
        # exports = module.exports = createApplication: exports.x is createApplication.x
        ("", "express.application.handle", 8, "lib/application.js", "app.handle", 1.0, "exact"),
        ("", "express.Router", 9, "", "", 0.0, "external"),
        ("", "lost.g", 11, "", "", 0.0, "unresolved"),
        ("", "lost.h", 12, "lib/lost.js", "h", 1.0, "exact"),
        # etag is what createETagGenerator returns: the function generateETag
        (
            "",
            "require().etag",
            13,
            "lib/utils.js",
            "createETagGenerator.generateETag",
            0.8,
            "inferred",
        ),
        ("", "lost.k", 14, "", "", 0.0, "unresolved"),  # lost too
    ]
    assert calls(graph, "lib/application.js") == [
        ("app.handle", "this.router.handle", 3, "", "", 0.0, "unresolved"),
    ]


def test_this_of_assigned_methods_aliases_and_receiver_returning_chains(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, EXPRESS)
    assert [r[:5] for r in symbols(graph, RES)] == [
        ("res", "variable", 3, 3, 1),  # module.exports = res
        ("res.status", "method", 5, 8, 1),
        ("res.set", "method", 9, 14, 1),  # the same function as res.header
        ("res.header", "method", 10, 14, 1),
        ("res.location", "method", 15, 17, 1),
        ("res.send", "method", 18, 25, 1),
        ("res.send.render", "function", 23, 23, 0),
        ("res.vary", "method", 26, 29, 1),
    ]
    assert calls(graph, RES) == [
        ("", "Object.create", 3, "", "", 0.0, "unresolved"),
        ("res.header", "Array.isArray", 11, "", "", 0.0, "unresolved"),
        ("res.header", "this.setHeader", 12, "", "", 0.0, "unresolved"),  # not res's own
        ("res.location", "this.set", 16, RES, "res.set", 1.0, "exact"),
        ("res.send", "this.set", 20, RES, "res.set", 1.0, "exact"),
        ("res.send", "utils.normalizeType", 20, "lib/utils.js", "normalizeType", 1.0, "exact"),
        # status returns this; location returns this.set(...), and set returns this
        ("res.send", "this.status", 21, RES, "res.status", 1.0, "exact"),
        ("res.send", "this.status().location", 21, RES, "res.location", 1.0, "exact"),
        ("res.send", "this.status().location().set", 21, RES, "res.set", 1.0, "exact"),
        ("res.send", "render", 22, RES, "res.send.render", 1.0, "exact"),
        ("res.send", "self.status", 22, RES, "res.status", 1.0, "exact"),  # self = this
        ("res.send.render", "done", 23, "", "", 0.0, "unresolved"),
        ("res.send.render", "this.status", 23, "", "", 0.0, "unresolved"),  # its own this
        ("res.send", "vary", 24, "", "", 0.0, "external"),  # the module's vary, not res.vary
        ("res.vary", "vary", 27, "", "", 0.0, "external"),
        ("res.vary", "this.send", 28, RES, "res.send", 1.0, "exact"),
    ]


def test_this_in_a_constructor_and_its_prototype_methods(tmp_path: Path) -> None:
    graph = build(tmp_path, EXPRESS)
    assert calls(graph, "lib/view.js") == [
        ("View", "this.lookup", 4, "lib/view.js", "View.lookup", 1.0, "exact"),
        ("View.lookup", "resolve", 7, "", "", 0.0, "external"),  # node:path's, not the method
        ("View.lookup", "this.resolve", 7, "lib/view.js", "View.resolve", 1.0, "exact"),
        ("View.dir", "join", 12, "", "", 0.0, "external"),  # var join = path.join: node's
    ]
