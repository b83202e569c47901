"""JavaScript, TypeScript and TSX facts: symbols, ES/CommonJS imports, calls, routes.

Conventions (the resolver relies on them):

- qualnames are dotted: ``Class.method``, ``Namespace.fn``, ``outer.inner``; functions bound
  to a ``const``/``let`` (arrow functions, function expressions) are functions of that name.
- imports: ``import d from 'm'`` -> name 'default', alias 'd'; ``import * as ns`` and
  ``require('m')`` -> name '' (whole module), alias as bound; ``import {a as b}`` -> name
  'a', alias 'b'; re-exports ``export {a as b} from './x'`` -> name 'a', alias 'b' (and 'b'
  in ``exports``); ``export * from './x'`` -> name '*'; ``export * as ns from`` -> name '',
  alias 'ns'; dynamic ``import('m')`` -> name '', alias '', scope the enclosing function.
- calls: call and ``new`` expressions with the callee as written (``this.repo.find``); JSX
  elements with a capitalised name (``<Button/>``) count as calls of that component.
- assignments: ``x = new Foo()`` / ``x = make()`` (value the callee), ``x: Foo`` and typed
  parameters (annotation), class fields (target the field name, scope the class),
  constructor parameter properties (target ``this.repo``, scope ``Class.constructor``),
  and ``this`` -> the class in every method (target 'this', annotation).
- definitions written as values (``app.m = function``, ``const actions = {save() {}}``,
  named function expressions, function-typed members of TypeScript types): see
  :mod:`clawql_git.codegraph.js_members`.
- routes: see :mod:`clawql_git.codegraph.js_routes`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph import js_resolve, js_routes, js_this
from clawql_git.codegraph.js_members import (
    FUNCTION_VALUES,
    MIXED_IN,
    JsMemberWalker,
    mixin_sources,
    object_literal,
    returned_receiver,
    type_literals,
    type_name,
)
from clawql_git.codegraph.js_modules import EXPORTS_OBJECTS, require_module
from clawql_git.codegraph.js_routes import callee_name, decorator_text
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.react_routes import react_routes
from clawql_git.codegraph.ts_util import (
    Parsers,
    clean_block_doc,
    line,
    string_value,
    strip_generics,
    text,
    walk_file,
)

TYPESCRIPT = frozenset({"typescript", "tsx"})
_MEMBER_PATH = re.compile(r"^(?:this|[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)+$")  # a.b, no calls

_WRAPPERS = frozenset({"await_expression", "parenthesized_expression", "non_null_expression"})
_COMMENTS = frozenset({"comment"})
_DECORATORS = frozenset({"decorator"})


def _languages() -> dict[str, object]:
    import tree_sitter_javascript
    import tree_sitter_typescript

    return {
        "javascript": tree_sitter_javascript.language,
        "typescript": tree_sitter_typescript.language_typescript,
        "tsx": tree_sitter_typescript.language_tsx,
    }


def value_name(node: Node | None) -> tuple[str, bool]:
    """Type evidence from an initialiser: (``Foo`` of ``new Foo()``, False) or the callee;
    ``a = module.exports = make()`` is what it assigns last (an assignment's value is the
    value assigned)."""
    while node is not None and node.type in _WRAPPERS:
        node = node.named_children[0] if node.named_children else None
    if node is not None and node.type == "assignment_expression":
        return value_name(_assigned_value(node))
    if node is None:
        return "", False
    if node.type == "this":  # ``var self = this``: an alias of the receiver
        return "=this", False
    if node.type == "member_expression" and _MEMBER_PATH.match(text(node)):
        return "=" + text(node), False  # ``var Router = express.Router``: an alias
    if node.type == "as_expression":
        inner = node.named_children
        return (type_name(inner[-1]), True) if len(inner) > 1 else ("", False)
    if node.type == "new_expression":
        ctor = node.child_by_field_name("constructor")
        return (callee_name(ctor) if ctor is not None else ""), False
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        created = _created_from(node)
        if created:  # its members are the prototype's (MDN, Object.create)
            return "=" + created, False
        return (callee_name(fn) if fn is not None else ""), False
    return "", False


def _created_from(call: Node) -> str:
    """``proto`` of ``Object.create(proto)`` / ``Object.create(proto, descriptors)`` when
    it is a name or a member path, else ''."""
    fn = call.child_by_field_name("function")
    args = js_routes.arguments(call.child_by_field_name("arguments"))
    if fn is None or text(fn) != "Object.create" or not args:
        return ""
    written = text(args[0])
    return written if args[0].type == "identifier" or _MEMBER_PATH.match(written) else ""


class JsWalker(JsMemberWalker):
    """One pass over a JS/TS tree."""

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.accessor_helpers: js_this.Helpers | None = None  # read on first need
        # ``this`` of the anonymous functions around: '' the enclosing definition's own,
        # '?' not known, '=x' the object x (js_this)
        self.this_stack: list[str] = []

    def on_function_expression(self, node: Node) -> None:
        """An anonymous function is walked with its own ``this`` (:mod:`js_this`)."""
        if node.child_by_field_name("name") is not None:
            super().on_function_expression(node)
            return
        receiver = js_this.assigned_to(node)
        if receiver is None:
            receiver = self.accessor_object(node)
        self.this_stack.append(self.receiver_this(receiver))
        try:
            self.visit_children(node)
        finally:
            self.this_stack.pop()

    def receiver_this(self, receiver: Node | None) -> str:
        """``this`` in a function called on ``receiver``: '=receiver' for a name or a
        member path, the current ``this`` for ``this``, '?' otherwise."""
        if receiver is not None and receiver.type == "this":
            return self.this_stack[-1] if self.this_stack else ""
        written = text(receiver) if receiver is not None else ""
        if receiver is not None and (receiver.type == "identifier" or _MEMBER_PATH.match(written)):
            return "=" + written
        return "?"

    def add_call(self, callee: str, node: Node) -> None:
        """A call; one of ``this.m`` in an anonymous function also records what ``this``
        is there (``this@LINE:COL``)."""
        super().add_call(callee, node)
        top = self.this_stack[-1] if self.this_stack else ""
        if top and callee.split(".")[0] == "this":
            target = js_this.site(line(node), node.start_point[1])
            self.facts.assignments.append(
                Assignment(target, top, self.qualname, line(node), top == "?")
            )

    def assign(self, target: str, value: str, node: Node, annotation: bool) -> None:
        """``var self = this`` in an anonymous function aliases that function's ``this``."""
        top = self.this_stack[-1] if self.this_stack else ""
        if value == "=this" and top:
            value, annotation = top, top == "?"
            if value == "?":
                self.facts.assignments.append(
                    Assignment(target, "?", self.qualname, line(node), True)
                )
                return
        super().assign(target, value, node, annotation)

    handlers: ClassVar[dict[str, str]] = {
        **JsMemberWalker.handlers,
        "function_declaration": "on_function",
        "generator_function_declaration": "on_function",
        "class_declaration": "on_class",
        "abstract_class_declaration": "on_class",
        "class": "on_class",
        "interface_declaration": "on_interface",
        "type_alias_declaration": "on_simple",
        "enum_declaration": "on_simple",
        "lexical_declaration": "on_declaration",
        "variable_declaration": "on_declaration",
        "internal_module": "on_namespace",
        "call_expression": "on_call",
        "new_expression": "on_new",
        "assignment_expression": "on_assign",
        "decorator": "on_decorator",
        "formal_parameters": "on_params",
        "jsx_opening_element": "on_jsx",
        "jsx_self_closing_element": "on_jsx",
        "comment": "on_above",
    }

    # -- definitions -----------------------------------------------------------------------

    def on_function(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        kind: SymbolKind = "method" if self.class_depth and not self.function_depth else "function"
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.sig(node, node.child_by_field_name("body")),
            docstring=self.doc(node),
            exported=self.take_export(),
        )
        self.walk_function(name, node)

    def walk_function(self, name: str, node: Node) -> None:
        """The function's scope walked (with its own ``this``, an arrow function's being the
        enclosing one); its declared return type (a class, interface or type alias) is
        recorded as ``name()`` in the enclosing scope, for call results."""
        own = node.type != "arrow_function"
        if own:
            self.this_stack.append("")
        try:
            self.walk_named(name, node)
        finally:
            if own:
                self.this_stack.pop()

    def walk_named(self, name: str, node: Node) -> None:
        annotation = node.child_by_field_name("return_type")
        declared = type_name(annotation)
        self.assign(f"{name}()", declared, node, True)
        written = text(annotation).lstrip(":").strip() if annotation is not None else ""
        returned = returned_receiver(node) if written in {"", "this"} else ""
        self.assign(f"{name}()", "=" + returned if returned else "", node, False)
        obj = self.accessor_object(node) if node.type != "arrow_function" else None
        if obj is not None or (self.function_depth and node.type != "arrow_function"):
            scope = f"{self.qualname}.{name}" if self.qualname else name  # its own ``this``
            this, typed = self.accessor_this(obj)
            self.facts.assignments.append(Assignment("this", this, scope, line(node), typed))
        super().walk_function(name, node)

    def accessor_object(self, fn: Node) -> Node | None:
        """The object ``fn`` is a getter or setter of (:mod:`js_this`)."""
        if self.accessor_helpers is None:
            root = fn
            while root.parent is not None:
                root = root.parent
            self.accessor_helpers = js_this.helpers(root)
        return js_this.defined_on(fn, self.accessor_helpers)

    def accessor_this(self, obj: Node | None) -> tuple[str, bool]:
        """``this`` in a nested function: '?' (its own, not known), but in an accessor the
        object it is defined on: ``=obj``, or what ``this`` is here when ``obj`` is
        ``this``."""
        if obj is None:
            return "?", True
        if obj.type == "identifier":
            return "=" + text(obj), False
        here = [
            a
            for a in self.facts.assignments
            if a.target == "this" and a.scope == self.qualname and a.value != "?"
        ]
        if obj.type == "this" and len({a.value for a in here}) == 1:
            return here[0].value, here[0].annotation
        return "?", True

    def on_class(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            self.visit_children(node)
            return
        name = text(name_node)
        decorators = self.pending_decorators + [
            c for c in node.named_children if c.type == "decorator"
        ]
        self.pending_decorators = []
        with self.in_context("decorator"):
            for dec in decorators:
                self.visit_children(dec)
        heritage = self.heritage(node)
        body = node.child_by_field_name("body")
        symbol = self.add_symbol(
            node,
            name,
            "class",
            signature=self.sig(node, body),
            docstring=self.doc(node),
            exported=self.take_export(),
            decorators=tuple(decorator_text(d) for d in decorators),
            bases=tuple(base for base, _, _ in heritage),
        )
        for base, at, relation in heritage:
            self.add_supertype(symbol.qualname, base, at, relation)
        with self.enter(name):
            self.class_depth += 1
            saved, self.function_depth = self.function_depth, 0
            methods = self.class_body(body)
            self.function_depth = saved
            self.class_depth -= 1
        js_routes.nest_routes(self.facts, symbol.qualname, decorators, methods)

    def heritage(self, node: Node) -> list[tuple[str, Node, str]]:
        """(base, its node, 'extends' | 'implements') of a class: TypeScript wraps them in
        ``extends_clause`` / ``implements_clause``, JavaScript writes the expression alone."""
        bases: list[tuple[str, Node, str]] = []
        for child in node.named_children:
            if child.type != "class_heritage":
                continue
            for clause in child.named_children:
                if clause.type in {"extends_clause", "implements_clause"}:
                    relation = "implements" if clause.type == "implements_clause" else "extends"
                    written = clause.named_children
                else:
                    relation, written = "extends", [clause]
                for base in written:
                    if base.type not in {"comment", "type_arguments"}:
                        bases.append((strip_generics(text(base)), base, relation))
                        with self.in_context("base"):
                            self.visit(base)
        return bases

    def class_body(self, body: Node | None) -> list[tuple[str, int, list[Node]]]:
        """Members of a class body; returns (name, line, decorators) of every method."""
        methods: list[tuple[str, int, list[Node]]] = []
        decorators: list[Node] = []
        for member in body.named_children if body is not None else []:
            if member.type == "decorator":
                decorators.append(member)
                self.on_decorator(member)
                continue
            name = text(member.child_by_field_name("name"))
            own = [c for c in member.named_children if c.type == "decorator"]  # on fields
            for decorator in own:
                self.on_decorator(decorator)
            decorators = decorators + own
            if member.type in {"method_definition", "abstract_method_signature"}:
                self.method(member, name, decorators)
                methods.append((name, line(member), decorators))
            elif member.type == "public_field_definition":
                self.field(member, name, decorators)
            else:
                self.visit(member)
            decorators = []
        return methods

    def method(self, node: Node, name: str, decorators: list[Node], fn: Node | None = None) -> None:
        fn = fn or node
        body = fn.child_by_field_name("body")
        private = name.startswith("#") or any(
            c.type == "accessibility_modifier" and text(c) == "private" for c in node.children
        )
        self.add_symbol(
            node,
            name,
            "method",
            signature=self.sig(node, body),
            docstring=self.doc(node),
            exported=not private,
            decorators=tuple(decorator_text(d) for d in decorators),
        )
        cls = self.qualname
        with self.enter(name):
            self.assign("this", cls, node, True)
        self.walk_function(name, fn)

    def field(self, node: Node, name: str, decorators: list[Node]) -> None:
        value = node.child_by_field_name("value")
        if value is not None and value.type in FUNCTION_VALUES:
            self.method(node, name, decorators, value)
            return
        declared = type_name(node.child_by_field_name("type"))
        self.assign(name, declared, node, True)
        evidence, annotated = value_name(value)
        self.assign(name, evidence, node, annotated)
        self.visit(value)

    def on_interface(self, node: Node) -> None:
        name = text(node.child_by_field_name("name"))
        written = [
            t
            for c in node.named_children
            if c.type == "extends_type_clause"
            for t in c.named_children
            if t.type != "comment"
        ]
        body = node.child_by_field_name("body")
        symbol = self.add_symbol(
            node,
            name,
            "interface",
            signature=self.sig(node, body),
            docstring=self.doc(node),
            exported=self.take_export(),
            bases=tuple(strip_generics(text(t)) for t in written),
        )
        for t in written:
            self.add_supertype(symbol.qualname, strip_generics(text(t)), t, "extends")
        with self.enter(name):
            self.type_members(body)

    def on_simple(self, node: Node) -> None:
        kind: SymbolKind = "enum" if node.type == "enum_declaration" else "type"
        name = text(node.child_by_field_name("name"))
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.sig(node, node.child_by_field_name("body")),
            docstring=self.doc(node),
            exported=self.take_export(),
        )
        if kind == "type":
            with self.enter(name):
                for literal in type_literals(node.child_by_field_name("value")):
                    self.type_members(literal)

    def on_namespace(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        name = text(name_node)
        if name_node is None or name_node.type == "string":
            self.visit(node.child_by_field_name("body"))
            return
        self.add_symbol(node, name, "module", docstring=self.doc(node), exported=self.take_export())
        with self.enter(name):
            self.visit(node.child_by_field_name("body"))

    def on_declaration(self, node: Node) -> None:
        keyword = text(node.children[0]) if node.children else ""
        exported = self.take_export()
        for decl in node.named_children:
            if decl.type == "variable_declarator":
                self.declarator(node, decl, keyword, exported)

    def declarator(self, statement: Node, decl: Node, keyword: str, exported: bool) -> None:
        name_node = decl.child_by_field_name("name")
        value = decl.child_by_field_name("value")
        module = require_module(value)
        if name_node is not None and name_node.type == "object_pattern" and module is not None:
            self.destructured_require(module, name_node, decl)
            return
        if name_node is None or name_node.type != "identifier":
            self.visit(value)
            return
        name = text(name_node)
        member = _required_member(value)
        if module is not None or member is not None:
            module, imported = member or (module or "", "")
            self.import_(module, imported, name, decl)
            return
        if value is not None and value.type in FUNCTION_VALUES:
            self.add_symbol(
                statement,
                name,
                "function",
                signature=self.signature(
                    self.anchor(statement), value.child_by_field_name("body"), decl
                ),
                docstring=self.doc(statement),
                exported=exported,
            )
            self.walk_function(name, value)
            return
        if value is not None and value.type == "class":
            self.export_next = exported
            self.on_class(value)
            return
        module_level = self.function_depth == 0 and self.class_depth == 0
        literal = object_literal(value) if module_level else None
        if module_level and value is not None and _exports_whole(value):
            self.whole_export(name, decl)  # var app = exports = module.exports = {}
        if module_level:
            kind: SymbolKind = "constant" if keyword == "const" else "variable"
            self.add_symbol(
                statement,
                name,
                kind,
                signature=self.signature(self.anchor(statement), None, decl),
                docstring=self.doc(statement),
                exported=exported,
            )
        self.assign(name, type_name(decl.child_by_field_name("type")), decl, True)
        evidence, annotated = value_name(value)
        self.assign(name, evidence, decl, annotated)
        if value is not None:
            self.express.note_binding(name, value)
        if literal is not None:
            self.object_members(literal, name, exported)
        else:
            self.visit(value)

    # -- expressions -----------------------------------------------------------------------

    def on_call(self, node: Node) -> None:
        fn = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        args = js_routes.arguments(args_node)
        if fn is None:
            self.visit_children(node)
            return
        if fn.type == "import" or text(fn) == "require":
            module = string_value(args[0]) if args else None
            if module is not None:
                self.import_(module, "", "", node)
                return
        self.add_call(callee_name(fn), node)
        self.express.on_call(node, fn, args)
        destination, sources = mixin_sources(fn, args, self.facts.imports)
        for source in sources:
            self.assign(destination + MIXED_IN, "=" + source, node, False)
        if fn.type != "identifier":
            self.visit(fn)
        self.visit(args_node)

    def on_new(self, node: Node) -> None:
        ctor = node.child_by_field_name("constructor")
        if ctor is not None:
            self.add_call(callee_name(ctor), node)
            if ctor.type != "identifier":
                self.visit(ctor)
        self.visit(node.child_by_field_name("arguments"))

    def on_assign(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if (
            left is not None
            and right is not None
            and left.type in {"identifier", "member_expression"}
        ):
            target = callee_name(left)
            self.commonjs_export(target, right)
            aliased = _assigned_value(right)
            if right.type == "assignment_expression" and aliased.type in FUNCTION_VALUES:
                self.aliased_function(target, node, aliased)  # a.m = b.n = function
            module = require_module(right)
            if module is not None:
                self.import_(module, "", target, node)
                return
            if right.type in FUNCTION_VALUES and self.assigned_function(target, node, right):
                return
            literal = object_literal(right)
            if (
                literal is not None
                and target in EXPORTS_OBJECTS
                and not (self.function_depth or self.class_depth)
            ):
                self.object_members(literal, "", True)
                return
            evidence, annotated = value_name(right)
            if not (target.startswith("exports.") and self.export_lost(target)):
                self.assign(target, evidence, node, annotated)
            self.express.note_binding(target, right)
        self.visit(left)
        self.visit(right)

    def on_decorator(self, node: Node) -> None:
        self.note_above(node)
        with self.in_context("decorator"):
            self.visit_children(node)

    def on_params(self, node: Node) -> None:
        constructor = bool(self.scope) and self.scope[-1] == "constructor"
        for param in node.named_children:
            pattern = param.child_by_field_name("pattern")
            declared = type_name(param.child_by_field_name("type"))
            name = text(pattern) if pattern is not None and pattern.type == "identifier" else ""
            if name and not declared and self.facts.language in TYPESCRIPT:
                self.shadow(name, param)
            if param.type == "identifier":  # JavaScript: a parameter has no type
                self.shadow(text(param), param)
            if name and declared:
                self.assign(name, declared, param, True)
                self.express.note_param(name, declared)
                modifiers = {"accessibility_modifier", "readonly", "override_modifier"}
                if constructor and any(c.type in modifiers for c in param.children):
                    self.assign(f"this.{name}", declared, param, True)
            for child in param.named_children:
                if child.type == "decorator":
                    self.on_decorator(child)
            default = param.child_by_field_name("value")
            if default is not None:
                with self.in_context("default"):
                    self.visit(default)
            if param.type not in {"required_parameter", "optional_parameter"}:
                self.visit(param)

    def shadow(self, name: str, param: Node) -> None:
        """A parameter of no nominal type (every JavaScript one) hides the outer ``name``:
        evidence that proves nothing ('?'), so the name resolves to nothing in the
        function."""
        self.facts.assignments.append(Assignment(name, "?", self.qualname, line(param), True))

    def on_jsx(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        written = text(name)
        if written[:1].isupper() or "." in written:
            self.add_call(written, node)
        for child in node.named_children:
            if child is not name:
                self.visit(child)


class JsExtractor:
    """The JS/TS/TSX extractor the code graph loads as ``lang_js.EXTRACTOR``."""

    version = "4"  # 1: definitions written as values (js_members); 2: TypeScript types;
    # 3: CommonJS whole exports, aliased members, `this` of constructors and returns;
    # 4: mixins (``app.*``), ``return x`` of a variable declared in the body, `this` of
    # defineProperty accessors and anonymous functions, JavaScript parameters hide outer
    # names, ``Object.create(proto)``

    def __init__(self) -> None:
        self.suffixes = {
            ".js": "javascript",
            ".mjs": "javascript",
            ".cjs": "javascript",
            ".jsx": "javascript",
            ".ts": "typescript",
            ".mts": "typescript",
            ".cts": "typescript",
            ".tsx": "tsx",
        }
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self._resolver = js_resolve.JsResolver()

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one JS/TS file; syntax errors are counted and the rest still extracted."""
        root, facts, walker = walk_file(self._parsers, path, source, language, JsWalker)
        if walker.export_names:
            facts.symbols = [
                dataclasses.replace(s, exported=True)
                if "." not in s.qualname and s.name in walker.export_names
                else s
                for s in facts.symbols
            ]
        _constructors(walker, facts)
        facts.module_doc = _module_doc(root)
        react_routes(root, facts)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """Repository files a specifier denotes ([] for packages and node built-ins)."""
        return self._resolver.resolve(importer, module, repo)


def _assigned_value(right: Node) -> Node:
    """The value at the end of a chain of assignments (``function`` of ``b = c = function``)."""
    while right.type == "assignment_expression":
        value = right.child_by_field_name("right")
        if value is None:
            break
        right = value
    return right


def _exports_whole(value: Node) -> bool:
    """``exports = module.exports = {}``: a chain of assignments through ``module.exports``
    that ends in an object literal (the variable it initialises is what is exported)."""
    through = False
    end: Node | None = value
    while end is not None and end.type == "assignment_expression":
        through |= text(end.child_by_field_name("left")) == "module.exports"
        end = end.child_by_field_name("right")
    return through and object_literal(end) is not None


def _constructors(walker: JsWalker, facts: FileFacts) -> None:
    """``this`` in a module-level function ``Foo`` given ``Foo.prototype.m = function``
    methods is ``Foo`` (``new Foo()`` runs it on an object whose prototype has them)."""
    functions = {s.qualname: s for s in facts.symbols if s.kind == "function"}
    for owner in sorted(walker.constructors):
        if owner in functions and "." not in owner:
            this = Assignment("this", "=" + owner, owner, functions[owner].line, False)
            facts.assignments.append(this)


def _required_member(value: Node | None) -> tuple[str, str] | None:
    """(module, name) of ``require('m').name``, else None."""
    if value is None or value.type != "member_expression":
        return None
    module = require_module(value.child_by_field_name("object"))
    prop = value.child_by_field_name("property")
    return (module, text(prop)) if module is not None and prop is not None else None


def _module_doc(root: Node) -> str:
    """A leading ``/** ... */`` file comment (the ``@file`` / ``@module`` JSDoc)."""
    first = root.named_children[0] if root.named_children else None
    if first is not None and first.type == "comment" and text(first).startswith("/**"):
        following = first.next_named_sibling
        if following is None or following.start_point[0] > first.end_point[0] + 1:
            return clean_block_doc(text(first))
    return ""


EXTRACTOR = JsExtractor()
