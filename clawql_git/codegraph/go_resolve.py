"""Go call resolution by declared types (the Go spec's "Declarations and scope", "Selectors",
"Method sets", "Struct types"): receivers typed by the declarations ``lang_go`` records.

A callee as written (``mx.handler.ServeHTTP``, ``r.Context().Value``, ``chi.NewRouter``,
``NewMux().Use``) is read left to right. The head is a local (the innermost declaration in
scope at the call: the receiver, a parameter, ``x := T{}`` / ``&T{}`` / ``new(T)`` /
``NewT()`` / ``y.(T)``, ``var x T``), a name of the package (its files in the directory that
declare the same ``package``; a test file sees the package's test files too), an import
(the package's files in the repository; outside: external) or a call ``f()`` typed by the
declared result of ``f``. Each ``.f`` is a field (or a package's name), each ``.m()`` a method
whose declared result types what follows, each ``[i]`` an element of a slice, an array or a
map (``range``: its keys and elements), each ``.(T)`` a ``T``, each ``T{}`` a ``T``. A
composite literal ``T{...}`` / ``pkg.T{...}`` of a struct type is itself an edge to that
type (an instantiation, exact). A
selector is looked up as Go does: the type's own fields and methods, else those of its
embedded types, the shallowest depth that has the name (two at that depth: ambiguous,
unresolved; an embedded type outside the repository at a shallower depth: unproven,
unresolved; none found past an outside one: external). A method
of an interface type is the edge's target (inferred: the dynamic type's method runs). A
call typed through a declared type is inferred; ``f()``, ``pkg.F()`` and ``T.M`` are exact.
Anything else (a function value, a variable holding a function, a field of function type, a
type parameter, a name declared in two files of the package, as under build tags) stays
unresolved.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Assignment, Call, Symbol
from clawql_git.codegraph.resolve import CLASSLIKE, UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

# ``x``, ``F()``, ``fns[]``, ``G[]()``, ``T{}`` (a composite literal)
SEGMENT = re.compile(r"^[A-Za-z_]\w*((\[\])+|\{\})?(\(\))?$")
PACKAGE = "<package>"  # lang_go's assignment naming a file's package
ELEMENT = "[]"  # lang_go's target naming what a container type is (``type Ts []T``)
KEY = "#key"  # lang_go's suffix of a range over a map's keys (``=m#key``)
MAX_DEPTH = 12  # embedding levels walked, chains of declarations followed
FUNCTIONS = frozenset({"function", "method"})
UNIVERSE_TYPES = frozenset(
    {
        "any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32",
        "float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint",
        "uint8", "uint16", "uint32", "uint64", "uintptr",
    }
)  # fmt: skip
UNIVERSE_FUNCTIONS = frozenset(
    {
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
        "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
    }
)  # fmt: skip
Point = tuple[int, int]
Type = tuple[str, str]  # (file, qualname) of a type of the repository


ASSERTION = re.compile(r"^\(\*?([A-Za-z_][\w.]*)\)$")  # ``(*T)`` of ``w.(*T).M``


def segments(callee: str) -> list[str] | None:
    """``r.Context().Value`` -> ['r', 'Context()', 'Value'], ``w.(http.Flusher).Flush`` ->
    ['w', '(http.Flusher)', 'Flush']; None for what is not a chain of names, calls, indexes,
    literals and type assertions (a call of a call's result)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(callee):
        depth += (ch == "(") - (ch == ")")
        if ch == "." and depth == 0:
            parts.append(callee[start:i])
            start = i + 1
    parts.append(callee[start:])
    head, rest = parts[0], parts[1:]
    if not SEGMENT.match(head) or parts[-1].endswith("()") or ASSERTION.match(parts[-1]):
        return None
    if not all(SEGMENT.match(p) or ASSERTION.match(p) for p in rest):
        return None
    return parts


def in_span(span: tuple[int, ...], at: Point) -> bool:
    return len(span) == 4 and (span[0], span[1]) <= at <= (span[2], span[3])


class GoCalls:
    """Resolves the calls of Go files with the facts of a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self._packages: dict[str, list[str]] = {}  # file -> the files of its package
        self._dirs: dict[str, list[str]] | None = None
        self.caller = ""  # the file of the call being resolved (its own variant first)
        self._declared: dict[tuple[str, Assignment], Entity | None] = {}  # None: in progress

    # ------------------------------------------------------------ calls

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the call ``call`` made in ``scope`` of ``path`` points at."""
        parts = segments(call.callee)
        if parts is None:
            return UNK
        self.caller = path
        at = (call.line, call.column)
        if parts[-1].endswith("{}"):
            return self.constructed(path, scope, parts)
        if len(parts) == 1:
            return self.bare(path, scope, parts[0], at)
        receiver = self.type_of(path, scope, parts[:-1], at, ctx)
        if receiver[0] == "inst":  # a value typed by a declaration
            ctx.inferred = True
        found = self.member(receiver, parts[-1], ctx)
        return found if found[0] in ("def", "ext") else UNK

    def bare(self, path: str, scope: str, name: str, at: Point) -> Entity:
        """``f(...)``: a function or type (a conversion) of the package, a builtin (external);
        a local (a function value) is no definition; ``G[]``: a generic function or type
        instantiated, else an element (unknown)."""
        if name.endswith("[]"):
            found = self.bare(path, scope, name[:-2], at)
            return found if found[0] == "def" else UNK  # a generic function instantiated
        if self.local(path, scope, name, at) is not None:
            return UNK
        declared = self.package_level(path, scope, name)
        if declared is not None and declared[0] == "ext":  # a conversion, or a variable
            return declared if name in UNIVERSE_TYPES else UNK
        if declared is not None:
            return declared if declared[0] == "def" else UNK
        return ("ext", name) if name in UNIVERSE_FUNCTIONS else UNK

    def constructed(self, path: str, scope: str, parts: list[str]) -> Entity:
        """``T{}`` or ``pkg.T{}``, a composite literal (Go spec, "Composite literals"): the
        struct type ``T`` it constructs, looked up as a type reference (an outside package's
        type: external); a named slice, map or array type constructs nothing to link."""
        if len(parts) > 2:
            return UNK
        found = self.type_named(path, scope, ".".join(parts)[:-2])
        if found[0] == "ext":
            return found
        return found if found[0] == "def" and self.kind(found) == "struct" else UNK

    # ------------------------------------------------------------ operands

    def type_of(
        self, path: str, scope: str, parts: list[str], at: Point, ctx: ResolutionNotes
    ) -> Entity:
        """What a receiver chain denotes: ('inst', file, type) for a value of a repository
        type, ('def', file, qualname) for a type or function named, ('mod', *files) for a
        package of the repository, ('ext', name) for something outside it."""
        head = parts[0]
        if head.endswith("()"):
            entity = self.result(self.bare(path, scope, head[:-2], at), 0, ctx)
        else:
            entity = self.operand(path, scope, head, at, ctx)
        for part in parts[1:]:
            if entity[0] == "def" and self.kind(entity) in FUNCTIONS:
                return UNK  # a member of a function value (or of a method value)
            asserted = ASSERTION.match(part)
            if asserted is not None:  # ``x.(T)``: a T, whatever ``x`` is
                ctx.inferred = True
                entity = self.value_of(path, scope, asserted.group(1))
            elif part.endswith("()"):
                entity = self.result(self.member(entity, part[:-2], ctx), 0, ctx)
            else:
                entity = self.member(entity, part, ctx)
        return entity

    def operand(self, path: str, scope: str, name: str, at: Point, ctx: ResolutionNotes) -> Entity:
        """What a simple name denotes where ``at`` is: the innermost local declaration in
        scope there, else a name of the package, else an import."""
        if name.endswith("[]"):
            return self.indexed(self.operand(path, scope, name[:-2], at, ctx))
        if name.endswith("{}"):
            return literal(self.operand(path, scope, name[:-2], at, ctx))
        local = self.local(path, scope, name, at)
        if local is not None:
            ctx.inferred = True  # typed by a declaration
            return self.declared(path, local, ctx)
        found = self.package_level(path, scope, name)
        if found is not None:
            return found
        for imp in self.r.index[path].imports.get(("", name), []):
            files = self.r.module_files(path, imp.module)
            return ("mod", *files) if files else ("ext", imp.module)
        return UNK

    def local(self, path: str, scope: str, name: str, at: Point) -> Assignment | None:
        """The declaration of ``name`` in scope at ``at`` inside the functions around it (the
        one declared last: an inner block's shadows an outer one)."""
        assigns = self.r.index[path].assigns
        cur = scope
        while True:  # '' too: a function literal's parameters at the top level
            seen = [a for a in assigns.get((cur, name), ()) if in_span(a.span, at)]
            if seen:
                return max(seen, key=lambda a: (a.span[0], a.span[1]))
            if not cur:
                return None
            cur = parent(cur)

    def declared(self, path: str, asg: Assignment, ctx: ResolutionNotes) -> Entity:
        """The type a declaration gives its name (memoised; a cycle gives unknown)."""
        key = (path, asg)
        if key in self._declared:
            return self._declared[key] or UNK
        self._declared[key] = None
        found = self._work_out(path, asg, ctx)
        if found[0] == "def":  # ``f := nop``: a function value, not the function
            found = UNK
        self._declared[key] = found
        return found

    def _work_out(self, path: str, asg: Assignment, ctx: ResolutionNotes) -> Entity:
        if not asg.value:
            return UNK
        if asg.annotation:
            return self.value_of(path, asg.scope, asg.value)
        # the value is read where the declaration starts, before its name is in scope (a type
        # switch's ``v`` of each case: before the switch, so ``v := v.(type)`` reads the outer)
        at = (asg.line, 0)
        if asg.value.startswith("=") and asg.value.endswith(KEY):
            parts = segments(asg.value[1 : -len(KEY)])
            return self.key_of(self.type_of(path, asg.scope, parts, at, ctx)) if parts else UNK
        if asg.value.startswith("="):
            parts = segments(asg.value[1:])
            return self.type_of(path, asg.scope, parts, at, ctx) if parts else UNK
        written, _, index = asg.value.partition("#")
        parts = segments(written)
        if parts is None:
            return UNK
        if len(parts) == 1:
            called = self.bare(path, asg.scope, parts[0], at)
        else:
            called = self.member(self.type_of(path, asg.scope, parts[:-1], at, ctx), parts[-1], ctx)
        return self.result(called, int(index or 0), ctx)

    def result(self, called: Entity, index: int, ctx: ResolutionNotes) -> Entity:
        """What a call of ``called`` gives at result ``index``: a declared result type, the
        type itself for a conversion ``T(x)``."""
        if called[0] == "ext":
            return called
        if called[0] != "def":
            return UNK
        ctx.inferred = True  # typed by a declared result
        sym = self.r.index[called[1]].defs[called[2]]
        if sym.kind in CLASSLIKE:
            return ("inst", called[1], called[2]) if index == 0 else UNK
        results = sym.returns.split(",") if sym.kind in FUNCTIONS else []
        if index >= len(results) or not results[index]:
            return UNK
        return self.value_of(called[1], "", results[index])

    # ------------------------------------------------------------ names of packages

    def package_files(self, path: str) -> list[str]:
        """The files of the package ``path`` belongs to, ``path`` first: the directory's Go
        files declaring the same package (test files only for a test file)."""
        found = self._packages.get(path)
        if found is None:
            if self._dirs is None:  # directory -> its Go files, worked out once
                self._dirs = {}
                for f in sorted(self.r.index):
                    if f.endswith(".go"):
                        self._dirs.setdefault(posixpath.dirname(f), []).append(f)
            name, test = self.package_name(path), path.endswith("_test.go")
            found = [path] + [
                f
                for f in self._dirs.get(posixpath.dirname(path), [])
                if f != path
                and (test or not f.endswith("_test.go"))
                and self.package_name(f) == name
            ]
            self._packages[path] = found
        return found

    def package_name(self, path: str) -> str:
        named = self.r.index[path].assigns.get(("", PACKAGE))
        return named[0].value if named else ""

    def package_level(self, path: str, scope: str, name: str) -> Entity | None:
        """``name`` declared in a function around ``scope`` (a local type), at the top level
        of the package of ``path``, or brought by a dot import; None when nothing is."""
        defs = self.r.index[path].defs
        cur = scope
        while cur:
            sym = defs.get(f"{cur}.{name}")
            if sym is not None and sym.kind in CLASSLIKE:
                return ("def", path, f"{cur}.{name}")
            cur = parent(cur)
        found = self.top_level(self.package_files(path), name, False, path)
        if found is not None:
            return found
        for imp in self.r.index[path].imports.get(("", "."), []):
            found = self.top_level(self.r.module_files(path, imp.module), name, True)
            if found is not None:
                return found
        return ("ext", name) if name in UNIVERSE_TYPES else None

    def top_level(
        self, files: list[str] | tuple[str, ...], name: str, exported: bool, own: str = ""
    ) -> Entity | None:
        """A top-level name of the package made of ``files``: a function or type ('def'), a
        variable or constant (the value its declaration types); None when no file declares
        it, unknown when several do (variants under build tags) and ``own`` is not one."""
        if exported and not name[:1].isupper():
            return None
        hits = [f for f in files if name in self.r.index[f].defs]
        if not hits:
            return None
        file = one_of(hits, own)
        if not file:
            return UNK
        sym = self.r.index[file].defs[name]
        if sym.kind not in ("variable", "constant"):
            return ("def", file, name)
        declared = {
            self.declared(file, a, ResolutionNotes())
            for a in self.r.index[file].assigns.get(("", name), [])
        }
        return declared.pop() if len(declared) == 1 else UNK

    def type_named(self, path: str, scope: str, written: str) -> Entity:
        """The type ``written`` (``Mux``, ``chi.Mux``) names in ``scope`` of ``path``:
        ('def', file, qualname), ('ext', written) outside the repository, else unknown."""
        head, _, rest = written.partition(".")
        if rest:
            for imp in self.r.index[path].imports.get(("", head), []):
                files = self.r.module_files(path, imp.module)
                if not files:
                    return ("ext", written)
                found = self.top_level(files, rest, True)
                return found if found is not None and self.is_type(found) else UNK
            return UNK
        found = self.package_level(path, scope, head)
        if found is None or found[0] == "ext":
            return found or UNK
        return found if self.is_type(found) else UNK

    def value_of(self, path: str, scope: str, written: str) -> Entity:
        """A value of the declared type ``written``: ('inst', file, type), ('ext', written),
        ('elems', path, scope, element, key) for a slice or an array (``[]T``, key '') or a
        map (``[K]V``), the types as written (read when indexed or ranged over)."""
        if not written:
            return UNK
        if written.startswith("["):
            end = written.find("]")
            return ("elems", path, scope, written[end + 1 :], written[1:end])
        return instance(self.type_named(path, scope, written))

    def container(self, entity: Entity) -> Entity:
        """The container ``entity`` is: itself, or what a named container type is declared
        as (``type nodes []*node``); unknown for anything else."""
        if entity[0] == "inst" and self.is_type(entity):
            underlying = self.r.index[entity[1]].assigns.get((entity[2], ELEMENT))
            if underlying:
                return self.value_of(entity[1], parent(entity[2]), underlying[0].value)
        return entity if entity[0] == "elems" else UNK

    def indexed(self, entity: Entity) -> Entity:
        """``x[...]`` for ``x`` denoting ``entity``: an element of a slice, an array or a map,
        a generic function or type instantiated (itself)."""
        if entity[0] in ("def", "ext"):
            return entity
        found = self.container(entity)
        return self.value_of(found[1], found[2], found[3]) if found[0] == "elems" else UNK

    def key_of(self, entity: Entity) -> Entity:
        """``k`` of ``for k := range x``: a key of a map (a slice's index: unknown)."""
        found = self.container(entity)
        if found[0] != "elems" or not found[4]:
            return UNK
        return self.value_of(found[1], found[2], found[4])

    # ------------------------------------------------------------ selectors

    def member(self, entity: Entity, name: str, ctx: ResolutionNotes) -> Entity:
        """``x.name`` for ``x`` denoting ``entity`` (``x.name[]``: instantiated, or an
        element)."""
        if name.endswith("[]"):
            return self.indexed(self.member(entity, name[:-2], ctx))
        if name.endswith("{}"):  # ``pkg.T{}``
            return literal(self.member(entity, name[:-2], ctx))
        kind = entity[0]
        if kind == "mod":
            found = self.top_level(entity[1:], name, True)
            return found if found is not None else UNK
        if kind == "ext":
            return ("ext", name)
        if kind in ("inst", "def") and self.is_type(entity):
            return self.selector((entity[1], entity[2]), name, ctx, kind == "def")
        return UNK

    def selector(self, start: Type, name: str, ctx: ResolutionNotes, static: bool) -> Entity:
        """Field or method ``name`` of a type, through its embedded types (Go spec,
        "Selectors"): the shallowest depth declaring it, when one type there does. A type
        outside the repository (or not found) embedded at a shallower depth may declare it:
        unproven."""
        level, seen = [start], {start}
        unproven = outside = False  # outside types above the level searched / at it
        for _ in range(MAX_DEPTH):
            found: list[Entity] = []
            deeper: list[Type] = []
            below = False
            for file, qual in level:
                hit = self.own_member(file, qual, name, ctx, static)
                if hit is not None:
                    found.append(hit)
                for base in self.r.index[file].defs[qual].bases:
                    typed = self.type_named(file, parent(qual), base)
                    if typed[0] == "def" and (typed[1], typed[2]) not in seen:
                        seen.add((typed[1], typed[2]))
                        deeper.append((typed[1], typed[2]))
                    below = below or typed[0] != "def"
            if found:
                return found[0] if len(set(found)) == 1 and not unproven else UNK
            unproven, outside = unproven or outside, below
            if not deeper:
                break
            level = deeper
        return ("ext", name) if unproven or outside else UNK

    def own_member(
        self, file: str, qual: str, name: str, ctx: ResolutionNotes, static: bool
    ) -> Entity | None:
        """A method of the type (in any file of its package) or, on a value, a field (an
        embedded one is named by its type); None when the type itself declares neither."""
        method = f"{qual}.{name}"
        hits = [
            other
            for other in self.package_files(file)
            if getattr(self.r.index[other].defs.get(method), "kind", "") in FUNCTIONS
        ]
        if hits:  # variants under build tags: the caller's own, else unknown
            found = one_of(hits, self.caller)
            if self.r.index[file].defs[qual].kind == "interface":
                ctx.inferred = True  # the dynamic type's method runs
            return ("def", found, method) if found else UNK
        if static:
            return None
        fields = self.r.index[file].assigns.get((qual, name))
        if fields:
            if not fields[0].value:
                return UNK
            return self.value_of(file, parent(qual), fields[0].value)
        for base in self.r.index[file].defs[qual].bases:
            if base.rsplit(".", 1)[-1] == name:
                return instance(self.type_named(file, parent(qual), base))
        return None

    # ------------------------------------------------------------ helpers

    def sym(self, entity: Entity) -> Symbol | None:
        idx = self.r.index.get(entity[1]) if len(entity) == 3 else None
        return idx.defs.get(entity[2]) if idx is not None else None

    def kind(self, entity: Entity) -> str:
        sym = self.sym(entity)
        return sym.kind if sym is not None else ""

    def is_type(self, entity: Entity) -> bool:
        return entity[0] in ("def", "inst") and self.kind(entity) in CLASSLIKE


def one_of(files: list[str], own: str) -> str:
    """The one file declaring a name, or ``own`` among several (its build constraints are
    the caller's); '' when it cannot be told."""
    if len(files) == 1:
        return files[0]
    return own if own in files else ""


def literal(entity: Entity) -> Entity:
    """``T{...}``: a value of the type ``T`` (``entity``) names."""
    if entity[0] == "ext":
        return entity
    return ("inst", *entity[1:]) if entity[0] == "def" else UNK


def instance(entity: Entity) -> Entity:
    """A value of the type ``entity`` names."""
    return ("inst", *entity[1:]) if entity[0] == "def" else entity
