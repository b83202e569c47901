"""Go facts: functions, methods, types, package variables, imports, calls, receiver types.

Conventions:

- methods are ``Type.Method`` whether the receiver is a value or a pointer
  (``func (s *Server) Run()`` -> ``Server.Run``); interface methods ``Iface.Method``.
- imports: module = the import path, name '' (a whole package), alias = the name the
  package is bound to (the explicit alias, ``_`` or ``.``, else the path's last element,
  skipping a ``/vN`` major-version suffix).
- assignments: the receiver (``s`` -> ``Server``, annotation), typed parameters and
  ``var x Foo`` (annotation), ``x := NewFoo()`` (value the callee), ``x := &Foo{}`` /
  ``Foo{}`` and ``new(Foo)`` (annotation: the value is the type), struct fields (target
  the field, scope the struct, annotation) and embedded types as the struct's bases.
- exported: the name starts with an upper-case letter.
- ``resolve_module``: the nearest ``go.mod`` (read through the RepoView) names the module;
  an import under that module path (or under another ``go.mod`` of the repository) is the
  package directory's non-test ``.go`` files; the standard library and others are [].
"""

from __future__ import annotations

import posixpath
import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.go_routes import go_routes
from clawql_git.codegraph.model import FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    string_value,
    strip_generics,
    text,
    walk_file,
)

_COMMENTS = frozenset({"comment"})
_NO_SKIP: frozenset[str] = frozenset()
_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
_MAJOR = re.compile(r"^v\d+$")
_BUILTIN_TYPES = frozenset(
    [
        "bool",
        "byte",
        "complex64",
        "complex128",
        "error",
        "float32",
        "float64",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "rune",
        "string",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "any",
    ]
)


def _languages() -> dict[str, object]:
    import tree_sitter_go

    return {"go": tree_sitter_go.language}


def type_name(node: Node | None) -> str:
    """``Foo`` of ``*Foo``, ``pkg.Foo``, ``Foo[T]``; '' for slices, maps, funcs, literals."""
    if node is None:
        return ""
    kind = node.type
    if kind in {"pointer_type", "parenthesized_type", "type_elem"}:
        inner = node.named_children
        return type_name(inner[-1]) if inner else ""
    if kind == "generic_type":
        return type_name(node.child_by_field_name("type"))
    if kind in {"type_identifier", "qualified_type", "identifier"}:
        return strip_generics(text(node))
    return ""


def callee_name(node: Node) -> str:
    """A Go callee as written: ``fmt.Println``, ``s.db.Query``, ``f()``; '' for conversions
    to composite types like ``[]byte(x)``."""
    kind = node.type
    if kind == "identifier":
        return text(node)
    if kind == "selector_expression":
        operand = node.child_by_field_name("operand")
        field = text(node.child_by_field_name("field"))
        return f"{callee_name(operand)}.{field}" if operand is not None else field
    if kind == "call_expression":
        fn = node.child_by_field_name("function")
        return f"{callee_name(fn)}()" if fn is not None else ""
    if kind in {"parenthesized_expression", "index_expression", "generic_type"}:
        inner = node.named_children
        return callee_name(inner[0]) if inner else ""
    return ""


def package_alias(path: str) -> str:
    """The name ``import "a/b/v2"`` binds when no alias is written: 'b'."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and _MAJOR.match(parts[-1]):
        parts.pop()
    return parts[-1].replace("-", "_").removeprefix("go_") if parts else ""


class GoWalker(Walker):
    """One pass over a Go tree."""

    unnamed: ClassVar[frozenset[str]] = frozenset({"_"})
    untyped: ClassVar[frozenset[str]] = _BUILTIN_TYPES

    handlers: ClassVar[dict[str, str]] = {
        "import_declaration": "on_import",
        "function_declaration": "on_function",
        "method_declaration": "on_method",
        "type_spec": "on_type",
        "type_alias": "on_type",
        "var_spec": "on_var",
        "const_spec": "on_var",
        "short_var_declaration": "on_short_var",
        "assignment_statement": "on_assign",
        "call_expression": "on_call",
        "parameter_list": "on_params",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.depth = 0  # function nesting: 0 at package level

    def doc(self, node: Node) -> str:
        raws = [text(c) for c in self.leading(node)]
        if raws and raws[-1].startswith("/*"):
            return clean_block_doc(raws[-1].replace("/*", "/**", 1))
        return clean_line_docs([r for r in raws if r.startswith("//")], "//")

    def on_import(self, node: Node) -> None:
        specs = [c for c in node.named_children if c.type == "import_spec"]
        for group in node.named_children:
            if group.type == "import_spec_list":
                specs += [c for c in group.named_children if c.type == "import_spec"]
        for spec in specs:
            path = string_value(spec.child_by_field_name("path")) or ""
            alias_node = spec.child_by_field_name("name")
            alias = text(alias_node) if alias_node is not None else package_alias(path)
            self.add_import(path, "", alias, spec)

    def function_symbol(self, node: Node, name: str, kind: SymbolKind) -> None:
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature(node, node.child_by_field_name("body"), node),
            docstring=self.doc(node),
            exported=name[:1].isupper(),
        )

    def walk_body(self, node: Node) -> None:
        self.depth += 1
        self.visit(node.child_by_field_name("type_parameters"))
        self.visit(node.child_by_field_name("parameters"))
        self.visit(node.child_by_field_name("body"))
        self.depth -= 1

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        self.function_symbol(node, name, "function")
        with self.enter(name):
            self.walk_body(node)

    def on_method(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        receiver = node.child_by_field_name("receiver")
        params = receiver.named_children if receiver is not None else []
        decl = next((p for p in params if p.type == "parameter_declaration"), None)
        owner = type_name(decl.child_by_field_name("type")) if decl is not None else ""
        with self.enter(owner or "_"):
            self.function_symbol(node, name, "method")
            with self.enter(name):
                recv_name = decl.child_by_field_name("name") if decl is not None else None
                if recv_name is not None:
                    self.assign(text(recv_name), owner, recv_name, True)
                self.walk_body(node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("type")
        kind: SymbolKind = "type"
        bases: list[tuple[str, Node]] = []
        if node.type == "type_spec" and body is not None and body.type == "struct_type":
            kind = "struct"
            bases = self.struct_fields(name, body)
        elif node.type == "type_spec" and body is not None and body.type == "interface_type":
            kind = "interface"
            bases = self.interface_members(name, body)
        symbol = self.add_symbol(
            node,
            name,
            kind,
            signature="type " + self.signature(node, None, node).split("{", 1)[0].strip(),
            docstring=self.doc(node),
            exported=name[:1].isupper(),
            bases=tuple(base for base, _ in bases),
        )
        for base, at in bases:
            self.add_supertype(symbol.qualname, base, at, "embeds")

    def struct_fields(self, struct: str, body: Node) -> list[tuple[str, Node]]:
        bases: list[tuple[str, Node]] = []
        fields = body.named_children[0] if body.named_children else None
        with self.enter(struct):
            for decl in fields.named_children if fields is not None else []:
                if decl.type != "field_declaration":
                    continue
                declared = type_name(decl.child_by_field_name("type"))
                names = [c for c in decl.children_by_field_name("name")]
                if not names and declared:
                    bases.append((declared, decl))
                for field in names:
                    self.assign(text(field), declared, field, True)
        return bases

    def interface_members(self, iface: str, body: Node) -> list[tuple[str, Node]]:
        bases: list[tuple[str, Node]] = []
        with self.enter(iface):
            for member in body.named_children:
                if member.type in {"method_elem", "method_spec"}:
                    name = text(member.child_by_field_name("name"))
                    self.add_symbol(
                        member,
                        name,
                        "method",
                        signature=self.signature(member, None, member),
                        docstring=self.doc(member),
                        exported=name[:1].isupper(),
                    )
                elif (
                    member.type == "type_elem"
                    and len(member.named_children) == 1
                    and type_name(member)
                ):
                    bases.append((type_name(member), member))
        return bases

    def on_var(self, node: Node) -> None:
        names = node.children_by_field_name("name")
        declared = type_name(node.child_by_field_name("type"))
        value = node.child_by_field_name("value")
        values = value.named_children if value is not None else []
        kind: SymbolKind = "constant" if node.type == "const_spec" else "variable"
        for index, name_node in enumerate(names):
            name = text(name_node)
            if self.depth == 0 and name != "_":
                self.add_symbol(
                    node,
                    name,
                    kind,
                    signature=("const " if kind == "constant" else "var ")
                    + self.signature(node, None, node),
                    docstring=self.doc(node),
                    exported=name[:1].isupper(),
                )
            self.assign(name, declared, name_node, True)
            if index < len(values):
                self.evidence(name, values[index], name_node)
        self.visit(value)

    def evidence(self, target: str, value: Node, at: Node) -> None:
        """Type evidence of ``target = value``: a constructor call or a composite literal."""
        if value.type == "unary_expression":
            operand = value.child_by_field_name("operand")
            if operand is not None:
                value = operand
        if value.type == "composite_literal":
            self.assign(target, type_name(value.child_by_field_name("type")), at, True)
        elif value.type == "call_expression":
            fn = value.child_by_field_name("function")
            callee = callee_name(fn) if fn is not None else ""
            args = value.child_by_field_name("arguments")
            if callee == "new" and args is not None and args.named_children:
                self.assign(target, type_name(args.named_children[0]), at, True)
            else:
                self.assign(target, callee, at, False)

    def on_short_var(self, node: Node) -> None:
        self.pairs(node)

    def on_assign(self, node: Node) -> None:
        self.pairs(node)

    def pairs(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        targets = left.named_children if left is not None else []
        values = right.named_children if right is not None else []
        for index, target in enumerate(targets):
            if index < len(values) and target.type in {"identifier", "selector_expression"}:
                self.evidence(callee_name(target), values[index], target)
        self.visit(left)
        self.visit(right)

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        if fn is not None:
            self.add_call(callee_name(fn), node)
            if fn.type != "identifier":
                self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_params(self, node: Node) -> None:
        if self.depth and self.scope:
            for param in node.named_children:
                declared = type_name(param.child_by_field_name("type"))
                for name in param.children_by_field_name("name"):
                    self.assign(text(name), declared, name, True)
        self.visit_children(node)


class GoExtractor:
    """The Go extractor the code graph loads as ``lang_go.EXTRACTOR``."""

    def __init__(self) -> None:
        self.suffixes = {".go": "go"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._gomods: dict[str, str | None] = {}
        self._packages: dict[str, list[str]] = {}

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Go file; syntax errors are counted and the rest still extracted."""
        root, facts, walker = walk_file(self._parsers, path, source, language, GoWalker)
        package = next((c for c in root.named_children if c.type == "package_clause"), None)
        if package is not None:
            facts.module_doc = walker.doc(package)
        go_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The files of the package directory ``module`` names inside this repository."""
        self._use(repo)
        directory = posixpath.dirname(importer)
        owners = [self._module_of(directory, repo), *list(self._all_modules(repo))]
        for found in owners:
            if found is None:
                continue
            root, path = found
            if module == path or module.startswith(path + "/"):
                rel = module[len(path) :].strip("/")
                package = posixpath.join(root, rel) if rel else root
                return list(self._packages.get(package.strip("/"), []))
        return []

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo, self._gomods, self._packages = repo, {}, {}
        for path in sorted(repo.files):
            if path.endswith(".go") and not path.endswith("_test.go"):
                self._packages.setdefault(posixpath.dirname(path), []).append(path)

    def _module_of(self, directory: str, repo: RepoView) -> tuple[str, str] | None:
        """(directory of go.mod, module path) of the nearest go.mod at or above ``directory``."""
        while True:
            path = self._gomod(directory, repo)
            if path is not None:
                return directory, path
            if not directory:
                return None
            directory = posixpath.dirname(directory)

    def _all_modules(self, repo: RepoView) -> list[tuple[str, str]]:
        found = []
        for directory in self._packages:
            path = self._gomod(directory, repo)
            if path is not None:
                found.append((directory, path))
        return found

    def _gomod(self, directory: str, repo: RepoView) -> str | None:
        if directory not in self._gomods:
            try:
                raw = repo.read(posixpath.join(directory, "go.mod") if directory else "go.mod")
            except (OSError, LookupError, ValueError):
                raw = b""
            match = _MODULE_LINE.search(raw)
            self._gomods[directory] = match.group(1).decode() if match else None
        return self._gomods[directory]


EXTRACTOR = GoExtractor()
