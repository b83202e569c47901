"""The module surface of a JS/TS file: imports, re-exports, ``export``, CommonJS exports.

The base of the JS walker (:mod:`clawql_git.codegraph.lang_js`): it keeps the state the
definitions need (is the next declaration exported, pending decorators) and feeds the
express tracker every binding of ``express`` and its ``Router``. A default export
(``export default App``, ``module.exports = History``) is 'default' in ``exports`` and an
assignment ``default`` -> ``=App`` at module level (a leading '=' marks an alias of a name,
not a call, as the Python extractor writes ``x = y``), so ``import X from './app'`` can
resolve to ``App``; ``module.exports = App`` is also ``module.exports`` -> ``=App``, what a
whole-module ``require()`` gives even beside other exports, and ``module.exports =
require('./x')`` an import of ``./x`` bound to ``module.exports``. A default-exported
express router also gets a mount ``default`` -> the router with no prefix, so an importer's
``app.use('/users', users)`` reaches its routes.
"""

from __future__ import annotations

from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph import js_routes
from clawql_git.codegraph.model import Assignment, FileFacts, Mount
from clawql_git.codegraph.ts_util import (
    Walker,
    clean_block_doc,
    line,
    string_value,
    text,
)

EXPORTS_OBJECTS = frozenset({"module.exports", "exports"})  # what CommonJS exports through
_DEFAULT_VALUES = frozenset(
    {"identifier", "class", "function_expression", "function", "arrow_function"}
)


def require_module(node: Node | None) -> str | None:
    """'m' for ``require('m')`` and ``await import('m')``, else None."""
    if node is not None and node.type == "await_expression" and node.named_children:
        node = node.named_children[0]
    if node is None or node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if fn is None or (fn.type != "import" and text(fn) != "require"):
        return None
    args = js_routes.arguments(node.child_by_field_name("arguments"))
    return string_value(args[0]) if args else None


class JsModuleWalker(Walker):
    """Imports and exports; subclasses add definitions and expressions."""

    handlers: ClassVar[dict[str, str]] = {
        "import_statement": "on_import",
        "export_statement": "on_export",
        "comment": "on_above",
    }

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        super().__init__(facts, source)
        self.express = js_routes.ExpressTracker(facts)
        self.function_depth = 0
        self.class_depth = 0
        self.export_next = False
        self.pending_decorators: list[Node] = []
        self.export_names: set[str] = set()
        self.export_node: Node | None = None  # the export statement being walked
        self.export_target: Node | None = None  # and its declaration
        self.whole: str | None = None  # X of ``module.exports = X`` (module level)
        self.exports_rebound = False  # ``exports = module.exports = X``

    # -- helpers -------------------------------------------------------------------------

    def take_export(self) -> bool:
        exported, self.export_next = self.export_next, False
        return exported

    def anchor(self, node: Node) -> Node:
        """The ``export`` statement around a declaration being exported, else the node."""
        if self.export_target is not None and node.id == self.export_target.id:
            return self.export_node or node
        return node

    def doc(self, node: Node) -> str:
        comments = [c for c in self.leading(self.anchor(node)) if c.type == "comment"]
        last = text(comments[-1]) if comments else ""
        return clean_block_doc(last) if last.startswith("/**") else ""

    def sig(self, node: Node, body: Node | None) -> str:
        start = self.anchor(node)
        first = next((c for c in start.children if c.type not in {"decorator", "comment"}), start)
        return self.signature(first, body, node)

    def import_(self, module: str, name: str, alias: str, node: Node) -> None:
        self.add_import(module, name, alias, node)
        self.express.note_import(module, name, alias)

    # -- imports and exports ---------------------------------------------------------------

    def on_import(self, node: Node) -> None:
        source = string_value(node.child_by_field_name("source"))
        for child in node.named_children:
            if child.type == "import_require_clause":
                names = [c for c in child.named_children if c.type == "identifier"]
                module = string_value(child.child_by_field_name("source")) or ""
                self.import_(module, "", text(names[0]) if names else "", node)
            elif child.type == "import_clause" and source is not None:
                self.import_clause(source, child, node)
        bare = not any(c.type in {"import_clause", "import_require_clause"} for c in node.children)
        if source is not None and bare:
            self.import_(source, "", "", node)

    def import_clause(self, source: str, clause: Node, node: Node) -> None:
        for part in clause.named_children:
            if part.type == "identifier":
                self.import_(source, "default", text(part), node)
            elif part.type == "namespace_import":
                names = part.named_children
                self.import_(source, "", text(names[0]) if names else "", node)
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type == "import_specifier":
                        name = text(spec.child_by_field_name("name"))
                        alias = spec.child_by_field_name("alias")
                        self.import_(source, name, text(alias) if alias else name, node)

    def on_export(self, node: Node) -> None:
        source = string_value(node.child_by_field_name("source"))
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        self.pending_decorators = [c for c in node.named_children if c.type == "decorator"]
        for decorator in self.pending_decorators:
            self.note_above(decorator)
        for child in node.named_children:
            if child.type == "export_clause":
                self.export_clause(source, child, node)
            elif child.type == "namespace_export" and source is not None:
                alias = text(child.named_children[0]) if child.named_children else ""
                self.import_(source, "", alias, node)
                self.facts.exports.append(alias)
        if source is not None and not any(
            c.type in {"export_clause", "namespace_export"} for c in node.named_children
        ):
            self.import_(source, "*", "", node)
        if declaration is not None:
            if any(c.type == "default" for c in node.children):
                name = declaration.child_by_field_name("name")
                self.default_export(text(name) if name is not None else "", declaration)
            self.export_next = True
            saved = self.export_node, self.export_target
            self.export_node, self.export_target = node, declaration
            self.visit(declaration)
            self.export_node, self.export_target = saved
        elif value is not None:
            self.export_default(value)
        self.pending_decorators = []

    def export_clause(self, source: str | None, clause: Node, node: Node) -> None:
        for spec in clause.named_children:
            if spec.type != "export_specifier":
                continue
            name = text(spec.child_by_field_name("name"))
            alias_node = spec.child_by_field_name("alias")
            alias = text(alias_node) if alias_node is not None else name
            self.facts.exports.append(alias)
            if source is not None:
                self.import_(source, name, alias, node)
            else:
                self.export_names.add(name)

    def default_export(self, name: str, node: Node) -> None:
        """``export default name``: 'default' is exported and bound to ``name``."""
        self.facts.exports.append("default")
        if name:
            self.export_names.add(name)
            alias = Assignment("default", "=" + name, "", line(node), False)  # '=': an alias
            self.facts.assignments.append(alias)
        if name in self.express.routers:  # importers mount 'default': it is this router
            self.facts.mounts.append(Mount("default", name, "", line(node), "express"))

    def export_default(self, value: Node) -> None:
        name = value if value.type == "identifier" else value.child_by_field_name("name")
        self.default_export(text(name) if name is not None else "", value)
        if name is not None and value.type != "identifier":
            self.export_next = True  # ``export default class X {}``: X is exported
        self.visit(value)

    def destructured_require(self, module: str, pattern: Node, node: Node) -> None:
        for part in pattern.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                self.import_(module, text(part), text(part), node)
            elif part.type == "pair_pattern":
                key = text(part.child_by_field_name("key"))
                self.import_(module, key, text(part.child_by_field_name("value")), node)

    def commonjs_export(self, target: str, right: Node) -> None:
        left = right.child_by_field_name("left") if right.type == "assignment_expression" else None
        if target == "exports" and left is not None and text(left) == "module.exports":
            self.exports_rebound = True  # ``exports = module.exports = f``: exports.x is f.x
        if target in EXPORTS_OBJECTS:
            if right.type in _DEFAULT_VALUES:  # a function or class: its own name, if any
                named = right if right.type == "identifier" else right.child_by_field_name("name")
                self.default_export(text(named), right)
                if named is not None and target == "module.exports" and not self.function_depth:
                    self.whole_export(text(named), right)
            elif right.type == "object":
                for prop in right.named_children:
                    key = prop.child_by_field_name("key") if prop.type == "pair" else prop
                    if prop.type in {"pair", "shorthand_property_identifier"} and key is not None:
                        self.facts.exports.append(text(key))
                        self.export_names.add(text(key))
                        value = prop.child_by_field_name("value") if prop.type == "pair" else prop
                        if target == "module.exports" and value is not None:
                            self.member_export(f"module.exports.{text(key)}", text(key), value)
        elif target.startswith(("exports.", "module.exports.")):
            member = target.rsplit(".", 1)[-1]
            self.facts.exports.append(member)
            self.export_names.add(member)
            self.member_export(target, member, right)

    def member_export(self, target: str, member: str, right: Node) -> None:
        """``exports.m = v`` at module level: ``exports.m`` -> ``=v`` (``=m`` for a function
        defined there), what ``require(this).m`` is. After ``module.exports = f`` it is
        ``f.m`` through ``module.exports.m``, or ``exports.m`` when ``exports`` was rebound
        to ``f`` too; else it was set on an object nothing exports, and is not recorded."""
        direct = target in {f"exports.{member}", f"module.exports.{member}"}
        if self.function_depth or self.class_depth or not direct or self.export_lost(target):
            return
        if right.type in _DEFAULT_VALUES - {"identifier"} or right.type == "generator_function":
            value = member
        elif right.type in {"identifier", "member_expression", "shorthand_property_identifier"}:
            value = text(right)
        else:
            return
        alias = Assignment(f"exports.{member}", "=" + value, "", line(right), False)
        self.facts.assignments.append(alias)

    def export_lost(self, target: str) -> bool:
        """``exports.m =`` after ``module.exports = f`` without ``exports`` rebound to ``f``:
        set on the original exports object, which ``require()`` no longer gives."""
        return self.whole is not None and not (target.startswith("module.") or self.exports_rebound)

    def whole_export(self, name: str, node: Node) -> None:
        """``module.exports = name``: what ``require()`` of this file gives, whatever else
        it exports (``exports.x =`` after ``exports = module.exports = f`` is ``f.x``)."""
        alias = Assignment("module.exports", "=" + name, "", line(node), False)
        self.facts.assignments.append(alias)
        self.whole = name

    def on_skip(self, node: Node) -> None:
        return

    def walk_function(self, name: str, node: Node) -> None:
        """Parameters and body of a named function, inside its scope."""
        with self.enter(name):
            self.function_depth += 1
            self.visit(node.child_by_field_name("parameters"))
            self.visit(node.child_by_field_name("body"))
            self.function_depth -= 1
