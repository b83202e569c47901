"""Scala call resolution by declared types, on :mod:`kotlin_resolve`'s walk (a case class is
made without ``new``, a companion's members are its class's): receivers typed by ``val x:
Foo``, ``val x = new Foo(...)``, ``val x = Foo(...)``, ``val x = Obj.make()`` (the declared
result type), parameters and class parameters; methods looked up through the class, its
superclass and mixed-in traits (the rightmost mixin first, as linearization does).

A bare ``m(...)`` is looked up the way Scala binds a name, innermost first: a local ``def``,
then at each enclosing scope the members of an anonymous class ``new T { ... }`` around the
call, of the scope's own class, object or trait (with its bases), of a wildcard import in
its body around the call (``import builder._`` brings the members of the value ``builder``,
``import Obj._`` those of an object), then of the objects the file imports. ``Foo(...)`` is
the class ``Foo`` (a case class apply or a constructor: ``new Foo(...)`` is written ``Foo``
too), ``Obj(...)`` of an object with no class ``Obj.apply``; ``Foo(...).m()`` is typed by the
companion's ``apply`` when it declares one. A name without a proven declaration stays
unresolved: calls into the Scala library, a lambda's or a pattern's variable (its type is
inferred), a value of a type parameter. (An object declared in several source sets, as
``jvm/``, ``js/``, ``native/`` of one package, is the package mate the resolver finds first.)
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.java_resolve import CAST, Bases, Method, Type, segments
from clawql_git.codegraph.kotlin_resolve import FUNCTIONS, KotlinCalls
from clawql_git.codegraph.model import Assignment, Call, Symbol
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

SPAN = re.compile(r"^<(new|import) (\d+):(\d+)-(\d+):(\d+)>$")
NAMES = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
ALIAS = re.compile(r"^(?:\w+\s+)*type\s+\w+(?:\[[^=]*\])?\s*=\s*([A-Za-z_][\w.]*)\s*(?:\[.*\])?$")
OBJECT = re.compile(r"^(?:[\w\[\]]+\s+)*object\s")
Position = tuple[int, int]  # (line, column) of a call
# an anonymous class body or a block's wildcard import: (start, end, kind, what it names)
Span = tuple[Position, Position, str, str]
Holder = tuple[str, str, bool]  # a type whose members bare names reach; False: by a value


class ScalaCalls(KotlinCalls):
    """Resolves the calls of Scala files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.path, self.column = "", 0  # the call being resolved's file and column
        self._spans: dict[str, dict[str, list[Span]]] = {}
        self._active: set[tuple[str, str, int]] = set()  # values being typed (a cycle stops)
        self.by_value = False  # the last bare call was found through an imported value
        self._aliasing: set[Entity] = set()  # aliases being followed (a cycle stops)

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; ``a.b.C`` (``new a.b.C(...)``) is the class it names."""
        self.path, self.line, self.column = path, call.line, call.column
        self.by_value = False
        if call.callee == "this":  # ``def this(...) = this(...)``: a constructor of the class
            held = self.holders(path, scope)
            return ("def", *held[0][:2]) if held else UNK
        entity: Entity = UNK
        if NAMES.match(call.callee) and self.qualified_head(path, scope, call.callee.split(".")):
            entity = self.type_named(path, scope, call.callee)
        if entity[0] != "def":
            entity = super().callee(path, scope, call, ctx)
        ctx.inferred = ctx.inferred or self.by_value
        if entity[0] == "def" and self.is_type(entity[1], entity[2]):
            return self.applied(entity)
        return entity

    def applied(self, made: Entity) -> Entity:
        """What ``Obj(...)`` calls: an object's ``apply`` (a class is made, a case class
        applied, as ``new Foo(...)`` makes one: the class stands for both)."""
        kinds = self.overloads(made[1]).get(made[2], [])
        if not kinds or not all(OBJECT.match(s.signature) for s in kinds):
            return made
        found = self.companion_apply(made[1], made[2])
        return ("def", found[0], found[1]) if found is not None else made

    def qualified_head(self, path: str, scope: str, parts: list[str]) -> int:
        """How many names of ``parts`` make a package-qualified type (``scopt.OptionParser``
        of ``scopt.OptionParser.x``) whose first name is no variable; 0 for none."""
        if len(parts) < 2 or not parts[0][:1].islower() or "(" in parts[0] or parts[0] == "this":
            return 0
        first = self.variable(path, scope, parts[0], ResolutionNotes())
        if first[0] != "unk" and not self.is_package(first):
            return 0
        for end in range(len(parts), 1, -1):
            written = ".".join(parts[:end])
            if NAMES.match(written) and self.type_named(path, scope, written)[0] == "def":
                return end
        return 0

    def is_local(self, path: str, scope: str, call: Call) -> bool:
        """Whether ``call.callee`` names a local declared above the call (a function value)."""
        cur = scope
        while cur and not self.is_type(path, cur):
            seen = self.r.index[path].assigns.get((cur, call.callee), [])
            if any(a.line <= call.line for a in seen):
                return True
            cur = parent(cur)
        return False

    def is_constructor(self, path: str, scope: str, head: str) -> bool:
        """Whether the call ``Foo(...)`` makes a ``Foo`` (a class of any case: ``proc()``)
        where no function is named so."""
        if not head.endswith("()") or self.implicit(path, scope, head[:-2], -1) is not None:
            return False
        return self.type_named(path, scope, head[:-2])[0] == "def"

    def is_package(self, entity: Entity) -> bool:
        """Whether ``entity`` is a package (a file's ``package a.b`` clause)."""
        return entity[0] == "def" and self.r.index[entity[1]].defs[entity[2]].kind == "module"

    def implicit(self, path: str, scope: str, name: str, arity: int) -> Method | None:
        """A bare ``name(...)``: a local ``def``, else a member of the innermost holder (an
        anonymous class, a block's wildcard import, an enclosing type) declaring it, else a
        member of an object the file imports."""
        found = self._local_def(path, scope, name)
        if found is not None:
            return found
        for file, klass, exact in self.holders(path, scope):
            found = self.method(file, klass, name, arity)
            if found is not None:
                self.by_value = not exact  # the value may be of a subtype
                return found
        for owner in self.static_owners(path, name):
            found = self.method(owner[0], owner[1], name, arity)
            if found is not None:
                return found
        return None

    def _local_def(self, path: str, scope: str, name: str) -> Method | None:
        """A ``def`` of an enclosing function or block (not of a type: those are members)."""
        cur = scope
        while cur and not self.is_type(path, cur):
            sym = self.r.index[path].defs.get(f"{cur}.{name}")
            if sym is not None and sym.kind in FUNCTIONS and not self.elsewhere(path, cur, sym):
                return path, sym.qualname, sym
            cur = parent(cur)
        return None

    def elsewhere(self, path: str, scope: str, sym: Symbol) -> bool:
        """Whether ``sym`` (declared in ``scope``) is a member of an anonymous class body
        that the call being resolved is not in (it is no member of ``scope`` then)."""
        at = (self.line, self.column) if path == self.path else (0, 0)
        return any(
            s[2] == "new" and s[0][0] <= sym.line <= s[1][0] and not s[0] <= at <= s[1]
            for s in self.spans(path).get(scope, [])
        )

    def method(self, path: str, klass: str, name: str, arity: int) -> Method | None:
        """As Kotlin's, leaving out the methods of anonymous classes in a class's body."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            fits = [
                s
                for s in self.overloads(file).get(f"{qual}.{name}", [])
                if s.kind in FUNCTIONS and not self.elsewhere(file, qual, s)
            ]
            if fits:
                agreed = len({s.returns for s in fits}) == 1
                return file, f"{qual}.{name}", fits[0] if agreed else replace(fits[0], returns="")
        return None

    def holders(self, path: str, scope: str) -> list[Holder]:
        """The types whose members a bare name at the call's position may be, innermost
        first: at each enclosing scope the anonymous classes around the call (in that
        scope's body), the scope itself when it is a type (its members win over a wildcard
        import in its body, SLS 2), then the wildcard imports around the call."""
        out: list[Holder] = []
        at = (self.line, self.column)
        cur = scope
        while True:
            around = sorted(
                (s for s in self.spans(path).get(cur, []) if s[0] <= at <= s[1]), reverse=True
            )
            for start, _, kind, written in (s for s in around if s[2] == "new"):
                out += self._held(path, cur, kind, written, start)
            if cur and self.is_type(path, cur):
                out.append((path, cur, True))
            for start, _, kind, written in (s for s in around if s[2] == "import"):
                out += self._held(path, cur, kind, written, start)
            if not cur:
                return out
            cur = parent(cur)

    def _held(
        self, path: str, scope: str, kind: str, written: str, start: Position
    ) -> list[Holder]:
        """The types an anonymous class extends (its last mixin first), or the type of what a
        wildcard import names (a value's declared type, an object)."""
        key = (path, f"{kind} {written}", start[0])
        if key in self._active:
            return []
        self._active.add(key)
        try:
            if kind == "new":
                named = [self.type_named(path, scope, t) for t in reversed(written.split(" with "))]
                return [(e[1], e[2], True) for e in named if e[0] == "def"]
            parts = segments(written)
            found = self.type_of(path, scope, parts, [], ResolutionNotes()) if parts else UNK
            return [(found[1], found[2], found[0] == "def")] if found[0] in ("inst", "def") else []
        finally:
            self._active.discard(key)

    def spans(self, path: str) -> dict[str, list[Span]]:
        """The anonymous class bodies and block imports of ``path``, per scope."""
        found = self._spans.get(path)
        if found is None:
            found = {}
            for asg in self.r.index[path].facts.assignments:
                m = SPAN.match(asg.target)
                if m is not None:
                    start = (int(m.group(2)), int(m.group(3)))
                    end = (int(m.group(4)), int(m.group(5)))
                    found.setdefault(asg.scope, []).append((start, end, m.group(1), asg.value))
            self._spans[path] = found
        return found

    def static_owners(self, path: str, name: str) -> list[Type]:
        """The objects the file's imports may bring ``name`` from: ``import a.Obj.name``,
        ``import a.Obj._``, ``import Obj._`` (an object of the file's package)."""
        idx = self.r.index[path]
        out = []
        for imp in [*idx.imports.get(("", name), []), *idx.stars.get("", [])]:
            owner = self.type_named(path, "", imp.module) if imp.module else UNK
            if owner[0] == "def":
                out.append((owner[1], owner[2]))
        return out

    # ------------------------------------------------------------ receivers

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """As Kotlin's, with Scala's heads: ``this`` (the innermost class, anonymous ones
        too), ``a.b.Obj`` (a package-qualified type) and ``Foo(...)`` through a companion's
        ``apply``."""
        head = parts[0]
        if head == "this":
            held = self.holders(path, scope)
            entity: Entity = ("inst", *held[0][:2]) if held else UNK
            return self.follow(path, scope, entity, parts[1:], ctx)
        end = self.qualified_head(path, scope, parts)
        if end:
            made = self.type_named(path, scope, ".".join(parts[:end]))
            return self.follow(path, scope, made, parts[end:], ctx)
        if head.endswith("()") and not CAST.match(head) and self.is_constructor(path, scope, head):
            made = self.type_named(path, scope, head[:-2])
            apply = self.companion_apply(made[1], made[2])
            if apply is not None:
                ctx.inferred = True
                return self.follow(path, scope, self.returns(apply), parts[1:], ctx)
        return super().type_of(path, scope, parts, arities, ctx)

    def follow(
        self, path: str, scope: str, entity: Entity, rest: list[str], ctx: ResolutionNotes
    ) -> Entity:
        """``entity`` then each ``.f`` (a field, a nested type, a parameterless method) and
        ``.m()`` (a method's declared result type) of ``rest``."""
        for part in rest:
            if part.endswith("()"):
                ctx.inferred = True
                entity = self.call_result(entity, part[:-2], -1)
            elif entity[0] in ("inst", "def") and self.is_type(entity[1], entity[2]):
                entity = self.member(entity, part, ctx)
            else:
                return entity if entity[0] == "ext" else UNK
        return entity

    def companion_apply(self, path: str, klass: str) -> Method | None:
        """The ``apply`` the companion object of ``klass`` declares (``Foo(...)`` calls it)."""
        objects = [
            s
            for s in self.overloads(path).get(klass, [])
            if s.kind == "class" and OBJECT.match(s.signature)
        ]
        for sym in self.overloads(path).get(f"{klass}.apply", []):
            if any(o.line <= sym.line <= o.end_line for o in objects):
                return self.method(path, klass, "apply", -1)
        return None

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """``x.name``: a field, a nested type, else a parameterless method (its result)."""
        found = self.field(entity[1], entity[2], name, ctx)
        if found is not None:
            return found
        nested = f"{entity[2]}.{name}"
        if self.is_type(entity[1], nested):
            return ("def", entity[1], nested)
        method = self.method(entity[1], entity[2], name, -1)
        if method is not None:
            ctx.inferred = True
            return self.returns(method)
        outside = entity[0] == "inst" and self.reaches_outside(entity[1], entity[2])
        return ("ext", name) if outside else UNK

    def in_scope(self, path: str, scope: str, assigns: list[Assignment]) -> list[Assignment]:
        """The declarations of a local the call sees: the nearest one above it (a name
        declared again in a later block), typed or not."""
        above = [a for a in assigns if a.line <= self.line]
        if above:
            nearest = max(a.line for a in above)
            return [a for a in above if a.line == nearest]
        return assigns

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """The type a ``val`` is declared with, else the type of what it is given (each
        declaration agreeing); a lambda or pattern variable has none."""
        ctx.inferred = True
        typed = {a.value for a in assigns if a.annotation}
        if typed:
            return self.typed(path, scope, typed.pop()) if len(typed) == 1 else UNK
        given = {a.value for a in assigns}
        if len(given) != 1:
            return UNK
        return self.given(path, scope, given.pop(), assigns[0].line)

    def given(self, path: str, scope: str, written: str, line: int) -> Entity:
        """The type of the callee chain a ``val`` is given (``Foo()``, ``Obj.make()``)."""
        key = (path, f"{scope} {written}", line)
        parts = segments(written)
        if parts is None or key in self._active:
            return UNK
        self._active.add(key)
        try:
            return self.type_of(path, scope, parts, [], ResolutionNotes())
        finally:
            self._active.discard(key)

    def typed(self, path: str, scope: str, written: str) -> Entity:
        """A value of the declared type ``written``; none for a local of no known type."""
        return super().typed(path, scope, written) if written else UNK

    def _type_named(self, path: str, scope: str, written: str) -> Entity:
        """As Java's, with a type parameter of an enclosing method or class (its upper
        bound, else nothing known) and a class local to a method first; an alias ``type X =
        Y`` is followed to ``Y``."""
        head = written.split(".")[0]
        cur = scope
        while cur:
            bound = self.r.index[path].assigns.get((cur, f"<{head}>"))
            if bound:
                value = bound[0].value
                return (
                    self.type_named(path, parent(cur), value) if value and head == written else UNK
                )
            if not self.is_type(path, cur) and self.is_type(path, f"{cur}.{head}"):
                return self._nested(path, f"{cur}.{written}", "")
            cur = parent(cur)
        found = self.dealias(super()._type_named(path, scope, written))
        return found if found[0] == "def" else self.star_imported(path, written) or found

    def star_imported(self, path: str, written: str) -> Entity | None:
        """A type nested in an object the file imports by ``import a.Obj._``."""
        key = (path, f"star {written}", 0)
        if key in self._active:
            return None
        self._active.add(key)
        try:
            for imp in self.r.index[path].stars.get("", []):
                owner = self.type_named(path, "", imp.module) if imp.module else UNK
                if owner[0] == "def" and self.is_type(owner[1], f"{owner[2]}.{written}"):
                    return ("def", owner[1], f"{owner[2]}.{written}")
            return None
        finally:
            self._active.discard(key)

    def dealias(self, found: Entity) -> Entity:
        """The type an alias ``type X = a.Y[Z]`` stands for (``a.Y``); another as it is."""
        if found[0] != "def" or found in self._aliasing:
            return found
        sym = self.r.index[found[1]].defs[found[2]]
        m = ALIAS.match(sym.signature) if sym.kind == "type" else None
        if m is None:
            return found
        self._aliasing.add(found)
        try:
            return self.type_named(found[1], parent(found[2]), m.group(1))
        finally:
            self._aliasing.discard(found)

    # ------------------------------------------------------------ the hierarchy

    def _work_out_bases(self, path: str, klass: str) -> Bases:
        """The bases of a class and of its companion object, the last mixin first."""
        inside: list[Type] = []
        outside = False
        for sym in self.overloads(path).get(klass, []):
            for base in reversed(sym.bases):
                found = self.typed(path, parent(klass), base)
                if found[0] == "inst" and (found[1], found[2]) not in inside:
                    inside.append((found[1], found[2]))
                outside = outside or found[0] in ("ext", "elem")
        return inside, outside, None
