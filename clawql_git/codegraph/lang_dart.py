"""Dart facts: classes, mixins, enums, extensions, functions, fields, imports, calls.

Conventions:

- qualnames are dotted: ``Cart.add``; the unnamed constructor is ``Cart.Cart``, a named
  or factory one ``Cart.empty``; getters and setters are methods ``Cart.total``.
- kinds: ``class`` -> 'class', ``mixin`` -> 'trait', ``enum`` -> 'enum', ``extension X on
  T`` -> 'class' ``X`` (its members ``X.m``), ``typedef`` -> 'type'; top-level functions
  'function', members 'method'; a local (nested) function is a 'function' under the one
  it is declared in (``main.helper``, ``Cart.add.twice``), not exported; fields and
  top-level variables 'variable', ``const`` ones 'constant'.
- docs: the ``///`` lines or ``/** */`` block right above (or above its annotations);
  annotations (``@override``) are decorators.
- exported: a name not starting with ``_`` (Dart's library privacy).
- imports: ``import 'x.dart'``, ``export 'x.dart'`` and ``part 'x.dart'`` -> module the
  URI, name '*' (every public name), alias '' / 'export' / 'part': only an export or a
  part passes the names on to the importers of this file; ``import 'x.dart' as p`` ->
  name '', alias 'p'.
- bases: ``extends B`` 'extends', ``with M`` 'uses', ``implements I`` 'implements'; a
  mixin's ``on B`` 'extends'.
- calls: selector chains with dots: ``f()``, ``a.b.c()``, ``this.x()``, ``a?.b()``;
  ``Foo()`` -> ``Foo`` (a constructor call), ``Foo.named()`` -> ``Foo.named``,
  ``Foo().bar()`` -> ``Foo().bar``.
- assignments: field, top-level, parameter, local and for-in loop variable types
  (annotation; through an import prefix ``p.Context``); without a declared type,
  ``var x = Foo()`` and ``var x = Foo.named()`` (a static call on a capitalized name is
  read as a named constructor or factory: value ``Foo``), ``x = p.Foo(...)`` (``p.Foo``)
  and ``x = a.m(...)`` (``a.m``, typed by its declared return type in ``dart_resolve``,
  the call resolver).
- ``resolve_module``: ``package:<name>/<path>`` -> ``lib/<path>`` (or ``<name>/lib/<path>``
  in a monorepo); a relative URI -> relative to the importing file; ``dart:`` and
  packages not in the repository -> [].
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.dart_resolve import DartCalls
from clawql_git.codegraph.model import FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    collapse,
    end_line,
    text,
    walk_file,
)

_SIGNATURES = frozenset(
    {
        "function_signature",
        "getter_signature",
        "setter_signature",
        "constructor_signature",
        "factory_constructor_signature",
        "constant_constructor_signature",
        "operator_signature",
    }
)
_MEMBER_SELECTORS = frozenset(
    {"unconditional_assignable_selector", "conditional_assignable_selector"}
)
_TYPE_KINDS: dict[str, SymbolKind] = {"mixin_declaration": "trait", "enum_declaration": "enum"}
_HEADS = frozenset({"identifier", "this", "super"})


def _languages() -> dict[str, object]:
    import tree_sitter_dart

    return {"dart": tree_sitter_dart.language}


def uri_of(node: Node) -> str:
    """The URI string of an import/export/part directive (quotes dropped)."""
    found = _first(node, "string_literal")
    raw = text(found) if found is not None else ""
    return raw[1:-1] if len(raw) >= 2 else ""


def _first(node: Node, kind: str) -> Node | None:
    """The first descendant of type ``kind`` (breadth first over named children)."""
    queue = list(node.named_children)
    while queue:
        child = queue.pop(0)
        if child.type == kind:
            return child
        queue.extend(child.named_children)
    return None


def type_of(node: Node) -> str:
    """The first type a declaration writes (``final User owner`` -> ``User``, ``p.Context?
    c`` -> ``p.Context``: a type through an import prefix)."""
    return _type_in(node.children)


def _type_in(children: list[Node]) -> str:
    for i, child in enumerate(children):
        if child.type == "nullable_type" and child.named_children:
            return text(child.named_children[0])
        if child.type != "type_identifier":
            continue
        written = text(child)
        rest = children[i + 1 : i + 3]
        if len(rest) == 2 and rest[0].type == "." and rest[1].type == "type_identifier":
            written = f"{written}.{text(rest[1])}"
        return written
    return ""


_TYPE_PARTS = frozenset(
    {"type_identifier", ".", "nullable_type", "type_arguments", "?", "inferred_type", "void_type"}
)


def _written_before(node: Node) -> list[Node]:
    """The keywords and type written before a top-level variable list (``final Context``
    of ``final Context context = ...;``), which the grammar makes its siblings."""
    out: list[Node] = []
    prev = node.prev_sibling
    while prev is not None and (prev.type in _TYPE_PARTS or prev.type.endswith("_builtin")):
        out.insert(0, prev)
        prev = prev.prev_sibling
    return out


class DartWalker(Walker):
    """One pass over a Dart tree."""

    handlers: ClassVar[dict[str, str]] = {
        "library_name": "on_library",
        "import_or_export": "on_directive",
        "part_directive": "on_directive",
        "class_definition": "on_type",
        "mixin_declaration": "on_type",
        "enum_declaration": "on_type",
        "extension_declaration": "on_type",
        "type_alias": "on_alias",
        "local_variable_declaration": "on_local",
        "local_function_declaration": "on_local_function",
        "for_loop_parts": "on_loop",
        "annotation": "on_annotation",
        "documentation_comment": "on_above",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []
        self.pending: list[Node] = []  # annotations waiting for the member they precede

    # ------------------------------------------------------------ walking

    def visit(self, node: Node | None) -> None:
        if node is not None and node.type == "program":
            self.members(node)
        else:
            super().visit(node)

    def visit_children(self, node: Node | None) -> None:
        """Named children in order; a head followed by selectors is one call chain."""
        if node is None:
            return
        children = node.named_children
        i = 0
        while i < len(children):
            child = children[i]
            j = i + 1
            while j < len(children) and children[j].type == "selector":
                j += 1
            if j > i + 1:
                self.chain(child, children[i + 1 : j])
                i = j
                continue
            self.visit(child)
            i += 1

    def chain(self, head: Node, selectors: list[Node]) -> None:
        """``a.b(x).c()``: a call per argument part, its callee the chain so far (a call on
        a call's result is kept only as ``Foo().bar``, what the resolver reads)."""
        name = "this" if head.type == "this" else text(head) if head.type in _HEADS else ""
        if not name:
            self.visit(head)
        for selector in selectors:
            part = selector.named_children[0] if selector.named_children else None
            if part is None:
                continue
            if part.type in _MEMBER_SELECTORS:
                member = next((c for c in part.named_children if c.type == "identifier"), None)
                once = name.endswith("()") and name.count("(") == 1
                if name and member is not None and ("(" not in name or once):
                    name = f"{name}.{text(member)}"
                else:
                    name = ""
            elif part.type == "argument_part":
                if name and not name.endswith(")"):
                    self.add_call(name, selector)
                    name = f"{name}()" if "(" not in name else ""
                else:
                    name = ""
            else:
                name = ""
            self.visit_children(part)

    def members(self, container: Node) -> None:
        """A program or type body: signatures with the function body that follows them."""
        children = container.named_children
        for i, child in enumerate(children):
            if child.type == "function_body":
                continue
            if child.type == "annotation":  # a member's annotation is its sibling
                self.note_above(child)
                self.pending.append(child)
                continue
            following = children[i + 1] if i + 1 < len(children) else None
            body = (
                following if following is not None and following.type == "function_body" else None
            )
            if child.type in {
                "function_signature",
                "method_signature",
                "getter_signature",
                "setter_signature",
            }:
                self.on_function(child, body)
            elif child.type == "declaration":
                self.on_declaration(child)
            elif child.type in {"static_final_declaration_list", "initialized_identifier_list"}:
                written = _written_before(child)  # top level: `const x = 1;`
                self.on_fields(child, child, written)
            else:
                self.visit(child)

    # ------------------------------------------------------------ docs

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(node) if c.type in {"documentation_comment", "comment"}]
        if comments and text(comments[-1]).startswith("/**"):
            return clean_block_doc(text(comments[-1]))
        lines: list[str] = []
        for comment in reversed(comments):
            if not text(comment).startswith("///"):
                break
            lines[:0] = text(comment).splitlines()
        return clean_line_docs([ln.strip() for ln in lines], "///")

    def annotations(self, node: Node) -> tuple[str, ...]:
        found = self.pending + [c for c in node.named_children if c.type == "annotation"]
        self.pending = []
        for annotation in found:
            self.on_annotation(annotation)
        return tuple(collapse(text(a)).lstrip("@") for a in found)

    def on_annotation(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit_children(node)

    # ------------------------------------------------------------ declarations

    def on_library(self, node: Node) -> None:
        name = collapse(text(node.named_children[0])) if node.named_children else ""
        if name:
            self.add_symbol(
                node, name, "module", signature=f"library {name}", docstring=self.doc(node)
            )

    def on_directive(self, node: Node) -> None:
        uri = uri_of(node)
        if not uri:
            return
        spec = _first(node, "import_specification")
        prefix = None
        if spec is not None:
            prefix = next((c for c in spec.named_children if c.type == "identifier"), None)
        if prefix is not None:
            self.add_import(uri, "", text(prefix), node)
        elif node.type == "part_directive":
            self.add_import(uri, "*", "part", node)
        elif _first(node, "library_export") is not None or text(node).startswith("export"):
            self.add_import(uri, "*", "export", node)  # passed on to importers of this file
        else:
            self.add_import(uri, "*", "", node)

    def on_type(self, node: Node) -> None:
        name_node = node.child_by_field_name("name") or next(
            (c for c in node.named_children if c.type == "identifier"), None
        )
        name = text(name_node)
        if not name:
            return
        kind = _TYPE_KINDS.get(node.type, "class")
        body = node.child_by_field_name("body") or next(
            (c for c in node.named_children if c.type.endswith("_body")), None
        )
        written = self.bases(node)
        start = next((c for c in node.children if c.type != "annotation"), node)
        symbol = self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature(start, body, node),
            docstring=self.doc(node),
            exported=not name.startswith("_"),
            decorators=self.annotations(node),
            bases=tuple(b for _, b, _ in written),
        )
        for at, base, relation in written:
            self.add_supertype(symbol.qualname, base, at, relation)
        with self.enter(name):
            self.type_scopes.append(self.qualname)
            if body is not None:
                self.members(body)
            self.type_scopes.pop()

    def bases(self, node: Node) -> list[tuple[Node, str, str]]:
        out: list[tuple[Node, str, str]] = []
        for child in node.named_children:
            if child.type == "superclass":
                for part in child.named_children:
                    if part.type == "type_identifier":
                        out.append((part, text(part), "extends"))
                    elif part.type == "mixins":
                        out += [
                            (m, text(m), "uses")
                            for m in part.named_children
                            if m.type == "type_identifier"
                        ]
            elif child.type == "interfaces":
                out += [
                    (t, text(t), "implements")
                    for t in child.named_children
                    if t.type == "type_identifier"
                ]
            elif child.type == "mixins":
                out += [
                    (m, text(m), "uses")
                    for m in child.named_children
                    if m.type == "type_identifier"
                ]
            elif child.type == "type_identifier" and node.type == "mixin_declaration":
                out.append((child, text(child), "extends"))  # mixin M on Base
        return out

    def on_declaration(self, node: Node) -> None:
        """A class member without a body: constructor, field, abstract method."""
        signature = next((c for c in node.named_children if c.type in _SIGNATURES), None)
        if signature is not None:
            self.on_function(node, None)
            return
        self.on_fields(node, node)

    def on_fields(self, node: Node, whole: Node, written: list[Node] | None = None) -> None:
        declared = _type_in(written) if written else type_of(node)
        keyword = written[0] if written else None
        const = any(c.type == "const_builtin" for c in [*node.named_children, *(written or [])])
        for item in _named_items(node):
            name_node = next((c for c in item.named_children if c.type == "identifier"), None)
            if name_node is None:
                continue
            name = text(name_node)
            value = next((c for c in item.named_children if c is not name_node), None)
            if not self.scope or (bool(self.type_scopes) and self.qualname == self.type_scopes[-1]):
                self.add_symbol(
                    whole,
                    name,
                    "constant" if const else "variable",
                    signature=self.field_signature(whole, keyword),
                    docstring=self.doc(whole),
                    exported=not name.startswith("_"),
                    decorators=self.annotations(whole),
                )
            self.assign(name, declared, item, True)
            if value is not None:
                values = item.named_children[item.named_children.index(name_node) + 1 :]
                if not declared:  # the declared type is the static type; the value may be a subtype
                    self.evidence(name, values, item)
                self.visit_children(item)

    def field_signature(self, whole: Node, keyword: Node | None) -> str:
        start = keyword.start_byte if keyword is not None else whole.start_byte
        return collapse(self.source[start : whole.end_byte].decode("utf-8", "replace")).rstrip(";")

    def evidence(self, target: str, values: list[Node], at: Node) -> None:
        """``x = Foo(...)`` / ``x = Foo.named(...)`` -> ``x`` holds a ``Foo``; through an
        import prefix, ``x = p.Foo(...)`` / ``x = p.Foo.named(...)`` -> a ``p.Foo``; ``x =
        a.m(...)`` -> what ``a.m`` gives (its declared return type, ``dart_resolve``)."""
        if len(values) < 2 or values[0].type != "identifier" or values[1].type != "selector":
            return
        head = text(values[0])
        parts = [_selector_part(v) for v in values[1:4]]
        if parts[0] == "()":
            self.assign(target, head, at, False)
            return
        if head[:1].isupper() and parts[0] and parts[1:2] == ["()"]:
            self.assign(target, head, at, False)
        elif parts[0][:1].isupper() and "()" in parts[1:3] and parts[1] != "":
            self.assign(target, f"{head}.{parts[0]}", at, False)  # p.Foo() / p.Foo.named()
        elif parts[0] and parts[1:2] == ["()"] and len(values) == 3:
            self.assign(target, f"{head}.{parts[0]}", at, False)  # x = p.translate(1)

    def on_local_function(self, node: Node) -> None:
        """``void helper() {...}`` inside a body: a function under its enclosing one
        (``main.helper``), not exported (a local name is seen only in its block)."""
        lam = next((c for c in node.named_children if c.type == "lambda_expression"), None)
        signature = _first(lam, "function_signature") if lam is not None else None
        if lam is None or signature is None:
            self.visit_children(node)
            return
        body = next((c for c in lam.named_children if c.type == "function_body"), None)
        scopes, self.type_scopes = self.type_scopes, []  # a function even inside a method
        try:
            self.on_function(signature, body, local=True)
        finally:
            self.type_scopes = scopes

    def on_function(self, node: Node, body: Node | None, local: bool = False) -> None:
        signature = next((c for c in node.named_children if c.type in _SIGNATURES), node)
        if node.type in _SIGNATURES:
            signature = node
        names = [c for c in signature.named_children if c.type == "identifier"]
        if signature.type.endswith("constructor_signature"):
            name = text(names[1]) if len(names) > 1 else text(names[0]) if names else ""
        else:
            name_node = signature.child_by_field_name("name")
            name = text(name_node) if name_node is not None else (text(names[0]) if names else "")
        if not name:
            return
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=collapse(text(node if node.type == "method_signature" else signature)),
            docstring=self.doc(node),
            exported=not local and not name.startswith("_"),
            decorators=self.annotations(node),
        )
        if body is not None:  # the body is the signature's next sibling
            self.facts.symbols[-1] = replace(self.facts.symbols[-1], end_line=end_line(body))
        with self.enter(name):
            params = _first(signature, "formal_parameter_list")
            for param in _parameters(params):
                pname = param.child_by_field_name("name")
                if pname is not None:
                    self.assign(text(pname), type_of(param), param, True)
            for child in node.named_children:
                if child.type == "initializers":
                    self.visit_children(child)
            if params is not None:
                self.visit_children(params)
            if body is not None:
                self.visit_children(body)

    def on_alias(self, node: Node) -> None:
        name = next((text(c) for c in node.named_children if c.type == "type_identifier"), "")
        if name:
            self.add_symbol(
                node,
                name,
                "type",
                signature=collapse(text(node)).rstrip(";"),
                docstring=self.doc(node),
                exported=not name.startswith("_"),
            )

    def on_local(self, node: Node) -> None:
        """``var f = Formatter();`` / ``final Item x = ...``: type evidence, then the calls."""
        for item in node.named_children:
            name_node = item.child_by_field_name("name")
            if item.type != "initialized_variable_definition" or name_node is None:
                self.visit(item)
                continue
            declared = type_of(item)
            self.assign(text(name_node), declared, item, True)
            if not declared:  # as for fields: the declared type wins over the value's
                self.evidence(text(name_node), item.children_by_field_name("value"), item)
            self.visit_children(item)

    def on_loop(self, node: Node) -> None:
        """``for (final Item x in items)`` (also ``await for``): ``x`` holds an ``Item``, its
        declared type; a loop variable declared ``var`` / ``final`` alone gives no evidence."""
        name = node.child_by_field_name("name")
        if name is not None and node.child_by_field_name("value") is not None:
            written = node.children[: next(i for i, c in enumerate(node.children) if c == name)]
            self.assign(text(name), _type_in(written), node, True)
        self.visit_children(node)


def _selector_part(node: Node) -> str:
    """What a selector does: ``()`` (arguments), the member name it reads, or ''."""
    part = node.named_children[0] if node.type == "selector" and node.named_children else None
    if part is None:
        return ""
    if part.type == "argument_part":
        return "()"
    if part.type in _MEMBER_SELECTORS:
        member = next((c for c in part.named_children if c.type == "identifier"), None)
        return text(member) if member is not None else ""
    return ""


def _named_items(node: Node) -> list[Node]:
    """The ``name = value`` items of a field or variable declaration."""
    out: list[Node] = []
    for child in node.named_children:
        if child.type in {"initialized_identifier_list", "static_final_declaration_list"}:
            out += list(child.named_children)
        elif child.type in {"initialized_identifier", "static_final_declaration"}:
            out.append(child)
    return out


def _parameters(params: Node | None) -> list[Node]:
    out: list[Node] = []
    queue = list(params.named_children) if params is not None else []
    while queue:
        child = queue.pop(0)
        if child.type == "formal_parameter":
            out.append(child)
        elif child.type.startswith("optional_") or child.type.endswith("_parameters"):
            queue.extend(child.named_children)
    return out


class DartExtractor:
    """The Dart extractor the code graph loads as ``lang_dart.EXTRACTOR``."""

    version = "3"

    def __init__(self) -> None:
        self.suffixes = {".dart": "dart"}
        self.call_resolver = DartCalls  # receivers typed by declared return types too
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Dart file; syntax errors are counted and the rest still extracted."""
        _, facts, _ = walk_file(self._parsers, path, source, language, DartWalker)
        first = min(facts.symbols, key=lambda s: s.line, default=None)
        facts.module_doc = first.docstring if first is not None else ""
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The file a Dart URI names in the repository; [] for ``dart:`` and packages."""
        if not module or module.startswith("dart:"):
            return []
        if module.startswith("package:"):
            package, _, rest = module.removeprefix("package:").partition("/")
            for candidate in (
                f"lib/{rest}",
                f"{package}/lib/{rest}",
                f"packages/{package}/lib/{rest}",
            ):
                if candidate in repo.files:
                    return [candidate]
            return []
        here = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        return [here] if here in repo.files else []


EXTRACTOR = DartExtractor()
