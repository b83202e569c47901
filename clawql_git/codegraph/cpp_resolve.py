"""C++ call resolution by declared types, on the facts of a :class:`Resolver`.

Name lookup as C++ does it (cppreference: unqualified and qualified name lookup, member
access): in a function, a local or parameter of the very definition the call is in (gtest's
``TEST(a, b) {...}`` bodies, or a function's overloads, share one qualname: a declaration in
another of them is not seen), then the members of the enclosing class and its bases (``this``
is typed by the class for out-of-line definitions ``void buffer<T>::f() { g(); }`` too), then
the enclosing namespaces and the included headers (``Resolver._cfamily``). ``obj.f`` and
``p->f`` (both written ``obj.f``) look ``obj`` up so and then its type's members; a type alias
(``using memory_buffer = basic_memory_buffer<char>;``) is followed to the type it names.
``.`` is member access, never a qualified name: ``fmt.format`` of a field ``fmt`` is not
``fmt::format``.

What stays unresolved: in a class template, a bare name found only in a base (the base may
depend on the template's parameters, where C++ does not look); a member reached through the
bases of a class declared with different bases in one file (specialisations, ``#if``
branches); an alias whose declarations do not all name one type. Overloads of one file share
their qualname, so they are one target; overloads defined in several files the call sees
are told apart by the number of arguments (``lang_cpp`` records arities and argument
counts), else the call is unresolved.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import DECLARATION, Assignment, Call, Symbol
from clawql_git.codegraph.resolve import (
    CALLABLE,
    CLASSLIKE,
    DOTTED,
    UNK,
    Entity,
    ResolutionNotes,
    parent,
)
from clawql_git.codegraph.resolve import takes as fits
from clawql_git.codegraph.ts_util import strip_generics

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

DEPENDENT_BASES = "dependent bases"  # the decorator (``lang_cpp``) of a class whose bases
# name a template parameter: a bare name in its methods is not looked up in them
MAX_ALIASES = 8  # ``using a = b; using b = c;``: how many aliases are followed


class CppCalls:
    """Resolves the calls of C++ files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._declared: dict[str, Counter[str]] = {}  # per file: declarations per qualname
        self._bases: dict[str, set[str]] = {}  # per file: classes declared with several bases
        self._spans: dict[str, dict[str, list[tuple[int, int]]]] = {}  # per file: definitions
        self._functions: dict[str, dict[str, list[Symbol]]] = {}

    def declared(self, path: str, sym: Symbol) -> int:
        """How many times the file of ``path`` declares ``sym``'s qualname."""
        if path not in self._declared:
            self._declared[path] = Counter(s.qualname for s in self.r.index[path].facts.symbols)
        return self._declared[path][sym.qualname]

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at (a member declared
        in a header and defined in this very file: this file's definition)."""
        found = self.overloads(path, self.lookup(path, scope, call, ctx), call)
        if found[0] == "def" and found[1] != path:
            own = self.r.index[path].defs.get(found[2])
            if own is not None and own.kind in ("function", "method"):
                return ("def", path, found[2])
        return found

    def overloads(self, path: str, found: Entity, call: Call) -> Entity:
        """A function found by name is proven when every function of that qualname the file
        sees (in it and the headers it includes) that the call's argument count fits is
        defined in one file (declarations elsewhere are that function's); overloads
        defined in two files (``fmt::format`` of ``format.h`` and of ``xchar.h``) that the
        count does not tell apart are unproven."""
        if found[0] != "def" or found[1] not in self.r.index:
            return found
        sym = self.r.index[found[1]].defs[found[2]]
        if sym.kind not in ("function", "method") or sym.params < 0:
            return found  # a class, or a macro (expanded whatever overloads there are)
        arguments = call.args[-1] if call.args else -1
        defining: set[str] = set()
        declaring: set[str] = set()
        for f in {found[1], *self.r.visible(path)}:
            for other in self.functions(f).get(found[2], ()):
                if fits(other, arguments):
                    (declaring if DECLARATION in other.decorators else defining).add(f)
        if len(defining) > 1 or (not defining and len(declaring) > 1):
            return UNK
        if not defining and not declaring:
            return UNK  # no declaration takes that many arguments: something else is called
        if found[1] in defining or found[1] in declaring:
            return found  # (a declaration: followed to its definition by the resolver)
        return ("def", next(iter(defining or declaring)), found[2])

    def functions(self, path: str) -> dict[str, list[Symbol]]:
        """Every function and method symbol of ``path`` by qualname (overloads together)."""
        if path not in self._functions:
            out: dict[str, list[Symbol]] = {}
            for sym in self.r.index[path].facts.symbols:
                if sym.kind in ("function", "method"):
                    out.setdefault(sym.qualname, []).append(sym)
            self._functions[path] = out
        return self._functions[path]

    def lookup(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the callee of ``call`` denotes, by C++ name lookup (see the module doc)."""
        head, *members = call.callee.split(".")
        if not head:
            return UNK
        local = self.local(path, scope, head, call.line, ctx)
        if not members:
            if local is not None:  # a local (a lambda, a function pointer) hides the rest
                return UNK
            member = self.own_member(path, scope, head, ctx)
            return member if member is not None else self.r.callee(path, scope, head, ctx)
        if local is not None:
            entity = local
        elif self.declared_elsewhere(path, scope, head):  # by another ``TEST`` body
            entity = self.receiver(path, parent(scope), head, ctx)
        else:
            entity = self.receiver(path, scope, head, ctx)
        for part in (strip_generics(m) for m in members):  # ``specs.fill_unit<Char>``
            if entity[0] in ("unk", "ext") or not DOTTED.match(part):
                return entity if entity[0] == "ext" else UNK
            entity = self.member(self.unalias(entity, ctx), part, ctx)
        return entity

    def local(
        self, path: str, scope: str, name: str, line: int, ctx: ResolutionNotes
    ) -> Entity | None:
        """The type of the local or parameter ``name`` declared in the definition of
        ``scope`` that holds ``line``; None when that definition declares no ``name``."""
        if not scope or "::" in name or name == "this":  # ``this``: the enclosing class
            return None
        assigns = self.r.index[path].assigns.get((scope, name))
        span = self.definition(path, scope, line)
        if assigns and span is not None:
            assigns = [a for a in assigns if span[0] <= a.line <= span[1]]
        assigns = [a for a in assigns or () if not a.value.startswith("=")]  # not an alias
        if not assigns:
            return None
        return self.unalias(self.r.infer(path, scope, assigns, ctx, 1), ctx)

    def declared_elsewhere(self, path: str, scope: str, name: str) -> bool:
        """Is ``name`` a local of another definition named ``scope`` (not of the one
        ``local`` looked in)? Then the scope's own lookup would see that one's."""
        if not scope or name == "this":
            return False
        return bool(self.r.index[path].assigns.get((scope, name)))

    def definition(self, path: str, scope: str, line: int) -> tuple[int, int] | None:
        """The lines of the definition named ``scope`` that holds ``line`` (None when there
        is none: a call of a class body or of the file)."""
        if path not in self._spans:
            spans: dict[str, list[tuple[int, int]]] = {}
            for sym in self.r.index[path].facts.symbols:
                if sym.kind in ("function", "method"):
                    spans.setdefault(sym.qualname, []).append((sym.line, sym.end_line))
            self._spans[path] = spans
        holding = [sp for sp in self._spans[path].get(scope, ()) if sp[0] <= line <= sp[1]]
        return min(holding, key=lambda sp: sp[1] - sp[0]) if holding else None

    def enclosing(self, path: str, scope: str, ctx: ResolutionNotes) -> Entity:
        """The class a method body's ``this`` is, when the method is one."""
        return self.r.name(path, scope, "this", ctx, 0) if scope else UNK

    def own_member(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity | None:
        """``g()`` in a method: a member of its class or of a base (class scope comes before
        the enclosing namespaces); None when the class has no member ``g``."""
        if "::" in name:
            return None
        notes = ResolutionNotes()  # ``this`` is the class the definition is written in: exact
        klass = self.enclosing(path, scope, notes)
        if klass[0] != "inst":
            return None
        found = self.member(klass, name, notes)
        if found[0] not in ("def", "ext"):
            return None
        # a base outside the repository may declare ``g`` (external). In a class template
        # a bare name is not looked up in a base that depends on the template's parameters
        # (cppreference, dependent names); the bases as stored do not say which one does,
        # so a member of a base is then unproven, and so is the namespace's ``g``
        owner = self.r.index[klass[1]].defs[klass[2]]
        direct = found == ("def", klass[1], f"{klass[2]}.{name}")
        return found if direct or DEPENDENT_BASES not in owner.decorators else UNK

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """The member ``name`` of what ``entity`` is. A class declared more than once in its
        file with different bases (specialisations ``template <> struct formatter<X> :
        formatter<Y>``, ``#if`` branches) shares one qualname: its own members are that
        qualname's, but which bases hold the rest is unproven."""
        if entity[0] in ("def", "inst") and self.specialised(entity[1], entity[2]):
            own = self.r.index[entity[1]].defs.get(f"{entity[2]}.{name}")
            return ("def", entity[1], own.qualname) if own and own.kind in CALLABLE else UNK
        return self.r.attribute(entity, name, ctx, 0)

    def specialised(self, path: str, qual: str) -> bool:
        """Is ``qual`` declared in ``path`` as classes with different bases?"""
        if path not in self._bases:
            found: dict[str, set[tuple[str, ...]]] = {}
            for sym in self.r.index[path].facts.symbols:
                if sym.kind in CLASSLIKE:
                    found.setdefault(sym.qualname, set()).add(sym.bases)
            self._bases[path] = {q for q, bases in found.items() if len(bases) > 1}
        return qual in self._bases[path]

    def receiver(self, path: str, scope: str, head: str, ctx: ResolutionNotes) -> Entity:
        """What ``obj`` of ``obj.f`` is: a member of the enclosing class (``fmt`` of
        ``fmt.format`` a field), else a name of the file's scopes and headers."""
        entity = self.r.name(path, scope, head, ctx, 0) if DOTTED.match(head) else UNK
        if entity[0] == "unk":
            entity = self.r.expression(path, scope, head.replace("::", "."), ctx)
        return self.unalias(entity, ctx)

    def unalias(self, entity: Entity, ctx: ResolutionNotes) -> Entity:
        """An alias ``using A = B<int>;`` (or an instance of it) -> what ``B`` is."""
        for _ in range(MAX_ALIASES):
            if entity[0] not in ("def", "inst"):
                return entity
            idx = self.r.index[entity[1]]
            sym = idx.defs.get(entity[2])
            if sym is None:
                return entity
            aliases = [
                a
                for a in idx.assigns.get((parent(entity[2]), sym.name), [])
                if a.value.startswith("=")
            ]
            if sym.kind != "type" and not aliases:
                return entity  # a class, with no alias of its name in an ``#if`` branch
            named = alias_of(aliases, self.declared(entity[1], sym))
            if not named:  # not one type in every declaration (``#if`` branches)
                return UNK
            target = self.r.expression(entity[1], parent(entity[2]), named, ctx)
            if target[0] != "def":
                return target if target[0] == "ext" else UNK
            entity = (entity[0], target[1], target[2])
        return UNK


def alias_of(assigns: list[Assignment], declared: int) -> str:
    """The dotted type the aliases ``assigns`` name (``=basic_memory_buffer``), when each of the
    ``declared`` declarations of the name (specialisations, ``#if`` branches) is one of them,
    all naming that one type."""
    named = [a.value[1:].replace("::", ".") for a in assigns]
    return named[0] if len(named) == declared and len(set(named)) == 1 else ""
