"""Ruby facts: modules, classes, methods, constants, ``require``, mixins, calls.

Conventions:

- qualnames are dotted through modules and classes: ``module Shop; class Cart; def add``
  is ``Shop.Cart.add``; ``class Shop::Cart`` is ``Shop.Cart`` too (name ``Cart``). A path
  from the top level (``module ::Helper``, ``class ::A::B``) leaves the enclosing scopes:
  ``Helper``, ``A.B``, wherever it is written. Singleton methods (``def self.build``) are
  ``Cart.build`` like instance methods.
- kinds: ``module`` -> 'module' (a namespace and a mixin), ``class`` -> 'class', ``def`` ->
  'method' inside a class or module, else 'function'; ``NAME = ...`` -> 'constant';
  ``attr_reader/attr_writer/attr_accessor :x`` -> 'variable' ``Class.x``.
- docs: the ``#`` comment lines right above the definition (magic comments such as
  ``# frozen_string_literal: true`` are not docs); the file's doc is the comment above
  its first definition.
- exported: not after a bare ``private``/``protected`` in the class body, nor
  ``private def x``.
- imports: ``require 'shop/cart'`` -> module 'shop/cart'; ``require_relative 'cart'`` ->
  module './cart' (relative to the requiring file); both name '*' (Ruby's constants are
  global: what the required file defines is seen).
- mixins: ``include M`` / ``prepend M`` / ``extend M`` in a class or module body: ``M``
  among its bases and a Supertype edge with relation 'uses'; ``class A < B``: 'extends'.
- calls: ``foo(1)`` / ``foo`` (a bare name at statement level that is no local) ->
  ``foo``; ``self.bar`` -> ``self.bar``; ``@repo.find`` -> ``self.repo.find``;
  ``Shop::Util.format`` -> ``Shop.Util.format``; ``Foo.new(...)`` -> ``Foo`` (the class,
  as ``new Foo`` elsewhere), ``Foo.new.bar`` -> ``Foo().bar``.
- assignments: ``x = Foo.new`` and ``@x = Foo.new`` (target ``self.x``) give type evidence.
- ``resolve_module``: a relative module -> that file (``.rb`` added); else the file under
  ``lib/``, ``app/`` or the repository root, else the only file ending in ``/module.rb``;
  gems and the standard library -> [].
"""

from __future__ import annotations

import posixpath
import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph import ruby_blocks
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.rails_routes import rails_routes
from clawql_git.codegraph.ruby_resolve import RubyCalls
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_line_docs,
    collapse,
    line,
    text,
    walk_file,
)

_MIXINS = frozenset({"include", "prepend", "extend"})
_REQUIRES = frozenset({"require", "require_relative", "load", "autoload"})
_ATTRS = frozenset({"attr_reader", "attr_writer", "attr_accessor"})
_VISIBILITY = frozenset({"private", "protected", "public", "private_class_method"})
_MAGIC = re.compile(r"^#\s*(frozen_string_literal|encoding|coding|warn_indent|typed):")
_CLASS_FACTORIES = ("Struct.new", "Class.new", "Data.define", "Module.new")
_LOAD_ROOTS = ("lib/", "app/", "")
_STATEMENT_PARENTS = frozenset({"body_statement", "program", "then", "else", "do", "block_body"})


def _languages() -> dict[str, object]:
    import tree_sitter_ruby

    return {"ruby": tree_sitter_ruby.language}


def constant_path(node: Node | None) -> str:
    """``Shop::Cart`` / ``::Cart`` / ``Cart`` -> ``Shop.Cart`` / ``Cart``; '' for others."""
    if node is None:
        return ""
    if node.type == "constant":
        return text(node)
    if node.type == "scope_resolution":
        scope = node.child_by_field_name("scope")
        name = text(node.child_by_field_name("name"))
        if scope is None:
            return name
        head = constant_path(scope)
        return f"{head}.{name}" if head and name else ""
    return ""


def rooted(node: Node | None) -> bool:
    """True for a constant path from the top level: ``::Cart``, ``::Shop::Cart``."""
    while node is not None and node.type == "scope_resolution":
        scope = node.child_by_field_name("scope")
        if scope is None:
            return True
        node = scope
    return False


def receiver_name(node: Node | None) -> str:
    """A receiver with dots: ``@repo`` -> ``self.repo``, ``a.b`` -> ``a.b``, ``Foo.new`` ->
    ``Foo()``; '' when it is not a name."""
    if node is None:
        return ""
    kind = node.type
    if kind in {"identifier", "self"}:
        return text(node)
    if kind == "instance_variable":
        return "self." + text(node).lstrip("@")
    if kind in {"constant", "scope_resolution"}:
        return constant_path(node)
    if kind == "call":
        receiver = node.child_by_field_name("receiver")
        method = text(node.child_by_field_name("method"))
        if node.child_by_field_name("arguments") is not None or receiver is None:
            head = receiver_name(receiver) if receiver is not None else ""
            if method == "new" and head:
                return f"{head}()"
            return ""
        head = receiver_name(receiver)
        if method == "new" and head:
            return f"{head}()"
        return f"{head}.{method}" if head and "(" not in head else ""
    if kind == "parenthesized_statements" and node.named_children:
        return receiver_name(node.named_children[0])
    return ""


def literal(node: Node | None) -> str:
    """The content of a plain string (no interpolation); '' otherwise."""
    if node is None or node.type != "string":
        return ""
    parts = node.named_children
    if any(p.type != "string_content" for p in parts):
        return ""
    return "".join(text(p) for p in parts)


class RubyWalker(Walker):
    """One pass over a Ruby tree."""

    handlers: ClassVar[dict[str, str]] = {
        "module": "on_type",
        "class": "on_type",
        "singleton_class": "on_singleton_class",
        "method": "on_method",
        "singleton_method": "on_method",
        "call": "on_call",
        "identifier": "on_identifier",
        "assignment": "on_assign",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []
        self.private: list[bool] = [False]
        self.locals: list[set[str]] = [set()]
        self.blocks: list[str] = []  # what the enclosing blocks are given to, outermost first
        self.block_locals: list[set[str]] = []  # their parameters
        self.block_param: list[str] = [""]  # the enclosing method's ``&block`` parameter
        self.subclasses: list[set[str]] = [set()]  # its locals set to ``Class.new(self)``

    def doc(self, node: Node) -> str:
        lines = []
        for comment in self.leading(node):
            raw = text(comment)
            if comment.type == "comment" and raw.startswith("#") and not _MAGIC.match(raw):
                lines.append(raw)
        return clean_line_docs(lines, "#")

    def on_type(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        written = constant_path(name_node)
        if name_node is None or not written:
            self.visit_children(node)
            return
        kind: SymbolKind = "module" if node.type == "module" else "class"
        body = node.child_by_field_name("body")
        superclass = node.child_by_field_name("superclass")
        base = ""
        if superclass is not None and superclass.named_children:
            base = constant_path(superclass.named_children[0])
        mixins = self._mixins(body)
        bases = ([base] if base else []) + [m for _, m in mixins]
        parts = written.split(".")
        enclosing = self.scope
        # ``class Shop::Cart``: Shop is a scope, not a definition; ``::Cart`` is top-level
        self.scope = ([] if rooted(name_node) else list(enclosing)) + parts[:-1]
        symbol = self.add_symbol(
            node,
            parts[-1],
            kind,
            signature=self.head(node, superclass or name_node),
            docstring=self.doc(node),
            bases=tuple(bases),
        )
        if base and superclass is not None:
            self.add_supertype(symbol.qualname, base, superclass, "extends")
        for at, mixin in mixins:
            self.add_supertype(symbol.qualname, mixin, at, "uses")
        with self.enter(parts[-1]):
            self.type_scopes.append(self.qualname)
            self.private.append(False)
            self.locals.append(set())
            for child in node.named_children:
                if child is not name_node and child is not superclass:
                    self.visit(child)
            self.locals.pop()
            self.private.pop()
            self.type_scopes.pop()
        self.scope = enclosing

    def head(self, node: Node, last: Node) -> str:
        """The source of ``node`` up to the end of ``last``, on one line."""
        return collapse(self.source[node.start_byte : last.end_byte].decode("utf-8", "replace"))

    def _mixins(self, body: Node | None) -> list[tuple[Node, str]]:
        found = []
        for stmt in body.named_children if body is not None else []:
            if stmt.type != "call" or stmt.child_by_field_name("receiver") is not None:
                continue
            if text(stmt.child_by_field_name("method")) not in _MIXINS:
                continue
            args = stmt.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else []:
                name = constant_path(arg)
                if name:
                    found.append((arg, name))
        return found

    def on_singleton_class(self, node: Node) -> None:
        self.visit(node.child_by_field_name("body"))  # ``class << self``: methods of the class

    def on_method(self, node: Node, private: bool = False) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        params = node.child_by_field_name("parameters")
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=self.method_signature(node, params),
            docstring=self.doc(node),
            exported=not (private or self.private[-1]),
        )
        blocks, self.blocks = self.blocks, []  # a method's body has its own ``self``
        with self.enter(name):
            self.locals.append(set())
            self.block_param.append(ruby_blocks.block_parameter(params))
            self.subclasses.append(set())
            for param in params.named_children if params is not None else []:
                param_name = param.child_by_field_name("name")
                self.locals[-1].add(text(param_name if param_name is not None else param))
                self.visit(param.child_by_field_name("value"))
            self.visit(body)
            self.subclasses.pop()
            self.block_param.pop()
            self.locals.pop()
        self.blocks = blocks

    def method_signature(self, node: Node, params: Node | None) -> str:
        """``def add(item, qty = 1)``: the ``def`` line up to its parameters' end."""
        if params is not None:
            raw = self.source[node.start_byte : params.end_byte].decode("utf-8", "replace")
        else:
            raw = text(node).split("\n", 1)[0].split(";", 1)[0].split(" = ", 1)[0]
        return collapse(raw)

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        at_type_level = not self.scope or (
            bool(self.type_scopes) and self.qualname == self.type_scopes[-1]
        )
        if left is not None and left.type == "constant" and at_type_level:
            factory = right is not None and text(right).startswith(_CLASS_FACTORIES)
            self.add_symbol(
                node,
                text(left),
                "class" if factory else "constant",
                signature=collapse(text(node)),
                docstring=self.doc(node),
            )
        if left is not None and left.type == "identifier":
            self.locals[-1].add(text(left))
            if right is not None and collapse(text(right)) == ruby_blocks.SUBCLASS_OF_SELF:
                self.subclasses[-1].add(text(left))
        if left is not None and right is not None:
            target = receiver_name(left)
            if right.type == "call" and text(right.child_by_field_name("method")) == "new":
                made = receiver_name(right.child_by_field_name("receiver"))
                self.assign(target, made, node, False)
        self.visit(right)

    def on_identifier(self, node: Node) -> None:
        """A bare name as a statement is a call of a method without arguments (unless it is
        a local variable or a visibility keyword)."""
        name = text(node)
        parent = node.parent
        if parent is None or parent.type not in _STATEMENT_PARENTS:
            return
        if name in _VISIBILITY and self.type_scopes and self.qualname == self.type_scopes[-1]:
            self.private[-1] = name != "public"
            return
        if not any(name in scope for scope in self.locals):
            self.add_call(name, node)

    def add_call(self, callee: str, node: Node) -> None:
        """A call site; inside blocks given to calls, when it goes to ``self``, also what
        the blocks are given to (``ruby_blocks``)."""
        super().add_call(callee, node)
        if (
            callee
            and self.blocks
            and ruby_blocks.self_based(callee, self.locals + self.block_locals)
        ):
            target = ruby_blocks.site(line(node), node.start_point[1])
            owners = ruby_blocks.SEPARATOR.join(self.blocks)
            self.facts.assignments.append(Assignment(target, owners, self.qualname, line(node)))

    def on_call(self, node: Node) -> None:
        method = text(node.child_by_field_name("method"))
        receiver = node.child_by_field_name("receiver")
        args = node.child_by_field_name("arguments")
        if receiver is None and self._directive(node, method, args):
            return
        head = receiver_name(receiver) if receiver is not None else ""
        given_to = f"{head}.{method}" if head else method if receiver is None else "?"
        if self.block_param[-1] and ruby_blocks.forwards(args, self.block_param[-1]):
            on = "self" if head in self.subclasses[-1] else head
            value = ruby_blocks.forward_target(method, on, given_to, bool(self.blocks))
            forward = Assignment(ruby_blocks.BLOCK_FORWARD, value, self.qualname, line(node))
            self.facts.assignments.append(forward)
        if receiver is None:
            self.add_call(method, node)
        elif method == "new":
            self.add_call(receiver_name(receiver), node)
        else:
            head = receiver_name(receiver)
            if head:
                self.add_call(f"{head}.{method}", node)
            if receiver.type not in {"identifier", "constant", "scope_resolution", "self"}:
                self.visit(receiver)  # a chained call, a block's result, an expression
        self.visit(args)
        owner = ruby_blocks.block_owner(method, head, given_to)
        self.visit_block(node.child_by_field_name("block"), owner)

    def visit_block(self, block: Node | None, given_to: str) -> None:
        """A ``do ... end`` / ``{ ... }`` given to the call ``given_to``."""
        if block is None:
            return
        params = block.child_by_field_name("parameters")
        names = {text(p) for p in params.named_children} if params is not None else set()
        self.blocks.append(given_to)
        self.block_locals.append(names)
        self.visit(block)
        self.block_locals.pop()
        self.blocks.pop()

    def _directive(self, node: Node, method: str, args: Node | None) -> bool:
        """``require``, ``include``, ``attr_reader``, ``private def``: True when handled."""
        first = args.named_children[0] if args is not None and args.named_children else None
        if method in _REQUIRES:
            path = literal(args.named_children[-1] if args is not None else None)
            if not path:
                return False
            if method == "require_relative" and not path.startswith("."):
                path = "./" + path
            self.add_import(path, "*", "", node)
            return True
        if method in _MIXINS and self.type_scopes:
            return True  # recorded by on_type as bases and 'uses' edges
        if method in _ATTRS and self.type_scopes and args is not None:
            for arg in args.named_children:
                if arg.type == "simple_symbol":
                    self.add_symbol(
                        node,
                        text(arg).lstrip(":"),
                        "variable",
                        signature=" ".join(text(node).split()),
                        docstring=self.doc(node),
                        exported=not self.private[-1],
                    )
            return True
        if method in _VISIBILITY and first is not None and first.type == "method":
            self.on_method(first, private=method != "public")
            return True
        return False


class RubyExtractor:
    """The Ruby extractor the code graph loads as ``lang_ruby.EXTRACTOR``."""

    # 2: ``module ::Name`` is top-level wherever it is written; 3: blocks given to calls
    # and ``&block`` handed on (``ruby_blocks``)
    version = "3"

    def __init__(self) -> None:
        self.suffixes = {".rb": "ruby", ".rake": "ruby"}
        self.call_resolver = RubyCalls  # blocks evaluated with another ``self``
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Ruby file; syntax errors are counted and the rest still extracted."""
        root, facts, _ = walk_file(self._parsers, path, source, language, RubyWalker)
        first = min(facts.symbols, key=lambda s: s.line, default=None)
        facts.module_doc = first.docstring if first is not None else ""
        rails_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The required file of the repository, or [] for a gem or the standard library."""
        if not module:
            return []
        name = module if module.endswith(".rb") else module + ".rb"
        if module.startswith("."):
            here = posixpath.normpath(posixpath.join(posixpath.dirname(importer), name))
            return [here] if here in repo.files else []
        for root in _LOAD_ROOTS:
            if root + name in repo.files:
                return [root + name]
        tails = sorted(f for f in repo.files if f.endswith("/" + name))
        return tails if len(tails) == 1 else []


EXTRACTOR = RubyExtractor()
