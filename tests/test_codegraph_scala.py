"""Scala in the code graph (issue #18): a small sbt layout written the way the Scala 3 book
writes classes, companion objects, traits and imports, with its definitions, docs,
imports, calls (and their confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from clawql_git.codegraph.graph import CodeGraph
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


# Typed calls, written the way the Tour of Scala writes classes (``Point``), companion objects
# (``Circle`` with ``import Circle._``), traits mixed in (``Greeter``, ``Loud``) and anonymous
# classes (``new Greeter { }``), with a block import of a value's members.
TYPED = {
    "src/main/scala/shapes/Shapes.scala": (
        "package shapes\n"
        "\n"
        "import scala.math.{Pi, pow}\n"
        "import shapes.util._\n"
        "import shapes.Registry._\n"
        "\n"
        "trait Greeter {\n"
        '  def greet(name: String): String = "Hello, " + name + "!"\n'
        "}\n"
        "\n"
        "trait Loud extends Greeter {\n"
        "  override def greet(name: String): String = super.greet(name).toUpperCase\n"
        "  def shout(): Unit = ()\n"
        "}\n"
        "\n"
        "class Point(var x: Int, var y: Int) {\n"
        "  def move(dx: Int, dy: Int): Point = new Point(x + dx, y + dy)\n"
        "}\n"
        "\n"
        "case class Circle(center: Point, radius: Double) extends Greeter with Loud {\n"
        "  import Circle._\n"
        "\n"
        "  def area: Double = calculateArea(radius)\n"
        "\n"
        "  def describe(log: Logger): Unit = {\n"
        '    log.info(greet("circle"))\n'
        "    shout()\n"
        "    this.center.move(1, 1).move(2, 2)\n"
        "    val other = Circle(center, 2.0)\n"
        "    other.describe(log)\n"
        "    val p = new Point(1, 2)\n"
        "    p.move(0, 0)\n"
        '    List("c").map(center => center.trim())\n'
        "  }\n"
        "}\n"
        "\n"
        "object Circle {\n"
        "  private def calculateArea(radius: Double): Double = Pi * pow(radius, 2.0)\n"
        "  def unit(): Circle = new Circle(new Point(0, 0), 1.0)\n"
        "}\n"
        "\n"
        "class Box[T <: Point](item: T) {\n"
        "  def shift(): Point = item.move(1, 1)\n"
        "}\n"
        "\n"
        "object Main {\n"
        "  def run(): Unit = {\n"
        "    Circle.unit().describe(Logger.default())\n"
        "    val builder = Registry.builder\n"
        "    val named = {\n"
        "      import builder._\n"
        '      add("a").add("b")\n'
        "    }\n"
        '    register("x")\n'
        "    val g = new Greeter {\n"
        '      def hi(): String = greet("anon")\n'
        "    }\n"
        '    g.greet("g")\n'
        '    Tag("t").add("u")\n'
        "  }\n"
        "}\n"
    ),
    "src/main/scala/shapes/Registry.scala": (
        "package shapes\n"
        "\n"
        "class Builder {\n"
        "  def add(name: String): Builder = this\n"
        "}\n"
        "\n"
        "object Registry {\n"
        "  def builder: Builder = new Builder\n"
        "  def register(name: String): Unit = ()\n"
        "}\n"
        "\n"
        "object Tag {\n"
        "  def apply(name: String): Builder = new Builder().add(name)\n"
        "}\n"
    ),
    "src/main/scala/shapes/util/Logger.scala": (
        "package shapes.util\n"
        "\n"
        "class Logger {\n"
        "  def info(msg: String): Unit = println(msg)\n"
        "}\n"
        "\n"
        "object Logger {\n"
        "  def default(): Logger = new Logger\n"
        "}\n"
    ),
}
SHAPES = "src/main/scala/shapes/Shapes.scala"
REGISTRY, LOGGER = "src/main/scala/shapes/Registry.scala", "src/main/scala/shapes/util/Logger.scala"


def test_scala_calls_typed_by_declarations(tmp_path: Path) -> None:
    graph = build(tmp_path, TYPED)
    assert calls(graph, SHAPES) == [
        ("Loud.greet", "super.greet", 12, SHAPES, "Greeter.greet", 1.0, "exact"),
        ("Point.move", "Point", 17, SHAPES, "Point", 1.0, "exact"),
        # ``import Circle._`` in the class: the companion's private member
        ("Circle.area", "calculateArea", 23, SHAPES, "Circle.calculateArea", 1.0, "exact"),
        # ``extends Greeter with Loud``: the last mixin's override comes first
        ("Circle.describe", "greet", 26, SHAPES, "Loud.greet", 1.0, "exact"),
        ("Circle.describe", "log.info", 26, LOGGER, "Logger.info", 0.8, "inferred"),
        ("Circle.describe", "shout", 27, SHAPES, "Loud.shout", 1.0, "exact"),
        ("Circle.describe", "this.center.move", 28, SHAPES, "Point.move", 0.8, "inferred"),
        ("Circle.describe", "this.center.move().move", 28, SHAPES, "Point.move", 0.8, "inferred"),
        ("Circle.describe", "Circle", 29, SHAPES, "Circle", 1.0, "exact"),  # case class apply
        ("Circle.describe", "other.describe", 30, SHAPES, "Circle.describe", 0.8, "inferred"),
        ("Circle.describe", "Point", 31, SHAPES, "Point", 1.0, "exact"),
        ("Circle.describe", "p.move", 32, SHAPES, "Point.move", 0.8, "inferred"),
        ("Circle.describe", "List", 33, "", "", 0.0, "unresolved"),
        ("Circle.describe", "List().map", 33, "", "", 0.0, "unresolved"),
        # the lambda's ``center`` (a String) hides the field ``center: Point``
        ("Circle.describe", "center.trim", 33, "", "", 0.0, "unresolved"),
        ("Circle.calculateArea", "pow", 38, "", "", 0.0, "external"),
        ("Circle.unit", "Circle", 39, SHAPES, "Circle", 1.0, "exact"),
        ("Circle.unit", "Point", 39, SHAPES, "Point", 1.0, "exact"),
        ("Box.shift", "item.move", 43, SHAPES, "Point.move", 0.8, "inferred"),  # T <: Point
        ("Main.run", "Circle.unit", 48, SHAPES, "Circle.unit", 1.0, "exact"),
        ("Main.run", "Circle.unit().describe", 48, SHAPES, "Circle.describe", 0.8, "inferred"),
        ("Main.run", "Logger.default", 48, LOGGER, "Logger.default", 1.0, "exact"),
        # ``import builder._``: the members of the value ``Registry.builder`` (a Builder)
        ("Main.run", "add", 52, REGISTRY, "Builder.add", 0.8, "inferred"),
        ("Main.run", "add().add", 52, REGISTRY, "Builder.add", 0.8, "inferred"),
        ("Main.run", "register", 54, REGISTRY, "Registry.register", 1.0, "exact"),  # Registry._
        ("Main.run", "Greeter", 55, SHAPES, "Greeter", 1.0, "exact"),
        # in the anonymous ``new Greeter { }`` a bare name is a member of Greeter
        ("Main.run.hi", "greet", 56, SHAPES, "Greeter.greet", 1.0, "exact"),
        ("Main.run", "g.greet", 58, SHAPES, "Greeter.greet", 0.8, "inferred"),
        ("Main.run", "Tag", 59, REGISTRY, "Tag.apply", 1.0, "exact"),  # an object's apply
        ("Main.run", "Tag().add", 59, REGISTRY, "Builder.add", 0.8, "inferred"),
    ]
    assert calls(graph, REGISTRY) == [
        ("Registry.builder", "Builder", 8, REGISTRY, "Builder", 1.0, "exact"),
        ("Tag.apply", "Builder", 13, REGISTRY, "Builder", 1.0, "exact"),
        ("Tag.apply", "new Builder().add", 13, REGISTRY, "Builder.add", 0.8, "inferred"),
    ]


def test_scala_a_type_parameter_hides_a_class_of_its_name(tmp_path: Path) -> None:
    graph = build(
        tmp_path,
        {
            "Crate.scala": (
                "class Point { def move(): Point = this }\n"
                "class Crate[Point](item: Point) {\n"
                "  def show(): String = item.move()\n"
                "}\n"
            )
        },
    )
    assert calls(graph, "Crate.scala")[-1] == (
        "Crate.show",
        "item.move",
        3,
        "",
        "",
        0.0,
        "unresolved",
    )


def test_scala_calls_are_the_same_after_a_reindex_from_stored_facts(tmp_path: Path) -> None:
    graph = build(tmp_path, TYPED)
    first = calls(graph, SHAPES)
    shapes = tmp_path / SHAPES
    shapes.write_text(shapes.read_text() + "// touched\n")
    again = CodeGraph.open(tmp_path)
    again.index(history=False)  # Registry.scala's facts come back from the store
    assert calls(again, SHAPES) == first


def test_scala_a_companion_object_and_its_class_look_members_up_apart(tmp_path: Path) -> None:
    graph = build(
        tmp_path,
        {
            "Widget.scala": (
                "trait Factory { def make(): Widget = new Widget }\n"
                'class Widget { def make(): String = "part" }\n'
                "object Widget extends Factory\n"
                "object Use {\n"
                "  def run(w: Widget): Unit = {\n"
                "    Widget.make()\n"
                "    w.make()\n"
                "    Widget.make().make()\n"
                "  }\n"
                "}\n"
            )
        },
    )
    assert [c for c in calls(graph, "Widget.scala") if c[0] == "Use.run"] == [
        ("Use.run", "Widget.make", 6, "Widget.scala", "Factory.make", 1.0, "exact"),
        ("Use.run", "w.make", 7, "Widget.scala", "Widget.make", 0.8, "inferred"),
        ("Use.run", "Widget.make", 8, "Widget.scala", "Factory.make", 1.0, "exact"),
        ("Use.run", "Widget.make().make", 8, "Widget.scala", "Widget.make", 0.8, "inferred"),
    ]
