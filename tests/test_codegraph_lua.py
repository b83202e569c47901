"""Lua in the code graph (issue #18): a small module tree written the way Programming in
Lua writes modules (``require``, a returned table) and classes (metatables, ``__index``),
with its definitions, docs, requires, calls (and their confidence) and supertype edges
stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

LUA = {
    "shop/cart.lua": (
        "--- A shopping cart.\n"
        "-- @module shop.cart\n"
        'local Item = require("shop.item")\n'
        'local util = require "shop.util"\n'
        'local Base = require("shop.base")\n'
        "\n"
        "local Cart = setmetatable({}, { __index = Base })\n"
        "Cart.__index = Cart\n"
        "Cart.LIMIT = 10\n"
        "\n"
        "--- Makes a cart.\n"
        "-- @param owner who shops\n"
        "function Cart.new(owner)\n"
        "  local self = setmetatable({}, Cart)\n"
        "  self.owner = owner\n"
        "  self.items = {}\n"
        "  return self\n"
        "end\n"
        "\n"
        "local function check(cart)\n"
        "  return cart:total() <= Cart.LIMIT\n"
        "end\n"
        "\n"
        "function Cart:add(name, price)\n"
        "  local item = Item.new(name, price)\n"
        "  table.insert(self.items, item)\n"
        "  item:describe()\n"
        "  self:total()\n"
        "  self:log(name)\n"
        "  util.format(price)\n"
        "  return check(self)\n"
        "end\n"
        "\n"
        "function Cart:total()\n"
        "  return #self.items\n"
        "end\n"
        "\n"
        "return Cart\n"
    ),
    "shop/item.lua": (
        "local Item = {}\n"
        "Item.__index = Item\n"
        "\n"
        "function Item.new(name, price)\n"
        "  return setmetatable({ name = name, price = price }, Item)\n"
        "end\n"
        "\n"
        "-- Says what it is.\n"
        "function Item:describe()\n"
        '  return string.format("%s: %d", self.name, self.price)\n'
        "end\n"
        "\n"
        "return Item\n"
    ),
    "shop/base.lua": (
        "local Base = {}\n\nfunction Base:log(message)\n  print(message)\nend\n\nreturn Base\n"
    ),
    "shop/util/init.lua": (
        "local M = {}\n"
        "\n"
        "M.format = function(amount)\n"
        '  return string.format("$%d", amount)\n'
        "end\n"
        "\n"
        "return M\n"
    ),
    "main.lua": (
        'local cart = require("shop.cart")\n'
        'local json = require("cjson")\n'
        "\n"
        'local c = cart.new("ann")\n'
        'c:add("tea", 3)\n'
        "print(json.encode(c))\n"
    ),
}
CART, ITEM, BASE, UTIL = "shop/cart.lua", "shop/item.lua", "shop/base.lua", "shop/util/init.lua"


def test_lua_tables_functions_methods_and_ldoc_comments(tmp_path: Path) -> None:
    graph = build(tmp_path, LUA)
    table = "local Cart = setmetatable({}, { __index = Base })"
    assert symbols(graph, CART) == [
        ("Cart", "class", 7, 7, 1, table, ""),  # returned: exported though local
        ("Cart.LIMIT", "variable", 9, 9, 1, "Cart.LIMIT = 10", ""),
        (
            "Cart.new",
            "function",
            13,
            18,
            1,
            "function Cart.new(owner)",
            "Makes a cart.\n@param owner who shops",
        ),
        ("check", "function", 20, 22, 0, "local function check(cart)", ""),
        ("Cart.add", "method", 24, 32, 1, "function Cart:add(name, price)", ""),
        ("Cart.total", "method", 34, 36, 1, "function Cart:total()", ""),
    ]
    assert symbols(graph, ITEM) == [
        ("Item", "class", 1, 1, 1, "local Item = {}", ""),
        ("Item.new", "function", 4, 6, 1, "function Item.new(name, price)", ""),
        ("Item.describe", "method", 9, 11, 1, "function Item:describe()", "Says what it is."),
    ]
    assert symbols(graph, UTIL) == [  # no methods, no metatable: a module table
        ("M", "module", 1, 1, 1, "local M = {}", ""),
        ("M.format", "function", 3, 5, 1, "function M.format(amount)", ""),
    ]
    assert extract("lua", CART, LUA[CART]).module_doc == "A shopping cart.\n@module shop.cart"


def test_lua_require_resolves_dotted_names_to_files(tmp_path: Path) -> None:
    f = extract("lua", CART, LUA[CART])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("shop.item", "", "Item", 3),
        ("shop.util", "", "util", 4),
        ("shop.base", "", "Base", 5),
    ]
    graph = build(tmp_path, LUA)
    assert deps(graph) == {  # cjson is a rock, not in the repository
        ("main.lua", CART, "shop.cart"),
        (CART, BASE, "shop.base"),
        (CART, ITEM, "shop.item"),
        (CART, UTIL, "shop.util"),  # shop/util/init.lua
    }


def test_lua_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, LUA)
    assert calls(graph, CART) == [
        ("", "setmetatable", 7, "", "", 0.0, "unresolved"),
        ("Cart.new", "setmetatable", 14, "", "", 0.0, "unresolved"),
        ("check", "cart.total", 21, "", "", 0.0, "unresolved"),  # an untyped parameter
        ("Cart.add", "Item.new", 25, ITEM, "Item.new", 1.0, "exact"),  # the returned table
        ("Cart.add", "table.insert", 26, "", "", 0.0, "unresolved"),
        ("Cart.add", "item.describe", 27, ITEM, "Item.describe", 0.8, "inferred"),
        ("Cart.add", "self.total", 28, CART, "Cart.total", 1.0, "exact"),
        ("Cart.add", "self.log", 29, BASE, "Base.log", 1.0, "exact"),  # through __index
        ("Cart.add", "util.format", 30, UTIL, "M.format", 1.0, "exact"),
        ("Cart.add", "check", 31, CART, "check", 1.0, "exact"),
    ]
    assert calls(graph, "main.lua") == [
        ("", "cart.new", 4, CART, "Cart.new", 1.0, "exact"),
        ("", "c.add", 5, CART, "Cart.add", 0.8, "inferred"),  # c = cart.new(...)
        ("", "json.encode", 6, "", "", 0.0, "external"),
        ("", "print", 6, "", "", 0.0, "unresolved"),
    ]


def test_lua_metatable_index_is_a_supertype_edge(tmp_path: Path) -> None:
    graph = build(tmp_path, LUA)
    assert supertypes(graph) == {(CART, "Cart", "Base", "extends", 7, BASE, "Base", "exact")}
    source = "local A = {}\nlocal B = {}\nsetmetatable(B, {__index = A})\nfunction B:f() end\n"
    f = extract("lua", "b.lua", source)
    assert [(s.child, s.base, s.line) for s in f.supertypes] == [("B", "A", 3)]
    assert [(s.qualname, s.kind, s.bases) for s in f.symbols] == [
        ("A", "module", ()),
        ("B", "class", ("A",)),
        ("B.f", "method", ()),
    ]


def test_lua_syntax_errors_are_counted_not_fatal() -> None:
    f = extract("lua", "broken.lua", b"function ok() go() end\nfunction broken(\n\xff\n")
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}


# The manual's table constructor (§3.4.9): fields ``name = exp`` (the same as
# ``["name"] = exp``), ``[exp] = exp`` and positional ``exp``, separated by ``,`` or ``;``;
# ``setmetatable`` (§6.1) returns its first argument.
POINT = (
    "local Point = {\n"
    "  --- Makes a point.\n"
    "  new = function(x, y)\n"
    "    return setmetatable({ x = x, y = y }, Point)\n"
    "  end;\n"
    '  ["origin"] = function() return Point.new(0, 0) end,\n'
    "  [1] = function() end,\n"
    '  ["not a name"] = function() end,\n'
    "  function() end,\n"
    "  ops = {\n"
    "    add = function(a, b) return Point.new(a.x + b.x, a.y + b.y) end,\n"
    "  },\n"
    "  scale = 2,\n"
    "}\n"
    "\n"
    "local Counter = setmetatable({\n"
    "  tick = function(self) self.n = self.n + 1 end,\n"
    "}, { __index = Point })\n"
    "\n"
    "setmetatable(Point, { __call = function(_, x, y) return Point.new(x, y) end })\n"
    "\n"
    "local function registry()\n"
    "  local handlers = { on_add = function(p) print(p) end }\n"
    "  return handlers\n"
    "end\n"
    "\n"
    "return Point\n"
)


def test_lua_functions_in_a_named_table_constructor_are_its_functions(tmp_path: Path) -> None:
    graph = build(tmp_path, {"point.lua": POINT})
    table = "local Counter = setmetatable({ tick = function(self) self.n = self.n + 1 end, }, "
    assert symbols(graph, "point.lua")[1:] == [  # [0] is the table Point
        ("Point.new", "function", 3, 5, 1, "function Point.new(x, y)", "Makes a point."),
        ("Point.origin", "function", 6, 6, 1, "function Point.origin()", ""),
        # [1], "not a name", the positional one and __call of an unnamed table: no name
        ("Point.ops.add", "function", 11, 11, 1, "function Point.ops.add(a, b)", ""),
        ("Counter", "class", 16, 18, 0, table + "{ __index = Point })", ""),
        ("Counter.tick", "function", 17, 17, 1, "function Counter.tick(self)", ""),
        ("registry", "function", 22, 25, 0, "local function registry()", ""),
        ("registry.handlers.on_add", "function", 23, 23, 1, "function handlers.on_add(p)", ""),
    ]
    assert symbols(graph, "point.lua")[0][:5] == ("Point", "module", 1, 14, 1)
    assert calls(graph, "point.lua") == [  # a field function's calls are its own
        ("Point.new", "setmetatable", 4, "", "", 0.0, "unresolved"),
        ("Point.origin", "Point.new", 6, "point.lua", "Point.new", 1.0, "exact"),
        ("Point.ops.add", "Point.new", 11, "point.lua", "Point.new", 1.0, "exact"),
        ("", "setmetatable", 16, "", "", 0.0, "unresolved"),
        ("", "Point.new", 20, "point.lua", "Point.new", 1.0, "exact"),
        ("", "setmetatable", 20, "", "", 0.0, "unresolved"),
        ("registry.handlers.on_add", "print", 23, "", "", 0.0, "unresolved"),
    ]


def test_lua_table_fields_take_the_name_they_are_assigned_to() -> None:
    source = (
        "local a, b = { f = function() end }, { g = function() end }\n"
        "do\n"
        "  local c = { h = function() end }\n"
        "end\n"
        "t[k] = { i = function() end }\n"
        "M.sub = { j = function() end }\n"
        "local d = { m = function() local inner = {} end }\n"
        "return { k = function() return a.f() end }\n"
    )
    f = extract("lua", "fields.lua", source)
    assert [(s.qualname, s.kind, s.line) for s in f.symbols] == [
        ("a", "module", 1),
        ("b", "module", 1),
        ("a.f", "function", 1),
        ("b.g", "function", 1),
        ("c", "module", 3),  # a do block is no scope of names
        ("c.h", "function", 3),
        ("M.sub.j", "function", 6),  # t[k] and the returned table have no name
        ("d", "module", 7),
        ("d.m", "function", 7),  # its local table is no file-level one
    ]
    assert [(c.caller, c.callee, c.line) for c in f.calls] == [("", "a.f", 8)]


# The Lua 5.4 manual: ``require`` returns the value the module returns (§6.3), so
# ``require("m").f`` is a field of it; ``v:name(args)`` is ``v.name(v, args)`` (§3.4.10) and
# ``function t:m()`` is ``t.m = function(self)`` (§3.4.11); ``setmetatable`` returns its first
# argument (§6.1), whose ``__index`` then finds the methods (§2.4); locals are lexically
# scoped, parameters and loop variables are locals (§3.5, §3.3.5): a function stored in
# ``M`` does not see ``M``'s fields as names.
GEO = {
    "geo/vec.lua": (
        "local Vec = {}\n"
        "Vec.__index = Vec\n"
        "\n"
        "function Vec.new(x, y)\n"
        "  return setmetatable({ x = x, y = y }, Vec)\n"
        "end\n"
        "\n"
        "function Vec:len()\n"
        "  return math.sqrt(self:dot(self))\n"
        "end\n"
        "\n"
        "function Vec:dot(o)\n"
        "  return self.x * o.x + self.y * o.y\n"
        "end\n"
        "\n"
        "function Vec.zero()\n"
        "  local v = Vec.new(0, 0)\n"
        "  return v\n"
        "end\n"
        "\n"
        "return Vec\n"
    ),
    "geo/util.lua": (
        "local M = {}\n"
        "\n"
        "function M.round(x)\n"
        "  return math.floor(x + 0.5)\n"
        "end\n"
        "\n"
        "function M.scale(v, k)\n"
        "  local round = M.round\n"
        "  return round(v * k)\n"
        "end\n"
        "\n"
        "function M.clamp(x)\n"
        "  return round(x)\n"
        "end\n"
        "\n"
        "M.nearest = M.round\n"
        "return M\n"
    ),
    "geo/proto.lua": "local P = {}\nP.Stack = {}\nreturn P\n",
    "geo/stack.lua": (
        'local proto = require("geo.proto")\n'
        "local Stack = proto.Stack\n"
        "\n"
        "function Stack:push(x)\n"
        "  self:touch()\n"
        "end\n"
        "\n"
        "function Stack:touch() end\n"
        "\n"
        "return Stack\n"
    ),
    "main.lua": (
        'local Vec = require("geo.vec")\n'
        'local round = require("geo.util").round\n'
        'local util = require "geo.util"\n'
        'local Stack = require "geo.stack"\n'
        "local insert = table.insert\n"
        "\n"
        "local function norm(v)\n"
        "  return v:len()\n"
        "end\n"
        "\n"
        "local function each(list)\n"
        "  for _, round in ipairs(list) do\n"
        "    round()\n"
        "  end\n"
        "end\n"
        "\n"
        "local a = Vec.new(1, 2)\n"
        "a:len()\n"
        "round(a:dot(a))\n"
        "insert({}, a)\n"
        "util.scale(a.x, 2)\n"
        "local b = Vec.new(0, 0)\n"
        "b = norm(b)\n"
        "b:len()\n"
        "local s = setmetatable({}, { __index = Stack })\n"
        "s:push(1)\n"
        "do\n"
        "  local scale = util.scale\n"
        "  scale(1, 2)\n"
        "end\n"
        "do\n"
        "  local scale = util.round\n"
        "  scale(1)\n"
        "end\n"
        "local z = Vec.zero()\n"
        "z:len()\n"
        "util.nearest(1.5)\n"
    ),
}


def test_lua_calls_resolve_by_require_methods_metatables_and_lexical_scope(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, GEO)
    vec, util, stack = "geo/vec.lua", "geo/util.lua", "geo/stack.lua"
    assert calls(graph, vec) == [
        ("Vec.new", "setmetatable", 5, "", "", 0.0, "unresolved"),
        ("Vec.len", "math.sqrt", 9, "", "", 0.0, "unresolved"),
        ("Vec.len", "self.dot", 9, vec, "Vec.dot", 1.0, "exact"),  # self:dot(self)
        ("Vec.zero", "Vec.new", 17, vec, "Vec.new", 1.0, "exact"),
    ]
    assert calls(graph, util) == [
        ("M.round", "math.floor", 4, "", "", 0.0, "unresolved"),
        ("M.scale", "round", 9, util, "M.round", 1.0, "exact"),  # local round = M.round
        ("M.clamp", "round", 13, "", "", 0.0, "unresolved"),  # a global: M.round is no name
    ]
    # a name given methods (``function Stack:push``) is a class, wherever its table is made
    assert symbols(graph, stack)[0][:2] == ("Stack", "class")
    assert calls(graph, stack) == [
        ("Stack.push", "self.touch", 5, stack, "Stack.touch", 1.0, "exact")
    ]
    assert calls(graph, "main.lua") == [
        ("norm", "v.len", 8, "", "", 0.0, "unresolved"),  # a parameter
        ("each", "ipairs", 12, "", "", 0.0, "unresolved"),
        ("each", "round", 13, "", "", 0.0, "unresolved"),  # the loop variable, not the import
        ("", "Vec.new", 17, vec, "Vec.new", 1.0, "exact"),
        ("", "a.len", 18, vec, "Vec.len", 0.8, "inferred"),  # Vec.new returns a Vec
        ("", "a.dot", 19, vec, "Vec.dot", 0.8, "inferred"),
        ("", "round", 19, util, "M.round", 1.0, "exact"),  # require("geo.util").round
        ("", "insert", 20, "", "", 0.0, "unresolved"),  # table.insert: the standard library
        ("", "util.scale", 21, util, "M.scale", 1.0, "exact"),
        ("", "Vec.new", 22, vec, "Vec.new", 1.0, "exact"),
        ("", "norm", 23, "main.lua", "norm", 1.0, "exact"),
        ("", "b.len", 24, "", "", 0.0, "unresolved"),  # b is a Vec, then what norm gives
        ("", "setmetatable", 25, "", "", 0.0, "unresolved"),
        ("", "s.push", 26, stack, "Stack.push", 1.0, "exact"),  # s itself, through __index
        ("", "scale", 29, util, "M.scale", 1.0, "exact"),  # each block's own local
        ("", "scale", 33, util, "M.round", 1.0, "exact"),
        ("", "Vec.zero", 35, vec, "Vec.zero", 1.0, "exact"),
        ("", "z.len", 36, vec, "Vec.len", 0.8, "inferred"),  # it returns what Vec.new gives
        ("", "util.nearest", 37, util, "M.round", 1.0, "exact"),  # M.nearest = M.round
    ]


# Penlight's classes and imports (its reference: ``pl.class``, ``pl.utils.import``):
# ``class(Base)``, ``class.Name(Base)`` (a global Name), ``class(Base, nil, T)`` (T made the
# class) and ``class{_base = Base, ...}`` (the table is the class) derive from Base, whose
# methods the class copies; calling a class makes an instance. ``utils.import(m)`` makes each
# field of ``m`` a global unless a global of that name is set.
PENLIGHT = {
    "shapes/shape.lua": (
        "local class = require 'pl.class'\n"
        "local Shape = class()\n"
        "function Shape:_init(name) self.name = name end\n"
        "function Shape:describe() return self.name end\n"
        "return Shape\n"
    ),
    "shapes/circle.lua": (
        "local class = require 'pl.class'\n"
        "local Shape = require 'shapes.shape'\n"
        "local Circle = class(Shape)\n"
        "function Circle:area() return self:describe() end\n"
        "return Circle\n"
    ),
    "geo.lua": (
        "local strict = require 'pl.strict'\n"
        "local M = strict.module(...)\n"
        "function M.scale(k) return k end\n"
        "function M.type(x) return 'geo' end\n"
        "return M\n"
    ),
    "compat.lua": "local compat = {}\nfunction compat.run() end\nreturn compat\n",
    "tools.lua": (
        "local compat = require 'compat'\n"
        "local tools = {}\n"
        "for k, v in pairs(compat) do tools[k] = v end\n"
        "function tools.own() end\n"
        "return tools\n"
    ),
    "wrapped.lua": (
        "local compat = require 'compat'\n"
        "local wrapped = {}\n"
        "for k, v in pairs(compat) do wrapped[k] = wrap(v) end\n"
        "return wrapped\n"
    ),
    "use.lua": (
        "local tools = require 'tools'\n"
        "local wrapped = require 'wrapped'\n"
        "tools.run()\n"
        "tools.own()\n"
        "tools.none()\n"
        "wrapped.run()\n"
    ),
    "pl/tablex.lua": "local tablex = {}\nfunction tablex.keys(t) end\nreturn tablex\n",
    "blocks.lua": (
        "it(function()\n"
        "  local obj = make()\n"
        "  function obj.cb() end\n"
        "  obj.cb()\n"
        "end)\n"
        "it(function()\n"
        "  local obj = other()\n"
        "  obj.cb()\n"
        "end)\n"
    ),
    "helpers.lua": (
        "function shout(s) end\nlocal function whisper(s) end\nlocal hush\nfunction hush() end\n"
    ),
    "script.lua": (
        "require 'pl'\n"
        "tablex.keys({})\n"
        "utils.import(tablex)\n"
        "keys({})\n"
        "local List = {}\n"
        "List.new()\n"
        "require 'helpers'\n"
        "shout('a')\n"
        "whisper('a')\n"
        "hush()\n"
    ),
    "main.lua": (
        "local class = require 'pl.class'\n"
        "local utils = require 'pl.utils'\n"
        "local Shape = require 'shapes.shape'\n"
        "local Circle = require 'shapes.circle'\n"
        "local geo = require 'geo'\n"
        "utils.import 'geo'\n"
        "class.Square(Circle)\n"
        "function Square:side() return 1 end\n"
        "local Tri = class {_base = Circle, corners = function(self) return 3 end}\n"
        "local Box = {}\n"
        "class(Shape, nil, Box)\n"
        "local c = Circle('c')\n"
        "c:describe()\n"
        "local s = Square()\n"
        "s:area()\n"
        "s:side()\n"
        "local t = Tri()\n"
        "t:corners()\n"
        "t:area()\n"
        "Box():describe()\n"
        "geo.scale(1)\n"
        "scale(2)\n"
        "type(3)\n"
        "local function f()\n"
        "  local Hidden = class()\n"
        "  return Hidden()\n"
        "end\n"
    ),
}


def test_lua_penlight_classes_and_imported_globals(tmp_path: Path) -> None:
    graph = build(tmp_path, PENLIGHT)
    main, shape, circle = "main.lua", "shapes/shape.lua", "shapes/circle.lua"
    assert calls(graph, main) == [
        ("", "utils.import", 6, "", "", 0.0, "external"),
        ("", "class.Square", 7, "", "", 0.0, "external"),
        ("", "class", 9, "", "", 0.0, "external"),
        ("", "class", 11, "", "", 0.0, "external"),
        ("", "Circle", 12, circle, "Circle", 1.0, "exact"),
        ("", "c.describe", 13, shape, "Shape.describe", 0.8, "inferred"),  # Circle's base
        ("", "Square", 14, main, "Square", 1.0, "exact"),  # the global class.Square sets
        ("", "s.area", 15, circle, "Circle.area", 0.8, "inferred"),
        ("", "s.side", 16, main, "Square.side", 0.8, "inferred"),
        ("", "Tri", 17, main, "Tri", 1.0, "exact"),
        ("", "t.corners", 18, main, "Tri.corners", 0.8, "inferred"),  # its plain table's
        ("", "t.area", 19, circle, "Circle.area", 0.8, "inferred"),  # through _base
        ("", "Box", 20, main, "Box", 1.0, "exact"),
        ("", "geo.scale", 21, "geo.lua", "M.scale", 1.0, "exact"),  # M = strict.module(...)
        ("", "scale", 22, "geo.lua", "M.scale", 1.0, "exact"),  # utils.import 'geo'
        ("", "type", 23, "", "", 0.0, "unresolved"),  # a global already: import keeps it
        ("f", "class", 25, "", "", 0.0, "external"),
        ("f", "Hidden", 26, "", "", 0.0, "external"),  # a local of f: no class of the file
    ]
    assert calls(graph, circle)[-1] == (
        "Circle.area",
        "self.describe",
        4,
        shape,
        "Shape.describe",
        1.0,
        "exact",
    )
    assert supertypes(graph) == {
        (circle, "Circle", "Shape", "extends", 3, shape, "Shape", "exact"),
        (main, "Square", "Circle", "extends", 7, circle, "Circle", "exact"),
        (main, "Tri", "Circle", "extends", 9, circle, "Circle", "exact"),
        (main, "Box", "Shape", "extends", 11, shape, "Shape", "exact"),
    }
    assert [s[:2] for s in symbols(graph, "geo.lua")][:1] == [("M", "module")]
    # ``require 'pl'``: each Penlight module is the global of its name (``pl.import_into``)
    assert calls(graph, "script.lua") == [
        ("", "tablex.keys", 2, "pl/tablex.lua", "tablex.keys", 1.0, "exact"),
        ("", "utils.import", 3, "", "", 0.0, "unresolved"),  # no pl/utils.lua here
        ("", "keys", 4, "pl/tablex.lua", "tablex.keys", 1.0, "exact"),  # utils.import(tablex)
        ("", "List.new", 6, "", "", 0.0, "unresolved"),  # the local, not pl.List
        ("", "shout", 8, "helpers.lua", "shout", 1.0, "exact"),  # a global helpers.lua sets
        ("", "whisper", 9, "", "", 0.0, "unresolved"),  # a local of helpers.lua
        ("", "hush", 10, "", "", 0.0, "unresolved"),  # ``function hush`` sets the local
    ]
    assert [s[:2] + s[4:5] for s in symbols(graph, "helpers.lua")] == [
        ("shout", "function", 1),
        ("whisper", "function", 0),
        ("hush", "function", 0),
    ]
    # a local of an unnamed function given a function is no table of the file
    assert [c[1:4] for c in calls(graph, "blocks.lua") if c[1] == "obj.cb"] == [
        ("obj.cb", 4, ""),
        ("obj.cb", 8, ""),
    ]
    # ``for k, v in pairs(src) do t[k] = v end`` (the manual, §6.1: pairs visits every field)
    assert calls(graph, "use.lua") == [
        ("", "tools.run", 3, "compat.lua", "compat.run", 1.0, "exact"),  # copied from compat
        ("", "tools.own", 4, "tools.lua", "tools.own", 1.0, "exact"),
        ("", "tools.none", 5, "", "", 0.0, "unresolved"),
        ("", "wrapped.run", 6, "", "", 0.0, "unresolved"),  # wrap(v): not the field itself
    ]
