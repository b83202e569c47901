"""Rust call resolution by declared types (The Rust Reference: method call expressions, paths,
associated items, implementations): receivers typed by ``self`` (the impl's type, in a trait
the trait), ``let x: T``, parameters, struct fields and the declared return types of the
functions a value comes from (``T::new()`` / ``-> Self``, ``-> Result<T, E>`` unwrapped by
``?``, ``.unwrap()`` or ``.expect()``, an ``async fn``'s result by ``.await``); methods looked
up in the ``impl T`` and ``impl Trait for T`` blocks of the crate (any file), then in the
traits ``T`` implements (their default methods) and their supertraits.
A value of a declared type outside the repository (``req: http::Request``) has the methods of
the repository traits implemented for that type (``impl RequestExt for Request``) where the
trait is in scope; ``T::f`` with ``T: A + B`` is the one bound trait's declaring ``f``.

A callee as ``lang_rust`` writes it (``Router::new().route().layer``, ``self.inner.call``,
``client.get().await``, ``a()?.b``) is read left to right. Anything not proven (a type
parameter, a blanket impl, a closure, an enum variant, a method of a std or dependency type)
stays unresolved, or external when the type is outside the crate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Call, Import, Supertype
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent
from clawql_git.codegraph.rust_types import (
    FUTURES,
    KEEP_WRAPPED,
    POINTERS,
    PRELUDE,
    SEE_THROUGH,
    STD_BOUNDS,
    UNWRAP,
    WRAPPED,
    Token,
    bare_type,
    derived_methods,
    split_generic,
    tokens,
)

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

TYPES = frozenset({"struct", "enum", "trait", "type"})
MAX_DEPTH = 12
Type = tuple[str, str]  # (file, qualname) of a type of the repository
# A value: ('val', file, type qualname, layers): layers outermost first, 'r' a Result or
# an Option of it, 'f' a future of it; ('ext', name); ('ext', path, 'type'): a value of a
# declared type outside the repository (``http::Request``); ('unk',).
Value = tuple[str, ...]
Point = tuple[int, int]  # (line 1-based, column) of a call or a declaration


def sees(asg: Assignment, at: Point, skip: str | None) -> bool:
    """Whether a declaration is in scope at ``at``: within its span when it has one (a
    ``let``, a closure's or a pattern's names), else declared on an earlier line (a
    parameter, ``self``, an assignment; ``skip``: the target typed on ``at``'s line)."""
    if asg.span:
        return (asg.span[0], asg.span[1]) <= at <= (asg.span[2], asg.span[3])
    return asg.line < at[0] or (asg.line == at[0] and asg.target != skip)


def declared_at(asg: Assignment) -> Point:
    """Where a declaration starts to hold: the start of its span, else its line (an inner
    block's declaration starts later, so it shadows an outer one)."""
    return (asg.span[0], asg.span[1]) if asg.span else (asg.line, -1)


def outside(value: Value) -> Value:
    """What a value outside the repository gives (a call, ``?``, ``.await``): external, of
    no known type."""
    return ("ext", value[1]) if value[0] == "ext" else UNK


def foreign_name(written: str) -> str:
    """One spelling of a path outside the repository (``http.Request``, as an import is
    followed, and ``http::Request``)."""
    return written.replace(".", "::")


def before(asg: Assignment) -> Point:
    """A point of a declaration's initialiser: just before its span (its line without
    one)."""
    return (asg.span[0], asg.span[1] - 1) if asg.span else (asg.line, 0)


@dataclass
class Impls:
    """What the crate's ``impl`` blocks give each type: its methods (with whether each sits
    in a trait impl), the traits it implements, whether one is outside the repository, the
    ``type Output`` of its ``IntoFuture``/``Future`` impl."""

    methods: dict[Type, dict[str, list[tuple[str, str, bool]]]] = field(default_factory=dict)
    traits: dict[Type, list[Type]] = field(default_factory=dict)
    outside: set[Type] = field(default_factory=set)
    futures: set[Type] = field(default_factory=set)
    derived: dict[Type, set[str]] = field(default_factory=dict)
    outputs: dict[Type, list[tuple[str, str, str]]] = field(default_factory=dict)
    # a type outside the repository (``http::Request``) -> the repository traits implemented
    # for it: (trait, file of the impl, qualname prefix of its methods)
    foreign: dict[str, list[tuple[Type, str, str]]] = field(default_factory=dict)


class RustCalls:
    """Resolves the calls of Rust files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._impls: Impls | None = None
        self._types: dict[tuple[str, str, str], Entity] = {}
        self._values: dict[tuple[str, Assignment], Value | None] = {}
        self._tokens: dict[str, list[Token] | None] = {}
        self._names: dict[tuple[str, str, str], Entity] = {}
        self._visible: dict[tuple[str, str, Entity, str], bool] = {}
        self.caller = self.scope = ""  # the file and scope of the call being resolved

    def tokens(self, written: str) -> list[Token] | None:
        """:func:`tokens`, memoised (the same callees recur across a crate)."""
        if written not in self._tokens:
            self._tokens[written] = tokens(written)
        return self._tokens[written]

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at."""
        self.caller, self.scope = path, scope  # (a trait's methods: where it is in scope)
        parts = self.tokens(call.callee)
        if not parts or parts[-1].call or parts[-1].tries or parts[-1].path == "await":
            return UNK
        last = parts[-1].path
        if len(parts) == 1:
            return self.function(path, scope, last, (call.line, call.column))
        receiver = self.chain(path, scope, parts[:-1], (call.line, call.column), ctx, 0)
        if parts[0].path != "self" or len(parts) > 2:
            ctx.inferred = True
        if "::" in last:
            return UNK
        return self.method_of(receiver, last)

    def chain(
        self, path: str, scope: str, parts: list[Token], at: Point, ctx: ResolutionNotes, depth: int
    ) -> Value:
        """The value a chain of links gives, read left to right."""
        if depth > MAX_DEPTH:
            return UNK
        head = parts[0]
        if head.call:
            made = self.function(path, scope, head.path, at)
            value = self.returned(made, None, depth + 1)
        elif "::" in head.path or head.path == "await":
            return UNK
        else:
            value = self.variable(path, scope, head.path, at, None, depth + 1)
            if value[0] == "unk" and head.path[:1].isupper():  # a unit struct: ``Fail.m()``
                value = self.returned(self.function(path, scope, head.path, at), None, depth)
        value = self.tried(value, head.tries)
        for part in parts[1:]:
            value = self.step(value, part, depth + 1)
            if value[0] == "unk":
                return UNK
        return value

    def step(self, value: Value, part: Token, depth: int) -> Value:
        """The value of ``value.part`` (a field, a method call, ``.await``)."""
        if part.path == "await":
            return self.tried(self.awaited(value), part.tries)
        if "::" in part.path:
            return UNK
        if not part.call:
            return self.tried(self.field(value, part.path, depth + 1), part.tries)
        return self.tried(self.called(value, part.path, depth + 1), part.tries)

    def called(self, value: Value, name: str, depth: int) -> Value:
        """What ``value.name(...)`` gives."""
        if value[0] == "bnd":
            target = self.bound_method(value, name)
            return self.returned(target, None, depth + 1) if target[0] == "def" else target
        if value[0] == "ext" and len(value) == 3:
            target = self.method_of(value, name)
            return self.returned(target, None, depth + 1) if target[0] == "def" else target
        if value[0] != "val":
            return outside(value)
        layers = value[3]
        if layers[:1] == "r":
            if name in UNWRAP:
                return (*value[:3], layers[1:])
            return value if name in KEEP_WRAPPED else ("ext", name)
        if layers:
            return ("ext", name)
        target = self.method_of(value, name)
        if target[0] == "def":
            return self.returned(target, (value[1], value[2]), depth + 1)
        return value if name == "clone" and target[0] == "ext" else target

    def tried(self, value: Value, tries: int) -> Value:
        """``value?`` (``tries`` times): a Result's or an Option's value."""
        for _ in range(tries):
            if value[0] != "val":
                return outside(value)
            if value[3][:1] != "r":
                return UNK
            value = (*value[:3], value[3][1:])
        return value

    def awaited(self, value: Value) -> Value:
        """``value.await``: an ``async fn``'s result, or the ``Output`` of the type's
        ``IntoFuture``/``Future`` impl."""
        if value[0] != "val":
            return outside(value)
        if value[3][:1] == "f":
            return (*value[:3], value[3][1:])
        if value[3]:
            return UNK
        own = (value[1], value[2])
        impls = self.impls()
        outputs = set(impls.outputs.get(own, []))
        if own not in impls.futures or len(outputs) != 1:
            return UNK
        file, scope, written = outputs.pop()
        return self.typed(file, scope, written, own, 0)

    # ------------------------------------------------------------ names

    def function(self, path: str, scope: str, written: str, at: Point) -> Entity:
        """The function a called path names: ``f``, ``m::f``, ``T::new``, ``Self::f``,
        ``Self(..)`` / ``T(..)`` (a tuple struct's constructor)."""
        if "::" not in written:
            if written == "Self":
                return self.type_named(path, scope, "Self")
            if self.is_local(path, scope, written, at):  # a closure held by a local
                return UNK
            found = self.name(path, scope, written)
            if found[0] == "def" and self.r.index[found[1]].defs[found[2]].kind == "trait":
                return UNK
            return found
        owner_path, _, name = written.rpartition("::")
        bound = self.type_parameter(path, scope, owner_path.split("::")[0], at[0])
        generic = bound is not None
        if generic and "+" in (bound or "") and "::" not in owner_path and name[:1].islower():
            return self.bound_method(("bnd", path, scope, bound or ""), name)  # ``T::f``
        owner = self.path_entity(path, scope, owner_path) if not generic else UNK
        if generic or (owner[0] == "def" and self.is_type(owner[1], owner[2])):
            owner = self.type_named(path, scope, owner_path)  # aliases followed, ``H::call``
        if owner[0] == "mod":
            return self.r.attribute(owner, name, ResolutionNotes(), 0)
        if owner[0] == "def" and self.r.index[owner[1]].defs[owner[2]].kind == "module":
            return self.r._nested(owner[1], f"{owner[2]}.{name}", ResolutionNotes())
        if owner[0] == "def" and self.is_type(owner[1], owner[2]):
            if name[:1].isupper():  # an enum's variant (its constructor), or a constant
                return self.variant(owner[1], owner[2], name)
            return self.method(owner[1], owner[2], name)
        return owner if owner[0] == "ext" else UNK

    def variant(self, path: str, enum: str, name: str) -> Entity:
        """Variant ``name`` of an enum, as the declaration it is ('var': no function; UNK
        for anything else, an associated constant)."""
        idx = self.r.index[path]
        sym = idx.defs.get(f"{enum}.{name}")
        if idx.defs[enum].kind == "enum" and sym is not None and sym.kind == "constant":
            return ("var", path, sym.qualname)
        return UNK

    def name(self, path: str, scope: str, name: str) -> Entity:
        """An item a simple path names from ``scope``: defined in an enclosing scope (an
        inline ``mod``, the file), imported there by ``use`` (globs too), else the prelude;
        memoised."""
        key = (path, scope, name)
        if key not in self._names:
            self._names[key] = UNK  # a glob cycle stops here
            self._names[key] = self._name(path, scope, name)
        return self._names[key]

    def _name(self, path: str, scope: str, name: str) -> Entity:
        idx = self.r.index[path]
        ctx = ResolutionNotes()
        for cur in self.r.scopes(path, scope):
            qual = f"{cur}.{name}" if cur else name
            sym = idx.defs.get(qual)
            if sym is not None and sym.kind not in ("variable", "constant", "method"):
                return ("def", path, qual)
            imports = idx.imports.get((cur, name))
            if imports:
                found = self.r.rust_namespaces(path, imports, ctx, 0)
                return self.uniform(path, cur, imports[-1]) if found[0] == "ext" else found
            for imp in idx.stars.get(cur, []):
                module = self.glob_module(path, cur, imp.module)
                if module[0] in ("mod", "def"):
                    found = self.r.attribute(module, name, ctx, 1)
                    if found[0] != "unk":
                        return found
        return ("ext", name) if name in PRELUDE else UNK

    def uniform(self, path: str, scope: str, imp: Import) -> Entity:
        """A ``use`` whose path starts with a name in scope rather than a crate (The Rust
        Reference, use paths: ``use helpers::Thing`` where ``helpers`` is a module a glob
        brought in); else external, as the import of another crate it is."""
        outer = ("ext", f"{imp.module}::{imp.name}" if imp.name else imp.module)
        head = imp.module.split("::")[0]
        if not head or head in ("crate", "self", "super") or head == imp.alias:
            return outer
        local = self.name(path, scope, head)
        if local[0] not in ("mod", "def"):
            return outer
        found = self.path_entity(path, scope, outer[1])
        return found if found[0] in ("mod", "def") else outer

    def glob_module(self, path: str, scope: str, module: str) -> Entity:
        """The module a ``use m::*`` of ``scope`` reads (an item of a module file too: ``use
        crate::helpers::*`` where ``helpers`` is a ``pub use`` of another crate's module)."""
        if module.split("::")[0] in ("crate", "self", "super"):
            found = self.path_entity(path, "", module)
        elif scope:  # a name seen from the enclosing scope (whose globs are read first)
            found = self.path_entity(path, parent(scope), module)
        else:  # the file's own globs: by module files only (a name here reads them)
            found = UNK
        if found[0] in ("mod", "def"):
            return found
        files = self.r.module_files(path, module)
        return ("mod", *files) if files else UNK

    def path_entity(self, path: str, scope: str, written: str) -> Entity:
        """What a path (``crate::a::B``, ``super::m``, ``Self``, ``T``) names: a module
        ('mod', files), an item ('def', file, qualname), external, or unknown."""
        parts = written.split("::")
        if parts[0] in ("crate", "self", "super"):
            lead = 1
            while lead < len(parts) and parts[lead] in ("self", "super"):
                lead += 1
            module = "::".join(parts[:lead])
            files = self.r.module_files(path, module)
            entity: Entity = ("mod", *files) if files else UNK
        elif parts[0] == "Self":
            return self.type_named(path, scope, written) if len(parts) == 1 else UNK
        else:
            lead, entity = 1, self.name(path, scope, parts[0])
            module = ""
            if entity[0] == "unk" and parts[0][:1].islower():  # an extern crate: ``tokio::``
                files = self.r.module_files(path, parts[0])
                entity = ("mod", *files) if files else ("ext", parts[0])
        for i, part in enumerate(parts[lead:], lead):
            if entity[0] == "def" and self.r.index[entity[1]].defs[entity[2]].kind == "module":
                entity = self.r._nested(entity[1], f"{entity[2]}.{part}", ResolutionNotes())
                continue  # an inline ``mod m { ... }`` of the file
            if entity[0] == "ext":  # ``http::request::Parts``: its whole path
                return ("ext", "::".join([entity[1], *parts[i:]]))
            if entity[0] != "mod":
                return UNK
            deeper = self.r.module_files(path, f"{module}::{part}") if module else ()
            if deeper and deeper != entity[1:]:
                entity, module = ("mod", *deeper), f"{module}::{part}"
            else:
                entity, module = self.r.attribute(entity, part, ResolutionNotes(), 0), ""
        return entity

    def type_named(self, path: str, scope: str, written: str) -> Entity:
        """The type a path names from ``scope``: ('def', file, qualname), external, or
        unknown (a type parameter, a primitive, an enum variant), memoised."""
        key = (path, scope, written)
        if key not in self._types:
            self._types[key] = UNK  # a cycle of aliases stops here
            self._types[key] = self._type_named(path, scope, written)
        return self._types[key]

    def _type_named(self, path: str, scope: str, written: str) -> Entity:
        if written == "Self":
            owner = self.owner(path, scope)
            return ("def", *owner) if owner is not None else UNK
        head = written.split("::")[0]
        bound = self.type_parameter(path, scope, head)
        if bound is not None:
            several = bound == "?" or "+" in bound or "::" in written
            return UNK if several else self.type_named(path, scope, split_generic(bound)[0])
        found = self.path_entity(path, scope, written)
        if found[0] == "def" and self.is_type(found[1], found[2]):
            alias = self.alias(found[1], found[2])
            return alias if alias is not None else found
        return found if found[0] == "ext" else UNK

    def alias(self, path: str, qual: str) -> Entity | None:
        """What ``type A = B;`` names (None: ``qual`` is no alias, or one of a generic)."""
        if self.r.index[path].defs[qual].kind != "type":
            return None
        written = self.r.index[path].assigns.get((parent(qual), qual.rsplit(".", 1)[-1]))
        if not written or len(written) != 1:
            return None
        base, _ = split_generic(bare_type(written[0].value))
        if base.rsplit("::", 1)[-1] in WRAPPED | POINTERS:
            return None
        return self.type_named(path, parent(qual), base)

    def type_parameter(self, path: str, scope: str, name: str, line: int = 0) -> str | None:
        """The bound of type parameter ``name`` of an item around ``scope`` ('?' for none or
        several), None when ``name`` is no type parameter there. The impls of one type
        share its scope: seen from ``line``, the one declared nearest above it (impl blocks
        do not nest); without a line, their bounds must agree."""
        assigns = self.r.index[path].assigns
        cur = scope
        while True:
            found = assigns.get((cur, f"<{name}>"))
            if found:
                above = [a for a in found if a.line <= line]
                if above:
                    return max(above, key=lambda a: a.line).value
                return found[0].value if len({a.value for a in found}) == 1 else "?"
            if not cur:
                return None
            cur = parent(cur)

    def owner(self, path: str, scope: str) -> Type | None:
        """The type ``Self`` is in ``scope``: the impl's type (a trait in its own body)."""
        cur = scope
        while cur:
            found = self.r.index[path].assigns.get((cur, "Self"))
            if found:
                return self.impl_type(path, found[0].value)
            cur = parent(cur)
        return None

    def impl_type(self, path: str, qual: str) -> Type | None:
        """The type an ``impl`` block of ``path`` whose items are named ``qual.*`` is for
        (``tests.Foo``: ``Foo`` as seen from ``mod tests``); None for a blanket impl."""
        sym = self.r.index[path].defs.get(qual)
        if sym is not None and sym.kind in TYPES:
            return (path, qual)
        name = qual.rsplit(".", 1)[-1]
        if self.r.index[path].assigns.get((qual, f"<{name}>")):
            return None  # ``impl<T> Trait for T``
        found = self.type_named(path, parent(qual), name)
        return (found[1], found[2]) if found[0] == "def" else None

    # ------------------------------------------------------------ values

    def is_local(self, path: str, scope: str, name: str, at: Point) -> bool:
        """Whether ``name`` is a local or parameter of the functions around ``scope`` in
        scope at ``at`` (``let f = f(x);`` calls the function)."""
        cur = scope
        while cur and not self.is_type(path, cur):
            if any(sees(a, at, name) for a in self.r.index[path].assigns.get((cur, name), [])):
                return True
            cur = parent(cur)
        return False

    def variable(
        self, path: str, scope: str, name: str, at: Point, skip: str | None, depth: int
    ) -> Value:
        """The value of local, parameter or ``self`` ``name`` at ``at``: its nearest
        declaration in scope there (the declared type, else its initialiser's type);
        ``skip``: the target whose own declaration on that line is being typed."""
        cur = scope
        idx = self.r.index[path]
        while cur and not self.is_type(path, cur):
            seen = [a for a in idx.assigns.get((cur, name), []) if sees(a, at, skip)]
            if seen:
                nearest = max(declared_at(a) for a in seen)
                here = [a for a in seen if declared_at(a) == nearest]
                typed = [a for a in here if a.annotation] or here
                values = {self.assigned(path, cur, a, depth + 1) for a in typed}
                return values.pop() if len(values) == 1 else UNK
            cur = parent(cur)
        return UNK

    def assigned(self, path: str, scope: str, asg: Assignment, depth: int) -> Value:
        """The value an assignment gives its target, memoised (None while worked out)."""
        key = (path, asg)
        if key in self._values:
            return self._values[key] or UNK
        self._values[key] = None
        if asg.target in ("self", "Self"):
            own = self.impl_type(path, asg.value)
            found: Value = ("val", *own, "") if own is not None else self.foreign(path, asg.value)
        elif asg.annotation:
            found = self.typed(path, scope, asg.value, None, depth + 1)
        else:
            parts = self.tokens(asg.value)
            found = self.chain_at(path, scope, parts, asg, depth + 1) if parts else UNK
        self._values[key] = found
        return found

    def chain_at(
        self, path: str, scope: str, parts: list[Token], asg: Assignment, depth: int
    ) -> Value:
        """An initialiser's chain, its names seen from the declaration's line."""
        head = parts[0]
        if not head.call and "::" not in head.path and head.path != "await":
            value = self.variable(path, scope, head.path, before(asg), asg.target, depth + 1)
            value = self.tried(value, head.tries)
            for part in parts[1:]:
                value = self.step(value, part, depth + 1)
            return value
        return self.chain(path, scope, parts, before(asg), ResolutionNotes(), depth + 1)

    def field(self, value: Value, name: str, depth: int) -> Value:
        """``value.name``: the declared type of a field of the value's struct."""
        if value[0] != "val" or value[3]:
            return ("ext", name) if value[0] == "ext" else UNK
        path, struct = value[1], value[2]
        declared = self.r.index[path].assigns.get((struct, name))
        if not declared or len(declared) != 1 or not declared[0].annotation:
            return UNK
        return self.typed(path, struct, declared[0].value, None, depth + 1)

    def typed(self, path: str, scope: str, written: str, own: Type | None, depth: int) -> Value:
        """A value of the type written in ``scope`` of ``path`` (``Self`` is ``own`` when
        given): ``Result<T, E>`` and ``Option<T>`` a wrapped T, ``Box<T>`` a T, ``impl
        Future<Output = T>`` a future of T, ``impl Trait`` the trait."""
        if depth > MAX_DEPTH:
            return UNK
        if "#" in written:
            return self.tuple_field(path, scope, written, depth + 1)
        t = bare_type(written)
        if t.startswith("impl "):
            t = bare_type(t[5:])
        base, args = split_generic(t)
        last = base.rsplit("::", 1)[-1]
        if last in FUTURES and len(args) == 1 and args[0].startswith("Output"):
            inner = self.typed(path, scope, args[0].split("=", 1)[-1], own, depth + 1)
            return (*inner[:3], "f" + inner[3]) if inner[0] == "val" else outside(inner)
        if base == "Self" and own is not None:
            return ("val", *own, "")
        bounds = self.type_parameter(path, scope, base)
        if bounds is not None and "+" in bounds:  # ``H: Handler<T> + Clone``
            return ("bnd", path, scope, bounds)
        found = self.type_named(path, scope, base) if re.match(r"^[\w:]+$", base) else UNK
        alias = found[0] == "def" and self.r.index[found[1]].defs[found[2]].kind == "type"
        if found[0] == "def" and not (alias and last in WRAPPED | SEE_THROUGH):
            return ("val", found[1], found[2], "")
        if last in WRAPPED | SEE_THROUGH and args and found[0] != "unk":
            inner = self.typed(path, scope, args[0], own, depth + 1)
            wrap = "r" if last in WRAPPED else ""
            return (*inner[:3], wrap + inner[3]) if inner[0] == "val" else outside(inner)
        return ("ext", foreign_name(found[1]), "type") if found[0] == "ext" else UNK

    def tuple_field(self, path: str, scope: str, written: str, depth: int) -> Value:
        """Field ``i`` of a tuple struct written ``State<App>#i``: the field's declared type,
        a type parameter of the struct replaced by its argument (``State<S>(pub S)``)."""
        declared, _, index = written.rpartition("#")
        base, args = split_generic(bare_type(declared))
        owner, _, variant = base.rpartition("::")
        enum = self.type_named(path, scope, owner) if owner and variant[:1].isupper() else UNK
        if enum[0] == "def" and self.r.index[enum[1]].defs[enum[2]].kind == "enum":
            field = self.r.index[enum[1]].assigns.get((enum[2], f"{variant}.{index}"))
            if not field or len(field) != 1:
                return UNK
            return self.typed(enum[1], enum[2], field[0].value, None, depth + 1)
        struct = self.type_named(path, scope, base)
        if struct[0] != "def":
            return ("ext", base) if struct[0] == "ext" else UNK
        idx = self.r.index[struct[1]]
        field = idx.assigns.get((struct[2], index))
        if not field or len(field) != 1:
            return UNK
        line = idx.defs[struct[2]].line
        params = [
            a.target[1:-1]
            for a in idx.facts.assignments
            if a.scope == struct[2] and a.line == line and a.target.startswith("<")
        ]
        own = bare_type(field[0].value)
        if own in params:
            k = params.index(own)
            return self.typed(path, scope, args[k], None, depth + 1) if k < len(args) else UNK
        return self.typed(struct[1], struct[2], field[0].value, None, depth + 1)

    def returned(self, made: Entity, own: Type | None, depth: int) -> Value:
        """What calling ``made`` gives: a type (a tuple struct's constructor) its value, a
        function its declared return type (an ``async fn`` a future of it)."""
        if made[0] == "var":  # ``E::V(..)``: a value of the enum
            return ("val", made[1], parent(made[2]), "")
        if made[0] != "def":
            return made if made[0] == "ext" else UNK
        sym = self.r.index[made[1]].defs[made[2]]
        if sym.kind in TYPES:
            return ("val", made[1], made[2], "")
        if not sym.returns:
            return UNK
        owner = own or self.impl_type(made[1], parent(made[2]))
        value = self.typed(made[1], made[2], sym.returns, owner, depth + 1)
        if value[0] == "val" and re.search(r"\basync\s+(unsafe\s+)?fn\b", sym.signature):
            return (*value[:3], "f" + value[3])
        return value

    # ------------------------------------------------------------ methods

    def method_of(self, receiver: Value, name: str) -> Entity:
        """The method ``name`` a value of ``receiver``'s type has (Result/Option/future
        methods, and those of types outside the repository, are external)."""
        if receiver[0] == "ext":
            return self.foreign_method(receiver, name) if len(receiver) == 3 else ("ext", name)
        if receiver[0] == "bnd":
            return self.bound_method(receiver, name)
        if receiver[0] != "val":
            return UNK
        if receiver[3]:
            return ("ext", name)
        return self.method(receiver[1], receiver[2], name)

    def bound_method(self, receiver: Value, name: str) -> Entity:
        """The method ``name`` of a value of a type parameter with several bounds: of the one
        bound trait declaring it (a bound outside the repository may declare it too)."""
        _, path, scope, bounds = receiver
        found, outside = set(), False
        for written in bounds.split("+"):
            std = STD_BOUNDS.get(split_generic(written.strip())[0].rsplit("::", 1)[-1])
            trait = self.typed(path, scope, written, None, 0) if std is None else ("std",)
            target = self.method_of(trait, name) if trait[0] == "val" else UNK
            if target[0] == "def":
                found.add(target)
            known = std is not None and name not in std  # ``Clone`` has no ``call``
            outside = outside or (trait[0] != "val" and not known) or target[0] == "ext"
        if len(found) == 1 and not outside:
            return found.pop()
        return ("ext", name) if outside and not found else UNK

    def method(self, path: str, klass: str, name: str) -> Entity:
        """``klass``'s method or associated function ``name``: of its impl blocks (an
        inherent one first), else of the traits it implements (default methods), else
        external when one of those traits (or a derive) is outside the repository."""
        impls = self.impls()
        own = (path, klass)
        candidates = impls.methods.get(own, {}).get(name, [])
        found = self._pick(candidates)
        concrete = self.r.index[path].defs[klass].kind != "trait"
        if found is not None:
            if any(not in_trait for _, _, in_trait in candidates):
                return found
            if name in impls.derived.get(own, set()):
                return UNK  # Display::fmt or the derived Debug::fmt?
            written = self.r.index[found[1]].defs[found[2]].bases
            trait = self.impl_trait(found[1], found[2])
            return found if not concrete or self.visible(trait, written[0]) else UNK
        for trait in self.traits(own):
            found = self._pick(impls.methods.get(trait, {}).get(name, []))
            if found is not None:
                return found if not concrete or self.visible(("def", *trait), trait[1]) else UNK
        if own in impls.outside or any(t in impls.outside for t in self.traits(own)):
            return ("ext", name)
        return UNK

    def foreign(self, path: str, qual: str) -> Value:
        """``self`` in an impl whose items are named ``qual.*`` for a type outside the
        repository (``impl RequestExt for Request``)."""
        name = qual.rsplit(".", 1)[-1]
        if self.r.index[path].assigns.get((qual, f"<{name}>")):
            return UNK  # ``impl<T> Trait for T``
        found = self.type_named(path, parent(qual), name)
        return ("ext", foreign_name(found[1]), "type") if found[0] == "ext" else UNK

    def foreign_method(self, receiver: Value, name: str) -> Entity:
        """Method ``name`` of a value of a type outside the repository: of the one
        repository trait implemented for that type that has it (the impl's method, else the
        trait's default), when the trait is in scope; else external. (The Rust Reference,
        method call expressions: the type's inherent methods come first; those of a type
        outside the repository are not known, so the trait's is taken, as ``inferred``.)"""
        found: set[tuple[Entity, Type]] = set()
        for trait, file, prefix in self.impls().foreign.get(receiver[1], []):
            sym = self.r.index[file].defs.get(f"{prefix}.{name}")
            own = sym is not None and sym.kind == "method" and bool(sym.bases)
            if own and self.impl_trait(file, f"{prefix}.{name}") == ("def", *trait):
                if self.delegates(file, prefix, name):
                    return ("ext", name)  # the type's own ``name`` exists, and comes first
                found.add((("def", file, f"{prefix}.{name}"), trait))
                continue
            default = self._pick(self.impls().methods.get(trait, {}).get(name, []))
            if default is not None:
                found.add((default, trait))
        if len(found) != 1:
            return ("ext", name) if not found else UNK
        target, trait = found.pop()
        return target if self.visible(("def", *trait), trait[1]) else UNK

    def delegates(self, path: str, prefix: str, name: str) -> bool:
        """Whether the impl method ``prefix.name`` calls ``Self::name`` (``fn local_addr(&self)
        { Self::local_addr(self) }``): the type has an inherent ``name`` of its own."""
        caller = f"{prefix}.{name}"
        spelled = {f"Self::{name}", f"{prefix}::{name}", f"{prefix.rsplit('.', 1)[-1]}::{name}"}
        return any(
            c.caller == caller and c.callee in spelled for c in self.r.index[path].facts.calls
        )

    def impl_trait(self, path: str, method: str) -> Entity:
        """The trait of the ``impl Trait for T`` block a method sits in."""
        owner = parent(method)
        written = self.r.index[path].defs[method].bases
        return self.type_named(path, parent(owner), written[0]) if written else UNK

    def visible(self, trait: Entity, written: str) -> bool:
        """Whether a trait's methods may be called in the file of the call (The Rust
        Reference: the trait must be in scope): a trait of the prelude, one defined in
        that file, or one a ``use`` there names (``as _`` too), directly or by a glob;
        memoised per file."""
        key = (self.caller, self.scope, trait, written)
        if key not in self._visible:
            self._visible[key] = self._is_visible(self.caller, self.scope, trait, written)
        return self._visible[key]

    def _is_visible(self, path: str, scope: str, trait: Entity, written: str) -> bool:
        if trait[0] == "unk":
            return False
        name = written.replace("::", ".").rsplit(".", 1)[-1]
        if name in PRELUDE or (trait[0] == "def" and trait[1] == path):
            return True
        if self.implementing(path, scope) == trait:  # in ``impl Trait for X``, Trait is seen
            return True
        ctx = ResolutionNotes()
        for imp in self.r.index[path].facts.imports:
            if imp.name == name:
                found = self.r.follow(path, imp, ctx, 1)
            elif imp.name == "*":
                module = self.glob_module(path, imp.scope, imp.module)
                if module[0] == "unk":  # a glob of another crate: it may bring the trait
                    found = trait if trait[0] == "ext" else UNK
                else:
                    found = self.r.attribute(module, name, ctx, 1)
            else:
                continue
            if found == trait or (trait[0] == "ext" and found[0] == "ext"):
                return True
        return False

    def implementing(self, path: str, scope: str) -> Entity:
        """The trait of the ``impl Trait for X`` block ``scope`` sits in (UNK: none)."""
        defs = self.r.index[path].defs
        cur = scope
        while cur:
            sym = defs.get(cur)
            if sym is not None and sym.kind == "method":
                return self.impl_trait(path, cur) if sym.bases else UNK
            cur = parent(cur)
        return UNK

    @staticmethod
    def _pick(found: list[tuple[str, str, bool]]) -> Entity | None:
        inherent = {(f, q) for f, q, in_trait in found if not in_trait}
        every = {(f, q) for f, q, _ in found}
        for chosen in (inherent, every):
            if len(chosen) == 1:
                f, q = chosen.pop()
                return ("def", f, q)
        return None

    def traits(self, own: Type) -> list[Type]:
        """The repository traits a type implements (a trait: its supertraits), breadth
        first."""
        impls = self.impls()
        out: list[Type] = []
        queue = [own]
        while queue and len(out) < 32:
            here = queue.pop(0)
            for trait in impls.traits.get(here, []):
                if trait not in out and trait != own:
                    out.append(trait)
                    queue.append(trait)
        return out

    def is_type(self, path: str, qual: str) -> bool:
        sym = self.r.index[path].defs.get(qual) if path in self.r.index else None
        return sym is not None and sym.kind in TYPES

    # ------------------------------------------------------------ the impl index

    def impls(self) -> Impls:
        """The impl blocks of every Rust file, worked out once per resolver."""
        if self._impls is None:
            self._impls = Impls()
            for path in sorted(self.r.index):
                if self.r.index[path].facts.language == "rust":
                    self._index_file(path, self._impls)
        return self._impls

    def _index_file(self, path: str, impls: Impls) -> None:
        facts = self.r.index[path].facts
        for sym in facts.symbols:
            if sym.kind == "method":
                own = self.impl_type(path, parent(sym.qualname))
                if own is not None:
                    methods = impls.methods.setdefault(own, {}).setdefault(sym.name, [])
                    methods.append((path, sym.qualname, bool(sym.bases)))
            elif sym.kind in ("struct", "enum") and any(
                d.startswith("derive(") for d in sym.decorators
            ):
                impls.outside.add((path, sym.qualname))
                impls.derived[(path, sym.qualname)] = derived_methods(sym.decorators)
        for sup in facts.supertypes:
            child = self.impl_type(path, f"{sup.scope}.{sup.child}" if sup.scope else sup.child)
            if child is None:
                self._index_foreign(path, sup, impls)
                continue
            scope = sup.scope if sup.relation == "implements" else parent(child[1])
            trait = self.type_named(path, scope, sup.base)
            if trait[0] == "def" and self.r.index[trait[1]].defs[trait[2]].kind == "trait":
                impls.traits.setdefault(child, []).append((trait[1], trait[2]))
            elif trait[0] != "def":
                impls.outside.add(child)
            if sup.base.rsplit("::", 1)[-1] in FUTURES:
                impls.futures.add(child)
        for asg in facts.assignments:
            if asg.target == "Output" and asg.annotation:
                own = self.impl_type(path, asg.scope) if asg.scope else None
                if own is not None:
                    impls.outputs.setdefault(own, []).append((path, asg.scope, asg.value))

    def _index_foreign(self, path: str, sup: Supertype, impls: Impls) -> None:
        """``impl Trait for T`` of a repository trait and a type outside the repository."""
        if sup.relation != "implements":
            return
        prefix = f"{sup.scope}.{sup.child}" if sup.scope else sup.child
        own = self.foreign(path, prefix)
        trait = self.type_named(path, sup.scope, sup.base)
        if own[0] != "ext" or trait[0] != "def":
            return
        if self.r.index[trait[1]].defs[trait[2]].kind == "trait":
            impls.foreign.setdefault(own[1], []).append(((trait[1], trait[2]), path, prefix))
