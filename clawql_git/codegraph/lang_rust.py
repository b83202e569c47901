"""Rust facts: items, impl methods, ``use`` trees and ``mod`` declarations, calls, types.

Conventions:

- qualnames are dotted like every other language: methods of ``impl Foo`` and of
  ``impl Trait for Foo`` are ``Foo.method`` (the trait is added to ``Foo``'s bases when
  ``Foo`` is defined in the same file, and is the method's own ``bases``); trait methods are
  ``Trait.method``; items of an inline ``mod tests { ... }`` are ``tests.item``. Callees keep
  Rust's spelling (``Foo::new``, ``self.repo.find``, turbofish arguments dropped) with the
  ``?`` and ``.await`` they pass through (``a()?.b``, ``c.d().await.e``); a call of a field's
  value is written in its parentheses (``(self.f)``). A function's ``returns`` is its return
  type as written.
- imports: ``use a::b::{c, d as e}`` -> module 'a::b', names 'c' and 'd' (alias 'e');
  ``use a::b::*`` -> name '*'; ``use a::b::{self}`` -> module 'a::b', name '';
  ``mod x;`` -> module 'self::x', name '', alias 'x'; ``extern crate x`` -> module 'x'.
  Inside inline modules the ``super``s climbing back to the file are written ``self``.
- an enum's variants are constants ``Enum.Variant``; ``E::V(..)`` and ``E::V { .. }`` call them.
- a struct expression ``Foo { .. }`` is a call of ``Foo`` (it constructs one, as ``Foo(..)``
  does a tuple struct).
- locals carry the span where they are in scope (The Rust Reference, scopes): a ``let`` from
  its end to the end of its block, a closure's parameters in its body, a ``for`` / match arm
  / ``if let`` pattern in what it guards; parameters and ``self`` have none (the function).
- an item ``m!(get, GET);`` of a ``macro_rules! m`` of the file whose rules expand to ``fn
  $name`` defines ``get`` (``rust_macros``; axum's ``top_level_handler_fn!``).
- calls inside macro arguments (``println!("{}", x.name())``, ``vec![Foo::new()]``) are
  found by scanning the macro's token tree for ``path(`` sequences.
- assignments (the evidence ``rust_resolve`` types receivers with): ``let x: Foo<T>``,
  typed parameters and struct fields with their types as written (a tuple struct's fields
  are ``0``, ``1``...), ``let x = <expression>`` written as a callee (``Foo::new()?``),
  ``Foo { .. }`` -> Foo, ``self`` and ``Self`` -> the impl's type (a trait's, in its body),
  type parameters ``<T>`` -> their bounds (``A + B``, else '?'), ``type A = B`` -> B;
  ``State(s): State<App>`` -> ``State<App>#0``; ``Some(x)`` / ``Ok(x)`` matched against
  ``v`` -> ``v?``; ``E::A(x)`` -> ``E::A#0`` (an enum's variant fields are ``A.0`` / ``B.x``
  in the enum's scope); the names other patterns, closures and ``for`` loops bind -> '?'.
- exported: a ``pub`` visibility (any ``pub(...)``), or a method of a trait impl.
- ``resolve_module``: ``crate::``, ``self::``, ``super::`` and ``mod`` paths are walked down
  from the crate root (the nearest directory with ``lib.rs``/``main.rs``) or the importing
  module, through ``a.rs`` / ``a/mod.rs``; the deepest module file reached is returned
  (the rest of the path names items in it). A crate the importer's ``Cargo.toml`` depends on
  by path (``rust_crates``) is walked down from its ``src/lib.rs``; other crates (std,
  crates.io dependencies) are [].
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.rust_crates import Manifests, crate_dir
from clawql_git.codegraph.rust_macros import FnMacro, fn_macro, generated_name
from clawql_git.codegraph.rust_resolve import RustCalls
from clawql_git.codegraph.rust_routes import rust_routes
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    collapse,
    line,
    strip_generics,
    text,
    walk_file,
)

_COMMENTS = frozenset({"line_comment", "block_comment"})
_ATTRIBUTES = frozenset({"attribute_item"})
_WRAPPERS = frozenset({"Box", "Arc", "Rc", "Cow"})
_PATH_TOKENS = frozenset({"identifier", "self", "super", "crate"})
_ROOT_FILES = ("lib.rs", "main.rs")
_PATTERN_MACROS = frozenset({"matches", "assert_matches", "debug_assert_matches"})
_SELF_TYPED = re.compile(r"^(mut\s+)?self\s*:")
# values whose type the resolver reads from the expression (``callee_name`` writes them)
_VALUES = frozenset(
    {
        "call_expression",
        "field_expression",
        "identifier",
        "try_expression",
        "await_expression",
        "parenthesized_expression",
        "self",
    }
)


def _languages() -> dict[str, object]:
    import tree_sitter_rust

    return {"rust": tree_sitter_rust.language}


def type_name(node: Node | None) -> str:
    """``Repo`` of ``&mut Repo``, ``Arc<Repo>``, ``Repo<T>``, ``crate::a::Repo``."""
    if node is None:
        return ""
    kind = node.type
    if kind in {"reference_type", "pointer_type"}:
        return type_name(node.child_by_field_name("type"))
    if kind in {"dynamic_type", "abstract_type"}:  # ``dyn Repo`` / ``impl Repo``: the trait
        inner = node.child_by_field_name("trait") or (
            node.named_children[0] if node.named_children else None
        )
        return type_name(inner)
    if kind == "generic_type":
        base = type_name(node.child_by_field_name("type"))
        args = node.child_by_field_name("type_arguments")
        if base in _WRAPPERS and args is not None and args.named_children:
            return type_name(args.named_children[0]) or base
        return base
    if kind in {"type_identifier", "scoped_type_identifier", "identifier", "scoped_identifier"}:
        return strip_generics(text(node))
    return ""


def callee_name(node: Node) -> str:
    """A Rust callee as written: ``Foo::new``, ``self.repo.find``, ``a.b().c``."""
    kind = node.type
    if kind == "field_expression":
        value = node.child_by_field_name("value")
        field = text(node.child_by_field_name("field"))
        return f"{callee_name(value)}.{field}" if value is not None else field
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        return f"{callee_name(fn)}()" if fn is not None else ""
    if kind == "generic_function":
        fn = node.child_by_field_name("function")
        return callee_name(fn) if fn is not None else ""
    if kind in {"try_expression", "await_expression"}:  # kept: they change the type
        inner = node.named_children
        written = callee_name(inner[0]) if inner else ""
        suffix = "?" if kind == "try_expression" else ".await"
        return written + suffix if written else ""
    if kind == "parenthesized_expression":
        inner = node.named_children
        return callee_name(inner[0]) if inner else ""
    if kind in {"identifier", "scoped_identifier", "self", "field_identifier"}:
        return strip_generics(text(node))
    return ""


def _has_pub(node: Node) -> bool:
    return any(c.type == "visibility_modifier" for c in node.children)


def written_type(node: Node | None) -> str:
    """A type as written, on one line (``Result<Self, Error>``), '' for none."""
    return collapse(text(node)) if node is not None else ""


def generics(node: Node) -> dict[str, list[str]]:
    """The type parameters an item declares with their trait bounds, inline and in its
    ``where`` clause (``<S: Clone, T> ... where T: X`` -> {'S': ['Clone'], 'T': ['X']})."""
    found: dict[str, list[str]] = {}
    params = node.child_by_field_name("type_parameters")
    for param in params.named_children if params is not None else []:
        name = param.child_by_field_name("name")
        if param.type in {"type_parameter", "constrained_type_parameter"} and name is not None:
            found[text(name)] = _bounds(param.child_by_field_name("bounds"))
    where = next((c for c in node.named_children if c.type == "where_clause"), None)
    for pred in where.named_children if where is not None else []:
        left = text(pred.child_by_field_name("left"))
        if left in found:
            found[left] += _bounds(pred.child_by_field_name("bounds"))
    return found


def bindings(pattern: Node) -> list[str]:
    """The names a pattern binds (``(a, Some(b))`` -> a, b; ``Foo { c, .. }`` -> c)."""
    if pattern.type == "identifier":
        return [text(pattern)]
    if pattern.type == "shorthand_field_identifier":
        return [text(pattern)]
    skip = pattern.child_by_field_name("type") if pattern.type.endswith("struct_pattern") else None
    out = []
    for child in pattern.named_children:
        if skip is None or child.id != skip.id:
            if pattern.type == "field_pattern" and child.type == "field_identifier":
                continue  # ``Foo { name: pat }``: ``pat`` binds
            out += bindings(child)
    return out


def _bounds(node: Node | None) -> list[str]:
    kept = {"type_identifier", "scoped_type_identifier", "generic_type"}
    return [written_type(b) for b in node.named_children if b.type in kept] if node else []


def _span(start: Node, end: Node | None) -> tuple[int, ...]:
    """(line, column, end line, end column) from the end of ``start`` to the end of ``end``
    (lines 1-based, as calls have them)."""
    if end is None:
        return ()
    return (start.end_point[0] + 1, start.end_point[1], end.end_point[0] + 1, end.end_point[1])


def binding_span(node: Node) -> tuple[int, ...]:
    """Where the names a binding construct introduces are in scope (The Rust Reference:
    patterns, scopes): a ``let`` from its end to the end of its block, a closure's
    parameters in its body, a ``for`` pattern in the loop body, a match arm's in the arm,
    an ``if let`` / ``while let`` pattern in the block it guards; () for none known."""
    kind = node.type
    if kind == "let_declaration":
        return _span(node, node.parent)
    if kind == "closure_parameters":
        return _span(node, node.parent)
    if kind == "for_expression":
        body = node.child_by_field_name("body")
        return _span(node.child_by_field_name("value") or node, body)
    if kind == "match_arm":
        pattern = node.child_by_field_name("pattern")
        return _span(pattern, node) if pattern is not None else ()
    if kind == "let_condition":
        up = node.parent
        while up is not None and up.type not in {"if_expression", "while_expression"}:
            if up.type == "match_arm":  # a guard's ``if let``: the arm
                return _span(node, up)
            up = up.parent
        if up is None:
            return ()
        guarded = up.child_by_field_name("consequence" if up.type == "if_expression" else "body")
        return _span(node, guarded)
    return ()


class RustWalker(Walker):
    """One pass over a Rust tree."""

    unnamed: ClassVar[frozenset[str]] = frozenset({"_"})

    handlers: ClassVar[dict[str, str]] = {
        "use_declaration": "on_use",
        "extern_crate_declaration": "on_extern_crate",
        "mod_item": "on_mod",
        "function_item": "on_function",
        "function_signature_item": "on_function",
        "struct_item": "on_struct",
        "union_item": "on_struct",
        "enum_item": "on_simple",
        "type_item": "on_simple",
        "const_item": "on_simple",
        "static_item": "on_simple",
        "trait_item": "on_trait",
        "impl_item": "on_impl",
        "let_declaration": "on_let",
        "assignment_expression": "on_assign",
        "call_expression": "on_call",
        "struct_expression": "on_struct_expression",
        "macro_invocation": "on_macro",
        "macro_definition": "on_macro_definition",
        "parameters": "on_params",
        "closure_parameters": "on_closure_params",
        "for_expression": "on_binding",
        "match_arm": "on_binding",
        "let_condition": "on_binding",
        "attribute_item": "on_above",
        "line_comment": "on_above",
        "block_comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.container = ""  # 'impl' / 'trait' while inside one
        self.trait_impl = False
        self.trait = ""  # the trait of the ``impl Trait for T`` walked, as written
        self.inline = 0  # how many inline ``mod x { ... }`` enclose the walk
        self.depth = 0
        self.impls: dict[str, list[str]] = {}  # type -> traits implemented in this file
        self.span: tuple[int, ...] = ()  # where the names being bound are in scope
        self.fn_macros: dict[str, FnMacro] = {}  # the file's macros defining a function

    def assign(self, target: str, value: str, node: Node, annotation: bool) -> None:
        """As :meth:`Walker.assign`, with the ``span`` of the binding being walked."""
        if target and value and target not in self.unnamed and value not in self.untyped:
            self.facts.assignments.append(
                Assignment(target, value, self.qualname, line(node), annotation, span=self.span)
            )

    @contextmanager
    def binding(self, node: Node) -> Iterator[None]:
        """The names assigned inside are bound by ``node`` (:func:`binding_span`)."""
        saved, self.span = self.span, binding_span(node)
        try:
            yield
        finally:
            self.span = saved

    # -- helpers -------------------------------------------------------------------------

    def doc(self, node: Node) -> str:
        raws = [text(c) for c in self.leading(node) if c.type in _COMMENTS]
        if raws and raws[-1].startswith("/**"):
            return clean_block_doc(raws[-1])
        return clean_line_docs([r.rstrip("\n") for r in raws if r.startswith("///")], "///")

    def attributes(self, node: Node) -> tuple[str, ...]:
        return tuple(
            collapse(text(a)[2:-1]) for a in self.leading(node) if a.type == "attribute_item"
        )

    def item(self, node: Node, name: str, kind: SymbolKind, **extra: object) -> None:
        if kind == "method" and self.trait:
            extra["bases"] = (self.trait,)  # a method of ``impl Trait for T``: its trait
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature(node, node.child_by_field_name("body"), node),
            docstring=self.doc(node),
            exported=_has_pub(node) or (self.container == "trait") or self.trait_impl,
            decorators=self.attributes(node),
            **extra,
        )

    # -- imports -------------------------------------------------------------------------

    def on_use(self, node: Node) -> None:
        argument = node.child_by_field_name("argument")
        if argument is not None:
            self.use_tree(argument, "", node)

    def add_import(self, module: str, name: str, alias: str, node: Node) -> None:
        """An import; inside inline modules the leading ``super``s that climb back to the
        file's own module are written ``self`` (``mod tests { use super::*; }``)."""
        parts = module.split("::")
        if self.inline and parts[: self.inline] == ["super"] * self.inline:
            module = "::".join(["self", *parts[self.inline :]])
        super().add_import(module, name, alias, node)

    def use_tree(self, tree: Node, prefix: str, node: Node) -> None:
        kind = tree.type
        if kind in {"identifier", "scoped_identifier", "crate", "super", "self"}:
            full = self.join(prefix, text(tree))
            module, _, name = full.rpartition("::")
            if name == "self":
                self.add_import(module, "", module.rsplit("::", 1)[-1], node)
            else:
                self.add_import(module, name, name, node)
        elif kind == "use_as_clause":
            path = tree.child_by_field_name("path")
            full = self.join(prefix, text(path))
            module, _, name = full.rpartition("::")
            self.add_import(
                module,
                "" if name == "self" else name,
                text(tree.child_by_field_name("alias")),
                node,
            )
        elif kind == "use_wildcard":
            inner = tree.named_children
            self.add_import(self.join(prefix, text(inner[0]) if inner else ""), "*", "", node)
        elif kind == "scoped_use_list":
            path = tree.child_by_field_name("path")
            deeper = self.join(prefix, text(path)) if path is not None else prefix
            self.use_tree(tree.child_by_field_name("list") or tree, deeper, node)
        elif kind == "use_list":
            for child in tree.named_children:
                self.use_tree(child, prefix, node)

    @staticmethod
    def join(prefix: str, path: str) -> str:
        path = "".join(path.split())
        return f"{prefix}::{path}" if prefix and path else prefix or path

    def on_extern_crate(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        alias = node.child_by_field_name("alias")
        self.add_import(name, "", text(alias) if alias is not None else name, node)

    def on_mod(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if body is None:
            self.add_import(f"self::{name}", "", name, node)
            return
        self.item(node, name, "module")
        with self.enter(name):
            saved = self.container, self.trait_impl, self.trait
            self.container, self.trait_impl, self.trait = "", False, ""
            self.inline += 1
            self.visit(body)
            self.inline -= 1
            self.container, self.trait_impl, self.trait = saved

    # -- items ---------------------------------------------------------------------------

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        kind: SymbolKind = "method" if self.container and not self.depth else "function"
        self.item(node, name, kind, returns=written_type(node.child_by_field_name("return_type")))
        owner = self.qualname
        with self.enter(name):
            params = node.child_by_field_name("parameters")
            has_self = params is not None and any(
                c.type == "self_parameter" or _SELF_TYPED.match(text(c))
                for c in params.named_children
            )  # ``&self``, ``self: Box<Self>``
            if kind == "method":  # ``Self::helper()`` in the impl (in a trait: the trait)
                self.assign("Self", owner, node, True)
                if has_self:
                    self.assign("self", owner, node, True)
            self.type_parameters(node)
            self.depth += 1
            self.visit(params)
            self.visit(node.child_by_field_name("body"))
            self.depth -= 1

    def on_struct(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        self.item(node, name, "struct")
        body = node.child_by_field_name("body")
        with self.enter(name):
            self.type_parameters(node)
            for field in body.named_children if body is not None else []:
                if field.type == "field_declaration":
                    declared = written_type(field.child_by_field_name("type"))
                    self.assign(text(field.child_by_field_name("name")), declared, field, True)
            if body is not None and body.type == "ordered_field_declaration_list":
                types = body.children_by_field_name("type")
                for i, field_type in enumerate(types):  # a tuple struct's fields: ``0``, ``1``
                    self.assign(str(i), written_type(field_type), field_type, True)

    def variants(self, body: Node | None, exported: bool) -> None:
        """An enum's variants, constants ``Enum.Variant`` (exported with the enum), and their
        fields: ``A(Route)`` -> ``A.0``, ``B { x: Foo }`` -> ``B.x``, with their types as
        written (target ``Variant.field``, scope the enum)."""
        for variant in body.named_children if body is not None else []:
            if variant.type != "enum_variant":
                self.visit(variant)  # a comment or an attribute: noted for the next variant
                continue
            fields = variant.child_by_field_name("body")
            name = text(variant.child_by_field_name("name"))
            self.add_symbol(
                variant,
                name,
                "constant",
                signature=collapse(text(variant)),
                docstring=self.doc(variant),
                exported=exported,
                decorators=self.attributes(variant),
            )
            if fields is not None and fields.type == "ordered_field_declaration_list":
                for i, field_type in enumerate(fields.children_by_field_name("type")):
                    self.assign(f"{name}.{i}", written_type(field_type), field_type, True)
            for field in fields.named_children if fields is not None else []:
                if field.type == "field_declaration":
                    declared = written_type(field.child_by_field_name("type"))
                    field_name = text(field.child_by_field_name("name"))
                    self.assign(f"{name}.{field_name}", declared, field, True)

    def type_parameters(self, node: Node) -> None:
        """Each type parameter of an item as ``<T>``, its trait bounds the value (``A + B``,
        '?' for none): a parameter is no type of the repository."""
        for param, bounds in generics(node).items():
            self.assign(f"<{param}>", " + ".join(bounds) or "?", node, True)

    def on_simple(self, node: Node) -> None:
        kinds: dict[str, SymbolKind] = {
            "enum_item": "enum",
            "type_item": "type",
            "const_item": "constant",
            "static_item": "variable",
        }
        name = text(node.child_by_field_name("name"))
        self.item(node, name, kinds[node.type])
        if node.type == "type_item":  # an alias or an associated type (``type Output = R``)
            self.assign(name, written_type(node.child_by_field_name("type")), node, True)
        elif node.type == "enum_item":
            with self.enter(name):
                self.type_parameters(node)
                self.variants(node.child_by_field_name("body"), _has_pub(node))
        value = node.child_by_field_name("value")
        if value is not None:
            self.visit(value)

    def on_trait(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        bounds = node.child_by_field_name("bounds")
        written = [
            b
            for b in (bounds.named_children if bounds is not None else [])
            if b.type not in {"lifetime", "line_comment", "block_comment"}
            and not text(b).startswith("?")
        ]
        bases = tuple(strip_generics(text(b)) for b in written)
        for b in written:
            self.add_supertype(self.child_qualname(name), strip_generics(text(b)), b, "extends")
        self.item(node, name, "trait", bases=bases)
        with self.enter(name):
            self.type_parameters(node)
        self.in_container(name, "trait", "", node.child_by_field_name("body"))

    def on_impl(self, node: Node) -> None:
        owner = type_name(node.child_by_field_name("type")) or "_"
        trait = node.child_by_field_name("trait")
        if trait is not None:
            self.impls.setdefault(owner, []).append(strip_generics(text(trait)))
            self.add_supertype(
                owner, strip_generics(text(trait)), trait, "implements", scope=self.qualname
            )
        with self.enter(owner):
            self.type_parameters(node)
        written = strip_generics(text(trait)) if trait is not None else ""
        self.in_container(owner, "impl", written, node.child_by_field_name("body"))

    def in_container(self, name: str, container: str, trait: str, body: Node | None) -> None:
        saved = self.container, self.trait_impl, self.trait, self.depth
        self.container, self.trait_impl, self.trait, self.depth = container, bool(trait), trait, 0
        with self.enter(name):
            self.visit(body)
        self.container, self.trait_impl, self.trait, self.depth = saved

    # -- expressions ---------------------------------------------------------------------

    def evidence(self, target: str, value: Node | None, at: Node) -> None:
        """``x = Foo { .. }``: the type (annotation); ``x = a.b()?.c().await``, ``x = y``:
        the expression as ``callee_name`` writes it, typed by the resolver."""
        while value is not None and value.type in {"reference_expression", "unary_expression"}:
            if value.type == "unary_expression" and not text(value).startswith("*"):
                return  # ``!x``, ``-x``: no value of the operand's type
            value = value.child_by_field_name("value") or (
                value.named_children[-1] if value.named_children else None
            )
        if value is None:
            return
        if value.type == "struct_expression":
            self.assign(target, type_name(value.child_by_field_name("name")), at, True)
        elif value.type in _VALUES:
            self.assign(target, callee_name(value), at, False)
        else:  # a closure, a macro, a literal...: hides an outer name of the same spelling
            self.assign(target, "?", at, False)

    def on_let(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[0]
        with self.binding(node):
            if pattern is not None and pattern.type == "identifier":
                target = text(pattern)
                self.assign(target, written_type(node.child_by_field_name("type")), node, True)
                self.evidence(target, value, node)
            elif pattern is not None:
                self.unwrapped(pattern, value, node)  # ``let Some(x) = v else { .. }``
        self.visit(value)
        self.visit(node.child_by_field_name("alternative"))

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is not None and left.type in {"identifier", "field_expression"}:
            self.evidence(callee_name(left), right, node)
        self.visit_children(node)

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        if fn is not None:
            # ``(self.f)(x)`` calls the value of field ``f``, no method: written with its
            # parentheses, which the resolver reads as no path
            written = callee_name(fn)
            field = fn.type == "parenthesized_expression"
            self.add_call(f"({written})" if field else written, node)
            if fn.type not in {"identifier", "scoped_identifier"}:
                self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_struct_expression(self, node: Node) -> None:
        """``Foo { a, b: 1 }`` constructs a ``Foo``, as ``Foo(a, 1)`` does a tuple struct:
        a call of the struct's name (``Self``, ``m::Foo``; ``E::V { .. }``, a variant,
        stays unresolved)."""
        name = node.child_by_field_name("name")
        if name is not None:
            self.add_call(strip_generics("".join(text(name).split())), node)
        self.visit_children(node)

    def on_macro_definition(self, node: Node) -> None:
        """A ``macro_rules!`` that defines a function where it is invoked (macros by example
        are seen from their definition down, as here)."""
        found = fn_macro(node)
        if found is not None:
            self.fn_macros[text(node.child_by_field_name("name"))] = found

    def on_macro(self, node: Node) -> None:
        """Calls in a macro's tokens; of ``matches!(v, Pat)`` only in ``v`` (the rest is a
        pattern, whose ``E::V(x)`` constructs nothing). An item ``m!(name, ..)`` of a macro
        of the file that defines ``fn $name`` defines ``name`` (:mod:`rust_macros`)."""
        name = text(node.child_by_field_name("macro")).rsplit("::", 1)[-1]
        macro = self.fn_macros.get(name) if not self.depth else None
        defined = generated_name(node) if macro is not None else ""
        if macro is not None and defined:
            self.generated(node, defined, macro)
        for child in node.named_children:
            if child.type == "token_tree":
                self.scan_tokens(child, name in _PATTERN_MACROS, name.endswith("_spanned"))

    def generated(self, node: Node, name: str, macro: FnMacro) -> None:
        """The function (a method, in an impl or a trait) an item macro invocation defines."""
        kind: SymbolKind = "method" if self.container else "function"
        extra: dict[str, object] = (
            {"bases": (self.trait,)} if kind == "method" and self.trait else {}
        )
        self.add_symbol(
            node,
            name,
            kind,
            signature=re.sub(re.escape(macro.variable) + r"\b", name, macro.header),
            docstring=self.doc(node),
            exported=macro.public or self.trait_impl,
            returns=macro.returns,
            **extra,
        )

    def scan_tokens(self, tree: Node, first: bool = False, spanned: bool = False) -> None:
        """Calls in a macro's tokens: a path (``a::b``, ``x.y``) followed by ``( ... )``; a
        call's ``.m(``, ``?``, ``.await`` continue its chain (``x.a()?.b()`` -> ``x.a()?.b``);
        a literal's method is ``.m`` as outside macros; ``#name`` and ``#[attr]`` (``quote!``
        interpolations, attributes) are no calls, nor is what comes before ``=`` or ``=>``
        (with no ``=`` between) since the last ``,`` / ``;`` / block: a pattern
        (``Some(E::V(x)) => ..``, ``E::V(x) = fut => ..`` in ``select!``, ``let E::V(x) =``),
        but for the span of ``quote_spanned! {s.span()=> ..}`` (``spanned``)."""
        path: list[str] = []
        hashed = False
        since, bound = len(self.facts.calls), spanned  # calls since the last boundary, ``=``
        for child in tree.children:
            kind = child.type
            if first and kind == ",":
                return  # ``first``: the tokens of the first argument only
            if kind == "=" or (kind == "=>" and not bound):
                del self.facts.calls[since:]
            if kind in {"=>", "=", ",", ";"}:
                since, bound = len(self.facts.calls), kind == "="
            if hashed and (kind in _PATH_TOKENS or kind == "token_tree"):
                hashed, path = False, []
                if not text(child).startswith("("):
                    continue
            joined = bool(path) and path[-1] in {"::", "."}
            if kind in _PATH_TOKENS or (kind == "await" and path[-1:] == ["."]):
                path = [*path, text(child)] if joined else [text(child)]
            elif kind in {"::", "."} and path and not joined:
                path.append(kind)
            elif kind == "." and not path:
                path = ["."]
            elif kind == "?" and path and path[-1] in {"()", "()?", "await"}:
                path[-1] += "?"
            elif kind == "token_tree":
                called = bool(path) and not joined and text(child).startswith("(")
                if called and path[-1] not in {"()", "await"} and not path[-1].endswith("?"):
                    self.add_call("".join(path), child)
                self.scan_tokens(child)
                path = [*path, "()"] if called else []
                if text(child).startswith("{"):
                    since, bound = len(self.facts.calls), False
            else:
                hashed, path = kind == "#", []

    def unknown(self, pattern: Node, at: Node) -> None:
        """The names a pattern binds, of no known type ('?'): they hide the outer ones."""
        for name in bindings(pattern):
            self.assign(name, "?", at, True)

    def on_binding(self, node: Node) -> None:
        """``for p in``, ``match`` arms, ``if let p =`` / ``while let p =``."""
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        if node.type == "match_arm":
            match = node.parent.parent if node.parent is not None else None
            value = match.child_by_field_name("value") if match is not None else None
            pattern = pattern.named_children[0] if pattern and pattern.named_children else None
        with self.binding(node):
            if pattern is not None and node.type == "for_expression":
                self.unknown(pattern, node)
            elif pattern is not None:
                self.unwrapped(pattern, value, node)
        self.visit_children(node)

    def unwrapped(self, pattern: Node, value: Node | None, at: Node) -> None:
        """``Some(x)`` / ``Ok(x)`` matched against a value: ``x`` is what ``value?`` gives
        (written so, for the resolver); the names of other patterns are of no known type."""
        kind = (
            pattern.child_by_field_name("type") if pattern.type == "tuple_struct_pattern" else None
        )
        inner = [c for c in pattern.named_children if kind is not None and c.id != kind.id]
        unwraps = kind is not None and text(kind) in {"Some", "Ok"} and len(inner) == 1
        if unwraps and inner[0].type == "identifier" and value is not None:
            written = callee_name(value) if value.type in _VALUES else ""
            self.assign(text(inner[0]), f"{written}?" if written else "?", at, False)
        elif kind is not None and "::" in text(kind):  # ``Self::Default(route)``
            self.destructured(pattern, strip_generics(text(kind)), at)
        else:
            self.unknown(pattern, at)

    def on_closure_params(self, node: Node) -> None:
        with self.binding(node):
            self.closure_params(node)

    def closure_params(self, node: Node) -> None:
        for param in node.named_children:
            pattern = param.child_by_field_name("pattern") if param.type == "parameter" else param
            declared = written_type(param.child_by_field_name("type"))
            if param.type == "parameter" and pattern is not None and pattern.type == "identifier":
                self.assign(text(pattern), declared or "?", param, True)
            elif pattern is not None and pattern.type == "tuple_struct_pattern" and declared:
                self.destructured(pattern, declared, param)  # ``|Json(v): Json<T>|``
            elif pattern is not None:
                self.unknown(pattern, param)

    def on_params(self, node: Node) -> None:
        for param in node.named_children:
            pattern = param.child_by_field_name("pattern")
            declared = written_type(param.child_by_field_name("type"))
            if param.type != "parameter" or pattern is None:
                continue
            if pattern.type == "identifier":
                self.assign(text(pattern), declared, param, True)
            elif pattern.type == "tuple_struct_pattern":
                self.destructured(pattern, declared, param)
            else:
                self.unknown(pattern, param)
        self.visit_children(node)

    def destructured(self, pattern: Node, declared: str, at: Node) -> None:
        """``State(state): State<App>``: a name bound to field ``i`` of the declared tuple
        struct is written ``State<App>#i`` (the resolver reads the field's type); of an enum
        variant, ``Enum::Variant#i``."""
        kind = pattern.child_by_field_name("type")
        fields = [c for c in pattern.named_children if kind is None or c.id != kind.id]
        for i, field in enumerate(fields):
            inner = field.named_children[-1] if field.type == "mut_pattern" else field
            if inner.type == "identifier":
                self.assign(text(inner), f"{declared}#{i}", at, True)
            else:
                self.unknown(field, at)


class RustExtractor:
    """The Rust extractor the code graph loads as ``lang_rust.EXTRACTOR``."""

    version = "3"  # 3: local spans, struct expressions, variants; 2: types as written

    def __init__(self) -> None:
        self.suffixes = {".rs": "rust"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self.call_resolver = RustCalls  # the resolver types receivers by declarations
        self._manifests: Manifests | None = None

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Rust file; syntax errors are counted and the rest still extracted."""
        root, facts, walker = walk_file(self._parsers, path, source, language, RustWalker)
        if walker.impls:
            facts.symbols = [
                dataclasses.replace(s, bases=s.bases + tuple(walker.impls[s.qualname]))
                if s.qualname in walker.impls and s.kind in {"struct", "enum"}
                else s
                for s in facts.symbols
            ]
        facts.module_doc = _inner_doc(root)
        rust_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The module file a ``crate::``/``self::``/``super::`` path reaches, else []."""
        parts = [p for p in module.split("::") if p]
        if not parts:
            return []
        head = parts[0]
        if head == "crate":
            root = _crate_root(importer, repo.files)
            if root is None:
                return []
            start, found, parts = posixpath.dirname(root), root, parts[1:]
        elif head in {"self", "super"}:
            start, found = _module_dir(importer), importer
            while parts and parts[0] in {"self", "super"}:
                if parts.pop(0) == "super":
                    start = posixpath.dirname(start)
                    found = _module_file(start, repo.files) or found
        else:
            start, found = _module_dir(importer), ""
            if _module_file(posixpath.join(start, head), repo.files) is None:
                dependency = self._dependency(importer, head, repo)  # ``axum::Router``
                if dependency is None:
                    return []
                start, found, parts = posixpath.dirname(dependency), dependency, parts[1:]
        for part in parts:
            nxt = _module_file(posixpath.join(start, part), repo.files)
            if nxt is None:
                break
            found, start = nxt, posixpath.join(start, part)
        return [found] if found else []

    def _dependency(self, importer: str, name: str, repo: RepoView) -> str | None:
        """The root file of crate ``name`` when the importer's package depends on it by path
        (the package of its crate root, else of the nearest manifest: ``tests/*.rs``)."""
        if self._manifests is None or self._manifests.repo is not repo:
            self._manifests = Manifests(repo)
        root = _crate_root(importer, repo.files)
        package = (
            crate_dir(root)
            if root is not None
            else self._manifests.package_dir(posixpath.dirname(importer))
        )
        return self._manifests.crate_root(package, name) if package is not None else None


def _module_dir(path: str) -> str:
    """The directory a file's child modules live in (``src/a.rs`` -> ``src/a``)."""
    directory, name = posixpath.split(path)
    if name in {"lib.rs", "main.rs", "mod.rs"}:
        return directory
    return posixpath.join(directory, name.removesuffix(".rs"))


def _module_file(base: str, files: frozenset[str]) -> str | None:
    """``a.rs`` or ``a/mod.rs`` for the module directory ``a`` (``lib.rs``/``main.rs`` at
    the crate root), if present."""
    names = ("mod.rs", *_ROOT_FILES)
    for candidate in (base + ".rs", *(posixpath.join(base, n) for n in names)):
        if candidate.strip("/") in files:
            return candidate.strip("/")
    return None


def _crate_root(importer: str, files: frozenset[str]) -> str | None:
    directory = posixpath.dirname(importer)
    while True:
        for name in _ROOT_FILES:
            candidate = posixpath.join(directory, name) if directory else name
            if candidate in files:
                return candidate
        if not directory:
            return None
        directory = posixpath.dirname(directory)


def _inner_doc(root: Node) -> str:
    """The crate or module doc: leading ``//!`` lines."""
    lines = []
    for child in root.children:
        raw = text(child)
        if child.type != "line_comment" or not raw.startswith("//!"):
            break
        lines.append(raw.rstrip("\n"))
    return clean_line_docs(lines, "//!")


EXTRACTOR = RustExtractor()
