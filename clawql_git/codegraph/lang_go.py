"""Go facts: functions, methods, types, package variables, imports, calls, receiver types.

Conventions:

- methods are ``Type.Method`` whether the receiver is a value or a pointer
  (``func (s *Server) Run()`` -> ``Server.Run``); interface methods ``Iface.Method``.
- imports: module = the import path, name '' (a whole package), alias = the name the
  package is bound to (the explicit alias, ``_`` or ``.``, else the path's last element,
  skipping a ``/vN`` major-version suffix).
- assignments: local declarations carry the ``span`` where they are in scope (Go spec,
  "Declarations and scope": from the end of the declaration to the end of its block; a
  closure's parameters in its body): the receiver (``s`` -> ``Server``, annotation),
  parameters, named results and ``var x Foo`` (annotation), ``x := NewFoo()`` (value the
  callee; ``a, b := f()``: ``f`` and ``f#1``), ``x := y`` (value ``=y``), ``x := &Foo{}`` /
  ``Foo{}`` / ``new(Foo)`` / ``y.(Foo)`` (annotation: the value is the type), range and
  receive variables and a type switch's ``v`` per case (the case's one type, else untyped).
  Also struct fields (target the field, scope the struct, annotation), package variables
  (scope ''), ``x = v`` evidence without a span, and ``<package>`` naming the package.
  Embedded types are the struct's (or interface's) bases.
- calls: also a composite literal of a named type, written ``T{}`` / ``pkg.T{}`` (type
  arguments dropped: ``T[int]{}`` is ``T{}``); the resolver links it to a struct type only.
- ``returns``: a function's or method's result types, comma-joined (``*Mux`` -> ``Mux``,
  ``(Mux, error)`` -> ``Mux,error``; '' at a position naming no type).
- exported: the name starts with an upper-case letter.
- ``resolve_module``: the nearest ``go.mod`` (read through the RepoView) names the module;
  an import under that module path (or under another ``go.mod`` of the repository) is the
  package directory's non-test ``.go`` files; the standard library and others are [].
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.go_resolve import GoCalls
from clawql_git.codegraph.go_routes import go_routes
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    line,
    string_value,
    strip_generics,
    text,
    walk_file,
)

_COMMENTS = frozenset({"comment"})
# statements and clauses that open a block of their own (Go spec, "Blocks")
_BLOCKS = frozenset(
    {
        "block",
        "if_statement",
        "for_statement",
        "expression_switch_statement",
        "select_statement",
        "expression_case",
        "default_case",
        "communication_case",
    }
)
_LITERAL_TYPES = frozenset({"type_identifier", "qualified_type", "generic_type"})
_CONTAINERS = {"slice_type": "element", "array_type": "element", "map_type": "value"}
ELEMENT = "[]"  # the assignment target giving the container ``type Ts []T`` is (``[]T``)
Point = tuple[int, int]
PACKAGE = "<package>"  # the assignment target naming the file's package (``package chi``)
_NO_SKIP: frozenset[str] = frozenset()
_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
_MAJOR = re.compile(r"^v\d+$")
_NAMES = re.compile(r"[A-Za-z_][\w.]*")
_ASSERTED = re.compile(r"^\*?[A-Za-z_][\w.]*$")  # a type assertion written in a callee
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
    """A Go callee as written: ``fmt.Println``, ``s.db.Query``, ``f()``, ``h.fns[]`` (an
    index: an element, or a generic function instantiated), ``T{}.M`` (a composite literal,
    ``&T{}`` too), ``w.(*T).M`` (a type assertion); '' for conversions to composite types
    like ``[]byte(x)``."""
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
    if kind == "composite_literal":  # ``T{...}.M()``
        written = type_name(node.child_by_field_name("type"))
        return f"{written}{{}}" if written else ""
    if kind == "unary_expression" and text(node)[:1] == "&":
        operand = node.child_by_field_name("operand")
        return (
            callee_name(operand)
            if operand is not None and operand.type == "composite_literal"
            else ""
        )
    if kind == "type_assertion_expression":  # ``w.(http.Flusher).Flush``
        operand = node.child_by_field_name("operand")
        asserted = text(node.child_by_field_name("type"))
        written = callee_name(operand) if operand is not None else ""
        return f"{written}.({asserted})" if written and _ASSERTED.match(asserted) else ""
    if kind == "index_expression":  # ``fns[i]`` (an element) or ``F[int]`` (instantiated)
        operand = node.child_by_field_name("operand")
        written = callee_name(operand) if operand is not None else ""
        return f"{written}[]" if written else ""
    if kind in {"parenthesized_expression", "generic_type"}:
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
        "func_literal": "on_func_literal",
        "type_spec": "on_type",
        "type_alias": "on_type",
        "var_spec": "on_var",
        "const_spec": "on_var",
        "short_var_declaration": "on_short_var",
        "assignment_statement": "on_assign",
        "range_clause": "on_range",
        "receive_statement": "on_receive",
        "type_switch_statement": "on_type_switch",
        "call_expression": "on_call",
        "composite_literal": "on_composite_literal",
        "comment": "on_above",
        **{kind: "on_block" for kind in _BLOCKS},
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.depth = 0  # function nesting: 0 at package level
        self.frames: list[tuple[Point, set[str]]] = []  # blocks around: end, names declared
        self.type_params: list[frozenset[str]] = []  # of the generic declarations around

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

    # ------------------------------------------------------------ declared types

    def declared_type(self, node: Node | None) -> str:
        """The type ``node`` names, '' for a type parameter of the declarations around;
        ``[]T`` for a slice, an array or a map of ``T`` (its elements' type)."""
        written = written_type(node)
        named = _NAMES.findall(written)  # ``K`` and ``V`` of ``[K]V``
        return "" if any(n in names for n in named for names in self.type_params) else written

    def result_types(self, node: Node) -> str:
        """The result types of a function, method or interface method, comma-joined in
        order ('' at a position that names no type: ``[]T``, ``func()``, a type parameter)."""
        result = node.child_by_field_name("result")
        if result is None:
            return ""
        if result.type != "parameter_list":
            return self.declared_type(result)
        out = []
        for decl in result.named_children:
            if decl.type == "parameter_declaration":
                written = self.declared_type(decl.child_by_field_name("type"))
                out += [written] * max(1, len(decl.children_by_field_name("name")))
        return ",".join(out)

    @contextmanager
    def generic(self, names: frozenset[str]) -> Iterator[None]:
        """Type parameters (``[T any]``) in scope inside: a type written with them names no
        type of the package."""
        self.type_params.append(names)
        try:
            yield
        finally:
            self.type_params.pop()

    # ------------------------------------------------------------ blocks and locals

    @contextmanager
    def block(self, node: Node) -> Iterator[None]:
        """A block (Go spec, "Blocks"): the names declared inside are in scope up to its end."""
        self.frames.append((node.end_point, set()))
        try:
            yield
        finally:
            self.frames.pop()

    def on_block(self, node: Node) -> None:
        with self.block(node):
            self.visit_children(node)

    def declare(self, name_node: Node, value: str, annotation: bool, start: Point) -> None:
        """A local declaration, in scope from ``start`` to the end of its block; a name
        ``:=`` declares again in the same block is only assigned (it keeps its type)."""
        name = text(name_node)
        if name == "_" or not self.frames:
            return
        end, names = self.frames[-1]
        if name in names:
            return
        names.add(name)
        span = (start[0] + 1, start[1], end[0] + 1, end[1])
        self.facts.assignments.append(
            Assignment(name, value, self.qualname, line(name_node), annotation, span=span)
        )

    def declare_params(self, node: Node | None, start: Point) -> None:
        """The parameters (or named results) of a function, in scope in its body."""
        for param in node.named_children if node is not None else []:
            declared = self.declared_type(param.child_by_field_name("type"))
            for name in param.children_by_field_name("name"):
                self.declare(name, declared, True, start)

    def walk_body(self, node: Node) -> None:
        """Parameters, results and the body of a function, method or function literal: one
        block (a parameter may not be declared again at the top of the body)."""
        body = node.child_by_field_name("body")
        self.depth += 1
        with self.block(node):
            start = body.start_point if body is not None else node.end_point
            self.declare_params(node.child_by_field_name("parameters"), start)
            self.declare_params(node.child_by_field_name("result"), start)
            self.visit_children(node.child_by_field_name("parameters"))
            self.visit_children(body)
        self.depth -= 1

    def function_symbol(self, node: Node, name: str, kind: SymbolKind) -> None:
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature(node, node.child_by_field_name("body"), node),
            docstring=self.doc(node),
            exported=name[:1].isupper(),
            returns=self.result_types(node),
        )

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        with self.generic(type_params(node.child_by_field_name("type_parameters"))):
            self.function_symbol(node, name, "function")
            with self.enter(name):
                self.walk_body(node)

    def on_func_literal(self, node: Node) -> None:
        self.walk_body(node)

    def on_method(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        receiver = node.child_by_field_name("receiver")
        params = receiver.named_children if receiver is not None else []
        decl = next((p for p in params if p.type == "parameter_declaration"), None)
        written = decl.child_by_field_name("type") if decl is not None else None
        owner = type_name(written)
        with self.generic(receiver_type_params(written)), self.enter(owner or "_"):
            self.function_symbol(node, name, "method")
            with self.enter(name), self.block(node):
                recv_name = decl.child_by_field_name("name") if decl is not None else None
                body = node.child_by_field_name("body")
                if recv_name is not None:  # in scope in the body
                    start = body.start_point if body is not None else node.end_point
                    self.declare(recv_name, owner, True, start)
                self.walk_body(node)

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("type")
        kind: SymbolKind = "type"
        bases: list[tuple[str, Node]] = []
        with self.generic(type_params(node.child_by_field_name("type_parameters"))):
            if node.type == "type_spec" and body is not None and body.type == "struct_type":
                kind = "struct"
                bases = self.struct_fields(name, body)
            elif node.type == "type_spec" and body is not None and body.type == "interface_type":
                kind = "interface"
                bases = self.interface_members(name, body)
            elif node.type == "type_spec" and body is not None and body.type in _CONTAINERS:
                underlying = self.declared_type(body)
                if underlying:  # ``type nodes []*node``: ``ns[i]`` is a node
                    self.facts.assignments.append(
                        Assignment(ELEMENT, underlying, self.child_qualname(name), line(body), True)
                    )
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
                declared = self.declared_type(decl.child_by_field_name("type"))
                names = [c for c in decl.children_by_field_name("name")]
                if not names and declared:
                    bases.append((declared, decl))
                for field in names:  # untyped too: a field hides what embedded types declare
                    self.facts.assignments.append(
                        Assignment(text(field), declared, self.qualname, line(field), True)
                    )
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
                        returns=self.result_types(member),
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
        declared = self.declared_type(node.child_by_field_name("type"))
        value = node.child_by_field_name("value")
        values = value.named_children if value is not None else []
        kind: SymbolKind = "constant" if node.type == "const_spec" else "variable"
        self.visit(value)
        for index, name_node in enumerate(names):
            name = text(name_node)
            if self.frames:
                typed = (declared, True) if declared else evidence(values, index, len(names))
                self.declare(name_node, *typed, node.end_point)
                continue
            if name != "_":
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
            if not declared:
                value_of, annotation = evidence(values, index, len(names))
                self.assign(name, value_of, name_node, annotation)

    def on_short_var(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        targets = left.named_children if left is not None else []
        values = right.named_children if right is not None else []
        self.visit(right)
        for index, target in enumerate(targets):
            if target.type == "identifier":
                self.declare(target, *evidence(values, index, len(targets)), node.end_point)

    def on_assign(self, node: Node) -> None:
        """``x = v``: evidence of what ``x`` holds (no declaration: the type stays the one
        ``x`` was declared with)."""
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        targets = left.named_children if left is not None else []
        values = right.named_children if right is not None else []
        for index, target in enumerate(targets):
            if index < len(values) and target.type in {"identifier", "selector_expression"}:
                value_of, annotation = evidence(values, index, 1)
                self.assign(callee_name(target), value_of, target, annotation)
        self.visit(left)
        self.visit(right)

    def on_range(self, node: Node) -> None:
        """``for k, v := range xs``: ``k`` and ``v`` declared, ``k`` a key of ``xs`` (``=xs#key``:
        a map's; a slice's index, a channel's element: untyped), ``v`` an element (``=xs[]``)."""
        right = node.child_by_field_name("right")
        self.visit(right)
        left = node.child_by_field_name("left")
        if not any(c.type == ":=" for c in node.children) or left is None:
            return
        ranged = callee_name(right) if right is not None else ""
        targets = left.named_children
        for index, target in enumerate(targets):
            if target.type == "identifier":
                read = f"={ranged}{('#key', '[]')[index]}" if ranged and index < 2 else ""
                self.declare(target, read, False, node.end_point)

    def on_receive(self, node: Node) -> None:
        """``case v := <-ch``: ``v`` declared in the case."""
        self.visit(node.child_by_field_name("right"))
        left = node.child_by_field_name("left")
        if any(c.type == ":=" for c in node.children) and left is not None:
            for target in left.named_children:
                if target.type == "identifier":
                    self.declare(target, "", False, node.end_point)

    def on_type_switch(self, node: Node) -> None:
        """``switch v := x.(type)``: in a case naming one type ``v`` has that type, in the
        others (several types, ``default``) the type of ``x`` (Go spec, "Type switches")."""
        alias = node.child_by_field_name("alias")
        names = alias.named_children if alias is not None else []
        value = node.child_by_field_name("value")
        switched = callee_name(value) if value is not None else ""
        with self.block(node):
            self.visit(node.child_by_field_name("initializer"))
            self.visit(value)
            for case in node.named_children:
                if case.type not in {"type_case", "default_case"}:
                    continue
                types = case.children_by_field_name("type")
                single = self.declared_type(types[0]) if len(types) == 1 else ""
                with self.block(case):
                    for name in names:
                        if single:
                            self.declare(name, single, True, case.start_point)
                        else:
                            self.declare(
                                name, "=" + switched if switched else "", False, case.start_point
                            )
                    self.visit_children(case)

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        if fn is not None:
            self.add_call(callee_name(fn), node)
            if fn.type != "identifier":
                self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_composite_literal(self, node: Node) -> None:
        """``T{...}`` (also ``&T{...}``, ``pkg.T{...}``, ``T[int]{...}``) constructs a ``T``
        (Go spec, "Composite literals"), as a struct expression does in Rust: a call written
        ``T{}``, which the resolver links only to a struct type. A slice, array or map literal
        (``[]T{...}``), an anonymous ``struct{...}{...}`` and a type parameter's literal are
        none; nor are the elements elided in ``[]T{{...}}``, which name no type; keys are
        field names, no calls."""
        written = node.child_by_field_name("type")
        if written is not None and written.type in _LITERAL_TYPES:
            named = self.declared_type(written)
            self.add_call(f"{named}{{}}" if named else "", node)
        self.visit(node.child_by_field_name("body"))


def written_type(node: Node | None) -> str:
    """:func:`type_name`, or ``[]T`` for a slice or an array of ``T`` (``[][]T``...), ``[K]V``
    for a map (``[K]`` when ``V`` names no type, ``[]V`` when ``K`` names none)."""
    if node is None or node.type not in _CONTAINERS:
        return type_name(node)
    element = written_type(node.child_by_field_name(_CONTAINERS[node.type]))
    key = type_name(node.child_by_field_name("key")) if node.type == "map_type" else ""
    return f"[{key}]{element}" if element or key else ""


def evidence(values: list[Node], index: int, targets: int) -> tuple[str, bool]:
    """What the ``index``-th of ``targets`` names declared with ``values`` holds, as
    (value, annotation): a type (``T{}``, ``&T{}``, ``[]T{}``, ``new(T)``, ``make(T)``,
    ``x.(T)``), a callee as
    written (its first result; ``f#1``: its second), ``=x`` for another name, else ''."""
    if len(values) == 1 and targets > 1:
        single = values[0]
        if single.type == "call_expression" and _callee(single):
            return _callee(single) + (f"#{index}" if index else ""), False
        if single.type == "type_assertion_expression" and index == 0:
            return _asserted(single)
        if single.type == "index_expression" and index == 0 and callee_name(single):
            return "=" + callee_name(single), False  # ``v, ok := m[k]``
        return "", False
    if index >= len(values):
        return "", False
    value = values[index]
    if value.type == "unary_expression" and text(value)[:1] == "&":
        value = value.child_by_field_name("operand") or value
    if value.type == "composite_literal":
        return written_type(value.child_by_field_name("type")), True
    if value.type == "type_assertion_expression":
        return _asserted(value)
    if value.type == "call_expression":
        args = value.child_by_field_name("arguments")
        if _callee(value) in ("new", "make") and args is not None and args.named_children:
            return written_type(args.named_children[0]), True
        return _callee(value), False
    if value.type in {"identifier", "selector_expression", "index_expression"} and callee_name(
        value
    ):
        return "=" + callee_name(value), False
    return "", False


def _callee(call: Node) -> str:
    fn = call.child_by_field_name("function")
    return callee_name(fn) if fn is not None else ""


def _asserted(node: Node) -> tuple[str, bool]:
    written = written_type(node.child_by_field_name("type"))
    return written, bool(written)


def type_params(node: Node | None) -> frozenset[str]:
    """The names a type parameter list ``[K comparable, V any]`` declares."""
    return frozenset(
        text(name)
        for decl in (node.named_children if node is not None else [])
        if decl.type == "type_parameter_declaration"
        for name in decl.children_by_field_name("name")
    )


def receiver_type_params(node: Node | None) -> frozenset[str]:
    """The type parameters a generic receiver ``*Set[T]`` names."""
    while node is not None and node.type in {"pointer_type", "parenthesized_type"}:
        node = node.named_children[-1] if node.named_children else None
    if node is None or node.type != "generic_type":
        return frozenset()
    args = node.child_by_field_name("type_arguments")
    return frozenset(text(a) for a in (args.named_children if args is not None else []))


class GoExtractor:
    """The Go extractor the code graph loads as ``lang_go.EXTRACTOR``."""

    # 1: declared types of locals in scope by block, result types, package names
    # 2: composite literals of named types as calls ``T{}`` (instantiations)
    version = "2"

    def __init__(self) -> None:
        self.suffixes = {".go": "go"}
        self.call_resolver = GoCalls  # the resolver types receivers by declarations
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
            name = next((c for c in package.named_children if c.type == "package_identifier"), None)
            if name is not None:  # ``package chi_test`` beside ``package chi``: another package
                facts.assignments.append(Assignment(PACKAGE, text(name), "", line(name), True))
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
