"""PHP call resolution by declared types: receivers typed by their declarations (typed and
promoted properties, ``@var`` docblocks, typed parameters, ``$x = new Foo()``, declared
return types), methods looked up through the class, its traits and its parents.

A callee as ``lang_php`` writes it (``this.repo.find``, ``x.load().save``, ``Foo.make``,
``parent.__construct``, ``new Foo().run``, ``Foo`` for ``new Foo``) is read left to right:
the head is ``this``, ``self``, ``parent``, ``new T()``, a variable of the calling function
or a class name; each ``.p`` is a property, each ``.m()`` a method whose declared return type
(``: Foo``, ``: self``, ``: static``, else its ``@return``) types what follows; ``[]`` is an
element of an array declared ``Foo[]`` (``array<K, Foo>``, ``list<Foo>``). A variable is typed
by the evidence it has where the call is: that of the innermost ``instanceof`` / ``catch``
block or closure around the call, else the function's own. Class names are resolved the way
PHP resolves them: a ``use`` alias, else the file's namespace (no global fallback for
classes), or fully qualified. Anything not proven (an untyped variable, variables of two
types, a union of classes) is left to the generic resolver, which handles functions and
includes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawql_git.codegraph.lua_scopes import Point, in_span
from clawql_git.codegraph.model import Assignment, Call
from clawql_git.codegraph.resolve import CLASSLIKE, UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

Type = tuple[str, str]  # (file, qualname) of a class-like of the repository
# a receiver: ('inst', file, class) a value, ('def', file, class) a class named statically,
# ('super', file, class) ``parent`` seen from ``class``, ('ext', name) outside the repository,
# ('elems', file, class) an array of instances of the class (``@var Route[]``), ('unk', name)
# a variable of the function with evidence only in blocks or closures not around the call
Receiver = tuple[str, ...]
OUTSIDE: Receiver = ("ext", "")
UNBOUND: Receiver = ("unk", "this")  # ``$this`` in a closure another object may be bound to
NO_THIS = "?"  # the value lang_php gives ``this`` in a closure handed to a call
MAX_LINEAGE = 32  # the most classes, traits and interfaces walked from one class
ORDER = ("uses", "extends", "implements")  # own methods, then traits, parents, interfaces


def segments(callee: str) -> list[str] | None:
    """``new A.B().c().d`` -> ['new A.B()', 'c()', 'd']; None when not such a chain."""
    head: list[str] = []
    rest = callee
    if callee.startswith("new "):
        end = callee.find("()")
        if end < 0:
            return None
        head, rest = [callee[: end + 2]], callee[end + 3 :]
        if not rest:
            return None
    parts: list[str] = []
    for part in rest.split("."):  # ``routes[]``: the property, then one of its elements
        parts += [part[:-2], "[]"] if part.endswith("[]") and len(part) > 2 else [part]
    if not all(p == "[]" or p.removesuffix("()").replace("_", "a").isalnum() for p in parts):
        return None
    return head + parts


def visible(assigns: list[Assignment], at: Point) -> list[Assignment]:
    """The evidence of a variable seen at ``at``: that of the innermost closure or narrowing
    (``instanceof``, ``catch``) around it, else that of the function (outside any closure)."""
    around = [a for a in assigns if a.span and in_span(a.span, at)]
    if not around:
        return [a for a in assigns if not a.span]
    inner = max(a.span[:2] for a in around)
    return [a for a in around if a.span[:2] == inner]


class PhpCalls:
    """Resolves the calls of PHP files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._classes: dict[str, list[Type]] | None = None  # full name -> declarations
        self._lineage: dict[Type, tuple[list[Type], bool]] = {}
        self._types: dict[tuple[str, int, str], Receiver | None] = {}
        # the variables and properties whose types are being worked out, and those worked out
        self._working: set[tuple[str, tuple[Assignment, ...]]] = set()
        self._declared: dict[tuple[str, tuple[Assignment, ...]], Receiver | None] = {}

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What ``call`` made in ``scope`` of ``path`` points at (the generic resolver's
        answer for what declared types do not prove)."""
        notes = ResolutionNotes()
        found = self.typed_callee(path, scope, call.callee, (call.line, call.column), notes)
        if found is None:
            return self.r.callee(path, scope, call.callee, ctx)
        ctx.inferred = ctx.inferred or notes.inferred
        return found

    def typed_callee(
        self, path: str, scope: str, callee: str, at: Point, ctx: ResolutionNotes
    ) -> Entity | None:
        parts = segments(callee)
        if parts is None or parts[-1] == "[]":
            return None
        if len(parts) == 1:
            return self.construct(self.class_named(path, at[0], parts[0]))
        receiver = self.receiver(path, scope, parts[:-1], at, ctx)
        if receiver is not None and receiver[0] == "unk":
            return UNK
        if receiver is None and not any(s in callee for s in ("()", "[]")) and "new " not in callee:
            named = self.class_named(path, at[0], ".".join(parts[:-1]))  # ``\A\B::m()``
            receiver = named if named is not None and named[0] == "def" else None
        return self.method_of(receiver, parts[-1]) if receiver is not None else None

    def construct(self, made: Receiver | None) -> Entity | None:
        """``new Foo``: the ``__construct`` Foo declares or inherits, else the class (a
        name no repository class has may be a function: left to the generic resolver)."""
        if made is None or made[0] != "def":
            return None
        found = self.method_of(made, "__construct")
        return found if found is not None and found[0] == "def" else made

    def method_of(self, receiver: Receiver, name: str) -> Entity | None:
        """Method ``name`` called on ``receiver``; external when it may come from outside."""
        if receiver[0] == "ext":
            return ("ext", name)
        if receiver[0] == "elems":  # an array has no methods
            return None
        file, klass = receiver[1], receiver[2]
        if receiver[0] == "super":  # ``parent::m()``: looked up from the parent class
            found = [self.method_of(b, name) for b in self.bases(file, klass, "extends") if b]
            return found[0] if found else None
        lineage, outside = self.lineage(file, klass)
        for owner_file, owner in lineage:
            sym = self.r.index[owner_file].defs.get(f"{owner}.{name}")
            if sym is not None and sym.kind in ("method", "function"):
                return ("def", owner_file, sym.qualname)
        return ("ext", name) if outside else None

    # ------------------------------------------------------------ receivers

    def receiver(
        self, path: str, scope: str, parts: list[str], at: Point, ctx: ResolutionNotes
    ) -> Receiver | None:
        """The type of a receiver chain (see :data:`Receiver`), None when not proven."""
        entity, rest = self.narrowed(path, scope, parts, at), parts[2:]
        if entity is not None:
            ctx.inferred = True
        else:
            entity, rest = self.head(path, scope, parts[0], at, ctx), parts[1:]
        if entity is None:
            entity, rest = self.qualified(path, parts, at)
        for part in rest:
            if entity is None or entity[0] in ("ext", "unk"):
                return entity
            ctx.inferred = True  # a declared type: the object may be of a subtype
            if part == "[]":
                entity = ("inst", *entity[1:]) if entity[0] == "elems" else None
            elif part.endswith("()"):
                entity = self.result(entity, part[:-2])
            else:
                entity = self.property(entity, part) if entity[0] == "inst" else None
        return entity

    def qualified(
        self, path: str, parts: list[str], at: Point
    ) -> tuple[Receiver | None, list[str]]:
        """``\\A\\B::make()->run()``: the class a qualified name before the first call names."""
        calls = [i for i, p in enumerate(parts) if p.endswith("()") or p == "[]"]
        first = calls[0] if calls else len(parts)
        named = self.class_named(path, at[0], ".".join(parts[:first])) if first > 1 else None
        return (named, parts[first:]) if named is not None and named[0] == "def" else (None, [])

    def narrowed(self, path: str, scope: str, parts: list[str], at: Point) -> Receiver | None:
        """``$this->x`` where ``if ($this->x instanceof Foo)`` holds: a ``Foo``."""
        if len(parts) < 2 or parts[0] != "this" or not parts[1].replace("_", "a").isalnum():
            return None
        attrs = self.r.index[path].self_attrs.get((parent(scope), parts[1]), [])
        seen = visible([a for a in attrs if narrows(a) and a.scope == scope], at)
        return self.declared(path, seen) if seen else None

    def head(
        self, path: str, scope: str, head: str, at: Point, ctx: ResolutionNotes
    ) -> Receiver | None:
        line = at[0]
        klass = self.r._enclosing_class(path, scope) or self.class_scope(path, scope)
        if head == "this" and self.unbound(path, scope, at):
            return UNBOUND
        if head in ("this", "self", "parent"):
            kind = {"this": "inst", "self": "def", "parent": "super"}[head]
            return (kind, path, klass) if klass else None
        if head.startswith("new "):
            ctx.inferred = True
            made = self.class_named(path, line, head[4:-2])
            return ("inst", *made[1:]) if made is not None and made[0] == "def" else made
        if head.endswith("()"):
            return None  # a function's result: left to the generic resolver
        held = self.r.index[path].assigns.get((scope, head), [])
        assigns = visible(held, at)
        if assigns:
            ctx.inferred = True
            return self.declared(path, assigns)
        if held:  # typed only in a block or closure that is not around the call
            return ("unk", head)
        named = self.class_named(path, line, head)  # ``Foo::make()->run()``
        return named if named is not None and named[0] == "def" else None

    def unbound(self, path: str, scope: str, at: Point) -> bool:
        """Whether ``$this`` at ``at`` is that of a closure handed to a call."""
        seen = visible(self.r.index[path].assigns.get((scope, "this"), []), at)
        return bool(seen) and all(a.value == NO_THIS for a in seen)

    def class_scope(self, path: str, scope: str) -> str:
        """``scope`` itself when it is a class (a property's default value)."""
        sym = self.r.index[path].defs.get(scope)
        return scope if sym is not None and sym.kind in CLASSLIKE else ""

    def declared(self, path: str, assigns: list[Assignment]) -> Receiver | None:
        """The one type the assignments of a variable or property agree on (its declared
        type when it has one: a typed parameter or property, a ``@var`` docblock)."""
        assigns = [a for a in assigns if a.annotation] or assigns
        key = (path, tuple(assigns))
        if key in self._declared:
            return self._declared[key]
        if key in self._working or len(self._working) > 8:  # ``$r = $r->with()``: a cycle
            return None
        self._working.add(key)
        try:
            found = {self.assigned(path, a) for a in assigns}
        finally:
            self._working.discard(key)
        result = found.pop() if len(found) == 1 else None
        if not self._working:  # (one worked out inside another may have met a cycle)
            self._declared[key] = result
        return result

    def assigned(self, path: str, a: Assignment) -> Receiver | None:
        """What one assignment proves: a declared type, ``new Foo``, an element of an array
        (``foreach``, ``$xs[$k]``), or a call's result."""
        at = (a.line, 0)
        if a.annotation:
            return self.typed(path, a.line, a.value)
        if a.value.endswith("[]"):
            parts = segments(a.value)
            return self.receiver(path, a.scope, parts, at, ResolutionNotes()) if parts else None
        made = self.class_named(path, a.line, a.value)
        if made is not None and made[0] == "def":
            return ("inst", *made[1:])
        called = self.typed_callee(path, a.scope, a.value, at, ResolutionNotes())
        if called is None or called[0] != "def":
            return OUTSIDE if called is not None and called[0] == "ext" else None
        return self.returns(("inst", called[1], parent(called[2])), called[1], called[2])

    def result(self, entity: Receiver, name: str) -> Receiver | None:
        """What ``x->name()`` gives by the method's declared return type."""
        found = self.method_of(entity, name)
        if found is None or found[0] != "def":
            return OUTSIDE if found is not None else None
        return self.returns(entity, found[1], found[2])

    def returns(self, receiver: Receiver, file: str, method: str) -> Receiver | None:
        """What a call of ``method`` on ``receiver`` gives by its declared return type (or
        its ``@return``)."""
        written = self.r.index[file].defs[method].returns
        one = written.removesuffix("[]")
        if one == "static" and receiver[0] in ("inst", "def"):
            found: Receiver = ("inst", receiver[1], receiver[2])
        elif one == "self":
            found = ("inst", file, parent(method))
        else:
            return self.typed(file, self.r.index[file].defs[method].line, written)
        return ("elems", *found[1:]) if written.endswith("[]") else found

    def typed(self, path: str, line: int, written: str) -> Receiver | None:
        """A value of the type ``written`` at ``line`` of ``path`` (``Foo``, ``Foo[]``)."""
        if written.endswith("[]"):
            inner = self.typed(path, line, written[:-2])
            return ("elems", *inner[1:]) if inner is not None and inner[0] == "inst" else inner
        made = self.class_named(path, line, written)
        return ("inst", *made[1:]) if made is not None and made[0] == "def" else made

    def property(self, entity: Receiver, name: str) -> Receiver | None:
        """The declared type of property ``name`` of the class of ``entity``."""
        for file, klass in self.lineage(entity[1], entity[2])[0]:
            idx = self.r.index[file]
            attrs = idx.self_attrs.get((klass, name), [])
            assigns = [*idx.assigns.get((klass, name), []), *(a for a in attrs if not narrows(a))]
            if assigns:
                return self.declared(file, assigns)
        return None

    # ------------------------------------------------------------ names

    def classes(self) -> dict[str, list[Type]]:
        """Full class name (``App\\Http\\Kernel``) -> the PHP files declaring it."""
        if self._classes is None:
            self._classes = {}
            for path, idx in sorted(self.r.index.items()):
                if idx.facts.language != "php":
                    continue
                for sym in idx.facts.symbols:
                    if sym.kind in CLASSLIKE and "." not in sym.qualname:
                        full = _join(self.namespace(path, sym.line), sym.qualname)
                        self._classes.setdefault(full, []).append((path, sym.qualname))
        return self._classes

    def namespace(self, path: str, line: int) -> str:
        """The namespace in force at ``line`` of ``path`` ('' for the global one)."""
        names = [s for s in self.r.index[path].facts.symbols if s.kind == "module"]
        above = [s.name for s in names if s.line <= line]
        return above[-1] if above else ""

    def class_named(self, path: str, line: int, written: str) -> Receiver | None:
        """The class a name written at ``line`` of ``path`` denotes: ('def', file, class),
        OUTSIDE for a class the repository does not declare, None for no class name."""
        key = (path, line, written)
        if key not in self._types:
            self._types[key] = self._class_named(path, line, written)
        return self._types[key]

    def _class_named(self, path: str, line: int, written: str) -> Receiver | None:
        if not written or not written[:1].isalpha() or written.lower() in ("self", "static"):
            return None
        head, _, rest = written.partition(".")
        imports = [
            i
            for i in self.r.index[path].imports.get(("", head), [])
            if i.line <= line and i.module.rsplit("\\", 1)[-1] == i.name
        ]
        if imports:
            full = _join(imports[-1].module, rest.replace(".", "\\"))
        else:
            full = _join(self.namespace(path, line), written.replace(".", "\\"))
        found = self.classes().get(full, [])  # case kept: ``$route`` is no ``Route``
        if not found and rest:  # written fully qualified (``\A\B``: the ``\`` is dropped)
            found = self.classes().get(written.replace(".", "\\"), [])
        if len(found) == 1:
            return ("def", *found[0])
        return OUTSIDE if not found else None

    # ------------------------------------------------------------ the hierarchy

    def lineage(self, path: str, klass: str) -> tuple[list[Type], bool]:
        """``klass`` then where PHP looks for its methods: its traits, its parents (each with
        theirs), its interfaces; and whether one of them is not the repository's."""
        key = (path, klass)
        if key not in self._lineage:
            self._lineage[key] = ([key], False)  # a cycle stops here
            out, outside = [key], False
            for relation in ORDER:
                for base in self.bases(path, klass, relation):
                    if base == OUTSIDE or base is None:
                        outside = True
                        continue
                    theirs, beyond = self.lineage(base[1], base[2])
                    out += [t for t in theirs if t not in out]
                    outside = outside or beyond
            self._lineage[key] = (out[:MAX_LINEAGE], outside)
        return self._lineage[key]

    def bases(self, path: str, klass: str, relation: str) -> list[Receiver | None]:
        return [
            self.class_named(path, s.line, s.base)
            for s in self.r.index[path].facts.supertypes
            if s.child == klass and s.relation == relation
        ]


def narrows(a: Assignment) -> bool:
    """An ``instanceof`` or ``catch`` narrowing: it holds in its block only."""
    return a.annotation and bool(a.span)


def _join(namespace: str, name: str) -> str:
    return f"{namespace}\\{name}" if namespace and name else namespace or name
