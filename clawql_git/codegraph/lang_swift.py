"""Swift facts: classes, structs, enums, protocols, actors, extensions, functions, imports.

Conventions:

- qualnames are dotted: ``Cart.add``, nested ``Outer.Inner``; members of ``extension Cart``
  are members of ``Cart`` (``Cart.area``); ``init`` is ``Cart.init``.
- kinds: ``class``/``actor`` -> 'class', ``struct`` -> 'struct', ``enum`` -> 'enum',
  ``protocol`` -> 'interface', ``typealias`` -> 'type'; ``func`` -> 'method' in a type,
  else 'function'; properties (``let``/``var``) -> 'variable'; ``extension Cart: Shape``
  -> 'extension' ``Cart`` (``extension Kit.Cart`` -> name ``Cart``, qualname ``Kit.Cart``;
  its signature the head as written, its doc the comment above;
  the resolver does not take it for a definition of ``Cart``).
- docs: ``///`` lines or a ``/** */`` block right above the declaration (or its
  attributes); attributes (``@MainActor``) are decorators.
- exported: not ``private``/``fileprivate``.
- imports: ``import ShopKit`` (also ``import struct ShopKit.Cart``) -> module 'ShopKit',
  name '*': an import brings every public name of the module into scope. Files of the
  same module see each other's names without an import (the resolver's rule).
- bases: a class's first inherited type is 'extends', the others 'implements' (protocol
  conformance; Swift does not say which is which); struct, enum, actor and extension
  bases are 'implements' (an extension's edge has the extended type as written as its
  child); a protocol's bases 'extends'.
- calls: ``f()``, ``a.b.c()``, ``self.x()``, ``super.x()``, ``a?.b()`` with dots; ``Foo()``
  and ``Foo<T>()`` -> ``Foo`` (an initializer call), ``Foo().bar().baz()`` ->
  ``Foo().bar().baz``; ``f(x)`` and a trailing closure read by tree-sitter as a call of a
  call are one call; each records the argument labels of its chain (``Call.labels``;
  ``handler?(x)``, a call of an optional closure, has '?' among them).
- functions record their declared return type (``returns``, '' for one of their own type
  parameters) and their parameters' labels and types (``Symbol.labels``).
- assignments: property and parameter type annotations (``T?``, ``any P``, ``(T)`` -> ``T``;
  a closure type as written), ``let x = Foo()`` / ``if let x = f()`` (value the callee,
  with the call's labels), ``let x = a.b`` / ``guard let x = y`` (value ``=a.b``); a
  closure's parameters (value ``{ARG:I}CALLEE``: ``on_closure``) and the ``error`` of a
  ``catch { }`` without a pattern are seen inside their span only.
- ``resolve_module``: a module name -> the ``.swift`` files under ``Sources/<name>/``
  (Swift Package Manager), else under a directory named ``<name>``; system frameworks
  (``Foundation``, ``UIKit``, ...) -> [].
"""

from __future__ import annotations

import posixpath
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import Assignment, Call, FileFacts, RepoView, Symbol, SymbolKind
from clawql_git.codegraph.swift_resolve import SwiftCalls
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    collapse,
    end_line,
    line,
    text,
    walk_file,
)
from clawql_git.codegraph.vapor_routes import vapor_routes

_KINDS: dict[str, SymbolKind] = {
    "class": "class",
    "actor": "class",
    "struct": "struct",
    "enum": "enum",
    "protocol": "interface",
}
_HIDDEN = frozenset({"private", "fileprivate"})
_WRAPPED_TYPES = frozenset(
    {"optional_type", "existential_type", "opaque_type", "tuple_type", "tuple_type_item"}
)
_MARKED = frozenset({"try_expression", "await_expression"})
_WRAPPERS = _MARKED | {"optional_chaining_expression", "postfix_expression"}
_CALLS = frozenset({"call_expression", "constructor_expression"})
_SUFFIXES = frozenset({"call_suffix", "constructor_suffix"})


def _languages() -> dict[str, object]:
    import tree_sitter_swift

    return {"swift": tree_sitter_swift.language}


def type_name(node: Node | None) -> str:
    """The type a type names (``Repo``, ``Kit.Repo``, ``Repo?`` -> ``Repo``), '' for others."""
    if node is None:
        return ""
    if node.type == "type_annotation":
        return type_name(node.child_by_field_name("name"))
    if node.type in _WRAPPED_TYPES and len(node.named_children) == 1:
        return type_name(node.named_children[0])  # ``T?``, ``any P``, ``some P``, ``(T)``
    if node.type == "user_type":
        return ".".join(text(c) for c in node.named_children if c.type == "type_identifier")
    if node.type == "type_identifier":
        return text(node)
    return ""


def value_type(node: Node | None) -> str:
    """A declared type as the resolver reads it: the type it names, ``[T]`` for an array of
    one (``[Request]``), ``G<T>`` for a generic type given one type it names
    (``Protected<State>``), '' for others."""
    if node is not None and node.type == "type_annotation":
        return value_type(node.child_by_field_name("name"))
    if node is not None and node.type in _WRAPPED_TYPES and len(node.named_children) == 1:
        return value_type(node.named_children[0])
    arguments = [c for c in node.named_children if c.type == "type_arguments"] if node else []
    if node is not None and node.type == "user_type" and len(arguments) == 1:
        given = [type_name(a) for a in arguments[0].named_children]
        named = type_name(node)
        return f"{named}<{given[0]}>" if named and len(given) == 1 and given[0] else named
    if node is not None and node.type == "array_type" and len(node.named_children) == 1:
        element = type_name(node.named_children[0])
        return f"[{element}]" if element else ""
    return type_name(node)


def declared_type(node: Node) -> str:
    """A parameter's type: as ``value_type``, or a function type as written (a closure)."""
    return collapse(text(node)) if node.type == "function_type" else value_type(node)


def return_type(node: Node) -> str:
    """The type a function's declared return type names ('' when none is written or it is
    one of the function's own type parameters)."""
    written = next(
        (n for n in node.children_by_field_name("name") if n.type != "simple_identifier"), None
    )
    named = value_type(written)
    generic = {
        text(p.named_children[0])
        for params in node.named_children
        if params.type == "type_parameters"
        for p in params.named_children
        if p.type == "type_parameter" and p.named_children
    }
    return "" if named in generic else named


def unwrapped(node: Node | None) -> Node | None:
    """An expression without its ``try``/``await``."""
    while node is not None and node.type in _MARKED:
        node = node.child_by_field_name("expr") or (
            node.named_children[-1] if node.named_children else None
        )
    return node


def closure_of(node: Node) -> Node | None:
    """The call a trailing closure belongs to when tree-sitter-swift reads ``f(x)`` and a
    closure after it (on the next line, or after ``try``) as a call of the call ``f(x)``;
    None for any other call."""
    suffix = next((c for c in node.named_children if c.type == "call_suffix"), None)
    if suffix is None or any(c.type != "lambda_literal" for c in suffix.named_children):
        return None
    inner = unwrapped(node.named_children[0])
    return inner if inner is not None and inner.type in _CALLS else None


def callee_name(node: Node | None) -> str:
    """A receiver or callee with dots: ``self.repo.find``, ``Foo().bar``; '' otherwise."""
    if node is None:
        return ""
    kind = node.type
    if kind == "simple_identifier":
        return text(node)
    if kind == "self_expression":
        return "self"
    if kind == "super_expression":
        return "super"
    if kind == "navigation_expression":
        head = callee_name(node.child_by_field_name("target"))
        suffix = node.child_by_field_name("suffix")
        name = suffix.child_by_field_name("suffix") if suffix is not None else None
        if head and name is not None and name.type == "simple_identifier":
            return f"{head}.{text(name)}"
        return ""
    if kind in _CALLS and node.named_children:
        called = call_name(node)
        return f"{called}()" if called else ""
    if kind in _WRAPPERS and node.named_children:
        return callee_name(unwrapped(node) if kind in _MARKED else node.named_children[0])
    return ""


def call_name(node: Node) -> str:
    """The callee of a call (``a.b`` of ``a.b(x)``), a type for an initializer call."""
    if node.type == "constructor_expression":
        return type_name(node.child_by_field_name("constructed_type"))
    inner = closure_of(node)
    if inner is not None:
        return call_name(inner)
    return callee_name(node.named_children[0]) if node.named_children else ""


def call_labels(node: Node) -> str:
    """The argument labels of one call, joined by ',': '_' for an unlabelled argument, '{'
    for a trailing closure (``f(x, y: 1) { }`` -> ``_,y,{``); '?' first for a call of an
    optional closure (``handler?(x)`` -> ``?,_``), which no function's labels fit."""
    suffix = next((c for c in node.named_children if c.type in _SUFFIXES), None)
    optional = any(c.type == "?" for c in node.children) and not subscript(suffix)
    out: list[str] = ["?"] if optional else []
    for part in suffix.named_children if suffix is not None else ():
        if part.type == "value_arguments":
            for arg in (a for a in part.named_children if a.type == "value_argument"):
                label = arg.child_by_field_name("name")
                out.append(text(label).removesuffix(":").strip() if label is not None else "_")
        elif part.type == "lambda_literal":
            out.append("{")
    return ",".join(out)


def subscript(suffix: Node | None) -> bool:
    """Whether a call suffix is a subscript's ``[...]`` (tree-sitter-swift reads ``a[i]`` as a
    call)."""
    args = (
        next((c for c in suffix.named_children if c.type == "value_arguments"), None)
        if suffix
        else None
    )
    return args is not None and args.child_count > 0 and args.children[0].type == "["


def chain_labels(node: Node | None) -> tuple[str, ...]:
    """The labels of each call of an expression chain as ``callee_name`` reads it, left to
    right (``node`` itself included when it is a call)."""
    if node is None:
        return ()
    if node.type == "navigation_expression":
        return chain_labels(node.child_by_field_name("target"))
    if node.type == "call_expression" and node.named_children:
        inner = closure_of(node)
        if inner is not None:
            *before, last = chain_labels(inner) or ("",)
            return (*before, ",".join(p for p in (last, "{") if p))
        return (*chain_labels(node.named_children[0]), call_labels(node))
    if node.type == "constructor_expression":
        return (call_labels(node),)
    if node.type in _WRAPPERS and node.named_children:
        return chain_labels(unwrapped(node) if node.type in _MARKED else node.named_children[0])
    return ()


def argument_of(closure: Node) -> tuple[Node | None, int]:
    """The call a closure is an argument of and its place among the call's labels (a
    trailing closure's, of ``f(x) { }`` read as a call of a call, counted after ``f``'s own
    arguments); (None, -1) for a closure that is no argument."""
    holder = closure.parent
    if holder is not None and holder.type == "value_argument":
        holder = holder.parent.parent if holder.parent is not None else None
    call = holder.parent if holder is not None and holder.type in _SUFFIXES else None
    if call is None or call.type not in _CALLS:
        return None, -1
    inner = closure_of(call) if call.type == "call_expression" else None
    parts: list[Node] = []
    for suffix in (s for c in (inner, call) if c is not None for s in c.named_children):
        if suffix.type not in _SUFFIXES:
            continue
        for part in suffix.named_children:
            if part.type == "value_arguments":
                parts += [a for a in part.named_children if a.type == "value_argument"]
            elif part.type == "lambda_literal":
                parts.append(part)
    place = next((i for i, p in enumerate(parts) if closure in (p, *p.named_children)), -1)
    return (call if place >= 0 else None), place


def parameter_labels(node: Node) -> tuple[str, ...]:
    """A function's parameters as ``Symbol.labels`` writes them: the argument label, ``:``
    and the type named (a function type as written in braces, ``{(Int) -> Void}``; nothing
    for another unnamed one), then ``...`` for a variadic one, ``=`` for one with a default
    value (``_:Int``, ``b:Int=``)."""
    out: list[str] = []
    for i, child in enumerate(node.children):
        if child.type == "parameter":
            outer = child.child_by_field_name("external_name")
            names = child.children_by_field_name("name")
            label = text(outer if outer is not None else names[0]) if names else "_"
            written = next((n for n in names[1:] if n.type != "simple_identifier"), None)
            closure = written is not None and "->" in text(written)
            named = f"{{{collapse(text(written))}}}" if closure else type_name(written)
            if "@autoclosure" in text(child):  # takes a value, not a closure
                named = "" if closure else named
            variadic = any(c.type == "..." for c in child.children)
            out.append(f"{label}:{named}" + ("..." if variadic else ""))
        elif out and node.field_name_for_child(i) == "default_value":
            out[-1] += "="
    return tuple(out)


def modifiers(node: Node) -> tuple[set[str], list[Node]]:
    """A declaration's modifier words and its attribute nodes."""
    words: set[str] = set()
    attributes: list[Node] = []
    for child in node.named_children:
        if child.type == "modifiers":
            for mod in child.named_children:
                if mod.type == "attribute":
                    attributes.append(mod)
                else:
                    words.add(text(mod))
    return words, attributes


class SwiftWalker(Walker):
    """One pass over a Swift tree."""

    handlers: ClassVar[dict[str, str]] = {
        "import_declaration": "on_import",
        "class_declaration": "on_type",
        "protocol_declaration": "on_type",
        "function_declaration": "on_function",
        "protocol_function_declaration": "on_function",
        "init_declaration": "on_function",
        "property_declaration": "on_property",
        "protocol_property_declaration": "on_property",
        "typealias_declaration": "on_alias",
        "call_expression": "on_call",
        "constructor_expression": "on_call",
        "if_statement": "on_condition",
        "guard_statement": "on_condition",
        "for_statement": "on_for",
        "attribute": "on_attribute",
        "lambda_literal": "on_closure",
        "catch_block": "on_catch",
        "comment": "on_above",
        "multiline_comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(node) if c.type in {"comment", "multiline_comment"}]
        if comments and text(comments[-1]).startswith("/**"):
            return clean_block_doc(text(comments[-1]))
        lines: list[str] = []
        for comment in reversed(comments):
            if not text(comment).startswith("///"):
                break
            lines.insert(0, text(comment))
        return clean_line_docs(lines, "///")

    def head(self, node: Node, body: Node | None) -> str:
        """The declaration without its attributes, up to its body, on one line."""
        start = node.start_byte
        for child in node.named_children:
            if child.type == "modifiers":
                kept = [m for m in child.named_children if m.type != "attribute"]
                start = kept[0].start_byte if kept else child.end_byte
                break
        end = body.start_byte if body is not None else node.end_byte
        raw = self.source[start:end].decode("utf-8", "replace")
        return collapse(raw.strip().rstrip("={").rstrip())

    def decorators(self, attributes: list[Node]) -> tuple[str, ...]:
        for attribute in attributes:
            self.on_attribute(attribute)
        return tuple(collapse(text(a)).lstrip("@") for a in attributes)

    def on_import(self, node: Node) -> None:
        path = next((c for c in node.named_children if c.type == "identifier"), None)
        if path is not None:
            module = text(path.named_children[0]) if path.named_children else text(path)
            self.add_import(module, "*", "", node)

    def on_type(self, node: Node) -> None:
        kind_node = node.child_by_field_name("declaration_kind")
        keyword = text(kind_node) if kind_node is not None else "class"
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        bases = [
            (spec, type_name(spec.child_by_field_name("inherits_from")))
            for spec in node.named_children
            if spec.type == "inheritance_specifier"
        ]
        if keyword == "extension":
            extended = type_name(name_node)
            written = extended or collapse(text(name_node))  # extension [Header]
            outer, _, last = written.rpartition(".") if extended else ("", "", written)
            parts = outer.split(".") if outer else []
            self.scope.extend(parts)
            self._type_symbol(node, last, "extension", body, bases)
            del self.scope[len(self.scope) - len(parts) :]
            for at, base in bases:
                self.add_supertype(extended, base, at, "implements", self.qualname)
            self._members(extended.split("."), body)
            return
        name = text(name_node)
        kind = _KINDS.get(keyword, "class")
        symbol = self._type_symbol(node, name, kind, body, bases)
        for i, (at, base) in enumerate(bases):
            first_of_class = i == 0 and keyword == "class"
            relation = "extends" if first_of_class or kind == "interface" else "implements"
            self.add_supertype(symbol.qualname, base, at, relation)
        self._members([name], body)

    def _type_symbol(
        self,
        node: Node,
        name: str,
        kind: SymbolKind,
        body: Node | None,
        bases: list[tuple[Node, str]],
    ) -> Symbol:
        """The symbol of a type declaration or an extension: its head as the signature."""
        words, attributes = modifiers(node)
        return self.add_symbol(
            node,
            name,
            kind,
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & _HIDDEN,
            decorators=self.decorators(attributes),
            bases=tuple(b for _, b in bases if b),
        )

    def _members(self, names: list[str], body: Node | None) -> None:
        for part in names:
            self.scope.append(part)
        saved, self.context = self.context, "body"
        self.type_scopes.append(self.qualname)
        self.visit(body)
        self.type_scopes.pop()
        self.context = saved
        del self.scope[len(self.scope) - len(names) :]

    def on_function(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        name = "init" if node.type == "init_declaration" else text(name_node)
        words, attributes = modifiers(node)
        body = node.child_by_field_name("body")
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & _HIDDEN,
            decorators=self.decorators(attributes),
            returns=return_type(node) if node.type != "init_declaration" else "",
            labels=parameter_labels(node),
        )
        with self.enter(name):
            for param in (c for c in node.named_children if c.type == "parameter"):
                names = [c for c in param.children_by_field_name("name")]
                pname = next((text(c) for c in names if c.type == "simple_identifier"), "")
                declared = next((declared_type(c) for c in names if declared_type(c)), "")
                self.assign(pname, declared, param, True)
            for child in node.named_children:
                if child.type not in {"parameter", "modifiers", "simple_identifier"}:
                    self.visit(child)

    def on_property(self, node: Node) -> None:
        words, attributes = modifiers(node)
        pattern = node.child_by_field_name("name")
        bound = pattern.child_by_field_name("bound_identifier") if pattern is not None else None
        name = text(bound if bound is not None else pattern)
        annotation = next((c for c in node.named_children if c.type == "type_annotation"), None)
        value = node.child_by_field_name("value")
        at_type_level = not self.scope or (
            bool(self.type_scopes) and self.qualname == self.type_scopes[-1]
        )
        if name and at_type_level:
            self.add_symbol(
                node,
                name,
                "variable",
                signature=self.head(node, value),
                docstring=self.doc(node),
                exported=not words & _HIDDEN,
                decorators=self.decorators(attributes),
            )
        plain = name.strip("`")  # ``static var `default` `` is read as ``T.default``
        self.assign(plain, value_type(annotation), node, True)
        if value is not None:
            self.assign_value(plain, value, node)
        self.visit(value)
        for child in node.named_children:
            if child.type in {"computed_property", "willset_didset_block"}:
                self.visit(child)

    def on_alias(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        if name:
            self.add_symbol(
                node, name, "type", signature=collapse(text(node)), docstring=self.doc(node)
            )

    def on_call(self, node: Node) -> None:
        name = call_name(node)
        if name:
            at = (node.start_point[0] + 1, node.start_point[1])
            call = Call(name, self.qualname, *at, self.context, labels=chain_labels(node))
            self.facts.calls.append(call)
        inner = closure_of(node) if node.type == "call_expression" else None
        if inner is not None:  # ``f(x)`` and its trailing closure: one call
            self.visit_parts(inner)
            self.visit_children(node.named_children[-1])
        else:
            self.visit_parts(node)

    def visit_parts(self, node: Node) -> None:
        """What a call holds besides itself: its receiver chain's calls, its arguments."""
        fn = node.named_children[0] if node.named_children else None
        if node.type == "constructor_expression":
            fn = None
        elif fn is not None and fn.type == "navigation_expression":
            target = fn.child_by_field_name("target")
            if target is not None and target.type not in {"simple_identifier", "self_expression"}:
                self.visit(target)
        elif fn is not None and fn.type != "simple_identifier":
            self.visit(fn)
        for rest in node.named_children[1 if node.type == "call_expression" else 0 :]:
            if rest is not fn and rest.type != "user_type":
                self.visit(rest)

    def on_condition(self, node: Node) -> None:
        """``if let x = y``, ``guard let x = f() else``: ``x`` is given ``y``'s value."""
        bound = ""
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if field == "bound_identifier":
                bound = text(child)
            elif child.type == "value_binding_pattern":
                bound = ""
            elif field == "condition" and bound and child.is_named:
                self.assign_value(bound, child, child)
                bound = ""
        self.visit_children(node)

    def on_for(self, node: Node) -> None:
        """``for x in xs``: ``x`` is an element of ``xs`` (value ``[]=xs``)."""
        item = node.child_by_field_name("item")
        bound = item.child_by_field_name("bound_identifier") if item is not None else None
        written = callee_name(unwrapped(node.child_by_field_name("collection")))
        if bound is not None and written and "(" not in written:
            self.assign(text(bound), f"[]={written}", node, False)
        self.visit_children(node)

    def assign_value(self, name: str, value: Node, at: Node) -> None:
        """``name`` is given ``value``: a call's callee, else ``=`` and a name as written."""
        inner = unwrapped(value)
        if inner is None:
            return
        if inner.type in _CALLS:
            made = callee_name(inner).removesuffix("()")
            if name and made and name not in self.unnamed:
                labels = chain_labels(inner)
                self.facts.assignments.append(
                    Assignment(name, made, self.qualname, line(at), False, labels)
                )
        elif inner.type in {"navigation_expression", "simple_identifier", "self_expression"}:
            written = callee_name(inner)
            self.assign(name, f"={written}" if written else "", at, False)

    def on_closure(self, node: Node) -> None:
        """A closure's parameters (``{ a, b in }``, else ``$0``, ``$1``, ``$2``), seen inside
        its span only: an argument of a call is given ``{ARG:I}CALLEE`` (the closure is
        argument ARG of the call, as its labels count, and this is its parameter I), with
        the call's labels; the parameters of another closure are given ``{}`` (unknown)."""
        names = [
            text(name)
            for params in node.named_children
            if params.type == "lambda_function_type"
            for group in params.named_children
            if group.type == "lambda_function_type_parameters"
            for param in group.named_children
            if param.type == "lambda_parameter"
            for name in param.children_by_field_name("name")[:1]
        ]
        call, at = argument_of(node)
        value = f"{call_name(call)}" if call is not None else ""
        labels = chain_labels(call) if call is not None else ()
        span = (line(node), node.start_point[1], end_line(node), node.end_point[1])
        for i, name in enumerate(names or ["$0", "$1", "$2"]):
            given = f"{{{at}:{i}}}{value}" if value else "{}"
            self.facts.assignments.append(
                Assignment(name, given, self.qualname, span[0], False, labels, span)
            )
        self.visit_children(node)

    def on_catch(self, node: Node) -> None:
        """``catch { }`` without a pattern binds the error to a local ``error`` of type
        ``any Error`` (The Swift Programming Language, Error Handling), inside it only."""
        if node.child_by_field_name("error") is None:
            span = (line(node), node.start_point[1], end_line(node), node.end_point[1])
            self.facts.assignments.append(
                Assignment("error", "Error", self.qualname, span[0], True, (), span)
            )
        self.visit_children(node)

    def on_attribute(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit_children(node)


class SwiftExtractor:
    """The Swift extractor the code graph loads as ``lang_swift.EXTRACTOR``."""

    version = "3"

    def __init__(self) -> None:
        self.suffixes = {".swift": "swift"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self.call_resolver = SwiftCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Swift file; syntax errors are counted and the rest still extracted."""
        root, facts, _ = walk_file(self._parsers, path, source, language, SwiftWalker)
        first = min(facts.symbols, key=lambda s: s.line, default=None)
        facts.module_doc = first.docstring if first is not None else ""
        vapor_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The files of Swift module ``module`` in the repository; [] for a framework."""
        if not module:
            return []
        swift = [f for f in sorted(repo.files) if f.endswith(".swift")]
        spm = [f for f in swift if f"/Sources/{module}/" in "/" + f]
        if spm:
            return spm
        return [f for f in swift if f"/{module}/" in "/" + posixpath.dirname(f) + "/"]


EXTRACTOR = SwiftExtractor()
