"""JS members copied by mixins, and ``this`` outside class methods (issue #18): express
builds its app as a function and mixes ``lib/application.js`` into it with
merge-descriptors, so ``express().use`` is ``app.use`` there. Expected edges follow the
documentation of what each step does:

- merge-descriptors' README: ``mixin(destination, source, redefine)`` defines the own
  properties of ``source`` on ``destination``;
- ECMAScript ``Object.assign(target, ...sources)``: each source's own enumerable properties
  are copied to ``target``;
- Node's events docs list the methods of ``EventEmitter.prototype`` (``on``, ``emit``...);
- MDN ``Object.defineProperty``: a getter is called with ``this`` the object through which
  the property is read (also when a helper of the file passes it on);
- a function's value is what its ``return`` gives; a parameter hides a name of the
  enclosing scope;
- MDN ``this``: a function (not an arrow) has its own ``this``, the object it is called
  on (``o.m = function`` called as ``o.m()``), unknown for a callback; MDN
  ``Object.create(proto)``: an object whose prototype is ``proto``.
"""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls

APP = "lib/application.js"
EXPRESS = "lib/express.js"
FILES = {
    "index.js": "module.exports = require('./lib/express');\n",
    EXPRESS: (
        "var EventEmitter = require('node:events').EventEmitter;\n"
        "var mixin = require('merge-descriptors');\n"
        "var proto = require('./application');\n"
        "exports = module.exports = createApplication;\n"
        "function createApplication() {\n"
        "  var app = function (req, res, next) { app.handle(req, res, next); };\n"
        "  mixin(app, EventEmitter.prototype, false);\n"
        "  mixin(app, proto, false);\n"
        "  app.init();\n"
        "  return app;\n"
        "}\n"
    ),
    APP: (
        "var app = exports = module.exports = {};\n"
        "app.init = function init() {\n"
        "  Object.defineProperty(this, 'router', {\n"
        "    get: function getrouter() { return this.enabled('strict routing'); }\n"
        "  });\n"
        "};\n"
        "app.handle = function handle(req, res) {};\n"
        "app.use = function use(fn) { return this; };\n"
        "app.enabled = function enabled(setting) { return true; };\n"
        "app.listen = function listen() {};\n"
    ),
    "lib/request.js": (
        "var req = Object.create(http.IncomingMessage.prototype);\n"
        "module.exports = req;\n"
        "req.get = function get(name) { return name; };\n"
        "defineGetter(req, 'host', function host() { return this.get('Host'); });\n"
        "defineGetter(req, 'xhr', wrap(function xhr() { return this.get('X'); }));\n"
        "function defineGetter(obj, name, getter) {\n"
        "  Object.defineProperty(obj, name, { configurable: true, get: getter });\n"
        "}\n"
    ),
    "lib/base.js": "exports.greet = function greet() {};\n",
    "lib/kit.js": (
        "var base = require('./base');\n"
        "var extra = require('some-package');\n"
        "exports.make = make;\n"
        "exports.mixed = mixed;\n"
        "function make() {\n"
        "  var handler = function () {};\n"
        "  Object.assign(handler, base);\n"
        "  return handler;\n"
        "}\n"
        "function mixed() {\n"
        "  var handler = function () {};\n"
        "  Object.assign(handler, base, extra);\n"  # extra may hold greet too
        "  return handler;\n"
        "}\n"
    ),
    "examples/resource.js": (
        "var express = require('../');\n"
        "var app = express();\n"
        "app.resource = function resource(path) { return path; };\n"
        "app.resource('/users');\n"
        "app.listen(3000);\n"
    ),
    "lib/this.js": (
        "var proto = require('./application');\n"
        "class Store {\n"
        "  save() { return 1; }\n"
        "  all(items) {\n"
        "    items.forEach(function () { this.save(); });\n"  # its own this
        "    items.forEach(() => this.save());\n"  # an arrow's this is the method's
        "    var self = this;\n"
        "    items.forEach(function () { var that = this; that.save(); self.save(); });\n"
        "  }\n"
        "}\n"
        "function install(app) {\n"
        "  app.extra = function () { this.listen(); };\n"  # app: the parameter
        "}\n"
        "var server = Object.create(proto);\n"
        "function wire() {\n"
        "  server.hook = function () { this.use(); };\n"  # called as server.hook()
        "}\n"
        "['a', 'b'].forEach(function (m) {\n"
        "  proto[m] = function () { return this.listen(); };\n"
        "});\n"
    ),
    "test/app.js": (
        "var express = require('../');\n"
        "var kit = require('../lib/kit');\n"
        "var app = express();\n"
        "app.use(function (req, res) {});\n"
        "app.on('mount', function () {});\n"
        "app.get('/');\n"  # app[method] = ...: no definition of get
        "var server = module.exports = express();\n"
        "server.listen(3000);\n"
        "function createApp() {\n"
        "  var made = express();\n"
        "  made.use(function () {});\n"
        "  return made;\n"
        "}\n"
        "createApp().listen();\n"
        "function setup(app) {\n"
        "  app.use(function () {});\n"  # the parameter, not the module's app
        "}\n"
        "kit.make().greet();\n"
        "kit.mixed().greet();\n"
    ),
}


def test_members_mixed_in_by_merge_descriptors_and_object_assign(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    assert calls(graph, "test/app.js") == [
        ("", "express", 3, EXPRESS, "createApplication", 1.0, "exact"),
        ("", "app.use", 4, APP, "app.use", 0.8, "inferred"),
        ("", "app.on", 5, "", "", 0.0, "external"),  # EventEmitter.prototype.on
        ("", "app.get", 6, "", "", 0.0, "unresolved"),
        ("", "express", 7, EXPRESS, "createApplication", 1.0, "exact"),
        ("", "server.listen", 8, APP, "app.listen", 0.8, "inferred"),  # a = b = express()
        ("createApp", "express", 10, EXPRESS, "createApplication", 1.0, "exact"),
        ("createApp", "made.use", 11, APP, "app.use", 0.8, "inferred"),
        ("", "createApp", 14, "test/app.js", "createApp", 1.0, "exact"),
        ("", "createApp().listen", 14, APP, "app.listen", 0.8, "inferred"),  # return made
        ("setup", "app.use", 16, "", "", 0.0, "unresolved"),
        ("", "kit.make", 18, "lib/kit.js", "make", 1.0, "exact"),
        ("", "kit.make().greet", 18, "lib/base.js", "greet", 0.8, "inferred"),
        ("", "kit.mixed", 19, "lib/kit.js", "mixed", 1.0, "exact"),
        ("", "kit.mixed().greet", 19, "", "", 0.0, "unresolved"),
    ]


def test_an_app_given_methods_of_its_own_keeps_the_mixed_in_ones(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    here = "examples/resource.js"
    assert calls(graph, here) == [
        ("", "express", 2, EXPRESS, "createApplication", 1.0, "exact"),
        ("", "app.resource", 4, here, "app.resource", 1.0, "exact"),
        ("", "app.listen", 5, APP, "app.listen", 0.8, "inferred"),
    ]


def test_the_mixed_in_app_inside_express_and_getters_of_define_property(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, FILES)
    assert calls(graph, EXPRESS) == [
        ("createApplication.app", "app.handle", 6, APP, "app.handle", 1.0, "exact"),
        ("createApplication", "mixin", 7, "", "", 0.0, "external"),
        ("createApplication", "mixin", 8, "", "", 0.0, "external"),
        ("createApplication", "app.init", 9, APP, "app.init", 1.0, "exact"),
    ]
    assert calls(graph, APP) == [
        ("app.init", "Object.defineProperty", 3, "", "", 0.0, "unresolved"),
        # the getter's this is the object the property is defined on: app.init's this
        ("app.init.getrouter", "this.enabled", 4, APP, "app.enabled", 1.0, "exact"),
    ]
    request = "lib/request.js"
    assert calls(graph, request) == [
        ("", "Object.create", 1, "", "", 0.0, "unresolved"),
        ("", "defineGetter", 4, request, "defineGetter", 1.0, "exact"),
        # a getter through the file's helper of Object.defineProperty: this is req
        ("host", "this.get", 4, request, "req.get", 1.0, "exact"),
        ("", "defineGetter", 5, request, "defineGetter", 1.0, "exact"),
        ("xhr", "this.get", 5, "", "", 0.0, "unresolved"),  # wrap's argument, no accessor
        ("", "wrap", 5, "", "", 0.0, "unresolved"),
        ("defineGetter", "Object.defineProperty", 7, "", "", 0.0, "unresolved"),
    ]


def test_this_of_anonymous_functions(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    here = "lib/this.js"
    assert calls(graph, here) == [
        ("Store.all", "items.forEach", 5, "", "", 0.0, "unresolved"),
        ("Store.all", "this.save", 5, "", "", 0.0, "unresolved"),  # a callback's own this
        ("Store.all", "items.forEach", 6, "", "", 0.0, "unresolved"),
        ("Store.all", "this.save", 6, here, "Store.save", 1.0, "exact"),
        ("Store.all", "items.forEach", 8, "", "", 0.0, "unresolved"),
        ("Store.all", "self.save", 8, here, "Store.save", 1.0, "exact"),
        ("Store.all", "that.save", 8, "", "", 0.0, "unresolved"),
        ("install", "this.listen", 12, "", "", 0.0, "unresolved"),
        ("", "Object.create", 14, "", "", 0.0, "unresolved"),
        # server.hook() runs it on server, whose prototype is proto (Object.create)
        ("wire", "this.use", 16, APP, "app.use", 1.0, "exact"),
        ("", "['a', 'b'].forEach", 18, "", "", 0.0, "unresolved"),
        ("", "this.listen", 19, APP, "app.listen", 1.0, "exact"),  # proto[m] = function
    ]
