"""Penlight's class and import calls, read off tree-sitter nodes: what ``pl.class`` makes and
what ``pl.utils``'s ``import`` brings into a file's globals.

From Penlight's reference (``pl.class``, ``pl.utils``):

- ``class(base, c_arg, c)`` returns a new class (``c`` when given), derived from ``base``;
  ``class.Name(base)`` makes one and sets it as the global ``Name`` of the calling
  environment; a plain table given as ``base`` (``class{_base = A, m = function ...}``,
  ``class.Name{...}``) is the class itself, its ``_base`` field the base. The class copies
  its base's methods when it is made, and calling the class makes an instance.
- ``require 'pl'`` makes each of its modules (``pl.import_into``'s list) the global of its
  name, loaded when first read: ``utils`` is ``require 'pl.utils'``, ``List`` ``require
  'pl.List'``.
- ``utils.import(t)``: every field of ``t`` (a table, or the name of a module to
  ``require``) becomes a global of the calling environment; ``utils.import(t, T)`` copies
  into ``T`` instead (no globals).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from clawql_git.codegraph.lua_syntax import dotted, field_name
from clawql_git.codegraph.ts_util import text

PENLIGHT = "pl"
_MODULES = (
    "utils path dir tablex stringio sip input seq lexer stringx config pretty data func "
    "text operator lapp array2d comprehension xml types test app file class luabalanced "
    "permute template url compat List Map Set OrderedMap MultiMap Date"
)
PL_GLOBALS = frozenset(_MODULES.split())  # ``pl.import_into``'s modules
CLASS_MODULE = "pl.class"
UTILS_MODULE = "pl.utils"
STAR = "*"  # the alias of an import whose fields are globals (``utils.import``)


@dataclass(frozen=True)
class Made:
    """A class ``pl.class`` makes: its name, its base as written ('' for none), the table
    constructor defining its fields (None when none is given)."""

    name: str
    base: str
    table: Node | None


def arguments(call: Node) -> list[Node]:
    """The arguments of ``f(a, b)``; ``f{...}`` / ``f"..."`` have the one."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    if args.type in ("table_constructor", "string"):
        return [args]
    return list(args.named_children)


def plain_base(table: Node) -> str:
    """The ``_base`` field of a table constructor given to ``class``, as a dotted name."""
    for field in table.named_children:
        if field.type == "field" and field_name(field) == "_base":
            return dotted(field.child_by_field_name("value"))
    return ""


def made_from(name: str, args: list[Node]) -> Made:
    """The class ``name`` made by a ``class(...)`` call with ``args`` (its first the base or
    the plain table of the class)."""
    first = args[0] if args else None
    if first is not None and first.type == "table_constructor":
        return Made(name, plain_base(first), first)
    return Made(name, dotted(first), None)


def class_call(call: Node, aliases: set[str], target: str = "") -> Made | None:
    """The class a call of ``pl.class`` (bound to one of ``aliases``) makes: ``target =
    class(Base)``, ``class(Base, nil, Target)``, ``class.Name(Base)``; None for other
    calls, and for a ``class(...)`` whose result is not named."""
    callee = dotted(call.child_by_field_name("name"))
    head, _, rest = callee.partition(".")
    if head not in aliases or "." in rest or rest in ("properties", "class"):
        return None
    args = arguments(call)
    if rest:
        return made_from(rest, args)
    into = dotted(args[2]) if len(args) == 3 else ""
    name = into or target
    if not name:
        return None
    if into:  # the class is the given table; a plain table base is then no table of it
        return Made(name, dotted(args[0]), None)
    return made_from(name, args)


def imported_globals(call: Node, aliases: set[str], modules: dict[str, str]) -> str:
    """The module whose fields ``utils.import(m)`` makes globals (``m`` a module's name or a
    local bound to one by ``require``, in ``modules``); '' for other calls."""
    callee = dotted(call.child_by_field_name("name"))
    head, _, rest = callee.partition(".")
    args = arguments(call)
    if head not in aliases or rest != "import" or len(args) != 1:
        return ""
    arg = args[0]
    if arg.type == "string":
        content = arg.child_by_field_name("content")
        return text(content) if content is not None else ""
    return modules.get(text(arg), "") if arg.type == "identifier" else ""
