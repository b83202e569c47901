"""Dart in the code graph (issue #18): a small package (``lib/``, ``lib/src/``, ``bin/``)
written the way the Dart language tour writes classes, mixins, constructors and library
imports, with its definitions, docs, imports, calls (and their confidence) and supertype
edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from clawql_git.codegraph.dart_resolve import return_type
from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

DART = {
    "pubspec.yaml": "name: shop\n",
    "lib/shop.dart": (
        "/// The shop library.\nlibrary shop;\n\nexport 'src/cart.dart';\nexport 'src/base.dart';\n"
    ),
    "lib/src/cart.dart": (
        "import 'dart:math';\n"
        "import 'package:shop/src/base.dart';\n"
        "import 'util.dart' as util;\n"
        "import '../models/item.dart';\n"
        "\n"
        "/// A cart of items.\n"
        "///\n"
        "/// Holds what the user picked.\n"
        "@immutable\n"
        "class Cart extends Base with Greets implements Comparable<Cart> {\n"
        "  final User owner;\n"
        "  final List<Item> items = [];\n"
        "  static const limit = 10;\n"
        "  final Log _log = Log();\n"
        "\n"
        "  Cart(this.owner);\n"
        "\n"
        "  Cart.empty() : owner = User();\n"
        "\n"
        "  /// Adds one item.\n"
        "  int add(Item item, {int count = 1}) {\n"
        "    var f = Formatter();\n"
        "    f.format(item);\n"
        "    owner.greet();\n"
        "    _log.write('added');\n"
        "    this.total;\n"
        "    _check();\n"
        "    util.helper(count);\n"
        "    final other = Cart.empty();\n"
        "    other.add(item);\n"
        "    return max(1, count);\n"
        "  }\n"
        "\n"
        "  int get total => items.length;\n"
        "\n"
        "  void _check() {}\n"
        "\n"
        "  @override\n"
        "  int compareTo(Cart other) => 0;\n"
        "}\n"
    ),
    "lib/src/base.dart": (
        "abstract class Base {}\n"
        "\n"
        "mixin Greets on Base {\n"
        "  void greet() {}\n"
        "}\n"
        "\n"
        "class User with Greets {}\n"
        "\n"
        "class Log {\n"
        "  void write(String line) => print(line);\n"
        "}\n"
        "\n"
        "class Formatter {\n"
        "  String format(Object value) => '$value';\n"
        "}\n"
        "\n"
        "enum Color { red, green }\n"
        "\n"
        "typedef Names = List<String>;\n"
    ),
    "lib/src/util.dart": "int helper(int x) => x;\n\nconst version = '1.0.0';\n",
    "lib/models/item.dart": "class Item {\n  final int price;\n  const Item(this.price);\n}\n",
    "bin/main.dart": (
        "import 'package:shop/shop.dart';\n"
        "\n"
        "void main() {\n"
        "  final cart = Cart(User());\n"
        "  cart.add(Item(3));\n"
        "}\n"
    ),
}
CART, BASE, UTIL = "lib/src/cart.dart", "lib/src/base.dart", "lib/src/util.dart"
ITEM, LIB, MAIN = "lib/models/item.dart", "lib/shop.dart", "bin/main.dart"


def test_dart_classes_mixins_constructors_members_and_doc_comments(tmp_path: Path) -> None:
    graph = build(tmp_path, DART)
    head = "class Cart extends Base with Greets implements Comparable<Cart>"
    assert symbols(graph, CART) == [
        ("Cart", "class", 9, 40, 1, head, "A cart of items.\n\nHolds what the user picked."),
        ("Cart.owner", "variable", 11, 11, 1, "final User owner", ""),
        ("Cart.items", "variable", 12, 12, 1, "final List<Item> items = []", ""),
        ("Cart.limit", "constant", 13, 13, 1, "static const limit = 10", ""),
        ("Cart._log", "variable", 14, 14, 0, "final Log _log = Log()", ""),  # library-private
        ("Cart.Cart", "method", 16, 16, 1, "Cart(this.owner)", ""),
        ("Cart.empty", "method", 18, 18, 1, "Cart.empty()", ""),  # a named constructor
        ("Cart.add", "method", 21, 32, 1, "int add(Item item, {int count = 1})", "Adds one item."),
        ("Cart.total", "method", 34, 34, 1, "int get total", ""),
        ("Cart._check", "method", 36, 36, 0, "void _check()", ""),
        ("Cart.compareTo", "method", 39, 39, 1, "int compareTo(Cart other)", ""),
    ]
    assert symbols(graph, BASE) == [
        ("Base", "class", 1, 1, 1, "abstract class Base", ""),
        ("Greets", "trait", 3, 5, 1, "mixin Greets on Base", ""),
        ("Greets.greet", "method", 4, 4, 1, "void greet()", ""),
        ("User", "class", 7, 7, 1, "class User with Greets", ""),
        ("Log", "class", 9, 11, 1, "class Log", ""),
        ("Log.write", "method", 10, 10, 1, "void write(String line)", ""),
        ("Formatter", "class", 13, 15, 1, "class Formatter", ""),
        ("Formatter.format", "method", 14, 14, 1, "String format(Object value)", ""),
        ("Color", "enum", 17, 17, 1, "enum Color", ""),
        ("Names", "type", 19, 19, 1, "typedef Names = List<String>", ""),
    ]
    assert symbols(graph, UTIL) == [
        ("helper", "function", 1, 1, 1, "int helper(int x)", ""),
        ("version", "constant", 3, 3, 1, "const version = '1.0.0'", ""),
    ]
    assert symbols(graph, ITEM)[-1] == (
        "Item.Item",
        "method",
        3,
        3,
        1,
        "const Item(this.price)",
        "",
    )
    assert symbols(graph, LIB) == [("shop", "module", 2, 2, 1, "library shop", "The shop library.")]
    facts = extract("dart", CART, DART[CART])
    assert [(s.name, s.decorators) for s in facts.symbols if s.decorators] == [
        ("Cart", ("immutable",)),
        ("compareTo", ("override",)),
    ]


def test_dart_imports_exports_and_package_uris_resolve_to_files(tmp_path: Path) -> None:
    f = extract("dart", CART, DART[CART])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("dart:math", "*", "", 1),
        ("package:shop/src/base.dart", "*", "", 2),
        ("util.dart", "", "util", 3),
        ("../models/item.dart", "*", "", 4),
    ]
    graph = build(tmp_path, DART)
    assert deps(graph) == {  # dart:math is the SDK: no file
        (MAIN, LIB, "package:shop/shop.dart"),  # package:shop/ is lib/
        (LIB, BASE, "src/base.dart"),
        (LIB, CART, "src/cart.dart"),
        (CART, ITEM, "../models/item.dart"),
        (CART, BASE, "package:shop/src/base.dart"),
        (CART, UTIL, "util.dart"),
    }


def test_dart_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, DART)
    assert calls(graph, CART) == [
        ("Cart", "Log", 14, BASE, "Log", 1.0, "exact"),
        ("Cart.empty", "User", 18, BASE, "User", 1.0, "exact"),  # in an initializer list
        ("Cart.add", "Formatter", 22, BASE, "Formatter", 1.0, "exact"),
        ("Cart.add", "f.format", 23, BASE, "Formatter.format", 0.8, "inferred"),
        ("Cart.add", "owner.greet", 24, BASE, "Greets.greet", 0.8, "inferred"),  # via mixin
        ("Cart.add", "_log.write", 25, BASE, "Log.write", 0.8, "inferred"),
        ("Cart.add", "_check", 27, CART, "Cart._check", 1.0, "exact"),  # implicit this
        ("Cart.add", "util.helper", 28, UTIL, "helper", 1.0, "exact"),  # import prefix
        ("Cart.add", "Cart.empty", 29, CART, "Cart.empty", 1.0, "exact"),
        ("Cart.add", "other.add", 30, CART, "Cart.add", 0.8, "inferred"),  # named constructor
        ("Cart.add", "max", 31, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, MAIN) == [  # through lib/shop.dart's exports
        ("main", "Cart", 4, CART, "Cart", 1.0, "exact"),
        ("main", "User", 4, BASE, "User", 1.0, "exact"),
        ("main", "Item", 5, "", "", 0.0, "unresolved"),  # cart.dart imports it, not exports
        ("main", "cart.add", 5, CART, "Cart.add", 0.8, "inferred"),
    ]


def test_dart_extends_with_implements_and_mixin_on_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, DART)
    assert supertypes(graph) == {
        (BASE, "Greets", "Base", "extends", 3, BASE, "Base", "exact"),
        (BASE, "User", "Greets", "uses", 7, BASE, "Greets", "exact"),
        (CART, "Cart", "Base", "extends", 10, BASE, "Base", "exact"),
        (CART, "Cart", "Comparable", "implements", 10, "", "", "unresolved"),
        (CART, "Cart", "Greets", "uses", 10, BASE, "Greets", "exact"),
    }
    down = graph.hierarchy("Greets", direction="down")
    assert sorted(e["child"] for e in down.items) == [f"{BASE}:User", f"{CART}:Cart"]


def test_dart_syntax_errors_are_counted_not_fatal() -> None:
    f = extract("dart", "broken.dart", b"void ok() { go(); }\nvoid broken( {\n\xff\n")
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}


# The language tour's own shapes: a class with a named constructor and a method returning
# its type, getters (``Point get topLeft``), a library imported with a prefix
# (``import '...' as geo``), top-level variables with a declared type, and a nested
# (local) function.
GEO = {
    "pubspec.yaml": "name: geo\n",
    "lib/geo.dart": "export 'src/point.dart';\nexport 'src/rectangle.dart';\n",
    "lib/src/point.dart": (
        "class Point {\n"
        "  final double x;\n"
        "  final double y;\n"
        "\n"
        "  Point(this.x, this.y);\n"
        "\n"
        "  Point.origin()\n"
        "      : x = 0,\n"
        "        y = 0;\n"
        "\n"
        "  double distanceTo(Point other) => 0;\n"
        "\n"
        "  Point translate(double dx) => Point(x + dx, y);\n"
        "}\n"
    ),
    "lib/src/rectangle.dart": (
        "import 'point.dart';\n"
        "\n"
        "class Rectangle {\n"
        "  double left, top, width, height;\n"
        "\n"
        "  Rectangle(this.left, this.top, this.width, this.height);\n"
        "\n"
        "  Point get topLeft => Point(left, top);\n"
        "\n"
        "  double get right => left + width;\n"
        "\n"
        "  double span() => topLeft.distanceTo(Point(right, top));\n"
        "}\n"
    ),
    "bin/main.dart": (
        "import 'package:geo/geo.dart' as geo;\n"
        "\n"
        "final geo.Point home = geo.Point(0, 0);\n"
        "\n"
        "int count() => 1;\n"
        "\n"
        "void main() {\n"
        "  var p = geo.Point(2, 3);\n"
        "  p.distanceTo(home);\n"
        "  final q = p.translate(1);\n"
        "  q.distanceTo(p);\n"
        "  home.translate(2).distanceTo(p);\n"
        "  final box = geo.Rectangle(0, 0, 4, 3);\n"
        "  box.topLeft.distanceTo(p);\n"
        "\n"
        "  double area(geo.Rectangle r) {\n"
        "    return r.span();\n"
        "  }\n"
        "\n"
        "  area(box);\n"
        "  final o = geo.Point.origin();\n"
        "  o.translate(1);\n"
        "  var n = count();\n"
        "  n.toString();\n"
        "}\n"
    ),
}
POINT, RECT, GEO_MAIN = "lib/src/point.dart", "lib/src/rectangle.dart", "bin/main.dart"


def test_dart_local_functions_and_prefixed_types_are_definitions(tmp_path: Path) -> None:
    graph = build(tmp_path, GEO)
    assert symbols(graph, GEO_MAIN) == [
        ("home", "variable", 3, 3, 1, "final geo.Point home = geo.Point(0, 0)", ""),
        ("count", "function", 5, 5, 1, "int count()", ""),
        ("main", "function", 7, 25, 1, "void main()", ""),
        ("main.area", "function", 16, 18, 0, "double area(geo.Rectangle r)", ""),  # local
    ]
    assert [
        (a.target, a.value, a.scope, a.annotation)
        for a in extract("dart", GEO_MAIN, GEO[GEO_MAIN]).assignments
    ] == [
        ("home", "geo.Point", "", True),  # the declared type, not the value's
        ("p", "geo.Point", "main", False),
        ("q", "p.translate", "main", False),
        ("box", "geo.Rectangle", "main", False),
        ("r", "geo.Rectangle", "main.area", True),
        ("o", "geo.Point", "main", False),  # a named constructor through the prefix
        ("n", "count", "main", False),
    ]


def test_dart_calls_typed_by_prefixes_getters_and_return_types(tmp_path: Path) -> None:
    graph = build(tmp_path, GEO)
    assert calls(graph, GEO_MAIN) == [
        ("", "geo.Point", 3, POINT, "Point", 1.0, "exact"),
        ("main", "geo.Point", 8, POINT, "Point", 1.0, "exact"),
        ("main", "p.distanceTo", 9, POINT, "Point.distanceTo", 0.8, "inferred"),
        ("main", "p.translate", 10, POINT, "Point.translate", 0.8, "inferred"),
        ("main", "q.distanceTo", 11, POINT, "Point.distanceTo", 0.8, "inferred"),  # returns
        ("main", "home.translate", 12, POINT, "Point.translate", 0.8, "inferred"),
        ("main", "home.translate().distanceTo", 12, POINT, "Point.distanceTo", 0.8, "inferred"),
        ("main", "geo.Rectangle", 13, RECT, "Rectangle", 1.0, "exact"),
        ("main", "box.topLeft.distanceTo", 14, POINT, "Point.distanceTo", 0.8, "inferred"),
        ("main.area", "r.span", 17, RECT, "Rectangle.span", 0.8, "inferred"),
        ("main", "area", 20, GEO_MAIN, "main.area", 1.0, "exact"),  # the local function
        ("main", "geo.Point.origin", 21, POINT, "Point.origin", 1.0, "exact"),
        ("main", "o.translate", 22, POINT, "Point.translate", 0.8, "inferred"),
        ("main", "count", 23, GEO_MAIN, "count", 1.0, "exact"),
        ("main", "n.toString", 24, "", "", 0.0, "unresolved"),  # an int: the SDK's
    ]
    assert calls(graph, RECT) == [
        ("Rectangle.topLeft", "Point", 8, POINT, "Point", 1.0, "exact"),
        ("Rectangle.span", "Point", 12, POINT, "Point", 1.0, "exact"),
        # an implicit-this getter read, typed by what it declares: Point get topLeft
        ("Rectangle.span", "topLeft.distanceTo", 12, POINT, "Point.distanceTo", 0.8, "inferred"),
    ]


def test_dart_return_type_of_signatures() -> None:
    assert return_type("Point translate(double dx)", "translate") == "Point"
    assert return_type("static ParsedPath parse(String path)", "parse") == "ParsedPath"
    assert return_type("geo.Point get topLeft", "topLeft") == "geo.Point"
    assert return_type("List<Point>? corners()", "corners") == "List"
    assert return_type("void reset()", "reset") == ""
    assert return_type("const Item(this.price)", "Item") == ""  # a constructor
    assert return_type("Point(this.x, this.y)", "Point") == ""
    assert return_type("factory Point.fromJson(Map json)", "fromJson") == ""


def test_dart_a_local_function_in_a_method_is_a_function_of_the_method() -> None:
    source = (
        "class Grid {\n"
        "  int sum() {\n"
        "    int twice(int x) => x * 2;\n"
        "    return twice(1);\n"
        "  }\n"
        "}\n"
    )
    f = extract("dart", "grid.dart", source)
    assert [(s.qualname, s.kind, s.line, s.exported) for s in f.symbols] == [
        ("Grid", "class", 1, True),
        ("Grid.sum", "method", 2, True),
        ("Grid.sum.twice", "function", 3, False),
    ]
    assert [(c.caller, c.callee, c.line) for c in f.calls] == [("Grid.sum", "twice", 4)]


NODE = (
    "class Node {\n"
    "  final Node? next;\n"
    "\n"
    "  Node(this.next);\n"
    "\n"
    "  void visit() {\n"
    "    next?.visit();\n"
    "    this.next?.visit();\n"
    "  }\n"
    "\n"
    "  void skip(Tree next) {\n"
    "    next.walk();\n"
    "  }\n"
    "}\n"
    "\n"
    "class Tree {\n"
    "  final Node root;\n"
    "\n"
    "  Tree(this.root);\n"
    "\n"
    "  void walk() => root.visit();\n"
    "}\n"
)


def test_dart_a_field_typed_by_its_own_class_and_a_parameter_shadowing_it(tmp_path: Path) -> None:
    graph = build(tmp_path, {"lib/node.dart": NODE})
    assert calls(graph, "lib/node.dart") == [
        ("Node.visit", "next.visit", 7, "lib/node.dart", "Node.visit", 0.8, "inferred"),
        ("Node.visit", "this.next.visit", 8, "lib/node.dart", "Node.visit", 0.8, "inferred"),
        ("Node.skip", "next.walk", 12, "lib/node.dart", "Tree.walk", 0.8, "inferred"),  # param
        ("Tree.walk", "root.visit", 21, "lib/node.dart", "Node.visit", 0.8, "inferred"),
    ]


HIRE = (
    "import 'ctx.dart' as p;\n"
    "\n"
    "class Candidate {\n"
    "  void interview() {}\n"
    "}\n"
    "\n"
    "Future<void> hire(List<Candidate> candidates, Stream<Candidate> arriving) async {\n"
    "  for (final Candidate candidate in candidates) {\n"
    "    candidate.interview();\n"
    "  }\n"
    "  for (Candidate? maybe in candidates) {\n"
    "    maybe?.interview();\n"
    "  }\n"
    "  await for (final Candidate next in arriving) {\n"
    "    next.interview();\n"
    "  }\n"
    "  for (final p.Context context in <p.Context>[]) {\n"
    "    context.split();\n"
    "  }\n"
    "  for (final each in candidates) {\n"
    "    each.interview();\n"
    "  }\n"
    "}\n"
)


def test_dart_for_in_loop_variables_typed_by_their_declaration(tmp_path: Path) -> None:
    """The language tour's for-in loop (``for (final candidate in candidates)``, ``await
    for``): a loop variable declared with a type holds that type; one declared ``final``
    alone is typed by the iterable's elements, which are not read, so stays unresolved."""
    ctx = "class Context {\n  List<String> split() => [];\n}\n"
    graph = build(tmp_path, {"lib/hire.dart": HIRE, "lib/ctx.dart": ctx})
    interview = ("lib/hire.dart", "Candidate.interview", 0.8, "inferred")
    assert calls(graph, "lib/hire.dart") == [
        ("hire", "candidate.interview", 9, *interview),
        ("hire", "maybe.interview", 12, *interview),  # ``Candidate?``
        ("hire", "next.interview", 15, *interview),  # ``await for``
        ("hire", "context.split", 18, "lib/ctx.dart", "Context.split", 0.8, "inferred"),
        ("hire", "each.interview", 21, "", "", 0.0, "unresolved"),
    ]
