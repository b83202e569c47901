"""C# and PHP in the code graph (issue #18): each language's extractor on a small fixture
repository written into tmp_path, with its definitions, docs, imports, calls (and their
confidence), dependencies and supertype edges stated exactly, plus ``clawql code status``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.files import load_extractors
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.indexer import WorkTree
from clawql_git.codegraph.model import FileFacts
from clawql_git.codegraph.resolve import Resolver

CS = {
    "src/Models/User.cs": (
        "namespace App.Models;\n"
        "\n"
        '/// <summary>A user of the <see cref="App"/>.</summary>\n'
        "public class User : Entity, IComparable\n"
        "{\n"
        "    public string Name { get; set; }\n"
        "    public void Save() { }\n"
        "}\n"
        "\n"
        "public abstract class Entity { }\n"
        "\n"
        "public interface IRepo : IDisposable\n"
        "{\n"
        "    User Get(int id);\n"
        "}\n"
    ),
    "src/Services/UserService.cs": (
        "using System;\n"
        "using App.Models;\n"
        "using Store = App.Models.IRepo;\n"
        "using App.Legacy;\n"
        "\n"
        "namespace App.Services\n"
        "{\n"
        "    /// <summary>\n"
        "    /// Finds users.\n"
        "    /// </summary>\n"
        "    [Serializable]\n"
        "    public class UserService : BaseService, IService\n"
        "    {\n"
        "        private readonly Store _repo;\n"
        "\n"
        "        public UserService(Store repo) { _repo = repo; }\n"
        "\n"
        "        /// <summary>Finds one.</summary>\n"
        "        public User Find(int id)\n"
        "        {\n"
        "            var user = new User();\n"
        "            user.Save();\n"
        "            this._repo.Get(id);\n"
        "            Helper.Run<int>();\n"
        '            Log("x");\n'
        "            Console.WriteLine(id);\n"
        "            new Old().Touch();\n"
        "            return user;\n"
        "        }\n"
        "\n"
        "        private void Log(string m) { }\n"
        "    }\n"
        "\n"
        "    public record Point(int X, int Y);\n"
        "    public record struct Pair(int A);\n"
        "    public struct Size : IEquatable<Size> { }\n"
        "    public enum Color { Red, Green }\n"
        "}\n"
    ),
    "src/Services/Base.cs": (
        "namespace App.Services;\n"
        "\n"
        "public class BaseService { }\n"
        "public interface IService { }\n"
        "public static class Helper { public static void Run<T>() { } }\n"
    ),
    "src/Legacy.cs": (
        "namespace App\n"
        "{\n"
        "    namespace Legacy\n"
        "    {\n"
        "        internal class Old { public void Touch() { } }\n"
        "    }\n"
        "}\n"
    ),
}
US = "src/Services/UserService.cs"
UM = "src/Models/User.cs"

PHP = {
    "src/Models/User.php": (
        "<?php\n"
        "/** The models. */\n"
        "namespace App\\Models;\n"
        "\n"
        "use Illuminate\\Database\\Eloquent\\Model;\n"
        "\n"
        "/**\n"
        " * A user.\n"
        " */\n"
        "class User extends Model implements HasName\n"
        "{\n"
        "    use Greets;\n"
        "\n"
        "    public static function find(int $id): self { return new self(); }\n"
        "    public function save(): void { $this->greet(); }\n"
        "}\n"
        "\n"
        "interface HasName { public function name(): string; }\n"
        "\n"
        "trait Greets { public function greet(): void {} }\n"
    ),
    "src/Http/UserController.php": (
        "<?php\n"
        "namespace App\\Http;\n"
        "\n"
        "use App\\Models\\User;\n"
        "use App\\Models\\{HasName, Greets as G};\n"
        "use function App\\Support\\format;\n"
        "require_once __DIR__ . '/../../lib/helpers.php';\n"
        "\n"
        "class UserController extends Controller implements HasName, \\Countable\n"
        "{\n"
        "    use G;\n"
        "\n"
        "    public function __construct(private Repo $repo) {}\n"
        "\n"
        "    /** Show one user. */\n"
        "    public function show(int $id): string\n"
        "    {\n"
        "        $user = User::find($id);\n"
        "        $this->repo->all();\n"
        "        $this->render();\n"
        "        helper();\n"
        "        format($id);\n"
        "        $c = new Controller();\n"
        "        static::boot();\n"
        "        strlen('x');\n"
        "        $made = new User();\n"
        "        $made->save();\n"
        "        return '';\n"
        "    }\n"
        "\n"
        "    private function render(): void {}\n"
        "    public static function boot(): void {}\n"
        "    public function name(): string { return ''; }\n"
        "}\n"
    ),
    "src/Http/Controller.php": (
        "<?php\n"
        "namespace App\\Http;\n"
        "\n"
        "abstract class Controller {}\n"
        "\n"
        "class Repo { public function all(): array { return []; } }\n"
    ),
    "src/Support/format.php": (
        "<?php\nnamespace App\\Support;\n\nfunction format($v) { return $v; }\n"
    ),
    "lib/helpers.php": "<?php\nfunction helper() {}\ninclude 'boot.php';\n",
    "lib/boot.php": "<?php\n",
}
UC = "src/Http/UserController.php"
PM = "src/Models/User.php"


def build(root: Path, files: dict[str, str]) -> CodeGraph:
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body)
    graph = CodeGraph.open(root)
    graph.index(history=False)
    return graph


def extract(language: str, path: str, source: str | bytes) -> FileFacts:
    raw = source.encode() if isinstance(source, str) else source
    return load_extractors()[language].extract(path, raw, language)


def symbols(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    return [
        tuple(r)
        for r in graph.store.query(
            "SELECT qualname, kind, line, end_line, exported, signature, docstring FROM symbols"
            " WHERE path=? ORDER BY line, qualname",
            (path,),
        )
    ]


def calls(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    return [
        tuple(r)
        for r in graph.store.query(
            "SELECT caller, callee, line, target_path, target_qualname, confidence, resolution"
            " FROM calls WHERE path=? ORDER BY line, callee",
            (path,),
        )
    ]


def deps(graph: CodeGraph) -> set[tuple[object, ...]]:
    return {tuple(r) for r in graph.store.query("SELECT path, target, module FROM deps")}


def supertypes(graph: CodeGraph) -> set[tuple[object, ...]]:
    return {
        tuple(r)
        for r in graph.store.query(
            "SELECT child_path, child_qualname, base, relation, line, target_path,"
            " target_qualname, resolution FROM supertypes"
        )
    }


# --------------------------------------------------------------------------- C#


def test_csharp_namespaces_types_members_and_xml_docs(tmp_path: Path) -> None:
    graph = build(tmp_path, CS)
    assert symbols(graph, UM) == [
        ("App.Models", "module", 1, 1, 1, "namespace App.Models", ""),
        ("User", "class", 4, 8, 1, "public class User : Entity, IComparable", "A user of the App."),
        ("User.Name", "variable", 6, 6, 1, "public string Name", ""),
        ("User.Save", "method", 7, 7, 1, "public void Save()", ""),
        ("Entity", "class", 10, 10, 1, "public abstract class Entity", ""),
        ("IRepo", "interface", 12, 15, 1, "public interface IRepo : IDisposable", ""),
        ("IRepo.Get", "method", 14, 14, 1, "User Get(int id)", ""),
    ]
    assert symbols(graph, US) == [
        ("App.Services", "module", 6, 38, 1, "namespace App.Services", ""),
        (
            "UserService",
            "class",
            11,
            32,
            1,
            "public class UserService : BaseService, IService",
            "Finds users.",
        ),
        ("UserService._repo", "variable", 14, 14, 0, "private readonly Store _repo", ""),
        ("UserService.UserService", "method", 16, 16, 1, "public UserService(Store repo)", ""),
        ("UserService.Find", "method", 19, 29, 1, "public User Find(int id)", "Finds one."),
        ("UserService.Log", "method", 31, 31, 0, "private void Log(string m)", ""),
        ("Point", "class", 34, 34, 1, "public record Point(int X, int Y)", ""),
        ("Pair", "struct", 35, 35, 1, "public record struct Pair(int A)", ""),
        ("Size", "struct", 36, 36, 1, "public struct Size : IEquatable<Size>", ""),
        ("Color", "enum", 37, 37, 1, "public enum Color", ""),
    ]
    assert symbols(graph, "src/Legacy.cs") == [  # a nested block namespace has its full name
        ("App", "module", 1, 7, 1, "namespace App", ""),
        ("App.Legacy", "module", 3, 6, 1, "namespace App.Legacy", ""),
        ("Old", "class", 5, 5, 0, "internal class Old", ""),
        ("Old.Touch", "method", 5, 5, 1, "public void Touch()", ""),
    ]
    facts = extract("csharp", US, CS[US])
    assert [s.decorators for s in facts.symbols if s.name == "UserService"] == [
        ("Serializable",),
        (),  # the constructor
    ]


def test_csharp_usings_are_imports_resolved_to_namespaces_of_the_repo(tmp_path: Path) -> None:
    f = extract("csharp", US, CS[US])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("System", "*", "", 1),
        ("App.Models", "*", "", 2),
        ("App.Models", "IRepo", "Store", 3),
        ("App.Legacy", "*", "", 4),
    ]
    graph = build(tmp_path, CS)
    assert deps(graph) == {  # System is external: no file
        (US, "src/Legacy.cs", "App.Legacy"),
        (US, UM, "App.Models"),
    }


def test_csharp_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, CS)
    assert calls(graph, US) == [
        ("UserService.Find", "User", 21, UM, "User", 1.0, "exact"),
        ("UserService.Find", "user.Save", 22, UM, "User.Save", 0.8, "inferred"),
        ("UserService.Find", "this._repo.Get", 23, UM, "IRepo.Get", 0.8, "inferred"),
        # a type of the file's own namespace, declared in another file, needs no using
        ("UserService.Find", "Helper.Run", 24, "src/Services/Base.cs", "Helper.Run", 1.0, "exact"),
        ("UserService.Find", "Log", 25, US, "UserService.Log", 1.0, "exact"),
        ("UserService.Find", "Console.WriteLine", 26, "", "", 0.0, "unresolved"),
        ("UserService.Find", "Old", 27, "src/Legacy.cs", "Old", 1.0, "exact"),
        ("UserService.Find", "Old().Touch", 27, "src/Legacy.cs", "Old.Touch", 0.8, "inferred"),
    ]


def test_csharp_bases_and_interfaces_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, CS)
    base = "src/Services/Base.cs"
    assert supertypes(graph) == {
        (UM, "User", "Entity", "extends", 4, UM, "Entity", "exact"),
        (UM, "User", "IComparable", "implements", 4, "", "", "unresolved"),
        (UM, "IRepo", "IDisposable", "extends", 12, "", "", "unresolved"),
        (US, "UserService", "BaseService", "extends", 12, base, "BaseService", "exact"),
        (US, "UserService", "IService", "implements", 12, base, "IService", "exact"),
        (US, "Size", "IEquatable", "implements", 36, "", "", "unresolved"),
    }
    up = graph.hierarchy("UserService", direction="up")
    assert [(e["base"], f"{e['base_file']}:{e['base_qualname']}") for e in up.items] == [
        ("BaseService", f"{base}:BaseService"),
        ("IService", f"{base}:IService"),
    ]


def test_csharp_file_scoped_namespace_attributes_and_external_roots(tmp_path: Path) -> None:
    source = (
        "namespace Web.Api;\n"
        "[Route(nameof(Health))]\n"
        "public sealed class Health : System.IDisposable\n"
        "{\n"
        "    /** Block doc. */\n"
        "    public int Count => Compute();\n"
        "    public const int Max = 3;\n"
        "}\n"
    )
    f = extract("csharp", "Health.cs", source)
    assert [(s.qualname, s.kind, s.docstring, s.decorators) for s in f.symbols] == [
        ("Web.Api", "module", "", ()),
        ("Health", "class", "", ("Route(nameof(Health))",)),
        ("Health.Count", "variable", "Block doc.", ()),
        ("Health.Max", "constant", "", ()),
    ]
    assert [(c.callee, c.caller, c.context) for c in f.calls] == [
        ("nameof", "", "decorator"),
        ("Compute", "Health.Count", "body"),
    ]
    assert [(s.child, s.base, s.relation) for s in f.supertypes] == [
        ("Health", "System.IDisposable", "implements")  # named like an interface
    ]
    graph = build(tmp_path, {"Health.cs": source})
    assert supertypes(graph) == {
        ("Health.cs", "Health", "System.IDisposable", "implements", 3, "", "", "external")
    }


def test_csharp_namespaces_using_each_other_and_a_file_edited(tmp_path: Path) -> None:
    """Two namespaces whose usings form a cycle: a name neither defines stays unresolved, and
    once an edit defines it (the watcher's path: the same resolver, new facts) it resolves."""
    caller = (
        "using App.B;\nnamespace App.A;\n"
        "public class Caller { void M() { Helper.Run(); Missing.Go(); } }\n"
    )
    before = "using App.A;\nnamespace App.B;\npublic class Other {}\n"
    after = before + "public class Helper { public static void Run() {} }\n"
    sources = {"A.cs": caller, "B.cs": before}
    for path, body in sources.items():
        (tmp_path / path).write_text(body)
    facts = {path: extract("csharp", path, body) for path, body in sources.items()}
    resolver = Resolver(facts, load_extractors(), WorkTree(tmp_path, frozenset(facts)))

    def resolved() -> list[tuple[str, str, str]]:
        return [(e.callee, e.target_qualname, e.resolution) for e in resolver.edges("A.cs")]

    assert resolved() == [("Helper.Run", "", "unresolved"), ("Missing.Go", "", "unresolved")]
    (tmp_path / "B.cs").write_text(after)
    resolver.replace(extract("csharp", "B.cs", after))
    assert resolved() == [
        ("Helper.Run", "Helper.Run", "exact"),
        ("Missing.Go", "", "unresolved"),
    ]


# --------------------------------------------------------------------------- PHP


def test_php_namespaces_classes_traits_functions_and_phpdoc(tmp_path: Path) -> None:
    graph = build(tmp_path, PHP)
    assert symbols(graph, PM) == [
        ("App\\Models", "module", 3, 3, 1, "namespace App\\Models", "The models."),
        ("User", "class", 10, 16, 1, "class User extends Model implements HasName", "A user."),
        ("User.find", "method", 14, 14, 1, "public static function find(int $id): self", ""),
        ("User.save", "method", 15, 15, 1, "public function save(): void", ""),
        ("HasName", "interface", 18, 18, 1, "interface HasName", ""),
        ("HasName.name", "method", 18, 18, 1, "public function name(): string", ""),
        ("Greets", "trait", 20, 20, 1, "trait Greets", ""),
        ("Greets.greet", "method", 20, 20, 1, "public function greet(): void", ""),
    ]
    signature = "class UserController extends Controller implements HasName, \\Countable"
    assert symbols(graph, UC) == [
        ("App\\Http", "module", 2, 2, 1, "namespace App\\Http", ""),
        ("UserController", "class", 9, 34, 1, signature, ""),
        (
            "UserController.__construct",
            "method",
            13,
            13,
            1,
            "public function __construct(private Repo $repo)",
            "",
        ),
        (
            "UserController.show",
            "method",
            16,
            29,
            1,
            "public function show(int $id): string",
            "Show one user.",
        ),
        ("UserController.render", "method", 31, 31, 0, "private function render(): void", ""),
        ("UserController.boot", "method", 32, 32, 1, "public static function boot(): void", ""),
        ("UserController.name", "method", 33, 33, 1, "public function name(): string", ""),
    ]
    assert symbols(graph, "lib/helpers.php") == [
        ("helper", "function", 2, 2, 1, "function helper()", "")
    ]


def test_php_use_and_require_resolve_to_files(tmp_path: Path) -> None:
    f = extract("php", UC, PHP[UC])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("App\\Models\\User", "User", "User", 4),
        ("App\\Models\\HasName", "HasName", "HasName", 5),
        ("App\\Models\\Greets", "Greets", "G", 5),
        ("App\\Support", "format", "format", 6),
        ("../../lib/helpers.php", "*", "", 7),
    ]
    graph = build(tmp_path, PHP)
    assert deps(graph) == {  # Illuminate\...\Model is not in the repository: external
        ("lib/helpers.php", "lib/boot.php", "boot.php"),
        (UC, "lib/helpers.php", "../../lib/helpers.php"),
        (UC, PM, "App\\Models\\User"),
        (UC, "src/Support/format.php", "App\\Support"),
    }


def test_php_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, PHP)
    ctl, show = "src/Http/Controller.php", "UserController.show"
    assert calls(graph, UC) == [
        (show, "User.find", 18, PM, "User.find", 1.0, "exact"),
        (show, "this.repo.all", 19, ctl, "Repo.all", 0.8, "inferred"),  # promoted parameter
        (show, "this.render", 20, UC, "UserController.render", 1.0, "exact"),
        (show, "helper", 21, "lib/helpers.php", "helper", 1.0, "exact"),  # through require
        (show, "format", 22, "src/Support/format.php", "format", 1.0, "exact"),  # use function
        (show, "Controller", 23, ctl, "Controller", 1.0, "exact"),  # same namespace, no use
        (show, "self.boot", 24, UC, "UserController.boot", 1.0, "exact"),  # static::
        (show, "strlen", 25, "", "", 0.0, "unresolved"),
        (show, "User", 26, PM, "User", 1.0, "exact"),
        (show, "made.save", 27, PM, "User.save", 0.8, "inferred"),
    ]
    assert calls(graph, PM) == [  # a trait's method is a member of the class using it
        ("User.save", "this.greet", 15, PM, "Greets.greet", 1.0, "exact")
    ]


def test_php_extends_implements_and_trait_uses_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, PHP)
    ctl = "src/Http/Controller.php"
    assert supertypes(graph) == {
        (UC, "UserController", "Controller", "extends", 9, ctl, "Controller", "exact"),
        (UC, "UserController", "HasName", "implements", 9, PM, "HasName", "exact"),
        (UC, "UserController", "Countable", "implements", 9, "", "", "unresolved"),
        (UC, "UserController", "G", "uses", 11, PM, "Greets", "exact"),
        (PM, "User", "Model", "extends", 10, "", "", "external"),
        (PM, "User", "HasName", "implements", 10, PM, "HasName", "exact"),
        (PM, "User", "Greets", "uses", 12, PM, "Greets", "exact"),
    }
    down = graph.hierarchy("Greets", direction="down")
    assert sorted((e["child"], e["relation"]) for e in down.items) == [
        (f"{UC}:UserController", "uses"),
        (f"{PM}:User", "uses"),
    ]


def test_php_html_around_tags_block_namespaces_and_group_use_functions() -> None:
    source = (
        "<html><?php\n"
        "namespace Lib {\n"
        "    use function Lib\\Str\\{upper, lower as low};\n"
        "    final class Box { const SIZE = 2; public ?Box $next = null; }\n"
        "    function make(): Box { $b = new \\Lib\\Box(); return $b; }\n"
        "}\n"
        "?></html>\n"
    )
    f = extract("php", "box.php", source)
    assert f.errors == 0
    assert [(s.qualname, s.kind, s.line) for s in f.symbols] == [
        ("Lib", "module", 2),
        ("Box", "class", 4),
        ("Box.SIZE", "constant", 4),
        ("Box.next", "variable", 4),
        ("make", "function", 5),
    ]
    assert [(i.module, i.name, i.alias) for i in f.imports] == [
        ("Lib\\Str", "upper", "upper"),
        ("Lib\\Str", "lower", "low"),
    ]
    assert [(c.callee, c.caller) for c in f.calls] == [("Lib.Box", "make")]
    assert [(a.target, a.value, a.scope) for a in f.assignments] == [
        ("next", "Box", "Box"),
        ("b", "Lib.Box", "make"),
    ]


def test_php_attributes_are_decorators_with_their_calls() -> None:
    source = "<?php\n#[Route('/x', name: make())]\nclass A { #[Pure] public function m() {} }\n"
    f = extract("php", "a.php", source)
    assert [(s.qualname, s.decorators) for s in f.symbols] == [
        ("A", ("Route('/x', name: make())",)),
        ("A.m", ("Pure",)),
    ]
    assert [(c.callee, c.caller, c.context) for c in f.calls] == [("make", "", "decorator")]


# --------------------------------------------------------------------------- PHP: typed calls
# receivers typed by declarations (php_resolve), in the forms of the PHP manual


PHP_TYPED = {
    "src/Shop/Logger.php": (
        "<?php\n"
        "namespace Shop;\n"
        "\n"
        "interface Logger { public function log(string $m): void; }\n"
        "\n"
        "trait Counts { public function count(): int { return 0; } }\n"
        "\n"
        "class Base\n"
        "{\n"
        "    public function __construct() {}\n"
        "    public function boot(): static { return $this; }\n"
        "}\n"
    ),
    "src/Shop/Cart.php": (
        "<?php\n"
        "namespace Shop;\n"
        "\n"
        "use Shop\\Logger as Log;\n"
        "\n"
        "class Cart extends Base\n"
        "{\n"
        "    use Counts;\n"
        "\n"
        "    private Log $log;\n"
        "    /** @var Item */\n"
        "    private $last;\n"
        "\n"
        "    public function __construct(private Item $item, Log $log)\n"
        "    {\n"
        "        parent::__construct();\n"
        "        $this->log = $log;\n"
        "    }\n"
        "\n"
        "    public function add(Item $other): self\n"
        "    {\n"
        "        $this->item->price();\n"
        "        $this->log->log('x');\n"
        "        $this->last->price();\n"
        "        $other->price();\n"
        "        $made = new Item();\n"
        "        $made->price();\n"
        "        /** @var Item $found */\n"
        "        $found = lookup();\n"
        "        $found->price();\n"
        "        $this->count();\n"
        "        $this->boot()->add($other);\n"
        "        (new Item())->price();\n"
        "        Item::make()->price();\n"
        "        $route = 1;\n"
        "        $route->price();\n"
        "        return $this;\n"
        "    }\n"
        "}\n"
        "\n"
        "class Item\n"
        "{\n"
        "    public static function make(): self { return new self(); }\n"
        "    public function price(): int { return 1; }\n"
        "}\n"
    ),
}


def test_php_calls_typed_by_declarations(tmp_path: Path) -> None:
    graph = build(tmp_path, PHP_TYPED)
    cart, base = "src/Shop/Cart.php", "src/Shop/Logger.php"
    ctor, add = "Cart.__construct", "Cart.add"
    price = (cart, "Item.price", 0.8, "inferred")
    assert calls(graph, cart) == [
        (ctor, "parent.__construct", 16, base, "Base.__construct", 1.0, "exact"),
        (add, "this.item.price", 22, *price),  # promoted constructor parameter
        (add, "this.log.log", 23, base, "Logger.log", 0.8, "inferred"),  # typed, use ... as
        (add, "this.last.price", 24, *price),  # @var docblock of the property
        (add, "other.price", 25, *price),  # typed parameter
        (add, "Item", 26, cart, "Item", 1.0, "exact"),  # no __construct: the class
        (add, "made.price", 27, *price),  # $made = new Item()
        (add, "lookup", 29, "", "", 0.0, "unresolved"),
        (add, "found.price", 30, *price),  # inline @var
        (add, "this.count", 31, base, "Counts.count", 1.0, "exact"),  # a trait's method
        (add, "this.boot", 32, base, "Base.boot", 1.0, "exact"),
        (add, "this.boot().add", 32, cart, "Cart.add", 0.8, "inferred"),  # ": static"
        (add, "Item", 33, cart, "Item", 1.0, "exact"),
        (add, "new Item().price", 33, *price),
        (add, "Item.make", 34, cart, "Item.make", 1.0, "exact"),
        (add, "Item.make().price", 34, *price),  # ": self"
        (add, "route.price", 36, "", "", 0.0, "unresolved"),  # $route is no Route class
    ]
    assert calls(graph, base) == []


# --------------------------------------------------------------------------- both


@pytest.mark.parametrize(
    ("language", "source", "first"),
    [
        ("csharp", b"class A { void Ok() { Go(); } void Broken( { \xff }\nclass B {}\n", "Ok"),
        ("php", b"<?php\nfunction ok() { go(); }\nfunction broken( {\n\xff\n", "ok"),
    ],
)
def test_syntax_errors_and_bad_bytes_are_counted_not_fatal(
    language: str, source: bytes, first: str
) -> None:
    f = extract(language, "broken", source)
    assert f.errors > 0
    assert first in {s.name for s in f.symbols}


def test_code_status_lists_the_languages_indexed(tmp_path: Path) -> None:
    build(tmp_path, {**CS, **PHP})
    runner = CliRunner()
    done = runner.invoke(cli, ["code", "status", "-C", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["languages"] == {"csharp": 4, "php": 6}
    text = runner.invoke(cli, ["code", "status", "-C", str(tmp_path)])
    assert "languages: csharp 4, php 6" in text.output.splitlines()


# --------------------------------------------------------------------------- C# call resolution

CS_TYPED = {
    "Shop/Orders.cs": (
        "namespace Shop;\n"
        "\n"
        "public interface IRepository { Order Find(int id); void Add(Order o); }\n"
        "\n"
        "public class Entity { public virtual void Touch() { } }\n"
        "\n"
        "public class Order : Entity\n"
        "{\n"
        "    public Order() { }\n"
        "    public Order(int id) { }\n"
        "    public Customer Buyer { get; set; }\n"
        "    public Order Ship() => this;\n"
        "    public override void Touch() { base.Touch(); }\n"
        "    public static Order Create(int id) => new Order(id);\n"
        "}\n"
        "\n"
        'public class Customer { public string Greet() => "hi"; }\n'
        "\n"
        "public static class OrderExtensions\n"
        "{\n"
        "    public static int Total(this Order order, int tax) => tax;\n"
        "}\n"
    ),
    "Shop/Service.cs": (
        "namespace Shop;\n"
        "\n"
        "public class OrderService\n"
        "{\n"
        "    private readonly IRepository _repository;\n"
        "\n"
        "    public OrderService(IRepository repository) { _repository = repository; }\n"
        "\n"
        "    public void Run(Order given)\n"
        "    {\n"
        "        Order typed = _repository.Find(1);\n"
        "        var made = new Order(2);\n"
        "        var built = Order.Create(3);\n"
        "        typed.Ship().Buyer.Greet();\n"
        "        made.Touch();\n"
        "        built.Total(5);\n"
        "        given.Ship();\n"
        "        this._repository.Add(made);\n"
        "        System.Console.WriteLine(typed);\n"
        "    }\n"
        "}\n"
    ),
}


def test_csharp_receivers_typed_by_declarations(tmp_path: Path) -> None:
    graph = build(tmp_path, CS_TYPED)
    orders, service = "Shop/Orders.cs", "Shop/Service.cs"
    run = "OrderService.Run"
    assert calls(graph, service) == [
        (run, "_repository.Find", 11, orders, "IRepository.Find", 0.8, "inferred"),
        # ``new Order(2)``: the constructor taking one argument
        (run, "Order", 12, orders, "Order.Order", 1.0, "exact"),
        (run, "Order.Create", 13, orders, "Order.Create", 1.0, "exact"),
        (run, "typed.Ship", 14, orders, "Order.Ship", 0.8, "inferred"),
        (run, "typed.Ship().Buyer.Greet", 14, orders, "Customer.Greet", 0.8, "inferred"),
        (run, "made.Touch", 15, orders, "Order.Touch", 0.8, "inferred"),
        # ``var built = Order.Create(3)``: typed by Create's return type; an extension method
        (run, "built.Total", 16, orders, "OrderExtensions.Total", 0.8, "inferred"),
        (run, "given.Ship", 17, orders, "Order.Ship", 0.8, "inferred"),
        (run, "this._repository.Add", 18, orders, "IRepository.Add", 0.8, "inferred"),
        (run, "System.Console.WriteLine", 19, "", "", 0.0, "external"),
    ]
    assert [c for c in calls(graph, orders) if c[0] != "Order.Create"] == [
        ("Order.Touch", "base.Touch", 13, orders, "Entity.Touch", 1.0, "exact"),
    ]


def test_csharp_overloads_by_argument_count_loops_and_a_bom(tmp_path: Path) -> None:
    """Overloads with different return types are told apart by argument count; ``var n =
    new Node()`` declares ``n`` a Node, so ``n = n.Next()`` in a loop changes nothing (and
    types nothing circularly); a file starting with a BOM is still read as declaring its
    namespace (so ``using`` reaches it)."""
    files = {
        "Lib/Node.cs": (
            "\ufeffnamespace Lib.Nodes;\n"
            "public class Node\n"
            "{\n"
            "    public Node Next() => this;\n"
            "    public Leaf Next(int skip) => new Leaf();\n"
            "}\n"
            "public class Leaf { public void Fall() { } }\n"
        ),
        "App/Walk.cs": (
            "using Lib.Nodes;\n"
            "namespace App;\n"
            "class Walk\n"
            "{\n"
            "    void Go()\n"
            "    {\n"
            "        var n = new Node();\n"
            "        n.Next(2).Fall();\n"
            "        while (true) { n = n.Next(); }\n"
            "        new Node().Next().Next(1).Fall();\n"
            "    }\n"
            "}\n"
        ),
    }
    graph = build(tmp_path, files)
    node = "Lib/Node.cs"
    assert calls(graph, "App/Walk.cs") == [
        ("Walk.Go", "Node", 7, node, "Node", 1.0, "exact"),
        ("Walk.Go", "n.Next", 8, node, "Node.Next", 0.8, "inferred"),
        ("Walk.Go", "n.Next().Fall", 8, node, "Leaf.Fall", 0.8, "inferred"),
        ("Walk.Go", "n.Next", 9, node, "Node.Next", 0.8, "inferred"),
        ("Walk.Go", "Node", 10, node, "Node", 1.0, "exact"),
        ("Walk.Go", "Node().Next", 10, node, "Node.Next", 0.8, "inferred"),
        ("Walk.Go", "Node().Next().Next", 10, node, "Node.Next", 0.8, "inferred"),
        ("Walk.Go", "Node().Next().Next().Fall", 10, node, "Leaf.Fall", 0.8, "inferred"),
    ]


def test_csharp_extension_method_on_a_type_outside_the_repository(tmp_path: Path) -> None:
    """``services.AddShop()`` where ``services`` is declared ``IServiceCollection`` (not a type
    of the repository): the one extension ``AddShop(this IServiceCollection s)`` in scope."""
    files = {
        "Shop/Setup.cs": (
            "using Microsoft.Extensions.DependencyInjection;\n"
            "namespace Shop;\n"
            "public static class Setup\n"
            "{\n"
            "    public static IServiceCollection AddShop(this IServiceCollection s) => s;\n"
            "}\n"
        ),
        "Web/Program.cs": (
            "using Shop;\n"
            "namespace Web;\n"
            "static class Boot\n"
            "{\n"
            "    static void Wire(IServiceCollection services, object other)\n"
            "    {\n"
            "        services.AddShop();\n"
            "        other.AddShop();\n"
            "    }\n"
            "}\n"
        ),
    }
    graph = build(tmp_path, files)
    assert calls(graph, "Web/Program.cs") == [
        ("Boot.Wire", "services.AddShop", 7, "Shop/Setup.cs", "Setup.AddShop", 0.8, "inferred"),
        ("Boot.Wire", "other.AddShop", 8, "", "", 0.0, "unresolved"),
    ]


CS_PROJECTS = {
    # C# 10 ``global using``: the directive applies to every file of the compilation (the
    # project: its directory and below); another project's files do not see it
    "Core/Orders.cs": (
        "namespace Core.Orders;\n"
        "public class Order\n"
        "{\n"
        "    public void Ship() { }\n"
        "}\n"
        "public interface ICacheable { string Key(); }\n"
        "public class Repo\n"
        "{\n"
        "    public Task<Order> GetAsync(int id) => null;\n"
        "    public ValueTask<Order> FindAsync(int id) => default;\n"
        "    public Task SaveAsync() => null;\n"
        "}\n"
    ),
    "Web/GlobalUsings.cs": "global using Core.Orders;\n",
    "Web/Handlers/Ship.cs": (
        "namespace Web.Handlers;\n"
        "public class ShipHandler(Repo repo)\n"
        "{\n"
        "    public async Task Handle(object request)\n"
        "    {\n"
        "        var order = await repo.GetAsync(1);\n"
        "        order.Ship();\n"
        "        var found = await repo.FindAsync(2);\n"
        "        found.Ship();\n"
        "        var task = repo.GetAsync(3);\n"
        "        task.Ship();\n"
        "        if (request is ICacheable cacheable) { cacheable.Key(); }\n"
        "        switch (request) { case Order o: o.Ship(); break; }\n"
        "    }\n"
        "}\n"
    ),
    "Other/Loose.cs": (
        "namespace Other;\n"
        "public class Loose\n"
        "{\n"
        "    void Go()\n"
        "    {\n"
        "        new Order().Ship();\n"
        "    }\n"
        "}\n"
    ),
}


def test_csharp_global_usings_await_and_declaration_patterns(tmp_path: Path) -> None:
    """``global using Core.Orders;`` in ``Web/`` brings ``Order`` into ``Web/Handlers/Ship.cs``
    (not into ``Other/``); ``var order = await repo.GetAsync(1)`` makes ``order`` the ``T``
    of the ``Task<T>`` (``ValueTask<T>``) ``GetAsync`` returns, while the task itself is no
    ``Order``; ``request is ICacheable cacheable`` and ``case Order o`` declare their
    variables with those types (C# reference: ``await`` operator, declaration pattern);
    ``repo`` is a primary-constructor parameter."""
    graph = build(tmp_path, CS_PROJECTS)
    orders, handle = "Core/Orders.cs", "ShipHandler.Handle"
    assert [c for c in calls(graph, "Web/Handlers/Ship.cs") if c[3]] == [
        (handle, "repo.GetAsync", 6, orders, "Repo.GetAsync", 0.8, "inferred"),
        (handle, "order.Ship", 7, orders, "Order.Ship", 0.8, "inferred"),
        (handle, "repo.FindAsync", 8, orders, "Repo.FindAsync", 0.8, "inferred"),
        (handle, "found.Ship", 9, orders, "Order.Ship", 0.8, "inferred"),
        (handle, "repo.GetAsync", 10, orders, "Repo.GetAsync", 0.8, "inferred"),
        (handle, "cacheable.Key", 12, orders, "ICacheable.Key", 0.8, "inferred"),
        (handle, "o.Ship", 13, orders, "Order.Ship", 0.8, "inferred"),
    ]
    assert calls(graph, "Other/Loose.cs") == [
        ("Loose.Go", "Order", 6, "", "", 0.0, "unresolved"),
        ("Loose.Go", "Order().Ship", 6, "", "", 0.0, "unresolved"),
    ]


def test_csharp_extension_method_of_the_calling_file_among_same_named_ones(
    tmp_path: Path,
) -> None:
    """Two projects declare the same ``static class Extensions`` in one namespace (as the
    Aspire ``ServiceDefaults`` template does); a call in one of the files binds the extension
    method declared beside it (C# 12.8.10.3: were both in its compilation, the call would be
    ambiguous)."""
    body = (
        "namespace Microsoft.Extensions.Hosting;\n"
        "public static class Extensions\n"
        "{\n"
        "    public static TBuilder AddDefaults<TBuilder>(this TBuilder builder)\n"
        "        where TBuilder : IHostApplicationBuilder\n"
        "    {\n"
        "        builder.AddChecks();\n"
        "        return builder;\n"
        "    }\n"
        "    public static TBuilder AddChecks<TBuilder>(this TBuilder builder)\n"
        "        where TBuilder : IHostApplicationBuilder => builder;\n"
        "}\n"
    )
    graph = build(tmp_path, {"A/Extensions.cs": body, "B/Extensions.cs": body})
    for path in ("A/Extensions.cs", "B/Extensions.cs"):
        assert calls(graph, path) == [
            ("Extensions.AddDefaults", "builder.AddChecks", 7, path, "Extensions.AddChecks",
             0.8, "inferred"),
        ]  # fmt: skip


CS_NAMESPACES = {
    # a type in the global namespace (no namespace declaration), as ``Localization`` is
    "Core/Localization.cs": (
        "public static class Localization\n"
        "{\n"
        "    public sealed class Context\n"
        "    {\n"
        "        public Context(string culture) { }\n"
        "    }\n"
        "}\n"
    ),
    "Core/Contributor.cs": (
        "namespace App.Core;\n"
        "public class Contributor\n"
        "{\n"
        "    public Contributor(string name) { }\n"
        "}\n"
        "public class List { }\n"
    ),
    "UseCases/PagedResult.cs": "namespace App.UseCases;\npublic record PagedResult<T>(int Page);\n",
    "Infra/Queries.cs": (
        "using App.Core;\n"
        "namespace App.Infra.Queries;\n"
        "public class Queries\n"
        "{\n"
        "    public void Run()\n"
        "    {\n"
        '        var Contributor = new Contributor("x");\n'
        '        var context = new Localization.Context("en");\n'
        "        var page = new UseCases.PagedResult<int>(1);\n"
        "        var all = new List<Contributor>();\n"
        "        var none = new PagedResult<int>(1);\n"
        "    }\n"
        "}\n"
    ),
}


def test_csharp_type_names_are_looked_up_through_namespaces(tmp_path: Path) -> None:
    """A namespace-or-type-name (C# spec, "Namespace and type names"): a local named like a
    type does not hide it in ``new Contributor(..)`` (only types are looked up there);
    ``Localization`` is a type of the global namespace, ``Localization.Context`` a type
    nested in it (its constructor called); ``UseCases.PagedResult`` written in namespace
    ``App.Infra.Queries`` is ``App.UseCases.PagedResult`` (``App`` encloses the file's
    namespace, ``App.UseCases`` is declared in it; ``new`` of a generic type is written with
    the count of its type arguments (``PagedResult`1``), so ``new List<Contributor>()`` is
    not the plain class ``List`` of ``App.Core`` (C# tells types apart by it: it is
    System.Collections.Generic's); ``PagedResult`` is not in scope without ``UseCases.``."""
    graph = build(tmp_path, CS_NAMESPACES)
    run = "Queries.Run"
    assert calls(graph, "Infra/Queries.cs") == [
        (run, "Contributor", 7, "Core/Contributor.cs", "Contributor.Contributor", 1.0, "exact"),
        (run, "Localization.Context", 8, "Core/Localization.cs",
         "Localization.Context.Context", 1.0, "exact"),
        (run, "UseCases.PagedResult`1", 9, "UseCases/PagedResult.cs", "PagedResult", 1.0,
         "exact"),
        (run, "List`1", 10, "", "", 0.0, "unresolved"),
        (run, "PagedResult`1", 11, "", "", 0.0, "unresolved"),
    ]  # fmt: skip


CS_OUTSIDE_GENERICS = {
    # ImplicitUsings of an SDK project: System.Collections.Generic, System.Linq, ... in every
    # file; Ardalis.SharedKernel's IRepository<T> (Ardalis.Specification's repository)
    "Web/Web.csproj": (
        '<Project Sdk="Microsoft.NET.Sdk.Web">\n'
        "  <PropertyGroup><ImplicitUsings>enable</ImplicitUsings></PropertyGroup>\n"
        "</Project>\n"
    ),
    "Web/GlobalUsings.cs": "global using Ardalis.SharedKernel;\n",
    "Web/Domain/Cart.cs": (
        "namespace Shop.Web.Domain.Carts;\n"
        "public class CartItem { public void Bump() { } }\n"
        "public class Cart\n"
        "{\n"
        "    public IReadOnlyList<CartItem> Items { get; } = new List<CartItem>();\n"
        "    public void MarkAsDeleted() { }\n"
        "}\n"
    ),
    "Web/Features/Checkout.cs": (
        "namespace Shop.Web.Features;\n"
        "public class CheckoutHandler(IRepository<Domain.Carts.Cart> carts)\n"
        "{\n"
        "    public async Task Handle(int id, object spec)\n"
        "    {\n"
        "        var cart = await carts.GetByIdAsync(id);\n"
        "        cart.MarkAsDeleted();\n"
        "        var found = await carts.FirstOrDefaultAsync(spec);\n"
        "        found.MarkAsDeleted();\n"
        "        var all = await carts.ListAsync();\n"
        "        all.First().MarkAsDeleted();\n"
        "        var item = cart.Items.FirstOrDefault(i => i != null);\n"
        "        item.Bump();\n"
        "        cart.Items.Where(i => i != null).First().Bump();\n"
        "        var task = carts.GetByIdAsync(id);\n"
        "        task.MarkAsDeleted();\n"
        "        cart.Items.Count();\n"
        "    }\n"
        "}\n"
    ),
    # another project, no ImplicitUsings: no System.Linq in scope, so ``First`` is unknown
    "Tool/Tool.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n</Project>\n',
    "Tool/Walk.cs": (
        "using System.Collections.Generic;\n"
        "using Shop.Web.Domain.Carts;\n"
        "namespace Shop.Tool;\n"
        "public class Walk\n"
        "{\n"
        "    public void Go(List<CartItem> items) { items.First().Bump(); }\n"
        "}\n"
    ),
}


def test_csharp_collections_and_repositories_of_repository_classes(tmp_path: Path) -> None:
    """``IReadOnlyList<CartItem>``: System.Linq's ``FirstOrDefault``/``First`` give a
    ``CartItem``, ``Where`` the same elements (``Enumerable``, .NET API docs); awaiting
    ``IRepository<Cart>``'s ``GetByIdAsync``, ``FirstOrDefaultAsync`` (no projecting
    specification in the repository) gives a ``Cart``, ``ListAsync`` a ``List<Cart>``
    (Ardalis.Specification ``IReadRepositoryBase<T>``); the task itself is no ``Cart``.
    ``Items``' type argument is kept by the extractor; the element type names a namespace
    relative to the file's (``Domain.Carts.Cart``). The calls of the outside types are
    external. Without ImplicitUsings (``Tool``) ``First`` is not System.Linq's."""
    graph = build(tmp_path, CS_OUTSIDE_GENERICS)
    cart, handle = "Web/Domain/Cart.cs", "CheckoutHandler.Handle"
    assert calls(graph, "Web/Features/Checkout.cs") == [
        (handle, "carts.GetByIdAsync", 6, "", "", 0.0, "external"),
        (handle, "cart.MarkAsDeleted", 7, cart, "Cart.MarkAsDeleted", 0.8, "inferred"),
        (handle, "carts.FirstOrDefaultAsync", 8, "", "", 0.0, "external"),
        (handle, "found.MarkAsDeleted", 9, cart, "Cart.MarkAsDeleted", 0.8, "inferred"),
        (handle, "carts.ListAsync", 10, "", "", 0.0, "external"),
        (handle, "all.First", 11, "", "", 0.0, "external"),
        (handle, "all.First().MarkAsDeleted", 11, cart, "Cart.MarkAsDeleted", 0.8, "inferred"),
        (handle, "cart.Items.FirstOrDefault", 12, "", "", 0.0, "external"),
        (handle, "item.Bump", 13, cart, "CartItem.Bump", 0.8, "inferred"),
        (handle, "cart.Items.Where", 14, "", "", 0.0, "external"),
        (handle, "cart.Items.Where().First", 14, "", "", 0.0, "external"),
        (handle, "cart.Items.Where().First().Bump", 14, cart, "CartItem.Bump", 0.8, "inferred"),
        (handle, "carts.GetByIdAsync", 15, "", "", 0.0, "external"),
        (handle, "task.MarkAsDeleted", 16, "", "", 0.0, "unresolved"),
        (handle, "cart.Items.Count", 17, "", "", 0.0, "external"),
    ]
    assert [c for c in calls(graph, "Tool/Walk.cs") if c[3]] == []


def test_csharp_repository_with_a_projecting_specification(tmp_path: Path) -> None:
    """A ``Specification<T, TResult>`` in the repository: ``FirstOrDefaultAsync`` may give
    a ``TResult``, so what it gives stays unknown; ``GetByIdAsync`` still gives a ``T``."""
    files = dict(CS_OUTSIDE_GENERICS)
    files["Web/Domain/Spec.cs"] = (
        "namespace Shop.Web.Domain.Carts;\n"
        "public class CartNames : Specification<Cart, string> { }\n"
    )
    graph = build(tmp_path, files)
    resolved = [c[1:3] for c in calls(graph, "Web/Features/Checkout.cs") if c[3]]
    assert ("cart.MarkAsDeleted", 7) in resolved
    assert ("found.MarkAsDeleted", 9) not in resolved
    assert ("all.First().MarkAsDeleted", 11) not in resolved


CS_CHAINS_AND_ENDPOINTS = {
    "Infra/Setup.cs": (
        "using Microsoft.Extensions.DependencyInjection;\n"
        "namespace Shop.Infra;\n"
        "public static class Setup\n"
        "{\n"
        "    public static IServiceCollection AddInfra(this IServiceCollection s, int n) => s;\n"
        "    public static IServiceCollection AddMediator(this IServiceCollection s) => s;\n"
        "}\n"
    ),
    "Web/GlobalUsings.cs": "global using FastEndpoints;\nglobal using Shop.Infra;\n",
    "Web/Program.cs": (
        "using Microsoft.Extensions.DependencyInjection;\n"
        "namespace Web;\n"
        "static class Boot\n"
        "{\n"
        "    static void Wire(IServiceCollection services)\n"
        "    {\n"
        "        services.AddInfra(1).AddMediator();\n"
        "    }\n"
        "}\n"
    ),
    "Web/Contributors/List.cs": (
        "namespace Web.Contributors;\n"
        "public record ListRequest(int Page);\n"
        "public record ListResponse(int Count);\n"
        "public class List : Endpoint<ListRequest,\n"
        "    ListResponse, ListMapper>\n"
        "{\n"
        "    public override async Task HandleAsync(ListRequest req, CancellationToken ct)\n"
        "    {\n"
        "        var response = Map.FromEntity(req);\n"
        "    }\n"
        "}\n"
        "public class ListMapper : Mapper<ListRequest, ListResponse, ListRequest>\n"
        "{\n"
        "    public override ListResponse FromEntity(ListRequest e) => new(e.Page);\n"
        "}\n"
        "public class Plain : Endpoint<ListRequest, ListResponse>\n"
        "{\n"
        "    public void Go(ListRequest r) { Map.FromEntity(r); }\n"
        "}\n"
    ),
}


def test_csharp_extension_chains_and_an_endpoint_mapper(tmp_path: Path) -> None:
    """``services.AddInfra(1).AddMediator()``: ``AddInfra`` is declared to return
    ``IServiceCollection`` (outside the repository), so the one extension on it in scope is
    called; in a FastEndpoints ``Endpoint<TRequest, TResponse, TMapper>`` the ``Map``
    property is the ``TMapper`` (FastEndpoints docs, "Mappers"); an endpoint without one
    has no ``Map`` the repository declares."""
    graph = build(tmp_path, CS_CHAINS_AND_ENDPOINTS)
    setup = "Infra/Setup.cs"
    assert calls(graph, "Web/Program.cs") == [
        ("Boot.Wire", "services.AddInfra", 7, setup, "Setup.AddInfra", 0.8, "inferred"),
        ("Boot.Wire", "services.AddInfra().AddMediator", 7, setup, "Setup.AddMediator", 0.8,
         "inferred"),
    ]  # fmt: skip
    listing = "Web/Contributors/List.cs"
    assert [c for c in calls(graph, listing) if c[1] == "Map.FromEntity"] == [
        ("List.HandleAsync", "Map.FromEntity", 9, listing, "ListMapper.FromEntity", 0.8,
         "inferred"),
        ("Plain.Go", "Map.FromEntity", 18, "", "", 0.0, "unresolved"),
    ]  # fmt: skip


CS_HOSTING = {
    "Web/Web.csproj": (
        '<Project Sdk="Microsoft.NET.Sdk.Web">\n'
        "  <PropertyGroup><ImplicitUsings>enable</ImplicitUsings></PropertyGroup>\n"
        '  <ItemGroup><ProjectReference Include="..\\Defaults\\Defaults.csproj" /></ItemGroup>\n'
        "</Project>\n"
    ),
    # two projects declare the same extensions (as the Aspire ServiceDefaults template does);
    # the web project references one of them
    "Defaults/Defaults.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n</Project>\n',
    "Other/Other.csproj": '<Project Sdk="Microsoft.NET.Sdk">\n</Project>\n',
    "Defaults/Extensions.cs": (
        "namespace Microsoft.Extensions.Hosting;\n"
        "public static class Extensions\n"
        "{\n"
        "    public static TBuilder AddServiceDefaults<TBuilder>(this TBuilder builder)\n"
        "        where TBuilder : IHostApplicationBuilder => builder;\n"
        "    public static WebApplication MapDefaultEndpoints(this WebApplication app) => app;\n"
        "}\n"
    ),
    "Web/Configs.cs": (
        "namespace Web.Configurations;\n"
        "public static class Configs\n"
        "{\n"
        "    public static WebApplicationBuilder AddLoggerConfigs(this WebApplicationBuilder b)"
        " => b;\n"
        "    public static IServiceCollection AddOptionConfigs(this IServiceCollection s) => s;\n"
        "    public static async Task<IApplicationBuilder> UseAppMiddleware(this WebApplication a)"
        " { return a; }\n"
        "}\n"
    ),
    "Web/Program.cs": (
        "using Web.Configurations;\n"
        "\n"
        "var builder = WebApplication.CreateBuilder(args);\n"
        "builder.AddServiceDefaults()\n"
        "       .AddLoggerConfigs();\n"
        "builder.Services.AddOptionConfigs();\n"
        "var app = builder.Build();\n"
        "await app.UseAppMiddleware();\n"
        "app.MapDefaultEndpoints();\n"
        "app.Run();\n"
    ),
}
CS_HOSTING["Other/Extensions.cs"] = CS_HOSTING["Defaults/Extensions.cs"]


def test_csharp_hosting_apis_type_the_receivers_of_extension_methods(tmp_path: Path) -> None:
    """Top-level statements of an ASP.NET Core ``Program.cs``: ``WebApplication.CreateBuilder``
    gives a ``WebApplicationBuilder``, its ``Services`` an ``IServiceCollection``, its
    ``Build()`` a ``WebApplication`` (ASP.NET Core API docs), so the extension methods
    declared on those types are called; ``AddServiceDefaults<TBuilder>(this TBuilder)``
    where ``TBuilder : IHostApplicationBuilder`` takes a ``WebApplicationBuilder`` (which
    implements it) and returns it. Of the two same-named ``Extensions``, the one of the
    project ``Web.csproj`` references."""
    graph = build(tmp_path, CS_HOSTING)
    defaults, configs = "Defaults/Extensions.cs", "Web/Configs.cs"
    assert [c[1:] for c in calls(graph, "Web/Program.cs") if c[3]] == [
        ("builder.AddServiceDefaults", 4, defaults, "Extensions.AddServiceDefaults", 0.8,
         "inferred"),
        ("builder.AddServiceDefaults().AddLoggerConfigs", 4, configs, "Configs.AddLoggerConfigs",
         0.8, "inferred"),
        ("builder.Services.AddOptionConfigs", 6, configs, "Configs.AddOptionConfigs", 0.8,
         "inferred"),
        ("app.UseAppMiddleware", 8, configs, "Configs.UseAppMiddleware", 0.8, "inferred"),
        ("app.MapDefaultEndpoints", 9, defaults, "Extensions.MapDefaultEndpoints", 0.8,
         "inferred"),
    ]  # fmt: skip
