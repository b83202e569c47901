"""Scala call resolution by declared types, on :mod:`kotlin_resolve`'s walk (a case class is
made without ``new``): receivers typed by ``val x: Foo``, ``val x = new Foo(...)``, ``val x =
Foo(...)``, ``val x = Obj.make()`` (the declared result type), parameters, class parameters
and typed patterns; methods looked up through the class, its superclass and mixed-in traits
(the rightmost mixin first, as linearization does). A class and its companion object share a
qualname (``Cart.add``, ``Cart.create``) but not their members' lookup: ``Cart.create()``
names the object (its members, then its own bases), a value of type ``Cart`` the class.

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
from clawql_git.codegraph.resolve import CLASSLIKE, UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

SPANNED = {"<new>": "new", "<import>": "import"}  # lang_scala's assignments with a span
NAMES = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
Position = tuple[int, int]  # (line, column) of a call
# an anonymous class body or a block's wildcard import: (start, end, kind, what it names)
Span = tuple[Position, Position, str, str]
# a type whose members bare names reach: (file, qualname, exact: not by a value, side)
Holder = tuple[str, str, bool, str]
# The side of a qualname that a class and its companion object share: "object" (a type named
# statically, ``Obj.m``), "class" (an instance), "anon L-L" (the own members of an anonymous
# class body on those lines), "" (either)
Side = str


class ScalaCalls(KotlinCalls):
    """Resolves the calls of Scala files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.path, self.column = "", 0  # the call being resolved's file and column
        self._spans: dict[str, dict[str, list[Span]]] = {}
        self._active: set[tuple[str, str, int]] = set()  # values being typed (a cycle stops)
        self.by_value = False  # the last bare call was found through an imported value
        self._aliasing: set[Entity] = set()  # aliases being followed (a cycle stops)
        self._star_owners: dict[str, list[Type]] = {}
        self._object_ancestors: dict[Type, list[Type]] = {}
        self._sides: dict[Type, tuple[list[Symbol], list[Symbol]]] = {}
        self.side: Side = ""  # the side of the type the next method lookup is on

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at; ``a.b.C`` (``new a.b.C(...)``) is the class it names."""
        self.path, self.line, self.column = path, call.line, call.column
        self.by_value = False
        self.side = ""
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
        objects, classes = self.sides(made[1], made[2])
        if not objects or classes:
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
        for file, klass, exact, side in self.holders(path, scope):
            self.side = side
            found = self.method(file, klass, name, arity)
            if found is not None:
                self.by_value = not exact  # the value may be of a subtype
                return found
        for owner in self.static_owners(path, name):
            self.side = "object"
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
        """As Kotlin's, on the side of ``klass`` that :attr:`side` names (then reset: the
        object's members and bases for ``Obj.m``, the class's for an instance), leaving out
        the methods of anonymous classes in a class's body."""
        side, self.side = self.side, ""
        for file, qual in self.lookup_order(path, klass, side):
            fits = [
                s
                for s in self.overloads(file).get(f"{qual}.{name}", [])
                if s.kind in FUNCTIONS
                and not self.elsewhere(file, qual, s)
                and self.on_side(file, qual, s, side if (file, qual) == (path, klass) else "class")
            ]
            if fits:
                agreed = len({s.returns for s in fits}) == 1
                return file, f"{qual}.{name}", fits[0] if agreed else replace(fits[0], returns="")
        return None

    def sides(self, path: str, klass: str) -> tuple[list[Symbol], list[Symbol]]:
        """The declarations of ``klass``: its objects, and its classes and traits."""
        found = self._sides.get((path, klass))
        if found is None:
            decls = [s for s in self.overloads(path).get(klass, []) if s.kind in CLASSLIKE]
            lines = {a.line for a in self.r.index[path].assigns.get((klass, "<object>"), [])}
            objects = [s for s in decls if s.line in lines]
            found = self._sides[(path, klass)] = (objects, [s for s in decls if s not in objects])
        return found

    def on_side(self, path: str, klass: str, sym: Symbol, side: Side) -> bool:
        """Whether member ``sym`` of ``klass`` is declared on ``side`` of it."""
        if side.startswith("anon "):
            start, end = side[5:].split("-")
            return int(start) <= sym.line <= int(end)
        objects, classes = self.sides(path, klass)
        if not side or not objects or not classes:
            return True
        return any(
            d.line <= sym.line <= d.end_line for d in (objects if side == "object" else classes)
        )

    def lookup_order(self, path: str, klass: str, side: Side) -> list[Type]:
        """``klass`` then the supertypes of its ``side`` (an anonymous body's own members
        have none: its types are holders of their own)."""
        if side.startswith("anon "):
            return [(path, klass)]
        objects, classes = self.sides(path, klass)
        if side != "object" or not objects or not classes:
            return [(path, klass), *self.ancestors(path, klass)]
        key = (path, klass)
        if key not in self._object_ancestors:
            self._object_ancestors[key] = []  # a cycle stops here
            out: list[Type] = []
            for base in self.typed_bases(path, klass, objects):
                for found in [base, *self.ancestors(*base)]:
                    if found not in out and found != key:
                        out.append(found)
            self._object_ancestors[key] = out
            if self._pending:  # while bases are worked out a walk may be partial
                del self._object_ancestors[key]
                return [key, *out]
        return [key, *self._object_ancestors[key]]

    def side_here(self, path: str, klass: str) -> Side:
        """The side of ``klass`` whose declaration holds the call being resolved."""
        objects, classes = self.sides(path, klass)
        if path == self.path and objects and classes:
            if any(d.line <= self.line <= d.end_line for d in objects):
                return "object"
            return "class"
        return ""

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
            for start, end, kind, written in (s for s in around if s[2] == "new"):
                if cur:  # its own members (declared at ``cur``), then its types'
                    out.append((path, cur, True, f"anon {start[0]}-{end[0]}"))
                out += self._held(path, cur, kind, written, start)
            if cur and self.is_type(path, cur):
                out.append((path, cur, True, self.side_here(path, cur)))
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
                return [(e[1], e[2], True, "class") for e in named if e[0] == "def"]
            parts = segments(written)
            found = self.type_of(path, scope, parts, [], ResolutionNotes()) if parts else UNK
            if found[0] not in ("inst", "def"):
                return []
            static = found[0] == "def"
            return [(found[1], found[2], static, "object" if static else "class")]
        finally:
            self._active.discard(key)

    def spans(self, path: str) -> dict[str, list[Span]]:
        """The anonymous class bodies and block imports of ``path``, per scope."""
        found = self._spans.get(path)
        if found is None:
            found = {}
            for asg in self.r.index[path].facts.assignments:
                kind = SPANNED.get(asg.target)
                if kind is not None and len(asg.span) == 4:
                    start, end = (asg.span[0], asg.span[1]), (asg.span[2], asg.span[3])
                    found.setdefault(asg.scope, []).append((start, end, kind, asg.value))
            self._spans[path] = found
        return found

    def static_owners(self, path: str, name: str) -> list[Type]:
        """The objects the file's imports may bring ``name`` from: ``import a.Obj.name``,
        ``import a.Obj._``, ``import Obj._`` (an object of the file's package)."""
        out = []
        for imp in self.r.index[path].imports.get(("", name), []):
            owner = self.type_named(path, "", imp.module) if imp.module else UNK
            if owner[0] == "def":
                out.append((owner[1], owner[2]))
        return out + self.star_owners(path)

    # ------------------------------------------------------------ receivers

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """As Kotlin's, with Scala's heads: ``this`` (the innermost class, anonymous ones
        too), ``a.b.Obj`` (a package-qualified type) and ``Foo(...)`` through a companion's
        ``apply``."""
        entity = self._type_of(path, scope, parts, arities, ctx)
        self.side = "object" if entity[0] == "def" else "class"  # for the method looked up next
        return entity

    def _type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        head = parts[0]
        if head == "this":
            held = [h for h in self.holders(path, scope) if not h[3].startswith("anon ")]
            kind = "def" if held and held[0][3] == "object" else "inst"
            entity: Entity = (kind, *held[0][:2]) if held else UNK
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

    def call_result(self, entity: Entity, name: str, arity: int) -> Entity:
        """As Java's, the method looked up on the side ``entity`` names."""
        self.side = "object" if entity[0] == "def" else "class"
        return super().call_result(entity, name, arity)

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
        objects = self.sides(path, klass)[0]
        for sym in self.overloads(path).get(f"{klass}.apply", []):
            if any(o.line <= sym.line <= o.end_line for o in objects):
                self.side = "object"
                return self.method(path, klass, "apply", -1)
        return None

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """``x.name``: a field, a nested type, else a parameterless method (its result)."""
        found = self.field_or_nested(entity, name, ctx)
        if found is not None:
            return found
        self.side = "object" if entity[0] == "def" else "class"
        method = self.method(entity[1], entity[2], name, -1)
        if method is not None:
            ctx.inferred = True
            return self.returns(method)
        return self.beyond(entity, name)

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
        for file, owner in self.star_owners(path):
            if self.is_type(file, f"{owner}.{written}"):
                return ("def", file, f"{owner}.{written}")
        return None

    def star_owners(self, path: str) -> list[Type]:
        """The objects the file's wildcard imports name (``import a.Obj._``), worked out
        once per file (while they are, a type is not looked up in them)."""
        found = self._star_owners.get(path)
        if found is None:
            self._star_owners[path] = []
            found = []
            for imp in self.r.index[path].stars.get("", []):
                owner = self.type_named(path, "", imp.module) if imp.module else UNK
                if owner[0] == "def" and self.is_type(owner[1], owner[2]):
                    found.append((owner[1], owner[2]))
            self._star_owners[path] = found
        return found

    def dealias(self, found: Entity) -> Entity:
        """The type an alias ``type X = a.Y[Z]`` stands for (``a.Y``); another as it is."""
        if found[0] != "def" or found in self._aliasing:
            return found
        sym = self.r.index[found[1]].defs[found[2]]
        if sym.kind != "type" or not sym.returns:
            return found
        self._aliasing.add(found)
        try:
            return self.type_named(found[1], parent(found[2]), sym.returns)
        finally:
            self._aliasing.discard(found)

    # ------------------------------------------------------------ the hierarchy

    def _work_out_bases(self, path: str, klass: str) -> Bases:
        """The bases of a class or trait (of an object when no class shares its name), the
        last mixin first."""
        objects, classes = self.sides(path, klass)
        inside = self.typed_bases(path, klass, classes or objects)
        outside = any(
            self.typed(path, parent(klass), b)[0] in ("ext", "elem")
            for d in classes or objects
            for b in d.bases
        )
        return inside, outside, None

    def typed_bases(self, path: str, klass: str, decls: list[Symbol]) -> list[Type]:
        """The repository bases ``decls`` (declarations of ``klass``) extend, the last first."""
        inside: list[Type] = []
        for decl in decls:
            for base in reversed(decl.bases):
                found = self.typed(path, parent(klass), base)
                if found[0] == "inst" and (found[1], found[2]) not in inside:
                    inside.append((found[1], found[2]))
        return inside
