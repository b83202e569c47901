"""C# facts: namespaces, types (nested as ``Outer.Inner``), members, ``using``, calls, bases.

Conventions:

- namespaces (block ``namespace A.B { }`` and file-scoped ``namespace A.B;``) are symbols of
  kind 'module' named by their full dotted name (``namespace B`` inside ``namespace A`` is
  ``A.B``); like a Java package, a namespace is not part of the qualnames of the types in it
  (``UserService``, ``UserService.Find``, nested types ``Outer.Inner``).
- kinds: class and record -> 'class', struct and ``record struct`` -> 'struct', interface,
  enum; methods, constructors (``Class.Class``) and interface members -> 'method';
  properties and fields -> 'variable' (``const`` fields -> 'constant').
- docs: ``///`` XML doc comments (tags dropped, ``<see cref="X"/>`` -> ``X``) or ``/** */``.
- imports: ``using A.B;`` -> module 'A.B', name '*' (every type of the namespace);
  ``using X = A.B.C;`` -> module 'A.B', name 'C', alias 'X'; ``using static A.B.C;`` ->
  module 'A.B.C', name '*'; ``global using`` the same, a star import with alias 'global'
  (``global using static``: 'global static'), which ``csharp_resolve`` brings to every file
  of the project (the directory of the file declaring it, and below).
- calls: ``obj.Method(...)`` as written (``this._repo.Get``, ``Helper.Run``, ``a?.B`` read
  as ``a.B``, type arguments dropped, ``new Foo().Bar()`` -> ``Foo().Bar``), ``new Foo()``
  -> ``Foo``, ``new List<Item>()`` -> ``List`1`` (the CLR's name: the count of type
  arguments tells ``List<T>`` from a class ``List``); calls in attribute arguments get
  context 'decorator'.
- assignments: fields and properties (target the member, scope the type, annotation: the
  declared type with its type arguments, ``IRepository<Order>``, ``List<Item>``), typed
  parameters and locals (``var x = new Foo()`` -> value 'Foo', an annotation: the
  static type of ``x``, its type arguments kept; ``var x = Make()`` -> value 'Make';
  ``var x = await a.Get()`` -> value 'await a.Get'), ``x = new Foo()``; a declaration
  pattern (``o is Foo f``, ``case Foo f:``) -> target 'f', value 'Foo', an annotation.
- bases: ``class A : B, IC`` -> Supertype edges; for a class or record the first base is
  'extends' unless it is named like an interface (``I`` + upper-case letter), the others
  'implements'; a struct's bases are 'implements'; an interface's bases 'extends'.
- methods record ``returns`` (the declared return type without type arguments, '' for void,
  predefined types and the method's own type parameters; ``Task<Foo>``/``ValueTask<Foo>``
  keep ``Foo``), ``params`` (-1 when a parameter
  has a default value) and ``variadic`` (a ``params`` array); calls record ``args``, the
  argument count of each call of the callee chain (``csharp_resolve`` types receivers by
  declarations and tells overloads apart).
- exported: the ``public`` modifier (interface members are public).
- ``resolve_module``: a namespace -> the ``.cs`` files declaring it; a type ``A.B.C`` -> the
  files of namespace ``A.B`` that declare ``C``; ``System``, ``Microsoft`` and anything not
  declared in the repository -> [].
"""

from __future__ import annotations

import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.aspnet_routes import aspnet_routes
from clawql_git.codegraph.csharp_resolve import CSharpCalls
from clawql_git.codegraph.model import Call, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    Walker,
    clean_block_doc,
    clean_line_docs,
    collapse,
    line,
    scan_declarations,
    strip_generics,
    text,
    walk_file,
)

TYPE_KINDS: dict[str, SymbolKind] = {
    "class_declaration": "class",
    "record_declaration": "class",
    "struct_declaration": "struct",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
}
_NAMESPACES = frozenset({"namespace_declaration", "file_scoped_namespace_declaration"})
_PREDEFINED = frozenset({"predefined_type", "array_type", "pointer_type", "implicit_type"})
_TARGETS = frozenset({"identifier", "member_access_expression"})
_INTERFACE_NAME = re.compile(r"^I[A-Z]")
_SEE = re.compile(r"<(?:see|seealso)\s+(?:cref|langword|href)=\"([^\"]*)\"\s*/?>")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_NAMESPACE_LINE = re.compile(rb"(?m)^\s*namespace\s+([A-Za-z_][\w.]*)\s*([;{]?)")
_TYPE_LINE = re.compile(
    rb"(?m)\b(?:class|struct|interface|enum|record)\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*)"
)
_GENERIC = re.compile(r"[A-Za-z_][\w.]*<[\w.<>,]+>")
_EXTERNAL = ("System", "Microsoft")
_TASKS = frozenset({"Task", "ValueTask"})
_BOM = b"\xef\xbb\xbf"


def _languages() -> dict[str, object]:
    import tree_sitter_c_sharp

    return {"csharp": tree_sitter_c_sharp.language}


def type_name(node: Node | None) -> str:
    """``List`` of ``List<User>``, ``A.B.Repo``, ``Repo`` of ``Repo?``; '' for ``int``,
    arrays, ``var``."""
    if node is None or node.type in _PREDEFINED:
        return ""
    if node.type == "nullable_type" and node.named_children:
        return type_name(node.named_children[0])
    name = strip_generics(text(node)).replace("global::", "")
    return name if re.fullmatch(r"[A-Za-z_][\w.]*", name) else ""


def declared_type(node: Node | None) -> str:
    """The type a variable, parameter, field or property is declared with, its type
    arguments kept (``List<User>``, ``IRepository<Order>``; nullable marks dropped) so the
    resolver can read the element type; else as :func:`type_name` writes it."""
    name = type_name(node)
    if node is None or not name or "<" not in text(node):
        return name
    written = re.sub(r"\s+|\?", "", text(node)).replace("global::", "")
    return written if _GENERIC.fullmatch(written) else name


def callee_name(node: Node | None) -> str:
    """A callee as written, type arguments dropped, ``?.`` read as ``.``: ``this._repo.Get``,
    ``Foo().Bar`` for ``new Foo().Bar``, ``Make().Run`` for ``Make().Run``."""
    if node is None:
        return ""
    kind = node.type
    if kind == "member_access_expression":
        receiver = callee_name(node.child_by_field_name("expression"))
        name = strip_generics(text(node.child_by_field_name("name")))
        return f"{receiver}.{name}" if receiver else ""
    if kind == "conditional_access_expression" and len(node.named_children) == 2:
        target, binding = node.named_children
        return f"{callee_name(target)}{callee_name(binding)}"
    if kind == "member_binding_expression":
        return "." + strip_generics(text(node.child_by_field_name("name")))
    if kind == "object_creation_expression":
        made = constructed(node)
        return f"{made}()" if made else ""
    if kind == "invocation_expression":
        inner = callee_name(node.child_by_field_name("function"))
        return f"{inner}()" if inner else ""
    if kind == "parenthesized_expression" and node.named_children:
        return callee_name(node.named_children[0])
    return strip_generics(collapse(text(node), 120)).replace(" ", "")


def constructed(node: Node) -> str:
    """The type a ``new`` expression makes, as :func:`type_name` writes it, with the number
    of type arguments it is given marked as the CLR names generic types (``new List<Item>()``
    -> ``List`1``): C# tells a generic type from a plain one of the same name by it."""
    made = type_name(node.child_by_field_name("type"))
    count = generic_arity(node.child_by_field_name("type"))
    return f"{made}`{count}" if made and count else made


def generic_arity(node: Node | None) -> int:
    """How many type arguments a written type gives its (last) name (``Dictionary<K, V>``:
    2, ``A.B<C>``: 1, ``Foo``: 0)."""
    if node is None:
        return 0
    if node.type in ("qualified_name", "nullable_type") and node.named_children:
        return generic_arity(node.named_children[-1 if node.type == "qualified_name" else 0])
    if node.type == "generic_name":
        return len(_type_arguments(node))
    return 0


def argument_count(node: Node) -> int:
    """How many arguments a call or ``new`` passes."""
    args = node.child_by_field_name("arguments")
    return len([c for c in args.named_children if c.type == "argument"]) if args else 0


def chain_args(node: Node | None) -> tuple[int, ...]:
    """The argument counts of the calls of a callee chain as ``callee_name`` writes it, left
    to right (``a.B(x).C(y, z)`` -> (1, 2)); a ``?.`` chain is not counted (())."""
    if node is None:
        return ()
    kind = node.type
    if kind == "invocation_expression":
        inner = chain_args(node.child_by_field_name("function"))
        return (*inner, argument_count(node))
    if kind == "member_access_expression":
        return chain_args(node.child_by_field_name("expression"))
    if kind == "object_creation_expression":
        return (argument_count(node),)
    if kind == "parenthesized_expression" and node.named_children:
        return chain_args(node.named_children[0])
    if kind in {"identifier", "generic_name", "this_expression", "base_expression"}:
        return ()
    return (-1,)  # an opaque head: the counts no longer line up with the chain


def parameter_shape(node: Node) -> tuple[int, bool]:
    """(how many parameters, -1 when one has a default value; whether the last is a
    ``params`` array) of a method or constructor."""
    params = node.child_by_field_name("parameters")
    if params is None:
        return 0, False
    plain = [c for c in params.named_children if c.type == "parameter"]
    variadic = any(c.type not in {"parameter", "comment"} for c in params.named_children)
    if any(any(not c.is_named and text(c) == "=" for c in p.children) for p in plain):
        return -1, variadic
    return len(plain) + variadic, variadic


def return_type(node: Node) -> str:
    """The declared return type of a method, '' when void, predefined or a type parameter of
    the method; ``Task<Foo>`` and ``ValueTask<Foo>`` keep the type awaiting gives (its own
    type arguments dropped: ``Task<Result<Foo>>`` -> ``Task<Result>``)."""
    returns = node.child_by_field_name("returns")
    written = type_name(returns)
    variables = node.child_by_field_name("type_parameters")
    names = variables.named_children if variables is not None else []
    own = {text(c.child_by_field_name("name")) for c in names}
    if written in own:
        return ""
    arguments = _type_arguments(returns) if written in _TASKS else []
    awaited = type_name(arguments[0]) if len(arguments) == 1 else ""
    return f"{written}<{awaited}>" if awaited and awaited not in own else written


def _type_arguments(node: Node | None) -> list[Node]:
    """The type arguments of a generic type as written (``Task<Foo>`` -> [Foo])."""
    children = node.named_children if node is not None else []
    listed = next((c for c in children if c.type == "type_argument_list"), None)
    return list(listed.named_children) if listed is not None else []


def xml_doc(raw: str) -> str:
    """The text of an XML doc comment: ``<see cref="X"/>`` -> X, other tags dropped."""
    return "\n".join(
        line.strip() for line in _TAG.sub("", _SEE.sub(r"\1", raw)).splitlines() if line.strip()
    )


class CSharpWalker(Walker):
    """One pass over a C# tree."""

    handlers: ClassVar[dict[str, str]] = {
        "using_directive": "on_using",
        "namespace_declaration": "on_namespace",
        "file_scoped_namespace_declaration": "on_namespace",
        **{kind: "on_type" for kind in TYPE_KINDS},
        "method_declaration": "on_method",
        "constructor_declaration": "on_method",
        "destructor_declaration": "on_method",
        "local_function_statement": "on_method",  # top-level statements (Program.cs)
        "operator_declaration": "on_skip_members",
        "property_declaration": "on_property",
        "field_declaration": "on_field",
        "local_declaration_statement": "on_local",
        "assignment_expression": "on_assign",
        "invocation_expression": "on_invocation",
        "object_creation_expression": "on_new",
        "attribute_list": "on_attributes",
        "parameter_list": "on_params",
        "declaration_pattern": "on_pattern",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.namespace = ""  # the enclosing namespace, dotted
        self.interface_depth = 0
        self.type_scopes: list[str] = []

    def doc(self, node: Node) -> str:
        raws = [text(c) for c in self.leading(node)]
        if raws and raws[-1].startswith("/**"):
            return clean_block_doc(raws[-1])
        lines = [r for r in raws if r.startswith("///")]
        return xml_doc(clean_line_docs(lines, "///")) if lines else ""

    def modifiers(self, node: Node) -> tuple[set[str], tuple[str, ...]]:
        """(modifier keywords, attributes as written without brackets) of a declaration."""
        keywords = {text(c) for c in node.children if c.type == "modifier"}
        attributes = tuple(
            collapse(text(a))
            for c in node.children
            if c.type == "attribute_list"
            for a in c.named_children
            if a.type == "attribute"
        )
        for c in node.children:
            if c.type == "attribute_list":
                self.on_attributes(c)
        return keywords, attributes

    def signature_of(self, node: Node, body: Node | None) -> str:
        """The declaration without its attributes, up to the body."""
        start = next((c for c in node.children if c.type != "attribute_list"), node)
        return self.signature(start, body, node)

    def on_using(self, node: Node) -> None:
        alias = node.child_by_field_name("name")
        target = node.named_children[-1] if node.named_children else None
        written = text(target).replace("global::", "")
        words = {text(c) for c in node.children if not c.is_named}
        if alias is not None:
            module, _, name = written.rpartition(".")
            self.add_import(module, strip_generics(name), text(alias), node)
        elif written:
            kinds = [word for word in ("global", "static") if word in words]
            self.add_import(written, "*", " ".join(kinds), node)

    def on_namespace(self, node: Node) -> None:
        written = text(node.child_by_field_name("name"))
        full = f"{self.namespace}.{written}" if self.namespace else written
        saved = self.scope
        self.scope = []  # a namespace is not part of qualnames
        self.add_symbol(
            node,
            full,
            "module",
            signature=f"namespace {full}",
            docstring=self.doc(node),
        )
        self.scope = saved
        if node.type == "file_scoped_namespace_declaration":
            self.namespace = full  # the rest of the file (its siblings) is inside
            self.visit_children(node)
            return
        outer, self.namespace = self.namespace, full
        self.visit(node.child_by_field_name("body"))
        self.namespace = outer

    def on_type(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        keywords, attributes = self.modifiers(node)
        kind = TYPE_KINDS[node.type]
        if node.type == "record_declaration" and any(
            text(c) == "struct" for c in node.children if not c.is_named
        ):
            kind = "struct"
        body = node.child_by_field_name("body")
        base_list = next((c for c in node.named_children if c.type == "base_list"), None)
        bases = [
            (b, type_name(b))
            for b in (base_list.named_children if base_list is not None else [])
            if b.type != "argument_list" and type_name(b)
        ]
        symbol = self.add_symbol(
            node,
            name,
            kind,
            signature=self.signature_of(node, body),
            docstring=self.doc(node),
            exported="public" in keywords or self.interface_depth > 0,
            decorators=attributes,
            bases=tuple(written for _, written in bases),
        )
        for index, (at, written) in enumerate(bases):
            self.add_supertype(symbol.qualname, written, at, relation(kind, index, written))
        interface = kind == "interface"
        with self.enter(name):
            self.type_scopes.append(self.qualname)
            self.interface_depth += interface
            self.record_parameters(node)
            self.visit(base_list)
            self.visit(body)
            self.interface_depth -= interface
            self.type_scopes.pop()

    def record_parameters(self, node: Node) -> None:
        """A positional record's parameters are its properties."""
        params = next((c for c in node.named_children if c.type == "parameter_list"), None)
        for param in params.named_children if params is not None else []:
            if param.type == "parameter":
                declared = declared_type(param.child_by_field_name("type"))
                self.assign(text(param.child_by_field_name("name")), declared, param, True)

    def on_method(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        if node.type == "destructor_declaration":
            name = "~" + name
        keywords, attributes = self.modifiers(node)
        body = node.child_by_field_name("body") or next(
            (c for c in node.named_children if c.type == "arrow_expression_clause"), None
        )
        params, variadic = parameter_shape(node)
        self.add_symbol(
            node,
            name,
            "method" if self.type_scopes else "function",
            signature=self.signature_of(node, body),
            docstring=self.doc(node),
            exported="public" in keywords or self.interface_depth > 0,
            decorators=attributes,
            returns=return_type(node) if node.type != "constructor_declaration" else "",
            params=params,
            variadic=variadic,
        )
        with self.enter(name):
            if self.type_scopes and "static" not in keywords:
                self.assign("this", self.type_scopes[-1], node, True)
            self.visit(node.child_by_field_name("parameters"))
            initializer = next(
                (c for c in node.named_children if c.type == "constructor_initializer"), None
            )
            self.visit(initializer)
            self.visit(body)

    def on_skip_members(self, node: Node) -> None:
        self.visit(node.child_by_field_name("body"))

    def on_property(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        keywords, attributes = self.modifiers(node)
        accessors = node.child_by_field_name("accessors")
        self.add_symbol(
            node,
            name,
            "variable",
            signature=self.signature_of(node, accessors),
            docstring=self.doc(node),
            exported="public" in keywords or self.interface_depth > 0,
            decorators=attributes,
        )
        self.assign(name, declared_type(node.child_by_field_name("type")), node, True)
        with self.enter(name):
            for child in node.named_children:  # accessors, an initializer, ``=> expression``
                if child.type not in {"modifier", "attribute_list", "identifier"}:
                    self.visit(child)

    def on_field(self, node: Node) -> None:
        keywords, attributes = self.modifiers(node)
        decl = next((c for c in node.named_children if c.type == "variable_declaration"), None)
        if decl is None:
            return
        declared = declared_type(decl.child_by_field_name("type"))
        for var in decl.named_children:
            if var.type != "variable_declarator":
                continue
            name = text(var.child_by_field_name("name"))
            self.add_symbol(
                node,
                name,
                "constant" if "const" in keywords else "variable",
                signature=self.signature_of(node, None).rstrip(";"),
                docstring=self.doc(node),
                exported="public" in keywords,
                decorators=attributes,
            )
            self.assign(name, declared, var, True)
            self.visit_children(var)

    def on_local(self, node: Node) -> None:
        decl = next((c for c in node.named_children if c.type == "variable_declaration"), None)
        if decl is None:
            return
        declared = declared_type(decl.child_by_field_name("type"))
        for var in decl.named_children:
            if var.type != "variable_declarator":
                continue
            name = text(var.child_by_field_name("name"))
            self.assign(name, declared, var, True)
            value = next((c for c in var.named_children if c.type.endswith("_expression")), None)
            if not declared and value is not None and value.type == "object_creation_expression":
                made = declared_type(value.child_by_field_name("type"))
                self.assign(name, made, var, True)  # ``var x = new Foo()``: x is a Foo
            elif not declared and value is not None:
                self.evidence(name, value, var)
            self.visit_children(var)

    def evidence(self, target: str, value: Node, at: Node) -> None:
        awaited = value.named_children[0] if value.named_children else None
        if value.type == "await_expression" and awaited is not None:
            if awaited.type == "invocation_expression":  # ``var x = await repo.GetAsync()``
                made = callee_name(awaited.child_by_field_name("function"))
                self.assign(target, f"await {made}" if made else "", at, False)
        elif value.type == "object_creation_expression":
            self.assign(target, type_name(value.child_by_field_name("type")), at, False)
        elif value.type == "invocation_expression":
            self.assign(target, callee_name(value.child_by_field_name("function")), at, False)

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if right is not None and left is not None and left.type in _TARGETS:
            self.evidence(callee_name(left), right, node)
        self.visit_children(node)

    def add_chain_call(self, callee: str, node: Node, args: tuple[int, ...]) -> None:
        """A call site with the argument counts of its chain (overloads are told apart by
        them)."""
        if callee:
            at = (line(node), node.start_point[1])
            self.facts.calls.append(Call(callee, self.qualname, *at, self.context, args))

    def on_invocation(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        if fn is not None:
            self.add_chain_call(callee_name(fn), node, chain_args(node))
            if fn.type == "member_access_expression":
                self.visit(fn.child_by_field_name("expression"))
            elif fn.type not in {"identifier", "generic_name"}:
                self.visit(fn)
        self.visit(node.child_by_field_name("arguments"))

    def on_new(self, node: Node) -> None:
        made = constructed(node)
        self.add_chain_call(made, node, (argument_count(node),))
        self.visit(node.child_by_field_name("arguments"))
        self.visit(node.child_by_field_name("initializer"))

    def on_attributes(self, node: Node) -> None:
        with self.in_context("decorator"):
            for attribute in node.named_children:
                for child in attribute.named_children:
                    if child.type == "attribute_argument_list":
                        self.visit(child)

    def on_pattern(self, node: Node) -> None:
        """``x is Foo f`` / ``case Foo f:``: ``f`` is a ``Foo``."""
        if len(node.named_children) == 2:
            declared, name = node.named_children
            self.assign(text(name), declared_type(declared), node, True)

    def on_params(self, node: Node) -> None:
        for param in node.named_children:
            if param.type == "parameter":
                declared = declared_type(param.child_by_field_name("type"))
                self.assign(text(param.child_by_field_name("name")), declared, param, True)
                self.visit_children(param)


def relation(kind: SymbolKind, index: int, base: str) -> str:
    """'extends' or 'implements' for the ``index``-th base of a type of ``kind``."""
    if kind == "interface":
        return "extends"
    if kind in {"struct", "enum"} or index > 0:
        return "implements"
    return "implements" if _INTERFACE_NAME.match(base.rsplit(".", 1)[-1]) else "extends"


class CSharpExtractor:
    """The C# extractor the code graph loads as ``lang_csharp.EXTRACTOR``."""

    version = "4"

    def __init__(self) -> None:
        self.suffixes = {".cs": "csharp"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._repo: RepoView | None = None
        self._namespaces: dict[str, list[str]] = {}  # namespace -> files declaring it
        self._types: dict[str, set[str]] = {}  # file -> type names declared in it
        self.call_resolver = CSharpCalls  # the resolver types receivers by declarations

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one C# file; syntax errors are counted and the rest still extracted."""
        root, facts, _ = walk_file(self._parsers, path, source, language, CSharpWalker)
        aspnet_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The files declaring namespace ``module``, or type ``module``; else []."""
        if not module or module.split(".")[0] in _EXTERNAL:
            return []
        self._use(repo)
        if module in self._namespaces:
            return list(self._namespaces[module])
        namespace, _, name = module.rpartition(".")
        return [f for f in self._namespaces.get(namespace, []) if name in self._types[f]]

    def _use(self, repo: RepoView) -> None:
        if repo is self._repo:
            return
        self._repo = repo
        self._namespaces, self._types = scan_declarations(
            repo, ".cs", _TYPE_LINE, self.declared_namespaces
        )

    def declared_namespaces(self, path: str, raw: bytes) -> list[str]:
        """The full names of the namespaces a file declares: read off the lines when the
        file has at most one block namespace (no nesting possible), else parsed."""
        found = _NAMESPACE_LINE.findall(raw.removeprefix(_BOM))  # ``^`` misses a BOM line
        if sum(1 for _, end in found if end == b"{") <= 1:
            return sorted({name.decode() for name, _ in found})
        facts = self.extract(path, raw, "csharp")  # nested blocks: their full names
        return sorted({s.name for s in facts.symbols if s.kind == "module"})


EXTRACTOR = CSharpExtractor()
