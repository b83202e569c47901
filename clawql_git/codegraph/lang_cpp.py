"""C++ facts: everything of C (see ``lang_c``) plus namespaces, classes, methods, templates,
``using`` aliases, ``new`` and base classes.

Conventions:

- qualnames are dotted through namespaces and classes: ``geo::Shape::area`` is
  ``geo.Shape.area``; an anonymous namespace adds nothing. Namespaces are scopes, not
  symbols.
- methods: declared or defined in the class body (``Shape.area``), or out of line
  (``double Shape::area() const {...}`` is ``Shape.area`` too, kind 'method' unless the
  qualifier is a namespace opened in the same file); constructors are ``Shape.Shape``,
  destructors ``Shape.~Shape``. In an out-of-line method ``this`` is typed by its class.
- ``class``/``struct``/``union`` with a body -> 'class'/'struct', ``enum [class]`` -> 'enum',
  ``using X = Y;`` and ``typedef`` -> 'type'. Members are exported unless ``private:`` or
  ``protected:`` (a ``class`` starts private, a ``struct`` public).
- an unnamed record (``enum { size = 256 };``, ``union { int i; };``, ``struct {...} spec;``)
  is a symbol named ``<anonymous>`` (codegraph's name); one that declares nothing (an
  anonymous union member) leaves its members in the enclosing scope, as C++ does, and one
  typing a variable contains them (``value.<anonymous>.reset``; no ``this`` type in them).
  A specialisation (``template <> struct is_unit<char>``) is named as its template.
- bases: ``class A : public B, ns::C<int>`` -> Supertype edges ``A`` -> ``B`` and
  ``ns::C`` (relation 'extends'; template arguments dropped) and ``bases`` in dotted form.
  A class whose bases name a template parameter (its own or an enclosing class's:
  ``template <class T> class A : public B<T>``) has the decorator ``dependent bases``: a
  bare name in its methods is not looked up in them (cppreference, dependent names).
- ``using A = B<int>;`` and ``typedef B<int> A;`` record that ``A`` holds ``=B`` (an
  assignment in the alias's scope), when it is ``B`` itself (not ``B*``).
- calls: as in C, plus ``ns::f``, ``Foo::make``, ``this->f`` (``this.f``) and ``new Foo``
  (a call of ``Foo``), each with its number of arguments (``args``; none recorded when a pack
  is expanded, ``f(args...)``). Resolved by ``cpp_resolve``.
- a function or method has its arity: ``params`` the parameters without a default,
  ``variadic`` when defaults, a pack or ``...`` follow; one with no body here (a prototype, a
  method declared in its class) has the decorator ``declaration``.
- a lone macro line (``FMT_BEGIN_NAMESPACE``, blanked) is an import of module ``macro
  FMT_BEGIN_NAMESPACE``, and ``#define FMT_BEGIN_NAMESPACE namespace fmt { inline namespace
  v12 {`` (a value that only opens or closes namespaces) an assignment of that value to the
  macro's name: ``cpp_namespaces`` reads the namespaces they open. A macro is named without
  the scope it is written in (the preprocessor has none).
- source cleaning (``cpp_macros``): ``class API_EXPORT Foo {`` (or ``class
  API_VISIBILITY("default") Foo {``): an all-caps macro between ``class`` and the name is
  read as an export macro and blanked before parsing (lines and columns unchanged); so are
  ``<x>`` in ``#if FMT_HAS_INCLUDE(<x>)``, and a macro standing for a template parameter
  (``FMT_ENABLE_IF(...)``) is rewritten as ``int``.
- ``GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(char, 0);`` at column 0 (a macro expanding to
  declarations, at namespace level) is blanked before parsing too, and kept as a call of the
  macro from the enclosing namespace.
- ``using namespace a::b;`` is a star import of module ``namespace a::b`` and ``using a::B;``
  an import of ``B`` from module ``a::B``; neither names a file (the resolver looks the
  names up in the included headers; a ``using`` of nothing the repository defines is
  external).
- ``resolve_module``: the same include rules as C.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, ClassVar

from tree_sitter import Node

from clawql_git.codegraph import lang_c
from clawql_git.codegraph.cpp_macros import (
    blank_declaration_macros,
    blank_macro_statements,
    lone_macro_uses,
    namespace_expansion,
)
from clawql_git.codegraph.cpp_namespaces import MACRO_USE
from clawql_git.codegraph.cpp_resolve import DEPENDENT_BASES, CppCalls
from clawql_git.codegraph.lang_c import (
    CExtractor,
    CWalker,
    brace_delta,
    callee_name,
    declarator_name,
    dotted,
    file_doc,
    function_declarator,
    loose_head,
    type_name,
)
from clawql_git.codegraph.model import (
    DECLARATION,
    Call,
    FileFacts,
    Import,
    RepoView,
    Symbol,
    SymbolKind,
)
from clawql_git.codegraph.ts_util import Parsers, strip_generics, text, walk_file

_CLASSES: dict[str, SymbolKind] = {
    "class_specifier": "class",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}
ANONYMOUS = lang_c.ANONYMOUS  # the name of an unnamed class, struct, union or enum


def _injects_members(node: Node) -> bool:
    """``union { int i; float f; };``: an unnamed record declaring nothing puts its members
    in the enclosing scope; ``struct { ... } x;`` keeps them (reached through ``x``)."""
    parent = node.parent
    return (
        parent is not None
        and parent.type in {"field_declaration", "declaration"}
        and not parent.children_by_field_name("declarator")
    )


def _namespace_at(root: Node, offset: int) -> str:
    """The dotted namespace enclosing byte ``offset`` (a blanked macro statement)."""
    node: Node | None = root.named_descendant_for_byte_range(offset, offset)
    parts: list[str] = []
    while node is not None:
        name = node.child_by_field_name("name") if node.type == "namespace_definition" else None
        if name is not None:
            parts[:0] = [p for p in text(name).split("::") if p]
        node = node.parent
    return ".".join(parts)


_WORD = re.compile(r"[A-Za-z_]\w*")
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "variadic_type_parameter_declaration"})


def arity(params: Node) -> tuple[int, bool]:
    """(parameters without a default, whether more may be passed) of ``(int a, int b = 1,
    T&&... rest)``: (1, True); ``(void)`` and ``()`` take none."""
    required, more = 0, any(c.type == "..." for c in params.children)
    for param in params.named_children:
        if param.type == "parameter_declaration":
            declared = param.child_by_field_name("declarator")
            void = declared is None and text(param.child_by_field_name("type")) == "void"
            required += 0 if void else 1
        elif param.type in {"optional_parameter_declaration", "variadic_parameter_declaration"}:
            more = True
    return required, more


def template_params(heads: Node | None) -> set[str]:
    """The names ``template <typename T, int N, class... Ts>`` declares: {T, N, Ts}."""
    out: set[str] = set()
    for param in heads.named_children if heads is not None else []:
        if param.type == "template_template_parameter_declaration":
            param = param.named_children[-1] if param.named_children else param
        if param.type in _TYPE_PARAMETERS:
            out |= {text(c) for c in param.named_children if c.type == "type_identifier"}
        elif param.type == "optional_type_parameter_declaration":
            out.add(text(param.child_by_field_name("name")))
        else:
            found = declarator_name(param.child_by_field_name("declarator"))
            out |= {text(found)} if found is not None else set()
    return out - {""}


_NAMESPACE_NAMES = frozenset({"identifier", "namespace_identifier", "nested_namespace_specifier"})


def _loose_namespace(children: list[Node], at: int) -> bool:
    """``namespace ns {`` (or ``namespace {``) as loose children of an ERROR node."""
    if children[at].type != "namespace" or at + 1 >= len(children):
        return False
    if children[at + 1].type == "{":
        return True
    return (
        children[at + 1].type in _NAMESPACE_NAMES
        and at + 2 < len(children)
        and children[at + 2].type == "{"
    )


def _languages() -> dict[str, object]:
    import tree_sitter_cpp

    return {"cpp": tree_sitter_cpp.language}


class CppWalker(CWalker):
    """One pass over a C++ tree."""

    handlers: ClassVar[dict[str, str]] = {
        **CWalker.handlers,
        "namespace_definition": "on_namespace",
        "class_specifier": "on_record",
        "struct_specifier": "on_record",
        "union_specifier": "on_record",
        "enum_specifier": "on_record",
        "field_declaration": "on_field",
        "alias_declaration": "on_alias",
        "using_declaration": "on_using",
        "new_expression": "on_new",
        "access_specifier": "on_access",
        "preproc_def": "on_macro",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.classes: list[str] = []  # qualnames of the enclosing class bodies
        self.access: list[bool] = []  # is the current member section public?
        self.templates: list[set[str]] = []  # the template parameters of each class body

    def in_class(self) -> bool:
        return bool(self.classes) and self.depth == 0

    def class_scope(self, qualifier: list[str]) -> str:
        if self.in_class():  # an unnamed class has no type to look ``this`` up by
            return "" if self.classes[-1].endswith(ANONYMOUS) else self.classes[-1]
        if qualifier and self.qualname not in self.namespaces:
            return self.qualname
        return ""

    def exported(self, node: Node) -> bool:
        if self.in_class():
            return self.access[-1]
        return "static" not in self.storage(node)

    def on_namespace(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        parts = [p for p in text(name_node).split("::") if p] if name_node is not None else []
        self.push(parts)
        if parts:
            self.namespaces.add(self.qualname)
        saved, self.depth = self.depth, 0
        self.visit(node.child_by_field_name("body"))
        self.depth = saved
        self.pop(parts)

    def on_record(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if node.child_by_field_name("body") is None:
            self.visit_children(node)
        elif name_node is not None:
            self.record(node, strip_generics(text(name_node)), node)
        elif _injects_members(node):
            self.add_record_symbol(node, ANONYMOUS, node)
            self.visit_children(node)  # its members belong to the enclosing scope
        else:
            self.record(node, ANONYMOUS, node)

    def record(self, node: Node, name: str, whole: Node) -> None:
        """A class/struct/union/enum with a body: its symbol, bases, members."""
        self.add_record_symbol(node, name, whole)
        if node.type == "enum_specifier":
            return
        saved, self.depth = self.depth, 0
        anchor = whole.parent if whole.parent is not None else whole
        heads = anchor.child_by_field_name("parameters")
        self.templates.append(
            template_params(heads) if anchor.type == "template_declaration" else set()
        )
        self.scope.append(name)
        self.classes.append(self.qualname)
        self.access.append(node.type != "class_specifier")
        self.visit(node.child_by_field_name("body"))
        self.access.pop()
        self.classes.pop()
        self.scope.pop()
        self.templates.pop()
        self.depth = saved

    def add_record_symbol(self, node: Node, name: str, whole: Node) -> None:
        """The symbol of a class/struct/union/enum with a body, and its base classes."""
        body = node.child_by_field_name("body")
        clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
        written = [
            c
            for c in (clause.named_children if clause is not None else [])
            if c.type in {"type_identifier", "qualified_identifier", "template_type"}
        ]
        anchor = (
            whole.parent
            if whole.parent is not None and whole.parent.type == "template_declaration"
            else whole
        )
        symbol = self.add_symbol(
            whole,
            name,
            _CLASSES.get(node.type, "struct"),
            signature=self.signature(anchor, body, whole),
            docstring=self.doc(anchor),
            exported=self.exported(whole) if self.in_class() else True,
            bases=tuple(dotted(text(b)) for b in written),
            decorators=(DEPENDENT_BASES,) if self.dependent(anchor, written) else (),
        )
        for base in written:
            self.add_supertype(symbol.qualname, strip_generics(text(base)), base, "extends")

    def on_macro(self, node: Node) -> None:
        """As C's, and a macro whose value opens or closes namespaces (``#define
        FMT_BEGIN_NAMESPACE namespace fmt { inline namespace v11 {``) is type evidence: the
        macro holds that value (the resolver reads the lone lines using it)."""
        super().on_macro(node)
        value = node.child_by_field_name("value")
        expansion = namespace_expansion(text(value)) if value is not None else ""
        if expansion:
            scope, self.scope = self.scope, []
            self.assign(text(node.child_by_field_name("name")), expansion, node, False)
            self.scope = scope

    def dependent(self, anchor: Node, bases: list[Node]) -> bool:
        """Does a base (``buffer<T>``, ``T``) name a parameter of this class template or of
        an enclosing one?"""
        params = set().union(*self.templates)
        if anchor.type == "template_declaration":
            params |= template_params(anchor.child_by_field_name("parameters"))
        return any(params & set(_WORD.findall(text(b))) for b in bases)

    def add_symbol(self, node: Node, name: str, kind: SymbolKind, **extra: Any) -> Symbol:
        """As the walker's; a function or method also gets its arity (``params``: the
        parameters without a default, ``variadic``: defaults, a pack or ``...`` follow) and,
        when it has no body here, the decorator ``declaration``."""
        fn = function_declarator(node.child_by_field_name("declarator"))
        params = fn.child_by_field_name("parameters") if fn is not None else None
        if kind in ("function", "method") and params is not None:
            extra["params"], extra["variadic"] = arity(params)
            if node.type != "function_definition":
                extra["decorators"] = (DECLARATION,)
        return super().add_symbol(node, name, kind, **extra)

    def on_call(self, node: Node) -> None:
        """As C's, with the number of arguments (none when a pack is expanded: ``f(args...)``)."""
        before = len(self.facts.calls)
        fn = node.child_by_field_name("function")
        self.add_call(callee_name(fn), node)
        arguments = node.child_by_field_name("arguments")
        if len(self.facts.calls) > before and arguments is not None:
            written = [c for c in arguments.named_children if c.type != "comment"]
            if not any(c.type == "parameter_pack_expansion" for c in written):
                self.facts.calls[before] = replace(self.facts.calls[before], args=(len(written),))
        if fn is not None and fn.type not in {"identifier", "qualified_identifier"}:
            self.visit(fn)
        self.visit(arguments)

    def on_access(self, node: Node) -> None:
        if self.access:
            self.access[-1] = text(node).strip().rstrip(":").strip() == "public"

    def on_field(self, node: Node) -> None:
        """A member: a method declaration, or a field (type evidence of the class)."""
        declared = node.child_by_field_name("type")
        self.visit(declared)
        for decl in node.children_by_field_name("declarator"):
            fn = function_declarator(decl)
            name_node = declarator_name(decl)
            if name_node is None:
                continue
            if fn is not None:
                self.prototype(node, fn, name_node)
            elif self.classes:
                named = type_name(declared)
                if named:
                    self.assign(text(name_node), named, node, True)
        self.visit(node.child_by_field_name("default_value"))

    def on_alias(self, node: Node) -> None:
        """``using A = B<int>;``: the type ``A``, and ``A`` names ``B`` (``=B``) when it is
        ``B`` itself (not a pointer or reference to it)."""
        name = text(node.child_by_field_name("name"))
        self.add_symbol(
            node,
            name,
            "type",
            signature=self.signature(node, None, node),
            docstring=self.doc(node),
            exported=self.exported(node),
        )
        described = node.child_by_field_name("type")
        if described is not None and described.child_by_field_name("declarator") is None:
            self.names_type(name, described.child_by_field_name("type"), node)

    def names_type(self, alias: str, written: Node | None, node: Node) -> None:
        """Record that the alias ``alias`` is the type ``written`` (``=ns::Foo``)."""
        named = type_name(written) if written is None or written.type != "struct_specifier" else ""
        if named:
            self.assign(alias, "=" + named, node, False)

    def on_typedef(self, node: Node) -> None:
        """As C's, and ``typedef basic_string_view<char> string_view;`` names that type."""
        super().on_typedef(node)
        declared = node.child_by_field_name("type")
        for decl in node.children_by_field_name("declarator"):
            if decl.type == "type_identifier":
                self.names_type(text(decl), declared, node)

    def on_error(self, node: Node) -> None:
        """As C's, and ``using X =`` left loose by an ``#if`` between the ``=`` and its value
        (one value per branch) is still the alias ``X``."""
        children = node.children
        for at in range(len(children) - 2):
            if (
                children[at].type == "using"
                and children[at + 1].type in {"identifier", "type_identifier"}
                and children[at + 2].type == "="
            ):
                self.loose_alias(children, at)
        self.loose_children(children, 0, len(children))

    def loose_children(self, children: list[Node], start: int, end: int) -> None:
        """C's recovery of loose function heads (``CWalker.on_error``) over ``children[start:
        end]``, and a ``namespace ns {`` left loose (its closing brace lost to an ``#if``
        elsewhere) scoping what follows it up to the brace that balances it."""
        at = start
        while at < end:
            if self.depth == 0 and _loose_namespace(children, at):
                at = self.loose_namespace(children, at, end)
            elif self.depth == 0 and loose_head(children, at):
                at = self.loose_function(children, at)
            else:
                self.visit(children[at])
            at += 1

    def loose_namespace(self, children: list[Node], at: int, end: int) -> int:
        """The namespace whose keyword is ``children[at]``; returns the index of its last
        child (its ``}``, or the last one when it is not closed). A child that holds the
        balancing brace among others (an ``#if`` whose branch closes it) is left to the
        enclosing scope, as it was without this recovery."""
        named = children[at + 1].type != "{"
        opening = at + 2 if named else at + 1
        parts = [p for p in text(children[at + 1]).split("::") if p] if named else []
        depth, close = 0, end  # not closed: up to the end
        for index in range(opening, end):
            depth += brace_delta(children[index]) if children[index].type != "{" else 1
            if depth <= 0:
                close = index
                break
        self.push(parts)
        if parts:
            self.namespaces.add(self.qualname)
        self.loose_children(children, opening + 1, close)
        self.pop(parts)
        if close < end and children[close].type != "}":
            return close - 1  # a node holding the closing brace is visited outside
        return min(close, end - 1)

    def loose_alias(self, children: list[Node], at: int) -> None:
        """The alias whose ``using`` is ``children[at]``, from its ``template <...>`` head
        (when there is one) to the end of the ``#if`` holding its values."""
        start = at - 2 if at >= 2 and children[at - 2].type == "template" else at
        equals = children[at + 2]
        values = equals.next_named_sibling
        if values is None and equals.parent is not None:
            values = equals.parent.next_named_sibling
        symbol = self.add_symbol(
            children[start],
            text(children[at + 1]),
            "type",
            signature=self.signature(children[start], None, equals),
            docstring=self.doc(children[start]),
        )
        if values is not None and values.type in {"preproc_if", "preproc_ifdef"}:
            self.facts.symbols[-1] = replace(symbol, end_line=values.end_point[0] + 1)

    def on_using(self, node: Node) -> None:
        """``using namespace a::b;`` -> a star import of module ``namespace a::b``; ``using
        a::B;`` -> module ``a::B``, name and alias ``B`` (both looked up by the resolver)."""
        target = next((c for c in node.named_children if c.type != "comment"), None)
        written = strip_generics(text(target)).replace(" ", "")
        if not written:
            return
        if any(c.type == "namespace" for c in node.children):
            self.add_import(f"namespace {written}", "*", "", node)
        else:
            name = written.rsplit("::", 1)[-1]
            self.add_import(written, name, name, node)

    def on_new(self, node: Node) -> None:
        self.add_call(type_name(node.child_by_field_name("type")), node)
        self.visit(node.child_by_field_name("arguments"))


class CppExtractor:
    """The C++ extractor the code graph loads as ``lang_cpp.EXTRACTOR``."""

    version = "5"  # 2: unnamed records as <anonymous>, reference declarators
    # 3: ``typedef void (*F)()`` / ``(F)`` named F, ``int (ns::f)(int)``, a macro before
    # ``operator T()``, ``operator F<R(A)>`` whole, functions and ``using X = #if`` aliases
    # recovered from ERROR nodes; 4: macros named without scope, namespace-opening macros
    # (their values, their lone lines as imports of ``macro NAME``), aliases' types (``=B``),
    # arities and argument counts, ``declaration`` and ``dependent bases`` decorators,
    # ``class FMT_SO_VISIBILITY("default") X``; 5: calls of a declaration followed to the
    # repository's one definition (``Resolver._c_definition``)

    def __init__(self) -> None:
        self.suffixes = {
            ".cc": "cpp",
            ".cpp": "cpp",
            ".cxx": "cpp",
            ".c++": "cpp",
            ".hpp": "cpp",
            ".hh": "cpp",
            ".hxx": "cpp",
            ".h++": "cpp",
        }
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._includes = CExtractor()
        self.call_resolver = CppCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one C++ file; syntax errors are counted and the rest still extracted."""
        declared = blank_declaration_macros(source)
        cleaned, statements = blank_macro_statements(declared)
        root, facts, _ = walk_file(self._parsers, path, cleaned, "cpp", CppWalker)
        facts.module_doc = file_doc(root)
        for name, offset in lone_macro_uses(source, declared):
            line = source.count(b"\n", 0, offset) + 1
            scope = _namespace_at(root, offset)
            facts.imports.append(Import(MACRO_USE + name, "", "", line, scope))
        for match in statements:
            line = source.count(b"\n", 0, match.start()) + 1
            caller = _namespace_at(root, match.start())
            facts.calls.append(Call(match.group(1).decode(), caller, line))
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The repository file an ``#include`` names, by the C rules."""
        return self._includes.resolve_module(importer, module, repo)


EXTRACTOR = CppExtractor()
lang_c.EXTRACTOR.cpp = EXTRACTOR  # a ``.h`` written in C++ is parsed here
