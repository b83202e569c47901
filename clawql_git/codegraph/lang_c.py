"""C facts (and the walker C++ extends): functions, prototypes, structs, unions, enums,
typedefs, macros, globals, ``#include``, calls, type evidence.

Conventions:

- a function is its name; ``static`` ones are not exported. Prototypes are definitions only
  in headers (``.h``): there they carry the API's signature and doc comment; a prototype in a
  ``.c`` file (a forward declaration) is not a second definition.
- doc comment: the ``/** */`` or ``/* */`` block, or the run of ``//`` lines, directly above.
- ``struct``/``union`` -> 'struct', ``enum`` -> 'enum', ``typedef`` -> 'type' (a typedef
  naming an anonymous struct, or one of the same name, is that struct; an unnamed one that
  no typedef names, ``enum { A, B };``, is ``<anonymous>``), ``#define X`` ->
  'constant', ``#define F(a)`` -> 'function' (a function-like macro is called like one),
  file-level variables -> 'variable'.
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

from clawql_git.codegraph.model import Extractor, FileFacts, RepoView, SymbolKind
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
    ``const T& x``) holds it as its last child, not in a ``declarator`` field."""
    if node.type == "reference_declarator":
        return node.named_children[-1] if node.named_children else None
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
    """``operator const Char*`` of ``operator const Char*() const``: the words before the
    parameters, spaces collapsed."""
    return " ".join(text(cast).split("(", 1)[0].split())


def function_declarator(node: Node | None) -> Node | None:
    """The ``function_declarator`` of a declaration's declarator, if it declares a function
    (``int *f(void)`` yes, ``int (*fp)(void)`` no: that is a pointer variable). A C++
    conversion operator (``operator bool() const``, ``A::operator int()``) is its own."""
    while node is not None:
        if operator_cast(node) is not None:
            return node
        if node.type == "function_declarator":
            inner = node.child_by_field_name("declarator")
            return node if inner is not None and inner.type != "parenthesized_declarator" else None
        if node.type not in _DECLARATORS or node.type == "parenthesized_declarator":
            return None
        node = inner_declarator(node)
    return None


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
        written = strip_generics(text(name_node)).replace(" ", "")
        parts = [p for p in written.split("::") if p]
        if not parts:
            return [], written
        return parts[:-1], parts[-1]

    def member_kind(self, qualifier: list[str]) -> SymbolKind:
        """A function is a method inside a class body or when qualified by a non-namespace."""
        if self.in_class():
            return "method"
        if qualifier and ".".join([*self.scope, *qualifier]) not in self.namespaces:
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
        symbol = self.add_symbol(node, name, kind, signature=signature, docstring=self.doc(node))
        if node.end_point[1] == 0 and symbol.end_line > symbol.line:  # the newline ends it
            self.facts.symbols[-1] = replace(symbol, end_line=symbol.end_line - 1)

    def on_function(self, node: Node) -> None:
        decl = function_declarator(node.child_by_field_name("declarator"))
        name_node = declarator_name(decl) if decl is not None else None
        body = node.child_by_field_name("body")
        inits = next((c for c in node.named_children if c.type == "field_initializer_list"), None)
        if name_node is None:
            self.visit(body)
            return
        qualifier, name = self.qualified(name_node)
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

    version = "3"  # 2: reference declarators (``T& f()``); C++ headers: unnamed records
    # 3: unnamed C records as <anonymous>

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
        if not module or module.startswith(("<", "namespace ")) or "::" in module:
            return []  # a system include, or a C++ ``using`` line
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
