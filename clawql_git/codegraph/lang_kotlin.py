"""Kotlin facts: packages, classes, interfaces, objects, functions, properties, imports, calls.

Conventions:

- a ``package a.b`` is a symbol of kind 'module' named ``a.b``; like a Java package it is
  not part of qualnames (``Cart``, ``Cart.add``); a type of the file's own package declared
  in another file resolves without an import.
- kinds: ``class``/``data class``/``object`` -> 'class', ``interface`` -> 'interface',
  ``enum class`` -> 'enum', ``typealias`` -> 'type'; ``fun`` -> 'method' in a type, else
  'function' (an extension ``fun String.shout()`` is the function ``shout``); members of a
  ``companion object`` are members of its class (``Cart.create``; a named companion ``Maker``
  is an assignment of the class, value the class's name, so ``Cart.Maker.create`` reads
  the same); properties (also
  ``val``/``var`` constructor parameters) -> 'variable', ``const val`` -> 'constant'.
- docs: the KDoc ``/** */`` right above the declaration (or its annotations); annotations
  are decorators, calls in their arguments have context 'decorator'.
- exported: not ``private``/``protected``.
- imports: ``import a.b.C`` -> module 'a.b', name 'C' (``as D`` -> alias 'D');
  ``import a.b.*`` -> name '*'.
- bases: ``class A : B(), I`` -> Supertype ``B`` 'extends' (a constructor call), ``I``
  'implements'; an interface's bases 'extends'. Type arguments are dropped.
- calls: ``f()``, ``a.b.c()``, ``this.x()``, ``a?.b()`` with dots; ``Foo()`` (a
  constructor call looks like any call) -> ``Foo``; ``Foo().bar()`` -> ``Foo().bar``,
  ``a().b().c()`` -> ``a().b().c``; ``!f()`` -> ``f``; ``run(x) { }`` is one call ``run``;
  ``super.m()`` -> ``super.m`` (in an object expression ``object : Base() { }``:
  ``super<Base>.m``, '?' for a base not known); ``object : T { fun m() }.m()`` ->
  ``object.m``. The members of an object expression written in ``f`` are ``f.object.m``.
  Functions keep their declared return type (``returns``); kotlin_resolve types receivers.
- assignments: property and parameter types (annotation), ``val x = Foo()`` (value the
  callee); a collection made by the standard library with its element type written
  (``emptyArray<Tree>()``, ``listOf<Tree>()``) keeps it (value ``emptyArray<Tree>``). The
  parameter of a lambda given to a scope or iteration function (``x.let { it.m() }``,
  ``xs.forEach { t -> t.m() }``; ``it`` when none is declared), or the receiver of a lambda
  with one (``x.apply { }``, ``x.run { }``, ``with(x) { }``: target ``this``) -> value
  ``x.let{}`` (the receiver as written, the function), ``span`` the lambda's (line, column,
  end line, end column): kotlin_resolve types the parameter inside it. ``this@Outer.m()``
  keeps its label.
- ``resolve_module``: a package -> the files declaring it; ``a.b.C`` -> the files of
  package ``a.b`` declaring ``C``; ``kotlin.*``, ``java.*``, ``android.*`` and anything
  not found -> [].
"""

from __future__ import annotations

import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.kotlin_resolve import KotlinCalls
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    collapse,
    end_line,
    line,
    scan_declarations,
    text,
    walk_file,
)

_PACKAGE_LINE = re.compile(rb"(?m)^\s*package\s+([A-Za-z_][\w.]*)")
_TYPE_LINE = re.compile(
    rb"(?m)^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|private|internal|protected|open|"
    rb"abstract|sealed|data|enum|inner|value|annotation|fun|expect|actual)\s+)*"
    rb"(?:class|interface|object|typealias)\s+([A-Za-z_]\w*)"
)
_EXTERNAL = ("kotlin.", "kotlinx.", "java.", "javax.", "android.", "androidx.")
_COMMENTS = frozenset({"block_comment", "line_comment"})
# standard functions whose lambda's one parameter is the receiver itself, or an element of it
IT_RECEIVER = frozenset({"let", "also", "takeIf", "takeUnless"})
THIS_RECEIVER = frozenset({"apply", "run", "with"})  # whose lambda's ``this`` is the receiver
IT_ELEMENT = frozenset(
    {
        "forEach", "onEach", "filter", "filterNot", "map", "mapNotNull", "flatMap", "any",
        "all", "none", "first", "firstOrNull", "last", "lastOrNull", "find", "count",
        "sortedBy", "sortedByDescending", "sumOf",
    }
)  # fmt: skip
# standard library functions making a collection of the element type given as type argument
FACTORIES = frozenset(
    {
        "emptyArray", "arrayOf", "emptyList", "listOf", "mutableListOf", "arrayListOf",
        "emptySet", "setOf", "mutableSetOf", "hashSetOf", "linkedSetOf",
    }
)  # fmt: skip


def _languages() -> dict[str, object]:
    import tree_sitter_kotlin

    return {"kotlin": tree_sitter_kotlin.language}


def type_name(node: Node | None) -> str:
    """The class a type names (``Repo``, ``a.Repo``, ``Repo?``, ``List<X>`` -> ``List``)."""
    if node is None:
        return ""
    if node.type == "nullable_type" and node.named_children:
        return type_name(node.named_children[0])
    if node.type == "user_type":
        return ".".join(text(c) for c in node.named_children if c.type == "identifier")
    return ""


def callee_name(node: Node | None) -> str:
    """A receiver or callee with dots: ``this.repo.find``, ``Foo().bar``; '' otherwise."""
    if node is None:
        return ""
    kind = node.type
    if kind == "identifier":
        return text(node)
    if kind == "this_expression":
        return text(node)  # ``this``, or ``this@Outer`` (kotlin_resolve reads the label)
    if kind == "super_expression":  # ``super``, ``super<Base>``
        named = next((type_name(c) for c in node.named_children if c.type == "user_type"), "")
        return f"super<{named}>" if named else "super"
    if kind == "navigation_expression" and len(node.named_children) == 2:
        head = callee_name(node.named_children[0])
        name = node.named_children[1]
        return f"{head}.{text(name)}" if head and name.type == "identifier" else ""
    if kind == "call_expression" and node.named_children:
        inner = callee_name(node.named_children[0])
        return f"{inner}()" if inner else ""
    if kind == "unary_expression" and node.named_children:  # ``!f(x)`` parses as ``(!f)(x)``
        return callee_name(node.named_children[0])
    if kind == "parenthesized_expression" and node.named_children:
        return callee_name(node.named_children[0])
    return ""


def literal_base(node: Node) -> str:
    """The class an object expression (``object : Base(), I { }``) derives from: the one
    base called as a constructor, else its one base; '?' when neither is known."""
    specs = [
        item.named_children[0] if item.named_children else item
        for spec in node.named_children
        if spec.type == "delegation_specifiers"
        for item in spec.named_children
    ]
    called = [s for s in specs if s.type == "constructor_invocation" and s.named_children]
    if len(called) == 1:
        return type_name(called[0].named_children[0]) or "?"
    return (type_name(specs[0]) or "?") if len(specs) == 1 and not called else "?"


def literal_member(receiver: Node, name: str) -> bool:
    """Whether the object expression ``receiver`` declares a function ``name`` itself."""
    body = next((c for c in receiver.named_children if c.type == "class_body"), None)
    return body is not None and any(
        c.type == "function_declaration"
        and next((text(i) for i in c.named_children if i.type == "identifier"), "") == name
        for c in body.named_children
    )


def declared_type(node: Node) -> str:
    """A parameter's type: its class, or a function type as written (``() -> Unit``)."""
    return text(node) if node.type == "function_type" else type_name(node)


def return_type(node: Node) -> str:
    """The class a function's declared return type names ('' when none is written)."""
    seen_params = False
    for child in node.named_children:
        if child.type == "function_value_parameters":
            seen_params = True
        elif seen_params and child.type in {"user_type", "nullable_type"}:
            return type_name(child)
    return ""


def lambda_receiver(fn: Node) -> tuple[Node | None, str]:
    """(the receiver, the function) of a call given a trailing lambda: ``x.let`` -> (x,
    'let'), ``with(x)`` -> (x, 'with'); (None, '') for anything else."""
    if fn.type == "navigation_expression" and len(fn.named_children) == 2:
        return fn.named_children[0], text(fn.named_children[1])
    if fn.type == "call_expression" and len(fn.named_children) == 2:
        name, arguments = fn.named_children
        given = [c for c in arguments.named_children if c.type == "value_argument"]
        if text(name) == "with" and len(given) == 1 and given[0].named_children:
            return given[0].named_children[-1], "with"
    return None, ""


def made_value(call: Node) -> str:
    """What ``val x = call`` records: the callee (``Foo``), with the element type kept for a
    standard collection factory given one (``emptyArray<Tree>``)."""
    callee = callee_name(call).removesuffix("()")
    types = next((c for c in call.named_children if c.type == "type_arguments"), None)
    if callee in FACTORIES and types is not None and len(types.named_children) == 1:
        element = type_name(types.named_children[0].named_children[-1])
        return f"{callee}<{element}>" if element else callee
    return callee


def modifiers(node: Node) -> tuple[set[str], list[Node]]:
    """The modifier words of a declaration and its annotation nodes."""
    words: set[str] = set()
    annotations: list[Node] = []
    for child in node.named_children:
        if child.type != "modifiers":
            continue
        for mod in child.named_children:
            if mod.type == "annotation":
                annotations.append(mod)
            else:
                words.add(text(mod))
    return words, annotations


class KotlinWalker(Walker):
    """One pass over a Kotlin tree."""

    handlers: ClassVar[dict[str, str]] = {
        "package_header": "on_package",
        "import": "on_import",
        "class_declaration": "on_type",
        "object_declaration": "on_type",
        "companion_object": "on_companion",
        "function_declaration": "on_function",
        "property_declaration": "on_property",
        "type_alias": "on_alias",
        "call_expression": "on_call",
        "object_literal": "on_object_literal",
        "annotation": "on_annotation",
        "block_comment": "on_above",
        "line_comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []
        # what ``super`` is in the innermost class ('') or object expression (its base)
        self.supers: list[str] = []

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(node) if c.type in _COMMENTS]
        last = text(comments[-1]) if comments else ""
        return clean_block_doc(last) if last.startswith("/**") else ""

    def head(self, node: Node, body: Node | None) -> str:
        """The declaration without its annotations, up to its body, on one line."""
        start = node.start_byte
        for child in node.named_children:
            if child.type == "modifiers":
                kept = [m for m in child.named_children if m.type != "annotation"]
                start = kept[0].start_byte if kept else child.end_byte
                break
        end = body.start_byte if body is not None else node.end_byte
        raw = self.source[start:end].decode("utf-8", "replace")
        return collapse(raw.strip().rstrip("={").rstrip())

    def decorators(self, annotations: list[Node]) -> tuple[str, ...]:
        for annotation in annotations:
            self.on_annotation(annotation)
        return tuple(collapse(text(a)).lstrip("@") for a in annotations)

    def on_package(self, node: Node) -> None:
        name = next((text(c) for c in node.named_children if c.type == "qualified_identifier"), "")
        if name:
            self.add_symbol(
                node, name, "module", signature=f"package {name}", docstring=self.doc(node)
            )

    def on_import(self, node: Node) -> None:
        path = next((c for c in node.named_children if c.type == "qualified_identifier"), None)
        if path is None:
            return
        full = text(path)
        alias = next((text(c) for c in node.named_children if c.type == "identifier"), "")
        if any(c.type == "*" for c in node.children):
            self.add_import(full, "*", "", node)
            return
        module, _, name = full.rpartition(".")
        self.add_import(module, name, alias or name, node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        words, annotations = modifiers(node)
        keywords = {c.type for c in node.children if not c.is_named}
        kind: SymbolKind = "class"
        if "interface" in keywords:
            kind = "interface"
        elif "enum" in words:
            kind = "enum"
        body = next((c for c in node.named_children if c.type.endswith("class_body")), None)
        written: list[tuple[Node, str, str]] = []
        for spec in (c for c in node.named_children if c.type == "delegation_specifiers"):
            for item in spec.named_children:
                inner = item.named_children[0] if item.named_children else item
                call = inner.type == "constructor_invocation"
                base = type_name(inner.named_children[0] if call else inner)
                relation = "extends" if call or kind == "interface" else "implements"
                written.append((inner, base, relation))
        symbol = self.add_symbol(
            node,
            name,
            kind,
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & {"private", "protected"},
            decorators=self.decorators(annotations),
            bases=tuple(b for _, b, _ in written if b),
        )
        for at, base, relation in written:
            self.add_supertype(symbol.qualname, base, at, relation)
        with self.enter(name):
            self.type_scopes.append(self.qualname)
            self.supers.append("")
            for child in node.named_children:
                if child.type == "primary_constructor":
                    self.on_constructor(child)
                elif child.type == "delegation_specifiers":
                    self.visit_children(child)
            self.visit(body)
            self.supers.pop()
            self.type_scopes.pop()

    def on_object_literal(self, node: Node) -> None:
        """``object : Base() { fun m() }`` in ``f``: its members are ``f.object.m`` (so no
        bare ``m()`` of ``f`` names them; ``object`` is a keyword, no name), ``super`` in
        them is ``super<Base>``."""
        self.supers.append(literal_base(node))
        for child in node.named_children:
            if child.type == "class_body":
                with self.enter("object"):
                    self.visit(child)
            else:
                self.visit(child)
        self.supers.pop()

    def on_constructor(self, node: Node) -> None:
        """``class A(private val repo: Repo, n: Int)``: ``val``/``var`` ones are properties."""
        for params in node.named_children:
            for param in (p for p in params.named_children if p.type == "class_parameter"):
                name = next((text(c) for c in param.named_children if c.type == "identifier"), "")
                declared = next((type_name(c) for c in param.named_children if type_name(c)), "")
                words, _ = modifiers(param)
                if {c.type for c in param.children} & {"val", "var"}:
                    self.add_symbol(
                        param,
                        name,
                        "variable",
                        signature=collapse(text(param)),
                        exported=not words & {"private", "protected"},
                    )
                    self.assign(name, declared, param, True)
                self.visit_children(param)

    def on_companion(self, node: Node) -> None:
        name = next((c for c in node.named_children if c.type == "identifier"), None)
        if name is not None and self.type_scopes:  # ``Box.Maker``: the class's members
            self.assign(text(name), self.type_scopes[-1].rsplit(".", 1)[-1], name, True)
        self.visit(next((c for c in node.named_children if c.type == "class_body"), None))

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        words, annotations = modifiers(node)
        body = next((c for c in node.named_children if c.type == "function_body"), None)
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & {"private", "protected"},
            decorators=self.decorators(annotations),
            returns=return_type(node),
        )
        with self.enter(name):
            for params in (c for c in node.named_children if c.type == "function_value_parameters"):
                for param in (p for p in params.named_children if p.type == "parameter"):
                    pname = next(
                        (text(c) for c in param.named_children if c.type == "identifier"), ""
                    )
                    declared = next(
                        (declared_type(c) for c in param.named_children if declared_type(c)), ""
                    )
                    self.assign(pname, declared, param, True)
                self.visit_children(params)
            self.visit(body)

    def on_property(self, node: Node) -> None:
        words, annotations = modifiers(node)
        declaration = next(
            (c for c in node.named_children if c.type == "variable_declaration"), None
        )
        if declaration is None:
            self.visit_children(node)
            return
        name = next((text(c) for c in declaration.named_children if c.type == "identifier"), "")
        declared = next((type_name(c) for c in declaration.named_children if type_name(c)), "")
        value = next(
            (c for c in node.named_children if c.type not in {"modifiers", "variable_declaration"}),
            None,
        )
        at_type_level = not self.scope or (
            bool(self.type_scopes) and self.qualname == self.type_scopes[-1]
        )
        if at_type_level:
            self.add_symbol(
                node,
                name,
                "constant" if "const" in words else "variable",
                signature=self.head(node, value).removesuffix(" ="),
                docstring=self.doc(node),
                exported=not words & {"private", "protected"},
                decorators=self.decorators(annotations),
            )
        self.assign(name, declared, node, True)
        if value is not None and value.type == "call_expression":
            self.assign(name, made_value(value), node, False)
        self.visit(value)

    def on_alias(self, node: Node) -> None:
        name = text(node.child_by_field_name("type"))
        if name:
            self.add_symbol(
                node, name, "type", signature=collapse(text(node)), docstring=self.doc(node)
            )

    def on_call(self, node: Node) -> None:
        fn = node.named_children[0] if node.named_children else None
        name = callee_name(fn)
        args = node.named_children[1:]
        trailing = bool(args) and all(r.type == "annotated_lambda" for r in args)
        if fn is not None and fn.type == "call_expression" and trailing:
            name = ""  # ``run(x) { }``: the inner call is the one call
        if name.startswith("super.") and self.supers and self.supers[-1]:
            name = f"super<{self.supers[-1]}>{name[5:]}"  # in an object expression
        if fn is not None and fn.type == "navigation_expression" and len(fn.named_children) == 2:
            receiver, member = fn.named_children
            if receiver.type == "object_literal" and literal_member(receiver, text(member)):
                name = f"object.{text(member)}"  # ``object : T { fun m() }.m()``
        if name:
            self.add_call(name, node)
        if fn is not None and args and args[-1].type == "annotated_lambda":
            self.bind_lambda(fn, args[-1])
        if fn is not None and fn.type == "navigation_expression" and fn.named_children:
            receiver = fn.named_children[0]
            if receiver.type not in {"identifier", "this_expression"}:
                self.visit(receiver)
        elif fn is not None and fn.type not in {"identifier"}:
            self.visit(fn)
        for rest in node.named_children[1:]:
            self.visit(rest)

    def bind_lambda(self, fn: Node, lambda_arg: Node) -> None:
        """The parameter (or the receiver ``this``) of the lambda ``lambda_arg`` passed to
        ``x.let``, ``xs.forEach``, ``x.apply``, ``with(x)``...: an assignment scoped to the
        lambda's span (value ``x.let{}``)."""
        receiver, function = lambda_receiver(fn)
        literal = next((c for c in lambda_arg.named_children if c.type == "lambda_literal"), None)
        written = callee_name(receiver)
        if literal is None or not written:
            return
        span = (line(literal), literal.start_point[1], end_line(literal), literal.end_point[1])
        if function in THIS_RECEIVER:
            self.facts.assignments.append(
                Assignment("this", f"{written}.{function}{{}}", self.qualname, span[0], span=span)
            )
            return
        if function not in IT_RECEIVER | IT_ELEMENT:
            return
        params = next((c for c in literal.named_children if c.type == "lambda_parameters"), None)
        names = [
            text(c.named_children[0])
            for c in (params.named_children if params is not None else [])
            if c.type == "variable_declaration" and c.named_children
        ]
        if params is not None and (len(params.named_children) != 1 or len(names) != 1):
            return  # ``{ (a, b) -> }``, ``{ i, x -> }``: not one named parameter
        target = names[0] if names else "it"
        self.facts.assignments.append(
            Assignment(target, f"{written}.{function}{{}}", self.qualname, line(literal), span=span)
        )

    def on_annotation(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit_children(node)


class KotlinExtractor:
    """The Kotlin extractor the code graph loads as ``lang_kotlin.EXTRACTOR``."""

    version = "4"

    def __init__(self) -> None:
        self.suffixes = {".kt": "kotlin", ".kts": "kotlin"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._packages: dict[str, list[str]] = {}
        self._types: dict[str, set[str]] = {}
        self.call_resolver = KotlinCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Kotlin file; syntax errors are counted and the rest still extracted."""
        _, facts, _ = walk_file(self._parsers, path, source, language, KotlinWalker)
        package = next((s for s in facts.symbols if s.kind == "module"), None)
        facts.module_doc = package.docstring if package is not None else ""
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The files of package ``module``, or of the package declaring class ``module``."""
        if not module or module.startswith(_EXTERNAL):
            return []
        self._use(repo)
        if module in self._packages:
            return list(self._packages[module])
        package, _, name = module.rpartition(".")
        return [f for f in self._packages.get(package, []) if name in self._types[f]]

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo = repo
        self._packages, self._types = scan_declarations(repo, ".kt", _TYPE_LINE, _packages)


def _packages(path: str, raw: bytes) -> list[str]:
    """The package a Kotlin file declares ('' is the default package)."""
    found = _PACKAGE_LINE.search(raw)
    return [found.group(1).decode() if found else ""]


EXTRACTOR = KotlinExtractor()
