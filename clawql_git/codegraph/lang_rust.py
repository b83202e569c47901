"""Rust facts: items, impl methods, ``use`` trees and ``mod`` declarations, calls, types.

Conventions:

- qualnames are dotted like every other language: methods of ``impl Foo`` and of
  ``impl Trait for Foo`` are ``Foo.method`` (the trait is added to ``Foo``'s bases when
  ``Foo`` is defined in the same file); trait methods are ``Trait.method``; items of an
  inline ``mod tests { ... }`` are ``tests.item``. Callees keep Rust's spelling
  (``Foo::new``, ``self.repo.find``, turbofish arguments dropped): the resolver reads
  ``::`` like ``.``.
- imports: ``use a::b::{c, d as e}`` -> module 'a::b', names 'c' and 'd' (alias 'e');
  ``use a::b::*`` -> name '*'; ``use a::b::{self}`` -> module 'a::b', name '';
  ``mod x;`` -> module 'self::x', name '', alias 'x'; ``extern crate x`` -> module 'x'.
- calls inside macro arguments (``println!("{}", x.name())``, ``vec![Foo::new()]``) are
  found by scanning the macro's token tree for ``path(`` sequences.
- assignments: ``let x = Foo::new()`` (value the callee), ``let x: Foo``, ``Foo { .. }``,
  typed parameters, ``self`` and ``Self`` -> the impl type, struct fields (target the field,
  scope the struct); ``Box``/``Arc``/``Rc`` and references are looked through
  (``Arc<Repo>`` -> Repo).
- exported: a ``pub`` visibility (any ``pub(...)``), or a method of a trait impl.
- ``resolve_module``: ``crate::``, ``self::``, ``super::`` and ``mod`` paths are walked down
  from the crate root (the nearest directory with ``lib.rs``/``main.rs``) or the importing
  module, through ``a.rs`` / ``a/mod.rs``; the deepest module file reached is returned
  (the rest of the path names items in it). Other crates (std, dependencies) are [].
"""

from __future__ import annotations

import dataclasses
import posixpath
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.rust_routes import rust_routes
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    collapse,
    strip_generics,
    text,
    walk_file,
)

_COMMENTS = frozenset({"line_comment", "block_comment"})
_ATTRIBUTES = frozenset({"attribute_item"})
_WRAPPERS = frozenset({"Box", "Arc", "Rc", "Cow"})
_PATH_TOKENS = frozenset({"identifier", "self", "super", "crate"})
_ROOT_FILES = ("lib.rs", "main.rs")


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
    if kind in {"try_expression", "parenthesized_expression", "await_expression"}:
        inner = node.named_children
        return callee_name(inner[0]) if inner else ""
    if kind in {"identifier", "scoped_identifier", "self", "field_identifier"}:
        return strip_generics(text(node))
    return ""


def _has_pub(node: Node) -> bool:
    return any(c.type == "visibility_modifier" for c in node.children)


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
        "macro_invocation": "on_macro",
        "parameters": "on_params",
        "attribute_item": "on_above",
        "line_comment": "on_above",
        "block_comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.container = ""  # 'impl' / 'trait' while inside one
        self.trait_impl = False
        self.depth = 0
        self.impls: dict[str, list[str]] = {}  # type -> traits implemented in this file

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
            saved = self.container, self.trait_impl
            self.container, self.trait_impl = "", False
            self.visit(body)
            self.container, self.trait_impl = saved

    # -- items ---------------------------------------------------------------------------

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        kind: SymbolKind = "method" if self.container and not self.depth else "function"
        self.item(node, name, kind)
        owner = self.qualname
        with self.enter(name):
            params = node.child_by_field_name("parameters")
            has_self = params is not None and any(
                c.type == "self_parameter" for c in params.named_children
            )
            if kind == "method" and self.container == "impl":
                self.assign("Self", owner, node, True)  # ``Self::helper()`` in the impl
                if has_self:
                    self.assign("self", owner, node, True)
            self.depth += 1
            self.visit(params)
            self.visit(node.child_by_field_name("body"))
            self.depth -= 1

    def on_struct(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        self.item(node, name, "struct")
        body = node.child_by_field_name("body")
        with self.enter(name):
            for field in body.named_children if body is not None else []:
                if field.type == "field_declaration":
                    declared = type_name(field.child_by_field_name("type"))
                    self.assign(text(field.child_by_field_name("name")), declared, field, True)

    def on_simple(self, node: Node) -> None:
        kinds: dict[str, SymbolKind] = {
            "enum_item": "enum",
            "type_item": "type",
            "const_item": "constant",
            "static_item": "variable",
        }
        self.item(node, text(node.child_by_field_name("name")), kinds[node.type])
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
        self.in_container(name, "trait", False, node.child_by_field_name("body"))

    def on_impl(self, node: Node) -> None:
        owner = type_name(node.child_by_field_name("type")) or "_"
        trait = node.child_by_field_name("trait")
        if trait is not None:
            self.impls.setdefault(owner, []).append(strip_generics(text(trait)))
            self.add_supertype(
                owner, strip_generics(text(trait)), trait, "implements", scope=self.qualname
            )
        self.in_container(owner, "impl", trait is not None, node.child_by_field_name("body"))

    def in_container(self, name: str, container: str, trait_impl: bool, body: Node | None) -> None:
        saved = self.container, self.trait_impl, self.depth
        self.container, self.trait_impl, self.depth = container, trait_impl, 0
        with self.enter(name):
            self.visit(body)
        self.container, self.trait_impl, self.depth = saved

    # -- expressions ---------------------------------------------------------------------

    def evidence(self, target: str, value: Node | None, at: Node) -> None:
        while value is not None and value.type in {
            "reference_expression",
            "try_expression",
            "await_expression",
            "parenthesized_expression",
        }:
            inner = value.child_by_field_name("value") or (
                value.named_children[0] if value.named_children else None
            )
            value = inner
        if value is None:
            return
        if value.type == "struct_expression":
            self.assign(target, type_name(value.child_by_field_name("name")), at, True)
        elif value.type == "call_expression":
            fn = value.child_by_field_name("function")
            self.assign(target, callee_name(fn) if fn is not None else "", at, False)

    def on_let(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[0]
        if pattern is not None and pattern.type == "identifier":
            target = text(pattern)
            self.assign(target, type_name(node.child_by_field_name("type")), node, True)
            self.evidence(target, value, node)
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
            self.add_call(callee_name(fn), node)
            if fn.type not in {"identifier", "scoped_identifier"}:
                self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_macro(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "token_tree":
                self.scan_tokens(child)

    def scan_tokens(self, tree: Node) -> None:
        """Calls in a macro's tokens: a path (``a::b``, ``x.y``) followed by ``( ... )``."""
        path: list[str] = []
        for child in tree.children:
            kind = child.type
            if kind in _PATH_TOKENS:
                path = [*path, text(child)] if path and path[-1] in {"::", "."} else [text(child)]
            elif kind in {"::", "."} and path:
                path.append(kind)
            elif kind == "token_tree":
                if path and path[-1] not in {"::", "."} and text(child).startswith("("):
                    self.add_call("".join(path), child)
                self.scan_tokens(child)
                path = []
            else:
                path = []

    def on_params(self, node: Node) -> None:
        for param in node.named_children:
            pattern = param.child_by_field_name("pattern")
            if param.type == "parameter" and pattern is not None and pattern.type == "identifier":
                self.assign(
                    text(pattern), type_name(param.child_by_field_name("type")), param, True
                )
        self.visit_children(node)


class RustExtractor:
    """The Rust extractor the code graph loads as ``lang_rust.EXTRACTOR``."""

    def __init__(self) -> None:
        self.suffixes = {".rs": "rust"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]

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
        for part in parts:
            nxt = _module_file(posixpath.join(start, part), repo.files)
            if nxt is None:
                break
            found, start = nxt, posixpath.join(start, part)
        return [found] if found else []


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
