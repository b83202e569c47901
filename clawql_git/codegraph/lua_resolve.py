"""Lua call resolution by where locals are seen, on top of the shared resolver.

The shared :class:`Resolver` reads a name's assignments per function: every local of a
function is one name there, so ``local doc = xml.new()`` in one ``it(function() ... end)``
and ``local doc = xml.elem()`` in the next disagree, and a name stays unresolved. Lua scopes
locals by block (the manual, §3.5: see ``lua_scopes``), and the extractor records the span
each local declaration is seen in; here the head of a callee is the local declared in scope
at the call (the innermost: an inner block's shadows an outer one), its values those set to
that declaration only. A name no local declaration reaches is looked up as the shared
resolver does (a definition, an import, a global); ``self`` too. A global nothing in the
file sets is, last (unless the standard library has a global of that name): a field of a
module ``utils.import`` made globals (``lua_penlight``; the first with the field, as
``import`` overrides no global already set), a global function of a file required at the
top level (running it set the global), a Penlight module after ``require 'pl'``. A field
a table lacks is looked up in the tables a ``pairs`` loop copied onto it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawql_git.codegraph.lua_penlight import PENLIGHT, PL_GLOBALS, STAR
from clawql_git.codegraph.lua_scopes import Point, in_span
from clawql_git.codegraph.lua_syntax import COPY
from clawql_git.codegraph.model import Assignment, Call, Import
from clawql_git.codegraph.resolve import (
    DOTTED,
    SELF_NAMES,
    UNK,
    VARIABLES,
    Entity,
    ResolutionNotes,
)

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver


class LuaCalls:
    """The call resolver ``lang_lua`` brings (``call_resolver``), on a Resolver's facts."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the callee of ``call`` denotes: its head read where the call is."""
        head, *rest = call.callee.split(".")
        if head in SELF_NAMES or not DOTTED.match(call.callee):
            return self.resolver.callee(path, scope, call.callee, ctx)
        entity = self.name(path, scope, head, (call.line, call.column), ctx)
        for part in rest:
            if entity[0] in ("unk", "ext"):
                return entity
            entity = self.field(entity, part, ctx)
        return entity

    def field(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """The field ``name`` of a table: its own, else one a ``for k, v in pairs(src) do
        t[k] = v end`` of its file copied onto it (the last such copy with the field)."""
        found = self.resolver.attribute(entity, name, ctx, 0)
        if found[0] != "unk" or entity[0] != "def":
            return found
        copies = self.resolver.index[entity[1]].assigns.get((entity[2], COPY), [])
        for copy in reversed(copies):
            source = self.resolver.infer(entity[1], "", [copy], ctx, 0)
            copied = self.resolver.attribute(source, name, ctx, 0) if source[0] == "def" else UNK
            if copied[0] == "def":
                return copied
        return found

    def name(self, path: str, scope: str, name: str, at: Point, ctx: ResolutionNotes) -> Entity:
        """What ``name`` denotes at ``at``: in each enclosing function (then the file), the
        local declaration seen there, a definition or an import (one set otherwise too:
        unknown); nothing: unknown (a global of the standard library, or of no file)."""
        idx = self.resolver.index[path]
        for cur in self.resolver.scopes(path, scope):
            seen = [
                a for a in idx.assigns.get((cur, name), ()) if not a.span or in_span(a.span, at)
            ]
            qual = f"{cur}.{name}" if cur else name
            sym = idx.defs.get(qual)
            imports = idx.imports.get((cur, name))
            if (sym is not None or imports) and seen:
                return UNK
            if sym is not None:
                return ("def", path, qual) if sym.kind not in VARIABLES else UNK
            if imports:
                return self.resolver.follow(path, imports[-1], ctx, 1)
            if seen:
                return self.resolver.infer(path, cur, innermost(seen), ctx, 0)
        return self.imported_global(path, name, ctx)

    def imported_global(self, path: str, name: str, ctx: ResolutionNotes) -> Entity:
        """The field ``name`` of the first module ``utils.import`` made globals of that has
        one (a definition in the repository), else a global function of a file the file
        requires, else the Penlight module of that name after ``require 'pl'``, else
        unknown."""
        if name in GLOBALS:
            return UNK
        idx = self.resolver.index[path]
        for imp in idx.imports.get(("", STAR), ()):
            module = self.resolver.follow(path, imp, ctx, 1)
            found = self.resolver.attribute(module, name, ctx, 1) if module[0] != "ext" else UNK
            if found[0] == "def":
                return found
        found = self.required_global(path, name)
        if found[0] == "def":
            return found
        everything = any(i.module == PENLIGHT for i in idx.imports.get(("", "pl"), ()))
        if everything and name in PL_GLOBALS:
            lazy = Import(f"{PENLIGHT}.{name}", "", name, 0)
            found = self.resolver.follow(path, lazy, ctx, 1)
            return found if found[0] in ("def", "mod") else UNK
        return UNK

    def required_global(self, path: str, name: str) -> Entity:
        """``function name()`` (a global) in a file ``path`` requires at its top level: the
        require runs that file, which sets the global."""
        for imp in self.resolver.index[path].facts.imports:
            if imp.scope or imp.name:
                continue
            for f in self.resolver.module_files(path, imp.module):
                sym = self.resolver.index[f].defs.get(name)
                if sym is not None and sym.kind == "function" and sym.exported:
                    return ("def", f, name)
        return UNK


# the globals of the standard library (the Lua 5.4 manual, §6; 5.1's too)
_NAMES = (
    "assert collectgarbage dofile error getmetatable ipairs load loadfile next pairs pcall print "
    "rawequal rawget rawlen rawset require select setmetatable tonumber tostring type xpcall warn "
    "unpack loadstring setfenv getfenv module _G _ENV _VERSION string table math os io coroutine "
    "debug package utf8 bit32 arg"
)
GLOBALS = frozenset(_NAMES.split())


def innermost(seen: list[Assignment]) -> list[Assignment]:
    """The settings of the declaration declared last among those seen (a global's have no
    span: any local seen shadows it)."""
    spans = [a.span for a in seen if a.span]
    inner = max(spans, key=lambda s: (s[0], s[1])) if spans else ()
    return [a for a in seen if a.span == inner]
