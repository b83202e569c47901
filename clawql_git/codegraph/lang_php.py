"""PHP facts: namespaces, classes, interfaces, traits, enums, functions, ``use``, calls.

Conventions:

- files are parsed with the grammar's ``php`` language (text or HTML around ``<?php ... ?>``
  is allowed), not ``php_only`` (which expects no opening tag).
- namespaces (``namespace App\\Http;`` and ``namespace App\\Http { }``) are symbols of kind
  'module' named as written; like a C# namespace, a namespace is not part of qualnames
  (``UserController``, ``UserController.show``, ``helper``).
- kinds: class, interface, trait, enum; functions; methods (also of interfaces, traits and
  enums) ``Class.method``; class constants -> 'constant'; properties -> 'variable'.
- docs: the PHPDoc ``/** */`` comment right above the declaration (or its attributes);
  the file's doc is the one above its first ``namespace``.
- imports: ``use App\\Models\\User;`` -> module 'App\\Models\\User', name 'User', alias
  'User' (``as U`` -> alias 'U'); group uses ``use App\\Models\\{Post, Tag as T}`` the same
  per member; ``use function A\\b;`` / ``use const A\\B;`` -> module 'A', name 'b';
  ``require``/``include`` (and ``_once``) of a literal path, also ``__DIR__ . '/x.php'`` ->
  module the path (``__DIR__`` read as ``.``), name '*' (the included file's definitions).
- trait ``use T;`` inside a class: a Supertype edge with relation 'uses' and ``T`` among the
  class's bases (its methods become the class's members).
- calls, spelt with dots so the resolver reads them: ``foo()`` -> ``foo``,
  ``$this->bar()`` -> ``this.bar``, ``$x->y->z()`` -> ``x.y.z``, ``Foo::baz()`` ->
  ``Foo.baz``, ``self::``/``static::`` -> ``self.``, ``new Foo`` -> ``Foo``; names with a
  namespace (``\\App\\X::y()``) keep their parts with dots and the leading ``\\`` dropped
  (``App.X.y``); bases likewise (``\\Countable`` -> ``Countable``); an element of an array
  is written ``[]`` (``$this->routes[$id]->run()`` -> ``this.routes[].run``).
- assignments: ``$x = new Foo()`` (value 'Foo'), ``$x = Foo::make()`` (value the callee),
  ``$x = $this->routes[$k]`` and ``foreach ($this->routes as $x)`` (value ``this.routes[]``),
  ``$this->x = new Foo()``, typed parameters and promoted constructor parameters
  (``private Repo $repo`` -> ``this.repo``), typed properties (target the property, scope
  the class). Declared types ``?Foo`` and ``Foo|null`` are ``Foo``; where the declared type
  says nothing of a class (none, ``array``, ``iterable``, ``mixed``, ``object``) the
  docblock's is read (``@var`` of a property, ``@param`` of a parameter, ``@return`` as the
  symbol's ``returns``; ``php_docs``), ``Foo[]`` for an array of Foo. Inside a closure the
  evidence carries the closure's span (its variables are its own); ``if ($x instanceof Foo)``
  and ``catch (Foo $x)`` record an annotation ``Foo`` for ``x`` (or ``this.x``) with the
  block's span, unless the block assigns it again; an assertion statement
  (``$this->assertInstanceOf(Foo::class, $x);``, ``assert($x instanceof Foo);``) does the
  same for the rest of its block after it; a closure handed to a call as an argument
  records ``this`` as ``?`` over its span (the callee may bind it to another object).
- exported: not ``private``/``protected`` (PHP members are public by default).
- ``resolve_module``: a path (has ``/`` or ends in ``.php``/``.inc``) -> that file, relative
  to the including file or else to the repository root; a namespace -> the files declaring
  it; a class name ``A\\B\\C`` -> the files of namespace ``A\\B`` declaring ``C`` (PSR-4
  style), else a file whose path ends in ``B/C.php``; anything else -> [].
"""

from __future__ import annotations

import posixpath
import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.laravel_routes import laravel_routes
from clawql_git.codegraph.lua_scopes import Span
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.php_blocks import (
    after,
    assertions,
    instanceofs,
    is_open,
    rebinds,
    rebinds_after,
    span_of,
)
from clawql_git.codegraph.php_docs import (
    DOC_VAR,
    doc_params,
    doc_return,
    doc_type,
    doc_var,
)
from clawql_git.codegraph.php_resolve import NO_THIS, PhpCalls
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    collapse,
    line,
    scan_declarations,
    text,
    walk_file,
)

TYPE_KINDS: dict[str, SymbolKind] = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "enum_declaration": "enum",
}
_NAMES = frozenset({"name", "qualified_name", "relative_name", "namespace_name"})
_INCLUDES = frozenset(
    {
        "require_expression",
        "require_once_expression",
        "include_expression",
        "include_once_expression",
    }
)
_CALLS = frozenset(
    {
        "scoped_call_expression",
        "function_call_expression",
        "member_call_expression",
        "nullsafe_member_call_expression",
    }
)
_NAMESPACE_LINE = re.compile(rb"(?m)^\s*namespace\s+\\?([A-Za-z_][\w\\]*)\s*[;{]")
_TYPE_LINE = re.compile(
    rb"(?mi)^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+([A-Za-z_]\w*)"
)


def _languages() -> dict[str, object]:
    import tree_sitter_php

    return {"php": tree_sitter_php.language_php}


def dotted(written: str) -> str:
    """``\\App\\Models\\User`` -> ``App.Models.User``: the spelling the resolver reads."""
    return written.lstrip("\\").replace("\\", ".")


def type_name(node: Node | None) -> str:
    """The class a type names (``?Repo``, ``Repo|null``, ``\\App\\Repo``); '' for ``int``,
    unions of classes, arrays."""
    if node is None:
        return ""
    if node.type == "union_type":
        named = [c for c in node.named_children if text(c).lower() != "null"]
        return type_name(named[0]) if len(named) == 1 else ""
    if node.type in {"named_type", "optional_type"} and node.named_children:
        return type_name(node.named_children[0])
    if node.type in _NAMES:
        name = dotted(text(node))
        return "" if name.lower() in {"self", "static", "mixed", "array"} else name
    return ""


def callee_name(node: Node | None) -> str:
    """A PHP receiver or callee with dots: ``$this->repo`` -> ``this.repo``."""
    if node is None:
        return ""
    kind = node.type
    if kind == "variable_name":
        return text(node).lstrip("$")
    if kind in {"member_access_expression", "nullsafe_member_access_expression"}:
        obj = callee_name(node.child_by_field_name("object"))
        name = text(node.child_by_field_name("name"))
        return f"{obj}.{name}" if obj else ""
    if kind in {"member_call_expression", "nullsafe_member_call_expression"}:
        obj = callee_name(node.child_by_field_name("object"))
        name = text(node.child_by_field_name("name"))
        return f"{obj}.{name}()" if obj else ""
    if kind == "scoped_call_expression":
        scope = scope_name(node.child_by_field_name("scope"))
        return f"{scope}.{text(node.child_by_field_name('name'))}()" if scope else ""
    if kind == "object_creation_expression":
        made = type_name(next((c for c in node.named_children if c.type in _NAMES), None))
        return f"new {made}()" if made else ""
    if kind == "function_call_expression":
        return f"{callee_name(node.child_by_field_name('function'))}()"
    if kind in _NAMES:
        return dotted(text(node))
    if kind == "parenthesized_expression" and node.named_children:
        return callee_name(node.named_children[0])
    if kind == "subscript_expression" and node.named_children:  # ``$a[$k]``: an element
        held = callee_name(node.named_children[0])
        return f"{held}[]" if held and not held.endswith("[]") else ""
    return ""


def return_type(node: Node | None) -> str:
    """The declared return type the resolver reads: a class with dots, ``self`` or
    ``static`` (the receiver's class), '' for none or anything else (unions, scalars)."""
    if node is None:
        return ""
    inner = node.named_children[0] if node.type == "optional_type" and node.named_children else node
    if inner.type == "named_type" and inner.named_children:
        inner = inner.named_children[0]
    word = text(inner).lower()
    if inner.type == "relative_scope" or word in {"self", "static"}:
        return word if word in {"self", "static"} else ""
    return type_name(node)


def scope_name(node: Node | None) -> str:
    """``Foo`` / ``self`` / ``static`` / ``parent`` of ``X::y()``; ``self`` for ``static``."""
    if node is None:
        return ""
    if node.type == "relative_scope":
        word = text(node).lower()
        return "self" if word in {"self", "static"} else word
    return callee_name(node)


def include_path(node: Node) -> str:
    """The literal path of ``require 'x.php'`` / ``require __DIR__ . '/x.php'``; '' else."""
    arg = node.named_children[0] if node.named_children else None
    if arg is not None and arg.type == "parenthesized_expression" and arg.named_children:
        arg = arg.named_children[0]
    if arg is None:
        return ""
    if arg.type in {"string", "encapsed_string"}:
        return literal(arg)
    if arg.type == "binary_expression":
        left = arg.child_by_field_name("left")
        right = arg.child_by_field_name("right")
        if text(left) == "__DIR__" and right is not None and literal(right).startswith("/"):
            return posixpath.normpath("." + literal(right))
    return ""


def literal(node: Node) -> str:
    """The content of a string without interpolation; '' otherwise."""
    if node.type not in {"string", "encapsed_string"}:
        return ""
    if any(c.type not in {"string_content", "string_value"} for c in node.named_children):
        return ""
    return "".join(text(c) for c in node.named_children)


class PhpWalker(Walker):
    """One pass over a PHP tree."""

    handlers: ClassVar[dict[str, str]] = {
        "namespace_definition": "on_namespace",
        "namespace_use_declaration": "on_use",
        **{kind: "on_type" for kind in TYPE_KINDS},
        "function_definition": "on_function",
        "method_declaration": "on_function",
        "use_declaration": "on_trait_use",
        "property_declaration": "on_property",
        "const_declaration": "on_const",
        "assignment_expression": "on_assign",
        "function_call_expression": "on_call",
        "member_call_expression": "on_call",
        "nullsafe_member_call_expression": "on_call",
        "scoped_call_expression": "on_call",
        "object_creation_expression": "on_new",
        "formal_parameters": "on_params",
        "foreach_statement": "on_foreach",
        "catch_clause": "on_catch",
        "if_statement": "on_if",
        "else_if_clause": "on_if",
        "anonymous_function": "on_closure",
        "arrow_function": "on_closure",
        **{kind: "on_include" for kind in _INCLUDES},
        "attribute_list": "on_attributes",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []
        self.trait_uses: list[tuple[Node, str]] = []
        self.closures: list[Span] = []  # the closures around the node walked, innermost last
        self.param_docs: dict[str, str] = {}  # the ``@param`` types of the function entered

    def assign(
        self, target: str, value: str, node: Node, annotation: bool, span: Span = ()
    ) -> None:
        """As :meth:`Walker.assign`; inside a closure the evidence is the closure's (its
        ``span``), and a narrowing (``instanceof``, ``catch``) holds only in its block."""
        span = span or (self.closures[-1] if self.closures else ())
        if target and value:
            self.facts.assignments.append(
                Assignment(target, value, self.qualname, line(node), annotation, span=span)
            )

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(node) if c.type == "comment"]
        last = text(comments[-1]) if comments else ""
        return clean_block_doc(last) if last.startswith("/**") else ""

    def attributes(self, node: Node) -> tuple[str, ...]:
        """The attributes of a declaration as written; calls in their arguments are recorded
        with context 'decorator'."""
        found = []
        for group in (c for c in node.named_children if c.type == "attribute_list"):
            self.on_attributes(group)
            for item in group.named_children:
                found += [collapse(text(a)) for a in item.named_children if a.type == "attribute"]
        return tuple(found)

    def signature_of(self, node: Node, body: Node | None) -> str:
        start = next((c for c in node.children if c.type != "attribute_list"), node)
        return self.signature(start, body, node)

    def on_namespace(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        if name:
            self.add_symbol(
                node, name, "module", signature=f"namespace {name}", docstring=self.doc(node)
            )
        self.visit(node.child_by_field_name("body"))

    def on_use(self, node: Node) -> None:
        words = {text(c).lower() for c in node.children if not c.is_named}
        function = bool(words & {"function", "const"})
        group = node.child_by_field_name("body")
        prefix = next((c for c in node.named_children if c.type == "namespace_name"), None)
        base = text(prefix).lstrip("\\") + "\\" if group is not None and prefix else ""
        clauses = group.named_children if group is not None else node.named_children
        for clause in clauses:
            if clause.type != "namespace_use_clause":
                continue
            alias_node = clause.child_by_field_name("alias")
            path = clause.named_children[0] if clause.named_children else None
            full = base + text(path).lstrip("\\")
            if not full:
                continue
            name = full.rsplit("\\", 1)[-1]
            alias = text(alias_node) if alias_node is not None else name
            clause_words = {text(c).lower() for c in clause.children if not c.is_named}
            if function or clause_words & {"function", "const"}:
                self.add_import(full.rpartition("\\")[0], name, alias, clause)
            else:
                self.add_import(full, name, alias, clause)

    def on_include(self, node: Node) -> None:
        path = include_path(node)
        if path:
            self.add_import(path, "*", "", node)
        self.visit_children(node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        kind = TYPE_KINDS[node.type]
        body = node.child_by_field_name("body")
        written: list[tuple[Node, str, str]] = []
        for child in node.named_children:
            if child.type in {"base_clause", "class_interface_clause"}:
                relation = "implements" if child.type == "class_interface_clause" else "extends"
                written += [(t, type_name(t), relation) for t in child.named_children]
        saved, self.trait_uses = self.trait_uses, []
        for member in body.named_children if body is not None else []:
            if member.type == "use_declaration":
                self.trait_uses += [
                    (t, type_name(t)) for t in member.named_children if t.type in _NAMES
                ]
        bases = [w for _, w, _ in written if w] + [w for _, w in self.trait_uses if w]
        modifiers = {text(c).lower() for c in node.children if c.type.endswith("_modifier")}
        symbol = self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature_of(node, body),
            docstring=self.doc(node),
            exported="private" not in modifiers,
            decorators=self.attributes(node),
            bases=tuple(bases),
        )
        for at, base, relation in written:
            self.add_supertype(symbol.qualname, base, at, relation)
        for at, base in self.trait_uses:
            self.add_supertype(symbol.qualname, base, at, "uses")
        self.trait_uses = saved
        with self.enter(name):
            self.type_scopes.append(self.qualname)
            self.visit(body)
            self.type_scopes.pop()

    def on_trait_use(self, node: Node) -> None:
        return  # recorded by on_type as bases and 'uses' edges

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        modifiers = {text(c).lower() for c in node.children if c.type.endswith("_modifier")}
        method = node.type == "method_declaration" and bool(self.type_scopes)
        doc = self.doc(node)
        declared = node.child_by_field_name("return_type")
        self.add_symbol(
            node,
            name,
            "method" if method else "function",
            signature=self.signature_of(node, body),
            docstring=doc,
            exported=not modifiers & {"private", "protected"},
            decorators=self.attributes(node),
            returns=return_type(declared) or (doc_return(doc) if is_open(declared) else ""),
        )
        saved, self.closures = self.closures, []
        with self.enter(name):
            if method and "static" not in modifiers:
                self.assign("this", self.type_scopes[-1], node, True)
            self.param_docs = doc_params(doc)
            self.visit(node.child_by_field_name("parameters"))
            self.param_docs = {}
            self.visit(body)
        self.closures = saved

    def on_property(self, node: Node) -> None:
        modifiers = {text(c).lower() for c in node.children if c.type.endswith("_modifier")}
        written = node.child_by_field_name("type")
        declared = type_name(written) or (doc_var(self.doc(node)) if is_open(written) else "")
        for element in (c for c in node.named_children if c.type == "property_element"):
            name = text(element.child_by_field_name("name")).lstrip("$")
            self.add_symbol(
                node,
                name,
                "variable",
                signature=self.signature_of(node, None).rstrip(";"),
                docstring=self.doc(node),
                exported=not modifiers & {"private", "protected"},
            )
            self.assign(name, declared, element, True)
            self.visit_children(element)

    def on_above(self, node: Node) -> None:
        """An inline ``/** @var Foo $x */`` types ``$x`` in the enclosing function."""
        super().on_above(node)
        comment = text(node)
        if comment.startswith("/**") and "@var" in comment and self.scope:
            found = DOC_VAR.search(comment)
            if found and found.group(2):
                self.assign(found.group(2), doc_type(found.group(1)), node, True)

    def on_const(self, node: Node) -> None:
        if not self.type_scopes:
            self.visit_children(node)
            return
        for element in (c for c in node.named_children if c.type == "const_element"):
            name = next((text(c) for c in element.named_children if c.type == "name"), "")
            self.add_symbol(
                node,
                name,
                "constant",
                signature=collapse(text(node)).rstrip(";"),
                docstring=self.doc(node),
            )
            self.visit_children(element)

    def evidence(self, target: str, value: Node, at: Node) -> None:
        if value.type == "object_creation_expression":
            made = next((c for c in value.named_children if c.type in _NAMES), None)
            self.assign(target, type_name(made), at, False)
        elif value.type in _CALLS:
            self.assign(target, callee_name(value).removesuffix("()"), at, False)
        elif value.type == "subscript_expression":  # ``$x = $this->routes[$k]``
            self.assign(target, callee_name(value), at, False)

    def on_foreach(self, node: Node) -> None:
        """``foreach ($xs as $x)`` / ``as $k => $x``: ``$x`` an element of ``$xs``."""
        named = [c for c in node.named_children if c != node.child_by_field_name("body")]
        held = callee_name(named[0]) if len(named) == 2 else ""
        value = named[-1]
        if value.type == "pair" and value.named_children:
            value = value.named_children[-1]
        if value.type == "by_ref" and value.named_children:
            value = value.named_children[0]
        if held and not held.endswith("[]") and value.type == "variable_name":
            self.assign(text(value).lstrip("$"), f"{held}[]", value, False)
        self.visit_children(node)

    def on_catch(self, node: Node) -> None:
        """``catch (E $e) { ... }``: ``$e`` an ``E`` in the block (one type caught only)."""
        caught = node.child_by_field_name("type")
        types = caught.named_children if caught is not None else []
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if len(types) == 1 and name is not None and body is not None:
            self.narrow(text(name).lstrip("$"), type_name(types[0]), name, body)
        self.visit_children(node)

    def on_if(self, node: Node) -> None:
        """``if ($x instanceof Foo && ...) { ... }``: ``$x`` (or ``$this->x``) a ``Foo`` in
        the block."""
        body = node.child_by_field_name("body")
        if body is not None:
            for subject, klass in instanceofs(node.child_by_field_name("condition")):
                target = callee_name(subject)
                if re.fullmatch(r"(this\.)?\w+", target):
                    self.narrow(target, type_name(klass), subject, body)
        self.visit_children(node)

    def narrow(self, target: str, klass: str, at: Node, block: Node) -> None:
        """``target`` holds a ``klass`` in ``block`` unless the block assigns it again."""
        if not klass or rebinds(block, collapse(text(at))):
            return
        self.assign(target, klass, at, True, span_of(block))

    def on_assertion(self, node: Node) -> None:
        """``$this->assertInstanceOf(Foo::class, $x);`` / ``assert($x instanceof Foo);``:
        ``$x`` (or ``$this->x``) a ``Foo`` in the rest of the block, unless assigned again."""
        statement = node.parent
        reach = after(statement) if statement is not None else None
        if statement is None or reach is None:
            return
        for subject, klass in assertions(node):
            target = callee_name(subject)
            written = collapse(text(subject))
            if re.fullmatch(r"(this\.)?\w+", target) and not rebinds_after(statement, written):
                self.assign(target, type_name(klass), subject, True, reach)

    def on_closure(self, node: Node) -> None:
        """A closure's parameters and assignments hold inside it only (its variables are
        its own, PHP manual "Anonymous functions")."""
        self.closures.append(span_of(node))
        if node.parent is not None and node.parent.type == "argument":
            # handed to a call, it may be bound to another object (``Closure::bind``)
            self.assign("this", NO_THIS, node, True)
        self.visit_children(node)
        self.closures.pop()

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        target = callee_name(left)
        if right is not None and "[]" not in target:  # ``$xs[$k] = ...`` types no variable
            self.evidence(target, right, node)
        self.visit_children(node)

    def on_call(self, node: Node) -> None:
        if node.type == "function_call_expression":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type in _NAMES:
                self.add_call(dotted(text(fn)), node)
            elif fn is not None:
                self.add_call(callee_name(fn), node)
                self.visit(fn)
        elif node.type == "scoped_call_expression":
            self.add_call(callee_name(node).removesuffix("()"), node)
            scope = node.child_by_field_name("scope")
            if scope is not None and scope.type not in _NAMES | {"relative_scope"}:
                self.visit(scope)
        else:
            obj = node.child_by_field_name("object")
            receiver = callee_name(obj)
            if receiver:
                self.add_call(f"{receiver}.{text(node.child_by_field_name('name'))}", node)
            if obj is not None and obj.type != "variable_name":
                self.visit(obj)
        self.visit(node.child_by_field_name("arguments"))
        self.on_assertion(node)

    def on_new(self, node: Node) -> None:
        made = next((c for c in node.named_children if c.type in _NAMES), None)
        if made is not None:
            self.add_call(type_name(made), node)
        self.visit_children(node)

    def on_params(self, node: Node) -> None:
        for param in node.named_children:
            written = param.child_by_field_name("type")
            name = text(param.child_by_field_name("name")).lstrip("$")
            declared = type_name(written)
            if not declared and is_open(written):  # ``array $xs`` with ``@param X[] $xs``
                declared = self.param_docs.get(name, "")
            if param.type == "property_promotion_parameter":
                self.assign(f"this.{name}", declared, param, True)
            self.assign(name, declared, param, True)
            self.visit(param.child_by_field_name("default_value"))

    def on_attributes(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit_children(node)


class PhpExtractor:
    """The PHP extractor the code graph loads as ``lang_php.EXTRACTOR``."""

    version = "4"

    def __init__(self) -> None:
        self.suffixes = {".php": "php"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._namespaces: dict[str, list[str]] = {}  # namespace -> files declaring it
        self._types: dict[str, set[str]] = {}  # file -> class-like names declared in it
        self.call_resolver = PhpCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one PHP file; syntax errors are counted and the rest still extracted."""
        root, facts, _ = walk_file(self._parsers, path, source, language, PhpWalker)
        namespace = next((s for s in facts.symbols if s.kind == "module"), None)
        facts.module_doc = namespace.docstring if namespace is not None else ""
        laravel_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The included file, the files of a namespace, or the file of a class; else []."""
        if not module:
            return []
        if "/" in module or module.endswith((".php", ".inc")):
            here = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            there = posixpath.normpath(module.lstrip("/"))
            return [p for p in dict.fromkeys((here, there)) if p in repo.files][:1]
        self._use(repo)
        module = module.lstrip("\\")
        if module in self._namespaces:
            return list(self._namespaces[module])
        namespace, _, name = module.rpartition("\\")
        declared = [f for f in self._namespaces.get(namespace, []) if name in self._types[f]]
        if declared or not namespace:
            return declared
        tail = "/".join(module.split("\\")[-2:]) + ".php"
        return sorted(f for f in self._types if ("/" + f).endswith("/" + tail))

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo = repo
        self._namespaces, self._types = scan_declarations(repo, ".php", _TYPE_LINE, _namespaces)


def _namespaces(path: str, raw: bytes) -> list[str]:
    """The namespaces a PHP file declares (``namespace A\\B;`` or a block)."""
    return sorted({m.decode() for m in _NAMESPACE_LINE.findall(raw)})


EXTRACTOR = PhpExtractor()
