"""Lua facts: functions, tables as classes and modules, ``require``, metatables, calls.

Conventions:

- a table made at file level (``local Cart = {}``, ``Cart = setmetatable({}, ...)``) is a
  definition: kind 'module' when the file ends with ``return`` of it (a module table),
  else 'class'. ``function Cart.new()`` is the function ``Cart.new``, ``function
  Cart:add()`` the method ``Cart.add`` (``self`` is a ``Cart``); ``Cart.x = function``
  the same; ``local function f`` and ``function f`` are functions (a ``local`` one is not
  exported); ``Cart.LIMIT = 10`` is a 'variable'.
- a table constructor assigned to a name (``Cart = {add = function(self) end}``, also the
  first argument of ``setmetatable({...}, mt)``, which returns it) defines its fields
  ``name = function`` and ``["name"] = function`` as the function ``Cart.add``, as
  ``Cart.add = function`` would (the manual: ``name = exp`` is ``["name"] = exp``); a
  nested constructor's fields are ``Cart.sub.f``. A ``[key]`` that is not a string
  names nothing; neither does a table that is not assigned to a name.
- docs: the ``--`` (``---`` LDoc) comment lines right above; the file's doc is the
  comment block opening the file.
- a file-level name given ``:`` methods but set to no table constructor (``local List =
  utils.stdmt.List``, ``local Date = class()``; a field: ``Date.Format = class()``) is a
  class too, defined where it is first set; so is one given functions (``local M =
  strict.module(...)``, ``function M.f()``: a module table), unless a ``require`` binds it
  or it is a standard library table (``function table.pack``, a polyfill).
- Penlight (``lua_penlight``): at file level, ``class(Base)``, ``class.Name(Base)``,
  ``class(Base, nil, T)`` and ``class{_base = Base, ...}`` of ``require 'pl.class'`` make
  a class deriving from Base (a Supertype edge, 'extends'); ``utils.import(m)`` of
  ``require 'pl.utils'`` records an import of ``m`` aliased ``*`` (its fields are globals).
- ``for k, v in pairs(src) do t[k] = v end`` at file level: an assignment of '=src' to the
  field ``*`` of ``t`` (``t`` has every field of ``src``; the resolver reads it after t's
  own).
- imports: ``local cart = require("shop.cart")`` (also ``require "x"``) -> module
  'shop.cart', name '', alias 'cart'; a module returning its table binds that table.
  ``local eq = require("pl.test").asserteq`` -> name 'asserteq', alias 'eq': the field of
  the table the module returns.
- bases: ``setmetatable(Child, {__index = Base})`` and ``Child = setmetatable({},
  {__index = Base})`` -> a Supertype edge ``Child`` -> ``Base`` ('extends').
- calls: ``f()``, ``a.b.c()``, ``obj:m()`` -> ``obj.m``, ``self:m()`` -> ``self.m``.
- assignments (every setting of a name, each with the span its local declaration is seen
  in, ``lua_scopes``; a global's has none): ``local f = utils.f`` -> '=utils.f' (an alias);
  ``local c = Cart(...)`` / ``Cart.new(...)`` -> the callee (what calling it gives);
  ``setmetatable(o, Cart)`` -> 'Cart'; anything else, parameters and loop variables ->
  OPAQUE (they hide outer names, nothing proven). A function whose every ``return`` gives
  ``setmetatable(o, Cart)`` (or a local only set one way) gives that: ``new()`` = 'Cart'
  in its table's scope, read by the resolver as for JS/TS.
- ``resolve_module``: ``a.b`` -> ``a/b.lua`` or ``a/b/init.lua`` under the repository
  root, ``lua/``, ``src/`` or ``lib/``, else the only file ending so; anything else -> [].
"""

from __future__ import annotations

import re
from typing import ClassVar

from tree_sitter import Node

from clawql_git.codegraph.lua_classes import TableNaming, classes, parent_of
from clawql_git.codegraph.lua_penlight import CLASS_MODULE, PENLIGHT, Made, class_call
from clawql_git.codegraph.lua_resolve import LuaCalls
from clawql_git.codegraph.lua_scopes import FIELD, Blocks, Point, Span
from clawql_git.codegraph.lua_syntax import (
    COPY,
    copied_fields,
    dotted,
    end_of,
    field_name,
    is_call_of,
    made_table,
    metatable_base,
    required,
    start_of,
    string_arg,
)
from clawql_git.codegraph.model import Assignment, FileFacts, RepoView, SymbolKind
from clawql_git.codegraph.ts_util import (
    Parsers,
    collapse,
    end_line,
    line,
    text,
    walk_file,
)

_ROOTS = ("", "lua/", "src/", "lib/")
OPAQUE = "?"  # the value of a name nothing proves (the resolver reads no type from it)


def _languages() -> dict[str, object]:
    import tree_sitter_lua

    return {"lua": tree_sitter_lua.language}


class LuaWalker(TableNaming):
    """One pass over a Lua tree."""

    handlers: ClassVar[dict[str, str]] = {
        "function_declaration": "on_function",
        "variable_declaration": "on_local",
        "assignment_statement": "on_assign",
        "function_call": "on_call",
        "comment": "on_above",
        "table_constructor": "on_table",
        "function_definition": "on_lambda",
        "for_statement": "on_loop",
        "block": "on_block",
        "return_statement": "on_return",
    }

    def __init__(self, facts: FileFacts, source: bytes, returned: str = "") -> None:
        super().__init__(facts, source)
        self.returned = returned  # the table the file returns
        self.local = False
        self.owners: dict[int, str] = {}  # id of a table constructor -> the name it has
        # the functions being walked (the file first), each with the locals it declares
        self.frames: list[tuple[str, set[str]]] = [("", set())]
        self.blocks = Blocks()  # where each local is seen
        # per function walked: what each return gives (a local: its name and declaration)
        self.returns: list[list[str | tuple[str, Span]]] = [[]]
        self.held: dict[tuple[str, str, Span], set[str]] = {}  # a local's values, as set
        # a file-level name -> the statement first setting it, and whether it is a local
        self.named: dict[str, tuple[Node, bool]] = {}
        self.chunk_names: set[str] = set()  # those set outside every function
        self.modules: dict[str, str] = {}  # a file-level local -> the module it requires
        self.made: dict[str, tuple[Made, Node]] = {}  # classes ``pl.class`` makes here
        self.everything = False  # ``require 'pl'`` at file level: Penlight's modules global

    def on_function(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        qual = dotted(name_node)
        local = text(node).startswith("local")
        self.define_function(node, qual, name_node, local, node)

    def define_function(
        self, node: Node, qual: str, name_node: Node | None, local: bool, fn: Node, head: str = ""
    ) -> None:
        """``qual`` (``a.b.f``) defined by ``fn``, spanning ``node``; its signature shows
        ``head`` (else the name as written) and its parameters."""
        if not qual:
            self.visit(fn.child_by_field_name("body"))
            return
        if local and "." not in qual:
            self.frames[-1][1].add(qual)  # a later ``qual = v`` sets this local
            self.blocks.declare(qual, start_of(node))  # seen in its own body too
        owner, _, name = qual.rpartition(".")
        method = name_node is not None and name_node.type == "method_index_expression"
        params = fn.child_by_field_name("parameters")
        head = head or (text(name_node) if name_node is not None else qual)
        signature = collapse(f"function {head}{text(params) if params is not None else '()'}")
        if local:
            signature = "local " + signature
        kind: SymbolKind = "method" if method else "function"
        parts = owner.split(".") if owner else []
        self.scope.extend(parts)
        self.add_symbol(
            node,
            name,
            kind,
            signature=signature,
            docstring=self.doc(node),
            exported=not local and not self.sets_local(qual),
        )
        with self.enter(name):
            self.frames.append((self.qualname, set()))
            self.returns.append([])
            self.blocks.open(self.qualname, end_of(fn))
            self.hide_names(params, start_of(fn))
            self.visit(fn.child_by_field_name("body"))
            self.blocks.close()
            self.record_returns(name)
            self.frames.pop()
        del self.scope[len(self.scope) - len(parts) :]

    def sets_local(self, qual: str) -> bool:
        """Does ``function qual()`` set a local seen here (``local f; function f()``: the
        manual, §3.4.11, ``function f`` is ``f = function``), not a global?"""
        return "." not in qual and self.blocks.visible(qual) is not None

    def hide_names(self, names: Node | None, start: Point) -> None:
        """Parameters and loop variables, seen from ``start``: locals whose values nothing
        proves (they hide a function or alias of the same name further out)."""
        for name in names.children_by_field_name("name") if names is not None else ():
            self.hold(text(name), OPAQUE, name, True, start)

    def on_block(self, node: Node) -> None:
        """A block (a body): the locals declared in it are seen up to its end."""
        self.blocks.open(self.qualname, end_of(node))
        self.visit_children(node)
        self.blocks.close()

    def on_lambda(self, node: Node) -> None:
        """An unnamed ``function (...) ... end``: its calls are its enclosing function's, its
        parameters hide names there (conservatively: only inside it in Lua)."""
        self.blocks.open(self.qualname, end_of(node))
        self.hide_names(node.child_by_field_name("parameters"), start_of(node))
        self.returns.append([])  # its returns are its own
        self.visit(node.child_by_field_name("body"))
        self.returns.pop()
        self.blocks.close()

    def on_return(self, node: Node) -> None:
        """``return setmetatable(o, Cart)`` (or of a local only ever set so): the function
        gives a ``Cart``; any other return (``return nil, err`` too) proves nothing."""
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        first = next(iter(values.named_children), None) if values is not None else None
        made: str | tuple[str, Span] = (
            self.constructed(first) if first is not None and first.type == "function_call" else ""
        )
        seen = self.blocks.visible(text(first)) if first is not None else None
        if first is not None and first.type == "identifier":
            local = seen is not None and seen[0] == self.qualname
            made = (text(first), seen[1]) if seen is not None and local else ""  # read at the end
        self.returns[-1].append(made)
        self.visit_children(node)

    def record_returns(self, name: str) -> None:
        """What the function being left gives, when all its returns agree, as the value of
        ``name()`` in its scope's parent (what the resolver reads, as for JS/TS)."""
        found = {self.returned_by(made) for made in self.returns.pop()}
        made = found.pop() if len(found) == 1 else ""
        head = made.split(".")[0]
        if made and head not in self.frames[-1][1]:  # a local here means nothing outside
            owner = parent_of(self.qualname)
            self.facts.assignments.append(Assignment(name + "()", made, owner, 0))

    def returned_by(self, made: str | tuple[str, Span]) -> str:
        """A returned local of this function only ever set to ``setmetatable(o, Cart)``:
        ``Cart``; another returned name: ''."""
        if isinstance(made, str):
            return made
        held = self.held.get((self.qualname, *made), set())
        value = next(iter(held)) if len(held) == 1 else ""
        return value if value and not value.startswith("=") and value != OPAQUE else ""

    def on_loop(self, node: Node) -> None:
        """``for k, v in ...`` / ``for i = a, b``: the loop variables hide outer names in
        the loop's body."""
        clause = node.child_by_field_name("clause")
        into, copied = copied_fields(node) if self.in_chunk() else ("", "")
        if into:  # every field of ``copied`` set on ``into`` (looked up after its own)
            self.facts.assignments.append(
                Assignment(COPY, "=" + copied, into, line(node), span=FIELD)
            )
        if clause is not None:
            self.visit_children(clause)  # the expressions, read outside the loop
        self.blocks.open(self.qualname, end_of(node))
        if clause is not None:
            variables = next((c for c in clause.named_children if c.type == "variable_list"), None)
            self.hide_names(variables if variables is not None else clause, end_of(clause))
        self.visit(node.child_by_field_name("body"))
        self.blocks.close()

    def on_local(self, node: Node) -> None:
        saved, self.local = self.local, True
        unset = next((c for c in node.named_children if c.type == "variable_list"), None)
        for name in unset.children_by_field_name("name") if unset is not None else ():
            self.frames[-1][1].add(text(name))  # ``local x, y``: nil until set (no value)
            self.blocks.declare(text(name), end_of(node))
        self.visit_children(node)
        self.local = saved

    def on_assign(self, node: Node) -> None:
        targets = next((c for c in node.named_children if c.type == "variable_list"), None)
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        names = targets.children_by_field_name("name") if targets is not None else []
        exprs = list(values.named_children) if values is not None else []
        local, self.local = self.local, False
        for i, target in enumerate(names):
            value = exprs[i] if i < len(exprs) else None
            self.bind(dotted(target), target, value, local, node)
        for value in exprs:
            if value.type != "function_definition" and not required(value)[0]:
                self.visit(value)  # a bound require is an import with its alias already

    def bind(self, target: str, at: Node, value: Node | None, local: bool, stmt: Node) -> None:
        """One ``target = value`` of an assignment statement."""
        if not target:
            return
        if not self.scope and "." not in target:
            self.named.setdefault(target, (stmt, local))
            if self.in_chunk():
                self.chunk_names.add(target)
        if value is None:
            self.hold(target, OPAQUE, stmt, local)  # ``local a, b = f()``: b is unproven
            return
        if value.type == "function_definition":
            self.define_function(stmt, target, at, local, value)
            return
        file_level = not self.scope
        table = made_table(value)
        if table is not None:
            self.owners[table.id] = target  # its fields are defined when it is walked
        if value.type == "table_constructor" or is_call_of(value, "setmetatable"):
            if file_level and "." not in target:
                self.define_table(stmt, target, value, local)
                return  # the name denotes the table defined
        elif file_level and "." in target and "__" not in target:
            owner, _, name = target.rpartition(".")
            parts = owner.split(".")
            self.scope.extend(parts)
            self.add_symbol(
                stmt, name, "variable", signature=collapse(text(stmt)), docstring=self.doc(stmt)
            )
            del self.scope[len(self.scope) - len(parts) :]
        module, member = required(value)
        if module:
            self.add_import(module, member, target, stmt)
            if self.in_chunk() and not member and "." not in target:
                self.modules[target] = module
            if local and "." not in target:
                self.frames[-1][1].add(target)
                self.blocks.declare(target, end_of(stmt))  # a later ``target = v`` sets it
        elif value.type == "function_call":
            classes = self.aliases(CLASS_MODULE) if self.in_chunk() else set()
            pl_class = class_call(value, classes, target)
            if pl_class is not None:
                self.make_class(pl_class, stmt)
            made = self.constructed(value)
            held = made or dotted(value.child_by_field_name("name")) or OPAQUE
            self.hold(target, held, stmt, local)
        elif value.type != "table_constructor" or self.scope or "." in target:
            held = dotted(value)
            self.hold(target, "=" + held if held else OPAQUE, stmt, local)

    def hold(
        self, target: str, value: str, at: Node, local: bool, start: Point | None = None
    ) -> None:
        """A name (not a field) set to ``value``: '=a.b' (an alias of what ``a.b`` is), the
        callee of a call (what calling it gives: a class's instance) or OPAQUE (nothing
        proven). Every setting is kept, in the scope of the function declaring the name
        (``local``: this one; else the innermost declaring it, else the file: a global), so
        a name set in two ways resolves to nothing. A field (``Map.len = tablex.size``) is
        kept as the name ``len`` of the scope ``Map``, seen by no lookup of a local
        (``FIELD``); set inside a function, it is OPAQUE (its value is read there)."""
        if not target:
            return
        if "." in target:
            owner, _, name = target.rpartition(".")
            if owner.split(".")[0] not in ("self", "_G", "_ENV"):
                held = OPAQUE if self.scope else value
                self.facts.assignments.append(Assignment(name, held, owner, line(at), span=FIELD))
            return
        if local:
            self.frames[-1][1].add(target)
            self.blocks.declare(target, start or end_of(at))
        where, span = self.blocks.visible(target) or ("", ())  # none: a global
        self.facts.assignments.append(Assignment(target, value, where, line(at), span=span))
        self.held.setdefault((where, target, span), set()).add(value)

    def on_table(self, node: Node) -> None:
        """A table constructor: the fields of one assigned to a name are its definitions."""
        owner = self.owners.pop(node.id, "")
        if not owner:
            self.visit_children(node)
            return
        for field in node.named_children:
            value = field.child_by_field_name("value")
            name = field_name(field) if field.type == "field" else ""
            if not name or value is None:
                self.visit(field)
            elif value.type == "function_definition":
                qual = f"{owner}.{name}"
                self.define_function(field, qual, None, False, value, head=qual)
            else:
                if value.type == "table_constructor":
                    self.owners[value.id] = f"{owner}.{name}"
                self.visit(field)

    def constructed(self, call: Node) -> str:
        """The table an object is made from: ``Cart.new()`` / ``Cart:new()`` /
        ``setmetatable({}, Cart)`` -> ``Cart``; '' otherwise."""
        callee = dotted(call.child_by_field_name("name"))
        if callee == "setmetatable":  # returns its first argument, Cart its metatable
            args = call.child_by_field_name("arguments")
            items = args.named_children if args is not None else []
            if len(items) == 2:
                return dotted(items[1]) or metatable_base(items[1])
        return ""

    def define_table(self, stmt: Node, name: str, value: Node, local: bool) -> None:
        base = ""
        if is_call_of(value, "setmetatable"):
            args = value.child_by_field_name("arguments")
            items = args.named_children if args is not None else []
            base = metatable_base(items[1]) if len(items) == 2 else ""
        symbol = self.add_symbol(
            stmt,
            name,
            "module",  # a class once it has methods or a metatable (see ``classes``)
            signature=collapse(("local " if local else "") + text(stmt)),
            docstring=self.doc(stmt),
            exported=not local or name == self.returned,
            bases=(base,) if base else (),
        )
        if base:
            self.add_supertype(symbol.qualname, base, value, "extends")

    def on_call(self, node: Node) -> None:
        callee = dotted(node.child_by_field_name("name"))
        if callee == "require":
            module = string_arg(node)
            if module:
                self.add_import(module, "", "", node)
            self.everything = self.everything or (module == PENLIGHT and self.in_chunk())
            return
        if self.in_chunk():
            self.penlight_call(node)
        if callee == "setmetatable" and not self.scope:
            args = node.child_by_field_name("arguments")
            items = args.named_children if args is not None else []
            child = dotted(items[0]) if items else ""
            base = metatable_base(items[1]) if len(items) == 2 else ""
            if child and base:
                self.add_supertype(child, base, node, "extends")
                self.extend_bases(child, base)
        self.add_call(callee, node)
        name = node.child_by_field_name("name")
        if name is not None and not dotted(name):
            self.visit(name)
        self.visit(node.child_by_field_name("arguments"))


_RETURN = re.compile(rb"(?:^|\n)\s*return\s+([A-Za-z_]\w*)\s*;?\s*$")


def returned_table(source: bytes) -> str:
    """The name a file returns at its end (``return M``): its module table."""
    found = _RETURN.search(source[-512:])
    return found.group(1).decode() if found else ""


class LuaExtractor:
    """The Lua extractor the code graph loads as ``lang_lua.EXTRACTOR``."""

    version = "9"

    def __init__(self) -> None:
        self.suffixes = {".lua": "lua"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]
        self.call_resolver = LuaCalls  # a callee's head read where the call is (block scopes)

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one Lua file; syntax errors are counted and the rest still extracted."""
        returned = returned_table(source)
        root, facts, walker = walk_file(
            self._parsers,
            path,
            source,
            language,
            lambda f, s: LuaWalker(f, s, returned),
        )
        walker.name_classes()
        walker.made_classes()
        classes(facts)
        if returned:  # what `require` of this file gives
            facts.exports = ["default"]
            facts.assignments.append(Assignment("default", "=" + returned, "", 0))
        facts.module_doc = _opening_comment(root)
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """The file ``require`` of ``module`` loads from the repository; [] for others."""
        if not module:
            return []
        as_path = module if "/" in module else module.replace(".", "/")
        for root in _ROOTS:
            for candidate in (f"{root}{as_path}.lua", f"{root}{as_path}/init.lua"):
                if candidate in repo.files:
                    return [candidate]
        tails = sorted(f for f in repo.files if f.endswith(f"/{as_path}.lua"))
        return tails if len(tails) == 1 else []


def _opening_comment(root: Node) -> str:
    lines = []
    expected = 1
    for child in root.named_children:
        if child.type != "comment" or line(child) != expected:
            break
        raw = text(child).lstrip("-")
        lines.append(raw[1:] if raw.startswith(" ") else raw)
        expected = end_line(child) + 1
    return "\n".join(lines).strip()


EXTRACTOR = LuaExtractor()
