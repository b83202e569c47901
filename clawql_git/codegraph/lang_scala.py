"""Scala facts: packages, classes, objects, traits, enums, defs, vals, imports, calls.

Conventions:

- a ``package a.b`` is a symbol of kind 'module' named ``a.b``, not part of qualnames (as
  in Kotlin and Java); a type of the file's own package in another file resolves without
  an import.
- kinds: ``class``/``case class``/``object`` -> 'class' (a companion ``object Cart``'s
  members are ``Cart.x`` like the class's), ``trait`` -> 'trait', ``enum`` -> 'enum',
  ``type X = ...`` -> 'type'; ``def`` -> 'method' in a template, else 'function';
  ``val``/``var`` and ``val`` class parameters -> 'variable'.
- docs: the Scaladoc ``/** */`` right above; annotations are decorators.
- exported: not ``private``/``protected``.
- imports: ``import a.b.C`` -> module 'a.b', name 'C'; ``import a.b._`` / ``a.b.*`` ->
  name '*'; ``import a.b.{C, D => E}`` one import per selector (alias 'E').
- bases: the first type of ``extends`` is 'extends', the ``with`` ones 'uses' (mixins).
- calls: ``f()``, ``a.b.c()``, ``this.x()``; ``new Foo()`` -> ``Foo``; ``Foo(...)`` (a
  case class or companion ``apply``) -> ``Foo``; in a chain ``new Foo(1).bar()`` ->
  ``new Foo().bar``, ``Foo(1).bar()`` -> ``Foo().bar``. Defs keep their declared result type
  (``returns``); scala_resolve types receivers.
- assignments: declared types of vals, parameters and typed patterns (annotation); an
  untyped ``val`` the callee chain it is given (``val x = Obj.make()`` -> ``Obj.make()``,
  ``new Foo()``, ``Foo()``, ``Obj.member``; a block: its last expression). A local of no type
  known here (a lambda parameter, a pattern variable, ``val x = 1``) is an annotation with an
  empty value, so that it hides a field of its name; a type parameter ``[T <: B]`` is
  ``<T>`` with its bound ('' for none). ``<new>`` (value the types, ``A with B``) is an
  anonymous class body and ``<import>`` (value the path) a wildcard import in a block or a
  class, with the ``span`` they cover (the body; from the import to the end of its block):
  where bare calls are looked up in them. ``<object>``
  in an object's scope, on its first line, tells it from the class or trait of its name.
- an alias ``type X = a.Y[Z]`` keeps what it stands for (``a.Y``) as its ``returns``.
- ``resolve_module``: a package -> the files declaring it; ``a.b.C`` -> the files of
  package ``a.b`` declaring ``C``; ``scala.*``, ``java.*`` and anything not found -> [].
"""

from __future__ import annotations

import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.scala_resolve import ScalaCalls
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

_PACKAGE_LINE = re.compile(rb"(?m)^\s*package\s+([A-Za-z_][\w.]*)\s*$")
_TYPE_LINE = re.compile(
    rb"(?m)^[ \t]*(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:private|protected|final|sealed|abstract|"
    rb"implicit|case|open)\s+)*(?:class|object|trait|enum|type)\s+([A-Za-z_]\w*)"
)
_EXTERNAL = ("scala.", "java.", "javax.", "akka.", "cats.", "zio.")
_KINDS: dict[str, SymbolKind] = {
    "class_definition": "class",
    "object_definition": "class",
    "trait_definition": "trait",
    "enum_definition": "enum",
}
_HIDDEN = frozenset({"private", "protected"})
_COMMENTS = frozenset({"comment", "block_comment"})
_TYPES = frozenset({"type_identifier", "stable_type_identifier", "generic_type", "type_arguments"})


def _languages() -> dict[str, object]:
    import tree_sitter_scala

    return {"scala": tree_sitter_scala.language}


def type_name(node: Node | None) -> str:
    """The class a type names (``Repo``, ``a.Repo``, ``List[X]`` -> ``List``); ''."""
    if node is None:
        return ""
    if node.type == "type_identifier":
        return text(node)
    if node.type == "stable_type_identifier":
        return ".".join(text(c) for c in node.named_children)
    if node.type == "generic_type" and node.named_children:
        return type_name(node.named_children[0])
    return ""


def callee_name(node: Node | None) -> str:
    """A callee with dots: ``this.repo.find``, ``Foo().bar``; '' otherwise."""
    if node is None:
        return ""
    kind = node.type
    if kind == "identifier":
        return text(node)
    if kind == "field_expression":
        head = value_name(node.child_by_field_name("value"))
        field = node.child_by_field_name("field")
        return f"{head}.{text(field)}" if head and field is not None else ""
    if kind == "generic_function":
        return callee_name(node.child_by_field_name("function"))
    if kind == "instance_expression":
        made = made_of(node)
        return f"new {made}()" if made else ""
    if kind == "call_expression":
        inner = made_of(node)
        return f"{inner}()" if inner and "(" not in inner else ""
    return ""


def value_name(node: Node | None) -> str:
    """A receiver or a value as a callee chain: ``Functor[F]`` (an object's ``apply``, the
    summoner) is the call ``Functor()``; else as :func:`callee_name`."""
    if node is not None and node.type == "generic_function":
        inner = node.child_by_field_name("function")
        if inner is not None and inner.type == "identifier" and text(inner)[:1].isupper():
            return f"{text(inner)}()"
    return callee_name(node)


def made_of(node: Node) -> str:
    """The callee of a call (``Foo`` of ``Foo(1)``) or the class of ``new Foo()`` (the first
    of ``new A with B``)."""
    if node.type == "instance_expression":
        return next(iter(made_types(node)), "")
    return callee_name(node.child_by_field_name("function"))


def made_types(node: Node) -> list[str]:
    """The types ``new A with B { }`` names, as written (``A``, ``B``)."""
    for child in node.named_children:
        if child.type == "compound_type":
            return [n for n in (type_name(c) for c in child.named_children) if n]
        if type_name(child):
            return [type_name(child)]
    return []


def value_chain(node: Node | None) -> str:
    """What a ``val`` is given, as a callee chain the resolver types: ``Foo()``, ``new
    Foo()``, ``a.b().c()``, ``Obj.member``, ``x``; a block gives its last expression."""
    if node is None:
        return ""
    if node.type == "block":
        last = [c for c in node.named_children if c.type not in _COMMENTS]
        return value_chain(last[-1]) if last else ""
    if node.type == "call_expression":
        return callee_name(node)
    if node.type in {"instance_expression", "field_expression", "identifier", "generic_function"}:
        return value_name(node)
    return ""


def span(start: Node, end: Node) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) from the start of ``start`` to the end of
    ``end`` (lines 1-based, columns 0-based, as calls are placed)."""
    return (start.start_point[0] + 1, start.start_point[1], end.end_point[0] + 1, end.end_point[1])


def bound_names(pattern: Node | None) -> list[tuple[Node, str]]:
    """The variables a pattern binds (its identifiers that start lower case, SLS 8.1.1),
    each with the type a typed pattern ``d: Foo`` gives it ('' for none)."""
    if pattern is None:
        return []
    if pattern.type == "identifier":
        return [(pattern, "")] if text(pattern)[:1].islower() else []
    if pattern.type == "typed_pattern":
        name = pattern.child_by_field_name("pattern")
        declared = type_name(pattern.child_by_field_name("type"))
        if name is not None and name.type == "identifier" and text(name)[:1].islower():
            return [(name, declared)]
    out: list[tuple[Node, str]] = []
    for child in pattern.named_children:
        if child.type not in _TYPES:
            out += bound_names(child)
    return out


def words_of(node: Node) -> tuple[set[str], list[Node]]:
    """A definition's modifier words and its annotations."""
    words: set[str] = set()
    annotations = [c for c in node.named_children if c.type == "annotation"]
    for child in node.named_children:
        if child.type == "modifiers":
            words |= {text(m).split("[")[0] for m in child.named_children}
            annotations += [m for m in child.named_children if m.type == "annotation"]
    return words, annotations


class ScalaWalker(Walker):
    """One pass over a Scala tree."""

    handlers: ClassVar[dict[str, str]] = {
        "package_clause": "on_package",
        "import_declaration": "on_import",
        **{kind: "on_type" for kind in _KINDS},
        "function_definition": "on_function",
        "function_declaration": "on_function",
        "val_definition": "on_val",
        "var_definition": "on_val",
        "type_definition": "on_alias",
        "call_expression": "on_call",
        "instance_expression": "on_new",
        "lambda_expression": "on_lambda",
        "case_clause": "on_case",
        "enumerator": "on_enumerator",
        "annotation": "on_annotation",
        "block_comment": "on_above",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.type_scopes: list[str] = []

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(node) if c.type in {"block_comment", "comment"}]
        last = text(comments[-1]) if comments else ""
        return clean_block_doc(last) if last.startswith("/**") else ""

    def head(self, node: Node, body: Node | None) -> str:
        start = next((c for c in node.children if c.type != "annotation"), node)
        end = body.start_byte if body is not None else node.end_byte
        raw = self.source[start.start_byte : end].decode("utf-8", "replace")
        return collapse(raw.strip().rstrip("={:").rstrip())

    def decorators(self, annotations: list[Node]) -> tuple[str, ...]:
        for annotation in annotations:
            self.on_annotation(annotation)
        return tuple(collapse(text(a)).lstrip("@") for a in annotations)

    def on_package(self, node: Node) -> None:
        name = collapse(text(node.child_by_field_name("name")))
        if name:
            self.add_symbol(
                node, name, "module", signature=f"package {name}", docstring=self.doc(node)
            )
        self.visit(node.child_by_field_name("body"))

    def on_import(self, node: Node) -> None:
        path = ".".join(text(p) for p in node.children_by_field_name("path") if p.is_named)
        selectors = next((c for c in node.named_children if c.type == "namespace_selectors"), None)
        if any(c.type == "namespace_wildcard" for c in node.named_children):
            self.add_import(path, "*", "", node)
            if self.scope and node.parent is not None:  # in force to the end of its block
                self.spanned("<import>", path, span(node, node.parent))
        elif selectors is not None:
            for item in selectors.named_children:
                if item.type == "identifier":
                    self.add_import(path, text(item), text(item), item)
                elif item.type.endswith("renamed_identifier"):
                    name = text(item.child_by_field_name("name"))
                    self.add_import(path, name, text(item.child_by_field_name("alias")), item)
                elif item.type == "namespace_wildcard":
                    self.add_import(path, "*", "", item)
        elif path:
            module, _, name = path.rpartition(".")
            self.add_import(module, name, name, node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        words, annotations = words_of(node)
        body = node.child_by_field_name("body")
        extend = node.child_by_field_name("extend")
        written: list[tuple[Node, str, str]] = []
        for i, typ in enumerate(extend.children_by_field_name("type") if extend else []):
            written.append((typ, type_name(typ), "extends" if i == 0 else "uses"))
        symbol = self.add_symbol(
            node,
            name,
            _KINDS[node.type],
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & _HIDDEN,
            decorators=self.decorators(annotations),
            bases=tuple(b for _, b, _ in written if b),
        )
        for at, base, relation in written:
            self.add_supertype(symbol.qualname, base, at, relation)
        with self.enter(name):
            if node.type == "object_definition":  # its line tells it from a companion class
                self.shadow("<object>", node, name)
            self.type_scopes.append(self.qualname)
            self.on_type_parameters(node.child_by_field_name("type_parameters"))
            self.on_class_parameters(node.child_by_field_name("class_parameters"))
            if extend is not None:
                self.visit_children(extend)
            self.visit(body)
            self.type_scopes.pop()

    def on_class_parameters(self, params: Node | None) -> None:
        for param in params.named_children if params is not None else []:
            name = text(param.child_by_field_name("name"))
            declared = type_name(param.child_by_field_name("type"))
            words, _ = words_of(param)
            if any(c.type in {"val", "var"} for c in param.children) or self._case_class(param):
                self.add_symbol(
                    param,
                    name,
                    "variable",
                    signature=collapse(text(param)),
                    exported=not words & _HIDDEN,
                )
            self.assign(name, declared, param, True)
            self.visit(param.child_by_field_name("default_value"))

    def on_type_parameters(self, params: Node | None) -> None:
        """``[A, B <: Base]``: each a name of the scope, typed by its upper bound or by
        nothing (a class of that name elsewhere is not meant)."""
        names = params.children_by_field_name("name") if params is not None else []
        for name in names:
            after = name.next_named_sibling
            bound = after if after is not None and after.type == "upper_bound" else None
            upper = type_name(bound.child_by_field_name("type")) if bound is not None else ""
            self.shadow(f"<{text(name)}>", name, upper)

    def shadow(self, name: str, node: Node, declared: str = "") -> None:
        """A local name (a lambda or pattern variable, a type parameter), of the type
        ``declared`` or of none known: it hides a field or a type of that name."""
        if name:
            self.facts.assignments.append(
                Assignment(name, declared, self.qualname, line(node), True)
            )

    def spanned(self, kind: str, value: str, where: tuple[int, int, int, int]) -> None:
        """An anonymous class body or a wildcard import, and the span it covers."""
        self.facts.assignments.append(
            Assignment(kind, value, self.qualname, where[0], True, span=where)
        )

    def _case_class(self, param: Node) -> bool:
        owner = param.parent.parent if param.parent is not None else None
        return owner is not None and any(c.type == "case" for c in owner.children)

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        words, annotations = words_of(node)
        body = node.child_by_field_name("body")
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=self.head(node, body),
            docstring=self.doc(node),
            exported=not words & _HIDDEN,
            decorators=self.decorators(annotations),
            returns=type_name(node.child_by_field_name("return_type")),
        )
        with self.enter(name):
            for params in node.children_by_field_name("parameters"):
                if params.type == "type_parameters":
                    self.on_type_parameters(params)
                    continue
                for param in params.named_children:
                    pname = text(param.child_by_field_name("name"))
                    self.assign(pname, type_name(param.child_by_field_name("type")), param, True)
                    self.visit(param.child_by_field_name("default_value"))
            self.visit(body)

    def on_val(self, node: Node) -> None:
        pattern = node.child_by_field_name("pattern")
        name = text(pattern) if pattern is not None and pattern.type == "identifier" else ""
        words, annotations = words_of(node)
        value = node.child_by_field_name("value")
        at_type_level = not self.scope or (
            bool(self.type_scopes) and self.qualname == self.type_scopes[-1]
        )
        if name and at_type_level:
            self.add_symbol(
                node,
                name,
                "variable",
                signature=self.head(node, value).removesuffix(" ="),
                docstring=self.doc(node),
                exported=not words & _HIDDEN,
                decorators=self.decorators(annotations),
            )
        if name:
            declared = type_name(node.child_by_field_name("type"))
            chain = "" if declared else value_chain(value)
            if declared or not chain:  # no chain: of no type known here (it hides others)
                self.shadow(name, node, declared)
            else:
                self.assign(name, chain, node, False)
        else:
            for bound, typed in bound_names(pattern):
                self.shadow(text(bound), bound, typed)
        self.visit(value)

    def on_alias(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        if name:
            self.add_symbol(
                node,
                name,
                "type",
                signature=collapse(text(node)),
                docstring=self.doc(node),
                returns=type_name(node.child_by_field_name("type")),  # what it stands for
            )

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        name = callee_name(fn)
        if name:
            self.add_call(name, node)
        if fn is not None and fn.type == "field_expression":
            receiver = fn.child_by_field_name("value")
            if receiver is not None and receiver.type != "identifier":
                self.visit(receiver)
        elif fn is not None and fn.type not in {"identifier", "generic_function"}:
            self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_new(self, node: Node) -> None:
        made = made_of(node)
        if made:
            self.add_call(made, node)
        body = next((c for c in node.named_children if c.type == "template_body"), None)
        if body is not None:  # an anonymous class: its body sees the members of its types
            self.spanned("<new>", " with ".join(made_types(node)), span(body, body))
        self.visit_children(node)

    def on_lambda(self, node: Node) -> None:
        params = node.child_by_field_name("parameters")
        if params is not None and params.type == "bindings":
            for binding in params.named_children:
                declared = type_name(binding.child_by_field_name("type"))
                self.shadow(text(binding.child_by_field_name("name")), binding, declared)
        elif params is not None:
            for bound, typed in bound_names(params):
                self.shadow(text(bound), bound, typed)
        self.visit_children(node)

    def on_case(self, node: Node) -> None:
        for bound, typed in bound_names(node.child_by_field_name("pattern")):
            self.shadow(text(bound), bound, typed)
        self.visit_children(node)

    def on_enumerator(self, node: Node) -> None:
        """``x <- xs`` / ``y = f(x)`` in a ``for``: the pattern's variables are locals."""
        if node.named_children and any(c.type in {"<-", "="} for c in node.children):
            for bound, typed in bound_names(node.named_children[0]):
                self.shadow(text(bound), bound, typed)
        self.visit_children(node)

    def on_annotation(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit(node.child_by_field_name("arguments"))


class ScalaExtractor:
    """The Scala extractor the code graph loads as ``lang_scala.EXTRACTOR``."""

    version = "2"

    def __init__(self) -> None:
        self.suffixes = {".scala": "scala", ".sc": "scala"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._packages: dict[str, list[str]] = {}
        self._types: dict[str, set[str]] = {}
        self.call_resolver = ScalaCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Scala file; syntax errors are counted and the rest still extracted."""
        _, facts, _ = walk_file(self._parsers, path, source, language, ScalaWalker)
        package = next((s for s in facts.symbols if s.kind == "module"), None)
        facts.module_doc = package.docstring if package is not None else ""
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The files of package ``module``, or of the package declaring type ``module``."""
        if not module or module.startswith(_EXTERNAL) or module == "scala":
            return []
        if repo is not self._repo:
            self._repo = repo
            self._packages, self._types = scan_declarations(repo, ".scala", _TYPE_LINE, _packages)
        if module in self._packages:
            return list(self._packages[module])
        package, _, name = module.rpartition(".")
        return [f for f in self._packages.get(package, []) if name in self._types[f]]


def _packages(path: str, raw: bytes) -> list[str]:
    found = _PACKAGE_LINE.search(raw)
    return [found.group(1).decode() if found else ""]


EXTRACTOR = ScalaExtractor()
