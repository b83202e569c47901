"""Ruby in the code graph (issue #18): a small shop written the way the Ruby documentation
writes modules, classes, mixins and ``require``, with its definitions, docs, requires,
calls (and their confidence) and supertype edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

RB = {
    "lib/shop.rb": (
        "# frozen_string_literal: true\n"
        "\n"
        "require 'json'\n"
        "require 'shop/cart'\n"
        "require_relative 'shop/version'\n"
        "\n"
        "# The shop.\n"
        "module Shop\n"
        "  def self.open(owner)\n"
        "    cart = Cart.new(owner)\n"
        "    cart.add(Item.new('tea', 3))\n"
        "    Util.format(cart.total)\n"
        "    JSON.generate(cart)\n"
        "    cart\n"
        "  end\n"
        "end\n"
    ),
    "lib/shop/cart.rb": (
        "require_relative 'item'\n"
        "\n"
        "module Shop\n"
        "  # A cart holds items.\n"
        "  #\n"
        "  # It totals them.\n"
        "  class Cart < Base\n"
        "    include Comparable\n"
        "    include Greets\n"
        "    attr_reader :owner, :items\n"
        "    LIMIT = 10\n"
        "\n"
        "    def initialize(owner)\n"
        "      @owner = owner\n"
        "      @items = []\n"
        "      @log = Log.new\n"
        "    end\n"
        "\n"
        "    # Adds an item.\n"
        "    def add(item, qty = 1)\n"
        "      check!\n"
        "      @items << item\n"
        "      @log.write(item.name)\n"
        "      greet\n"
        "      self.total\n"
        "    end\n"
        "\n"
        "    def total = items.sum(&:price)\n"
        "\n"
        "    def full?\n"
        "      items.size >= LIMIT\n"
        "    end\n"
        "\n"
        "    private\n"
        "\n"
        "    def check!\n"
        "      raise ArgumentError, 'full' if full?\n"
        "    end\n"
        "  end\n"
        "\n"
        "  class Log\n"
        "    def write(line) = puts(line)\n"
        "  end\n"
        "end\n"
    ),
    "lib/shop/item.rb": (
        "module Shop\n"
        "  Item = Struct.new(:name, :price)\n"
        "\n"
        "  class Base; end\n"
        "\n"
        "  # Says hello.\n"
        "  module Greets\n"
        "    def greet\n"
        "      'hello'\n"
        "    end\n"
        "  end\n"
        "\n"
        "  module Util\n"
        '    def self.format(amount) = "$#{amount}"\n'
        "  end\n"
        "end\n"
    ),
    "lib/shop/version.rb": "module Shop\n  VERSION = '1.0.0'\nend\n",
    "app/models/order.rb": (
        "class Order < Shop::Base\n"
        "  def place\n"
        "    Shop.open(self)\n"
        "    Shop::Cart.new(self).add(nil)\n"
        "  end\n"
        "end\n"
    ),
}
SHOP, CART, ITEM, ORDER = (
    "lib/shop.rb",
    "lib/shop/cart.rb",
    "lib/shop/item.rb",
    "app/models/order.rb",
)


def test_ruby_modules_classes_methods_constants_and_comment_docs(tmp_path: Path) -> None:
    graph = build(tmp_path, RB)
    assert symbols(graph, SHOP) == [
        ("Shop", "module", 8, 16, 1, "module Shop", "The shop."),  # not the magic comment
        ("Shop.open", "method", 9, 15, 1, "def self.open(owner)", ""),
    ]
    assert symbols(graph, CART) == [
        ("Shop", "module", 3, 44, 1, "module Shop", ""),
        (
            "Shop.Cart",
            "class",
            7,
            39,
            1,
            "class Cart < Base",
            "A cart holds items.\n\nIt totals them.",
        ),
        ("Shop.Cart.items", "variable", 10, 10, 1, "attr_reader :owner, :items", ""),
        ("Shop.Cart.owner", "variable", 10, 10, 1, "attr_reader :owner, :items", ""),
        ("Shop.Cart.LIMIT", "constant", 11, 11, 1, "LIMIT = 10", ""),
        ("Shop.Cart.initialize", "method", 13, 17, 1, "def initialize(owner)", ""),
        ("Shop.Cart.add", "method", 20, 26, 1, "def add(item, qty = 1)", "Adds an item."),
        ("Shop.Cart.total", "method", 28, 28, 1, "def total", ""),
        ("Shop.Cart.full?", "method", 30, 32, 1, "def full?", ""),
        ("Shop.Cart.check!", "method", 36, 38, 0, "def check!", ""),  # after `private`
        ("Shop.Log", "class", 41, 43, 1, "class Log", ""),
        ("Shop.Log.write", "method", 42, 42, 1, "def write(line)", ""),
    ]
    assert symbols(graph, ITEM) == [
        ("Shop", "module", 1, 16, 1, "module Shop", ""),
        ("Shop.Item", "class", 2, 2, 1, "Item = Struct.new(:name, :price)", ""),
        ("Shop.Base", "class", 4, 4, 1, "class Base", ""),
        ("Shop.Greets", "module", 7, 11, 1, "module Greets", "Says hello."),
        ("Shop.Greets.greet", "method", 8, 10, 1, "def greet", ""),
        ("Shop.Util", "module", 13, 15, 1, "module Util", ""),
        ("Shop.Util.format", "method", 14, 14, 1, "def self.format(amount)", ""),
    ]
    assert symbols(graph, "lib/shop/version.rb") == [
        ("Shop", "module", 1, 3, 1, "module Shop", ""),
        ("Shop.VERSION", "constant", 2, 2, 1, "VERSION = '1.0.0'", ""),
    ]
    assert extract("ruby", SHOP, RB[SHOP]).module_doc == "The shop."


def test_ruby_require_and_require_relative_resolve_to_files(tmp_path: Path) -> None:
    f = extract("ruby", SHOP, RB[SHOP])
    assert [(i.module, i.name, i.line) for i in f.imports] == [
        ("json", "*", 3),
        ("shop/cart", "*", 4),
        ("./shop/version", "*", 5),
    ]
    graph = build(tmp_path, RB)
    assert deps(graph) == {  # json is the standard library: no file
        (SHOP, CART, "shop/cart"),  # under lib/, the load path
        (SHOP, "lib/shop/version.rb", "./shop/version"),
        (CART, ITEM, "./item"),
    }


def test_ruby_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, RB)
    assert calls(graph, SHOP) == [
        ("Shop.open", "Cart", 10, CART, "Shop.Cart", 1.0, "exact"),  # Cart.new, required
        ("Shop.open", "Item", 11, ITEM, "Shop.Item", 0.8, "inferred"),  # not required here
        ("Shop.open", "cart.add", 11, CART, "Shop.Cart.add", 0.8, "inferred"),
        ("Shop.open", "Util.format", 12, ITEM, "Shop.Util.format", 0.8, "inferred"),
        ("Shop.open", "cart.total", 12, CART, "Shop.Cart.total", 0.8, "inferred"),
        ("Shop.open", "JSON.generate", 13, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, CART) == [
        ("Shop.Cart.initialize", "Log", 16, CART, "Shop.Log", 1.0, "exact"),
        ("Shop.Cart.add", "check!", 21, CART, "Shop.Cart.check!", 1.0, "exact"),
        ("Shop.Cart.add", "item.name", 23, "", "", 0.0, "unresolved"),
        ("Shop.Cart.add", "self.log.write", 23, CART, "Shop.Log.write", 0.8, "inferred"),
        ("Shop.Cart.add", "greet", 24, ITEM, "Shop.Greets.greet", 1.0, "exact"),  # mixin
        ("Shop.Cart.add", "self.total", 25, CART, "Shop.Cart.total", 1.0, "exact"),
        ("Shop.Cart.total", "items.sum", 28, "", "", 0.0, "unresolved"),
        ("Shop.Cart.full?", "items.size", 31, "", "", 0.0, "unresolved"),
        ("Shop.Cart.check!", "full?", 37, CART, "Shop.Cart.full?", 1.0, "exact"),
        ("Shop.Cart.check!", "raise", 37, "", "", 0.0, "unresolved"),
        ("Shop.Log.write", "puts", 42, "", "", 0.0, "unresolved"),
    ]
    assert calls(graph, ORDER) == [  # app/ is autoloaded: nothing required, all inferred
        ("Order.place", "Shop.open", 3, SHOP, "Shop.open", 0.8, "inferred"),
        ("Order.place", "Shop.Cart", 4, CART, "Shop.Cart", 0.8, "inferred"),
        ("Order.place", "Shop.Cart().add", 4, CART, "Shop.Cart.add", 0.8, "inferred"),
    ]


def test_ruby_superclasses_and_mixins_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, RB)
    assert supertypes(graph) == {
        (ORDER, "Order", "Shop.Base", "extends", 1, ITEM, "Shop.Base", "exact"),
        (CART, "Shop.Cart", "Base", "extends", 7, ITEM, "Shop.Base", "exact"),
        (CART, "Shop.Cart", "Comparable", "uses", 8, "", "", "unresolved"),
        (CART, "Shop.Cart", "Greets", "uses", 9, ITEM, "Shop.Greets", "exact"),
    }
    down = graph.hierarchy("Shop.Base", direction="down")
    assert sorted(e["child"] for e in down.items) == [f"{ORDER}:Order", f"{CART}:Shop.Cart"]


def test_ruby_nested_class_names_singleton_class_and_private_def() -> None:
    source = (
        "class Shop::Admin::Panel < ApplicationController\n"
        "  class << self\n"
        "    def build; new; end\n"
        "  end\n"
        "  private def secret(x) = x\n"
        "  def show\n"
        "    count = 1\n"
        "    count\n"
        "    refresh\n"
        "    @panel = Panel.new\n"
        "  end\n"
        "end\n"
    )
    f = extract("ruby", "panel.rb", source)
    assert f.errors == 0
    assert [(s.qualname, s.kind, s.exported) for s in f.symbols] == [
        ("Shop.Admin.Panel", "class", True),
        ("Shop.Admin.Panel.build", "method", True),
        ("Shop.Admin.Panel.secret", "method", False),
        ("Shop.Admin.Panel.show", "method", True),
    ]
    # `count` is a local, `new` and `refresh` are calls of bare method names
    assert [(c.callee, c.caller) for c in f.calls] == [
        ("new", "Shop.Admin.Panel.build"),
        ("refresh", "Shop.Admin.Panel.show"),
        ("Panel", "Shop.Admin.Panel.show"),
    ]
    assert [(a.target, a.value) for a in f.assignments] == [("self.panel", "Panel")]


def test_ruby_syntax_errors_are_counted_not_fatal() -> None:
    f = extract("ruby", "broken.rb", b"def ok\n  go\nend\ndef broken(\n\xff\n")
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}


# Ruby's constant paths: ``class A::B`` defines B inside A, and a path starting with ``::``
# is looked up from the top level (Object), wherever the definition is written.
TOP = {
    "lib/greeting.rb": (
        "module Outer\n"
        "  # Says hello from the top level.\n"
        "  module ::Greeting\n"
        '    def self.hello(name) = "hello #{name}"\n'
        "  end\n"
        "\n"
        "  class ::Shop::Till\n"
        "    def ring; end\n"
        "  end\n"
        "\n"
        "  class Inner; end\n"
        "end\n"
        "\n"
        "# Reopened with a compact path.\n"
        "class Shop::Till\n"
        "  def open; end\n"
        "end\n"
    ),
    "lib/shop.rb": (
        "require_relative 'greeting'\n"
        "\n"
        "module Shop\n"
        "  def self.welcome\n"
        "    Greeting.hello('you')\n"
        "    Outer::Inner.new\n"
        "  end\n"
        "end\n"
    ),
}


def test_ruby_paths_from_the_top_level_leave_the_enclosing_module(tmp_path: Path) -> None:
    graph = build(tmp_path, TOP)
    assert symbols(graph, "lib/greeting.rb") == [
        ("Outer", "module", 1, 12, 1, "module Outer", ""),
        ("Greeting", "module", 3, 5, 1, "module ::Greeting", "Says hello from the top level."),
        ("Greeting.hello", "method", 4, 4, 1, "def self.hello(name)", ""),
        ("Shop.Till", "class", 7, 9, 1, "class ::Shop::Till", ""),
        ("Shop.Till.ring", "method", 8, 8, 1, "def ring", ""),
        ("Outer.Inner", "class", 11, 11, 1, "class Inner", ""),
        ("Shop.Till", "class", 15, 17, 1, "class Shop::Till", "Reopened with a compact path."),
        ("Shop.Till.open", "method", 16, 16, 1, "def open", ""),
    ]
    f = extract("ruby", "lib/greeting.rb", TOP["lib/greeting.rb"])
    assert [s.name for s in f.symbols if s.kind in {"module", "class"}] == [
        "Outer",
        "Greeting",
        "Till",  # the constant defined; Shop is its scope
        "Inner",
        "Till",
    ]
    assert calls(graph, "lib/shop.rb") == [
        ("Shop.welcome", "Greeting.hello", 5, "lib/greeting.rb", "Greeting.hello", 1.0, "exact"),
        ("Shop.welcome", "Outer.Inner", 6, "lib/greeting.rb", "Outer.Inner", 1.0, "exact"),
    ]


# Ruby's docs: ``BasicObject#instance_eval`` evaluates the block "within the context of the
# receiver (obj)", its example ``k.instance_eval { the_secret }`` calls KlassWithSecret's
# private method; ``Module#class_eval`` and ``Class.new(super) { }`` evaluate it in the
# class. A block given to a method that hands its ``&block`` to one of those has another
# ``self``: its bare names are not the enclosing class's. ``yield`` keeps ``self``, and so
# does ``Module#define_method(name, &block)`` called on the class the block is written in.
EVAL = {
    "lib/app.rb": (
        "class Base\n"
        "  def self.get(path) = path\n"
        "end\n"
        "\n"
        "class KlassWithSecret\n"
        "  def initialize\n"
        "    @secret = 99\n"
        "  end\n"
        "\n"
        "  private\n"
        "\n"
        "  def the_secret\n"
        '    "Ssssh! The secret is #{@secret}."\n'
        "  end\n"
        "end\n"
        "\n"
        "module Builder\n"
        "  def self.build(base = Base, &block)\n"
        "    klass = Class.new(base)\n"
        "    klass.class_eval(&block)\n"
        "    klass\n"
        "  end\n"
        "end\n"
    ),
    "test/app_test.rb": (
        "class AppTest\n"
        "  def mock_app(&block)\n"
        "    @app = Builder.build(&block)\n"
        "  end\n"
        "\n"
        "  def with_secret(&block)\n"
        "    KlassWithSecret.new.instance_eval(&block)\n"
        "  end\n"
        "\n"
        "  def around\n"
        "    yield\n"
        "  end\n"
        "\n"
        "  def get(path) = path\n"
        "  def the_secret = 'none'\n"
        "\n"
        "  def test_app\n"
        "    mock_app do\n"
        "      get '/'\n"
        "      self.the_secret\n"
        "    end\n"
        "    with_secret { the_secret }\n"
        "    around { get '/' }\n"
        "    get '/'\n"
        "  end\n"
        "\n"
        "  def self.test(name, &block)\n"
        "    define_method(name, &block)\n"
        "  end\n"
        "\n"
        "  test 'kept' do\n"
        "    get '/'\n"
        "  end\n"
        "\n"
        "  def test_class_new\n"
        "    Class.new(Base) { get '/' }\n"
        "  end\n"
        "end\n"
    ),
}


def test_ruby_blocks_evaluated_with_another_self_leave_bare_calls(tmp_path: Path) -> None:
    graph = build(tmp_path, EVAL)
    test, app = "test/app_test.rb", "lib/app.rb"
    assert calls(graph, test) == [
        ("AppTest.mock_app", "Builder.build", 3, app, "Builder.build", 0.8, "inferred"),
        ("AppTest.with_secret", "KlassWithSecret", 7, app, "KlassWithSecret", 0.8, "inferred"),
        ("AppTest.with_secret", "KlassWithSecret().instance_eval", 7, "", "", 0.0, "unresolved"),
        ("AppTest.test_app", "mock_app", 18, test, "AppTest.mock_app", 1.0, "exact"),
        ("AppTest.test_app", "get", 19, "", "", 0.0, "unresolved"),  # Base.get's class
        ("AppTest.test_app", "self.the_secret", 20, "", "", 0.0, "unresolved"),
        ("AppTest.test_app", "the_secret", 22, "", "", 0.0, "unresolved"),  # the secret's
        ("AppTest.test_app", "with_secret", 22, test, "AppTest.with_secret", 1.0, "exact"),
        ("AppTest.test_app", "around", 23, test, "AppTest.around", 1.0, "exact"),
        ("AppTest.test_app", "get", 23, test, "AppTest.get", 1.0, "exact"),  # yield keeps self
        ("AppTest.test_app", "get", 24, test, "AppTest.get", 1.0, "exact"),
        ("AppTest.test", "define_method", 28, "", "", 0.0, "unresolved"),
        ("AppTest", "test", 31, test, "AppTest.test", 1.0, "exact"),
        ("AppTest", "get", 32, test, "AppTest.get", 1.0, "exact"),  # a method of AppTest
        ("AppTest.test_class_new", "Class", 36, "", "", 0.0, "unresolved"),
        ("AppTest.test_class_new", "get", 36, "", "", 0.0, "unresolved"),  # the new class's
    ]


# ``Class.new(self)`` makes a subclass (Ruby's docs, ``Class.new(super_class)``): a block
# class_eval'd on it still sees the methods of the class it is written in. A method a block
# is given to that is not resolved (its class is reopened in two files) but that some method
# of the repository of that name would change the block's ``self``: the block's calls are
# left unresolved.
REOPENED = {
    **EVAL,
    "test/spec_a.rb": "class Spec\n  def spec_app(&block)\n    Builder.build(&block)\n  end\nend\n",
    "test/spec_b.rb": "class Spec\n  def other = 1\nend\n",
    "test/spec_test.rb": (
        "class SpecTest < Spec\n"
        "  def self.context(&block)\n"
        "    sub = Class.new(self)\n"
        "    sub.class_eval(&block)\n"
        "  end\n"
        "\n"
        "  def get(path) = path\n"
        "\n"
        "  context do\n"
        "    get '/'\n"
        "  end\n"
        "\n"
        "  def test_it\n"
        "    spec_app { get '/' }\n"
        "  end\n"
        "end\n"
    ),
}


def test_ruby_subclass_of_self_keeps_names_unresolved_owner_leaves_them(tmp_path: Path) -> None:
    graph = build(tmp_path, REOPENED)
    spec = "test/spec_test.rb"
    assert calls(graph, spec) == [
        ("SpecTest.context", "Class", 3, "", "", 0.0, "unresolved"),
        ("SpecTest.context", "sub.class_eval", 4, "", "", 0.0, "unresolved"),
        ("SpecTest", "context", 9, spec, "SpecTest.context", 1.0, "exact"),
        ("SpecTest", "get", 10, spec, "SpecTest.get", 1.0, "exact"),  # a subclass's
        ("SpecTest.test_it", "get", 14, "", "", 0.0, "unresolved"),  # Base.get's class
        ("SpecTest.test_it", "spec_app", 14, "", "", 0.0, "unresolved"),
    ]
