"""Elixir facts: modules, functions, macros, structs, protocols, aliases and imports, calls.

Conventions:

- a module's qualname is its full Elixir name: ``defmodule Plug.Conn`` is ``Plug.Conn``
  (name ``Conn``), and ``defmodule Adapter`` nested in it is ``Plug.Conn.Adapter``, as
  Elixir names it; its functions are ``Plug.Conn.fun``.
- kinds: ``defmodule`` -> 'module', ``defprotocol`` -> 'interface', ``defimpl P, for: T`` ->
  the 'module' ``P.T``; ``def``/``defp``/``defmacro``/``defmacrop``/``defguard``/
  ``defguardp``/``defdelegate`` -> 'function' (the signature says which; a delegate calls
  its ``to:`` module's function), one per name and arity, its clauses merged (the first
  clause's head is the signature, the span runs to the last clause);
  ``defstruct``/``defexception`` -> the 'struct' ``Mod.__struct__`` (the function Elixir
  defines for it).
- docs: ``@doc`` (``@doc false``: none) above a function, else its ``#`` comment lines;
  ``@moduledoc`` is the module's doc and the file's.
- exported: not ``defp``/``defmacrop``/``defguardp``.
- imports: ``alias A.B`` -> module 'A.B', alias 'B' (``as: C``: alias 'C'; ``alias
  A.{B, C}`` one import each); ``import A`` -> name '*' (``only: [f: 1]``: name 'f', one
  import each); ``require A`` and ``use A`` -> name ''. ``__MODULE__`` is written as the
  enclosing module's name.
- bases: ``defimpl P, for: T`` -> a Supertype ``T`` -> ``P`` ('implements'; ``for:``
  left out: the enclosing module); ``@behaviour B`` -> the module 'implements' ``B``;
  ``use M`` -> the module 'uses' ``M`` (it runs ``M.__using__``).
- calls: ``f(x)`` -> ``f``; ``A.B.f(x)`` and ``A.B.f`` -> ``A.B.f``; ``x |> f()`` and ``x
  |> f`` -> ``f`` (the pipe's left side is the first argument); ``&f/1`` -> ``f``;
  ``:ets.lookup(t)`` -> ``:ets.lookup``; ``%User{}`` -> ``User.__struct__``; ``var.f(x)``
  -> ``var.f`` (a module held in a variable: unresolved). Special forms and the
  definition macros (``if``, ``case``, ``def``, ``quote``...) are no calls; typespecs
  (``@spec``, ``@type``, ``@callback``) hold none.
- ``resolve_module``: a module name -> the file defining it (``defmodule`` lines, nested
  ones named through their indentation); anything else (Elixir, Erlang, dependencies) ->
  [].
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, RepoView, Symbol, SymbolKind
from clawql_git.codegraph.ts_util import Parsers, Walker, clean_line_docs, collapse, text, walk_file

_FUNCTIONS = frozenset(
    {"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate", "defn"}
)
_PRIVATE = frozenset({"defp", "defmacrop", "defguardp"})
_MODULES = frozenset({"defmodule", "defprotocol", "defimpl"})
_STRUCTS = frozenset({"defstruct", "defexception"})
_IMPORTS = frozenset({"alias", "import", "require", "use"})
# special forms and definition macros: the shape of the code, no calls
_FORMS = frozenset(
    {
        *_FUNCTIONS,
        *_MODULES,
        *_STRUCTS,
        *_IMPORTS,
        "if", "unless", "case", "cond", "with", "for", "try", "receive", "quote", "unquote",
        "unquote_splicing", "fn", "super", "__block__", "defoverridable", "defrecord",
        "defrecordp",
    }
)  # fmt: skip
_TYPESPECS = frozenset(
    {"spec", "type", "typep", "opaque", "callback", "macrocallback", "typedoc", "impl"}
)
_REMOTE_HEADS = frozenset({"alias", "atom", "dot"})  # ``Mod.f``, ``:mod.f``, ``A.B.f``


def _languages() -> dict[str, object]:
    import tree_sitter_elixir

    return {"elixir": tree_sitter_elixir.language}


def arguments(call: Node) -> list[Node]:
    """The argument nodes of a call (``f a, b`` and ``f(a, b)`` alike)."""
    args = next((c for c in call.named_children if c.type == "arguments"), None)
    return list(args.named_children) if args is not None else []


def target_name(call: Node) -> str:
    """The name a call's target is when it is an identifier (``def``, ``foo``); ''."""
    target = call.child_by_field_name("target")
    return text(target) if target is not None and target.type == "identifier" else ""


def keyword(args: list[Node], key: str) -> Node | None:
    """The value of ``key:`` in a call's trailing keyword list."""
    for arg in args:
        if arg.type != "keywords":
            continue
        for pair in arg.named_children:
            if text(pair.child_by_field_name("key")).rstrip(": ") == key:
                return pair.child_by_field_name("value")
    return None


def imported_names(only: Node | None) -> list[str]:
    """``only: [f: 1, g: 2]`` -> ['f', 'g']; [] for no list (``only: :macros``, none)."""
    if only is None or only.type != "list":
        return []
    names = []
    for item in only.named_children:
        for pair in item.named_children if item.type == "keywords" else []:
            names.append(text(pair.child_by_field_name("key")).rstrip(": "))
    return names


def operator(node: Node) -> str:
    return text(node.child_by_field_name("operator"))


def doc_text(node: Node | None) -> str:
    """A ``@doc``/``@moduledoc`` string as written between its quotes (interpolations kept
    as source), indentation shared by its lines removed; '' for ``false`` and the like."""
    if node is None or node.type not in {"string", "sigil"}:
        return ""
    parts = [c for c in node.named_children if c.type not in {"sigil_name", "sigil_modifiers"}]
    if not parts:
        return ""
    raw = text(node).encode()[
        parts[0].start_byte - node.start_byte : parts[-1].end_byte - node.start_byte
    ]
    return dedent(raw.decode("utf-8", "replace"))


def dedent(doc: str) -> str:
    """A heredoc's text without the indentation its lines share."""
    lines = doc.strip("\n").splitlines()
    widths = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(widths, default=0)
    return "\n".join(x[cut:] for x in lines).strip()


class ElixirWalker(Walker):
    """One pass over an Elixir tree."""

    handlers: ClassVar[dict[str, str]] = {
        "call": "on_call",
        "unary_operator": "on_unary",
        "binary_operator": "on_binary",
        "map": "on_map",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.modules: list[str] = []  # full names of the enclosing modules
        self.doc_above = ""  # the pending ``@doc``
        self.doc_false = False
        self.clauses: dict[tuple[str, int], int] = {}  # (qualname, arity) -> symbols index

    @property
    def module(self) -> str:
        return self.modules[-1] if self.modules else ""

    def written(self, node: Node | None) -> str:
        """A module as written (``A.B``, ``__MODULE__.Sub`` with the module's name, ``:ets``);
        '' for anything else."""
        if node is None:
            return ""
        if node.type == "alias":
            return text(node)
        if node.type == "atom":
            return text(node)
        if node.type == "identifier" and text(node) == "__MODULE__":
            return self.module
        if node.type == "dot":
            left = self.written(node.child_by_field_name("left"))
            right = node.child_by_field_name("right")
            if left and right is not None and right.type == "alias":
                return f"{left}.{text(right)}"
        return ""

    # ------------------------------------------------------------ calls and definitions

    def on_call(self, node: Node) -> None:
        name = target_name(node)
        if name in _MODULES:
            self.on_module(node, name)
        elif name in _FUNCTIONS:
            self.on_function(node, name)
        elif name in _STRUCTS:
            self.on_struct(node)
        elif name in _IMPORTS:
            self.on_import(node, name)
        else:
            if name not in _FORMS:
                self.add_call(self.callee(node), node)
            target = node.child_by_field_name("target")
            if target is not None and target.type == "dot":
                left = target.child_by_field_name("left")
                if left is not None and left.type not in _REMOTE_HEADS:
                    self.visit(left)  # ``a.b().c()``: the inner call
            for child in node.named_children:
                if child.type in {"arguments", "do_block"}:
                    self.visit_children(child)

    def callee(self, node: Node) -> str:
        """A call's callee as written; '' when it has none (``fun.(x)``, ``x.field``)."""
        target = node.child_by_field_name("target")
        if target is None:
            return ""
        if target.type == "identifier":
            return text(target)
        if target.type != "dot":
            return ""
        left = target.child_by_field_name("left")
        right = target.child_by_field_name("right")
        if right is None or right.type not in {"identifier", "operator_identifier"}:
            return ""
        head = self.written(left)
        if head:
            return f"{head}.{text(right)}"
        has_args = any(c.type == "arguments" for c in node.named_children)
        if left is not None and left.type == "identifier" and has_args:
            return f"{text(left)}.{text(right)}"  # ``mod.f(x)``: a module in a variable
        return ""

    def on_module(self, node: Node, macro: str) -> None:
        args = arguments(node)
        body = next((c for c in node.named_children if c.type == "do_block"), None)
        if macro == "defimpl":
            self.on_impl(node, args, body)
            return
        name = self.written(args[0]) if args else ""
        if not name:
            self.visit(body)
            return
        full = name
        if self.module and args[0].type == "alias":
            full = f"{self.module}.{name}"  # Elixir nests the names of nested modules
        kind: SymbolKind = "interface" if macro == "defprotocol" else "module"
        self.define_module(node, full, kind, body, f"{macro} {name}", ())

    def define_module(
        self,
        node: Node,
        full: str,
        kind: SymbolKind,
        body: Node | None,
        signature: str,
        bases: tuple[str, ...],
    ) -> Symbol:
        saved, self.scope = self.scope, full.split(".")[:-1]
        moduledoc, behaviours = self.module_attributes(body)
        symbol = self.add_symbol(
            node,
            full.rsplit(".", 1)[-1],
            kind,
            signature=collapse(signature),
            docstring=moduledoc,
            bases=(*bases, *(b for _, b in behaviours)),
        )
        for at, base in behaviours:
            self.add_supertype(full, base, at, "implements", full)
        self.scope = full.split(".")
        self.modules.append(full)
        pending = self.doc_above, self.doc_false
        self.doc_above, self.doc_false = "", False
        self.visit(body)
        self.doc_above, self.doc_false = pending
        self.modules.pop()
        self.scope = saved
        return symbol

    def module_attributes(self, body: Node | None) -> tuple[str, list[tuple[Node, str]]]:
        """A module body's ``@moduledoc`` and its ``@behaviour`` modules."""
        doc, behaviours = "", []
        for stmt in body.named_children if body is not None else []:
            attribute = self.attribute(stmt)
            if attribute is None:
                continue
            name, value = attribute
            if name == "moduledoc":
                doc = doc_text(value)
            elif name == "behaviour":
                base = self.written(value)
                if base:
                    behaviours.append((stmt, base))
        return doc, behaviours

    def attribute(self, node: Node) -> tuple[str, Node | None] | None:
        """``@name value`` -> (name, value); None for anything else."""
        if node.type != "unary_operator" or operator(node) != "@":
            return None
        operand = node.child_by_field_name("operand")
        if operand is None:
            return None
        if operand.type == "identifier":
            return text(operand), None
        if operand.type != "call":
            return None
        args = arguments(operand)
        return target_name(operand), args[0] if args else None

    def on_impl(self, node: Node, args: list[Node], body: Node | None) -> None:
        protocol = self.written(args[0]) if args else ""
        types = keyword(args, "for")
        if types is None:
            written = [self.module]
        else:
            items = types.named_children if types.type == "list" else [types]
            written = [self.written(t) for t in items]
        written = [t for t in written if t]
        if not protocol or not written:
            self.visit(body)
            return
        for typ in written:
            self.add_supertype(typ, protocol, node, "implements", self.module)
        saved, self.scope = self.scope, protocol.split(".")
        for typ in written[1:]:  # ``for: [A, B]``: one module each, the body read once
            self.add_symbol(
                node,
                typ,
                "module",
                signature=collapse(f"defimpl {protocol}, for: {typ}"),
                bases=(protocol,),
            )
        self.scope = saved
        head = written[0]
        self.define_module(
            node,
            f"{protocol}.{head}",
            "module",
            body,
            f"defimpl {protocol}, for: {head}",
            (protocol,),
        )

    def on_function(self, node: Node, macro: str) -> None:
        args = arguments(node)
        head = args[0] if args else None
        doc = self.take_doc(node)
        if head is None:
            return
        guard = None
        if head.type == "binary_operator" and operator(head) == "when":
            guard = head.child_by_field_name("right")
            head = head.child_by_field_name("left")
        name, params = self.function_head(head) if head is not None else ("", [])
        if not name:
            return
        qual = self.child_qualname(name)
        key = (qual, len(params))
        if key in self.clauses:  # another clause of the same function
            i = self.clauses[key]
            self.facts.symbols[i] = replace(self.facts.symbols[i], end_line=node.end_point[0] + 1)
        else:
            self.clauses[key] = len(self.facts.symbols)
            self.add_symbol(
                node,
                name,
                "function",
                signature=collapse(f"{macro} {text(args[0])}"),
                docstring=doc,
                exported=macro not in _PRIVATE,
            )
        with self.enter(name):
            for param in params:
                if param.type == "binary_operator" and operator(param) == "\\\\":
                    self.visit(param.child_by_field_name("right"))  # a default's calls
            self.visit(guard)
            if macro == "defdelegate":
                self.delegate(node, name, args)
            for child in args[1:]:
                self.visit(child)  # ``do: expr``
            for child in node.named_children:
                if child.type == "do_block":
                    self.visit_children(child)

    def delegate(self, node: Node, name: str, args: list[Node]) -> None:
        """``defdelegate f(x), to: Mod, as: :g``: a call of ``Mod.g`` from ``f``."""
        module = self.written(keyword(args, "to"))
        target = keyword(args, "as")
        fun = text(target).lstrip(":") if target is not None and target.type == "atom" else name
        if module:
            self.add_call(f"{module}.{fun}", node)

    def function_head(self, head: Node) -> tuple[str, list[Node]]:
        """``f(a, b)`` / ``f`` -> ('f', [a, b]) / ('f', []); ('', []) for an ``unquote``d
        or operator head."""
        if head.type == "identifier":
            return text(head), []
        if head.type == "call":
            name = target_name(head)
            if name and name != "unquote":
                return name, arguments(head)
        return "", []

    def take_doc(self, node: Node) -> str:
        """The pending ``@doc`` (consumed), else the ``#`` comments right above."""
        doc, hidden = self.doc_above, self.doc_false
        self.doc_above, self.doc_false = "", False
        if doc or hidden:
            return doc
        lines = [text(c) for c in self.leading(node) if c.type == "comment"]
        return clean_line_docs(lines, "#")

    def on_struct(self, node: Node) -> None:
        if not self.modules:
            return
        self.add_symbol(
            node,
            "__struct__",
            "struct",
            signature=collapse(text(node)),
            docstring="",
        )
        for arg in arguments(node):
            self.visit(arg)  # default values

    def on_import(self, node: Node, macro: str) -> None:
        args = arguments(node)
        if not args:
            return
        first = args[0]
        if macro == "alias" and first.type == "dot":
            right = first.child_by_field_name("right")
            if right is not None and right.type == "tuple":
                base = self.written(first.child_by_field_name("left"))
                for item in right.named_children:
                    name = self.written(item)
                    if base and name:
                        self.add_import(f"{base}.{name}", "", name.rsplit(".", 1)[-1], item)
                return
        module = self.written(first)
        if not module:
            return
        if macro == "alias":
            alias = self.written(keyword(args, "as")) or module.rsplit(".", 1)[-1]
            self.add_import(module, "", alias, node)
        elif macro == "import":
            names = imported_names(keyword(args, "only"))
            for name in names or ["*"]:
                self.add_import(module, name, "", node)
        else:
            self.add_import(module, "", "", node)
            if macro == "use" and self.modules:
                self.add_supertype(self.module, module, node, "uses", self.module)
                self.extend_bases(self.module, module)
        for arg in args[1:]:
            self.visit(arg)  # ``use Plug.Builder, init_mode: Mod.mode()``

    def extend_bases(self, module: str, base: str) -> None:
        for i, sym in enumerate(self.facts.symbols):
            if sym.qualname == module and sym.kind in {"module", "interface"}:
                self.facts.symbols[i] = replace(sym, bases=(*sym.bases, base))

    # ------------------------------------------------------------ operators

    def on_unary(self, node: Node) -> None:
        op = operator(node)
        operand = node.child_by_field_name("operand")
        if op == "@":
            self.on_attribute(node)
        elif op == "&" and operand is not None and operand.type == "binary_operator":
            left = operand.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                self.add_call(text(left), left)  # ``&f/1``: the function ``f``
            else:
                self.visit(left)
        else:
            self.visit(operand)

    def on_attribute(self, node: Node) -> None:
        found = self.attribute(node)
        if found is None:
            return
        name, value = found
        if name == "doc":
            if value is None or value.type == "keywords":  # ``@doc since: "1.1"``
                return
            self.doc_false = text(value) == "false"
            self.doc_above = doc_text(value)
        elif name not in _TYPESPECS and name not in {"moduledoc", "behaviour"}:
            self.visit(value)

    def on_binary(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        self.visit(left)
        op = operator(node)
        if op == "|>" and right is not None and right.type == "identifier":
            self.add_call(text(right), right)  # ``x |> f``
        elif op != "::":  # a type: ``<<x::binary-size(4)>>``, ``@spec f() :: t``
            self.visit(right)

    def on_map(self, node: Node) -> None:
        struct = next((c for c in node.named_children if c.type == "struct"), None)
        named = struct.named_children if struct is not None else []
        module = self.written(named[0]) if named else ""
        if module and not module.startswith(":"):
            self.add_call(f"{module}.__struct__", node)
        for child in node.named_children:
            if child.type != "struct":
                self.visit(child)


class ElixirExtractor:
    """The Elixir extractor the code graph loads as ``lang_elixir.EXTRACTOR``."""

    version = "1"

    def __init__(self) -> None:
        from clawql_git.codegraph.elixir_resolve import ElixirCalls

        self.suffixes = {".ex": "elixir", ".exs": "elixir"}
        self.call_resolver = ElixirCalls  # modules are global names: resolved by the module
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._modules: dict[str, list[str]] = {}

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Elixir file; syntax errors are counted and the rest still extracted."""
        _, facts, _ = walk_file(self._parsers, path, source, language, ElixirWalker)
        first = next((s for s in facts.symbols if s.kind in {"module", "interface"}), None)
        facts.module_doc = first.docstring if first is not None else ""
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The file defining module ``module`` in the repository; [] for any other."""
        if not module or not module[:1].isupper():
            return []
        if repo is not self._repo:
            from clawql_git.codegraph.elixir_resolve import scan_modules

            self._repo = repo
            self._modules = scan_modules(repo)
        return list(self._modules.get(module, []))


EXTRACTOR = ElixirExtractor()
