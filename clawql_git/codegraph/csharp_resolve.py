"""C# call resolution by declared types: the Java resolver (``java_resolve``) read with C#'s
forms. Receivers are typed by locals, parameters, fields and properties (constructor-injected
``private readonly IRepo _repo;`` too), ``this`` and ``base``, and the declared return types
of the methods of a chain; ``new Foo(...)`` goes to the constructor of ``Foo`` that takes that
many arguments (to the class when it declares none); a repository extension method
(``static M(this T x)``) is found for a receiver of type ``T`` (or of a subtype) when no
method of the receiver's type is named so, or for a receiver declared with the very type
(outside the repository) its ``this`` parameter is written with.

``lang_csharp`` writes ``new Foo().Bar()`` as ``Foo().Bar``, as it writes a call ``Foo()``:
a head ``X()`` is a method of the enclosing types when one is named ``X``, else the type
``X`` constructed. ``var x = Make()`` types ``x`` by ``Make``'s declared return type, ``var
x = await MakeAsync()`` by the ``T`` of the ``Task<T>`` (``ValueTask<T>``) it returns. A
``global using`` reaches every file of its project (see :func:`share_global_usings`); of two
same-named extension methods that fit, the one declared in the calling file wins.

Type names are looked up as C# does, through namespaces, never through locals: the file's
namespace and those enclosing it out to the global namespace (``UseCases.PagedResult``
written in ``App.Infra`` is ``App.UseCases.PagedResult``), then those its ``using``
directives name (its own, the project's ``global using`` lines, the ``.csproj``'s
ImplicitUsings and ``<Using>`` items: :mod:`csharp_projects`). Two outside generic types are
read by their documented APIs when declared with a repository class as type argument: the
collections of System.Collections.Generic (``IReadOnlyList<Item>``: System.Linq's ``First``,
``Where``... give ``Item`` s), and Ardalis.Specification's repositories (``await
repo.GetByIdAsync(id)`` on an ``IRepository<Order>`` gives an ``Order``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.codegraph.csharp_apis import (
    OUTSIDE_MEMBERS,
    STATIC_MEMBERS,
    STATIC_SPACES,
    base_arguments,
    generic_kind,
    linq_gives,
    marked_segments,
    projects,
    repository_gives,
    returns_parameter,
    satisfies,
    split_arity,
    type_parameter_bound,
    type_parameters,
    written_arity,
)
from clawql_git.codegraph.csharp_projects import compilation, project_of, project_usings
from clawql_git.codegraph.java_resolve import (
    JavaCalls,
    Method,
    Type,
    applicable,
    element_type,
    segments,
)
from clawql_git.codegraph.model import Assignment, Call, Import, Symbol
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

TASK = re.compile(r"^(Task|ValueTask)<([A-Za-z_][\w.]*)>$")  # ``Task<T>``: await gives a T
EXTENSION = re.compile(r"\(\s*this\s+([A-Za-z_][\w.]*)")  # ``M(this Foo<T> f, ...)``


class CSharpCalls(JavaCalls):
    """Resolves the calls of C# files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        # the resolver keeps every declaration of a qualname for Java only; overloads (and
        # the spans locals are seen in) are read off the same facts for C#
        for idx in resolver.index.values():
            if idx.facts.language == "csharp" and not idx.overloads:
                for sym in idx.facts.symbols:
                    idx.overloads.setdefault(sym.qualname, []).append(sym)
        self._implicit = share_global_usings(resolver)  # file -> outside namespaces
        self._extensions: dict[str, list[Method]] | None = None
        self._spaces: dict[str, list[str]] | None = None
        self._space_types: dict[tuple[str, str], list[str]] | None = None
        self._projects: dict[str, str] = {}  # directory -> its .csproj
        self._compilations: dict[str, frozenset[str]] = {}  # .csproj -> those it sees
        self._working: set[tuple[str, str, str]] = set()  # values being typed (a cycle)
        self._projections: bool | None = None
        self._written: dict[tuple[str, str, str, tuple[int, ...], int], str] = {}
        self.caller = ""  # the file of the call being resolved

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at."""
        parts = marked_segments(call.callee)
        if parts is None:
            return UNK
        if parts[0] == "base":
            parts = ["super", *parts[1:]]
        self.line, self.caller = call.line, path
        calls = [p for p in parts[:-1] if p.endswith("()")]
        arities = list(call.args) if len(call.args) == len(calls) + 1 else [-1] * (len(calls) + 1)
        if len(parts) == 1:
            return self.bare(path, scope, parts[0], arities[-1], call, ctx)
        receiver = self.type_of(path, scope, parts[:-1], arities[:-1], ctx)
        found = self.on_receiver(receiver, parts[-1], arities[-1])
        if found is None and receiver[0] == "inst" and self.is_type(receiver[1], receiver[2]):
            found = self.extension(path, (receiver[1], receiver[2]), parts[-1], arities[-1])
            if found is not None:
                ctx.inferred = True
        if found is None and receiver[0] in ("unk", "ext", "elem", "repo"):
            written = self.written_receiver(path, scope, call, parts[:-1])
            found = self.extension_of(path, written, parts[-1], arities[-1]) if written else None
            if found is not None:
                ctx.inferred = True
        if found is not None:
            return ("def", found[0], found[1])
        name, generic = split_arity(parts[-1])
        if receiver[0] == "unk" and self.is_namespace(path, parts[0]):
            written = ".".join([*parts[:-1], name])  # ``new NS.Foo()``
            made = self.generic_type(path, scope, written, generic)
            return self.constructed(made, arities[-1]) if made[0] == "def" else UNK
        if receiver[0] in ("inst", "def", "super") and self.is_type(receiver[1], receiver[2]):
            nested: Entity = ("def", receiver[1], f"{receiver[2]}.{name}")
            if receiver[0] == "def" and self.is_type(receiver[1], nested[2]):
                fits = self.arity_fits(nested, generic)
                return self.constructed(nested, arities[-1]) if fits else UNK
            return ("ext", parts[-1]) if self.reaches_outside(receiver[1], receiver[2]) else UNK
        outside = receiver[0] in ("ext", "elem", "repo")  # a method of an outside type
        return ("ext", parts[-1]) if outside else UNK

    def bare(
        self, path: str, scope: str, name: str, arity: int, call: Call, ctx: ResolutionNotes
    ) -> Entity:
        """``M(...)``: a method of the enclosing types; ``Foo`` (``new Foo(...)``): the
        constructor taking ``arity`` arguments, else the type."""
        name, generic = split_arity(name)
        found = self.implicit(path, scope, name, arity) if not generic else None
        if found is not None:
            return ("def", found[0], found[1])
        made = self.generic_type(path, scope, name, generic) if name[:1].isupper() else UNK
        if made[0] != "def":
            return self.r.callee(path, scope, call.callee, ctx)
        return self.constructed(made, arity)

    def generic_type(self, path: str, scope: str, written: str, generic: int) -> Entity:
        """The type ``written`` given ``generic`` type arguments names: unknown when the
        repository's type of that name takes another number (``new List<Item>()`` beside a
        class ``List``: ``List<T>`` of System.Collections.Generic)."""
        made = self.type_named(path, scope, written)
        return made if made[0] != "def" or self.arity_fits(made, generic) else UNK

    def arity_fits(self, made: Entity, generic: int) -> bool:
        """Whether the repository type ``made`` takes ``generic`` type arguments (any
        number when none are written: a base list written without them)."""
        if not generic:
            return True
        sym = self.r.index[made[1]].defs[made[2]]
        return type_parameters(sym.signature, made[2].rsplit(".", 1)[-1]) == generic

    def constructed(self, made: Entity, arity: int) -> Entity:
        """``new Foo(...)``: the constructor of ``Foo`` taking ``arity`` arguments, else the
        type (one declaring no constructor)."""
        built = self.method(made[1], made[2], made[2].rsplit(".", 1)[-1], arity)
        return ("def", built[0], built[1]) if built is not None else made

    def is_namespace(self, path: str, name: str) -> bool:
        """Whether ``name`` written in ``path`` names a namespace of the repository (one
        enclosing the file's own, or nested in one of them)."""
        spaces = self.spaces()
        return any((f"{s}.{name}" if s else name) in spaces for s in self.enclosing_spaces(path))

    def on_receiver(self, receiver: Entity, name: str, arity: int) -> Method | None:
        """The method ``name`` of the receiver's type (``base``: of its bases)."""
        if receiver[0] == "super":
            return self.method_in_bases(receiver[1], receiver[2], name, arity)
        if receiver[0] in ("inst", "def") and self.is_type(receiver[1], receiver[2]):
            return self.method(receiver[1], receiver[2], name, arity)
        return None

    def type_of(
        self, path: str, scope: str, parts: list[str], arities: list[int], ctx: ResolutionNotes
    ) -> Entity:
        """The Java reading, but a head ``X()`` that is no method is ``new X()`` (as Kotlin's
        constructor heads are read), and unknown unless ``X`` is a type of the repository."""
        head, generic = split_arity(parts[0].removesuffix("()"))
        made = parts[0].endswith("()") and (generic or self.implicit(path, scope, head, -1) is None)
        if made:
            if self.generic_type(path, scope, head, generic)[0] != "def":
                return UNK
            parts = [f"new {head}()", *parts[1:]]
        return super().type_of(path, scope, parts, arities, ctx)

    def declared(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes
    ) -> Entity:
        """The Java reading, and ``var x = a.Make()`` typed by ``Make``'s return type."""
        found = super().declared(path, scope, assigns, ctx)
        if found[0] != "unk" or any(a.annotation for a in assigns):
            return found
        results = {self.result_of(path, scope, a.value, ctx) for a in assigns}
        return results.pop() if len(results) == 1 else UNK

    def result_of(self, path: str, scope: str, value: str, ctx: ResolutionNotes) -> Entity:
        """What calling ``callee`` (as written) in ``scope`` gives, by its declared type;
        ``await callee``: what awaiting the ``Task<T>`` it returns gives, a ``T``."""
        callee = value.removeprefix("await ")
        key = (path, scope, value)
        parts = segments(callee)
        if parts is None or key in self._working:
            return UNK
        self._working.add(key)
        try:
            if len(parts) == 1:
                found = self.implicit(path, scope, parts[0], -1)
            else:
                receiver = self.type_of(path, scope, parts[:-1], [], ctx)
                found = self.on_receiver(receiver, parts[-1], -1)
                if found is None and receiver[0] == "repo" and callee != value:
                    return self.from_repository(receiver, parts[-1])
                if found is None and receiver[0] == "elem" and callee == value:
                    return self.element_call(receiver, parts[-1])
        finally:
            self._working.discard(key)
        if found is None:
            return UNK
        return self.awaited(found) if callee != value else self.returns(found)

    def returns(self, found: Method) -> Entity:
        """The Java reading; a ``Task<T>`` is a ``Task`` (what it gives needs ``await``)."""
        file, qual, sym = found
        task = TASK.match(sym.returns)
        return self.typed(file, parent(qual), task.group(1)) if task else super().returns(found)

    def awaited(self, found: Method) -> Entity:
        """What ``await m()`` gives: the ``T`` of the ``Task<T>`` (or ``ValueTask<T>``) ``m``
        is declared to return; unknown for anything else awaited."""
        file, qual, sym = found
        task = TASK.match(sym.returns)
        return self.typed(file, parent(qual), task.group(2)) if task else UNK

    # ------------------------------------------------------------ outside generic types

    def variable(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """The Java reading; ``Map`` in a FastEndpoints ``Endpoint<TRequest, TResponse,
        TMapper>`` declaring no member so named is its ``TMapper`` (the endpoint's ``Map``
        property)."""
        found = super().variable(path, scope, name, ctx)
        if found[0] != "unk" or name != "Map" or "FastEndpoints" not in self.stars_of(path):
            return found
        for file, klass in self.enclosing_types(path, scope)[:1]:
            args = base_arguments(self.r.index[file].defs[klass].signature, "Endpoint")
            outer = parent(klass)
            if len(args) == 3 and self.type_named(file, outer, "Endpoint")[0] != "def":
                mapper = self.type_named(file, outer, strip_generics(args[2]))
                ctx.inferred = True  # typed by a declaration, as a field is
                return ("inst", *mapper[1:]) if mapper[0] == "def" else found
        return found

    def typed(self, path: str, scope: str, written: str) -> Entity:
        """The Java reading; a collection of System.Collections.Generic declared with a
        repository class as its type argument (``IReadOnlyList<OrderItem>``) is a value of
        that class's elements ('elem', file, class), an Ardalis.Specification repository of
        one (``IRepository<Order>``) is ('repo', file, class)."""
        generic = written_arity(written)
        if self.generic_type(path, scope, strip_generics(written), generic) == UNK:
            found: Entity = UNK  # the repository's type of that name is not this one
        else:
            found = super().typed(path, scope, written)
        element = element_type(written)
        kind = self.outside_generic(path, strip_generics(written)) if element else ""
        if not kind or found[0] not in ("unk", "ext", "elem"):
            return found
        inner = self.type_named(path, scope, element)
        return (kind, *inner[1:]) if inner[0] == "def" else found

    def outside_generic(self, path: str, written: str) -> str:
        """'elem' for a collection type, 'repo' for a repository type of a namespace in
        scope of ``path`` (or named fully), else ''."""
        space, _, name = written.rpartition(".")
        return generic_kind(name, {space} if space else self.stars_of(path))

    def call_result(self, entity: Entity, name: str, arity: int) -> Entity:
        """The Java reading; for a collection ('elem'), what System.Linq gives."""
        if entity[0] == "elem":
            return self.element_call(entity, name)
        return UNK if entity[0] == "repo" else super().call_result(entity, name, arity)

    def element_call(self, entity: Entity, name: str) -> Entity:
        """``xs.First(...)``: an element; ``xs.Where(...)``: the same elements (with
        System.Linq in scope of the call); anything else unknown."""
        gives = linq_gives(name) if "System.Linq" in self.stars_of(self.caller) else ""
        if gives == "one":
            return ("inst", entity[1], entity[2])
        return entity if gives == "many" else UNK

    def from_repository(self, entity: Entity, name: str) -> Entity:
        """What ``await repo.name(...)`` gives, ``repo`` an ``IRepository<T>``: a ``T``
        (``GetByIdAsync``, ``AddAsync``; ``FirstOrDefaultAsync``, ``SingleOrDefaultAsync``
        when no specification of the repository projects), a list of them (``ListAsync``)."""
        gives = repository_gives(name, self.projections())
        if gives == "one":
            return ("inst", entity[1], entity[2])
        return ("elem", *entity[1:]) if gives == "many" else UNK

    def projections(self) -> bool:
        """Whether a class of the repository derives from a projecting specification
        (``Specification<T, TResult>``), which the same repository methods return a
        ``TResult`` for."""
        if self._projections is None:
            self._projections = any(
                sym.kind == "class" and projects(sym.signature)
                for idx in self.r.index.values()
                if idx.facts.language == "csharp"
                for sym in idx.facts.symbols
            )
        return self._projections

    def stars_of(self, path: str) -> set[str]:
        """The namespaces ``using`` directives (global ones and the project's too) bring
        into ``path``."""
        if not path:
            return set()
        return {imp.module for imp in self.r.index[path].stars.get("", [])} | self._implicit.get(
            path, frozenset()
        )

    # ------------------------------------------------------------ namespaces

    def named_elsewhere(self, path: str, scope: str, written: str) -> Entity:
        """A namespace-or-type-name (C# 7.6.5 / ECMA-334 7.8): a type of an enclosing
        namespace, innermost first, out to the global namespace, the head of ``written``
        possibly a namespace there (``UseCases.PagedResult`` written in ``App.Infra``:
        ``App.UseCases.PagedResult``); then a type of a namespace a ``using`` directive
        names. Locals, parameters and members are no types, so ``Contributor`` in ``var
        Contributor = new Contributor(n)`` is the type. Else the way any name resolves."""
        parts = written.split(".")
        for space in self.enclosing_spaces(path):
            found = self.in_namespace(path, space, parts, True)
            if found is not None:
                return found
        for imp in self.r.index[path].stars.get("", []):
            if "static" not in imp.alias.split():
                found = self.in_namespace(path, imp.module, parts, False)
                if found is not None:
                    return found
        return super().named_elsewhere(path, scope, written)

    def in_namespace(self, path: str, space: str, parts: list[str], deeper: bool) -> Entity | None:
        """``parts`` read from namespace ``space``: a type of it (then its nested types),
        else (``deeper``) a namespace in it; None when neither is declared."""
        for i, part in enumerate(parts):
            files = [f for f in self.space_types().get((space, part), []) if self.sees(path, f)]
            if files:
                file = self.declaring(path, files, part)
                qual = ".".join(parts[i:])
                return ("def", file, qual) if file and self.is_type(file, qual) else UNK
            space = f"{space}.{part}" if space else part
            if not deeper or space not in self.spaces():
                return None
        return None

    def declaring(self, path: str, files: list[str], name: str) -> str:
        """The file of ``files`` (all seen from ``path``, each declaring type ``name`` in one
        namespace) whose declaration a reference in ``path`` names: the only one, or of a
        ``partial`` type's parts the one nearest ``path`` (any part names the type); ''
        when two types are declared (two projects whose references are not known)."""
        if len(files) == 1:
            return files[0]
        partial = all("partial" in self.r.index[f].defs[name].signature.split() for f in files)
        return nearest(path, files) or files[0] if partial else ""

    def enclosing_spaces(self, path: str) -> list[str]:
        """The namespaces ``path`` declares and those enclosing them, innermost first, then
        the global namespace ('')."""
        out: list[str] = []
        for name in self.namespaces(path):
            out.extend(space for space in _enclosing(name) if space not in out)
        return [*out, ""]

    def space_types(self) -> dict[tuple[str, str], list[str]]:
        """(namespace, type name) -> the C# files declaring that type in it ('': the global
        namespace, the files declaring none); types nested in others are not listed."""
        if self._space_types is None:
            self._space_types = {}
            for space, files in self.spaces().items():
                for file in files:
                    for sym in self.r.index[file].facts.symbols:
                        if sym.kind in CLASSLIKE and "." not in sym.qualname:
                            found = self._space_types.setdefault((space, sym.qualname), [])
                            if file not in found:
                                found.append(file)
        return self._space_types

    def spaces(self) -> dict[str, list[str]]:
        """Every namespace of the repository's C# files -> the files declaring it (none for
        one only enclosing those declared)."""
        if self._spaces is None:
            self._spaces = {}
            for file, idx in self.r.index.items():
                if idx.facts.language == "csharp":
                    for space in self.namespaces(file) or [""]:
                        self._spaces.setdefault(space, []).append(file)
                        for outer in _enclosing(space)[1:]:  # ``A`` of ``A.B``: declared too
                            self._spaces.setdefault(outer, [])
        return self._spaces

    # ------------------------------------------------------------ extension methods

    def extension(self, path: str, receiver: Type, name: str, arity: int) -> Method | None:
        """The one extension method ``name`` in scope of ``path`` whose ``this`` parameter's
        type is the receiver's type or one of its bases."""
        types = {receiver, *self.ancestors(*receiver)}
        with_this = arity + 1 if arity >= 0 else -1
        fits = []
        for file, qual, sym in self.extensions().get(name, []):
            if not self.visible_from(path, file) or not applicable(sym, with_this):
                continue
            match = EXTENSION.search(sym.signature)
            target = self.type_named(file, parent(qual), match.group(1)) if match else UNK
            if target[0] == "def" and (target[1], target[2]) in types:
                fits.append((file, qual, sym))
        return one_fit(path, fits)

    def written_receiver(self, path: str, scope: str, call: Call, parts: list[str]) -> str:
        """The type the receiver chain ``parts`` of ``call`` has, as written without type
        arguments, when it is a type outside the repository: see :meth:`written_of`."""
        n = sum(p.endswith("()") for p in parts)
        args = tuple(call.args[:-1]) if len(call.args) == n + 1 else (-1,) * n
        return self.written_of(path, scope, call, parts, args)

    def written_of(
        self, path: str, scope: str, call: Call, parts: list[str], args: tuple[int, ...]
    ) -> str:
        """:meth:`work_out_written`, once per chain and line (a chain's receivers are asked
        again by the calls along it)."""
        key = (path, scope, ".".join(parts), args, call.line)
        if key not in self._written:
            self._written[key] = self.work_out_written(path, scope, call, parts, args)
        return self._written[key]

    def work_out_written(
        self, path: str, scope: str, call: Call, parts: list[str], args: tuple[int, ...]
    ) -> str:
        """A local's, parameter's or field's declared type (``services``; ``var app =
        builder.Build()``: what its value gives), a documented hosting API's result
        (``WebApplication.CreateBuilder()``, ``builder.Services``: csharp_apis), or the
        declared return type of the repository method the chain's last call names
        (``services.AddInfra()``; one returning its ``this`` type parameter gives the
        receiver's type); '' when unknown. ``args``: the argument counts of its calls."""
        head, last = parts[0], parts[-1]
        if len(parts) == 1:
            return "" if head.endswith("()") else self.written_name(path, scope, head, call)
        if len(parts) == 2 and self.outside_static(path, scope, head):
            return STATIC_MEMBERS.get((head, last), "")
        inner_args = args[:-1] if last.endswith("()") else args
        outer = self.written_of(path, scope, call, parts[:-1], inner_args)
        if (outer, last) in OUTSIDE_MEMBERS:
            return OUTSIDE_MEMBERS[outer, last]
        if not last.endswith("()") or not args:
            return ""
        inner = replace(call, callee=".".join(parts)[:-2], args=args)
        found = self.callee(path, scope, inner, ResolutionNotes())
        self.line, self.caller = call.line, path
        if found[0] != "def":
            return ""
        returns = {
            self.written_return(sym, outer)
            for sym in self.r.index[found[1]].overloads.get(found[2], [])
            if sym.kind in ("method", "function") and self.takes(sym, args[-1])
        }
        return returns.pop() if len(returns) == 1 else ""

    @staticmethod
    def takes(sym: Symbol, given: int) -> bool:
        """Whether ``sym`` accepts ``given`` arguments (an extension method: besides the
        receiver)."""
        extension = given >= 0 and EXTENSION.search(sym.signature) is not None
        return applicable(sym, given + 1 if extension else given)

    @staticmethod
    def written_return(sym: Symbol, receiver: str) -> str:
        """The type a method returns as written; the receiver's own type when it is an
        extension method returning its ``this`` type parameter."""
        match = EXTENSION.search(sym.signature)
        if (
            match is not None
            and receiver
            and returns_parameter(sym.signature, sym.name, match.group(1))
        ):
            return receiver
        return sym.returns.split("<")[0]

    def outside_static(self, path: str, scope: str, name: str) -> bool:
        """Whether ``name`` is a hosting type of csharp_apis, its namespace in scope and no
        variable or type of the repository so named."""
        space = STATIC_SPACES.get(name)
        if space is None or space not in self.stars_of(path):
            return False
        return self.variable(path, scope, name, ResolutionNotes())[0] in ("unk", "ext")

    def written_name(self, path: str, scope: str, name: str, call: Call) -> str:
        """The type a name is declared with (:meth:`written_type`), else, a local declared
        ``var x = chain()`` once, what that chain gives (:meth:`written_of`)."""
        written = self.written_type(path, scope, name)
        if written:
            return written
        cur = scope
        while True:
            assigns = self.in_scope(path, cur, self.r.index[path].assigns.get((cur, name), []))
            if assigns or not cur or self.is_type(path, cur):
                break
            cur = parent(cur)
        values = {a.value for a in assigns if not a.annotation}
        parts = segments(values.pop()) if len(assigns) == 1 and len(values) == 1 else None
        key = (path, cur, name)
        if parts is None or key in self._working:
            return ""
        self._working.add(key)
        try:
            parts[-1] += "()"  # the value is the chain's call
            n = sum(p.endswith("()") for p in parts)
            return self.written_of(path, cur, call, parts, (-1,) * n)
        finally:
            self._working.discard(key)

    def written_type(self, path: str, scope: str, name: str) -> str:
        """The type a local, parameter or field of an enclosing type (or a top-level
        statement's local) is declared with, as written without type arguments ('' when not
        declared with one type)."""
        cur = scope
        while True:
            assigns = self.r.index[path].assigns.get((cur, name), [])
            if not self.is_type(path, cur):
                assigns = self.in_scope(path, cur, assigns)
            typed = {a.value for a in assigns if a.annotation}
            if typed or assigns:
                return typed.pop().split("<")[0] if len(typed) == 1 and len(assigns) == 1 else ""
            if not cur:
                return ""
            cur = parent(cur)

    def extension_of(self, path: str, written: str, name: str, arity: int) -> Method | None:
        """The one extension method ``name`` in scope of ``path`` whose ``this`` parameter is
        declared with the type ``written`` (a type outside the repository: the receiver's
        declared type as written)."""
        with_this = arity + 1 if arity >= 0 else -1
        fits = [
            (file, qual, sym)
            for file, qual, sym in self.extensions().get(name, [])
            if self.visible_from(path, file)
            and applicable(sym, with_this)
            and (match := EXTENSION.search(sym.signature)) is not None
            and self.this_fits(sym, match.group(1), written)
        ]
        return one_fit(path, fits)

    @staticmethod
    def this_fits(sym: Symbol, this: str, written: str) -> bool:
        """Whether an extension method whose ``this`` parameter is declared ``this`` takes a
        receiver of the outside type ``written``: the very type, or a type parameter of the
        method constrained to a type ``written`` satisfies (csharp_apis)."""
        if this == written:
            return True
        bound = type_parameter_bound(sym.signature, sym.name, this)
        return bool(bound) and satisfies(written, bound)

    def extensions(self) -> dict[str, list[Method]]:
        """Every extension method of the repository's C# files, by name."""
        if self._extensions is None:
            self._extensions = {}
            for file, idx in self.r.index.items():
                if idx.facts.language != "csharp":
                    continue
                for sym in idx.facts.symbols:
                    if sym.kind == "method" and EXTENSION.search(sym.signature):
                        self._extensions.setdefault(sym.name, []).append((file, sym.qualname, sym))
        return self._extensions

    def visible_from(self, path: str, file: str) -> bool:
        """Whether the types of ``file`` are in scope in ``path``: the same file, a namespace
        of ``path`` (or an enclosing one), or one its ``using`` lines name."""
        if file == path:
            return True
        if not self.sees(path, file):
            return False
        mine = self.namespaces(path)
        spaces = {n for n in mine for n in _enclosing(n)}
        spaces |= self.stars_of(path)
        return bool(spaces & set(self.namespaces(file)))

    def sees(self, path: str, file: str) -> bool:
        """Whether ``file`` is in the compilation of ``path``: its project, or one that
        project references (true when either project is not known)."""
        mine, theirs = (project_of(f, self.r.repo, self._projects) for f in (path, file))
        if not mine or not theirs:
            return True
        if mine not in self._compilations:
            self._compilations[mine] = compilation(mine, self.r.repo)
        return theirs in self._compilations[mine]

    def namespaces(self, path: str) -> list[str]:
        return [s.name for s in self.r.index[path].facts.symbols if s.kind == "module"]


def one_fit(path: str, fits: list[Method]) -> Method | None:
    """The one extension method of ``fits`` a call of ``path`` binds: the only one, else the
    only one declared in ``path`` itself (a file is in its own compilation; were the others
    in it too, the call would be ambiguous and not compile, C# 12.8.10.3)."""
    if len({(f, q) for f, q, _ in fits}) == 1:
        return fits[0]
    mine = [fit for fit in fits if fit[0] == path]
    return mine[0] if len({q for _, q, _ in mine}) == 1 else None


def nearest(path: str, files: list[str]) -> str:
    """The one file of ``files`` nearest ``path`` by directory; '' when two are as near."""
    depth = {f: len(posixpath.commonpath([path, f]).split("/")) for f in files}
    best = max(depth.values())
    closest = [f for f in files if depth[f] == best]
    return closest[0] if len(closest) == 1 else ""


def share_global_usings(resolver: Resolver) -> dict[str, frozenset[str]]:
    """Give every C# file the ``global using`` directives of its project besides its own
    ``using`` lines (C# 10: a global using applies to every file of the compilation). The
    project is taken as the directory of the file declaring them and everything below it
    (``GlobalUsings.cs`` sits beside the ``.csproj``), and those its ``.csproj`` gives (see
    :mod:`csharp_projects`); the star imports are made again from each file's own facts, so
    a second resolver over the same index adds nothing twice. The ``System`` and
    ``Microsoft`` namespaces a ``.csproj`` gives declare no type of the repository: they are
    returned by file instead (every name lookup walks the star imports)."""
    shared: dict[str, list[Import]] = {}  # project directory -> its global usings
    for idx in resolver.index.values():
        if idx.facts.language == "csharp":
            for imp in idx.facts.imports:
                if imp.name == "*" and imp.alias.startswith("global"):
                    shared.setdefault(posixpath.dirname(idx.facts.path), []).append(imp)
    projects: dict[str, list[Import]] = {}
    outside: dict[str, frozenset[str]] = {}
    for path, idx in resolver.index.items():
        if idx.facts.language != "csharp":
            continue
        own = [i for i in idx.facts.imports if i.name == "*" and not i.scope]
        given = [
            imp
            for folder, imports in shared.items()
            if not folder or path.startswith(folder + "/")
            for imp in imports
            if imp not in own
        ]
        for imp in project_usings(path, resolver.repo, projects):
            if imp.module.split(".")[0] in ("System", "Microsoft"):
                outside[path] = outside.get(path, frozenset()) | {imp.module}
            else:
                given.append(imp)
        if own or given:
            idx.stars[""] = own + given
    return outside


def _enclosing(namespace: str) -> list[str]:
    """``A.B.C`` -> ['A.B.C', 'A.B', 'A']."""
    parts = namespace.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]
