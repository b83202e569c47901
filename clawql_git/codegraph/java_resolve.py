"""Java call resolution by declared types: receivers typed by their declarations (locals,
parameters, fields, method return types), methods looked up through the class hierarchy and
told apart by argument count.

A callee as ``lang_java`` writes it (``doc.body().select``, ``new Foo().run``, ``super.m``,
``Outer.Inner.make().go``) is read left to right: the head is ``this``, ``super``, ``new T()``,
a bare call ``m()`` (a method of the enclosing classes) or a name (a variable, a field, a
type); each ``.f`` is a field or a nested type, each ``.m()`` a method whose declared return
type types what follows. Anything not proven (a type variable, a cast, an array element, an
overload set whose return types disagree) leaves the call unresolved.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Call, Symbol

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Entity, ResolutionNotes, Resolver

SEGMENT = re.compile(r"^[A-Za-z_$][\w$]*(\(\))?$")
MAX_BASES = 24  # the longest hierarchy walked from one class
Method = tuple[str, str, Symbol]  # (file, qualname, one declaration)


def segments(callee: str) -> list[str] | None:
    """``new a.B().c().d`` -> ['new a.B()', 'c()', 'd']; None for what is not a chain of
    names and calls (a cast, an array element, a literal)."""
    head: list[str] = []
    rest = callee
    if callee.startswith("new "):
        end = callee.find("()")
        if end < 0 or not re.match(r"^[A-Za-z_$][\w$.]*$", callee[4:end]):
            return None
        head, rest = [callee[: end + 2]], callee[end + 3 :]
        if not rest:
            return head if end + 2 == len(callee) else None
    parts = rest.split(".")
    if not all(SEGMENT.match(p) for p in parts):
        return None
    return head + parts


def applicable(sym: Symbol, arity: int) -> bool:
    """Whether a method of ``sym``'s shape accepts ``arity`` arguments (-1: unknown)."""
    if arity < 0 or sym.params < 0:
        return True
    if sym.variadic:
        return arity >= sym.params - 1
    return arity == sym.params


class JavaCalls:
    """Resolves the calls of Java files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._bases: dict[tuple[str, str], tuple[list[tuple[str, str]], bool]] = {}

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at."""
        from clawql_git.codegraph.resolve import UNK

        parts = segments(call.callee)
        if parts is None:
            return UNK
        calls = [p for p in parts[:-1] if p.endswith("()")]
        arities = list(call.args) if len(call.args) == len(calls) + 1 else [-1] * (len(calls) + 1)
        last = parts[-1]
        if len(parts) == 1:
            found = self.implicit(path, scope, last, arities[-1])
            if found is not None:
                return ("def", found[0], found[1])
            return self.r.callee(path, scope, call.callee, ctx)
        receiver = self.type_of(path, scope, parts[:-1], arities[:-1], ctx)
        if receiver[0] == "super":
            found = self.method_in_bases(receiver[1], receiver[2], last, arities[-1])
        elif receiver[0] in ("inst", "def") and self.is_type(receiver[1], receiver[2]):
            found = self.method(receiver[1], receiver[2], last, arities[-1])
            if found is None and receiver[0] == "def":  # a nested class: ``new Outer.Inner``
                nested = f"{receiver[2]}.{last}"
                if self.is_type(receiver[1], nested):
                    return ("def", receiver[1], nested)
        else:
            return receiver if receiver[0] == "ext" else UNK
        if found is None:
            return self._external_member(receiver, last)
        return ("def", found[0], found[1])

    def _external_member(self, receiver: Entity, name: str) -> Entity:
        """A member not declared in the repository: external when the type derives from a
        type outside it (``ArrayList.get``), else unknown."""
        from clawql_git.codegraph.resolve import UNK

        if receiver[0] in ("inst", "def") and self.reaches_outside(receiver[1], receiver[2]):
            return ("ext", name)
        return UNK

    # ------------------------------------------------------------ receivers

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """The type a receiver chain has: ('inst', file, class) for a value, ('def', file,
        class) for a type named statically, ('super', file, class) for ``super``."""
        from clawql_git.codegraph.resolve import UNK

        head, rest = parts[0], parts[1:]
        calls = iter(arities)
        if head == "super":
            klass = self.r._enclosing_class(path, scope)
            entity: Entity = ("super", path, klass) if klass and not rest else UNK
            return entity
        ctx.inferred = ctx.inferred or head.startswith("new ") or head.endswith("()")
        if head.startswith("new "):
            entity = self.type_named(path, scope, head[4:-2])
            entity = ("inst", *entity[1:]) if entity[0] == "def" else entity
        elif head.endswith("()"):
            found = self.implicit(path, scope, head[:-2], next(calls, -1))
            entity = self.returns(found) if found is not None else UNK
        elif head == "this":
            entity = self.r.name(path, scope, head, ctx, 0)
        else:
            entity = self.variable(path, scope, head, ctx)
        for part in rest:
            if entity[0] not in ("inst", "def") or not self.is_type(entity[1], entity[2]):
                return entity if entity[0] == "ext" else UNK
            if part.endswith("()"):  # typed by a declared return type: inferred
                ctx.inferred = True
                found = self.method(entity[1], entity[2], part[:-2], next(calls, -1))
                entity = self.returns(found) if found is not None else UNK
            else:
                entity = self.member(entity, part, ctx)
        return entity

    def variable(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """What a simple name denotes as an expression (JLS 6.5.6.1): a local or parameter of
        the enclosing methods, a field of the enclosing classes (inherited ones too), else a
        type or an import (methods live in another name space and are skipped)."""
        from clawql_git.codegraph.resolve import parent

        cur = scope
        while cur:
            if self.is_type(path, cur):
                found = self.field(path, cur, name, ctx)
                if found is not None:
                    return found
            else:
                assigns = self.r.index[path].assigns.get((cur, name))
                if assigns:
                    return self.declared(path, cur, assigns, ctx)
            cur = parent(cur)
        return self.r.name(path, scope, name, ctx, 0)

    def field(self, path: str, klass: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """The type of field ``name`` of ``klass`` or of the nearest base declaring it."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            assigns = self.r.index[file].assigns.get((qual, name))
            if assigns:
                return self.declared(file, qual, assigns, ctx)
        return None

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """``x.name`` where ``x`` has a type of the repository: a field, else a nested type."""
        from clawql_git.codegraph.resolve import UNK

        found = self.field(entity[1], entity[2], name, ctx)
        if found is not None:
            return found
        nested = f"{entity[2]}.{name}"
        if self.is_type(entity[1], nested):
            return ("def", entity[1], nested)
        return self._external_member(entity, name) if entity[0] == "inst" else UNK

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """The type a variable is declared with (``var x = new Foo()``: the constructor's)."""
        from clawql_git.codegraph.resolve import UNK

        ctx.inferred = True  # the declared type: the object may be of a subtype
        typed = {a.value for a in assigns if a.annotation}
        if len(typed) > 1:  # the same name declared in two blocks with two types
            return UNK
        if typed:
            found = self.type_named(path, scope, typed.pop())
            return ("inst", *found[1:]) if found[0] == "def" else found
        return self.r.infer(path, scope, assigns, ctx, 0)

    def type_named(self, path: str, scope: str, written: str) -> Entity:
        """The class a type written in ``scope`` of ``path`` names: a nested type of an
        enclosing class (innermost first), else the way any name resolves there."""
        from clawql_git.codegraph.resolve import UNK, parent

        head, _, rest = written.partition(".")
        cur = scope
        while cur:
            qual = f"{cur}.{head}"
            if self.is_type(path, qual):
                return self._nested(path, qual, rest)
            cur = parent(cur)
        if self.is_type(path, head):
            return self._nested(path, head, rest)
        file, qual = self.r._type_def(path, scope, written, False)
        if file:
            return ("def", file, qual)
        return ("ext", written) if qual == "external" else UNK

    def _nested(self, path: str, qual: str, rest: str) -> Entity:
        from clawql_git.codegraph.resolve import UNK

        full = f"{qual}.{rest}" if rest else qual
        return ("def", path, full) if self.is_type(path, full) else UNK

    def returns(self, found: Method) -> Entity:
        """The instance a method's declared return type gives (unknown when the overloads
        that fit disagree)."""
        from clawql_git.codegraph.resolve import UNK, parent

        file, qual, sym = found
        if not sym.returns:
            return UNK
        entity = self.type_named(file, parent(qual), sym.returns)
        return ("inst", *entity[1:]) if entity[0] == "def" else entity

    # ------------------------------------------------------------ methods

    def implicit(self, path: str, scope: str, name: str, arity: int) -> Method | None:
        """A bare ``m(...)``: a method of the innermost enclosing class that has one named
        ``m`` (its bases included)."""
        from clawql_git.codegraph.resolve import parent

        cur = self.r._enclosing_class(path, scope)
        while cur:
            if self.is_type(path, cur):
                found = self.method(path, cur, name, arity)
                if found is not None:
                    return found
            cur = parent(cur)
        return None

    def method(self, path: str, klass: str, name: str, arity: int) -> Method | None:
        """The declaration ``klass.name`` accepting ``arity`` arguments, in ``klass`` or the
        nearest base declaring one; None when none does (or the fitting ones' return types
        disagree in the first class declaring them)."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            fits = [
                s
                for s in self.r.index[file].overloads.get(f"{qual}.{name}", [])
                if s.kind in ("method", "function") and applicable(s, arity)
            ]
            if fits:
                if len({s.returns for s in fits}) > 1:  # an exact fit beats a variadic one
                    fits = [s for s in fits if s.params == arity and not s.variadic] or fits
                agreed = len({s.returns for s in fits}) == 1
                return file, f"{qual}.{name}", fits[0] if agreed else replace(fits[0], returns="")
        return None

    def method_in_bases(self, path: str, klass: str, name: str, arity: int) -> Method | None:
        """``super.m(...)``: the declaration in the bases of ``klass``."""
        for file, qual in self.ancestors(path, klass):
            found = self.method(file, qual, name, arity)
            if found is not None:
                return found
        return None

    # ------------------------------------------------------------ the hierarchy

    def is_type(self, path: str, qual: str) -> bool:
        from clawql_git.codegraph.resolve import CLASSLIKE

        sym = self.r.index[path].defs.get(qual) if path in self.r.index else None
        return sym is not None and sym.kind in CLASSLIKE

    def bases(self, path: str, klass: str) -> tuple[list[tuple[str, str]], bool]:
        """(the repository classes ``klass`` extends or implements, in the order written,
        whether one of its bases is outside the repository)."""
        key = (path, klass)
        if key not in self._bases:
            from clawql_git.codegraph.resolve import parent

            inside: list[tuple[str, str]] = []
            outside = False
            for base in self.r.index[path].defs[klass].bases:
                found = self.type_named(path, parent(klass), base)
                if found[0] == "def":
                    inside.append((found[1], found[2]))
                outside = outside or found[0] == "ext"
            self._bases[key] = (inside, outside)
        return self._bases[key]

    def ancestors(self, path: str, klass: str) -> list[tuple[str, str]]:
        """Every repository supertype of ``klass``, breadth first (a class's own bases before
        theirs)."""
        seen = {(path, klass)}
        queue = [(path, klass)]
        out: list[tuple[str, str]] = []
        while queue and len(out) < MAX_BASES:
            here = queue.pop(0)
            for base in self.bases(*here)[0]:
                if base not in seen:
                    seen.add(base)
                    out.append(base)
                    queue.append(base)
        return out

    def reaches_outside(self, path: str, klass: str) -> bool:
        """Whether ``klass`` or one of its repository supertypes derives from a type outside
        the repository (so an undeclared member may be inherited from there)."""
        return any(self.bases(f, q)[1] for f, q in [(path, klass), *self.ancestors(path, klass)])
