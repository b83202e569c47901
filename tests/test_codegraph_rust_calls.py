"""Rust calls resolved by declared types, as The Rust Reference describes them: a method call
expression ``x.m()`` looks ``m`` up in the impls of the receiver's type, then in the traits it
implements (their default methods); ``T::f()`` / ``Self::f()`` name associated functions; a
tuple struct's name is its constructor; ``?`` and ``.await`` give a ``Result``'s value and an
``async fn``'s output. Receivers are typed by ``self``, ``let``, parameters, struct fields and
declared return types; a path dependency of ``Cargo.toml`` is a crate of the repository."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, extract

CRATE = {
    "Cargo.toml": (
        "[package]\n"
        'name = "shop"\n'
        'version = "0.1.0"\n'
        'edition = "2021"\n'
        "\n"
        "[dependencies]\n"
        'util = { path = "util" }\n'
        'serde = "1"\n'
    ),
    "src/lib.rs": (
        "//! The shop crate.\n"
        "mod shapes;\n"
        "mod store;\n"
        "\n"
        "use crate::shapes::{Circle, Shape};\n"
        "use crate::store::Store;\n"
        "\n"
        "pub async fn load() -> Store {\n"
        "    Store::new()\n"
        "}\n"
        "\n"
        "pub async fn run() -> Result<usize, String> {\n"
        "    let store = Store::new();\n"
        "    let item = store.first();\n"
        "    item.describe();\n"
        "    let found = store.find(1)?;\n"
        "    found.describe();\n"
        "    store.lookup(2).unwrap().describe();\n"
        "    let circle = Circle { r: 1.0 };\n"
        "    circle.area();\n"
        "    circle.name();\n"
        "    shapes::measure(&circle, &mut Circle { r: 2.0 }, 1);\n"
        "    let loaded = load().await;\n"
        '    println!("{}", loaded.count().to_string());\n'
        "    let _ = [1u32].map(|item| item.describe());\n"
        "    util::double(2);\n"
        "    Ok(Store::default().count())\n"
        "}\n"
        "\n"
        "pub struct Wrap<T>(pub T);\n"
        "\n"
        "pub fn unwrap_param(Wrap(item): Wrap<store::Item>) -> String {\n"
        "    item.describe()\n"
        "}\n"
    ),
    "src/shapes.rs": (
        "pub trait Shape {\n"
        "    fn area(&self) -> f64;\n"
        "\n"
        "    fn name(&self) -> String {\n"
        '        String::from("shape")\n'
        "    }\n"
        "\n"
        "    fn describe(&self) -> String {\n"
        "        self.name()\n"
        "    }\n"
        "}\n"
        "\n"
        "pub struct Circle {\n"
        "    pub r: f64,\n"
        "}\n"
        "\n"
        "impl Shape for Circle {\n"
        "    fn area(&self) -> f64 {\n"
        "        3.0 * self.r * self.r\n"
        "    }\n"
        "}\n"
        "\n"
        "pub fn measure<S: Shape, T>(shape: &S, other: &mut Circle, any: T) -> f64 {\n"
        "    any.area();\n"
        "    other.area();\n"
        "    shape.area()\n"
        "}\n"
        "\n"
        "pub fn both<S>(shape: &S) -> f64\n"
        "where\n"
        "    S: Shape + Clone + Send,\n"
        "{\n"
        "    shape.clone();\n"
        "    shape.area()\n"
        "}\n"
    ),
    "src/store.rs": (
        "/// An item.\n"
        "#[derive(Debug, Clone)]\n"
        "pub struct Item {\n"
        "    pub id: u32,\n"
        "}\n"
        "\n"
        "impl Item {\n"
        "    pub fn describe(&self) -> String {\n"
        "        self.label()\n"
        "    }\n"
        "\n"
        "    fn label(&self) -> String {\n"
        '        format!("item {}", self.id)\n'
        "    }\n"
        "}\n"
        "\n"
        "pub struct Store {\n"
        "    items: Vec<Item>,\n"
        "    main: Item,\n"
        "}\n"
        "\n"
        "impl Store {\n"
        "    pub fn new() -> Self {\n"
        "        Self::with_items(Vec::new())\n"
        "    }\n"
        "\n"
        "    pub fn with_items(items: Vec<Item>) -> Self {\n"
        "        Store { items, main: Item { id: 0 } }\n"
        "    }\n"
        "\n"
        "    pub fn first(&self) -> Item {\n"
        "        self.main.clone()\n"
        "    }\n"
        "\n"
        "    pub fn find(&self, id: u32) -> Result<Item, String> {\n"
        "        self.lookup(id).ok_or(String::new())\n"
        "    }\n"
        "\n"
        "    pub fn lookup(&self, id: u32) -> Option<Item> {\n"
        "        self.items.iter().find(|i| i.id == id).cloned()\n"
        "    }\n"
        "\n"
        "    pub fn count(&self) -> usize {\n"
        "        self.items.len()\n"
        "    }\n"
        "\n"
        "    pub fn main_label(&self) -> String {\n"
        "        self.main.describe()\n"
        "    }\n"
        "}\n"
        "\n"
        "impl Default for Store {\n"
        "    fn default() -> Self {\n"
        "        Store::new()\n"
        "    }\n"
        "}\n"
        "\n"
        "pub struct Id(pub u32);\n"
        "\n"
        "impl Id {\n"
        "    pub fn zero() -> Self {\n"
        "        Self(0)\n"
        "    }\n"
        "}\n"
        "\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n"
        "\n"
        "    fn counts() -> usize {\n"
        "        let id = Id::zero();\n"
        "        Store::new().count()\n"
        "    }\n"
        "}\n"
        "\n"
        "impl std::fmt::Display for Item {\n"
        "    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n"
        '        write!(f, "{}", self.id)\n'
        "    }\n"
        "}\n"
        "\n"
        "pub fn show(item: &Item, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n"
        "    item.fmt(f)\n"
        "}\n"
        "\n"
        "pub enum Stock {\n"
        "    One(Item),\n"
        "    Many(Vec<Item>),\n"
        "}\n"
        "\n"
        "pub fn describe_stock(stock: &Stock) -> String {\n"
        "    match stock {\n"
        "        Stock::One(item) => item.describe(),\n"
        "        Stock::Many(items) => items.len().to_string(),\n"
        "    }\n"
        "}\n"
        "\n"
        "pub fn area_of(circle: &crate::shapes::Circle) -> f64 {\n"
        "    circle.area()\n"
        "}\n"
    ),
    "util/Cargo.toml": ('[package]\nname = "util"\nversion = "0.1.0"\nedition = "2021"\n'),
    "util/src/lib.rs": ("pub fn double(x: u32) -> u32 {\n    x * 2\n}\n"),
}

EXACT, INFERRED = (1.0, "exact"), (0.8, "inferred")


def resolved(root: Path, path: str) -> list[tuple[object, ...]]:
    graph = build(root, CRATE)
    return [c for c in calls(graph, path) if c[3]]


def test_rust_self_associated_functions_fields_and_trait_methods(tmp_path: Path) -> None:
    assert resolved(tmp_path, "src/store.rs") == [
        ("Item.describe", "self.label", 9, "src/store.rs", "Item.label", *EXACT),
        ("Store.new", "Self::with_items", 24, "src/store.rs", "Store.with_items", *EXACT),
        # struct expressions construct their struct: ``Store { items, main: Item { id: 0 } }``
        ("Store.with_items", "Item", 28, "src/store.rs", "Item", *EXACT),
        ("Store.with_items", "Store", 28, "src/store.rs", "Store", *EXACT),
        ("Store.find", "self.lookup", 36, "src/store.rs", "Store.lookup", *EXACT),
        ("Store.main_label", "self.main.describe", 48, "src/store.rs", "Item.describe", *INFERRED),
        ("Store.default", "Store::new", 54, "src/store.rs", "Store.new", *EXACT),
        ("Id.zero", "Self", 62, "src/store.rs", "Id", *EXACT),  # a tuple struct's constructor
        ("tests.counts", "Id::zero", 71, "src/store.rs", "Id.zero", *EXACT),
        ("tests.counts", "Store::new", 72, "src/store.rs", "Store.new", *EXACT),
        ("tests.counts", "Store::new().count", 72, "src/store.rs", "Store.count", *INFERRED),
        # ``Stock::One(item)``: the field of variant ``One(Item)``
        ("describe_stock", "item.describe", 93, "src/store.rs", "Item.describe", *INFERRED),
    ]
    # ``impl Display for Item`` gives ``fmt``, and so does ``#[derive(Debug)]``: not proven
    facts = calls(build(tmp_path / "b", CRATE), "src/store.rs")
    assert ("show", "item.fmt", 83, "", "", 0.0, "unresolved") in facts
    # ``Shape`` is not in scope in store.rs: its ``area`` is not callable there
    assert ("area_of", "circle.area", 99, "", "", 0.0, "unresolved") in facts


def test_rust_trait_default_methods_bounds_and_parameters(tmp_path: Path) -> None:
    assert resolved(tmp_path, "src/shapes.rs") == [
        ("Shape.describe", "self.name", 9, "src/shapes.rs", "Shape.name", *EXACT),
        ("measure", "other.area", 25, "src/shapes.rs", "Circle.area", *INFERRED),  # &mut Circle
        ("measure", "shape.area", 26, "src/shapes.rs", "Shape.area", *INFERRED),  # S: Shape
        # ``S: Shape + Clone + Send``: of the bounds only ``Shape`` declares ``area``
        ("both", "shape.area", 34, "src/shapes.rs", "Shape.area", *INFERRED),
    ]
    unresolved = [c[1] for c in calls(build(tmp_path / "b", CRATE), "src/shapes.rs") if not c[3]]
    # std; an unbounded type parameter; Clone's clone
    assert unresolved == ["String::from", "any.area", "shape.clone"]


def test_rust_locals_return_types_try_await_and_path_dependencies(tmp_path: Path) -> None:
    store, shapes = "src/store.rs", "src/shapes.rs"
    assert resolved(tmp_path, "src/lib.rs") == [
        ("load", "Store::new", 9, store, "Store.new", *EXACT),
        ("run", "Store::new", 13, store, "Store.new", *EXACT),
        ("run", "store.first", 14, store, "Store.first", *INFERRED),
        ("run", "item.describe", 15, store, "Item.describe", *INFERRED),  # -> Item
        ("run", "store.find", 16, store, "Store.find", *INFERRED),
        ("run", "found.describe", 17, store, "Item.describe", *INFERRED),  # Result<Item, _>?
        ("run", "store.lookup", 18, store, "Store.lookup", *INFERRED),
        ("run", "store.lookup().unwrap().describe", 18, store, "Item.describe", *INFERRED),
        ("run", "Circle", 19, shapes, "Circle", *EXACT),  # ``Circle { r: 1.0 }``
        ("run", "circle.area", 20, shapes, "Circle.area", *INFERRED),  # impl Shape for Circle
        ("run", "circle.name", 21, shapes, "Shape.name", *INFERRED),  # the trait's default
        ("run", "Circle", 22, shapes, "Circle", *EXACT),
        ("run", "shapes::measure", 22, shapes, "measure", *EXACT),
        ("run", "load", 23, "src/lib.rs", "load", *EXACT),
        ("run", "loaded.count", 24, store, "Store.count", *INFERRED),  # async fn .await
        ("run", "util::double", 26, "util/src/lib.rs", "double", *EXACT),  # path dependency
        ("run", "Store::default", 27, store, "Store.default", *EXACT),  # impl Default
        ("run", "Store::default().count", 27, store, "Store.count", *INFERRED),
        # ``Wrap(item): Wrap<store::Item>``: field 0 of ``Wrap<T>(pub T)`` is the Item
        ("unwrap_param", "item.describe", 33, store, "Item.describe", *INFERRED),
    ]


def test_rust_std_calls_and_closure_parameters_stay_unresolved(tmp_path: Path) -> None:
    got = {(c[1], c[2]): c[6] for c in calls(build(tmp_path, CRATE), "src/lib.rs") if not c[3]}
    assert got == {
        ("store.lookup().unwrap", 18): "external",  # Option::unwrap
        ("loaded.count().to_string", 24): "external",  # usize
        (".map", 25): "unresolved",
        ("item.describe", 25): "unresolved",  # the closure's ``item`` hides the local
        ("Ok", 27): "external",
    }


def test_rust_facts_types_as_written_try_await_and_inline_module_globs() -> None:
    source = (
        "struct S { f: Option<Box<T>> }\n"
        "impl<T: Clone> S {\n"
        "    async fn m(self: Box<Self>) -> Result<Self, E> {\n"
        "        let x = a()?.b().await;\n"
        "        (self.f)();\n"
        "    }\n"
        "}\n"
        "mod tests { use super::*; }\n"
    )
    f = extract("rust", "src/a.rs", source)
    assert [(a.target, a.value, a.scope) for a in f.assignments] == [
        ("f", "Option<Box<T>>", "S"),
        ("<T>", "Clone", "S"),
        ("Self", "S", "S.m"),
        ("self", "S", "S.m"),
        ("x", "a()?.b().await", "S.m"),
    ]
    assert next(s for s in f.symbols if s.qualname == "S.m").returns == "Result<Self, E>"
    assert [c.callee for c in f.calls] == ["a()?.b", "a", "(self.f)"]
    assert [(i.module, i.name, i.scope) for i in f.imports] == [("self", "*", "tests")]


# The Rust Reference, "Scopes": a ``let`` binding is in scope from after the statement to the
# end of its block, a closure's parameters in its body, a match arm's bindings in the arm;
# "Struct expressions": ``Path { fields }`` constructs the struct the path names;
# "Trait and lifetime bounds": ``T::f`` with ``T: Trait`` names the trait's associated item.
SCOPES = {
    "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "mod model;\n"
        "\n"
        "use crate::model::{Extract, Page, Socket, Upgrade};\n"
        "\n"
        "pub fn scoped(ws: Upgrade, page: Page) {\n"
        "    ws.on_upgrade(|ws: Socket| ws.send());\n"
        "    {\n"
        "        let page = Socket {};\n"
        "        page.send();\n"
        "    }\n"
        "    page.title();\n"
        "    match Some(1) {\n"
        "        Some(page) => page.title(),\n"
        "        None => page.title(),\n"
        "    };\n"
        "}\n"
        "\n"
        "pub fn made() -> Page {\n"
        "    let _ = model::Page { n: 1 };\n"
        "    Page { n: 2 }\n"
        "}\n"
        "\n"
        "pub fn extracted<T, U>(n: u32) -> u32\n"
        "where\n"
        "    T: Extract + Send,\n"
        "    U: Clone + Send,\n"
        "{\n"
        "    T::extract(n);\n"
        "    U::extract(n)\n"
        "}\n"
    ),
    "src/model.rs": (
        "pub struct Page {\n"
        "    pub n: u32,\n"
        "}\n"
        "\n"
        "impl Page {\n"
        "    pub fn title(&self) -> u32 {\n"
        "        self.n\n"
        "    }\n"
        "}\n"
        "\n"
        "pub struct Socket {}\n"
        "\n"
        "impl Socket {\n"
        "    pub fn send(&self) {}\n"
        "}\n"
        "\n"
        "pub struct Upgrade {}\n"
        "\n"
        "impl Upgrade {\n"
        "    pub fn on_upgrade<F>(self, f: F) {}\n"
        "}\n"
        "\n"
        "pub enum Shape {\n"
        "    Square { side: u32 },\n"
        "}\n"
        "\n"
        "pub trait Extract {\n"
        "    fn extract(n: u32) -> u32;\n"
        "}\n"
        "\n"
        "pub struct Holder<T>(T);\n"
        "\n"
        "impl<T> Holder<T> {\n"
        "    pub fn square() -> Shape {\n"
        "        Shape::Square { side: 1 }\n"
        "    }\n"
        "}\n"
        "\n"
        "impl<T> Holder<T>\n"
        "where\n"
        "    T: Extract + Clone,\n"
        "{\n"
        "    pub fn get(n: u32) -> u32 {\n"
        "        T::extract(n)\n"
        "    }\n"
        "}\n"
    ),
}


def test_rust_block_scopes_struct_expressions_and_bound_paths(tmp_path: Path) -> None:
    graph = build(tmp_path, SCOPES)
    model = "src/model.rs"
    assert [c for c in calls(graph, "src/lib.rs") if c[3]] == [
        # the outer ``ws`` (the closure's ``ws`` is bound in its body only), then the inner
        ("scoped", "ws.on_upgrade", 6, model, "Upgrade.on_upgrade", *INFERRED),
        ("scoped", "ws.send", 6, model, "Socket.send", *INFERRED),
        ("scoped", "Socket", 8, model, "Socket", *EXACT),
        ("scoped", "page.send", 9, model, "Socket.send", *INFERRED),
        # the block's ``page`` has ended: the parameter again
        ("scoped", "page.title", 11, model, "Page.title", *INFERRED),
        ("scoped", "page.title", 14, model, "Page.title", *INFERRED),  # not the arm's
        ("made", "model::Page", 19, model, "Page", *EXACT),
        ("made", "Page", 20, model, "Page", *EXACT),
        # ``T: Extract + Send``: of the bounds only Extract declares ``extract``
        ("extracted", "T::extract", 28, model, "Extract.extract", *EXACT),
    ]
    got = {(c[1], c[2]): c[6] for c in calls(graph, "src/lib.rs") if not c[3]}
    assert got[("page.title", 13)] == "external"  # the arm's ``page``: of ``Some(1)``, std
    assert got[("U::extract", 29)] == "unresolved"  # no bound of U declares it
    inside = [c for c in calls(graph, model) if c[3]]
    assert inside == [
        # ``Shape::Square { .. }`` constructs the enum's variant, no struct
        ("Holder.square", "Shape::Square", 35, model, "Shape.Square", *EXACT),
        # the bounds of the impl block the method sits in (not the struct's nor the other
        # impl's ``T``)
        ("Holder.get", "T::extract", 44, model, "Extract.extract", *EXACT),
    ]


# The Rust Reference, "Method call expressions" and "Implementations": a trait of the crate may
# be implemented for a type outside it (``impl RequestExt for http::Request<B>``); a method of
# a value of that type is then the trait's, where the trait is in scope.
FOREIGN = {
    "Cargo.toml": '[package]\nname = "ext"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "mod ext;\n"
        "mod plain;\n"
        "\n"
        "use crate::ext::{RequestExt, Size};\n"
        "use http::Request;\n"
        "\n"
        "pub fn handle(req: Request<()>, maybe: Option<Request<()>>) -> u32 {\n"
        "    req.method();\n"
        "    maybe.limit(); req.size();\n"
        "    req.name();\n"
        "    req.limit()\n"
        "}\n"
    ),
    "src/ext.rs": (
        "pub trait RequestExt {\n"
        "    fn limit(self) -> u32;\n"
        "\n"
        "    fn name(&self) -> u32 {\n"
        "        0\n"
        "    }\n"
        "}\n"
        "\n"
        "impl<B> RequestExt for http::Request<B> {\n"
        "    fn limit(self) -> u32 {\n"
        "        self.name()\n"
        "    }\n"
        "}\n"
        "\n"
        "pub trait Size {\n"
        "    fn size(&self) -> u32;\n"
        "}\n"
        "\n"
        "impl<B> Size for http::Request<B> {\n"
        "    fn size(&self) -> u32 {\n"
        "        Self::size(self)\n"
        "    }\n"
        "}\n"
    ),
    "src/plain.rs": ("pub fn other(req: http::Request<()>) -> u32 {\n    req.limit()\n}\n"),
}


def test_rust_methods_of_crate_traits_implemented_for_outside_types(tmp_path: Path) -> None:
    graph = build(tmp_path, FOREIGN)
    ext = "src/ext.rs"
    assert [c for c in calls(graph, "src/lib.rs") if c[3]] == [
        ("handle", "req.name", 10, ext, "RequestExt.name", *INFERRED),  # the trait's default
        ("handle", "req.limit", 11, ext, "http::Request.limit", *INFERRED),  # the impl's
    ]
    got = {c[1]: c[6] for c in calls(graph, "src/lib.rs") if not c[3]}
    # http's; an Option; the type's own ``size`` (the impl calls it), which comes first
    assert got == {"req.method": "external", "maybe.limit": "external", "req.size": "external"}
    assert [c for c in calls(graph, ext) if c[3]] == [
        ("http::Request.limit", "self.name", 11, ext, "RequestExt.name", *EXACT),
    ]
    # RequestExt is not in scope in plain.rs
    assert calls(graph, "src/plain.rs") == [("other", "req.limit", 2, "", "", 0.0, "unresolved")]


# The Rust Reference, "Use declarations" (2018 edition paths): a ``use`` path may start with a
# name in scope, an inline module or one a glob import brought in, not only a crate's name.
UNIFORM = {
    "Cargo.toml": '[package]\nname = "uni"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "mod helpers;\n"
        "mod tests;\n"
        "\n"
        "use clock::Stamp;\n"
        "use tokio::net::TcpListener;\n"
        "\n"
        "pub fn now() -> u32 {\n"
        "    TcpListener::bind();\n"
        "    Stamp::now()\n"
        "}\n"
        "\n"
        "mod clock {\n"
        "    pub struct Stamp;\n"
        "\n"
        "    impl Stamp {\n"
        "        pub fn now() -> u32 {\n"
        "            0\n"
        "        }\n"
        "    }\n"
        "}\n"
    ),
    "src/helpers/mod.rs": "pub(crate) mod counter;\n",
    "src/helpers/counter.rs": (
        "pub struct Counter;\n"
        "\n"
        "impl Counter {\n"
        "    pub fn new() -> Self {\n"
        "        Counter\n"
        "    }\n"
        "}\n"
    ),
    "src/tests.rs": (
        "use crate::helpers::*;\nuse counter::Counter;\n\nfn counts() {\n    Counter::new();\n}\n"
    ),
}


def test_rust_use_paths_from_names_in_scope(tmp_path: Path) -> None:
    graph = build(tmp_path, UNIFORM)
    assert calls(graph, "src/lib.rs") == [
        ("now", "TcpListener::bind", 8, "", "", 0.0, "external"),  # the tokio crate
        ("now", "Stamp::now", 9, "src/lib.rs", "clock.Stamp.now", *EXACT),  # inline ``mod``
    ]
    counter = "src/helpers/counter.rs"
    assert calls(graph, "src/tests.rs") == [
        ("counts", "Counter::new", 5, counter, "Counter.new", *EXACT)
    ]


# The Rust Reference, "Enumerations": a variant's name is its constructor (``Shape::Circle(1)``,
# ``Self::Empty``); ``matches!(v, Pat)`` and a ``select!`` / ``match`` arm's left side in a
# macro's tokens are patterns, which construct nothing.
VARIANTS = {
    "Cargo.toml": '[package]\nname = "var"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub enum Shape {\n"
        "    /// A circle.\n"
        "    Circle(u32),\n"
        "    Empty,\n"
        "}\n"
        "\n"
        "impl Shape {\n"
        "    pub fn area(&self) -> u32 {\n"
        "        0\n"
        "    }\n"
        "\n"
        "    pub fn unit() -> Self {\n"
        "        Self::Circle(1)\n"
        "    }\n"
        "}\n"
        "\n"
        "pub fn shapes(s: Shape) -> bool {\n"
        "    Shape::Circle(2).area();\n"
        "    tokio::select! {\n"
        "        Shape::Circle(r) = next() => r,\n"
        "    };\n"
        "    matches!(s, Shape::Circle(_))\n"
        "}\n"
    ),
}


def test_rust_enum_variants_are_constructors_and_macro_patterns_are_not(tmp_path: Path) -> None:
    graph = build(tmp_path, VARIANTS)
    (variant,) = graph.symbols("Shape.Circle")
    assert (variant["kind"], variant["docstring"]) == ("constant", "A circle.")
    assert calls(graph, "src/lib.rs") == [
        ("Shape.unit", "Self::Circle", 13, "src/lib.rs", "Shape.Circle", *EXACT),
        ("shapes", "Shape::Circle", 18, "src/lib.rs", "Shape.Circle", *EXACT),
        ("shapes", "Shape::Circle().area", 18, "src/lib.rs", "Shape.area", *INFERRED),
        ("shapes", "next", 20, "", "", 0.0, "unresolved"),  # the pattern left of ``=`` is none
    ]


# The Rust Reference, "Macros by example": an item ``handler_fn!(get, GET);`` expands to what
# the matching rule transcribes; a macro whose every rule binds ``$name:ident`` first and
# transcribes ``fn $name`` (directly or by invoking itself) defines function ``get`` there.
MACROS = {
    "Cargo.toml": '[package]\nname = "mac"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": (
        "pub struct Router;\n"
        "\n"
        "macro_rules! handler_fn {\n"
        "    ($name:ident, GET) => {\n"
        '        handler_fn!(#[doc = "GET"] $name, GET);\n'
        "    };\n"
        "    ($(#[$m:meta])+ $name:ident, $method:ident) => {\n"
        "        $(#[$m])+\n"
        "        pub fn $name(handler: u32) -> Router {\n"
        "            Router\n"
        "        }\n"
        "    };\n"
        "}\n"
        "\n"
        "macro_rules! chained_fn {\n"
        "    ($name:ident) => {\n"
        "        pub fn $name(self) -> Self {\n"
        "            self\n"
        "        }\n"
        "    };\n"
        "}\n"
        "\n"
        "macro_rules! other {\n"
        "    ($x:expr) => {\n"
        "        $x\n"
        "    };\n"
        "}\n"
        "\n"
        "handler_fn!(get, GET);\n"
        "\n"
        "impl Router {\n"
        "    chained_fn!(post);\n"
        "\n"
        "    pub fn route(self) -> Self {\n"
        "        self\n"
        "    }\n"
        "}\n"
        "\n"
        "other!(put);\n"
        "\n"
        "pub fn app() -> Router {\n"
        "    get(1).post().route()\n"
        "}\n"
    ),
}


def test_rust_functions_item_macros_define(tmp_path: Path) -> None:
    graph = build(tmp_path, MACROS)
    (get,) = graph.symbols("get")
    assert (get["kind"], get["line"], get["signature"], get["exported"]) == (
        "function",
        29,
        "pub fn get(handler: u32) -> Router",
        True,
    )
    assert [s["kind"] for s in graph.symbols("Router.post")] == ["method"]
    assert graph.symbols("put") == []  # ``other!`` defines no function
    assert calls(graph, "src/lib.rs") == [
        ("app", "get", 42, "src/lib.rs", "get", *EXACT),
        ("app", "get().post", 42, "src/lib.rs", "Router.post", *INFERRED),  # -> Router
        ("app", "get().post().route", 42, "src/lib.rs", "Router.route", *INFERRED),
    ]


def test_rust_macros_with_a_rule_expanding_to_other_items_define_nothing() -> None:
    source = (
        "macro_rules! item {\n"
        "    ($name:ident) => { pub fn $name() {} };\n"
        "    ($name:ident, unit) => { pub struct $name; };\n"
        "}\n"
        "item!(Marker, unit);\n"
    )
    f = extract("rust", "src/a.rs", source)
    assert [s.qualname for s in f.symbols] == []  # ``Marker`` is a struct here, no function
