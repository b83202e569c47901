"""Swift in the code graph (issue #18): a small Swift package (``Sources/Shop`` importing
``Sources/ShopKit``) written the way The Swift Programming Language writes classes,
structs, protocols and extensions, with its definitions, docs, imports, calls (and their
confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

SW = {
    "Package.swift": (
        "// swift-tools-version:5.9\n"
        "import PackageDescription\n"
        "\n"
        'let package = Package(name: "Shop")\n'
    ),
    "Sources/Shop/Cart.swift": (
        "import Foundation\n"
        "import ShopKit\n"
        "\n"
        "/// A cart of items.\n"
        "///\n"
        "/// Holds what the user picked.\n"
        "@MainActor\n"
        "public final class Cart: Base, Codable {\n"
        "    private let owner: User\n"
        "    var items: [Item] = []\n"
        "    let log = Log()\n"
        "\n"
        "    init(owner: User) {\n"
        "        self.owner = owner\n"
        "    }\n"
        "\n"
        "    /// Adds one item.\n"
        "    public func add(_ item: Item, count: Int = 1) -> Int {\n"
        "        let f = Formatter()\n"
        "        f.format(item)\n"
        "        owner.greet()\n"
        '        log.write("added")\n'
        "        self.total()\n"
        "        check()\n"
        "        return max(1, count)\n"
        "    }\n"
        "\n"
        "    func total() -> Int {\n"
        "        items.count\n"
        "    }\n"
        "\n"
        "    private func check() {}\n"
        "}\n"
    ),
    "Sources/Shop/Base.swift": (
        "class Base {}\n"
        "\n"
        "struct Log {\n"
        "    func write(_ line: String) {\n"
        "        print(line)\n"
        "    }\n"
        "}\n"
        "\n"
        "protocol Shape: Named {\n"
        "    func area() -> Double\n"
        "}\n"
        "\n"
        "protocol Named {}\n"
        "\n"
        "enum Color: String {\n"
        "    case red\n"
        "}\n"
        "\n"
        "extension Cart: Shape {\n"
        "    func area() -> Double {\n"
        "        Double(total())\n"
        "    }\n"
        "}\n"
        "\n"
        "func open() -> Cart {\n"
        "    let cart = Cart(owner: User())\n"
        "    cart.area()\n"
        "    return cart\n"
        "}\n"
        "\n"
        "typealias Carts = [Cart]\n"
    ),
    "Sources/ShopKit/User.swift": (
        "public struct User {\n"
        "    public init() {}\n"
        "    public func greet() {}\n"
        "}\n"
        "\n"
        "public struct Item {}\n"
        "\n"
        "public final class Formatter {\n"
        "    public func format(_ item: Item) -> String {\n"
        '        ""\n'
        "    }\n"
        "}\n"
    ),
}
CART, BASE, KIT = "Sources/Shop/Cart.swift", "Sources/Shop/Base.swift", "Sources/ShopKit/User.swift"


def test_swift_types_members_extensions_and_doc_comments(tmp_path: Path) -> None:
    graph = build(tmp_path, SW)
    add = "public func add(_ item: Item, count: Int = 1) -> Int"
    assert symbols(graph, CART) == [
        (
            "Cart",
            "class",
            7,
            33,
            1,
            "public final class Cart: Base, Codable",
            "A cart of items.\n\nHolds what the user picked.",
        ),
        ("Cart.owner", "variable", 9, 9, 0, "private let owner: User", ""),
        ("Cart.items", "variable", 10, 10, 1, "var items: [Item]", ""),
        ("Cart.log", "variable", 11, 11, 1, "let log", ""),
        ("Cart.init", "method", 13, 15, 1, "init(owner: User)", ""),
        ("Cart.add", "method", 18, 26, 1, add, "Adds one item."),
        ("Cart.total", "method", 28, 30, 1, "func total() -> Int", ""),
        ("Cart.check", "method", 32, 32, 0, "private func check()", ""),
    ]
    assert symbols(graph, BASE) == [
        ("Base", "class", 1, 1, 1, "class Base", ""),
        ("Log", "struct", 3, 7, 1, "struct Log", ""),
        ("Log.write", "method", 4, 6, 1, "func write(_ line: String)", ""),
        ("Shape", "interface", 9, 11, 1, "protocol Shape: Named", ""),
        ("Shape.area", "method", 10, 10, 1, "func area() -> Double", ""),
        ("Named", "interface", 13, 13, 1, "protocol Named", ""),
        ("Color", "enum", 15, 17, 1, "enum Color: String", ""),
        ("Cart", "extension", 19, 23, 1, "extension Cart: Shape", ""),  # a symbol of its own
        ("Cart.area", "method", 20, 22, 1, "func area() -> Double", ""),  # in an extension
        ("open", "function", 25, 29, 1, "func open() -> Cart", ""),
        ("Carts", "type", 31, 31, 1, "typealias Carts = [Cart]", ""),
    ]
    facts = extract("swift", CART, SW[CART])
    assert [s.decorators for s in facts.symbols if s.name == "Cart"] == [("MainActor",)]


def test_swift_imports_resolve_to_the_files_of_a_module(tmp_path: Path) -> None:
    f = extract("swift", CART, SW[CART])
    assert [(i.module, i.name, i.line) for i in f.imports] == [
        ("Foundation", "*", 1),
        ("ShopKit", "*", 2),
    ]
    graph = build(tmp_path, SW)
    assert deps(graph) == {(CART, KIT, "ShopKit")}  # Foundation is a system framework


def test_swift_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, SW)
    assert calls(graph, CART) == [
        ("Cart", "Log", 11, BASE, "Log", 1.0, "exact"),  # same module, no import
        ("Cart.add", "Formatter", 19, KIT, "Formatter", 1.0, "exact"),  # import ShopKit
        ("Cart.add", "f.format", 20, KIT, "Formatter.format", 0.8, "inferred"),
        ("Cart.add", "owner.greet", 21, KIT, "User.greet", 0.8, "inferred"),
        ("Cart.add", "log.write", 22, BASE, "Log.write", 0.8, "inferred"),
        ("Cart.add", "self.total", 23, CART, "Cart.total", 1.0, "exact"),
        ("Cart.add", "check", 24, CART, "Cart.check", 1.0, "exact"),  # implicit self
        ("Cart.add", "max", 25, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, BASE) == [
        ("Log.write", "print", 5, "", "", 0.0, "unresolved"),
        ("Cart.area", "Double", 21, "", "", 0.0, "unresolved"),
        ("Cart.area", "total", 21, CART, "Cart.total", 1.0, "exact"),  # self of the extension
        ("open", "Cart", 26, CART, "Cart.init", 1.0, "exact"),  # its declared init
        ("open", "User", 26, "", "", 0.0, "unresolved"),  # this file does not import ShopKit
        ("open", "cart.area", 27, BASE, "Cart.area", 0.8, "inferred"),
    ]


def test_swift_superclass_conformances_and_extensions_are_supertype_edges(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, SW)
    assert supertypes(graph) == {
        (BASE, "Color", "String", "implements", 15, "", "", "unresolved"),
        (BASE, "Shape", "Named", "extends", 9, BASE, "Named", "exact"),
        (CART, "Cart", "Base", "extends", 8, BASE, "Base", "exact"),
        (CART, "Cart", "Codable", "implements", 8, "", "", "unresolved"),
        (CART, "Cart", "Shape", "implements", 19, BASE, "Shape", "exact"),  # extension Cart
    }
    down = graph.hierarchy("Shape", direction="down")
    assert [e["child"] for e in down.items] == [f"{CART}:Cart"]


def test_swift_syntax_errors_are_counted_not_fatal() -> None:
    f = extract("swift", "Broken.swift", b"func ok() { go() }\nfunc broken( {\n\xff\n")
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}


EXTENDED = {
    "Sources/Shop/Cart.swift": (
        "struct Cart {\n    struct Line {}\n    func total() -> Int {\n        0\n    }\n}\n"
    ),
    "Sources/Shop/Cart+Sum.swift": (
        "/// Sums the cart.\n"
        "extension Cart: Equatable {\n"
        "    func sum() -> Int {\n"
        "        total()\n"
        "    }\n"
        "}\n"
        "\n"
        "private extension Array where Element == Int {\n"
        "    func doubled() -> [Int] { self }\n"
        "}\n"
        "\n"
        "extension Cart.Line {}\n"
        "extension [String] {}\n"
        "\n"
        "func checkout(cart: Cart) -> Int {\n"
        "    cart.sum()\n"
        "}\n"
    ),
}


def test_swift_extensions_are_symbols_and_their_members_still_resolve(tmp_path: Path) -> None:
    graph = build(tmp_path, EXTENDED)
    path = "Sources/Shop/Cart+Sum.swift"
    assert symbols(graph, path) == [
        ("Cart", "extension", 2, 6, 1, "extension Cart: Equatable", "Sums the cart."),
        ("Cart.sum", "method", 3, 5, 1, "func sum() -> Int", ""),
        ("Array", "extension", 8, 10, 0, "private extension Array where Element == Int", ""),
        ("Array.doubled", "method", 9, 9, 1, "func doubled() -> [Int]", ""),
        ("Cart.Line", "extension", 12, 12, 1, "extension Cart.Line", ""),
        ("[String]", "extension", 13, 13, 1, "extension [String]", ""),
        ("checkout", "function", 15, 17, 1, "func checkout(cart: Cart) -> Int", ""),
    ]
    assert sorted((s["qualname"], s["kind"], s["file"]) for s in graph.symbols("Line")) == [
        ("Cart.Line", "extension", path),
        ("Cart.Line", "struct", "Sources/Shop/Cart.swift"),
    ]
    assert calls(graph, path) == [
        ("Cart.sum", "total", 4, "Sources/Shop/Cart.swift", "Cart.total", 1.0, "exact"),
        ("checkout", "cart.sum", 16, path, "Cart.sum", 0.8, "inferred"),  # as before
    ]
