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
THIS_RECEIVER = frozenset({"apply", "run", "with"})
LAMBDA = re.compile(r"^(.+)\.(\w+)\{\}$")  # ``xs.forEach{}``: the lambda of a call
MADE = re.compile(r"^(\w+)<([A-Za-z_][\w.]*)>$")  # ``emptyArray<Tree>``: a factory's element


class KotlinCalls(JavaCalls):
    """Resolves the calls of Kotlin files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self._overloads: dict[str, dict[str, list[Symbol]]] = {}
        self.column = 0  # the column of the call being resolved (picks a lambda's parameter)
        self._binding: set[Assignment] = set()  # lambda parameters being typed (a cycle)
        self._unbound = False  # ``this@Outer``: no lambda's receiver is ``this``

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; a bare call of a local or parameter is unknown, so is one
        inside a lambda with a receiver that the receiver's type may declare."""
        self.line, self.column = call.line, call.column
        head, _, rest = call.callee.partition(".")
        if head.startswith("this@"):
            return self.labelled(path, scope, call, head.removeprefix("this@"), rest, ctx)
        if "." in call.callee or "(" in call.callee:
            return super().callee(path, scope, call, ctx)
        if self.is_local(path, scope, call):
            return UNK
        inferred = ctx.inferred
        bound = self.bound_this(path, scope, ctx)
        if bound is not None:  # ``x.apply { m() }``: the receiver's ``m`` first
            found = self.on_bound(bound, call.callee)
            if found is not None:
                return found
        ctx.inferred = inferred  # not through the receiver: as if no lambda were around
        return super().callee(path, scope, call, ctx)

    def labelled(
        self, path: str, scope: str, call: Call, label: str, rest: str, ctx: ResolutionNotes
    ) -> Entity:
        """``this@Outer.m()``: ``this`` of the innermost enclosing class when it is named
        ``Outer`` (an outer class's or a lambda's label is left unresolved)."""
        klass = self.r._enclosing_class(path, scope)
        if not rest or not klass or klass.rsplit(".", 1)[-1] != label:
            return UNK
        self._unbound = True
        try:
            return super().callee(path, scope, replace(call, callee=f"this.{rest}"), ctx)
        finally:
            self._unbound = False

    def on_bound(self, bound: Entity, name: str) -> Entity | None:
        """A bare ``name()`` in a lambda whose receiver is ``bound``: the receiver's method,
        unknown when its type may declare one outside the repository (or is not known), None
        when its type (of the repository) declares none (the enclosing scopes' then)."""
        if bound[0] != "inst" or not self.is_type(bound[1], bound[2]):
            return UNK
        found = self.method(bound[1], bound[2], name, -1)
        if found is not None:
            return ("def", found[0], found[1])
        return UNK if self.reaches_outside(bound[1], bound[2]) else None

    def this_value(self, path: str, scope: str, ctx: ResolutionNotes) -> Entity:
        """``this``: the receiver of the innermost lambda with one around the call, else the
        enclosing class's instance."""
        bound = self.bound_this(path, scope, ctx)
        return bound if bound is not None else super().this_value(path, scope, ctx)

    def bound_this(self, path: str, scope: str, ctx: ResolutionNotes) -> Entity | None:
        """The receiver of the innermost ``x.apply { }``, ``x.run { }`` or ``with(x) { }``
        lambda around the call being resolved; None when there is none."""
        if self._unbound:
            return None
        cur = scope
        while cur and not self.is_type(path, cur):
            assigns = self.r.index[path].assigns.get((cur, "this"), [])
            around = self.in_scope(path, cur, [a for a in assigns if a.span])
            if around:
                return self.lambda_parameter(path, cur, around[0], ctx)
            cur = parent(cur)
        return None

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
        if match.group(2) in IT_RECEIVER | THIS_RECEIVER:
            return receiver if receiver[0] in ("inst", "ext") else UNK
        return ("inst", receiver[1], receiver[2]) if receiver[0] == "elem" else UNK
