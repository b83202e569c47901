"""Java call resolution by declared types: receivers typed by their declarations (locals,
parameters, fields, method return types), methods looked up through the class hierarchy and
told apart by argument count.

A callee as ``lang_java`` writes it (``doc.body().select``, ``new Foo().run``, ``super.m``,
``Outer.Inner.make().go``) is read left to right: the head is ``this``, ``super``, ``new T()``,
a bare call ``m()`` (a method of the enclosing classes) or a name (a variable, a field, a
type); each ``.f`` is a field or a nested type, each ``.m()`` a method whose declared return
type types what follows. Anything not proven (a type variable, a cast, an array element, an
overload set whose return types disagree) leaves the call unresolved. A container of the
JDK declared with a repository class as its last type argument (``List<Node>``, ``Map<String,
Tag>``, ``Iterator<Attribute>``) is an entity ('elem', file, class): its ``get()``, ``next()``,
``getValue()``... give that class.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Call, Symbol
from clawql_git.codegraph.resolve import (
    CLASSLIKE,
    UNK,
    Entity,
    ResolutionNotes,
    parent,
    strip_generics,
)

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

SEGMENT = re.compile(r"^[A-Za-z_$][\w$]*(\(\))?$")
CAST = re.compile(r"^\(\(([A-Za-z_$][\w$.]*)\) ")
# methods of the JDK's containers (List, Map, Iterator, Optional, Deque...) giving an element:
# the last type argument (``Map<K, V>.get`` gives a V)
ELEMENT_METHODS = frozenset(
    {
        "get", "getFirst", "getLast", "next", "previous", "peek", "peekFirst", "peekLast",
        "pop", "poll", "pollFirst", "pollLast", "element", "getValue", "orElse",
        "orElseThrow", "orElseGet", "take", "first", "last", "floor", "ceiling",
    }
)  # fmt: skip
# ...and those giving a container of the same elements
SAME_ELEMENTS = frozenset(
    {"iterator", "listIterator", "descendingIterator", "subList", "values", "reversed"}
)
MAX_BASES = 24  # the longest hierarchy walked from one class
Method = tuple[str, str, Symbol]  # (file, qualname, one declaration)
Type = tuple[str, str]  # (file, qualname) of a class of the repository
# what a class derives from: its repository bases, whether one base is outside the repository,
# the element class of an outside container it extends (``extends ArrayList<Element>``)
Bases = tuple[list[Type], bool, Type | None]


def element_type(written: str) -> str:
    """The last type argument of a declared type, itself without arguments (``Map<String,
    ? extends Node>`` -> ``Node``); '' when there is none."""
    start = written.find("<")
    if start < 0 or not written.endswith(">"):
        return ""
    inner, depth, last = written[start + 1 : -1], 0, 0
    for i, ch in enumerate(inner):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            last = i + 1
    arg = strip_generics(inner[last:].strip())
    return arg.removeprefix("?extends") if arg != "?" else ""


def segments(callee: str) -> list[str] | None:
    """``new a.B().c().d`` -> ['new a.B()', 'c()', 'd']; None for what is not a chain of
    names and calls (a cast, an array element, a literal)."""
    head: list[str] = []
    rest = callee
    if callee.startswith("(("):  # a cast: ``((Element) node).attr``
        end = _closing(callee)
        if end < 0 or not CAST.match(callee[: end + 1]) or callee[end + 1 : end + 2] != ".":
            return None
        head, rest = [callee[: end + 1]], callee[end + 2 :]
    elif callee.startswith("new "):
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


def _closing(text: str) -> int:
    """The index of the parenthesis closing the one ``text`` starts with, or -1."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i
    return -1


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
        self._bases: dict[Type, Bases] = {}
        # worked out once per resolver (it is rebuilt when a file's facts change)
        self._types: dict[tuple[str, str, str], Entity] = {}
        self._ancestors: dict[Type, list[Type]] = {}
        self._pending = 0  # how many classes' bases are being worked out
        self.line = 0  # the line of the call being resolved (picks a local's declaration)

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at."""
        parts = segments(call.callee)
        if parts is None:
            return UNK
        self.line = call.line
        calls = [p for p in parts[:-1] if p.endswith("()") and not CAST.match(p)]
        arities = list(call.args) if len(call.args) == len(calls) + 1 else [-1] * (len(calls) + 1)
        last = parts[-1]
        if len(parts) == 1:
            found = self.implicit(path, scope, last, arities[-1])
            if found is not None:
                return ("def", found[0], found[1])
            made = self.type_named(path, scope, last) if last[:1].isupper() else UNK
            return made if made[0] == "def" else self.r.callee(path, scope, call.callee, ctx)
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
            return ("ext", last) if receiver[0] in ("ext", "elem") else UNK
        if found is None:
            return ("ext", last) if self.reaches_outside(receiver[1], receiver[2]) else UNK
        return ("def", found[0], found[1])

    # ------------------------------------------------------------ receivers

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """The type a receiver chain has: ('inst', file, class) for a value (('inst', file,
        class, element file, element class) for a generic one given an element type, as
        ``Nodes<Node>``), ('def', file, class) for a type named statically, ('super', file,
        class) for ``super``, ('elem', file, class) for an outside container of that class."""
        head, rest = parts[0], parts[1:]
        calls = iter(arities)
        if head == "super":
            klass = self.r._enclosing_class(path, scope)
            entity: Entity = ("super", path, klass) if klass and not rest else UNK
            return entity
        ctx.inferred = ctx.inferred or head.startswith(("new ", "((")) or head.endswith("()")
        cast = CAST.match(head)
        if cast is not None:
            entity = self.instance(self.type_named(path, scope, cast.group(1)))
        elif head.startswith("new "):
            next(calls, -1)  # the constructor's arguments
            entity = self.instance(self.type_named(path, scope, head[4:-2]))
        elif head.endswith("()"):
            found = self.implicit(path, scope, head[:-2], next(calls, -1))
            entity = self.returns(found) if found is not None else UNK
        elif head == "this":
            entity = self.this_value(path, scope, ctx)
        else:
            entity = self.variable(path, scope, head, ctx)
        for part in rest:
            if part.endswith("()"):  # typed by a declared return type: inferred
                ctx.inferred = True
                entity = self.call_result(entity, part[:-2], next(calls, -1))
            elif entity[0] in ("inst", "def") and self.is_type(entity[1], entity[2]):
                entity = self.member(entity, part, ctx)
            else:
                return entity if entity[0] == "ext" else UNK
        return entity

    def this_value(self, path: str, scope: str, ctx: ResolutionNotes) -> Entity:
        """What ``this`` is in ``scope``: an instance of the enclosing class."""
        return self.r.name(path, scope, "this", ctx, 0)

    def call_result(self, entity: Entity, name: str, arity: int) -> Entity:
        """What ``x.name(...)`` gives, ``x`` being ``entity``."""
        element: Type | None = None
        if entity[0] == "elem":
            element = (entity[1], entity[2])
        elif entity[0] in ("inst", "def") and self.is_type(entity[1], entity[2]):
            found = self.method(entity[1], entity[2], name, arity)
            if found is not None:
                return self.returns(found)
            element = self.element_of(entity[1], entity[2])
            if element is None and len(entity) == 5:  # given as a type argument
                element = (entity[3], entity[4])
        elif entity[0] == "ext":
            return entity
        if element is None:
            return UNK
        if name in ELEMENT_METHODS:
            return ("inst", *element)
        return ("elem", *element) if name in SAME_ELEMENTS else ("ext", name)

    def variable(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """What a simple name denotes as an expression (JLS 6.5.6.1): a local or parameter of
        the enclosing methods, a field of the enclosing classes (inherited ones too), else a
        type or an import (methods live in another name space and are skipped)."""
        cur = scope
        while cur:
            if self.is_type(path, cur):
                found = self.field(path, cur, name, ctx)
                if found is not None:
                    return found
            else:
                seen = self.in_scope(path, cur, self.r.index[path].assigns.get((cur, name), []))
                if seen:  # (a local of another overload is not seen)
                    return self.declared(path, cur, seen, ctx)
            cur = parent(cur)
        imported = self.static_field(path, name, ctx)
        if imported is not None:
            return imported
        if name[:1].isupper():
            typed = self.type_named(path, scope, name)
            if typed[0] != "unk":
                return typed
        return self.r.name(path, scope, name, ctx, 0)

    def static_field(self, path: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """A field (an enum constant) imported by ``import static``."""
        for owner in self.static_owners(path, name):
            found = self.field(owner[0], owner[1], name, ctx)
            if found is not None:
                return found
        return None

    def static_owners(self, path: str, name: str) -> list[Type]:
        """The classes ``import static`` lines of ``path`` may bring ``name`` from."""
        idx = self.r.index[path]
        out = []
        for imp in [*idx.imports.get(("", name), []), *idx.stars.get("", [])]:
            owner = self._qualified(path, imp.module) if "." in imp.module else UNK
            if owner[0] == "def":
                out.append((owner[1], owner[2]))
        return out

    def in_scope(self, path: str, scope: str, assigns: list[Assignment]) -> list[Assignment]:
        """The declarations of a name that the call being resolved sees: those of the
        overload the call sits in, the nearest one above the call (a name declared again in
        a later block)."""
        spans = [(s.line, s.end_line) for s in self.r.index[path].overloads.get(scope, [])]
        around = [span for span in spans if span[0] <= self.line <= span[1]]
        if around:
            assigns = [a for a in assigns if around[0][0] <= a.line <= around[0][1]]
        above = [a for a in assigns if a.annotation and a.line <= self.line]
        if above:
            nearest = max(a.line for a in above)
            return [a for a in above if a.line == nearest]
        return assigns

    def field(self, path: str, klass: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """The type of field ``name`` of ``klass`` or of the nearest base declaring it."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            assigns = self.r.index[file].assigns.get((qual, name))
            if assigns:
                return self.declared(file, qual, assigns, ctx)
        return None

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """``x.name`` where ``x`` has a type of the repository: a field, else a nested type."""
        found = self.field_or_nested(entity, name, ctx)
        return found if found is not None else self.beyond(entity, name)

    def field_or_nested(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity | None:
        """``x.name`` as a field of ``x``'s type (or a base's), else as a type nested in it."""
        found = self.field(entity[1], entity[2], name, ctx)
        if found is not None:
            return found
        nested = f"{entity[2]}.{name}"
        return ("def", entity[1], nested) if self.is_type(entity[1], nested) else None

    def beyond(self, entity: Entity, name: str) -> Entity:
        """A member the repository does not declare: outside when the type reaches outside."""
        outside = entity[0] == "inst" and self.reaches_outside(entity[1], entity[2])
        return ("ext", name) if outside else UNK

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """The type a variable is declared with (``var x = new Foo()``: the constructor's)."""
        ctx.inferred = True  # the declared type: the object may be of a subtype
        typed = {a.value for a in assigns if a.annotation}
        if len(typed) > 1:  # the same name declared in two blocks with two types
            return UNK
        if typed:
            return self.typed(path, scope, typed.pop())
        return self.r.infer(path, scope, assigns, ctx, 0)

    def typed(self, path: str, scope: str, written: str) -> Entity:
        """A value of the declared type ``written`` (``List<Node>``: an outside container of
        the repository class ``Node``)."""
        found = self.type_named(path, scope, strip_generics(written))
        element = element_type(written)
        if found[0] == "def":  # ``Nodes<Node>``: the element a generic container is given
            inner = self.type_named(path, scope, element) if element else UNK
            return ("inst", *found[1:], *inner[1:]) if inner[0] == "def" else ("inst", *found[1:])
        if found[0] == "ext" and element:
            inner = self.type_named(path, scope, element)
            if inner[0] == "def":
                return ("elem", *inner[1:])
        return found

    @staticmethod
    def instance(entity: Entity) -> Entity:
        return ("inst", *entity[1:]) if entity[0] == "def" else entity

    def type_named(self, path: str, scope: str, written: str) -> Entity:
        """The class a type written in ``scope`` of ``path`` names (JLS 6.5.5): a member type
        of an enclosing class or of its supertypes (innermost first), a type of the file, a
        single-type import, a type of the same package, a fully qualified name, else the way
        any name resolves there."""
        key = (path, scope, written)
        if key in self._types:
            return self._types[key]
        found = self._type_named(path, scope, written)
        if not self._pending:  # while bases are worked out a lookup may be partial
            self._types[key] = found
        return found

    def _type_named(self, path: str, scope: str, written: str) -> Entity:
        head, _, rest = written.partition(".")
        for file, qual in self.enclosing_types(path, scope) if not rest else ():
            bound = self.r.index[file].assigns.get((qual, f"<{head}>"))
            if bound:  # a type variable of the class: its bound
                return self.type_named(file, parent(qual), strip_generics(bound[0].value))
        for file, qual in self.enclosing_types(path, scope):
            for owner_file, owner in [(file, qual), *self.ancestors(file, qual)]:
                if self.is_type(owner_file, f"{owner}.{head}"):
                    return self._nested(owner_file, f"{owner}.{head}", rest)
        if self.is_type(path, head):
            return self._nested(path, head, rest)
        found = self._imported(path, head, rest)
        if found is not None:
            return found
        if head[:1].islower() and rest:
            return self._qualified(path, written)
        return self.named_elsewhere(path, scope, written)

    def named_elsewhere(self, path: str, scope: str, written: str) -> Entity:
        """A type named neither in the file nor by a single-type import: the way any name
        resolves in ``scope``."""
        file, qual = self.r._type_def(path, scope, written, False)
        if file:
            return ("def", file, qual)
        return ("ext", written) if qual == "external" else UNK

    def _imported(self, path: str, head: str, rest: str) -> Entity | None:
        """``head`` bound by a single-type import, else a type of the file's package."""
        if ("", head) in self.r.index[path].imports:
            found = self.r._in_scope(path, "", head, ResolutionNotes(), 0)
        else:
            found = self.r._namespace_mate(path, head)
        if found is None or found[0] != "def":
            return found if found is not None and found[0] == "ext" else None
        return self._nested(found[1], found[2], rest)

    def _qualified(self, path: str, written: str) -> Entity:
        """A fully qualified type (``org.acme.Outer.Inner``): its file and qualname there."""
        parts = written.split(".")
        for file in self.r.module_files(path, written)[:1]:
            for start in range(len(parts)):
                if self.is_type(file, ".".join(parts[start:])):
                    return ("def", file, ".".join(parts[start:]))
        return UNK

    def enclosing_types(self, path: str, scope: str) -> list[Type]:
        """The classes around ``scope`` (``scope`` itself when it is one), innermost first."""
        out = []
        cur = scope
        while cur:
            if self.is_type(path, cur):
                out.append((path, cur))
            cur = parent(cur)
        return out

    def _nested(self, path: str, qual: str, rest: str) -> Entity:
        full = f"{qual}.{rest}" if rest else qual
        return ("def", path, full) if self.is_type(path, full) else UNK

    def returns(self, found: Method) -> Entity:
        """The value a method's declared return type gives (unknown when the overloads that
        fit disagree)."""
        file, qual, sym = found
        return self.typed(file, parent(qual), sym.returns) if sym.returns else UNK

    # ------------------------------------------------------------ methods

    def implicit(self, path: str, scope: str, name: str, arity: int) -> Method | None:
        """A bare ``m(...)`` (JLS 15.12.1): a method of the innermost enclosing class that
        has one named ``m`` (its bases included), else one imported by ``import static``."""
        for file, klass in self.enclosing_types(path, scope):
            found = self.method(file, klass, name, arity)
            if found is not None:
                return found
        for owner in self.static_owners(path, name):
            found = self.method(owner[0], owner[1], name, arity)
            if found is not None:
                return found
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
        sym = self.r.index[path].defs.get(qual) if path in self.r.index else None
        return sym is not None and sym.kind in CLASSLIKE

    def bases(self, path: str, klass: str) -> Bases:
        """What ``klass`` extends or implements (see :data:`Bases`), in the order written."""
        key = (path, klass)
        if key not in self._bases:
            self._bases[key] = ([], False, None)  # a cycle (A extends B extends A) stops here
            self._pending += 1
            try:
                self._bases[key] = self._work_out_bases(path, klass)
            finally:
                self._pending -= 1
        return self._bases[key]

    def _work_out_bases(self, path: str, klass: str) -> Bases:
        inside: list[Type] = []
        outside = False
        element: Type | None = None
        for base in self.r.index[path].defs[klass].bases:
            found = self.typed(path, parent(klass), base)
            if found[0] == "inst":
                inside.append((found[1], found[2]))
            elif found[0] == "elem":
                element = element or (found[1], found[2])
            outside = outside or found[0] in ("ext", "elem")
        return inside, outside, element

    def ancestors(self, path: str, klass: str) -> list[Type]:
        """Every repository supertype of ``klass``, breadth first (a class's own bases before
        theirs)."""
        key = (path, klass)
        if key in self._ancestors:
            return self._ancestors[key]
        seen = {key}
        queue = [key]
        out: list[Type] = []
        while queue and len(out) < MAX_BASES:
            here = queue.pop(0)
            for base in self.bases(*here)[0]:
                if base not in seen:
                    seen.add(base)
                    out.append(base)
                    queue.append(base)
        if not self._pending:  # while bases are worked out a walk may be partial
            self._ancestors[key] = out
        return out

    def reaches_outside(self, path: str, klass: str) -> bool:
        """Whether ``klass`` or one of its repository supertypes derives from a type outside
        the repository (so an undeclared member may be inherited from there)."""
        return any(self.bases(f, q)[1] for f, q in [(path, klass), *self.ancestors(path, klass)])

    def element_of(self, path: str, klass: str, depth: int = 0) -> Type | None:
        """The element class of the outside container ``klass`` extends, directly or through
        a repository base given it as a type argument (``Elements extends Nodes<Element>``,
        ``Nodes<T> extends ArrayList<T>``)."""
        own = self.bases(path, klass)[2]
        if own is not None or depth > MAX_BASES:
            return own
        for written in self.r.index[path].defs[klass].bases:
            base = self.typed(path, parent(klass), written)
            if base[0] != "inst":
                continue
            found = self.element_of(base[1], base[2], depth + 1)
            if found is not None:
                return found
            argument = element_type(written)
            if argument and self.reaches_outside(base[1], base[2]):
                given = self.type_named(path, parent(klass), argument)
                if given[0] == "def":
                    return (given[1], given[2])
        return None
