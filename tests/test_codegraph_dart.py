"""Dart in the code graph (issue #18): a small package (``lib/``, ``lib/src/``, ``bin/``)
written the way the Dart language tour writes classes, mixins, constructors and library
imports, with its definitions, docs, imports, calls (and their confidence) and supertype
edges stated exactly."""

from __future__ import annotations

from pathlib import Path

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
