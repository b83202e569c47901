"""Scala in the code graph (issue #18): a small sbt layout written the way the Scala 3 book
writes classes, companion objects, traits and imports, with its definitions, docs,
imports, calls (and their confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

SC = {
    "src/main/scala/com/example/shop/Cart.scala": (
        "package com.example.shop\n"
        "\n"
        "import com.example.util.Formatter\n"
        "import com.example.model.{User, Item => Product}\n"
        "import scala.math.max\n"
        "\n"
        "/** A cart of products. */\n"
        "@deprecated\n"
        "class Cart(val owner: User, private var size: Int = 0) extends Base with Greets {\n"
        "  private val log: Log = new Log()\n"
        "  val items = List[Product]()\n"
        "\n"
        "  /** Adds one product. */\n"
        "  def add(item: Product): Int = {\n"
        "    val f = new Formatter()\n"
        "    f.format(item)\n"
        "    owner.greet()\n"
        '    log.write("added")\n'
        "    this.total()\n"
        "    check()\n"
        "    max(1, size)\n"
        "  }\n"
        "\n"
        "  def total(): Int = items.size\n"
        "\n"
        "  private def check(): Unit = greet()\n"
        "}\n"
        "\n"
        "object Cart {\n"
        '  def create(): Cart = new Cart(User("ann"))\n'
        "}\n"
    ),
    "src/main/scala/com/example/shop/Base.scala": (
        "package com.example.shop\n"
        "\n"
        "abstract class Base\n"
        "\n"
        "trait Greets {\n"
        '  def greet(): String = "hi"\n'
        "}\n"
        "\n"
        "class Log {\n"
        "  def write(line: String): Unit = println(line)\n"
        "}\n"
        "\n"
        "trait Shape extends Named {\n"
        "  def area(): Double\n"
        "}\n"
        "\n"
        "trait Named\n"
        "\n"
        "type Carts = List[Cart]\n"
    ),
    "src/main/scala/com/example/model/User.scala": (
        "package com.example.model\n"
        "\n"
        "case class User(name: String) {\n"
        '  def greet(): String = s"hi $name"\n'
        "}\n"
        "\n"
        "case class Item(price: Int)\n"
    ),
    "src/main/scala/com/example/util/Formatter.scala": (
        "package com.example.util\n"
        "\n"
        "class Formatter {\n"
        "  def format(value: Any): String = value.toString\n"
        "}\n"
    ),
}
ROOT = "src/main/scala/com/example/"
CART, BASE = ROOT + "shop/Cart.scala", ROOT + "shop/Base.scala"
USER, FMT = ROOT + "model/User.scala", ROOT + "util/Formatter.scala"


def test_scala_classes_objects_traits_members_and_scaladoc(tmp_path: Path) -> None:
    graph = build(tmp_path, SC)
    head = "class Cart(val owner: User, private var size: Int = 0) extends Base with Greets"
    assert symbols(graph, CART) == [
        ("com.example.shop", "module", 1, 1, 1, "package com.example.shop", ""),
        ("Cart", "class", 8, 27, 1, head, "A cart of products."),
        ("Cart.owner", "variable", 9, 9, 1, "val owner: User", ""),
        ("Cart.size", "variable", 9, 9, 0, "private var size: Int = 0", ""),
        ("Cart.log", "variable", 10, 10, 0, "private val log: Log", ""),
        ("Cart.items", "variable", 11, 11, 1, "val items", ""),
        ("Cart.add", "method", 14, 22, 1, "def add(item: Product): Int", "Adds one product."),
        ("Cart.total", "method", 24, 24, 1, "def total(): Int", ""),
        ("Cart.check", "method", 26, 26, 0, "private def check(): Unit", ""),
        ("Cart", "class", 29, 31, 1, "object Cart", ""),  # the companion
        ("Cart.create", "method", 30, 30, 1, "def create(): Cart", ""),
    ]
    assert symbols(graph, BASE)[1:4] == [
        ("Base", "class", 3, 3, 1, "abstract class Base", ""),
        ("Greets", "trait", 5, 7, 1, "trait Greets", ""),
        ("Greets.greet", "method", 6, 6, 1, "def greet(): String", ""),
    ]
    assert symbols(graph, BASE)[-1] == ("Carts", "type", 19, 19, 1, "type Carts = List[Cart]", "")
    assert symbols(graph, USER)[1:3] == [  # a case class's parameters are its fields
        ("User", "class", 3, 5, 1, "case class User(name: String)", ""),
        ("User.name", "variable", 3, 3, 1, "name: String", ""),
    ]
    facts = extract("scala", CART, SC[CART])
    assert [s.decorators for s in facts.symbols if s.qualname == "Cart"] == [("deprecated",), ()]


def test_scala_imports_resolve_to_the_files_of_a_package(tmp_path: Path) -> None:
    f = extract("scala", CART, SC[CART])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("com.example.util", "Formatter", "Formatter", 3),
        ("com.example.model", "User", "User", 4),
        ("com.example.model", "Item", "Product", 4),
        ("scala.math", "max", "max", 5),
    ]
    graph = build(tmp_path, SC)
    assert deps(graph) == {(CART, USER, "com.example.model"), (CART, FMT, "com.example.util")}


def test_scala_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, SC)
    assert calls(graph, CART) == [
        ("Cart", "Log", 10, BASE, "Log", 1.0, "exact"),  # same package, no import
        ("Cart", "List", 11, "", "", 0.0, "unresolved"),
        ("Cart.add", "Formatter", 15, FMT, "Formatter", 1.0, "exact"),
        ("Cart.add", "f.format", 16, FMT, "Formatter.format", 0.8, "inferred"),
        ("Cart.add", "owner.greet", 17, USER, "User.greet", 0.8, "inferred"),
        ("Cart.add", "log.write", 18, BASE, "Log.write", 0.8, "inferred"),
        ("Cart.add", "this.total", 19, CART, "Cart.total", 1.0, "exact"),
        ("Cart.add", "check", 20, CART, "Cart.check", 1.0, "exact"),
        ("Cart.add", "max", 21, "", "", 0.0, "external"),
        ("Cart.check", "greet", 26, BASE, "Greets.greet", 1.0, "exact"),  # mixed in
        ("Cart.create", "Cart", 30, CART, "Cart", 1.0, "exact"),
        ("Cart.create", "User", 30, USER, "User", 1.0, "exact"),  # case class apply
    ]


def test_scala_extends_and_with_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, SC)
    assert supertypes(graph) == {
        (BASE, "Shape", "Named", "extends", 13, BASE, "Named", "exact"),
        (CART, "Cart", "Base", "extends", 9, BASE, "Base", "exact"),
        (CART, "Cart", "Greets", "uses", 9, BASE, "Greets", "exact"),
    }


def test_scala_syntax_errors_are_counted_not_fatal() -> None:
    f = extract(
        "scala", "Broken.scala", b"object A {\n  def ok() = go()\n}\ndef broken( = {\n\xff\n"
    )
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}
