"""Dart call resolution by declared return types, on top of the shared resolver.

The shared :class:`Resolver` types a receiver by its declaration (``final Log log``,
``Cart c``) or its constructor (``var f = Formatter()``); Dart also states the type a
function, method or getter gives (``ParsedPath _parse(String path)``, ``Context get
context``), which types what follows it:

- ``var parsed = _parse(path); parsed.normalize()`` -> ``ParsedPath.normalize`` (every
  assignment of the local in its scope must be such a call, and agree);
- ``_parse(path).extension()`` -> ``ParsedPath.extension``;
- ``context.split(p)`` where ``context`` is a getter (of the class or a base) or a
  top-level function's result -> ``Context.split``;
- ``next.visit()`` / ``this.next.visit()`` in ``class Node { final Node? next; }`` ->
  ``Node.visit`` (types are declared at a library's top level, so a type is looked up
  there: from the class's own scope ``Node`` would name its constructor ``Node.Node``).

A call the shared resolver settles is left as it is; a return type that is ``void``,
``dynamic``, a type variable or a type outside the repository leaves the call unresolved.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Call
from clawql_git.codegraph.resolve import (
    CLASSLIKE,
    CONSTRUCTED,
    DOTTED,
    UNK,
    Entity,
    ResolutionNotes,
    parent,
)

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

# ``static ParsedPath parse(...)`` / ``p.Context get context``: the type written before the
# name (type arguments and ``?`` dropped)
RETURNS = re.compile(
    r"^(?:(?:static|external|abstract)\s+)*"
    r"(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?:<[^()]*>)?\??\s+"
    r"(?:get\s+)?(?P<name>[A-Za-z_$][\w$]*)"
)
NOT_TYPES = frozenset({"void", "dynamic", "const", "factory", "new", "set", "operator"})
FUNCTIONS = frozenset({"function", "method"})


def return_type(signature: str, name: str) -> str:
    """The type a Dart function, method or getter declares it gives ('' when none)."""
    m = RETURNS.match(signature)
    if m is None or m["name"] != name or m["type"] in NOT_TYPES:
        return ""
    return m["type"]


class DartCalls:
    """The call resolver ``lang_dart`` brings (``call_resolver``), on a Resolver's facts."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the callee of ``call`` denotes: the shared answer, else one through the
        declared return types of what the chain calls or reads."""
        found = self.resolver.callee(path, scope, call.callee, ctx)
        if found[0] != "unk":
            return found
        notes = ResolutionNotes(inferred=True)
        made = CONSTRUCTED.match(call.callee)
        if made is not None:
            head = self.gives(
                self.resolver.expression(path, scope, made.group(1), notes), called=True
            )
            found = self.resolver.attribute(head, made.group(2), notes, 0)
        elif DOTTED.match(call.callee) and "." in call.callee:
            found = self.dotted(path, scope, call.callee, notes)
        if found[0] != "unk":
            ctx.inferred = True
        return found

    def dotted(self, path: str, scope: str, callee: str, ctx: ResolutionNotes) -> Entity:
        """``a.b.m``: the head (a local holding a call's result, or any name), each
        getter or function read on the way typed by what it declares it gives."""
        head, *rest = callee.split(".")
        entity = self.local(path, scope, head, ctx)
        if entity is None:
            entity = self.field(path, scope, head)
        if entity is None:
            entity = self.resolver.name(path, scope, head, ctx, 0)
        for part in rest:
            entity = self.gives(entity)
            found = self.resolver.attribute(entity, part, ctx, 0)
            if found[0] == "unk" and entity[0] == "inst":  # this.next: a field of Node
                found = self.declared(entity[1], entity[2], part) or UNK
            if found[0] in ("unk", "ext"):
                return found
            entity = found
        return entity

    def local(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """What a local (or parameter) holds, from the nearest scope binding ``name``; None
        when that binding is no local (a definition, an import) or there is none."""
        idx = self.resolver.index[path]
        for cur in self.resolver.scopes(path, scope):
            qual = f"{cur}.{name}" if cur else name
            if qual in idx.defs or (cur, name) in idx.imports:
                return None
            assigns = idx.assigns.get((cur, name))
            if assigns:
                return self.returned(path, cur, assigns, ctx)
        return None

    def field(self, path: str, scope: str, name: str) -> Entity | None:
        """A field of the enclosing class with a declared type: its instance (the shared
        lookup, made from the class's scope, reads ``Node`` in ``final Node? next`` as the
        unnamed constructor ``Node.Node``); None for anything else."""
        defs = self.resolver.index[path].defs
        klass = scope
        while klass and (klass not in defs or defs[klass].kind not in CLASSLIKE):
            klass = parent(klass)
        return self.declared(path, klass, name) if klass else None

    def declared(self, path: str, klass: str, name: str) -> Entity | None:
        """A field ``name`` of ``klass`` (in ``path``) declared with a type: the instance of
        that type; None when the class declares no such field."""
        assigns = self.resolver.index[path].assigns.get((klass, name))
        if not assigns or not all(a.annotation for a in assigns):
            return None
        found = {self.typed(path, a.value) for a in assigns}
        return found.pop() if len(found) == 1 else UNK

    def typed(self, path: str, written: str) -> Entity:
        """The instance of the class a type written in ``path`` names (Dart declares every
        type at a library's top level); an outside type as 'ext'; else unknown."""
        target = self.resolver.expression(path, "", written, ResolutionNotes())
        if target[0] == "def" and self.resolver.index[target[1]].defs[target[2]].kind in CLASSLIKE:
            return ("inst", target[1], target[2])
        return target if target[0] == "ext" else UNK

    def returned(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """What a local holds: its declared type, or what its value (a constructor or a
        call) gives; unknown when its assignments disagree."""
        found = {self.holds(path, scope, a, ctx) for a in assigns}
        return found.pop() if len(found) == 1 else UNK

    def holds(self, path: str, scope: str, asg: Assignment, ctx: ResolutionNotes) -> Entity:
        if asg.annotation:
            return self.typed(path, asg.value)
        if not DOTTED.match(asg.value):
            return UNK
        return self.gives(self.resolver.expression(path, scope, asg.value, ctx), called=True)

    def gives(self, entity: Entity, called: bool = False) -> Entity:
        """A function or method called (``called``), or a getter read: the instance of the
        class its declared return type names; any other entity as it is."""
        if entity[0] != "def":
            return entity
        path, qual = entity[1], entity[2]
        sym = self.resolver.index[path].defs[qual]
        getter = " get " in f" {sym.signature}"
        if sym.kind in CLASSLIKE and called:
            return ("inst", path, qual)
        if sym.kind not in FUNCTIONS or not (called or getter):
            return entity
        written = return_type(sym.signature, sym.name)
        if not written:
            return UNK
        # looked up from the method's class, the class's own name would be its unnamed
        # constructor (``Point.Point``): types are looked up at the library's top level
        return self.typed(path, written)
