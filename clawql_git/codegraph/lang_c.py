"""C facts (and the walker C++ extends): functions, prototypes, structs, unions, enums,
typedefs, macros, globals, ``#include``, calls, type evidence.

Conventions:

- a function is its name; ``static`` ones are not exported. Prototypes are definitions only
  in headers (``.h``): there they carry the API's signature and doc comment and the decorator
  ``declaration`` (a call of one is followed to the repository's one definition by the
  resolver); a prototype in a ``.c`` file (a forward declaration) is not a second definition.
- doc comment: the ``/** */`` or ``/* */`` block, or the run of ``//`` lines, directly above.
- ``struct``/``union`` -> 'struct', ``enum`` -> 'enum', ``typedef`` -> 'type' (a typedef
  naming an anonymous struct, or one of the same name, is that struct; an unnamed one that
  no typedef names, ``enum { A, B };``, is ``<anonymous>``), ``#define X`` ->
  'constant', ``#define F(a)`` -> 'function' (a function-like macro is called like one),
  file-level variables -> 'variable'.
- ``typedef void (*cb_t)(int);`` is the type ``cb_t``; a file-level ``int (*fp)(void);`` the
  variable ``fp``.
- a file whose ``#if`` branches unbalance its braces (``#ifdef X if (a) { #else if (b) {
  #endif``) parses as an ERROR node holding the functions' pieces loose: a function
  declarator followed by ``{`` there is still the function, its body running to the ``}``
  that balances it.
- includes: one star import per ``#include`` (module the path as written, name '*'):
  ``"x.h"`` keeps its path, ``<x.h>`` keeps its angle brackets and is always external.
- calls: ``f``, ``s.f`` and ``p->f`` (both ``s.f``); type evidence from declarations and
  parameters (``struct foo *p`` -> ``p`` is a ``foo``).
- ``resolve_module``: ``"x.h"`` -> the file relative to the including file's directory,
  else under an include root (``include/``, ``src/``, the repository root), else the only
  file of the repository whose path ends in ``/x.h``; ``<...>`` and anything not found -> [].
- a ``.h`` file is C unless its text shows C++ (a line opening with ``class``,
  ``namespace``, ``template <``, ``using namespace`` or an access label): then it is parsed
  by the C++ extractor (``lang_cpp`` registers itself here on import) and stored as
  language 'cpp'.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.model import DECLARATION, Extractor, FileFacts, RepoView, SymbolKind
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

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl")
INCLUDE_ROOTS = ("include", "src", "")
CPP_MARKERS = re.compile(
    rb"^[ \t]*(?:class[ \t]+\w+[^;\n]*$|namespace\b|template[ \t]*<|using[ \t]+namespace\b"
    rb"|(?:public|private|protected)[ \t]*:)",
    re.M,
)
_DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "parenthesized_declarator",
        "init_declarator",
        "attributed_declarator",
    }
)
_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "type_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "template_function",
        "operator_cast",
    }
)
_ATTRIBUTES = frozenset({"ms_call_modifier", "attribute_specifier", "ms_pointer_modifier"})
_SPECIFIERS = frozenset(  # what may open a function's head before its declarator
    {
        "storage_class_specifier",
        "type_qualifier",
        "primitive_type",
        "sized_type_specifier",
        "type_identifier",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "attribute_specifier",
        "ms_call_modifier",
        "macro_type_specifier",
    }
)
KEYWORDS = frozenset({"if", "else", "while", "for", "switch", "return", "sizeof", "do"})
_TYPE_NAMES = frozenset(
    {"type_identifier", "qualified_identifier", "template_type", "struct_specifier"}
)
CASTS = frozenset({"static_cast", "dynamic_cast", "const_cast", "reinterpret_cast"})
ANONYMOUS = "<anonymous>"  # the name of an unnamed struct, union or enum
_RECORDS: dict[str, SymbolKind] = {
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}


def _languages() -> dict[str, object]:
    import tree_sitter_c

    return {"c": tree_sitter_c.language}


def looks_cpp(source: bytes) -> bool:
    """A header whose text uses C++ declarations (see the module doc)."""
    return CPP_MARKERS.search(source) is not None


def is_header(path: str) -> bool:
    return path.endswith(HEADER_SUFFIXES)


def dotted(written: str) -> str:
    """``ns::Foo<int>`` -> ``ns.Foo`` (the resolver's dotted form)."""
    return strip_generics(written).replace("::", ".").strip(".")


def type_name(node: Node | None) -> str:
    """The named type of a declaration (``Foo``, ``ns::Foo``, ``struct foo`` -> ``foo``);
    '' for primitives and ``auto``."""
    if node is None:
        return ""
    if node.type in {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}:
        return text(node.child_by_field_name("name"))
    if node.type in _TYPE_NAMES:
        return strip_generics(text(node))
    return ""


def inner_declarator(node: Node) -> Node | None:
    """The declarator ``node`` wraps; a C++ ``reference_declarator`` (``T& f()``,
    ``const T& x``) holds it as its last child and a ``parenthesized_declarator``
    (``(*fp)``) as its only one, not in a ``declarator`` field."""
    if node.type == "reference_declarator":
        return node.named_children[-1] if node.named_children else None
    if node.type == "parenthesized_declarator":
        inner = [c for c in node.named_children if c.type not in _ATTRIBUTES]
        return inner[0] if inner else None
    return node.child_by_field_name("declarator")


def declarator_name(node: Node | None) -> Node | None:
    """The name node inside a (pointer, array, init, function...) declarator."""
    while node is not None and node.type not in _NAMES:
        if node.type in _DECLARATORS or node.type == "function_declarator":
            node = inner_declarator(node)
        else:
            return None
    return node


def operator_cast(node: Node) -> Node | None:
    """The ``operator_cast`` of ``operator bool()`` or ``A::B::operator int()``, else None."""
    while node.type == "qualified_identifier":
        name = node.child_by_field_name("name")
        if name is None:
            return None
        node = name
    return node if node.type == "operator_cast" else None


def cast_name(cast: Node) -> str:
    """``operator const Char*`` of ``operator const Char*() const``, ``operator F<R(A)>`` of
    ``operator F<R(A)>()``: the words before the parameters, spaces collapsed."""
    node = cast.child_by_field_name("declarator")
    while node is not None and node.type != "abstract_function_declarator":
        node = node.child_by_field_name("declarator")
    params = node.child_by_field_name("parameters") if node is not None else None
    if params is None:
        return " ".join(text(cast).split("(", 1)[0].split())
    written = cast.text[: params.start_byte - cast.start_byte] if cast.text else b""
    return " ".join(written.decode("utf-8", "replace").split())


_CONVERSION = re.compile(r"\boperator\s+(?=[A-Za-z_])")


def written_name(raw: str) -> str:
    """``ns::Foo<T>::bar`` -> ``ns::Foo::bar``, spaces dropped (``operator ()`` ->
    ``operator()``); a conversion operator the grammar read as an operator name keeps its
    words: ``operator char*`` (not ``operatorchar*``)."""
    found = _CONVERSION.search(raw)
    if found is None:
        return strip_generics(raw).replace(" ", "")
    head = strip_generics(raw[: found.start()]).replace(" ", "")
    return head + " ".join(raw[found.start() :].split())


def misread_conversion(node: Node) -> str:
    """``MACRO operator T<U>() const {...}``, which the grammar reads as the return type
    ``MACRO``, an ERROR ``operator`` and a function ``T<U>()``: the conversion operator's
    name (``operator T<U>``), else ''."""
    decl = node.child_by_field_name("declarator")
    before = decl.prev_sibling if decl is not None else None
    if before is None or before.type != "ERROR" or text(before) != "operator":
        return ""
    inner = decl.child_by_field_name("declarator") if decl is not None else None
    if decl is None or decl.type != "function_declarator" or inner is None:
        return ""
    return "operator " + " ".join(text(inner).split())


def function_declarator(node: Node | None) -> Node | None:
    """The ``function_declarator`` of a declaration's declarator, if it declares a function
    (``int *f(void)`` and ``int (f)(void)`` yes, ``int (*fp)(void)`` no: that is a pointer
    variable). A C++ conversion operator (``operator bool() const``, ``A::operator int()``)
    is its own."""
    while node is not None:
        if operator_cast(node) is not None:
            return node
        if node.type == "function_declarator":
            inner = node.child_by_field_name("declarator")
            if inner is not None and inner.type == "parenthesized_declarator":
                inner = inner_declarator(inner)  # ``(f)`` is f, ``(*fp)`` a pointer
                return node if inner is not None and inner.type in _NAMES else None
            return node if inner is not None else None
        if node.type not in _DECLARATORS or node.type == "parenthesized_declarator":
            return None
        node = inner_declarator(node)
    return None


def brace_delta(node: Node) -> int:
    """The braces ``node`` opens minus those it closes: 0 for a node parsed whole; a node
    holding an ERROR counts its loose ``{`` and ``}`` (not the MISSING ones)."""
    if node.type in {"{", "}"}:
        return 0 if node.is_missing else (1 if node.type == "{" else -1)
    if not node.has_error:
        return 0
    return sum(brace_delta(c) for c in node.children)


def loose_head(children: list[Node], at: int) -> bool:
    """A function's declarator left loose in an ERROR node, its body's ``{`` next to it."""
    return (
        children[at].type == "function_declarator"
        and at + 1 < len(children)
        and children[at + 1].type == "{"
    )


def head_start(children: list[Node], at: int) -> int:
    """Where the loose head whose declarator is ``children[at]`` starts (its specifiers)."""
    while at > 0 and children[at - 1].type in _SPECIFIERS:
        at -= 1
    return at


def body_end(children: list[Node], opening: int) -> int:
    """The child closing the body that ``children[opening]`` (a ``{``) opens; else the last
    one before the next function (C functions do not nest: a count the ``#if`` branches
    left unbalanced stops there), or the last child."""
    depth = 0
    for at in range(opening, len(children)):
        if at > opening and children[at].type == "function_definition":
            return max(opening, head_start(children, at) - 1)
        if at > opening and loose_head(children, at):
            return max(opening, head_start(children, at) - 1)
        depth += brace_delta(children[at])
        if depth <= 0:
            return at
    return len(children) - 1


def callee_name(node: Node | None) -> str:
    """A callee as written: ``f``, ``s.f`` / ``p->f`` -> ``s.f``/``p.f``, ``ns::f``, ``this->f``
    -> ``this.f``; '' for calls through expressions (``(*fp)()``, ``a[i]()``)."""
    if node is None:
        return ""
    kind = node.type
    if kind in {"identifier", "field_identifier", "this"}:
        return text(node)
    if kind in {"qualified_identifier", "template_function"}:
        name = strip_generics(text(node)).replace(" ", "")
        return "" if name in CASTS else name
    if kind == "field_expression":
        base = callee_name(node.child_by_field_name("argument"))
        field = text(node.child_by_field_name("field"))
        return f"{base}.{field}" if base else ""
    if kind == "parenthesized_expression" and node.named_children:
        return callee_name(node.named_children[0])
    return ""


class CWalker(Walker):
    """One pass over a C tree; the C++ walker adds classes, namespaces and templates."""

    handlers: ClassVar[dict[str, str]] = {
        "preproc_include": "on_include",
        "preproc_def": "on_macro",
        "preproc_function_def": "on_macro",
        "function_definition": "on_function",
        "declaration": "on_declaration",
        "type_definition": "on_typedef",
        "struct_specifier": "on_record",
        "union_specifier": "on_record",
        "enum_specifier": "on_record",
        "call_expression": "on_call",
        "parameter_list": "on_params",
        "comment": "on_above",
        "ERROR": "on_error",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.depth = 0  # function nesting: 0 at file level
        self.header = is_header(facts.path)
        self.namespaces: set[str] = set()  # qualnames of the namespaces opened in this file

    # ------------------------------------------------------------ helpers

    def doc(self, node: Node) -> str:
        raws = [text(c) for c in self.leading(node)]
        if raws and raws[-1].startswith("/*"):
            last = raws[-1]
            return clean_block_doc(last if last.startswith("/**") else last.replace("/*", "/**", 1))
        return clean_line_docs([r for r in raws if r.startswith("//")], "//")

    def storage(self, node: Node) -> set[str]:
        return {text(c) for c in node.named_children if c.type == "storage_class_specifier"}

    def push(self, parts: list[str]) -> None:
        self.scope.extend(parts)

    def pop(self, parts: list[str]) -> None:
        del self.scope[len(self.scope) - len(parts) :]

    def qualified(self, name_node: Node) -> tuple[list[str], str]:
        """(qualifier parts, name) of ``a::b::f`` / ``f`` / ``~Foo`` / ``A::operator int``."""
        cast = operator_cast(name_node)
        if cast is not None:
            head = self.source[name_node.start_byte : cast.start_byte].decode("utf-8", "replace")
            scope = strip_generics(head).replace(" ", "")
            return [p for p in scope.split("::") if p], cast_name(cast)
        written = written_name(text(name_node))
        parts = [p for p in written.split("::") if p]
        if not parts:
            return [], written
        return parts[:-1], parts[-1]

    def member_kind(self, qualifier: list[str]) -> SymbolKind:
        """A function is a method inside a class body or when qualified by a non-namespace
        (asked with ``qualifier`` already pushed on the scope: ``ns::f`` is a function when
        this file opens ``namespace ns``)."""
        if self.in_class():
            return "method"
        if qualifier and ".".join(self.scope) not in self.namespaces:
            return "method"
        return "function"

    def in_class(self) -> bool:
        return False

    def class_scope(self, qualifier: list[str]) -> str:
        """The class a method body's ``this`` is (the qualname, '' outside classes)."""
        return ""

    def exported(self, node: Node) -> bool:
        return "static" not in self.storage(node) or self.in_class()

    # ------------------------------------------------------------ handlers

    def on_include(self, node: Node) -> None:
        path = node.child_by_field_name("path")
        if path is None:
            return
        if path.type == "string_literal":
            written = "".join(text(c) for c in path.named_children if c.type == "string_content")
        else:
            written = text(path).strip()
        if written:
            self.add_import(written, "*", "", node)

    def on_macro(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        params = node.child_by_field_name("parameters")
        if params is None and node.child_by_field_name("value") is None:
            return  # an include guard or a feature flag: no value, nothing to look up
        kind: SymbolKind = "function" if params is not None else "constant"
        signature = f"#define {name}{text(params) if params is not None else ''}"
        scope, self.scope = self.scope, []  # a macro belongs to no namespace, class or function
        symbol = self.add_symbol(node, name, kind, signature=signature, docstring=self.doc(node))
        self.scope = scope
        if node.end_point[1] == 0 and symbol.end_line > symbol.line:  # the newline ends it
            self.facts.symbols[-1] = replace(symbol, end_line=symbol.end_line - 1)

    def on_function(self, node: Node) -> None:
        decl = function_declarator(node.child_by_field_name("declarator"))
        name_node = declarator_name(decl) if decl is not None else None
        body = node.child_by_field_name("body")
        inits = next((c for c in node.named_children if c.type == "field_initializer_list"), None)
        misread = misread_conversion(node)
        if misread:
            qualifier: list[str] = []
            name = misread
        elif name_node is not None and text(name_node) not in KEYWORDS:
            qualifier, name = self.qualified(name_node)
        else:  # no name, or ``else if (x) {`` read as a function in an ERROR
            self.visit(body)
            return
        anchor = (
            node.parent
            if node.parent is not None and node.parent.type == "template_declaration"
            else node
        )
        self.push(qualifier)
        self.add_symbol(
            node,
            name,
            self.member_kind(qualifier),
            signature=self.signature(anchor, inits or body, node),
            docstring=self.doc(anchor),
            exported=self.exported(node),
        )
        self.visit(inits)
        klass = self.class_scope(qualifier)
        self.scope.append(name)
        self.depth += 1
        if klass:
            self.assign("this", klass.replace(".", "::"), node, True)
        self.visit(decl.child_by_field_name("parameters") if decl is not None else None)
        self.visit(body)
        self.depth -= 1
        self.scope.pop()
        self.pop(qualifier)

    def on_error(self, node: Node) -> None:
        """Tree-sitter's recovery when ``#if`` branches leave the braces unbalanced (each
        branch opening its own ``if (...) {``): a function's head and its body's ``{`` can be
        loose children of an ERROR node, read here as the function they are."""
        children = node.children
        at = 0
        while at < len(children):
            if self.depth == 0 and loose_head(children, at):
                at = self.loose_function(children, at)
            else:
                self.visit(children[at])
            at += 1

    def loose_function(self, children: list[Node], at: int) -> int:
        """The function whose declarator is ``children[at]``, its body the siblings up to
        the brace closing it; returns the index of its last child."""
        decl = children[at]
        name_node = declarator_name(decl)
        if name_node is None or text(name_node) in KEYWORDS:
            self.visit(decl)
            return at
        start, end = head_start(children, at), body_end(children, at + 1)
        specifiers = {text(c) for c in children[start:at] if c.type == "storage_class_specifier"}
        qualifier, name = self.qualified(name_node)
        self.push(qualifier)
        symbol = self.add_symbol(
            children[start],
            name,
            self.member_kind(qualifier),
            signature=self.signature(children[start], children[at + 1], decl),
            docstring=self.doc(children[start]),
            exported="static" not in specifiers,
        )
        self.facts.symbols[-1] = replace(symbol, end_line=children[end].end_point[0] + 1)
        self.scope.append(name)
        self.depth += 1
        self.visit(decl.child_by_field_name("parameters"))
        for child in children[at + 2 : end + 1]:
            self.visit(child)
        self.depth -= 1
        self.scope.pop()
        self.pop(qualifier)
        return end

    def on_declaration(self, node: Node) -> None:
        """A prototype (in a header), a file-level variable, or a local with its type."""
        declared = node.child_by_field_name("type")
        self.visit(declared)
        for decl in node.children_by_field_name("declarator"):
            fn = function_declarator(decl)
            name_node = declarator_name(decl)
            if name_node is None:
                continue
            if fn is not None:
                if self.depth == 0 and (self.header or self.in_class()):
                    self.prototype(node, fn, name_node)
                continue
            name = text(name_node)
            extern = "extern" in self.storage(node)
            if (
                self.depth == 0
                and not self.in_class()
                and not extern
                and name_node.type == "identifier"
            ):
                self.add_symbol(
                    node,
                    name,
                    "variable",
                    signature=self.signature(node, None, node),
                    docstring=self.doc(node),
                    exported=self.exported(node),
                )
            self.evidence(name, type_name(declared), decl, node)

    def prototype(self, node: Node, fn: Node, name_node: Node) -> None:
        qualifier, name = self.qualified(name_node)
        self.push(qualifier)
        self.add_symbol(
            node,
            name,
            self.member_kind(qualifier),
            signature=self.signature(node, None, node),
            docstring=self.doc(node),
            exported=self.exported(node),
            decorators=(DECLARATION,),
        )
        self.pop(qualifier)

    def evidence(self, name: str, declared: str, decl: Node, at: Node) -> None:
        """``name`` holds a ``declared`` (annotation), else what its initialiser makes."""
        if declared and declared != "auto":
            self.assign(name, declared, at, True)
        value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
        if value is None:
            return
        if value.type == "new_expression":
            self.assign(name, type_name(value.child_by_field_name("type")), at, True)
        elif value.type == "call_expression" and not declared:
            self.assign(name, callee_name(value.child_by_field_name("function")), at, False)
        self.visit(value)

    def on_typedef(self, node: Node) -> None:
        declared = node.child_by_field_name("type")
        names = [declarator_name(d) for d in node.children_by_field_name("declarator")]
        record = declared if declared is not None and declared.type in _RECORDS else None
        body = record.child_by_field_name("body") if record is not None else None
        tag = text(record.child_by_field_name("name")) if record is not None else ""
        first = text(names[0]) if names and names[0] is not None else ""
        if record is not None and body is not None:
            self.record(record, tag or first, node)
        for name_node in names:
            name = text(name_node) if name_node is not None else ""
            if not name or (body is not None and name in {tag, first} and (not tag or name == tag)):
                continue
            self.add_symbol(
                node,
                name,
                "type",
                signature=collapse(self.signature(node, None, node)),
                docstring=self.doc(node),
            )

    def on_record(self, node: Node) -> None:
        """A struct/union/enum with a body; an unnamed one (``enum { A, B };``,
        ``struct { int x; } point;``) is named ``<anonymous>``, as the C++ extractor names it."""
        if node.child_by_field_name("body") is not None:
            self.record(node, text(node.child_by_field_name("name")) or ANONYMOUS, node)

    def record(self, node: Node, name: str, whole: Node) -> None:
        """A struct/union/enum with a body: its symbol, its fields as type evidence."""
        body = node.child_by_field_name("body")
        head = "union" if node.type == "union_specifier" else node.type.split("_")[0]
        self.add_symbol(
            whole,
            name,
            _RECORDS.get(node.type, "struct"),
            signature=f"{head} {name}",
            docstring=self.doc(whole),
        )
        self.scope.append(name)
        for field in body.named_children if body is not None else []:
            if field.type == "field_declaration":
                declared = type_name(field.child_by_field_name("type"))
                for decl in field.children_by_field_name("declarator"):
                    found = declarator_name(decl)
                    if found is not None and declared:
                        self.assign(text(found), declared, field, True)
                self.visit(field.child_by_field_name("type"))
        self.scope.pop()

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        self.add_call(callee_name(fn), node)
        if fn is not None and fn.type not in {"identifier", "qualified_identifier"}:
            self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_params(self, node: Node) -> None:
        if self.depth:
            for param in node.named_children:
                found = declarator_name(param.child_by_field_name("declarator"))
                declared = type_name(param.child_by_field_name("type"))
                if found is not None and declared:
                    self.assign(text(found), declared, param, True)
        self.visit_children(node)


def file_doc(root: Node) -> str:
    """The comment that opens the file (a licence or overview), when it does."""
    first = root.named_children[0] if root.named_children else None
    if first is None or first.type != "comment" or first.start_point[0] != 0:
        return ""
    raw = text(first)
    if raw.startswith("/*"):
        return clean_block_doc(raw if raw.startswith("/**") else raw.replace("/*", "/**", 1))
    return clean_line_docs([raw], "//")


class CExtractor:
    """The C extractor the code graph loads as ``lang_c.EXTRACTOR``."""

    version = "6"  # 2: reference declarators (``T& f()``); C++ headers: unnamed records
    # 3: unnamed C records as <anonymous>; 4: ``typedef int (*cb)(void)`` named ``cb``,
    # functions recovered from ERROR nodes (``#if`` branches with unbalanced braces);
    # 5: a macro is named without the scope it is written in (``#define`` in a function)
    # 6: a prototype carries the decorator ``declaration`` (followed to its definition)

    def __init__(self) -> None:
        self.suffixes = {".c": "c", ".h": "c"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._by_name: dict[str, list[str]] = {}
        self.cpp: Extractor | None = None  # set by ``lang_cpp`` when its grammar is present

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one C file (a C++ header goes to the C++ extractor, when there is one)."""
        if path.endswith(".h") and self.cpp is not None and looks_cpp(source):
            return self.cpp.extract(path, source, "cpp")
        return self.walk(path, source, language)

    def walk(self, path: str, source: bytes, language: str) -> FileFacts:
        root, facts, _ = walk_file(self._parsers, path, source, language, CWalker)
        facts.module_doc = file_doc(root)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The repository file ``#include "module"`` names; [] for ``<...>`` and the unknown."""
        if not module or module.startswith(("<", "namespace ", "macro ")) or "::" in module:
            return []  # a system include, a C++ ``using`` line or a lone macro line
        self._use(repo)
        here = posixpath.dirname(importer)
        for base in (here, *INCLUDE_ROOTS):
            found = posixpath.normpath(posixpath.join(base, module)) if base else module
            if found in repo.files:
                return [found]
        name = posixpath.basename(module)
        ending = [p for p in self._by_name.get(name, []) if ("/" + p).endswith("/" + module)]
        if len(ending) == 1:
            return ending
        if ending:  # several: the one nearest the including file
            return [max(ending, key=lambda p: len(posixpath.commonprefix([p, importer])))]
        return []

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo, self._by_name = repo, {}
        for path in sorted(repo.files):
            self._by_name.setdefault(posixpath.basename(path), []).append(path)


EXTRACTOR = CExtractor()
