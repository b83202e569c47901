"""Kotlin in the code graph (issue #18): a small shop written the way the Kotlin
documentation writes packages, classes, objects and imports, with its definitions, docs,
imports, calls (and their confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

KT = {
    "src/main/kotlin/com/example/shop/Cart.kt": (
        "package com.example.shop\n"
        "\n"
        "import com.example.util.Formatter\n"
        "import com.example.util.shout as loud\n"
        "import com.example.model.*\n"
        "import kotlin.math.max\n"
        "\n"
        "/**\n"
        " * A cart of [Item]s.\n"
        " */\n"
        "@Serializable\n"
        "open class Cart(private val owner: User, var size: Int = 0) : Base(), Comparable<Cart> {\n"
        "    private val log: Log = Log()\n"
        "    val items = mutableListOf<Item>()\n"
        "\n"
        "    /** Adds one item. */\n"
        "    fun add(item: Item): Int {\n"
        "        val f = Formatter()\n"
        "        f.format(item)\n"
        '        log.write(loud("added"))\n'
        "        owner.greet()\n"
        "        this.total()\n"
        "        check()\n"
        "        return max(1, size)\n"
        "    }\n"
        "\n"
        "    fun total(): Int = items.size\n"
        "\n"
        "    private fun check() {}\n"
        "\n"
        "    override fun compareTo(other: Cart): Int = 0\n"
        "\n"
        "    companion object {\n"
        "        const val LIMIT = 10\n"
        "        fun create(): Cart = Cart(User())\n"
        "    }\n"
        "}\n"
    ),
    "src/main/kotlin/com/example/shop/Base.kt": (
        "package com.example.shop\n"
        "\n"
        "abstract class Base\n"
        "\n"
        "class Log {\n"
        "    fun write(line: String) = println(line)\n"
        "}\n"
        "\n"
        "interface Shape : Named {\n"
        "    fun area(): Double\n"
        "}\n"
        "\n"
        "interface Named\n"
        "\n"
        "enum class Color { RED, GREEN }\n"
        "\n"
        "object Registry {\n"
        "    fun open(): Cart = Cart.create()\n"
        "}\n"
        "\n"
        "typealias Carts = List<Cart>\n"
    ),
    "src/main/kotlin/com/example/model/User.kt": (
        "package com.example.model\n"
        "\n"
        'data class User(val name: String = "") {\n'
        '    fun greet() = "hi $name"\n'
        "}\n"
        "\n"
        "data class Item(val price: Int)\n"
    ),
    "src/main/kotlin/com/example/util/Formatter.kt": (
        "package com.example.util\n"
        "\n"
        "class Formatter {\n"
        "    fun format(value: Any): String = value.toString()\n"
        "}\n"
        "\n"
        "fun String.shout() = uppercase()\n"
    ),
}
ROOT = "src/main/kotlin/com/example/"
CART, BASE = ROOT + "shop/Cart.kt", ROOT + "shop/Base.kt"
USER, FMT = ROOT + "model/User.kt", ROOT + "util/Formatter.kt"


def test_kotlin_packages_classes_objects_functions_properties_and_kdoc(tmp_path: Path) -> None:
    graph = build(tmp_path, KT)
    head = "open class Cart(private val owner: User, var size: Int = 0) : Base(), Comparable<Cart>"
    assert symbols(graph, CART) == [
        ("com.example.shop", "module", 1, 1, 1, "package com.example.shop", ""),
        ("Cart", "class", 11, 37, 1, head, "A cart of [Item]s."),
        ("Cart.owner", "variable", 12, 12, 0, "private val owner: User", ""),
        ("Cart.size", "variable", 12, 12, 1, "var size: Int = 0", ""),
        ("Cart.log", "variable", 13, 13, 0, "private val log: Log", ""),
        ("Cart.items", "variable", 14, 14, 1, "val items", ""),
        ("Cart.add", "method", 17, 25, 1, "fun add(item: Item): Int", "Adds one item."),
        ("Cart.total", "method", 27, 27, 1, "fun total(): Int", ""),
        ("Cart.check", "method", 29, 29, 0, "private fun check()", ""),
        ("Cart.compareTo", "method", 31, 31, 1, "override fun compareTo(other: Cart): Int", ""),
        ("Cart.LIMIT", "constant", 34, 34, 1, "const val LIMIT", ""),  # companion members
        ("Cart.create", "method", 35, 35, 1, "fun create(): Cart", ""),
    ]
    assert symbols(graph, BASE) == [
        ("com.example.shop", "module", 1, 1, 1, "package com.example.shop", ""),
        ("Base", "class", 3, 3, 1, "abstract class Base", ""),
        ("Log", "class", 5, 7, 1, "class Log", ""),
        ("Log.write", "method", 6, 6, 1, "fun write(line: String)", ""),
        ("Shape", "interface", 9, 11, 1, "interface Shape : Named", ""),
        ("Shape.area", "method", 10, 10, 1, "fun area(): Double", ""),
        ("Named", "interface", 13, 13, 1, "interface Named", ""),
        ("Color", "enum", 15, 15, 1, "enum class Color", ""),
        ("Registry", "class", 17, 19, 1, "object Registry", ""),
        ("Registry.open", "method", 18, 18, 1, "fun open(): Cart", ""),
        ("Carts", "type", 21, 21, 1, "typealias Carts = List<Cart>", ""),
    ]
    assert symbols(graph, FMT)[-1] == ("shout", "function", 7, 7, 1, "fun String.shout()", "")
    facts = extract("kotlin", CART, KT[CART])
    assert [s.decorators for s in facts.symbols if s.name == "Cart"] == [("Serializable",)]


def test_kotlin_imports_resolve_to_the_files_of_a_package(tmp_path: Path) -> None:
    f = extract("kotlin", CART, KT[CART])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("com.example.util", "Formatter", "Formatter", 3),
        ("com.example.util", "shout", "loud", 4),
        ("com.example.model", "*", "", 5),
        ("kotlin.math", "max", "max", 6),
    ]
    graph = build(tmp_path, KT)
    assert deps(graph) == {  # kotlin.math is the standard library: no file
        (CART, USER, "com.example.model"),
        (CART, FMT, "com.example.util"),
    }


def test_kotlin_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, KT)
    assert calls(graph, CART) == [
        ("Cart", "Log", 13, BASE, "Log", 1.0, "exact"),  # same package, no import
        ("Cart", "mutableListOf", 14, "", "", 0.0, "unresolved"),
        ("Cart.add", "Formatter", 18, FMT, "Formatter", 1.0, "exact"),
        ("Cart.add", "f.format", 19, FMT, "Formatter.format", 0.8, "inferred"),
        ("Cart.add", "log.write", 20, BASE, "Log.write", 0.8, "inferred"),  # property type
        ("Cart.add", "loud", 20, FMT, "shout", 1.0, "exact"),  # import alias
        ("Cart.add", "owner.greet", 21, USER, "User.greet", 0.8, "inferred"),  # constructor val
        ("Cart.add", "this.total", 22, CART, "Cart.total", 1.0, "exact"),
        ("Cart.add", "check", 23, CART, "Cart.check", 1.0, "exact"),  # implicit this
        ("Cart.add", "max", 24, "", "", 0.0, "external"),
        ("Cart.create", "Cart", 35, CART, "Cart", 1.0, "exact"),
        ("Cart.create", "User", 35, USER, "User", 1.0, "exact"),  # star import
    ]
    assert calls(graph, BASE) == [
        ("Log.write", "println", 6, "", "", 0.0, "unresolved"),
        ("Registry.open", "Cart.create", 18, CART, "Cart.create", 1.0, "exact"),
    ]


def test_kotlin_superclasses_and_interfaces_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, KT)
    assert supertypes(graph) == {
        (BASE, "Shape", "Named", "extends", 9, BASE, "Named", "exact"),
        (CART, "Cart", "Base", "extends", 12, BASE, "Base", "exact"),  # a constructor call
        (CART, "Cart", "Comparable", "implements", 12, "", "", "unresolved"),
    }
    up = graph.hierarchy("Cart", direction="up")
    assert [e["base"] for e in up.items] == ["Base", "Comparable"]


def test_kotlin_syntax_errors_are_counted_not_fatal() -> None:
    f = extract("kotlin", "Broken.kt", b"fun ok() { go() }\nfun broken( {\n\xff\n")
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}


TYPED = {
    "src/main/kotlin/org/example/Shapes.kt": (
        "package org.example\n"
        "\n"
        "open class Shape {\n"
        "    open fun draw(): Shape = this\n"
        "    fun scale(by: Int): Shape = this\n"
        "}\n"
        "\n"
        "class Rectangle(val height: Double) : Shape() {\n"
        "    private val painter: Painter = Painter()\n"
        "\n"
        "    fun render(canvas: Canvas) {\n"
        "        val p = Painter()\n"
        "        p.paint()\n"
        "        canvas.clear()\n"
        "        painter.paint().done()\n"
        "        scale(2).draw()\n"
        "        if (!isEmpty()) draw()\n"
        "        Factory.create().draw()\n"
        "        Rectangle(1.0).render(canvas)\n"
        "    }\n"
        "\n"
        "    fun isEmpty(): Boolean = false\n"
        "\n"
        "    fun each(action: (Int) -> Unit) {\n"
        "        action(1)\n"
        "    }\n"
        "\n"
        "    companion object Factory {\n"
        "        fun create(): Rectangle = Rectangle(0.0)\n"
        "    }\n"
        "}\n"
        "\n"
        "class Painter {\n"
        "    fun paint(): Stroke = Stroke()\n"
        "}\n"
        "\n"
        "class Stroke {\n"
        "    fun done() {}\n"
        "}\n"
        "\n"
        "class Canvas {\n"
        "    fun clear() {}\n"
        "}\n"
    ),
}


def test_kotlin_receivers_typed_by_declarations(tmp_path: Path) -> None:
    graph = build(tmp_path, TYPED)
    path = "src/main/kotlin/org/example/Shapes.kt"
    got = [c for c in calls(graph, path) if c[3]]
    assert got == [
        ("Rectangle", "Painter", 9, path, "Painter", 1.0, "exact"),
        ("Rectangle.render", "Painter", 12, path, "Painter", 1.0, "exact"),
        ("Rectangle.render", "p.paint", 13, path, "Painter.paint", 0.8, "inferred"),
        ("Rectangle.render", "canvas.clear", 14, path, "Canvas.clear", 0.8, "inferred"),
        ("Rectangle.render", "painter.paint", 15, path, "Painter.paint", 0.8, "inferred"),
        ("Rectangle.render", "painter.paint().done", 15, path, "Stroke.done", 0.8, "inferred"),
        ("Rectangle.render", "scale", 16, path, "Shape.scale", 1.0, "exact"),  # inherited
        ("Rectangle.render", "scale().draw", 16, path, "Shape.draw", 0.8, "inferred"),
        ("Rectangle.render", "draw", 17, path, "Shape.draw", 1.0, "exact"),
        ("Rectangle.render", "isEmpty", 17, path, "Rectangle.isEmpty", 1.0, "exact"),  # !f()
        # ``companion object Factory``: its members are the class's
        ("Rectangle.render", "Factory.create", 18, path, "Rectangle.create", 0.8, "inferred"),
        ("Rectangle.render", "Factory.create().draw", 18, path, "Shape.draw", 0.8, "inferred"),
        ("Rectangle.render", "Rectangle", 19, path, "Rectangle", 1.0, "exact"),
        ("Rectangle.render", "Rectangle().render", 19, path, "Rectangle.render", 0.8, "inferred"),
        ("Rectangle.create", "Rectangle", 29, path, "Rectangle", 1.0, "exact"),
        ("Painter.paint", "Stroke", 34, path, "Stroke", 1.0, "exact"),
    ]
    unresolved = {c[1] for c in calls(graph, path) if not c[3]}
    assert "action" in unresolved  # a parameter of function type, not a member


SCOPED = {
    # Kotlin docs, "Scope functions": ``let``/``also`` pass the object as the lambda argument
    # (``it``, or a name given), ``apply``/``run``/``with`` as the lambda receiver (``this``)
    "src/main/kotlin/org/example/Scoped.kt": (
        "package org.example\n"
        "\n"
        "class Tree {\n"
        "    fun log(m: String) {}\n"
        "    fun plant() {}\n"
        "}\n"
        "\n"
        "class Forest {\n"
        "    private var trees = emptyArray<Tree>()\n"
        "    private val one: Tree = Tree()\n"
        "\n"
        "    fun all(m: String) {\n"
        "        trees.forEach { it.log(m) }\n"
        "        trees.forEach { t -> t.plant() }\n"
        "        one.let { it.log(m) }\n"
        "        one.also { tree -> tree.plant() }\n"
        "        one.apply { plant() }\n"
        "        one.run { this.log(m) }\n"
        "        with(one) { log(m) }\n"
        "        one.apply { grow() }\n"
        "        one.apply { this@Forest.grow() }\n"
        "        it.log(m)\n"
        "        trees.map { grow -> grow.plant() }\n"
        "        grow()\n"
        "    }\n"
        "\n"
        "    fun grow() {}\n"
        "}\n"
    ),
}


def test_kotlin_scope_function_lambdas_type_it_and_this(tmp_path: Path) -> None:
    """``trees = emptyArray<Tree>()`` holds Trees, so ``it`` of ``trees.forEach`` is a
    ``Tree``; ``it`` (or the name given) of ``let``/``also`` is the receiver, ``this`` of
    ``apply``/``run``/``with`` too (a bare ``grow()`` the receiver's type lacks is the
    enclosing class's); ``this@Forest`` is the class's instance; an ``it`` outside any lambda
    is nothing, and a lambda's parameter is seen inside its lambda only."""
    graph = build(tmp_path, SCOPED)
    path = "src/main/kotlin/org/example/Scoped.kt"
    got = [c for c in calls(graph, path) if c[3] and c[0] == "Forest.all"]
    assert got == [
        ("Forest.all", "it.log", 13, path, "Tree.log", 0.8, "inferred"),
        ("Forest.all", "t.plant", 14, path, "Tree.plant", 0.8, "inferred"),
        ("Forest.all", "it.log", 15, path, "Tree.log", 0.8, "inferred"),
        ("Forest.all", "tree.plant", 16, path, "Tree.plant", 0.8, "inferred"),
        ("Forest.all", "plant", 17, path, "Tree.plant", 0.8, "inferred"),
        ("Forest.all", "this.log", 18, path, "Tree.log", 0.8, "inferred"),
        ("Forest.all", "log", 19, path, "Tree.log", 0.8, "inferred"),
        ("Forest.all", "grow", 20, path, "Forest.grow", 1.0, "exact"),
        ("Forest.all", "this@Forest.grow", 21, path, "Forest.grow", 1.0, "exact"),
        ("Forest.all", "grow.plant", 23, path, "Tree.plant", 0.8, "inferred"),
        # the lambda's parameter ``grow`` is not seen outside it: the method
        ("Forest.all", "grow", 24, path, "Forest.grow", 1.0, "exact"),
    ]
    unresolved = {(c[1], c[2]) for c in calls(graph, path) if not c[3]}
    assert ("it.log", 22) in unresolved


EXTENDED = {
    # Kotlin docs, "Extensions": ``fun MutableList<Int>.swap(...)`` is called as
    # ``list.swap(...)``; a member always wins over an extension of the same name
    "src/main/kotlin/org/shop/Cart.kt": (
        "package org.shop\n"
        "\n"
        "open class Basket {\n"
        "    fun empty() {}\n"
        "}\n"
        "\n"
        "class Cart : Basket() {\n"
        "    fun total(): Int = 0\n"
        "}\n"
        "\n"
        "fun Cart.total(): Int = 1\n"
        "\n"
        'fun Basket.describe(): String = "basket"\n'
    ),
    "src/main/kotlin/org/shop/ui/Screen.kt": (
        "package org.shop.ui\n"
        "\n"
        "import org.shop.Cart\n"
        "import org.shop.describe\n"
        "\n"
        "class Screen(private val cart: Cart) {\n"
        "    fun show() {\n"
        "        cart.describe()\n"
        "        cart.total()\n"
        "        cart.missing()\n"
        "        cart.shout()\n"
        "    }\n"
        "\n"
        "    private fun Cart.shout() {}\n"
        "}\n"
    ),
}


def test_kotlin_extension_functions_of_the_repository(tmp_path: Path) -> None:
    """``cart.describe()``: the imported ``fun Basket.describe()``, declared for a supertype
    of ``Cart``; ``cart.total()``: the member (it shadows ``fun Cart.total()``); a member
    extension of the enclosing class; nothing named ``missing`` stays unresolved."""
    graph = build(tmp_path, EXTENDED)
    cart, screen = "src/main/kotlin/org/shop/Cart.kt", "src/main/kotlin/org/shop/ui/Screen.kt"
    assert [c for c in calls(graph, screen) if c[0] == "Screen.show"] == [
        ("Screen.show", "cart.describe", 8, cart, "describe", 0.8, "inferred"),
        ("Screen.show", "cart.total", 9, cart, "Cart.total", 0.8, "inferred"),
        ("Screen.show", "cart.missing", 10, "", "", 0.0, "unresolved"),
        ("Screen.show", "cart.shout", 11, screen, "Screen.shout", 0.8, "inferred"),
    ]


OBJECT_EXPRESSIONS = {
    "src/log/Tree.kt": (
        "package log\n"
        "open class Tree {\n"
        "    open fun tag(e: Int): String? = null\n"
        "    open fun log(p: Int) { }\n"
        "}\n"
        "open class DebugTree : Tree() {\n"
        '    override fun tag(e: Int): String? = "x"\n'
        "}\n"
        "fun plant(t: Tree) { }\n"
    ),
    "src/log/Use.kt": (
        "package log\n"
        "class Use {\n"
        "    fun go() {\n"
        "        plant(object : DebugTree() {\n"
        "            override fun tag(e: Int): String? {\n"
        "                return super.tag(e)\n"
        "            }\n"
        "            override fun log(p: Int) { super.log(p) }\n"
        "        })\n"
        "        object : Runnable {\n"
        "            override fun run() { }\n"
        "        }.run()\n"
        "        run { }\n"
        "    }\n"
        "}\n"
        "class Sub : DebugTree() {\n"
        "    override fun tag(e: Int): String? = super.tag(e)\n"
        "    fun both() = super<Tree>.log(1)\n"
        "}\n"
    ),
}


def test_kotlin_object_expressions_and_super_calls(tmp_path: Path) -> None:
    """An object expression's members are its own (``go.object.run``), so a bare ``run { }``
    of ``go`` (the standard library's) does not name one; ``object : Runnable { fun run()
    }.run()`` calls the run it declares; ``super.m()`` in an object expression is ``m`` of
    the class it derives from (``super<DebugTree>``), in a class of its superclass, and
    ``super<Tree>.log()`` names the supertype (Kotlin docs, "Object expressions",
    "Calling the superclass implementation")."""
    graph = build(tmp_path, OBJECT_EXPRESSIONS)
    tree, use = "src/log/Tree.kt", "src/log/Use.kt"
    assert calls(graph, use) == [
        ("Use.go", "plant", 4, tree, "plant", 1.0, "exact"),
        ("Use.go.object.tag", "super<DebugTree>.tag", 6, tree, "DebugTree.tag", 1.0, "exact"),
        ("Use.go.object.log", "super<DebugTree>.log", 8, tree, "Tree.log", 1.0, "exact"),
        ("Use.go", "object.run", 10, use, "Use.go.object.run", 1.0, "exact"),
        ("Use.go", "run", 13, "", "", 0.0, "unresolved"),
        ("Sub.tag", "super.tag", 17, tree, "DebugTree.tag", 1.0, "exact"),
        ("Sub.both", "super<Tree>.log", 18, tree, "Tree.log", 1.0, "exact"),
    ]
