"""Java facts: classes (nested as ``Outer.Inner``), methods, fields, imports, calls, types.

Conventions:

- ``package a.b;`` is a symbol of kind 'module' named ``a.b`` (as a C# namespace; its doc
  the comment above it, as in ``package-info.java``); it is not part of qualnames.
- qualnames are dotted: ``Outer.Inner.method``; overloaded methods are separate symbols
  with the same qualname and their own line and signature; constructors are
  ``Class.Class``; ``static final`` fields are constants ``Class.NAME``.
- imports: ``import a.b.C;`` -> module 'a.b', name 'C'; ``import a.b.*;`` -> name '*';
  ``import static a.b.C.m;`` -> module 'a.b.C', name 'm'.
- calls: ``obj.method(...)`` as written (``this.repo.find``, ``Foo.bar``, a chain
  ``a.b().c``, a cast ``((Element) node).attr``), ``new Foo()`` -> ``Foo``; calls inside
  annotation arguments get context 'decorator'.
- assignments: fields (target the field, scope the class, annotation), ``this`` -> the class
  in every method and constructor, typed parameters and locals (annotation; ``var x = new
  Foo()`` -> value 'Foo'), ``this.x = new Foo()`` (value the constructor). Declared types
  keep their type arguments (``List<Node>``) and drop type annotations (``Map.@Nullable
  Entry`` -> ``Map.Entry``); so do a class's bases and a method's ``returns``. A class's
  bounded type variable ``<T extends Node>`` -> target '<T>', value 'Node', scope the class.
- methods record ``returns`` (the declared return type, '' for void, primitives and the
  method's own type variables), ``params`` and ``variadic``; calls record ``args``, the
  argument count of each call of the callee chain (java_resolve tells overloads apart).
- exported: the ``public`` modifier (interface members are public).
- ``resolve_module``: ``com.acme.Foo`` -> the file ending in ``com/acme/Foo.java`` under any
  source root; ``com.acme`` (a package, as in the module of ``import com.acme.Foo``) -> the
  ``.java`` files of that package directory; ``java.*`` and anything not found -> [].
"""

from __future__ import annotations

import posixpath
import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.java_resolve import JavaCalls
from clawql_git.codegraph.model import Call, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.spring_routes import spring_routes
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    collapse,
    line,
    strip_generics,
    text,
    walk_file,
)

_COMMENTS = frozenset({"block_comment", "line_comment"})
_TYPE_ANNOTATION = re.compile(r"@[\w.]+(\([^()]*\))?\s*")
_NO_SKIP: frozenset[str] = frozenset()
_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
TYPE_KINDS: dict[str, SymbolKind] = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "class",
    "annotation_type_declaration": "interface",
}


def _languages() -> dict[str, object]:
    import tree_sitter_java

    return {"java": tree_sitter_java.language}


def type_name(node: Node | None) -> str:
    """``List`` of ``List<String>``, ``a.b.Repo``; '' for primitives, arrays of them, ``var``."""
    if node is None or node.type in {"integral_type", "floating_point_type", "boolean_type"}:
        return ""
    if node.type == "array_type":
        return ""
    name = strip_generics(_TYPE_ANNOTATION.sub("", text(node)))  # Map.@Nullable Entry
    return "" if name in {"var", "void"} else name


def declared_type(node: Node | None) -> str:
    """A declared type with its type arguments (``List<Node>``, ``Map<String, Tag>``); ''
    for primitives, arrays, ``var`` and ``void``."""
    if not type_name(node):
        return ""
    return collapse(_TYPE_ANNOTATION.sub("", text(node)))


def callee_name(node: Node) -> str:
    """A Java receiver/callee as written: ``this.repo``, ``Foo.bar()``."""
    kind = node.type
    if kind == "method_invocation":
        obj = node.child_by_field_name("object")
        name = text(node.child_by_field_name("name"))
        return f"{callee_name(obj)}.{name}()" if obj is not None else f"{name}()"
    if kind == "field_access":
        obj = node.child_by_field_name("object")
        field = text(node.child_by_field_name("field"))
        return f"{callee_name(obj)}.{field}" if obj is not None else field
    inner = node.named_children[0] if kind == "parenthesized_expression" else None
    if inner is not None and inner.type == "cast_expression":  # ((Element) node)
        value = collapse(text(inner.child_by_field_name("value")), 60)
        return f"(({type_name(inner.child_by_field_name('type'))}) {value})"
    if inner is not None:
        return callee_name(inner)
    if kind == "object_creation_expression":
        return f"new {type_name(node.child_by_field_name('type'))}()"
    return collapse(text(node), 80)


def argument_count(node: Node) -> int:
    """How many arguments a call or ``new`` passes."""
    args = node.child_by_field_name("arguments")
    return len([c for c in args.named_children if c.type not in _COMMENTS]) if args else 0


def chain_args(node: Node | None) -> tuple[int, ...]:
    """The argument counts of the calls of a receiver chain as ``callee_name`` writes it,
    left to right (``a.b(x).c(y, z)`` -> (1, 2))."""
    if node is None:
        return ()
    kind = node.type
    if kind == "method_invocation":
        return (*chain_args(node.child_by_field_name("object")), argument_count(node))
    if kind == "field_access":
        return chain_args(node.child_by_field_name("object"))
    if kind == "parenthesized_expression" and node.named_children:  # a cast: opaque
        return chain_args(node.named_children[0])
    if kind == "object_creation_expression":
        return (argument_count(node),)
    return ()


def parameter_shape(node: Node) -> tuple[int, bool]:
    """(how many parameters, whether the last is ``T...``) of a method or constructor."""
    params = node.child_by_field_name("parameters")
    if params is None:  # a compact record constructor takes the record's components
        return -1, False
    kinds = [c.type for c in params.named_children]
    count = sum(k in {"formal_parameter", "spread_parameter"} for k in kinds)
    return count, "spread_parameter" in kinds


def return_type(node: Node) -> str:
    """The declared return type of a method, '' when void, primitive or a type variable."""
    written = declared_type(node.child_by_field_name("type"))
    variables = node.child_by_field_name("type_parameters")
    if variables is not None and any(
        text(c.child_by_field_name("name") or c.named_children[0]) == strip_generics(written)
        for c in variables.named_children
        if c.named_children
    ):
        return ""
    return written


class JavaWalker(Walker):
    """One pass over a Java tree."""

    handlers: ClassVar[dict[str, str]] = {
        "package_declaration": "on_package",
        "import_declaration": "on_import",
        **{kind: "on_type" for kind in TYPE_KINDS},
        "method_declaration": "on_method",
        "constructor_declaration": "on_method",
        "compact_constructor_declaration": "on_method",
        "field_declaration": "on_field",
        "constant_declaration": "on_field",
        "local_variable_declaration": "on_local",
        "enhanced_for_statement": "on_for",
        "resource": "on_resource",
        "assignment_expression": "on_assign",
        "method_invocation": "on_invocation",
        "object_creation_expression": "on_new",
        "annotation": "on_annotation",
        "marker_annotation": "on_skip",
        "formal_parameters": "on_params",
        "block_comment": "on_above",
        "line_comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.interface_depth = 0
        self.type_scopes: list[str] = []  # qualnames of the enclosing types

    def doc(self, node: Node) -> str:
        comments = self.leading(node)
        last = text(comments[-1]) if comments else ""
        return clean_block_doc(last) if last.startswith("/**") else ""

    def modifiers(self, node: Node) -> tuple[set[str], tuple[str, ...]]:
        """(keywords, annotations as written without ``@``) of a declaration."""
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        if mods is None:
            return set(), ()
        keywords = {text(c) for c in mods.children if c.type not in _ANNOTATIONS}
        annotations = tuple(
            collapse(text(c).lstrip("@")) for c in mods.children if c.type in _ANNOTATIONS
        )
        with self.in_context("decorator"):
            for c in mods.children:
                if c.type == "annotation":
                    self.visit(c.child_by_field_name("arguments"))
        return keywords, annotations

    def signature_of(self, node: Node, body: Node | None) -> str:
        """The declaration without its annotations, up to the body."""
        mods = next((c for c in node.children if c.type == "modifiers"), None)
        words = [text(c) for c in mods.children if c.type not in _ANNOTATIONS] if mods else []
        start = mods.next_sibling if mods is not None else node
        rest = self.signature(start, body, node) if start is not None else ""
        return collapse(" ".join([*words, rest]))

    def on_package(self, node: Node) -> None:
        """``package a.b;`` -> the module symbol ``a.b`` (as a C# namespace)."""
        name = next(
            (c for c in node.named_children if c.type in {"scoped_identifier", "identifier"}), None
        )
        if name is not None:
            self.add_symbol(
                node,
                text(name),
                "module",
                signature=f"package {text(name)}",
                docstring=self.doc(node),
            )

    def on_import(self, node: Node) -> None:
        path = next(
            (c for c in node.named_children if c.type in {"scoped_identifier", "identifier"}), None
        )
        wildcard = any(c.type == "asterisk" for c in node.named_children)
        written = text(path)
        if wildcard:
            self.add_import(written, "*", "", node)
        else:
            module, _, name = written.rpartition(".")
            self.add_import(module, name, name, node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        keywords, annotations = self.modifiers(node)
        body = node.child_by_field_name("body")
        written: list[tuple[Node, str]] = []
        for child in node.named_children:
            if child.type in {"superclass", "super_interfaces", "extends_interfaces"}:
                types = child.named_children
                if types and types[0].type == "type_list":
                    types = types[0].named_children
                relation = "implements" if child.type == "super_interfaces" else "extends"
                written += [(t, relation) for t in types if t.type != "comment"]
        bases = [declared_type(t) or strip_generics(text(t)) for t, _ in written]
        symbol = self.add_symbol(
            node,
            name,
            TYPE_KINDS[node.type],
            signature=self.signature_of(node, body),
            docstring=self.doc(node),
            exported="public" in keywords or self.interface_depth > 0,
            decorators=annotations,
            bases=tuple(bases),
        )
        for t, relation in written:
            self.add_supertype(symbol.qualname, strip_generics(text(t)), t, relation)
        interface = node.type in {"interface_declaration", "annotation_type_declaration"}
        with self.enter(name):
            self.type_scopes.append(self.qualname)
            self.interface_depth += interface
            self.record_fields(node)
            self.record_bounds(node)
            self.record_constants(body, name)
            self.visit(body)
            self.interface_depth -= interface
            self.type_scopes.pop()

    def record_bounds(self, node: Node) -> None:
        """``class Nodes<T extends Node>``: inside the class a ``T`` is a ``Node`` (recorded
        as target ``<T>``, which no variable can be named)."""
        params = node.child_by_field_name("type_parameters")
        for param in params.named_children if params is not None else []:
            bound = next((c for c in param.named_children if c.type == "type_bound"), None)
            if param.type == "type_parameter" and bound is not None and bound.named_children:
                name = next((c for c in param.named_children if c.type == "type_identifier"), None)
                first = declared_type(bound.named_children[0])
                self.assign(f"<{text(name)}>", first, param, True)

    def record_constants(self, body: Node | None, enum: str) -> None:
        """An enum's constants: fields of the enum's own type."""
        for constant in body.named_children if body is not None else []:
            if constant.type == "enum_constant":
                self.assign(text(constant.child_by_field_name("name")), enum, constant, True)

    def record_fields(self, node: Node) -> None:
        params = (
            node.child_by_field_name("parameters") if node.type == "record_declaration" else None
        )
        for param in params.named_children if params is not None else []:
            declared = declared_type(param.child_by_field_name("type"))
            self.assign(text(param.child_by_field_name("name")), declared, param, True)

    def on_method(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        name = text(name_node) if name_node is not None else ""
        keywords, annotations = self.modifiers(node)
        body = node.child_by_field_name("body")
        kind: SymbolKind = "method" if self.type_scopes else "function"
        params, variadic = parameter_shape(node)
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature_of(node, body),
            docstring=self.doc(node),
            exported="public" in keywords or self.interface_depth > 0,
            decorators=annotations,
            returns=return_type(node),
            params=params,
            variadic=variadic,
        )
        with self.enter(name):
            if self.type_scopes and "static" not in keywords:
                self.assign("this", self.type_scopes[-1], node, True)
            self.visit(node.child_by_field_name("parameters"))
            self.visit(body)

    def on_field(self, node: Node) -> None:
        keywords, _ = self.modifiers(node)
        declared = declared_type(node.child_by_field_name("type"))
        constant = {"static", "final"} <= keywords or self.interface_depth > 0
        for decl in node.children_by_field_name("declarator"):
            name = text(decl.child_by_field_name("name"))
            if constant:
                self.add_symbol(
                    node,
                    name,
                    "constant",
                    signature=self.signature_of(node, None).rstrip(";"),
                    docstring=self.doc(node),
                    exported="public" in keywords or self.interface_depth > 0,
                )
            self.assign(name, declared, decl, True)
            self.visit(decl.child_by_field_name("value"))

    def on_local(self, node: Node) -> None:
        declared = declared_type(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            name = text(decl.child_by_field_name("name"))
            value = decl.child_by_field_name("value")
            self.assign(name, declared, decl, True)
            if not declared and value is not None:
                self.evidence(name, value, decl)
            self.visit(value)

    def on_resource(self, node: Node) -> None:
        """``try (Reader r = open())``: a local declared with its type."""
        name = node.child_by_field_name("name")
        if name is not None:
            self.assign(text(name), declared_type(node.child_by_field_name("type")), node, True)
        self.visit_children(node)

    def on_for(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        self.assign(text(name), declared_type(node.child_by_field_name("type")), node, True)
        self.visit_children(node)

    def evidence(self, target: str, value: Node, at: Node) -> None:
        if value.type == "object_creation_expression":
            self.assign(target, type_name(value.child_by_field_name("type")), at, False)
        elif value.type == "method_invocation":
            self.assign(target, self.invocation_name(value), at, False)

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is not None and right is not None and left.type in {"identifier", "field_access"}:
            self.evidence(callee_name(left), right, node)
        self.visit_children(node)

    def invocation_name(self, node: Node) -> str:
        obj = node.child_by_field_name("object")
        name = text(node.child_by_field_name("name"))
        return f"{callee_name(obj)}.{name}" if obj is not None else name

    def add_java_call(self, callee: str, node: Node, args: tuple[int, ...]) -> None:
        """A call site with the argument counts of its chain (overloads are told apart by
        them)."""
        if callee:
            at = (line(node), node.start_point[1])
            self.facts.calls.append(Call(callee, self.qualname, *at, self.context, args))

    def on_invocation(self, node: Node) -> None:
        self.add_java_call(self.invocation_name(node), node, chain_args(node))
        obj = node.child_by_field_name("object")
        if obj is not None and obj.type not in {"identifier", "this"}:
            self.visit(obj)
        self.visit(node.child_by_field_name("arguments"))

    def on_new(self, node: Node) -> None:
        made = type_name(node.child_by_field_name("type"))
        self.add_java_call(made, node, (argument_count(node),))
        self.visit(node.child_by_field_name("arguments"))
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        if body is not None:  # an anonymous class: ``this`` in its methods is that type
            self.type_scopes.append(type_name(node.child_by_field_name("type")))
            self.visit(body)
            self.type_scopes.pop()

    def on_annotation(self, node: Node) -> None:
        with self.in_context("decorator"):
            self.visit(node.child_by_field_name("arguments"))

    def on_params(self, node: Node) -> None:
        for param in node.named_children:
            if param.type in {"formal_parameter", "spread_parameter"}:
                declared = declared_type(param.child_by_field_name("type"))
                name = param.child_by_field_name("name")
                if name is None:  # spread: the declarator holds the name
                    decl = next(
                        (c for c in param.named_children if c.type == "variable_declarator"), None
                    )
                    name = decl.child_by_field_name("name") if decl is not None else None
                self.assign(text(name), declared, param, True)
            self.visit_children(param)


class JavaExtractor:
    """The Java extractor the code graph loads as ``lang_java.EXTRACTOR``."""

    def __init__(self) -> None:
        self.suffixes = {".java": "java"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._by_suffix: dict[str, list[str]] = {}
        self.call_resolver = JavaCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Java file; syntax errors are counted and the rest still extracted."""
        root, facts, walker = walk_file(self._parsers, path, source, language, JavaWalker)
        package = next((c for c in root.named_children if c.type == "package_declaration"), None)
        if package is not None:
            facts.module_doc = walker.doc(package)
        spring_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The file of class ``module``, or the files of package ``module``; else []."""
        if not module or module.startswith(("java.", "javax.", "jdk.", "sun.")):
            return []
        self._use(repo)
        as_path = module.replace(".", "/")
        cls = _ending(
            self._by_suffix.get(posixpath.basename(as_path) + ".java", []), as_path + ".java"
        )
        if cls:
            return cls[:1]
        package = [
            f
            for f in repo.files
            if f.endswith(".java") and posixpath.dirname("/" + f).endswith("/" + as_path)
        ]
        if package:
            return sorted(package)
        outer, _, _ = module.rpartition(".")  # a nested class: com.acme.Outer.Inner
        return (
            self.resolve_module(importer, outer, repo) if "." in outer and _is_type(module) else []
        )

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo, self._by_suffix = repo, {}
        for path in sorted(repo.files):
            if path.endswith(".java"):
                self._by_suffix.setdefault(posixpath.basename(path), []).append(path)


def _ending(paths: list[str], suffix: str) -> list[str]:
    return [p for p in paths if ("/" + p).endswith("/" + suffix)]


def _is_type(module: str) -> bool:
    """``com.acme.Outer.Inner``: the last two parts look like type names."""
    parts = module.split(".")
    return len(parts) >= 2 and parts[-1][:1].isupper() and parts[-2][:1].isupper()


EXTRACTOR = JavaExtractor()
