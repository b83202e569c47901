"""Definitions JavaScript writes as values, and TypeScript's function-typed members.

The base of the JS walker (:mod:`clawql_git.codegraph.lang_js`), over the module surface
(:mod:`clawql_git.codegraph.js_modules`). Conventions:

- a named function expression (``route.all(function handle() {...})``, ``return function
  etag() {...}``) is a function of its own name in the enclosing scope;
- at module level, a function assigned to a member is a definition: ``exports.f =`` and
  ``module.exports.f =`` a function ``f``; ``Foo.prototype.m =`` a method ``Foo.m``;
  ``app.m =`` a method ``app.m`` of the object ``app`` (``a.b.m`` of ``a.b``), with
  ``this`` in it that object (not in an arrow function). ``this.m =``, ``a[k] =`` and
  globals (``window.m``) are not;
- in a module-level object literal bound to a name (``const actions = {save: async () =>
  ..., load() {...}}``, also ``as const`` / ``satisfies``), the function-valued properties
  and methods are methods of that name; in ``module.exports = {...}`` they are functions
  of their own (exported);
- TypeScript: in an interface body or a type literal a type alias is made of (``type R =
  {...} & Promise<T>``), method signatures and properties typed with a function type
  (``json: <J>() => Promise<J>``) are methods of the interface / alias;
- a mixin copies the members of one object onto another: ``Object.assign(app, a, b)``
  (ECMAScript: each source's own enumerable properties, in order) and ``mixin(app, proto)``
  where ``mixin`` is ``require('merge-descriptors')`` (its README: the own properties of
  ``source`` defined on ``destination``) are recorded as ``app.*`` -> ``=proto`` in the
  enclosing scope, one assignment per source, so ``app.m`` may be ``proto.m``.

A property that does not hold a function is never one of these.
"""

from __future__ import annotations

import re
from contextlib import nullcontext
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.js_modules import EXPORTS_OBJECTS, JsModuleWalker
from clawql_git.codegraph.model import FileFacts, Import, SymbolKind
from clawql_git.codegraph.ts_util import string_value, strip_generics, text

FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_NESTED_SCOPES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "class",
        "method_definition",
    }
)
_OBJECT_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression"})
_MEMBER = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")  # a.b.c, no calls or [k]
_NOT_OWNERS = frozenset({"this", "module", "exports", "globalThis", "window", "self", "super"})
TYPE_NAMES = frozenset({"type_identifier", "nested_type_identifier", "generic_type", "identifier"})
MIXIN_MODULES = frozenset({"merge-descriptors"})  # mixin(destination, source, redefine)
MIXED_IN = ".*"  # the target suffix of a mixin's assignment: ``app.*`` -> ``=proto``


def type_name(node: Node | None) -> str:
    """The nominal type of an annotation (``Repo``, ``ns.Repo``, ``Promise`` of
    ``Promise<X>``), '' for primitive, literal, union and structural types."""
    if node is None:
        return ""
    if node.type == "type_annotation":
        inner = node.named_children
        return type_name(inner[0]) if inner else ""
    if node.type == "generic_type":
        return type_name(node.child_by_field_name("name") or node.named_children[0])
    if node.type in TYPE_NAMES:
        return strip_generics(text(node))
    return ""


class JsMemberWalker(JsModuleWalker):
    """Function definitions written as expressions and members; subclasses add the rest."""

    handlers: ClassVar[dict[str, str]] = {
        **JsModuleWalker.handlers,
        "function_expression": "on_function_expression",
        "function": "on_function_expression",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.constructors: set[str] = set()  # ``Foo`` of ``Foo.prototype.m = function``

    def on_function_expression(self, node: Node) -> None:
        """A named function expression (``route.all(function handle() {...})``) is a
        function of its own name, in the enclosing scope; an anonymous one is only walked."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            self.visit_children(node)
            return
        self.function_def(node, text(name_node), node, exported=False)

    def function_def(
        self, node: Node, name: str, fn: Node, exported: bool = True, kind: SymbolKind = "function"
    ) -> None:
        """A definition ``name`` written by ``node`` with the function ``fn``: its symbol
        (signature up to the body, doc comment), then the function's own scope walked."""
        self.add_symbol(
            node,
            name,
            kind,
            signature=self.sig(node, fn.child_by_field_name("body")),
            docstring=self.doc(node),
            exported=exported,
        )
        self.walk_function(name, fn)

    def member_target(self, target: str) -> tuple[str, str] | None:
        """(owner, name) a module-level assignment to ``target`` defines a function of:
        ('', f) for ``exports.f``, (Foo, m) for ``Foo.prototype.m``, (app, m) for ``app.m``;
        None for anything else (``this.m``, ``a[k]``, inside a function)."""
        if self.function_depth or self.class_depth or not _MEMBER.match(target):
            return None
        owner, _, method = target.partition(".prototype.")
        if not method or "." in method:
            owner, _, method = target.rpartition(".")
        if owner in EXPORTS_OBJECTS:
            return "", method
        if not owner or owner.split(".")[0] in _NOT_OWNERS or ".prototype" in owner:
            return None
        return owner, method

    def assigned_function(self, target: str, node: Node, fn: Node) -> bool:
        """Module-level ``exports.f = function`` (function ``f``, exported),
        ``Foo.prototype.m = function`` (method ``Foo.m``) and ``app.m = function`` (method
        ``app.m`` of the object ``app``); False for anything else (``this.m``, ``a[k]``)."""
        found = self.member_target(target)
        if found is None:
            return False
        owner, method = found
        if not owner:
            self.function_def(node, method, fn)
            return True
        if target.startswith(owner + ".prototype."):
            self.constructors.add(owner)
        with self.enter(owner):
            self.member_function(node, method, fn)
        return True

    def aliased_function(self, target: str, node: Node, fn: Node) -> None:
        """``res.set = res.header = function header() {...}``: ``res.set`` is the same
        function, a definition of its own at the outer assignment (the calls in the body
        are the inner definition's)."""
        found = self.member_target(target)
        if found is None:
            return
        owner, method = found
        signature = self.sig(node, fn.child_by_field_name("body"))
        kind: SymbolKind = "method" if owner else "function"
        returned = returned_receiver(fn)
        with self.enter(owner) if owner else nullcontext():
            self.add_symbol(node, method, kind, signature=signature, docstring=self.doc(node))
            self.assign(f"{method}()", "=" + returned if returned else "", node, False)

    def member_function(self, node: Node, name: str, fn: Node, exported: bool = True) -> None:
        """A method ``name`` of the enclosing scope (an object or a constructor function)
        defined by ``node`` with the function ``fn``; ``this`` in it is that scope."""
        owner = self.qualname
        if fn.type != "arrow_function":  # an arrow's ``this`` is the enclosing one
            with self.enter(name):
                self.assign("this", "=" + owner, node, False)  # '=': that object itself
        self.function_def(node, name, fn, exported, "method")

    def object_members(self, literal: Node, owner: str, exported: bool) -> None:
        """A module-level object literal: its function-valued properties and methods are
        methods of ``owner`` (``actions.save``), or with no owner (``module.exports =
        {...}``) functions of their own; everything else is walked where it stands."""
        for member in literal.named_children:
            name = _property_name(
                member.child_by_field_name("key") or member.child_by_field_name("name")
            )
            fn = member.child_by_field_name("value") if member.type == "pair" else member
            if member.type == "comment":
                self.note_above(member)
            elif (
                not name
                or fn is None
                or (member.type == "pair" and fn.type not in FUNCTION_VALUES)
                or member.type not in {"pair", "method_definition"}
            ):
                self.visit(member)
            elif owner:
                with self.enter(owner):
                    self.member_function(member, name, fn, exported)
            else:
                self.function_def(member, name, fn)

    def type_members(self, body: Node | None) -> None:
        """The methods of an interface body or type literal: method signatures and
        properties typed with a function type (``json: <J>() => Promise<J>``) or an object
        type of call signatures; a call signature's return type is the type's ``()``."""
        for member in body.named_children if body is not None else []:
            returned = _signature_return(member)
            if member.type == "comment":
                self.note_above(member)
            elif returned is not None and member.type == "call_signature":
                self.assign("()", returned, member, True)
            elif returned is not None:
                name = text(member.child_by_field_name("name"))
                self.add_symbol(
                    member,
                    name,
                    "method",
                    signature=self.sig(member, None),
                    docstring=self.doc(member),
                )
                self.assign(f"{name}()", returned, member, True)


def mixin_sources(fn: Node, args: list[Node], imports: list[Import]) -> tuple[str, list[str]]:
    """(destination, sources) of a mixin call: ``Object.assign(app, a, b)`` -> ('app', [a,
    b]); ``mixin(app, proto, false)`` -> ('app', [proto]) where this file binds ``mixin``
    to ``require('merge-descriptors')`` at module level; ('', []) for any other call, and
    sources that are not names (``{...}``, calls) are left out."""
    written = text(fn)
    if written == "Object.assign":
        given = args
    elif fn.type == "identifier" and any(
        i.module in MIXIN_MODULES and i.alias == written and i.name in {"", "default"}
        for i in imports
        if not i.scope
    ):
        given = args[:2]
    else:
        return "", []
    if len(given) < 2 or given[0].type != "identifier":
        return "", []
    names = [text(a) for a in given[1:] if _MEMBER.match(text(a)) or a.type == "identifier"]
    return text(given[0]), names


def _signature_return(member: Node) -> str | None:
    """The nominal return type of a type member that can be called ('' when not nominal):
    a method or call signature, or a property of a function type or an object type of call
    signatures; None for anything else (``status: number``)."""
    if member.type in {"method_signature", "call_signature"}:
        return type_name(member.child_by_field_name("return_type"))
    if member.type != "property_signature":
        return None
    inner = _annotated(member.child_by_field_name("type"))
    if inner is not None and inner.type == "function_type":
        return type_name(inner.child_by_field_name("return_type"))
    signatures = [c for c in inner.named_children if c.type == "call_signature"] if inner else []
    if inner is None or inner.type != "object_type" or not signatures:
        return None
    return type_name(signatures[0].child_by_field_name("return_type"))


def _annotated(annotation: Node | None) -> Node | None:
    """The type a ``type_annotation`` writes, parentheses taken off."""
    inner = annotation.named_children[0] if annotation and annotation.named_children else None
    while inner is not None and inner.type == "parenthesized_type" and inner.named_children:
        inner = inner.named_children[0]
    return inner


def type_literals(value: Node | None) -> list[Node]:
    """The object types a type alias is made of: ``{...}``, ``{...} & Promise<T>``."""
    if value is None:
        return []
    if value.type == "object_type":
        return [value]
    if value.type in {"intersection_type", "union_type", "parenthesized_type"}:
        return [t for part in value.named_children for t in type_literals(part)]
    return []


def object_literal(value: Node | None) -> Node | None:
    """The object literal ``value`` is (``{...}``, ``{...} as const``, ``satisfies T``)."""
    while value is not None and value.type in _OBJECT_WRAPPERS and value.named_children:
        value = value.named_children[0]
    return value if value is not None and value.type == "object" else None


def _property_name(key: Node | None) -> str:
    """``save`` of ``save: ...``, ``'save': ...`` and ``save() {...}``; '' when computed."""
    if key is None or key.type == "computed_property_name":
        return ""
    quoted = string_value(key)
    return quoted if quoted is not None else text(key)


def returned_receiver(fn: Node) -> str:
    """'this' when every ``return`` of a (non-arrow) function's own body returns ``this``,
    'this.m()' when every one returns ``this.m(...)``, 'inner' when every one returns the
    function ``inner`` declared or written there (``return function inner() {...}``) or
    the variable ``inner`` declared there (``var app = express(); ...; return app``); ''
    otherwise (no return, another value, several forms). A call of it gives its receiver
    (MDN, ``this``: in a method call, the object the method was called on), what
    ``receiver.m()`` gives, that function, or what the variable's assignments prove."""
    body = fn.child_by_field_name("body")
    if fn.type == "arrow_function" or body is None:
        return ""
    functions = _declared_functions(body)
    declared = (functions - _assigned_names(body)) | (_declared_variables(body) - functions)
    forms = {_returned_form(r, declared) for r in _own_returns(body)}
    return forms.pop() if len(forms) == 1 else ""


def _declared_functions(body: Node) -> set[str]:
    """Names a function body declares as functions: ``function inner() {}`` and ``var
    inner = function () {}`` (or an arrow function) among its own statements."""
    names: set[str] = set()
    others: set[str] = set()  # ``var f = function`` then ``var f = 1``: not proven
    for statement in body.named_children:
        if statement.type == "function_declaration":
            names.add(text(statement.child_by_field_name("name")))
        elif statement.type in {"lexical_declaration", "variable_declaration"}:
            for decl in statement.named_children:
                value = decl.child_by_field_name("value")
                function = value is not None and value.type in FUNCTION_VALUES
                (names if function else others).add(text(decl.child_by_field_name("name")))
    return names - others


def _declared_variables(node: Node) -> set[str]:
    """Names declared by ``var``/``let``/``const`` in a function body (not in the functions
    nested in it) with a value that is not a function."""
    names = set()
    for child in node.named_children:
        if child.type == "variable_declarator":
            named, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            function = value is not None and value.type in FUNCTION_VALUES
            if named is not None and named.type == "identifier" and not function:
                names.add(text(named))
        if child.type not in FUNCTION_VALUES | _NESTED_SCOPES:
            names |= _declared_variables(child)
    return names


def _assigned_names(node: Node) -> set[str]:
    """Identifiers assigned anywhere under ``node`` (``inner = other``)."""
    names = set()
    stack = [node]
    while stack:
        current = stack.pop()
        left = current.child_by_field_name("left") if "assignment" in current.type else None
        if left is not None and left.type == "identifier":
            names.add(text(left))
        stack.extend(current.named_children)
    return names


def _own_returns(node: Node) -> list[Node]:
    """The ``return`` statements of a function body, not of the functions nested in it."""
    found = []
    for child in node.named_children:
        if child.type == "return_statement":
            found.append(child)
        elif child.type not in FUNCTION_VALUES | _NESTED_SCOPES:
            found.extend(_own_returns(child))
    return found


def _returned_form(statement: Node, declared: set[str]) -> str:
    value = statement.named_children[0] if statement.named_children else None
    while value is not None and value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    if value is not None and value.type == "this":
        return "this"
    named = value.child_by_field_name("name") if value is not None else None
    if value is not None and value.type in {"function_expression", "function"} and named:
        return text(named)
    if value is not None and value.type == "identifier" and text(value) in declared:
        return text(value)  # a function or variable declared in the body
    fn = (
        value.child_by_field_name("function") if value and value.type == "call_expression" else None
    )
    if fn is not None and fn.type == "member_expression":
        receiver, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
        if receiver is not None and receiver.type == "this" and prop is not None:
            return f"this.{text(prop)}()" if prop.type == "property_identifier" else ""
    return ""  # ``return;``, ``return x``: not the receiver
