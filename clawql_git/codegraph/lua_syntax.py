"""Lua syntax read off tree-sitter nodes: dotted names, ``require`` arguments, table
constructors and their fields, metatables, positions."""

from __future__ import annotations

import re

from tree_sitter import Node

from clawql_git.codegraph.lua_scopes import Point
from clawql_git.codegraph.ts_util import text


def dotted(node: Node | None) -> str:
    """``a.b.c`` / ``a:b`` -> ``a.b.c`` / ``a.b``; '' for other expressions."""
    if node is None:
        return ""
    if node.type == "identifier":
        return text(node)
    if node.type == "dot_index_expression":
        head = dotted(node.child_by_field_name("table"))
        field = node.child_by_field_name("field")
        return f"{head}.{text(field)}" if head and field is not None else ""
    if node.type == "method_index_expression":
        head = dotted(node.child_by_field_name("table"))
        method = node.child_by_field_name("method")
        return f"{head}.{text(method)}" if head and method is not None else ""
    return ""


def string_arg(call: Node) -> str:
    """The literal string argument of ``f("x")`` / ``f "x"``; '' otherwise."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return ""
    first = args if args.type == "string" else next(iter(args.named_children), None)
    if first is None or first.type != "string":
        return ""
    content = first.child_by_field_name("content")
    return text(content) if content is not None else ""


def is_call_of(node: Node | None, name: str) -> bool:
    return (
        node is not None
        and node.type == "function_call"
        and text(node.child_by_field_name("name")) == name
    )


def start_of(node: Node) -> Point:
    return node.start_point[0] + 1, node.start_point[1]


def end_of(node: Node) -> Point:
    return node.end_point[0] + 1, node.end_point[1]


def required(value: Node) -> tuple[str, str]:
    """``require "m"`` -> ('m', ''); ``require("m").f`` (also ``(require "m").f``) -> ('m',
    'f'): the module, and the field of what it returns; ('', '') for other values."""
    if is_call_of(value, "require"):
        return string_arg(value), ""
    if value.type != "dot_index_expression":
        return "", ""
    table = value.child_by_field_name("table")
    while table is not None and table.type == "parenthesized_expression":
        table = next(iter(table.named_children), None)
    field = value.child_by_field_name("field")
    if table is None or field is None or not is_call_of(table, "require"):
        return "", ""
    module = string_arg(table)
    return (module, text(field)) if module else ("", "")


COPY = "*"  # the target of the setting of every field of a table on another (``pairs`` copy)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def field_name(field: Node) -> str:
    """The name a table field is stored under: ``f = v`` and ``["f"] = v`` -> ``f``; ''
    for a positional field, a computed ``[key]`` and a string that is no Lua name."""
    key = field.child_by_field_name("name")
    if key is None:
        return ""
    opening = field.child(0)
    bracketed = opening is not None and opening.type == "["
    if key.type == "identifier" and not bracketed:
        return text(key)
    content = key.child_by_field_name("content") if key.type == "string" else None
    found = text(content) if content is not None and bracketed else ""
    return found if _NAME.match(found) else ""


def made_table(value: Node) -> Node | None:
    """The table constructor an assigned value is: ``{...}`` or ``setmetatable({...}, mt)``
    (which returns its first argument); None for other values."""
    if value.type == "table_constructor":
        return value
    if is_call_of(value, "setmetatable"):
        args = value.child_by_field_name("arguments")
        first = next(iter(args.named_children), None) if args is not None else None
        if first is not None and first.type == "table_constructor":
            return first
    return None


def metatable_base(table: Node | None) -> str:
    """``{__index = Base}`` -> ``Base``; a table itself (``setmetatable(x, Cart)``) -> ''."""
    if table is None or table.type != "table_constructor":
        return ""
    for field in table.named_children:
        if field.type == "field" and text(field.child_by_field_name("name")) == "__index":
            return dotted(field.child_by_field_name("value"))
    return ""


def copied_fields(loop: Node) -> tuple[str, str]:
    """``for k, v in pairs(src) do dst[k] = v end`` -> ('dst', 'src'): every field of
    ``src`` set on ``dst`` (the manual, §6.1: ``pairs`` traverses all fields); ('', '') for
    other loops."""
    clause = loop.child_by_field_name("clause")
    body = loop.child_by_field_name("body")
    if clause is None or body is None or clause.type != "for_generic_clause":
        return "", ""
    names = next((c for c in clause.named_children if c.type == "variable_list"), None)
    values = next((c for c in clause.named_children if c.type == "expression_list"), None)
    keys = [text(n) for n in names.children_by_field_name("name")] if names is not None else []
    call = next(iter(values.named_children), None) if values is not None else None
    src = _pairs_of(call) if call is not None else ""
    stmts = body.named_children
    if len(keys) != 2 or not src or len(stmts) != 1:
        return "", ""
    target, value = _single_assignment(stmts[0])
    if target is None or value != keys[1]:
        return "", ""
    table, key = target.child_by_field_name("table"), target.child_by_field_name("field")
    if table is None or key is None or text(key) != keys[0] or table.type != "identifier":
        return "", ""
    return text(table), src


def _pairs_of(call: Node) -> str:
    """``pairs(src)`` -> 'src' (a dotted name); '' otherwise."""
    args = call.child_by_field_name("arguments") if is_call_of(call, "pairs") else None
    if args is None or args.named_child_count != 1:
        return ""
    return dotted(args.named_children[0])


def _single_assignment(stmt: Node) -> tuple[Node | None, str]:
    """``t[k] = v`` -> (the ``t[k]`` node, 'v'); (None, '') for other statements."""
    if stmt.type != "assignment_statement":
        return None, ""
    targets = next((c for c in stmt.named_children if c.type == "variable_list"), None)
    values = next((c for c in stmt.named_children if c.type == "expression_list"), None)
    names = targets.named_children if targets is not None else []
    exprs = values.named_children if values is not None else []
    if len(names) != 1 or len(exprs) != 1 or names[0].type != "bracket_index_expression":
        return None, ""
    return names[0], text(exprs[0]) if exprs[0].type == "identifier" else ""
