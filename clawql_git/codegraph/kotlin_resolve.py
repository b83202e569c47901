"""Kotlin call resolution by declared types, on :mod:`java_resolve`'s walk: receivers typed
by ``val x: Foo``, ``val x = Foo()`` (a constructor call has no ``new``), parameters,
properties and declared return types (``Forest.tag(t).d()``), methods looked up through the
class, its supertypes and its companion (whose members are the class's). Overloads are not
told apart by argument count (default arguments make counts unreliable): a chain through an
overload set whose return types disagree stays unresolved. A bare ``f()`` naming a local or a
parameter (a function value) is not a member call and stays unresolved.

The parameter of a lambda given to a scope function (``x.let { it.m() }``, ``x.also { y ->
y.m() }``: the receiver itself) or an iteration function over a collection of the standard
library whose element type is a class of the repository (``xs.forEach { it.m() }``,
``xs`` declared as ``List<Tree>`` or made by ``emptyArray<Tree>()``: a ``Tree``) is typed
inside the lambda's span only.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.java_resolve import JavaCalls, Method, segments
from clawql_git.codegraph.model import Assignment, Call, Symbol
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

FUNCTIONS = frozenset({"method", "function"})
IT_RECEIVER = frozenset({"let", "also", "takeIf", "takeUnless"})  # as lang_kotlin's
LAMBDA = re.compile(r"^(.+)\.(\w+)\{\}$")  # ``xs.forEach{}``: the lambda of a call
MADE = re.compile(r"^(\w+)<([A-Za-z_][\w.]*)>$")  # ``emptyArray<Tree>``: a factory's element


class KotlinCalls(JavaCalls):
    """Resolves the calls of Kotlin files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self._overloads: dict[str, dict[str, list[Symbol]]] = {}
        self.column = 0  # the column of the call being resolved (picks a lambda's parameter)
        self._binding: set[Assignment] = set()  # lambda parameters being typed (a cycle)

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; a bare call of a local or parameter is unknown."""
        self.column = call.column
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

    # ------------------------------------------------------------ lambdas

    def in_scope(self, path: str, scope: str, assigns: list[Assignment]) -> list[Assignment]:
        """Java's reading, but a lambda's parameter is seen inside the lambda only, and there
        it hides the other declarations of its name (the innermost lambda first)."""
        at = (self.line, self.column)
        around = [a for a in assigns if a.span and a.span[:2] <= at <= a.span[2:]]
        if around:
            return [max(around, key=lambda a: a.span[:2])]
        return super().in_scope(path, scope, [a for a in assigns if not a.span])

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """Java's reading, with a lambda's parameter and a standard collection factory's
        element type (``emptyArray<Tree>()``)."""
        if len(assigns) == 1 and assigns[0].span:
            return self.lambda_parameter(path, scope, assigns[0], ctx)
        made = {MADE.match(a.value) for a in assigns if not a.annotation}
        if len(made) == 1 and (found := made.pop()) is not None and len(assigns) == 1:
            return self.made_collection(path, scope, found.group(1), found.group(2), ctx)
        return super().declared(path, scope, assigns, ctx)

    def made_collection(
        self, path: str, scope: str, factory: str, element: str, ctx: ResolutionNotes
    ) -> Entity:
        """A collection of the standard library holding ``element`` (unknown when the
        repository itself declares a function named ``factory`` in reach)."""
        if self.implicit(path, scope, factory, -1) is not None:
            return UNK
        if self.r.name(path, scope, factory, ctx, 0)[0] != "unk":
            return UNK
        ctx.inferred = True
        found = self.type_named(path, scope, element)
        return ("elem", found[1], found[2]) if found[0] == "def" else UNK

    def lambda_parameter(
        self, path: str, scope: str, binding: Assignment, ctx: ResolutionNotes
    ) -> Entity:
        """The parameter of the lambda passed to ``x.let`` (``x``) or ``xs.forEach`` (an
        element of ``xs``): the receiver typed where the lambda starts."""
        match = LAMBDA.match(binding.value)
        parts = segments(match.group(1)) if match is not None else None
        if match is None or parts is None or binding in self._binding:
            return UNK
        saved = (self.line, self.column)
        self.line, self.column = binding.span[0], binding.span[1] - 1  # just before the ``{``
        self._binding.add(binding)
        try:
            receiver = self.type_of(path, scope, parts, [], ctx)
        finally:
            self._binding.discard(binding)
            self.line, self.column = saved
        ctx.inferred = True
        if match.group(2) in IT_RECEIVER:
            return receiver if receiver[0] in ("inst", "ext") else UNK
        return ("inst", receiver[1], receiver[2]) if receiver[0] == "elem" else UNK
