"""Swift in the code graph (issue #18): a small Swift package (``Sources/Shop`` importing
``Sources/ShopKit``) written the way The Swift Programming Language writes classes,
structs, protocols and extensions, with its definitions, docs, imports, calls (and their
confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from clawql_git.codegraph.swift_resolve import labels_fit
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


# The Swift Programming Language's own examples: Methods (Counter, LevelTracker and Player),
# Initializers (Celsius), Extensions (Rect's init(center:size:), a method added to Counter in
# another file), Protocols (RandomNumberGenerator, its extension's default, Dice) and
# Inheritance (Vehicle, Train, Car).
BOOK = {
    "Package.swift": (
        "// swift-tools-version:5.9\n"
        "import PackageDescription\n"
        "\n"
        'let package = Package(name: "Book")\n'
    ),
    "Sources/Book/Counter.swift": (
        "class Counter {\n"
        "    var count = 0\n"
        "    func increment() {\n"
        "        count += 1\n"
        "    }\n"
        "    func increment(by amount: Int) {\n"
        "        count += amount\n"
        "    }\n"
        "    func reset() {\n"
        "        count = 0\n"
        "    }\n"
        "}\n"
    ),
    "Sources/Book/Counter+Twice.swift": (
        "extension Counter {\n"
        "    func incrementTwice() {\n"
        "        increment()\n"
        "        self.increment(by: 1)\n"
        "    }\n"
        "}\n"
    ),
    "Sources/Book/Levels.swift": (
        "struct LevelTracker {\n"
        "    static var highestUnlockedLevel = 1\n"
        "    var currentLevel = 1\n"
        "\n"
        "    static func unlock(_ level: Int) {\n"
        "        if level > highestUnlockedLevel { highestUnlockedLevel = level }\n"
        "    }\n"
        "\n"
        "    static func isUnlocked(_ level: Int) -> Bool {\n"
        "        return level <= highestUnlockedLevel\n"
        "    }\n"
        "\n"
        "    @discardableResult\n"
        "    mutating func advance(to level: Int) -> Bool {\n"
        "        if LevelTracker.isUnlocked(level) {\n"
        "            currentLevel = level\n"
        "            return true\n"
        "        } else {\n"
        "            return false\n"
        "        }\n"
        "    }\n"
        "}\n"
        "\n"
        "class Player {\n"
        "    var tracker = LevelTracker()\n"
        "    let playerName: String\n"
        "    func complete(level: Int) {\n"
        "        LevelTracker.unlock(level + 1)\n"
        "        tracker.advance(to: level + 1)\n"
        "    }\n"
        "    init(name: String) {\n"
        "        playerName = name\n"
        "    }\n"
        "}\n"
    ),
    "Sources/Book/Temperature.swift": (
        "struct Celsius {\n"
        "    var temperatureInCelsius: Double\n"
        "    init(fromFahrenheit fahrenheit: Double) {\n"
        "        temperatureInCelsius = (fahrenheit - 32.0) / 1.8\n"
        "    }\n"
        "    init(fromKelvin kelvin: Double) {\n"
        "        temperatureInCelsius = kelvin - 273.15\n"
        "    }\n"
        "}\n"
        "\n"
        "struct Size {\n"
        "    var width = 0.0, height = 0.0\n"
        "}\n"
        "\n"
        "struct Point {\n"
        "    var x = 0.0, y = 0.0\n"
        "}\n"
        "\n"
        "struct Rect {\n"
        "    var origin = Point()\n"
        "    var size = Size()\n"
        "}\n"
        "\n"
        "extension Rect {\n"
        "    init(center: Point, size: Size) {\n"
        "        let originX = center.x - (size.width / 2)\n"
        "        let originY = center.y - (size.height / 2)\n"
        "        self.init(origin: Point(x: originX, y: originY), size: size)\n"
        "    }\n"
        "}\n"
    ),
    "Sources/Book/Dice.swift": (
        "protocol RandomNumberGenerator {\n"
        "    func random() -> Double\n"
        "}\n"
        "\n"
        "extension RandomNumberGenerator {\n"
        "    func randomBool() -> Bool {\n"
        "        return random() > 0.5\n"
        "    }\n"
        "}\n"
        "\n"
        "class LinearCongruentialGenerator: RandomNumberGenerator {\n"
        "    var lastRandom = 42.0\n"
        "    func random() -> Double {\n"
        "        lastRandom = (lastRandom * 3877.0 + 29573.0)\n"
        "            .truncatingRemainder(dividingBy: 139968.0)\n"
        "        return lastRandom / 139968.0\n"
        "    }\n"
        "}\n"
        "\n"
        "class Dice {\n"
        "    let sides: Int\n"
        "    let generator: RandomNumberGenerator\n"
        "    init(sides: Int, generator: RandomNumberGenerator) {\n"
        "        self.sides = sides\n"
        "        self.generator = generator\n"
        "    }\n"
        "    func roll() -> Int {\n"
        "        return Int(generator.random() * Double(sides)) + 1\n"
        "    }\n"
        "}\n"
    ),
    "Sources/Book/Vehicles.swift": (
        "class Vehicle {\n"
        "    var currentSpeed = 0.0\n"
        "    func makeNoise() {\n"
        "    }\n"
        "}\n"
        "\n"
        "class Train: Vehicle {\n"
        "    override func makeNoise() {\n"
        "        super.makeNoise()\n"
        '        print("Choo Choo")\n'
        "    }\n"
        "}\n"
        "\n"
        "class Car: Vehicle {\n"
        "    var gear = 1\n"
        "}\n"
    ),
    "Sources/Book/Play.swift": (
        "func makeCounter() -> Counter {\n"
        "    return Counter()\n"
        "}\n"
        "\n"
        "func listen(to vehicle: Vehicle, spare: Dice?) {\n"
        "    vehicle.makeNoise()\n"
        "    spare?.roll()\n"
        "}\n"
        "\n"
        "func play() {\n"
        "    let counter = Counter()\n"
        "    counter.increment()\n"
        "    counter.increment(by: 5)\n"
        "    counter.reset()\n"
        "    counter.incrementTwice()\n"
        "    makeCounter().reset()\n"
        "    let boilingPointOfWater = Celsius(fromFahrenheit: 212.0)\n"
        "    let d6 = Dice(sides: 6, generator: LinearCongruentialGenerator())\n"
        "    print(d6.roll())\n"
        "    let generator = LinearCongruentialGenerator()\n"
        "    generator.randomBool()\n"
        "    let train = Train()\n"
        "    train.makeNoise()\n"
        "    let car: Car = Car()\n"
        "    car.makeNoise()\n"
        '    var player = Player(name: "Argyrios")\n'
        "    player.complete(level: 1)\n"
        "    player.tracker.advance(to: 2)\n"
        "    if let freezing = Optional(Celsius(fromKelvin: 273.15)) {\n"
        "        print(freezing)\n"
        "    }\n"
        "    let vehicles: [Vehicle] = [train, car]\n"
        "    for vehicle in vehicles {\n"
        "        vehicle.makeNoise()\n"
        "    }\n"
        "}\n"
    ),
}


CN, TW, LV = (
    "Sources/Book/Counter.swift",
    "Sources/Book/Counter+Twice.swift",
    "Sources/Book/Levels.swift",
)
TM, DC = "Sources/Book/Temperature.swift", "Sources/Book/Dice.swift"
VH, PL = "Sources/Book/Vehicles.swift", "Sources/Book/Play.swift"
RNG, LCG, LT = "RandomNumberGenerator", "LinearCongruentialGenerator", "LevelTracker"


def test_swift_calls_typed_by_declared_types(tmp_path: Path) -> None:
    graph = build(tmp_path, BOOK)
    assert calls(graph, TW) == [
        # a method of an extension in another file calls the type's own methods
        ("Counter.incrementTwice", "increment", 3, CN, "Counter.increment", 1.0, "exact"),
        ("Counter.incrementTwice", "self.increment", 4, CN, "Counter.increment", 1.0, "exact"),
    ]
    assert calls(graph, LV) == [  # type methods, a property typed by the value it is given
        ("LevelTracker.advance", f"{LT}.isUnlocked", 15, LV, f"{LT}.isUnlocked", 1.0, "exact"),
        ("Player", "LevelTracker", 25, LV, "LevelTracker", 1.0, "exact"),  # memberwise init
        ("Player.complete", "LevelTracker.unlock", 28, LV, "LevelTracker.unlock", 1.0, "exact"),
        ("Player.complete", "tracker.advance", 29, LV, "LevelTracker.advance", 0.8, "inferred"),
    ]
    assert calls(graph, TM) == [
        ("Rect", "Point", 20, TM, "Point", 1.0, "exact"),
        ("Rect", "Size", 21, TM, "Size", 1.0, "exact"),
        ("Rect.init", "Point", 28, TM, "Point", 1.0, "exact"),
        # the memberwise init(origin:size:) is declared nowhere and init(center:size:) does
        # not take these labels
        ("Rect.init", "self.init", 28, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, DC) == [
        # a protocol extension's default calls the protocol's requirement
        (f"{RNG}.randomBool", "random", 7, DC, f"{RNG}.random", 1.0, "exact"),
        ("Dice.roll", "Int", 28, "", "", 0.0, "unresolved"),  # the standard library
        ("Dice.roll", "generator.random", 28, DC, f"{RNG}.random", 0.8, "inferred"),  # a protocol
    ]
    assert calls(graph, VH) == [
        ("Train.makeNoise", "super.makeNoise", 9, VH, "Vehicle.makeNoise", 1.0, "exact"),
        ("Train.makeNoise", "print", 10, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, PL) == [
        ("makeCounter", "Counter", 2, CN, "Counter", 1.0, "exact"),  # no init declared
        ("listen", "vehicle.makeNoise", 6, VH, "Vehicle.makeNoise", 0.8, "inferred"),
        ("listen", "spare.roll", 7, DC, "Dice.roll", 0.8, "inferred"),  # spare?.roll(): Dice?
        ("play", "Counter", 11, CN, "Counter", 1.0, "exact"),
        ("play", "counter.increment", 12, CN, "Counter.increment", 0.8, "inferred"),
        ("play", "counter.increment", 13, CN, "Counter.increment", 0.8, "inferred"),
        ("play", "counter.reset", 14, CN, "Counter.reset", 0.8, "inferred"),
        ("play", "counter.incrementTwice", 15, TW, "Counter.incrementTwice", 0.8, "inferred"),
        ("play", "makeCounter", 16, PL, "makeCounter", 1.0, "exact"),
        ("play", "makeCounter().reset", 16, CN, "Counter.reset", 0.8, "inferred"),  # -> Counter
        ("play", "Celsius", 17, TM, "Celsius.init", 1.0, "exact"),
        ("play", "Dice", 18, DC, "Dice.init", 1.0, "exact"),
        ("play", LCG, 18, DC, LCG, 1.0, "exact"),
        ("play", "d6.roll", 19, DC, "Dice.roll", 0.8, "inferred"),
        ("play", "print", 19, "", "", 0.0, "unresolved"),
        ("play", LCG, 20, DC, LCG, 1.0, "exact"),
        # the default of the protocol's extension, through the class's conformance
        ("play", "generator.randomBool", 21, DC, f"{RNG}.randomBool", 0.8, "inferred"),
        ("play", "Train", 22, VH, "Train", 1.0, "exact"),
        ("play", "train.makeNoise", 23, VH, "Train.makeNoise", 0.8, "inferred"),  # an override
        ("play", "Car", 24, VH, "Car", 1.0, "exact"),
        ("play", "car.makeNoise", 25, VH, "Vehicle.makeNoise", 0.8, "inferred"),  # inherited
        ("play", "Player", 26, LV, "Player.init", 1.0, "exact"),
        ("play", "player.complete", 27, LV, "Player.complete", 0.8, "inferred"),
        ("play", "player.tracker.advance", 28, LV, "LevelTracker.advance", 0.8, "inferred"),
        ("play", "Celsius", 29, TM, "Celsius.init", 1.0, "exact"),
        ("play", "Optional", 29, "", "", 0.0, "unresolved"),
        ("play", "print", 30, "", "", 0.0, "unresolved"),
        ("play", "vehicle.makeNoise", 34, VH, "Vehicle.makeNoise", 0.8, "inferred"),  # [Vehicle]
    ]


def test_swift_argument_labels_pick_the_overload() -> None:
    assert labels_fit(("_:Int", "b:Int=", "c:Int...", "d:{}"), ["_", "c", "_", "{"], bool)
    assert labels_fit(("statusCode:S",), ["statusCode"], bool)
    assert not labels_fit(("for:URLSessionTask",), ["_", "parameters"], bool)
    assert not labels_fit(("with:Error",), ["{"], lambda written: written == "{}")
    assert labels_fit(("_:Validation",), ["{"], lambda written: written == "Validation")
    assert not labels_fit((), ["{"], bool)
    f = extract("swift", "A.swift", "func f(_ a: Int, b: Int = 1, c: () -> Void) {}\n")
    assert [s.labels for s in f.symbols] == [("_:Int", "b:Int=", "c:{() -> Void}")]
    g = extract(
        "swift", "B.swift", "func g() {\n    s.request(u, method: .get).response {\n    }\n}\n"
    )
    assert [(c.callee, c.labels) for c in g.calls] == [
        ("s.request().response", ("_,method", "{")),
        ("s.request", ("_,method",)),
    ]


# The Swift Programming Language's Extensions (``Int.repetitions(task:)``, ``square()``) and
# Optional Protocol Requirements (``CounterDataSource``) chapters, in an Xcode layout (no
# ``Sources/``: one module) with a test file: members of extensions of types outside the
# repository (the standard library's) resolve by their labels, a static one apart from an
# instance one (Alamofire's ``static func removeItem(at:)`` of ``extension FileManager``
# beside Foundation's instance method); an initializer only when it names an argument;
# ``handler?(x)`` calls the optional closure of a property, not a method of the same name.
OUTSIDE = {
    "Source/Extensions.swift": (
        "extension Int {\n"
        "    func repetitions(task: () -> Void) {\n"
        "        for _ in 0..<self {\n"
        "            task()\n"
        "        }\n"
        "    }\n"
        "    mutating func square() {\n"
        "        self = self * self\n"
        "    }\n"
        "}\n"
        "\n"
        "extension String {\n"
        "    init(word: String, times: Int) {\n"
        '        self = Array(repeating: word, count: times).joined(separator: " ")\n'
        "    }\n"
        "    static func lowercased() -> String {\n"
        '        ""\n'
        "    }\n"
        "    func shout() -> String {\n"
        "        uppercased()\n"
        "    }\n"
        "}\n"
        "\n"
        "extension Int {\n"
        "    init(double: Int = 1, padding: Int = 0) {\n"
        "        self.init()\n"
        "        self = double * 2 + padding\n"
        "    }\n"
        "}\n"
        "\n"
        "extension Error {\n"
        '    func describe() -> String { "" }\n'
        "}\n"
        "func risky() throws {}\n"
        "func attempt() {\n"
        "    do {\n"
        "        try risky()\n"
        "    } catch {\n"
        "        error.describe()\n"
        "    }\n"
        "}\n"
    ),
    "Source/Counter.swift": (
        "import Foundation\n"
        "\n"
        "@objc protocol CounterDataSource {\n"
        "    @objc optional func increment(forCount count: Int) -> Int\n"
        "    @objc optional var fixedIncrement: Int { get }\n"
        "}\n"
        "\n"
        "class Counter {\n"
        "    var count = 0\n"
        "    var dataSource: CounterDataSource?\n"
        "    var didIncrement: ((Int) -> Void)?\n"
        "    func increment() {\n"
        "        if let amount = dataSource?.increment?(forCount: count) {\n"
        "            count += amount\n"
        "        }\n"
        "        didIncrement?(count)\n"
        "        didIncrement(count)\n"
        "    }\n"
        "    func didIncrement(_ count: Int) {}\n"
        "}\n"
        "\n"
        "func play(word: String) {\n"
        "    var three: Int = 3\n"
        '    three.repetitions { print("Hello!") }\n'
        "    three.square()\n"
        "    let twice = String(word: word, times: 2)\n"
        "    let plain = String(repeating: word, count: 2)\n"
        "    word.shout()\n"
        "    word.lowercased()\n"
        "    String.lowercased()\n"
        "    word.whisper()\n"
        "    var counter = Counter()\n"
        "    var other = counter.count.square()\n"
        "}\n"
        "\n"
        "protocol Reading {\n"
        "    func read() -> Counter\n"
        "}\n"
        "\n"
        "func consume(_ counter: any Reading) {\n"
        "    let counter = counter.read()\n"
        "    counter.increment()\n"
        "}\n"
    ),
    "Tests/CounterTests.swift": (
        "extension String {\n"
        "    func whisper() -> String {\n"
        "        lowercased()\n"
        "    }\n"
        "}\n"
        "\n"
        "func check(word: String) {\n"
        "    word.whisper()\n"
        "}\n"
    ),
}
EX, CT, TS = "Source/Extensions.swift", "Source/Counter.swift", "Tests/CounterTests.swift"


def test_swift_members_of_extended_outside_types_and_optional_closures(tmp_path: Path) -> None:
    graph = build(tmp_path, OUTSIDE)
    assert calls(graph, EX) == [
        ("Int.repetitions", "task", 4, "", "", 0.0, "unresolved"),  # a parameter
        ("String.init", "Array", 14, "", "", 0.0, "unresolved"),
        ("String.init", "Array().joined", 14, "", "", 0.0, "unresolved"),
        ("String.shout", "uppercased", 20, "", "", 0.0, "unresolved"),  # the standard library's
        ("Int.init", "self.init", 26, "", "", 0.0, "unresolved"),  # not init(double:padding:)
        ("attempt", "risky", 37, EX, "risky", 1.0, "exact"),
        # ``catch { }`` binds ``error``, an ``any Error``: the extension's method
        ("attempt", "error.describe", 39, EX, "Error.describe", 0.8, "inferred"),
    ]
    assert calls(graph, CT) == [
        # an optional requirement of an @objc protocol, called with ``?``
        ("Counter.increment", "dataSource.increment", 13, CT, "CounterDataSource.increment",
         0.8, "inferred"),
        # the optional closure of the property, then the method of the same name
        ("Counter.increment", "didIncrement", 16, CT, "Counter.didIncrement", 1.0, "exact"),
        ("Counter.increment", "didIncrement", 17, CT, "Counter.didIncrement", 1.0, "exact"),
        ("play", "print", 24, "", "", 0.0, "unresolved"),
        ("play", "three.repetitions", 24, EX, "Int.repetitions", 0.8, "inferred"),
        ("play", "three.square", 25, EX, "Int.square", 0.8, "inferred"),
        ("play", "String", 26, EX, "String.init", 1.0, "exact"),  # init(word:times:)
        ("play", "String", 27, "", "", 0.0, "unresolved"),  # the standard library's
        ("play", "word.shout", 28, EX, "String.shout", 0.8, "inferred"),
        # the instance method is the standard library's, the static one the extension's
        ("play", "word.lowercased", 29, "", "", 0.0, "unresolved"),
        ("play", "String.lowercased", 30, EX, "String.lowercased", 1.0, "exact"),
        ("play", "word.whisper", 31, "", "", 0.0, "unresolved"),  # a test's extension
        ("play", "Counter", 32, CT, "Counter", 1.0, "exact"),
        ("play", "counter.count.square", 33, "", "", 0.0, "unresolved"),  # count = 0: untyped
        ("consume", "counter.read", 41, CT, "Reading.read", 0.8, "inferred"),  # the parameter
        ("consume", "counter.increment", 42, CT, "Counter.increment", 0.8, "inferred"),
    ]  # fmt: skip
    assert calls(graph, TS) == [
        ("String.whisper", "lowercased", 3, "", "", 0.0, "unresolved"),  # not the static one
        ("check", "word.whisper", 8, TS, "String.whisper", 0.8, "inferred"),
    ]


# The Swift Programming Language's Closures chapter (closure expressions given as arguments,
# shorthand argument names, trailing closures) with its ``loadPicture(from:completion:
# onFailure:)``: a closure's parameter is typed, inside the closure only, by the closure type
# of the parameter its argument fills (a type alias of one included); a generic one is not,
# unless it is the one type parameter of the receiver's type, declared with a type argument.
CLOSURES = {
    "Gallery.swift": (
        "class Picture {\n"
        "    func show() {}\n"
        "}\n"
        "class Frame {\n"
        "    func show() {}\n"
        "}\n"
        "class Server {}\n"
        "typealias Handler = (Picture) -> Void\n"
        "\n"
        "func loadPicture(from server: Server, completion: (Picture) -> Void,\n"
        "                 onFailure: () -> Void) {}\n"
        "func forEvery(_ body: (Picture) -> Void) {}\n"
        "func later(_ handler: @escaping Handler) {}\n"
        "func apply<T>(_ value: T, _ body: (T) -> Void) {}\n"
        "\n"
        "func gallery(server: Server) {\n"
        "    let picture = Frame()\n"
        "    loadPicture(from: server, completion: { picture in\n"
        "        picture.show()\n"
        "    }, onFailure: {})\n"
        "    picture.show()\n"
        "    forEvery { $0.show() }\n"
        "    later { picture in picture.show() }\n"
        "    apply(Picture()) { $0.show() }\n"
        "}\n"
        "\n"
        "typealias Snapshot = Frame\n"
        "func capture(_ done: (Snapshot) -> Void) {}\n"
        "func develop() {\n"
        "    capture { $0.show() }\n"
        "}\n"
        "\n"
        "final class Box<Value> {\n"
        "    func read(_ body: (Value) -> Void) {}\n"
        "}\n"
        "func unpack(box: Box<Picture>) {\n"
        "    box.read { $0.show() }\n"
        "}\n"
        "\n"
        "final class Filter {\n"
        "    let accepts: (Picture) -> Bool\n"
        "    init(accepts: @escaping (Picture) -> Bool) {\n"
        "        self.accepts = accepts\n"
        "    }\n"
        "    func check(_ picture: Picture) -> Bool {\n"
        "        accepts(picture)\n"
        "    }\n"
        "}\n"
    ),
}


def test_swift_closure_parameters_typed_by_the_parameter_they_fill(tmp_path: Path) -> None:
    graph = build(tmp_path, CLOSURES)
    g = "Gallery.swift"
    assert calls(graph, g) == [
        ("gallery", "Frame", 17, g, "Frame", 1.0, "exact"),
        ("gallery", "loadPicture", 18, g, "loadPicture", 1.0, "exact"),
        ("gallery", "picture.show", 19, g, "Picture.show", 0.8, "inferred"),  # the parameter
        ("gallery", "picture.show", 21, g, "Frame.show", 0.8, "inferred"),  # the local again
        ("gallery", "$0.show", 22, g, "Picture.show", 0.8, "inferred"),
        ("gallery", "forEvery", 22, g, "forEvery", 1.0, "exact"),
        ("gallery", "later", 23, g, "later", 1.0, "exact"),
        ("gallery", "picture.show", 23, g, "Picture.show", 0.8, "inferred"),  # a type alias
        ("gallery", "$0.show", 24, "", "", 0.0, "unresolved"),  # T: generic
        ("gallery", "Picture", 24, g, "Picture", 1.0, "exact"),
        ("gallery", "apply", 24, g, "apply", 1.0, "exact"),
        ("develop", "$0.show", 30, g, "Frame.show", 0.8, "inferred"),  # the alias's type
        ("develop", "capture", 30, g, "capture", 1.0, "exact"),
        # the type argument the receiver is declared with: Value is a Picture
        ("unpack", "$0.show", 37, g, "Picture.show", 0.8, "inferred"),
        ("unpack", "box.read", 37, g, "Box.read", 0.8, "inferred"),
        # a property declared with a closure type, called: the property
        ("Filter.check", "accepts", 46, g, "Filter.accepts", 1.0, "exact"),
    ]
