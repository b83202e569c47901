"""Kotlin call resolution by declared types, on :mod:`java_resolve`'s walk: receivers typed
by ``val x: Foo``, ``val x = Foo()`` (a constructor call has no ``new``), parameters,
properties and declared return types (``Forest.tag(t).d()``), methods looked up through the
class, its supertypes and its companion (whose members are the class's). Overloads are not
told apart by argument count (default arguments make counts unreliable): a chain through an
overload set whose return types disagree stays unresolved. A bare ``f()`` naming a local or a
parameter (a function value) is not a member call and stays unresolved.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.java_resolve import JavaCalls, Method
from clawql_git.codegraph.model import Call, Symbol
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

FUNCTIONS = frozenset({"method", "function"})


class KotlinCalls(JavaCalls):
    """Resolves the calls of Kotlin files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self._overloads: dict[str, dict[str, list[Symbol]]] = {}

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; a bare call of a local or parameter is unknown."""
        if "." not in call.callee and "(" not in call.callee and self.is_local(path, scope, call):
            return UNK
        return super().callee(path, scope, call, ctx)

    def is_local(self, path: str, scope: str, call: Call) -> bool:
        """Whether ``call.callee`` names a local or parameter of the enclosing functions."""
        cur = scope
        while cur and not self.is_type(path, cur):
            if self.r.index[path].assigns.get((cur, call.callee)):
                return True
            cur = parent(cur)
        return False

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """As Java's, with ``Foo()`` as a head: a constructor call when no function is named
        ``Foo`` there."""
        head = parts[0]
        if self.is_constructor(path, scope, head):
            parts = [f"new {head}", *parts[1:]]
        return super().type_of(path, scope, parts, arities, ctx)

    def is_constructor(self, path: str, scope: str, head: str) -> bool:
        """Whether the call ``Foo()`` makes a ``Foo`` (no function is named so there)."""
        if not head.endswith("()") or not head[:1].isupper():
            return False
        if self.implicit(path, scope, head[:-2], -1) is not None:
            return False
        return self.type_named(path, scope, head[:-2])[0] == "def"

    def overloads(self, path: str) -> dict[str, list[Symbol]]:
        """Every declaration of ``path`` per qualname (Kotlin overloads share one)."""
        found = self._overloads.get(path)
        if found is None:
            found = {}
            for sym in self.r.index[path].facts.symbols:
                found.setdefault(sym.qualname, []).append(sym)
            self._overloads[path] = found
        return found

    def method(self, path: str, klass: str, name: str, arity: int) -> Method | None:
        """The declarations ``klass.name`` in ``klass`` or the nearest base declaring one (a
        return type only when all of them agree)."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            fits = [
                s for s in self.overloads(file).get(f"{qual}.{name}", []) if s.kind in FUNCTIONS
            ]
            if fits:
                agreed = len({s.returns for s in fits}) == 1
                return file, f"{qual}.{name}", fits[0] if agreed else replace(fits[0], returns="")
        return None
