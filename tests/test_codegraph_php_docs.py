"""PHP receivers typed by PHPDoc tags and by what the code proves in a block: phpDocumentor's
``@var`` / ``@param`` / ``@return`` (``Foo``, ``Foo[]``, ``array<K, Foo>``, ``list<Foo>``,
``Foo|null``), ``foreach`` and ``$xs[$k]`` over arrays so declared, nullable types (``?Foo``,
``Foo|null``), ``instanceof`` in an ``if`` condition and ``catch (Foo $e)`` (PHP manual, "Type
Operators", "Exceptions"), closures' own variables (PHP manual, "Anonymous functions"); what is
not proven (a union of classes, a container's ``get``, a variable assigned again in the block,
``$this`` in a closure handed to a call, which ``Closure::bind`` may rebind) stays unresolved
or external."""

from __future__ import annotations

from pathlib import Path

from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.php_docs import doc_params, doc_return, doc_type, doc_var

ROUTE = "src/Shop/Route.php"
ROUTER = "src/Shop/Router.php"
FILES = {
    ROUTE: (
        "<?php\n"
        "namespace Shop;\n"
        "\n"
        "interface RouteInterface\n"
        "{\n"
        "    /** @return string */\n"
        "    public function getName();\n"
        "    public function getGroup(): ?Group;\n"
        "}\n"
        "\n"
        "class Route implements RouteInterface\n"
        "{\n"
        "    public function getName() { return ''; }\n"
        "    public function getGroup(): ?Group { return null; }\n"
        "    public function run(): void {}\n"
        "}\n"
        "\n"
        "class Group { public function prefix(): string { return ''; } }\n"
        "\n"
        "trait Finds\n"
        "{\n"
        "    public static function make(): static { return new static(); }\n"
        "    public function first(): void { static::make(); }\n"
        "}\n"
        "\n"
        "class Missing extends \\RuntimeException\n"
        "{\n"
        "    public function explain(): string { return ''; }\n"
        "}\n"
    ),
    ROUTER: (
        "<?php\n"
        "namespace Shop;\n"
        "\n"
        "use Psr\\Container\\ContainerInterface;\n"
        "\n"
        "class Router\n"
        "{\n"
        "    use Finds;\n"
        "\n"
        "    /** @var RouteInterface[] */\n"
        "    private array $routes = [];\n"
        "    /** @var array<string, Route> */\n"
        "    private array $named = [];\n"
        "    private ContainerInterface $container;\n"
        "    private RouteInterface|Group $either;\n"
        "\n"
        "    /**\n"
        "     * @param Route[] $extra\n"
        "     * @param Route $one\n"
        "     */\n"
        "    public function find(array $extra, $one, ?Route $maybe, Route|null $other): void\n"
        "    {\n"
        "        foreach ($this->routes as $route) {\n"
        "            $route->getName();\n"
        "        }\n"
        "        foreach ($extra as $key => $each) {\n"
        "            $each->run();\n"
        "        }\n"
        "        $this->named['x']->run();\n"
        "        $found = $this->named['y'];\n"
        "        $found->run();\n"
        "        $one->run();\n"
        "        $maybe->run();\n"
        "        $other->run();\n"
        "        $this->either->prefix();\n"
        "        $this->container->get('x');\n"
        "        $this->lookup()->run();\n"
        "        $this->all()[0]->run();\n"
        "        \\Shop\\Router::make()->first();\n"
        "    }\n"
        "\n"
        "    /** @return Route */\n"
        "    public function lookup() { return new Route(); }\n"
        "\n"
        "    /** @return list<Route> */\n"
        "    public function all(): array { return []; }\n"
        "\n"
        "    public function guard(RouteInterface $given, \\Throwable $error): void\n"
        "    {\n"
        "        if ($given instanceof Route && $given->getGroup() !== null) {\n"
        "            $given->run();\n"
        "        }\n"
        "        $given->getGroup()->prefix();\n"
        "        try {\n"
        "            $given->getName();\n"
        "        } catch (Missing $e) {\n"
        "            $e->explain();\n"
        "        }\n"
        "        $fn = function (Group $given) {\n"
        "            $given->prefix();\n"
        "        };\n"
        "        $given->getName();\n"
        "        if ($error instanceof Missing) {\n"
        "            $error->explain();\n"
        "            $error = new Group();\n"
        "        }\n"
        "    }\n"
        "\n"
        "    public function hooks(): void\n"
        "    {\n"
        "        array_map(function () { return $this->lookup(); }, []);\n"
        "        $bound = function () { return $this->lookup(); };\n"
        "    }\n"
        "}\n"
    ),
}


def calls(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    return [
        tuple(r)
        for r in graph.store.query(
            "SELECT caller, callee, line, target_path, target_qualname, resolution"
            " FROM calls WHERE path=? ORDER BY line, callee",
            (path,),
        )
    ]


def test_phpdoc_types_as_the_resolver_reads_them() -> None:
    assert [
        doc_type(t)
        for t in (
            "Route",
            "\\Shop\\Route",
            "?Route",
            "Route|null",
            "Route[]",
            "array<Route>",
            "array<int, Route>",
            "list<Route>",
            "iterable<Route>",
            "Route[]|null",
            "$this",
            "static",
            "self",
            "Route|Group",
            "string",
            "int[]",
            "Collection<Route>",
        )
    ] == [
        "Route",
        "Shop.Route",
        "Route",
        "Route",
        "Route[]",
        "Route[]",
        "Route[]",
        "Route[]",
        "Route[]",
        "Route[]",
        "static",
        "static",
        "self",
        "",
        "",
        "",
        "",
    ]
    doc = "Finds.\n@param array<string, Route> $named the routes\n@param int ...$ids\n"
    doc += "@return ?Route"
    assert doc_params(doc) == {"named": "Route[]", "ids": ""}
    assert doc_return(doc) == "Route"
    assert doc_var("@var RouteInterface[] all of them") == "RouteInterface[]"


def test_php_calls_typed_by_docblocks_loops_and_narrowing(tmp_path: Path) -> None:
    for path, body in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    graph = CodeGraph.open(tmp_path)
    graph.index(history=False)
    find, lookup, guard = "Router.find", "Router.lookup", "Router.guard"
    run = (ROUTE, "Route.run", "inferred")
    assert calls(graph, ROUTER) == [
        # ``@var RouteInterface[]``: the interface's declaration
        (find, "route.getName", 24, ROUTE, "RouteInterface.getName", "inferred"),
        (find, "each.run", 27, *run),  # ``array $extra`` with ``@param Route[] $extra``
        (find, "this.named[].run", 29, *run),  # ``array<string, Route>``
        (find, "found.run", 31, *run),  # ``$found = $this->named['y']``
        (find, "one.run", 32, *run),  # an untyped parameter with ``@param Route $one``
        (find, "maybe.run", 33, *run),  # ``?Route``
        (find, "other.run", 34, *run),  # ``Route|null``
        (find, "this.either.prefix", 35, "", "", "unresolved"),  # a union of two classes
        (find, "this.container.get", 36, "", "", "external"),  # a PSR container
        (find, "this.lookup", 37, ROUTER, "Router.lookup", "exact"),
        (find, "this.lookup().run", 37, *run),  # ``@return Route``, no declared type
        (find, "this.all", 38, ROUTER, "Router.all", "exact"),
        (find, "this.all()[].run", 38, *run),  # ``: array`` with ``@return list<Route>``
        (find, "Shop.Router.make", 39, ROUTE, "Finds.make", "exact"),  # fully qualified
        (find, "Shop.Router.make().first", 39, ROUTE, "Finds.first", "inferred"),  # static
        (lookup, "Route", 43, ROUTE, "Route", "exact"),  # no __construct: the class
        (guard, "given.getGroup", 50, ROUTE, "RouteInterface.getGroup", "inferred"),
        (guard, "given.run", 51, *run),  # in the block of ``instanceof Route``
        (guard, "given.getGroup", 53, ROUTE, "RouteInterface.getGroup", "inferred"),
        (guard, "given.getGroup().prefix", 53, ROUTE, "Group.prefix", "inferred"),  # ?Group
        (guard, "given.getName", 55, ROUTE, "RouteInterface.getName", "inferred"),
        (guard, "e.explain", 57, ROUTE, "Missing.explain", "inferred"),  # catch (Missing $e)
        (guard, "given.prefix", 60, ROUTE, "Group.prefix", "inferred"),  # the closure's own
        (guard, "given.getName", 62, ROUTE, "RouteInterface.getName", "inferred"),
        # the block assigns ``$error`` again: not narrowed, a Throwable
        (guard, "error.explain", 64, "", "", "external"),
        (guard, "Group", 65, ROUTE, "Group", "exact"),
        ("Router.hooks", "array_map", 71, "", "", "unresolved"),
        # a closure handed to a call may be bound to another object: ``$this`` unproven
        ("Router.hooks", "this.lookup", 71, "", "", "unresolved"),
        ("Router.hooks", "this.lookup", 72, ROUTER, "Router.lookup", "exact"),
    ]
    assert calls(graph, ROUTE) == [
        ("Finds.first", "self.make", 23, ROUTE, "Finds.make", "exact"),  # static:: in a trait
    ]


ASSERTING = "tests/RouterTest.php"
ASSERTING_BODY = (
    "<?php\n"
    "namespace Shop;\n"
    "\n"
    "use PHPUnit\\Framework\\Assert;\n"
    "use PHPUnit\\Framework\\TestCase;\n"
    "\n"
    "class RouterTest extends TestCase\n"
    "{\n"
    "    private $held;\n"
    "\n"
    "    public function testFound($router, $other, $third, $fourth): void\n"
    "    {\n"
    "        $route = $router->lookup();\n"
    "        $route->run();\n"
    "        $this->assertInstanceOf(Route::class, $route);\n"
    "        $route->run();\n"
    "        self::assertInstanceOf(\\Shop\\Group::class, $other, 'a group');\n"
    "        $other->prefix();\n"
    "        Assert::assertInstanceOf(Route::class, $third);\n"
    "        $third->run();\n"
    "        assert($fourth instanceof Missing);\n"
    "        $fourth->explain();\n"
    "        $this->assertInstanceOf(Route::class, $this->held);\n"
    "        $this->held->run();\n"
    "        $fn = function () use ($route) { $route->run(); };\n"
    "    }\n"
    "\n"
    "    public function testNotProven($a, $b, $c, $d, $e): void\n"
    "    {\n"
    "        if ($d) {\n"
    "            $this->assertInstanceOf(Route::class, $a);\n"
    "        }\n"
    "        $a->run();\n"
    "        $this->assertInstanceOf(Route::class, $b);\n"
    "        $b->run();\n"
    "        $b = new Group();\n"
    "        $other = new Group();\n"
    "        $other->assertInstanceOf(Route::class, $c);\n"
    "        $c->run();\n"
    "        $this->assertNotInstanceOf(Route::class, $d);\n"
    "        $d->run();\n"
    "        if ($e instanceof Route) {\n"
    "            $e->run();\n"
    "        }\n"
    "        $e->run();\n"
    "    }\n"
    "}\n"
)


def test_php_receivers_typed_by_assertions(tmp_path: Path) -> None:
    """PHPUnit's ``assertInstanceOf(string $expected, mixed $actual)`` "reports an error ...
    if $actual is not an instance of $expected" (PHPUnit manual, "Assertions"), and
    ``assert($x instanceof Foo)`` (PHP manual, "assert"): ``$x`` is a ``Foo`` in the rest of
    the block. Not in a nested block, not where the block assigns it again, not on another
    object's method, not for ``assertNotInstanceOf``."""
    for path, body in {**FILES, ASSERTING: ASSERTING_BODY}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    graph = CodeGraph.open(tmp_path)
    graph.index(history=False)
    found, unproven = "RouterTest.testFound", "RouterTest.testNotProven"
    run = (ROUTE, "Route.run", "inferred")
    resolved = [c for c in calls(graph, ASSERTING) if c[3] or c[1].endswith(".run")]
    assert resolved == [
        (found, "route.run", 14, "", "", "unresolved"),  # before the assertion
        (found, "route.run", 16, *run),
        (found, "other.prefix", 18, ROUTE, "Group.prefix", "inferred"),  # fully qualified
        (found, "third.run", 20, *run),  # ``Assert::assertInstanceOf``
        (found, "fourth.explain", 22, ROUTE, "Missing.explain", "inferred"),  # ``assert()``
        (found, "this.held.run", 24, *run),  # a property
        (found, "route.run", 25, *run),  # captured by a closure after the assertion
        (unproven, "a.run", 33, "", "", "unresolved"),  # asserted in a nested block only
        (unproven, "b.run", 35, "", "", "unresolved"),  # assigned again after
        (unproven, "Group", 36, ROUTE, "Group", "exact"),
        (unproven, "Group", 37, ROUTE, "Group", "exact"),
        (unproven, "c.run", 39, "", "", "unresolved"),  # another object's method
        (unproven, "d.run", 41, "", "", "unresolved"),  # ``assertNotInstanceOf``
        (unproven, "e.run", 43, *run),  # in the ``instanceof`` block
        # untyped but for the block: not the generic resolver's guess from the block's type
        (unproven, "e.run", 45, "", "", "unresolved"),
    ]
