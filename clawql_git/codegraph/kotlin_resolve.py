"""Kotlin call resolution by declared types, on :mod:`java_resolve`'s walk: receivers typed
by ``val x: Foo``, ``val x = Foo()`` (a constructor call has no ``new``), parameters,
properties and declared return types (``Forest.tag(t).d()``), methods looked up through the
class, its supertypes and its companion (whose members are the class's). Overloads are not
told apart by argument count (default arguments make counts unreliable): a chain through an
overload set whose return types disagree stays unresolved. A bare ``f()`` naming a local or a
parameter (a function value) is not a member call and stays unresolved.

The parameter of a lambda given to a scope function (``x.let { it.m() }``, ``x.also { y ->
y.m() }``: the receiver itself) or an iteration function over a collection of the standard
library whose element type is a class of the repository (``xs.forEach { it.m() }``, ``xs``
made by ``emptyArray<Tree>()``: a ``Tree``; declared types drop their type arguments, so
``xs: List<Tree>`` is not read) is typed inside the lambda's span only; so is ``this`` of
``x.apply { }``, ``x.run { }`` and ``with(x) { }``, whose bare calls are the receiver's
methods first (unknown when its type is unknown or derives from outside the repository).
``this@Outer`` is the innermost class when it is named ``Outer``.

``x.bar()`` where ``x``'s type, a class of the repository deriving from nothing outside it,
has no member ``bar``: the one extension function ``fun Foo.bar()`` in reach (the file, its
package, an import) whose receiver type is that class or one of its supertypes.
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
# ``fun <T> Foo<T>?.bar(``: an extension function's receiver type (``Foo``) and name
EXTENSION = re.compile(r"\bfun\s+(?:<[^>]*>\s*)?([A-Za-z_][\w.]*)(?:<[^>]*>)?\??\.(\w+)\s*\(")
MADE = re.compile(r"^(\w+)<([A-Za-z_][\w.]*)>$")  # ``emptyArray<Tree>``: a factory's element


class KotlinCalls(JavaCalls):
    """Resolves the calls of Kotlin files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self._overloads: dict[str, dict[str, list[Symbol]]] = {}
        self.column = 0  # the column of the call being resolved (picks a lambda's parameter)
        self._binding: set[Assignment] = set()  # lambda parameters being typed (a cycle)
        self._unbound = False  # ``this@Outer``: no lambda's receiver is ``this``
        self._extension_functions: dict[str, list[Method]] | None = None

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; a bare call of a local or parameter is unknown, so is one
        inside a lambda with a receiver that the receiver's type may declare."""
        self.line, self.column = call.line, call.column
        if self.r.index[path].facts.language != "kotlin":  # Swift and Scala read on
            return self.member_call(path, scope, call, ctx)
        head, _, rest = call.callee.partition(".")
        if head.startswith("this@"):
            return self.labelled(path, scope, call, head.removeprefix("this@"), rest, ctx)
        if head == "object":  # ``object : T { fun m() }.m()``: declared beside the call
            qual = f"{scope}.object.{rest}" if scope else f"object.{rest}"
            sym = self.r.index[path].defs.get(qual)
            return ("def", path, qual) if sym is not None and sym.kind in FUNCTIONS else UNK
        if call.callee.startswith("super<"):  # ``super<a.Base>.m``
            base, _, name = call.callee[6:].partition(">.")
            return self.qualified_super(path, scope, base, name)
        if "." in call.callee or "(" in call.callee:
            found = super().callee(path, scope, call, ctx)
            return found if found[0] != "unk" else self.extension_call(path, scope, call, ctx)
        if self.is_local(path, scope, call):
            return UNK
        inferred = ctx.inferred
        bound = self.bound_this(path, scope, ctx)
        if bound is not None:  # ``x.apply { m() }``: the receiver's ``m`` first
            member = self.on_bound(bound, call.callee)
            if member is not None:
                return member
        ctx.inferred = inferred  # not through the receiver: as if no lambda were around
        return super().callee(path, scope, call, ctx)

    def qualified_super(self, path: str, scope: str, base: str, name: str) -> Entity:
        """``super<Base>.m()`` (or ``super.m()`` in an object expression deriving from
        ``Base``): ``m`` of ``Base`` or of the nearest of its bases declaring one; outside
        when ``Base`` reaches outside the repository."""
        found = self.type_named(path, scope, base) if base != "?" and "." not in name else UNK
        if found[0] != "def":
            return ("ext", name) if found[0] == "ext" else UNK
        method = self.method(found[1], found[2], name, -1)
        if method is not None:
            return ("def", method[0], method[1])
        return ("ext", name) if self.reaches_outside(found[1], found[2]) else UNK

    def member_call(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """Java's reading, but a bare call of a local or parameter is unknown."""
        if "." not in call.callee and "(" not in call.callee and self.is_local(path, scope, call):
            return UNK
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
        """Whether ``call.callee`` names a local or parameter of the enclosing functions (a
        lambda's parameter inside that lambda only)."""
        at = (call.line, call.column)
        cur = scope
        while cur and not self.is_type(path, cur):
            assigns = self.r.index[path].assigns.get((cur, call.callee), [])
            if any(not a.span or a.span[:2] <= at <= a.span[2:] for a in assigns):
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
        if self.r.index[path].facts.language != "kotlin":
            return super().declared(path, scope, assigns, ctx)
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

    # ------------------------------------------------------------ extension functions

    def extension_call(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """``x.bar()`` as the one extension function ``bar`` in reach of ``path`` declared for
        ``x``'s type or a supertype of it (a member would win: the type must have none, and
        nothing outside the repository it derives from may have one)."""
        parts = segments(call.callee)
        if parts is None or len(parts) < 2:
            return UNK
        receiver = self.type_of(path, scope, parts[:-1], [-1] * len(parts), ctx)
        if receiver[0] != "inst" or not self.is_type(receiver[1], receiver[2]):
            return UNK
        if self.reaches_outside(receiver[1], receiver[2]):
            return UNK
        types = {(receiver[1], receiver[2]), *self.ancestors(receiver[1], receiver[2])}
        fits = {
            (file, qual)
            for file, qual, sym in self.extension_functions().get(parts[-1], [])
            if self.in_reach(path, file, qual)
            and (target := self.extension_receiver(file, qual, sym))[0] == "def"
            and (target[1], target[2]) in types
        }
        if len(fits) != 1:
            return UNK
        ctx.inferred = True
        file, qual = fits.pop()
        return ("def", file, qual)

    def extension_receiver(self, file: str, qual: str, sym: Symbol) -> Entity:
        """The class an extension function is declared for (``fun Foo.bar()``: ``Foo``)."""
        match = EXTENSION.search(sym.signature)
        return self.type_named(file, parent(qual), match.group(1)) if match else UNK

    def in_reach(self, path: str, file: str, qual: str) -> bool:
        """Whether an extension function ``qual`` of ``file`` may be called from ``path``: a
        member extension of a class around the call, or a top-level one of the same file, of
        the same package, or imported (by name or with its package's ``*``)."""
        owner = parent(qual)
        if owner:
            return file == path and owner in {q for _, q in self.around(path)}
        if file == path or self.package(file) == self.package(path):
            return True
        idx = self.r.index[path]
        named = [i.module for i in idx.imports.get(("", qual), [])]
        starred = [i.module for i in idx.stars.get("", [])]
        return self.package(file) in {*named, *starred}

    def around(self, path: str) -> list[tuple[str, str]]:
        """The classes of ``path`` enclosing the call being resolved (by its line)."""
        return [
            (path, s.qualname)
            for s in self.r.index[path].facts.symbols
            if self.is_type(path, s.qualname) and s.line <= self.line <= s.end_line
        ]

    def package(self, path: str) -> str:
        return next((s.name for s in self.r.index[path].facts.symbols if s.kind == "module"), "")

    def extension_functions(self) -> dict[str, list[Method]]:
        """Every extension function of the repository's Kotlin files, by name."""
        if self._extension_functions is None:
            found: dict[str, list[Method]] = {}
            for file, idx in self.r.index.items():
                if idx.facts.language != "kotlin":
                    continue
                for sym in idx.facts.symbols:
                    match = EXTENSION.search(sym.signature) if sym.kind in FUNCTIONS else None
                    if match is not None and match.group(2) == sym.name:
                        found.setdefault(sym.name, []).append((file, sym.qualname, sym))
            self._extension_functions = found
        return self._extension_functions
