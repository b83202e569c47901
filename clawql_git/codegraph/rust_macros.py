"""Functions a ``macro_rules!`` macro of the file defines where it is invoked as an item
(The Rust Reference, macros by example): ``top_level_handler_fn!(get, GET);`` defines ``fn
get`` when every rule of the macro binds its first fragment ``$name:ident`` (after optional
``$(#[$m:meta])*`` attributes) and expands either to ``fn $name ...`` or to an invocation of
the macro itself. Other macros are not read."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from clawql_git.codegraph.ts_util import collapse, text

_SKIPPED = frozenset({"line_comment", "block_comment"})
_HEADER_END = frozenset({"where", ";"})


@dataclass(frozen=True)
class FnMacro:
    """A macro whose invocation ``m!(name, ...)`` defines function ``name``: its header as the
    defining rule writes it, with ``$name`` for the name (``pub fn $name<H>(h: H) -> R``)."""

    variable: str  # ``$name``
    header: str
    returns: str  # the return type as written, '' for none
    public: bool


def fn_macro(definition: Node) -> FnMacro | None:
    """The :class:`FnMacro` a ``macro_rules!`` definition is, if it is one."""
    rules = [c for c in definition.named_children if c.type == "macro_rule"]
    variables = {_first_binding(r.child_by_field_name("left")) for r in rules}
    if len(variables) != 1 or None in variables:
        return None
    variable = variables.pop() or ""
    name = text(definition.child_by_field_name("name"))
    found = None
    for rule in rules:
        body = rule.child_by_field_name("right")
        defined = _defining(body, variable)
        if defined is None and not _recursive(body, name):
            return None  # a rule that expands to something else (a struct named $name?)
        found = found or defined
    return found


def _recursive(body: Node | None, name: str) -> bool:
    """Whether an expansion is only an invocation of the macro itself (``m!(..);``)."""
    inner = body.children[1:-1] if body is not None else []
    tokens = [c for c in inner if c.type not in _SKIPPED]
    kinds = [c.type for c in tokens]
    return (
        kinds[:3] == ["identifier", "!", "token_tree"]
        and text(tokens[0]) == name
        and (kinds[3:] in ([], [";"]))
    )


def generated_name(invocation: Node) -> str:
    """The first argument of an invocation, ``get`` of ``m!(/// doc\\n get, GET)``, when it
    is one identifier ('' otherwise)."""
    tree = next((c for c in invocation.named_children if c.type == "token_tree"), None)
    tokens = [c for c in tree.children[1:-1] if c.type not in _SKIPPED] if tree else []
    while len(tokens) >= 2 and tokens[0].type == "#" and tokens[1].type == "token_tree":
        tokens = tokens[2:]  # ``#[doc = ..]``
    if tokens and tokens[0].type == "identifier" and (len(tokens) == 1 or tokens[1].type == ","):
        return text(tokens[0])
    return ""


def _first_binding(pattern: Node | None) -> str | None:
    """``$name`` of a matcher ``($(#[$m:meta])+ $name:ident, ...)``, else None."""
    children = [
        c for c in (pattern.named_children if pattern is not None else []) if c.type not in _SKIPPED
    ]
    while children and children[0].type == "token_repetition_pattern":
        children = children[1:]  # the attributes passed through
    if not children or children[0].type != "token_binding_pattern":
        return None
    binding = children[0]
    fragment = binding.child_by_field_name("type")
    name = next((c for c in binding.named_children if c.type == "metavariable"), None)
    if name is None or fragment is None or text(fragment) != "ident":
        return None
    return text(name)


def _defining(body: Node | None, variable: str) -> FnMacro | None:
    """The function header of an expansion ``pub fn $name<..>(..) -> R where .. { .. }``."""
    if body is None:
        return None
    tokens = body.children
    for i, token in enumerate(tokens[:-1]):
        if token.type == "fn" and tokens[i + 1].type == "metavariable":
            if text(tokens[i + 1]) != variable:
                return None
            header = [token]
            for nxt in tokens[i + 1 :]:
                if nxt.type in _HEADER_END or text(nxt).startswith("{"):
                    break
                header.append(nxt)
            source = body.text or b""
            start, end = header[0].start_byte - body.start_byte, header[-1].end_byte
            written = collapse(source[start : end - body.start_byte].decode("utf-8", "replace"))
            returns = written.split("->", 1)[1].strip() if "->" in written else ""
            returns = "" if "$" in returns else returns  # a type the invocation writes
            public = i > 0 and tokens[i - 1].type in {"pub", "visibility_modifier"}
            return FnMacro(variable, ("pub " if public else "") + written, returns, public)
    return None
