"""Swift call resolution by declared types, on :mod:`kotlin_resolve`'s walk: receivers typed
by ``let x: T`` (``T?``, ``T!`` unwrapped), ``let x = T(...)``, ``var x = T.f()`` or ``x =
a.b().c()`` (through declared return types), parameters and stored or computed properties;
``self``, ``Self`` and ``super`` name the enclosing type (an ``extension T`` of a type declared
anywhere included).

A type's members are those of its declaration and of every ``extension T`` of the repository
(another file, another module); its supertypes those of its declaration and of its extensions
(``extension T: P``), so a protocol's requirements and the defaults of ``extension P`` are
found through a conforming type. Overloads (which share a qualname) are told apart by the
argument labels of the call (``request(for: task)`` is not ``request(url, method: .get)``; a
trailing closure fills a parameter of function type): a chain through overloads whose return
types disagree stays unresolved, and so does a call on a receiver of a repository type that
no overload's labels fit. ``T(...)`` calls the type's ``init`` (the superclass's one a class
inherits) and is the type itself when none is declared (a memberwise or default
initializer); ``-> Self`` gives the receiver's type. A receiver not typed this way is left to
the generic resolver (which links ``x.m()`` by the value ``x`` was given, as before).

A type outside the repository (``DispatchQueue``, ``URLRequest``, ``Error``) that the
repository extends stands for the extensions the caller's file sees (its module's and its
imports', test code's not from other code): their members resolve by labels, a ``static``
one only on the type and another only on a value, an ``init`` only when the call names an
argument (the type's own initializers, overloaded by type, may fit as well); what they do not
declare is the type's own, unresolved. A value of a repository type conforming to one
(``AFError: Error``) reaches its extensions' members too.

``handler?(x)`` calls the optional closure of the property ``handler`` of the enclosing
types, never a function of that name (an @objc protocol's ``optional func`` aside); so does
``handler(x)`` when the property is declared with a closure type and no function fits. A
closure's parameters (named, or ``$0``...) are typed inside the closure only, by the closure
type of the parameter its argument fills in the function the call resolves to (the overloads
its labels fit agreeing; a type alias of a closure type read); a type parameter is not a
type, unless it is the one type parameter of the receiver's type and the receiver was
declared with a type argument (``let s: Protected<State>``: ``s.write { $0.m() }``). A
``catch { }`` without a pattern binds ``error``, an ``any Error``. A value of a type alias
of a repository type is a value of that type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.java_resolve import Method, Type, segments
from clawql_git.codegraph.kotlin_resolve import FUNCTIONS, KotlinCalls
from clawql_git.codegraph.model import Assignment, Call, Symbol
from clawql_git.codegraph.resolve import (
    UNK,
    Entity,
    ResolutionNotes,
    parent,
    strip_generics,
    swift_module_root,
)
from clawql_git.codegraph.swift_closures import CLOSURE_PARAMETER, bind, closure_parameter

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver


# the methods of a Swift array (a collection, a sequence) giving one of its elements
ELEMENT_METHODS = frozenset(
    {"first", "last", "removeFirst", "removeLast", "popFirst", "popLast", "randomElement",
     "min", "max", "next"}
)  # fmt: skip


def is_test(path: str) -> bool:
    """Whether ``path`` is test code (under a ``Tests`` directory), which the code it tests
    does not see."""
    return any(part.endswith("Tests") for part in path.split("/")[:-1])


def is_static(sym: Symbol) -> bool:
    """Whether a member is declared ``static`` (or ``class``): the type's, not a value's."""
    words = sym.signature.split("(", 1)[0].split()[:-2]
    return "static" in words or "class" in words


def labels_given(labels: tuple[str, ...], at: int) -> list[str] | None:
    """The argument labels of call ``at`` of a chain (None: not known)."""
    if at < 0 or at >= len(labels):
        return None
    return [label for label in labels[at].split(",") if label]


def labels_fit(
    params: tuple[str, ...], given: list[str], takes_closure: Callable[[str], bool]
) -> bool:
    """Whether a call with argument labels ``given`` may call a function whose parameters
    are ``params`` (see :func:`swift_closures.bind`)."""
    return bind(params, given, takes_closure) is not None


class SwiftCalls(KotlinCalls):
    """Resolves the calls of Swift files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self._extensions: dict[Type, list[Type]] | None = None  # type -> (file, extension)
        self._extended: dict[Type, Entity] = {}  # (file, extension qualname) -> its type
        self._outside: dict[str, list[Type]] | None = None  # outside type -> its extensions
        self._making: set[tuple[str, str, str]] = set()  # values being typed (a cycle stops)
        self.path = ""  # the file of the call being resolved
        self.labels: tuple[str, ...] = ()  # its argument labels, per call of its chain
        # whether the receiver of the member looked up is a type (None: not known); the
        # static members of an outside type's extensions are told from its instance ones
        self.static: bool | None = None
        self.call_at: tuple[int, str] = (0, "")  # the line and callee of the call resolved
        self.receiver: Entity = UNK  # the receiver of the last function ``called_function`` found

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` points at: a type made is its ``init``; what the declared types do
        not prove is left to the generic resolver."""
        # Java's walk passes each call's argument count down the chain; here it is the index
        # of the call in the chain, whose labels (``self.labels``) pick the overloads
        self.path, self.labels, self.static = path, call.labels, None
        self.call_at = (call.line, call.callee)
        indexed = tuple(range(len(call.labels)))
        call = Call(call.callee, call.caller, call.line, call.column, call.context, indexed)
        if self.labels and self.labels[-1].startswith("?"):  # ``handler?(x)``: no function
            found = self.closure_property(path, scope, call)
            if found[0] != "unk":
                return found
            # ``source?.increment?(forCount: n)``: an optional requirement of an @objc protocol
            self.labels = (*self.labels[:-1], self.labels[-1].removeprefix("?").lstrip(","))
            found = self.member_callee(path, scope, call, ctx)
            return found if self.optional_requirement(found) else UNK
        return self.member_callee(path, scope, call, ctx)

    def member_callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """``callee`` of a call that is no optional closure's."""
        indexed = call.args
        if "." not in call.callee:  # a bare call: on ``self``, or on ``Self`` in a static one
            sym = self.r.index[path].defs.get(scope)
            self.static = sym is not None and sym.kind in FUNCTIONS and is_static(sym)
        if call.callee == "Self":  # ``Self(...)``: the enclosing type's initializer
            around = self.enclosing_types(path, scope)
            return self.initializer(*around[0], len(indexed) - 1) if around else UNK
        found = super().callee(path, scope, call, ctx)
        if found[0] == "ext":  # a method of an array: the repository may extend Array
            return UNK
        if found[0] == "def" and self.is_type(found[1], found[2]):
            return self.initializer(found[1], found[2], len(indexed) - 1)
        if found[0] != "unk" or self.local_call(path, scope, call):
            return found
        held = self.closure_property(path, scope, call, declared=True)  # ``handler(x)``
        if held[0] != "unk":
            return held
        receiver = self.typed_receiver(path, scope, call.callee)
        if receiver is None:
            return self.r.callee(path, scope, call.callee, ctx)
        nested = call.callee.rsplit(".", 1)[-1]  # ``T.Inner(...)``, Inner in an extension
        made = self.nested_in(receiver[1], receiver[2], nested) if receiver[0] == "def" else None
        return self.initializer(made[1], made[2], len(indexed) - 1) if made else UNK

    def closure_property(self, path: str, scope: str, call: Call, declared: bool = False) -> Entity:
        """``handler?(x)`` / ``self.handler?(x)``: the property of that name of the enclosing
        types (their extensions and supertypes) whose optional closure is called (``declared``:
        ``handler(x)``, of a property declared with a closure type, no function of that name
        fitting); unknown for a local, a parameter or another receiver."""
        parts = segments(call.callee)
        if parts is None or len(parts) > 2 or (parts[0] != "self" and len(parts) == 2):
            return UNK
        if len(parts) == 1 and self.is_local(path, scope, call):
            return UNK
        name = parts[-1]
        for file, klass in self.enclosing_types(path, scope):
            for owner_file, owner in [(file, klass), *self.ancestors(file, klass)]:
                for place, qual in self.places(owner_file, owner):
                    found = self.overloads(place).get(f"{qual}.{name}", [])
                    held = [s for s in found if s.kind == "variable"]
                    if held and (not declared or self.holds_closure(place, qual, held[0])):
                        return ("var", place, f"{qual}.{name}")
        return UNK

    def holds_closure(self, path: str, klass: str, sym: Symbol) -> bool:
        """Whether property ``sym`` is declared with a closure type (or an alias of one)."""
        if "->" in sym.signature.partition("=")[0]:
            return True
        written = self.r.index[path].assigns.get((klass, sym.name), [])
        takes = self.closure_type(path, klass)
        return any(a.annotation and not a.span and takes(a.value) for a in written)

    def optional_requirement(self, found: Entity) -> bool:
        """Whether ``found`` is an ``optional func`` requirement of an @objc protocol."""
        sym = self.r.index[found[1]].defs.get(found[2]) if found[0] == "def" else None
        return sym is not None and "optional" in sym.signature.split("func", 1)[0].split()

    def typed_receiver(self, path: str, scope: str, callee: str) -> Entity | None:
        """The receiver of ``callee`` when it has a type of the repository (a bare call: an
        enclosing type with a method of that name), else None. Then no overload's labels
        fitting leaves the call unresolved (the generic resolver would link it by its name
        alone)."""
        parts = segments(callee)
        if parts is None:
            return None
        labels, self.labels = self.labels, ()
        try:
            if len(parts) == 1:
                around = self.enclosing_types(path, scope)
                found = self.implicit(path, scope, parts[0], -1)
                return ("inst", *around[0]) if found is not None else None
            ctx = ResolutionNotes()
            receiver = self.type_of(path, scope, parts[:-1], [-1] * len(parts), ctx)
            typed = receiver[0] in ("inst", "def", "super") and self.is_type(*receiver[1:3])
            return receiver if typed else None
        finally:
            self.labels = labels

    def local_call(self, path: str, scope: str, call: Call) -> bool:
        """A bare call of a local or a parameter (a closure)."""
        return "." not in call.callee and self.is_local(path, scope, call)

    def initializer(self, path: str, klass: str, at: int) -> Entity:
        """``T(...)``: the ``init`` of ``T`` (a class's inherited one) the labels of call
        ``at`` of the chain fit, else ``T`` itself (a memberwise or default one)."""
        if self.is_outside(path, klass):
            return self.outside_initializer(path, klass, at)
        places = [(path, klass)]
        if self.r.index[path].defs[klass].kind == "class":
            places += self.ancestors(path, klass)
        for file, qual in places:
            found = self.declared_here(file, qual, "init", at)
            if found is not None:
                return ("def", found[0], found[1])
        return ("def", path, klass)

    def outside_initializer(self, path: str, klass: str, at: int) -> Entity:
        """``T(...)`` of a type outside the repository: an ``init`` of one of its extensions
        the labels of call ``at`` fit (see ``declared_here``), else unknown."""
        self.static = None
        found = self.declared_here(path, klass, "init", at)
        return ("def", found[0], found[1]) if found is not None else UNK

    def is_local(self, path: str, scope: str, call: Call) -> bool:
        """Whether ``call.callee`` names a local or parameter of the enclosing functions
        declared above the call (``guard let adapter = adapter(for: r)`` calls a method)."""
        cur = scope
        while cur and self.scope_type(path, cur) is None:
            assigns = self.same_overload(path, cur, call.line, (cur, call.callee))
            at = (call.line, call.column)
            if any(
                a.span[:2] <= at <= a.span[2:] if a.span else a.line < call.line or a.annotation
                for a in assigns
            ):
                return True
            cur = parent(cur)
        return False

    # ------------------------------------------------------------ receivers

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """As Kotlin's, with ``super`` of an extension's type and a global function's result
        as heads."""
        found = self.receiver_type(path, scope, parts, arities, ctx)
        self.static = found[0] == "def"
        return found

    def receiver_type(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        head = parts[0]
        if head == "super":
            around = self.enclosing_types(path, scope)
            return ("super", *around[0]) if around and len(parts) == 1 else UNK
        if self.global_call(path, scope, head):
            entity = self.function_result(path, scope, head[:-2], ctx)
            return self.follow_chain(entity, parts[1:], arities[1:], ctx)
        return super().type_of(path, scope, parts, arities, ctx)

    def global_call(self, path: str, scope: str, head: str) -> bool:
        """Whether the head ``f()`` of a chain is no initializer and no method of the
        enclosing types (a global function, or nothing of the repository)."""
        if not head.endswith("()") or self.is_constructor(path, scope, head):
            return False
        return self.implicit(path, scope, head[:-2], -1) is None

    def follow_chain(
        self, entity: Entity, rest: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """The rest of a receiver chain from ``entity`` (calls typed by return types)."""
        calls = iter(arities)
        for part in rest:
            if entity[0] not in ("inst", "def") or not self.is_type(entity[1], entity[2]):
                return UNK
            ctx.inferred = True
            if part.endswith("()"):
                entity = self.call_result(entity, part[:-2], next(calls, -1))
            else:
                entity = self.member(entity, part, ctx)
        return entity

    def function_result(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """What a call of the global function ``name`` gives, by its declared return type."""
        found = self.r.callee(path, scope, name, ResolutionNotes())
        if found[0] != "def" or self.r.index[found[1]].defs[found[2]].kind != "function":
            return UNK
        ctx.inferred = True
        fits = self.overloads(found[1]).get(found[2], [])
        if len({s.returns for s in fits}) != 1:
            return UNK
        return self.returns((found[1], found[2], fits[0]))

    def call_result(self, entity: Entity, name: str, arity: int) -> Entity:
        """What ``x.name(...)`` gives; ``-> Self`` gives the type of ``x``; an array's
        ``removeFirst()``, ``first(where:)``... its element."""
        if entity[0] == "elem":
            return ("inst", *entity[1:3]) if name in ELEMENT_METHODS else UNK
        self.static = entity[0] == "def"
        if entity[0] in ("inst", "def") and self.is_type(entity[1], entity[2]):
            found = self.method(entity[1], entity[2], name, arity)
            if found is not None and found[2].returns == "Self":
                return ("inst", entity[1], entity[2])
            if found is not None and name == "init":
                return ("inst", entity[1], entity[2])
        return super().call_result(entity, name, arity)

    def variable(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """What a simple name denotes: ``self``/``Self``, a local or parameter of the
        enclosing functions, a property of the enclosing types (their extensions and
        supertypes too), else a type or a name of the module."""
        if name in ("self", "Self"):
            around = self.enclosing_types(path, scope)
            if not around:
                return UNK
            return ("inst" if name == "self" else "def", *around[0])
        cur = scope
        while cur:
            owner = self.scope_type(path, cur)
            if owner is not None:
                found = self.field(owner[0], owner[1], name, ctx)
                if found is not None:
                    return found
            else:
                seen = self.in_scope(path, cur, self.r.index[path].assigns.get((cur, name), []))
                if seen:
                    return self.declared(path, cur, seen, ctx)
            cur = parent(cur)
        if name[:1].isupper():
            typed = self.type_named(path, scope, name)
            if typed[0] != "unk":
                return typed
        return self.r.name(path, scope, name, ctx, 0)

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """The type a variable is declared with, else the type of the value it is given
        (``T(...)``, ``T.make()``, ``a.b().c()``)."""
        ctx.inferred = True  # the declared type: the object may be of a subtype
        typed = {a.value for a in assigns if a.annotation}
        if len(typed) > 1:
            return UNK
        if typed:
            return self.typed(path, scope, typed.pop())
        made = {self.made(path, scope, a, ctx) for a in assigns}
        return made.pop() if len(made) == 1 else UNK

    def made(self, path: str, scope: str, given: Assignment, ctx: ResolutionNotes) -> Entity:
        """The type of the value a variable is given: the result of a call ``value(...)``,
        or (``=value``) what the name ``value`` holds, read above the declaration (``if let
        x = x`` reads the ``x`` declared before)."""
        value = given.value
        if value.startswith("{"):  # a closure's parameter
            closure = CLOSURE_PARAMETER.match(value)
            return self.closure_argument(path, scope, given, closure, ctx) if closure else UNK
        if value.startswith("[]="):  # ``for x in xs``: an element of ``xs``
            parts = segments(value[3:])
            found = self.type_of(path, scope, parts, [], ctx) if parts else UNK
            return ("inst", *found[1:3]) if found[0] == "elem" else UNK
        parts = segments(value[1:] if value.startswith("=") else f"{value}()")
        key = (path, scope, value)
        if parts is None or key in self._making:
            return UNK
        self._making.add(key)
        line, self.line = self.line, given.line - 1
        labels, self.labels = self.labels, given.labels  # the value's calls' labels
        try:
            found = self.type_of(path, scope, parts, list(range(len(given.labels))), ctx)
            return found if value.startswith("=") else self.instance(found)
        finally:
            self.line, self.labels = line, labels
            self._making.discard(key)

    def closure_argument(
        self, path: str, scope: str, given: Assignment, found: re.Match[str], ctx: ResolutionNotes
    ) -> Entity:
        """Parameter I of the closure given as argument ARG of the call CALLEE: typed by the
        closure type of the function parameter the argument fills (``performEvent { $0.m() }``
        with ``func performEvent(_ event: (any EventMonitor) -> Void)``: an EventMonitor)."""
        place, index, callee = int(found.group(1)), int(found.group(2)), found.group(3)
        key = (path, scope, given.value)
        if key in self._making:
            return UNK
        self._making.add(key)
        line, self.line = self.line, given.line - 1
        labels, self.labels = self.labels, given.labels
        try:
            function = self.called_function(path, scope, callee, ctx)
        finally:
            self.line, self.labels = line, labels
            self._making.discard(key)
        if function is None:
            return UNK
        file, qual, _ = function
        receiver, self.receiver = self.receiver, UNK
        named = set()
        for sym in self.overloads(file).get(qual, []):  # those the labels fit: one type
            written = self.parameter_type(file, qual, sym, given.labels, place)
            named.add(closure_parameter(self.unaliased(file, parent(qual), written), index))
        written = (named - {""}).pop() if len(named - {""}) == 1 else ""
        if written and self.generic(file, qual, written):
            return self.type_argument(file, parent(qual), receiver, written, ctx)
        if not written:
            return UNK
        ctx.inferred = True
        return self.typed(file, parent(qual), written)

    def type_argument(
        self, path: str, klass: str, receiver: Entity, written: str, ctx: ResolutionNotes
    ) -> Entity:
        """The type argument a receiver of a generic type of one type parameter was declared
        with (``let s: Protected<State>``), when ``written`` is that parameter."""
        sym = self.r.index[path].defs.get(klass)
        generics = re.match(r"[^<(]*<([^<>]*)>", sym.signature) if sym is not None else None
        if generics is None or len(receiver) != 5 or receiver[2] != klass:
            return UNK
        params = [p.split(":")[0].strip() for p in generics.group(1).split(",")]
        if params != [written]:
            return UNK
        ctx.inferred = True
        return ("inst", receiver[3], receiver[4])

    def called_function(
        self, path: str, scope: str, callee: str, ctx: ResolutionNotes
    ) -> Method | None:
        """The function the call ``callee`` (its labels in ``self.labels``) calls, by the
        declared types; its receiver is kept in ``self.receiver``."""
        parts = segments(callee)
        self.receiver = UNK
        at = len(self.labels) - 1
        if parts is None:
            return None
        if len(parts) == 1:
            found = self.implicit(path, scope, parts[0], at)
            return found if found is not None else self.global_function(path, scope, parts[0])
        receiver = self.type_of(path, scope, parts[:-1], list(range(len(self.labels))), ctx)
        self.receiver = receiver
        if receiver[0] == "super":
            return self.method_in_bases(receiver[1], receiver[2], parts[-1], at)
        if receiver[0] in ("inst", "def") and self.is_type(receiver[1], receiver[2]):
            return self.method(receiver[1], receiver[2], parts[-1], at)
        return None

    def global_function(self, path: str, scope: str, name: str) -> Method | None:
        """The global function ``name`` in reach of ``path`` (not a local closure)."""
        if self.local_call(path, scope, Call(name, scope, self.line + 1, 0, "body")):
            return None
        found = self.r.callee(path, scope, name, ResolutionNotes())
        if found[0] != "def" or self.r.index[found[1]].defs[found[2]].kind != "function":
            return None
        return found[1], found[2], self.r.index[found[1]].defs[found[2]]

    def parameter_type(
        self, file: str, qual: str, sym: Symbol, labels: tuple[str, ...], place: int
    ) -> str:
        """The type written for the parameter argument ``place`` of the call fills ('' when
        the labels do not fit ``sym``)."""
        given = labels_given(labels, len(labels) - 1) or []
        if sym.kind not in FUNCTIONS:
            return ""
        filled = bind(sym.labels, given, self.closure_type(file, parent(qual)))
        if filled is None or place >= len(filled) or filled[place] < 0:
            return ""
        written = sym.labels[filled[place]].partition(":")[2].rstrip("=").removesuffix("...")
        return written[1:-1] if written.startswith("{") else written

    def unaliased(self, path: str, scope: str, written: str) -> str:
        """A closure type a type alias of the repository names, else ``written``."""
        bare = written.split("?")[0].split()[-1] if written.strip() else ""
        if "(" in written or not bare:
            return written
        found = self.type_named(path, scope, bare)
        sym = self.r.index[found[1]].defs.get(found[2]) if found[0] == "def" else None
        if sym is None or sym.kind != "type" or "->" not in sym.signature:
            return written
        return sym.signature.partition("=")[2].strip()

    def generic(self, path: str, qual: str, name: str) -> bool:
        """Whether ``name`` is a type parameter of the function ``qual`` or of a type around
        it (``<Value>``, ``<T: Decodable>``, ``where`` clauses aside)."""
        pattern = re.compile(rf"<([^>]*[,\s])?{re.escape(name.split('.')[0])}\b")
        owners = [qual, *(t for _, t in self.enclosing_types(path, qual))]
        defs = self.r.index[path].defs
        return any(o in defs and pattern.search(defs[o].signature) for o in owners)

    def same_overload(
        self, path: str, scope: str, line: int, key: tuple[str, str]
    ) -> list[Assignment]:
        """The declarations of a local or parameter in the overload of ``scope`` around
        ``line`` (overloads share a qualname, so their locals share a scope)."""
        assigns = self.r.index[path].assigns.get(key, [])
        spans = [(s.line, s.end_line) for s in self.overloads(path).get(scope, [])]
        around = [span for span in spans if span[0] <= line <= span[1]]
        if len(spans) < 2 or not around:
            return assigns
        return [a for a in assigns if around[0][0] <= a.line <= around[0][1]]

    def typed(self, path: str, scope: str, written: str) -> Entity:
        """A value of the declared type ``written`` (``Self``: the enclosing type; ``[T]``: an
        array of ``T``, whose ``first(where:)``... give a ``T``, as Java's containers)."""
        if written == "Self":
            around = self.enclosing_types(path, scope)
            return ("inst", *around[0]) if around else UNK
        if written.startswith("[") and written.endswith("]"):  # an array of the element
            element = self.type_named(path, scope, written[1:-1])
            return ("elem", *element[1:3]) if element[0] == "def" else UNK
        return self.aliased(super().typed(path, scope, written), 0)

    def aliased(self, entity: Entity, depth: int) -> Entity:
        """A value of the type a type alias names (``typealias AFDataResponse<S> =
        DataResponse<S, AFError>``: a ``DataResponse``); the alias of another type (a closure,
        a composition) as it is."""
        sym = self.r.index[entity[1]].defs.get(entity[2]) if entity[0] == "inst" else None
        if sym is None or sym.kind != "type" or depth > 4:
            return entity
        named = strip_generics(sym.signature.partition("=")[2].strip())
        if not re.fullmatch(r"[A-Za-z_][\w.]*", named):
            return entity
        found = self.instance(self.type_named(entity[1], parent(entity[2]), named))
        return self.aliased(found, depth + 1) if found[0] == "inst" else entity

    def in_scope(self, path: str, scope: str, assigns: list[Assignment]) -> list[Assignment]:
        """The declarations of a local the call sees: the nearest one above it, in the
        overload it sits in (``var x = try x.f()``: not the one the call gives its value)."""
        if assigns:
            assigns = self.same_overload(path, scope, self.line, (scope, assigns[0].target))
        at = (self.line, self.column)  # a closure's parameter: inside it only, the innermost
        around = [a for a in assigns if a.span and a.span[:2] <= at <= a.span[2:]]
        if around:
            return [max(around, key=lambda a: a.span[:2])]
        assigns = [a for a in assigns if not a.span]
        given = [a for a in assigns if self.gives(a)]
        assigns = [a for a in assigns if a not in given]
        above = [a for a in assigns if a.line <= self.line]
        if not above:
            return [] if given else assigns
        nearest = max(a.line for a in above)
        return [a for a in above if a.line == nearest]

    def gives(self, given: Assignment) -> bool:
        """Whether the call resolved (or one of its chain) is the value of ``given``."""
        line, callee = self.call_at
        value = given.value
        return (
            line == self.line == given.line
            and not given.annotation
            and (value == callee or value.startswith(f"{callee}()"))
        )

    # ------------------------------------------------------------ types and members

    def scope_type(self, path: str, scope: str) -> Type | None:
        """The type ``scope`` is the body of: a type declared in ``path`` or one an
        ``extension`` of ``path`` extends."""
        if self.is_type(path, scope):
            return (path, scope)
        found = self.extended(path, scope)
        return (found[1], found[2]) if found[0] == "def" else None

    def extended(self, path: str, qual: str) -> Entity:
        """The type ``extension qual`` of ``path`` extends (unknown when ``path`` has no such
        extension or the type is not the repository's)."""
        key = (path, qual)
        if key not in self._extended:
            found: Entity = UNK
            if self.is_type(path, qual):
                found = ("def", path, qual)
            elif qual in self.extension_names(path):
                # the generic lookup (the file, its module, its imports): no supertype is
                # needed to find what an extension extends
                file, named = self.r._type_def(path, "", qual, False)
                found = ("def", file, named) if file and self.is_type(file, named) else UNK
                if found[0] == "unk":  # a type outside the repository: the extension itself
                    found = ("def", path, qual)
            self._extended[key] = found
        return self._extended[key]

    def outside_types(self) -> dict[str, list[Type]]:
        """The types outside the repository the repository extends (``extension
        DispatchQueue``): each name to its extensions (file, qualname), in path order."""
        if self._outside is None:
            self._outside = {}
            for file in sorted(self.r.index):
                if self.r.index[file].facts.language != "swift":
                    continue
                for qual in sorted(self.extension_names(file)):
                    own = super().is_type(file, qual)  # ``extension T`` beside ``T``
                    if not own and self.extended(file, qual) == ("def", file, qual):
                        self._outside.setdefault(qual, []).append((file, qual))
        return self._outside

    def is_outside(self, path: str, qual: str) -> bool:
        """Whether ``qual`` of ``path`` is an extension of a type outside the repository."""
        return (path, qual) in self.outside_types().get(qual, ())

    def outside_places(self, path: str, written: str) -> list[Type]:
        """The extensions of the outside type ``written`` that ``path`` sees: those of its
        module and of the modules it imports."""
        places = self.outside_types().get(written, [])
        if not places:
            return []
        idx = self.r.index[path]
        imported = {f for imp in idx.facts.imports for f in self.r.module_files(path, imp.module)}
        root, tests = swift_module_root(path), is_test(path)
        return [
            (f, q)
            for f, q in places
            if (swift_module_root(f) == root or f in imported) and (tests or not is_test(f))
        ]

    def extension_names(self, path: str) -> set[str]:
        return {s.qualname for s in self.r.index[path].facts.symbols if s.kind == "extension"}

    def enclosing_types(self, path: str, scope: str) -> list[Type]:
        """The types around ``scope`` (extended ones included), innermost first."""
        out = []
        cur = scope
        while cur:
            owner = self.scope_type(path, cur)
            if owner is not None:
                out.append(owner)
            cur = parent(cur)
        return out

    def _type_named(self, path: str, scope: str, written: str) -> Entity:
        """As Java's, a member type found in the extensions of the enclosing types (and of
        their supertypes) too, and ``T.Inner`` in the extensions of ``T``."""
        head, _, rest = written.partition(".")
        for file, qual in self.enclosing_types(path, scope):
            for owner_file, owner in [(file, qual), *self.ancestors(file, qual)]:
                found = self.nested_in(owner_file, owner, written)
                if found is not None:
                    return found
        found = super()._type_named(path, scope, written)
        if found[0] == "unk" and rest:
            outer = self.type_named(path, scope, head)
            inner = self.nested_in(outer[1], outer[2], rest) if outer[0] == "def" else None
            found = inner or UNK
        if found[0] in ("unk", "ext"):  # a type outside the repository, extended in it
            seen = self.outside_places(path, written)
            return ("def", *seen[0]) if seen else found
        return found

    def nested_in(self, path: str, klass: str, written: str) -> Entity | None:
        """The type ``written`` (``Inner``, ``Inner.Deeper``) declared in ``klass`` or one of
        its extensions."""
        head, _, rest = written.partition(".")
        for file, qual in self.places(path, klass):
            if self.is_type(file, f"{qual}.{head}"):
                return (
                    self.nested_in(file, f"{qual}.{head}", rest)
                    if rest
                    else ("def", file, f"{qual}.{head}")
                )
        return None

    def places(self, path: str, klass: str) -> list[Type]:
        """Where the members of ``klass`` are declared: its body, then its extensions (of a
        type outside the repository: its extensions the caller's file sees)."""
        if self.is_outside(path, klass):
            seen = self.outside_places(self.path or path, klass)
            return [(path, klass), *(p for p in seen if p != (path, klass))]
        if self._extensions is None:
            self._extensions = {}
            for file in sorted(self.r.index):
                if self.r.index[file].facts.language != "swift":
                    continue
                for qual in sorted(self.extension_names(file)):
                    found = self.extended(file, qual)
                    if found[0] == "def" and (file, qual) != (found[1], found[2]):
                        self._extensions.setdefault((found[1], found[2]), []).append((file, qual))
        return [(path, klass), *self._extensions.get((path, klass), [])]

    def declared_here(self, path: str, klass: str, name: str, at: int) -> Method | None:
        """The declarations ``klass.name`` in the body or the extensions of ``klass`` that
        the labels of call ``at`` of the chain fit (-1: any)."""
        given = labels_given(self.labels, at)
        # the initializers of an outside type, overloaded by type, may take unnamed arguments
        # as well as one of its extensions: one must name an argument (``self.init()`` no)
        named = given is not None and any(label not in ("_", "{") for label in given)
        fits = []
        for file, qual in self.places(path, klass):
            if name == "init" and not named and self.is_outside(file, qual):
                continue
            for sym in self.overloads(file).get(f"{qual}.{name}", []):
                if sym.kind not in FUNCTIONS or not self.on_receiver(file, qual, sym):
                    continue
                if given is None or labels_fit(sym.labels, given, self.closure_type(file, qual)):
                    fits.append((file, sym))
        if not fits:
            return None
        # overloads of several files the labels fit (a default value, a closure taken for a
        # parameter of another type) are not told apart: the caller's own file first
        file, sym = next((f for f in fits if f[0] == self.path), fits[0])
        if len({s.returns for _, s in fits}) == 1:
            return file, sym.qualname, sym
        return file, sym.qualname, replace(sym, returns="")

    def on_receiver(self, path: str, klass: str, sym: Symbol) -> bool:
        """Whether ``sym``, of an extension of an outside type, may be called on the receiver:
        a ``static``/``class`` one on the type, another on a value."""
        if self.static is None or not self.is_outside(path, klass):
            return True
        return is_static(sym) == self.static

    def closure_type(self, path: str, scope: str) -> Callable[[str], bool]:
        """Whether a parameter type written in ``scope`` of ``path`` takes a closure: a
        function type, or a type alias of one of the repository."""

        def takes(written: str) -> bool:
            if written.startswith("{") or not written:
                return bool(written)
            found = self.type_named(path, scope, written)
            sym = self.r.index[found[1]].defs.get(found[2]) if found[0] == "def" else None
            return sym is not None and sym.kind == "type" and "->" in sym.signature

        return takes

    def method(self, path: str, klass: str, name: str, arity: int) -> Method | None:
        """``klass.name`` in ``klass`` (its extensions too) or the nearest supertype."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            found = self.declared_here(file, qual, name, arity)
            if found is not None:
                return found
        return None

    def field(self, path: str, klass: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """The type of property ``name`` of ``klass`` (its extensions, its supertypes)."""
        for file, qual in [(path, klass), *self.ancestors(path, klass)]:
            for place, owner in self.places(file, qual):
                assigns = [
                    a for a in self.r.index[place].assigns.get((owner, name), []) if not a.span
                ]
                if assigns:
                    return self.declared(place, owner, assigns, ctx)
        return None

    def is_type(self, path: str, qual: str) -> bool:
        """A type of the repository, or an extension of a type outside it."""
        return super().is_type(path, qual) or self.is_outside(path, qual)

    def element_of(self, path: str, klass: str, depth: int = 0) -> Type | None:
        return None if self.is_outside(path, klass) else super().element_of(path, klass, depth)

    def _work_out_bases(self, path: str, klass: str) -> tuple[list[Type], bool, Type | None]:
        """What ``klass`` derives from: its declaration's bases and its extensions' (a type
        outside the repository, or deriving from one it extends, reaches outside)."""
        if self.is_outside(path, klass):  # what an outside type conforms to is not looked at
            return [], True, None
        inside, outside, element = super()._work_out_bases(path, klass)
        outside = outside or any(self.is_outside(*base) for base in inside)
        for file, qual in self.places(path, klass)[1:]:
            for sym in self.r.index[file].facts.symbols:
                if sym.kind != "extension" or sym.qualname != qual:
                    continue
                for base in sym.bases:
                    found = self.typed(file, parent(qual), base)
                    if found[0] == "inst" and (found[1], found[2]) not in inside:
                        inside.append((found[1], found[2]))
        return inside, outside, element
