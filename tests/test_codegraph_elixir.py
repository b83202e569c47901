"""Elixir in the code graph (issue #18): a small repository written the way Elixir's own
documentation writes modules (the getting-started ``Math`` module, ``defstruct``,
``defprotocol Size`` and its ``defimpl``s, a ``defmacro``, a behaviour with ``__using__``),
with its definitions, docs, aliases and imports, calls (and their confidence) and supertype
edges stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, supertypes, symbols

ELIXIR = {
    "lib/greeter.ex": """\
defmodule Greeter do
  @moduledoc "A behaviour with a default greeting."
  @callback greet(String.t()) :: String.t()

  defmacro __using__(_opts) do
    quote do
      @behaviour Greeter
      import Greeter
    end
  end

  def hello(name), do: "Hello, " <> name
end
""",
    "lib/math.ex": '''\
defmodule Math do
  @moduledoc """
  Math helpers, as the getting-started guide writes them.
  """

  alias Math.List, as: MyList
  import Integer, only: [is_odd: 1]

  @doc "Sums two numbers."
  @spec sum(integer, integer) :: integer
  def sum(a, b) do
    do_sum(a, b)
  end

  defp do_sum(a, b) do
    a + b
  end

  @doc false
  def zero?(0), do: true
  def zero?(x) when is_integer(x), do: false

  # The odd triples up to `n`, summed.
  def odd_triples(n) do
    1..n
    |> Enum.map(&(&1 * 3))
    |> Enum.filter(&is_odd/1)
    |> MyList.sum()
    |> sum(0)
  end
end
''',
    "lib/math/list.ex": """\
defmodule Math.List do
  @moduledoc "Lists of numbers."

  def sum(list), do: Enum.reduce(list, 0, &Math.sum/2)
  defdelegate total(list), to: __MODULE__, as: :sum
end
""",
    "lib/my_macros.ex": """\
defmodule MyMacros do
  defmacro unless(clause, do: expression) do
    quote do
      if(!unquote(clause), do: unquote(expression))
    end
  end
end
""",
    "lib/size.ex": """\
defprotocol Size do
  @doc "Calculates the size (and not the length!) of a data structure"
  def size(data)
end

defimpl Size, for: BitString do
  def size(binary), do: byte_size(binary)
end

defimpl Size, for: User do
  def size(user), do: Size.size(user.name)
end
""",
    "lib/user.ex": """\
defmodule User do
  @moduledoc "A user, as the `defstruct` docs define one."
  defstruct name: nil, age: nil

  defmodule Admin do
    @behaviour Greeter

    @impl true
    def greet(name), do: Greeter.hello(name)

    def new(name), do: %User{name: name}
  end

  def admin(name), do: Admin.new(name)
end
""",
    "test/user_test.exs": """\
defmodule UserTest do
  use ExUnit.Case
  use Greeter
  require MyMacros
  alias User.Admin

  def greet(name), do: hello(name)

  test "admins are users" do
    assert %User{} = Admin.new("jane")
    MyMacros.unless(false, do: :ok)
    assert :ets.info(:users) == :undefined
  end
end
""",
}
MATH, LIST, USER, GREETER = "lib/math.ex", "lib/math/list.ex", "lib/user.ex", "lib/greeter.ex"
SIZE, MACROS, TEST = "lib/size.ex", "lib/my_macros.ex", "test/user_test.exs"


def test_elixir_modules_functions_clauses_and_docs(tmp_path: Path) -> None:
    graph = build(tmp_path, ELIXIR)
    guide = "Math helpers, as the getting-started guide writes them."
    assert symbols(graph, MATH) == [
        ("Math", "module", 1, 31, 1, "defmodule Math", guide),
        ("Math.sum", "function", 11, 13, 1, "def sum(a, b)", "Sums two numbers."),
        ("Math.do_sum", "function", 15, 17, 0, "defp do_sum(a, b)", ""),
        ("Math.zero?", "function", 20, 21, 1, "def zero?(0)", ""),  # two clauses, @doc false
        (
            "Math.odd_triples",
            "function",
            24,
            30,
            1,
            "def odd_triples(n)",
            "The odd triples up to `n`, summed.",  # a comment when there is no @doc
        ),
    ]
    assert symbols(graph, USER) == [
        (
            "User",
            "module",
            1,
            15,
            1,
            "defmodule User",
            "A user, as the `defstruct` docs define one.",
        ),
        ("User.__struct__", "struct", 3, 3, 1, "defstruct name: nil, age: nil", ""),
        ("User.Admin", "module", 5, 12, 1, "defmodule Admin", ""),  # nested: User.Admin
        ("User.Admin.greet", "function", 9, 9, 1, "def greet(name)", ""),
        ("User.Admin.new", "function", 11, 11, 1, "def new(name)", ""),
        ("User.admin", "function", 14, 14, 1, "def admin(name)", ""),
    ]
    assert symbols(graph, SIZE) == [
        ("Size", "interface", 1, 4, 1, "defprotocol Size", ""),
        (
            "Size.size",
            "function",
            3,
            3,
            1,
            "def size(data)",
            "Calculates the size (and not the length!) of a data structure",
        ),
        ("Size.BitString", "module", 6, 8, 1, "defimpl Size, for: BitString", ""),
        ("Size.BitString.size", "function", 7, 7, 1, "def size(binary)", ""),
        ("Size.User", "module", 10, 12, 1, "defimpl Size, for: User", ""),
        ("Size.User.size", "function", 11, 11, 1, "def size(user)", ""),
    ]
    assert symbols(graph, MACROS)[1] == (
        "MyMacros.unless",
        "function",
        2,
        6,
        1,
        "defmacro unless(clause, do: expression)",
        "",
    )
    assert extract("elixir", MATH, ELIXIR[MATH]).module_doc == guide


def test_elixir_aliases_imports_requires_and_uses_resolve_to_files(tmp_path: Path) -> None:
    f = extract("elixir", TEST, ELIXIR[TEST])
    assert [(i.module, i.name, i.alias, i.line, i.scope) for i in f.imports] == [
        ("ExUnit.Case", "", "", 2, "UserTest"),
        ("Greeter", "", "", 3, "UserTest"),
        ("MyMacros", "", "", 4, "UserTest"),
        ("User.Admin", "", "Admin", 5, "UserTest"),
    ]
    f = extract("elixir", MATH, ELIXIR[MATH])
    assert [(i.module, i.name, i.alias) for i in f.imports] == [
        ("Math.List", "", "MyList"),  # alias ..., as: MyList
        ("Integer", "is_odd", ""),  # import ..., only: [is_odd: 1]
    ]
    many = extract(
        "elixir",
        "a.ex",
        "defmodule A do\n  alias A.{B, C}\n  alias __MODULE__.D\n  import E, except: [f: 1]\nend\n",
    )
    assert [(i.module, i.name, i.alias) for i in many.imports] == [
        ("A.B", "", "B"),
        ("A.C", "", "C"),
        ("A.D", "", "D"),
        ("E", "*", ""),
    ]
    graph = build(tmp_path, ELIXIR)
    assert deps(graph) == {  # ExUnit.Case and Integer are Elixir's
        (MATH, LIST, "Math.List"),
        (TEST, GREETER, "Greeter"),
        (TEST, MACROS, "MyMacros"),
        (TEST, USER, "User.Admin"),  # a nested module, found in its parent's file
    }


def test_elixir_calls_with_their_confidence(tmp_path: Path) -> None:
    graph = build(tmp_path, ELIXIR)
    assert calls(graph, MATH) == [
        ("Math.sum", "do_sum", 12, MATH, "Math.do_sum", 1.0, "exact"),  # a local call
        ("Math.zero?", "is_integer", 21, "", "", 0.0, "external"),  # Kernel, in a guard
        ("Math.odd_triples", "Enum.map", 26, "", "", 0.0, "external"),
        ("Math.odd_triples", "Enum.filter", 27, "", "", 0.0, "external"),
        ("Math.odd_triples", "is_odd", 27, "", "", 0.0, "external"),  # &is_odd/1, imported
        ("Math.odd_triples", "MyList.sum", 28, LIST, "Math.List.sum", 1.0, "exact"),  # alias
        ("Math.odd_triples", "sum", 29, MATH, "Math.sum", 1.0, "exact"),  # |> sum(0)
    ]
    assert calls(graph, LIST) == [
        ("Math.List.sum", "Enum.reduce", 4, "", "", 0.0, "external"),
        ("Math.List.sum", "Math.sum", 4, MATH, "Math.sum", 1.0, "exact"),  # &Math.sum/2
        ("Math.List.total", "Math.List.sum", 5, LIST, "Math.List.sum", 1.0, "exact"),
    ]
    assert symbols(graph, LIST)[2] == (
        "Math.List.total",
        "function",
        5,
        5,
        1,
        "defdelegate total(list)",
        "",
    )
    assert calls(graph, USER) == [
        ("User.Admin.greet", "Greeter.hello", 9, GREETER, "Greeter.hello", 1.0, "exact"),
        ("User.Admin.new", "User.__struct__", 11, USER, "User.__struct__", 1.0, "exact"),
        ("User.admin", "Admin.new", 14, USER, "User.Admin.new", 1.0, "exact"),  # nested
    ]
    assert calls(graph, TEST) == [
        # ``use Greeter``: its __using__ imports Greeter (read, not expanded: inferred)
        ("UserTest.greet", "hello", 7, GREETER, "Greeter.hello", 0.8, "inferred"),
        ("UserTest", "test", 9, "", "", 0.0, "external"),  # ExUnit.Case's macro
        ("UserTest", "Admin.new", 10, USER, "User.Admin.new", 1.0, "exact"),
        ("UserTest", "User.__struct__", 10, USER, "User.__struct__", 1.0, "exact"),
        ("UserTest", "assert", 10, "", "", 0.0, "external"),
        ("UserTest", "MyMacros.unless", 11, MACROS, "MyMacros.unless", 1.0, "exact"),
        ("UserTest", ":ets.info", 12, "", "", 0.0, "external"),
        ("UserTest", "assert", 12, "", "", 0.0, "external"),
    ]
    assert calls(graph, SIZE) == [
        ("Size.BitString.size", "byte_size", 7, "", "", 0.0, "external"),
        ("Size.User.size", "Size.size", 11, SIZE, "Size.size", 1.0, "exact"),
    ]


def test_elixir_pipes_into_bare_names_and_typespecs_hold_no_calls() -> None:
    source = (
        "defmodule P do\n"
        "  @spec run(t) :: t\n"
        "  def run(conn), do: conn |> halt\n"
        "  def bits(<<x::binary-size(4)>>), do: x.size\n"
        "end\n"
    )
    f = extract("elixir", "p.ex", source)
    assert [(c.callee, c.caller, c.line) for c in f.calls] == [("halt", "P.run", 3)]


def test_elixir_defimpl_and_behaviours_are_supertype_edges(tmp_path: Path) -> None:
    graph = build(tmp_path, ELIXIR)
    assert supertypes(graph) == {
        ("", "", "Size", "implements", 6, SIZE, "Size", "exact"),  # BitString is Elixir's
        (USER, "User", "Size", "implements", 10, SIZE, "Size", "exact"),  # defimpl for: User
        (USER, "User.Admin", "Greeter", "implements", 6, GREETER, "Greeter", "exact"),
        (TEST, "UserTest", "ExUnit.Case", "uses", 2, "", "", "external"),
        (TEST, "UserTest", "Greeter", "uses", 3, GREETER, "Greeter", "exact"),
    }


def test_elixir_syntax_errors_are_counted_not_fatal() -> None:
    f = extract(
        "elixir", "broken.ex", b"defmodule Ok do\n  def ok, do: go()\nend\ndef broken(\n\xff\n"
    )
    assert f.errors > 0
    assert "Ok.ok" in {s.qualname for s in f.symbols}


def test_elixir_heredoc_and_sigil_docs_are_kept_as_written() -> None:
    source = (
        "defmodule A do\n"
        '  @moduledoc ~S"""\n'
        "  Shows `#{x}` literally.\n"
        "\n"
        "      iex> A.add(1)\n"
        '  """\n'
        '  @doc since: "1.1"\n'
        '  @doc "Adds #{@step}."\n'
        "  def add(x), do: x\n"
        "end\n"
    )
    f = extract("elixir", "a.ex", source)
    assert f.module_doc == "Shows `#{x}` literally.\n\n    iex> A.add(1)"
    assert [(s.qualname, s.docstring) for s in f.symbols][1] == ("A.add", "Adds #{@step}.")


def test_elixir_explain_module_lists_a_modules_functions_by_path_or_name(tmp_path: Path) -> None:
    """A module's public functions are its exports (its private ones and a nested module's
    members are not), whether the module is named with dots or not, asked by file, by
    module name or by folder."""
    graph = build(tmp_path, ELIXIR)
    math = graph.explain_module(MATH)
    assert [s["qualname"] for s in math.items] == [
        "Math",
        "Math.sum",
        "Math.zero?",
        "Math.odd_triples",
    ]
    by_name = graph.explain_module("Math.List")  # no file is named after it: math/list.ex
    assert by_name.extra["path"] == LIST
    assert [s["qualname"] for s in by_name.items] == [
        "Math.List",
        "Math.List.sum",
        "Math.List.total",
    ]
    user = graph.explain_module("User")
    assert [s["qualname"] for s in user.items] == [
        "User",
        "User.__struct__",
        "User.Admin",  # a nested module, without its own members
        "User.admin",
    ]
    folder = graph.explain_module("lib/math")
    assert [s["qualname"] for s in folder.items] == [
        "Math.List",
        "Math.List.sum",
        "Math.List.total",
    ]
