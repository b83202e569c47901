"""Resolution across files: which definition each call and import points at.

A name is looked up the way the language looks it up (for Python: local, enclosing, module,
imports, builtins; class scopes are invisible from methods), imports are followed through
re-exports, and receivers get their type only from evidence (``self``, an assignment of a
constructor call, an annotation). Anything that is not proven stays unresolved with the name
as written; anything bound to stdlib or third-party code is external and never resolves into
the repository.
"""

from __future__ import annotations

import builtins
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from clawql_git.codegraph.cpp_namespaces import MacroNamespaces
from clawql_git.codegraph.model import (
    DECLARATION,
    Assignment,
    Call,
    Extractor,
    FileFacts,
    Import,
    RepoView,
    Symbol,
)

CALLABLE = frozenset(
    {"function", "method", "class", "struct", "interface", "trait", "enum", "type"}
)
CLASSLIKE = frozenset({"class", "struct", "interface", "trait", "enum", "type"})
TYPELIKE = CLASSLIKE | {"module"}  # a base may be a Ruby module (``include Greets``)
# an object or function whose members are assigned functions (lang_js / js_members)
JS_OBJECTS = frozenset({"javascript", "typescript", "tsx", "svelte"})
GLOBAL_CONSTANTS = frozenset({"ruby"})  # a class defined in any file is seen (autoload)
BUILTINS = frozenset(dir(builtins))
MAX_DEPTH = 14
# Ruby ``valid?``, JS/TS ``this.#private``
DOTTED = re.compile(r"^[A-Za-z_$][\w$]*[?!]?(\.#?[A-Za-z_$][\w$]*[?!]?)*$")
CHAIN = re.compile(r"^[A-Za-z_$][\w$.#]*(\(\)\.#?[A-Za-z_$][\w$]*)+$")  # JS ``a.b().c().d``
VARIABLES = frozenset({"variable", "constant"})
FUNCTIONS = frozenset({"function", "method"})
# names are seen from the enclosing functions and the file only, not from the tables a
# function is stored in (Lua: ``function M.f() g() end`` calls a ``g`` in scope, not ``M.g``)
LEXICAL = frozenset({"lua"})
# a module's named import reads a field of the value the module returns (Lua ``local f =
# require("m").f``)
RETURNED_MODULES = frozenset({"lua"})
LUA_CONSTRUCTORS = frozenset({"new", "create"})
TYPESCRIPT = frozenset({"typescript", "tsx"})  # a call of a variable links to its declaration
MIXED_IN = ".*"  # JS ``app.*`` -> ``=proto``: proto's members mixed into app (js_members)
EVENT_EMITTERS = frozenset(
    ("ext", f"{module}{member}")
    for module in ("events", "node:events")
    for member in ("", ".EventEmitter")
)
# Node's events docs: the methods of EventEmitter.prototype
EVENT_EMITTER_METHODS = frozenset(
    {
        "addListener",
        "emit",
        "eventNames",
        "getMaxListeners",
        "listenerCount",
        "listeners",
        "off",
        "on",
        "once",
        "prependListener",
        "prependOnceListener",
        "rawListeners",
        "removeAllListeners",
        "removeListener",
        "setMaxListeners",
    }
)
CONSTRUCTED = re.compile(r"^([A-Za-z_$][\w$.]*)\(\)\.([A-Za-z_$][\w$]*)$")
# bare names may be members of the enclosing class
IMPLICIT_THIS = frozenset({"java", "kotlin", "csharp", "cpp", "ruby", "swift", "dart", "scala"})
# a name of the file's own namespace (package) needs no import
NAMESPACED = frozenset({"csharp", "php", "kotlin", "scala", "java"})
SELF_NAMES = ("self", "cls", "this")
JAVA_LANG = frozenset(
    [
        "Object",
        "Comparable",
        "Runnable",
        "Iterable",
        "Cloneable",
        "AutoCloseable",
        "Exception",
        "RuntimeException",
        "Error",
        "Throwable",
        "Thread",
        "Enum",
        "Record",
        "Number",
        "CharSequence",
        "Appendable",
        "Readable",
    ]
)
EXTERNAL_ROOTS: dict[str, frozenset[str]] = {
    # names that need no import and are never the repository's: a base written with them
    "rust": frozenset({"std", "core", "alloc"}),
    "java": frozenset({"java", "javax", "jakarta", *JAVA_LANG}),
    "csharp": frozenset({"System", "Microsoft"}),
    "cpp": frozenset({"std", "boost"}),
}
CFAMILY = frozenset({"c", "cpp"})  # names are seen through #include, qualified by namespaces
MAX_INCLUDES = 256
C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl")
C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")

# Entities: what a name denotes. ("mod", paths) | ("ns", dotted, importer) |
# ("def", path, qualname) | ("inst", path, qualname) | ("ext", name) | ("unk",) |
# ("var", path, qualname): a TypeScript module-level variable (a call of it is a call of
# that declaration, as the TypeScript checker links it; its members are those of its value)
Entity = tuple[str, ...]
UNK: Entity = ("unk",)


@dataclass(frozen=True)
class Edge:
    """One call site and what it resolved to (``target_path`` empty when unresolved)."""

    path: str
    caller: str
    callee: str
    line: int
    column: int
    context: str
    target_path: str
    target_qualname: str
    confidence: float
    resolution: str  # exact | inferred | external | unresolved


@dataclass(frozen=True)
class Inheritance:
    """One supertype edge of a file, resolved: ``child_*`` and ``target_*`` are empty when
    that side is not a definition of the repository."""

    path: str
    line: int
    child: str
    child_path: str
    child_qualname: str
    base: str
    relation: str
    target_path: str
    target_qualname: str
    resolution: str  # exact | external | unresolved

    def to_row(self) -> tuple[str | int, ...]:
        return (
            self.path,
            self.child,
            self.child_path,
            self.child_qualname,
            self.base,
            self.line,
            self.relation,
            self.target_path,
            self.target_qualname,
            self.resolution,
        )


@dataclass
class FileIndex:
    """One file's facts, keyed for lookups."""

    facts: FileFacts
    defs: dict[str, Symbol] = field(default_factory=dict)
    imports: dict[tuple[str, str], list[Import]] = field(default_factory=dict)
    stars: dict[str, list[Import]] = field(default_factory=dict)
    assigns: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    self_attrs: dict[tuple[str, str], list[Assignment]] = field(default_factory=dict)
    owners: set[str] = field(default_factory=set)  # JS objects/functions given methods
    overloads: dict[str, list[Symbol]] = field(default_factory=dict)  # Java: every declaration

    @classmethod
    def build(cls, facts: FileFacts) -> FileIndex:
        idx = cls(facts)
        python = facts.language == "python"
        objects = facts.language in JS_OBJECTS
        swift = facts.language == "swift"
        for sym in facts.symbols:
            if sym.kind != "extension":  # a Swift extension's members are its type's
                idx.defs.setdefault(sym.qualname, sym)
            if facts.language == "java":
                idx.overloads.setdefault(sym.qualname, []).append(sym)
                if idx.defs[sym.qualname].kind == "constant" and sym.kind != "constant":
                    idx.defs[sym.qualname] = sym  # a constant beside a method or a class
            elif swift and sym.kind in CALLABLE and idx.defs[sym.qualname].kind == "variable":
                idx.defs[sym.qualname] = sym  # ``var x`` beside ``func x(...)``: calls
            if objects and sym.kind == "method":
                idx.owners.add(parent(sym.qualname))
        for imp in facts.imports:
            if imp.name == "*":
                idx.stars.setdefault(imp.scope, []).append(imp)
            else:
                idx.imports.setdefault((imp.scope, binding(imp, python)), []).append(imp)
        for asg in facts.assignments:
            head, _, attr = asg.target.partition(".")
            if head in SELF_NAMES and attr and "." not in attr:
                klass = asg.scope.rsplit(".", 1)[0] if "." in asg.scope else ""
                idx.self_attrs.setdefault((klass, attr), []).append(asg)
            else:
                idx.assigns.setdefault((asg.scope, asg.target), []).append(asg)
        return idx


def binding(imp: Import, python: bool) -> str:
    """The local name an import binds (``import a.b`` binds ``a`` in Python; a Go or Java
    whole-module import binds its last segment)."""
    if imp.alias:
        return imp.alias
    if imp.name and imp.name != "default":
        return imp.name
    if python:
        return imp.module.split(".")[0]
    return re.split(r"[/.:]+", imp.module.rstrip("/"))[-1]


def parent(qual: str) -> str:
    return qual.rsplit(".", 1)[0] if "." in qual else ""


def annotation_type(text: str) -> str:
    """The class an annotation names, when it names one (``Optional[X]``, ``X | None``,
    ``"X"``); '' otherwise."""
    t = text.strip().strip("'\"").strip()
    for wrapper in ("Optional[", "t.Optional[", "typing.Optional[", "Annotated[", "t.Annotated["):
        if t.startswith(wrapper) and t.endswith("]"):
            t = t[len(wrapper) : -1].split(",")[0].strip()
    parts = [p.strip() for p in t.split("|") if p.strip() != "None"]
    if len(parts) != 1:
        return ""
    return parts[0].strip("'\"") if DOTTED.match(parts[0].strip("'\"")) else ""


TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")


def strip_generics(written: str) -> str:
    """``Map<String, List<Node>>`` -> ``Map`` (a Java type as declared)."""
    previous = None
    while previous != written:
        previous, written = written, TYPE_ARGUMENTS.sub("", written)
    return written.replace(" ", "")


GO_RESULT = re.compile(r"\)\s*\*?([A-Za-z_][\w.]*)$")
GO_RESULTS = re.compile(r"\)\s*\(\s*\*?([A-Za-z_][\w.]*)\s*,\s*error\s*\)$")


def go_return_type(signature: str) -> str:
    """The type a Go function returns (``*T``, ``T``, ``(*T, error)``), '' when not one type."""
    m = GO_RESULT.search(signature.strip()) or GO_RESULTS.search(signature.strip())
    return m.group(1) if m else ""


def rust_return_type(signature: str, owner: str) -> str:
    """The type a Rust function returns (``-> Self`` is its impl's type), '' when generic."""
    if "->" not in signature:
        return ""
    t = signature.rsplit("->", 1)[1].strip().removeprefix("&").strip().replace("::", ".")
    if t == "Self":
        return owner
    return t if DOTTED.match(t) else ""


class Resolver:
    """Resolves the calls and imports of a set of files against each other."""

    def __init__(
        self, files: dict[str, FileFacts], extractors: dict[str, Extractor], repo: RepoView
    ) -> None:
        self.repo = repo
        self.extractors = extractors  # language -> extractor
        self.index = {path: FileIndex.build(f) for path, f in files.items()}
        self._modules: dict[tuple[int, str, str], tuple[str, ...]] = {}
        self._module_of: dict[tuple[str, str], tuple[str, ...]] = {}  # (importer, module)
        self._go_dirs: dict[str, list[str]] | None = None  # Go package dir -> its files
        self._visible: dict[str, list[str]] = {}  # C/C++ file -> itself and its includes
        self._includers: dict[str, list[str]] | None = None  # header -> sources including it
        # C/C++ definitions by (arguments, template or not) (``_c_bodies``)
        self._bodies: dict[tuple[int, bool | None], dict[str, list[str]]] = {}
        self._c_functions: dict[str, dict[str, list[Symbol]]] = {}  # header -> qualname -> fns
        # What an assignment proves, worked out once (None while being worked out: a cycle).
        # Without it inference re-follows every assignment of a name at each level, which is
        # exponential on code that assigns the same names many times (C#, Swift projects).
        self._inferred: dict[tuple[str, str, Assignment, int], tuple[Entity, bool] | None] = {}
        self._constants: dict[str, list[str]] | None = None  # Ruby qualname -> files
        # Swift module dir -> qualname -> the files defining it
        self._swift_roots: dict[str, dict[str, list[str]]] | None = None
        # A module attribute looked up, per (files, name, depth): the star imports of C#
        # namespaces (``using``) reach one another in cycles, and each lookup of a name the
        # repository does not define walked every path of them down to MAX_DEPTH again.
        self._attrs: dict[tuple[tuple[str, ...], str, int], tuple[Entity, bool]] = {}
        self._hidden = self._macro_namespaces()
        self.typed: dict[str, CallResolver] = self._typed_calls()
        self.passed: dict[str, ParameterResolver] = self._passed_values()

    def _macro_namespaces(self) -> MacroNamespaces:
        """C++: the namespaces a macro line opens, per file (``cpp_namespaces``)."""
        return MacroNamespaces(lambda f: self.index[f].facts, self.visible)

    def replace(self, facts: FileFacts) -> None:
        """Take the new facts of a file already known (the set of files is unchanged, so
        module resolution stays valid)."""
        self.index[facts.path] = FileIndex.build(facts)
        self._visible, self._includers, self._constants = {}, None, None
        self._bodies, self._c_functions = {}, {}
        self._swift_roots = None
        self._inferred, self._attrs = {}, {}
        self._hidden = self._macro_namespaces()
        self.typed = self._typed_calls()
        self.passed = self._passed_values()

    def _typed_calls(self) -> dict[str, CallResolver]:
        """The call resolvers of the extractors that bring one (``call_resolver``: a factory
        taking this resolver), per language; made again when facts change (they cache)."""
        out = {}
        for language, extractor in self.extractors.items():
            factory = getattr(extractor, "call_resolver", None)
            if factory is not None:
                out[language] = factory(self)
        return out

    def _passed_values(self) -> dict[str, ParameterResolver]:
        """What a framework passes plain parameters (Python: pytest fixtures), per language
        whose extractor brings a ``parameter_resolver`` factory."""
        out = {}
        for language, extractor in self.extractors.items():
            factory = getattr(extractor, "parameter_resolver", None)
            if factory is not None:
                out[language] = factory(self)
        return out

    # ------------------------------------------------------------ modules

    def module_files(self, importer: str, module: str) -> tuple[str, ...]:
        """The files an import denotes (empty: external), cached per (extractor, importer
        dir, module) (a Java and a Kotlin file of one directory ask two extractors); per
        importer file for Rust, where ``mod x;`` in ``src/a.rs`` is ``src/a/x.rs`` but in
        ``src/lib.rs`` (or a ``mod.rs``) is a sibling file."""
        files = self._module_of.get((importer, module))
        if files is not None:  # asked again of this file (hot: star imports in lookups)
            return files
        language = self.index[importer].facts.language if importer in self.index else ""
        ex = self.extractors.get(language)
        where = importer if language == "rust" else posixpath.dirname(importer)
        key = (id(ex), where, module)
        if key not in self._modules:
            found = ex.resolve_module(importer, module, self.repo) if ex is not None else []
            self._modules[key] = tuple(p for p in found if p in self.index)
        self._module_of[importer, module] = self._modules[key]
        return self._modules[key]

    def import_targets(self, path: str) -> list[tuple[Import, tuple[str, ...]]]:
        """Each import of ``path`` with the files it points at (``from pkg import mod`` names
        the submodule file)."""
        out = []
        python = self.index[path].facts.language == "python"
        for imp in self.index[path].facts.imports:
            files = self.module_files(path, imp.module)
            if python and imp.name and imp.name != "*":
                sub = self.module_files(path, _join(imp.module, imp.name))
                if sub and not self._has_name(files, imp.name):
                    files = sub
            out.append((imp, files))
        return out

    def commonjs_default(self, files: tuple[str, ...]) -> str:
        """The name a JS module exports as a whole (``module.exports = X`` / ``export default
        X`` with no other export): what a whole-module ``require()`` of it gives; '' when the
        module exports names (then the binding is the module)."""
        if len(files) != 1 or self.index[files[0]].facts.exports != ["default"]:
            return ""
        aliases = self.index[files[0]].assigns.get(("", "default"), [])
        values = {a.value for a in aliases}
        if len(values) != 1 or not next(iter(values)).startswith("="):
            return ""
        return next(iter(values))[1:]

    def _commonjs_value(
        self, files: tuple[str, ...], ctx: ResolutionNotes, depth: int
    ) -> Entity | None:
        """What a whole-module ``require()`` of a JS file gives when the file says:
        ``module.exports = require('./y')`` (what requiring ``./y`` gives), ``module.exports
        = Y`` (Y, even beside other exports), or only ``export default Y``; None otherwise."""
        if len(files) != 1 or depth > MAX_DEPTH:
            return None
        idx = self.index[files[0]]
        passed = idx.imports.get(("", "module.exports"), [])
        whole = idx.assigns.get(("", "module.exports"), [])
        if passed and (whole or len(passed) > 1):
            return UNK  # assigned twice: which one stands is not proven here
        if passed:
            return self.follow(files[0], passed[0], ctx, depth + 1) if not passed[0].name else UNK
        if whole:
            return self.infer(files[0], "", whole, ctx, depth + 1)
        if self.commonjs_default(files):
            return self._module_attr(files, "default", ctx, depth + 1)
        return None

    def _has_name(self, files: tuple[str, ...], name: str) -> bool:
        return any(name in self.index[f].defs or ("", name) in self.index[f].imports for f in files)

    # ------------------------------------------------------------ calls

    def edges(self, path: str) -> list[Edge]:
        """Every call of ``path``, resolved or kept unresolved with its name."""
        out = []
        for call in self.index[path].facts.calls:
            scope = call.caller if call.context == "body" else parent(call.caller)
            if call.context != "body" and call.caller not in self.index[path].defs:
                scope = call.caller
            ctx = ResolutionNotes()
            typed = self.typed.get(self.index[path].facts.language)
            if typed is not None:
                entity = typed.callee(path, scope, call, ctx)
            elif call.callee.startswith("require().") and self._js(path):
                entity = self._required_member_call(path, call, ctx)
            elif call.callee.split(".")[0] == "this" and self._js(path):
                entity = self._this_call(path, scope, call, ctx)
            else:
                entity = self.callee(path, scope, call.callee, ctx)
            out.append(self._edge(path, call.caller, call.callee, call, entity, ctx))
        return out

    def _js(self, path: str) -> bool:
        return self.index[path].facts.language in JS_OBJECTS

    def _required_member_call(self, path: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """JS ``require('./x').m()``: ``m`` of what the one ``require()`` written on that line
        (in that function) gives; unknown when the line has several."""
        member = call.callee.removeprefix("require().")
        required = [
            imp
            for imp in self.index[path].facts.imports
            if imp.line == call.line and imp.scope == call.caller and not (imp.name or imp.alias)
        ]
        if len(required) != 1 or not DOTTED.match(member):
            return UNK
        entity = self.follow(path, required[0], ctx, 1)
        for part in member.split("."):
            if entity[0] in ("unk", "ext"):
                return entity
            entity = self.attribute(entity, part, ctx, 1)
        return entity

    def _this_call(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """JS ``this.m()``; in an anonymous function, with the ``this`` recorded for the
        call site (``js_this``): unknown, or the receiver the function is assigned to."""
        here = self.index[path].assigns.get((call.caller, f"this@{call.line}:{call.column}"))
        if not here:
            return self.callee(path, scope, call.callee, ctx)
        if len(here) != 1 or not here[0].value.startswith("="):
            return UNK
        receiver = here[0].value[1:]
        return self.callee(path, scope, receiver + call.callee[len("this") :], ctx)

    def supertypes(self, path: str) -> list[Inheritance]:
        """Every supertype edge of ``path``: the subtype and the base, each resolved the way a
        name used there resolves (a base bound to stdlib or a dependency is external)."""
        out = []
        for sup in self.index[path].facts.supertypes:
            child_path, child_qual = self._type_def(path, sup.scope, sup.child, True)
            scope = parent(child_qual) if child_path == path else sup.scope
            target_path, target_qual = self._type_def(path, scope, sup.base, False)
            how = "exact" if target_path else target_qual or "unresolved"
            out.append(
                Inheritance(
                    path,
                    sup.line,
                    sup.child,
                    child_path,
                    child_qual if child_path else "",
                    sup.base,
                    sup.relation,
                    target_path,
                    target_qual if target_path else "",
                    how,
                )
            )
        return out

    def _type_def(self, path: str, scope: str, written: str, own: bool) -> tuple[str, str]:
        """(file, qualname) of the type ``written`` denotes from ``scope`` of ``path``; for
        no definition ('', 'external') or ('', ''). ``own``: a qualname of this file first.
        A language's call resolver may bring its own lookup (``type_def``: Elixir)."""
        own_lookup = getattr(self.typed.get(self.index[path].facts.language), "type_def", None)
        if own_lookup is not None:
            looked_up: tuple[str, str] = own_lookup(path, scope, written)
            return looked_up
        defs = self.index[path].defs
        local = f"{scope}.{written}" if scope else written
        if own:
            for qual in (local, written):
                if qual in defs and defs[qual].kind in TYPELIKE:
                    return path, qual
        dotted = written.replace("::", ".")
        if not DOTTED.match(dotted):
            return "", ""
        notes = ResolutionNotes()
        found = self.value(self.expression(path, scope, dotted, notes), notes, 0)
        language = self.index[path].facts.language
        if found[0] == "unk" and language == "java":
            found = self._java_package_type(path, dotted)
        if found[0] in ("def", "inst") and self.index[found[1]].defs[found[2]].kind in TYPELIKE:
            return found[1], found[2]
        head = dotted.split(".")[0]
        if found[0] == "ext" or (found[0] == "unk" and head in EXTERNAL_ROOTS.get(language, ())):
            return "", "external"
        return "", ""

    def _java_package_type(self, path: str, dotted: str) -> Entity:
        """A Java type of the importer's own package (its directory), which needs no import."""
        head, *rest = dotted.split(".")
        other = posixpath.join(posixpath.dirname(path), head + ".java")
        if other not in self.index or head not in self.index[other].defs:
            return UNK
        entity: Entity = ("def", other, head)
        for part in rest:
            entity = self.attribute(entity, part, ResolutionNotes(), 0)
        return entity

    def _edge(
        self, path: str, caller: str, callee: str, call: object, e: Entity, ctx: ResolutionNotes
    ) -> Edge:
        line, column, context = call.line, call.column, call.context  # type: ignore[attr-defined]
        if e[0] == "def" and self.index[path].facts.language in CFAMILY:
            written: tuple[int, ...] = getattr(call, "args", ())
            arguments = written[-1] if written else -1
            e = self._c_definition(path, e[1], e[2], ctx, arguments)
        if e[0] == "var":  # the variable's own declaration
            how, conf = ("inferred", 0.8) if ctx.inferred else ("exact", 1.0)
            return Edge(path, caller, callee, line, column, context, e[1], e[2], conf, how)
        if e[0] == "def" and self.index[e[1]].defs[e[2]].kind in CALLABLE:
            how = "inferred" if ctx.inferred else "exact"
            conf = 0.8 if ctx.inferred else 1.0
            return Edge(path, caller, callee, line, column, context, e[1], e[2], conf, how)
        how = "external" if e[0] == "ext" else "unresolved"
        return Edge(path, caller, callee, line, column, context, "", "", 0.0, how)

    def callee(self, path: str, scope: str, callee: str, ctx: ResolutionNotes) -> Entity:
        """What a callee denotes: a dotted name, or ``Class().method`` (typed by its
        constructor); anything else (subscripts, calls on call results) is unknown. Rust
        paths (``service::Service::new``) are looked up as dotted names."""
        callee = callee.replace("::", ".")
        if DOTTED.match(callee):
            return self.expression(path, scope, callee, ctx)
        if self.index[path].facts.language in JS_OBJECTS and CHAIN.match(callee):
            return self._chain(path, scope, callee, ctx, 0)
        m = CONSTRUCTED.match(callee)
        if m is None:
            return UNK
        made = self.expression(path, scope, m.group(1), ctx)
        if made[0] == "def" and self.index[made[1]].defs[made[2]].kind in CLASSLIKE:
            ctx.inferred = True
            return self.attribute(("inst", made[1], made[2]), m.group(2), ctx, 0)
        return made if made[0] == "ext" else UNK

    def _chain(
        self, path: str, scope: str, callee: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """JS/TS ``a.b().c().d``: each call's result typed by what was called (a class: its
        instance; a function: its declared return type; a value of a type with a call
        signature: that signature's return type), then the next members looked up on it."""
        return self._chain_call(path, scope, callee, ctx, depth)[0]

    def _chain_call(
        self, path: str, scope: str, callee: str, ctx: ResolutionNotes, depth: int
    ) -> tuple[Entity, Entity]:
        """``_chain``, with the receiver of its last member (UNK when it has none)."""
        first, *calls = callee.split("().")
        head, _, last = first.rpartition(".")
        receiver = self._resolve_in(path, scope, head, ctx, depth) if head else UNK
        entity = self.attribute(receiver, last, ctx, depth + 1) if head else UNK
        if not head:
            entity = self._resolve_in(path, scope, first, ctx, depth)
        for dotted in calls:
            entity = self.called(entity, ctx, depth + 1, receiver)
            receiver = UNK
            for part in dotted.split("."):
                if entity[0] in ("unk", "ext"):
                    return entity, UNK
                receiver, entity = entity, self.attribute(entity, part, ctx, depth + 1)
        return entity, receiver

    def called(
        self, entity: Entity, ctx: ResolutionNotes, depth: int, receiver: Entity = UNK
    ) -> Entity:
        """What calling ``entity`` gives (JS/TS), when its declaration proves it; a method
        that returns ``this`` gives the ``receiver`` it was called on."""
        entity = self.value(entity, ctx, depth)
        if entity[0] not in ("def", "inst"):
            return entity if entity[0] == "ext" else UNK
        sym = self.index[entity[1]].defs[entity[2]]
        if entity[0] == "def" and sym.kind == "method":
            given = self._receiver_returned(entity[1], sym, ctx, depth + 1, receiver)
            if given is not None:
                return given
        ctx.inferred = True
        if entity[0] == "def" and sym.kind in CLASSLIKE:
            return ("inst", entity[1], entity[2])
        if entity[0] == "def":
            return self._returns(entity[1], sym, ctx, depth + 1)
        signature = self.index[entity[1]].assigns.get((entity[2], "()"))
        return self.infer(entity[1], entity[2], signature, ctx, depth + 1) if signature else UNK

    def _receiver_returned(
        self, path: str, sym: Symbol, ctx: ResolutionNotes, depth: int, receiver: Entity
    ) -> Entity | None:
        """What a call of the JS method ``sym`` on ``receiver`` gives when every return of
        it is ``this`` (the receiver) or ``this.m(...)`` (what ``receiver.m()`` gives); None
        when the method says neither, UNK when the receiver is not known."""
        if self.index[path].facts.language not in JS_OBJECTS or depth > MAX_DEPTH:
            return None
        returned = [
            a.value
            for a in self.index[path].assigns.get((parent(sym.qualname), sym.name + "()"), [])
            if a.value.startswith("=this")
        ]
        if len(returned) != 1:
            return None
        if receiver[0] not in ("def", "inst"):
            return UNK
        if returned[0] == "=this":
            return receiver
        method = self.attribute(receiver, returned[0][len("=this.") : -len("()")], ctx, depth)
        return self.called(method, ctx, depth + 1, receiver)

    def value(self, entity: Entity, ctx: ResolutionNotes, depth: int) -> Entity:
        """What a JS/TS variable holds (inferred from its assignments); another entity as
        it is."""
        if entity[0] != "var":
            return entity
        path, qual = entity[1], entity[2]
        assigns = self.index[path].assigns.get((parent(qual), qual.rsplit(".", 1)[-1]))
        return self.infer(path, parent(qual), assigns, ctx, depth + 1) if assigns else UNK

    def expression(self, path: str, scope: str, dotted: str, ctx: ResolutionNotes) -> Entity:
        """What a dotted name denotes in ``scope`` of ``path``."""
        found = self._cfamily(path, scope, dotted, ctx)
        if found is not None:
            return found
        head, *rest = dotted.split(".")
        entity = self.name(path, scope, head, ctx, 0)
        for part in rest:
            if entity[0] in ("unk", "ext"):
                return entity
            entity = self.attribute(entity, part, ctx, 0)
        return entity

    def scopes(self, path: str, scope: str) -> Iterable[str]:
        """The scope chain: the scope itself, enclosing function scopes (class bodies are
        skipped, as Python does), then the module. A JS method of an object or a function
        (``app.m = function``, ``{m() {}}``) sits lexically where it is written: at module
        level, not inside ``app``."""
        defs = self.index[path].defs
        lexical = self.index[path].facts.language in LEXICAL
        objects = self.index[path].facts.language in JS_OBJECTS
        cur, first = scope, True
        while cur:
            sym = defs.get(cur)
            if lexical and not first and (sym is None or sym.kind not in FUNCTIONS):
                pass  # Lua: ``M`` of ``function M.f`` is a table, no scope of names
            elif first or sym is None or sym.kind not in CLASSLIKE:
                yield cur
            up = defs.get(parent(cur))
            if objects and sym is not None and sym.kind == "method" and up is not None:
                cur = "" if up.kind not in CLASSLIKE else parent(cur)
            else:
                cur = parent(cur)
            first = False
        yield ""

    def name(self, path: str, scope: str, name: str, ctx: ResolutionNotes, depth: int) -> Entity:
        if depth > MAX_DEPTH:
            return UNK
        idx = self.index[path]
        python = idx.facts.language == "python"
        if name in SELF_NAMES:
            klass = self._enclosing_class(path, scope)
            if klass:
                return ("def" if name == "cls" else "inst", path, klass)
            extended = self._extended_type(path, scope)
            if extended[0] == "def":
                return ("inst", extended[1], extended[2])
        for cur in self.scopes(path, scope):
            found = self._in_scope(path, cur, name, ctx, depth)
            if found is not None:
                return found
        if idx.facts.language in IMPLICIT_THIS:
            member = self._implicit_member(path, scope, name, ctx, depth)
            if member is not None:
                return member
        if idx.facts.language == "go":
            found = self._go_package(path, name, ctx, depth)
            if found is not None:
                return found
        if idx.facts.language == "swift":
            found = self._swift_module(path, name)
            if found is not None:
                return found
        if idx.facts.language in NAMESPACED:
            found = self._namespace_mate(path, name)
            if found is not None:
                return found
        for imp in idx.stars.get("", []) if idx.facts.language not in CFAMILY else ():
            files = self.module_files(path, imp.module)  # C/C++: _cfamily read the includes
            if not files:
                continue
            found = self.attribute(("mod", *files), name, ctx, depth + 1)
            if found[0] != "unk":
                return found
        if python and name in BUILTINS:
            return ("ext", name)
        if idx.facts.language in GLOBAL_CONSTANTS and name[:1].isupper():
            return self._global_constant(path, scope, name, ctx)
        return UNK

    def _nested(self, path: str, qual: str, ctx: ResolutionNotes) -> Entity:
        """A member of a module: defined in the module's file, else (Ruby: modules reopen
        across files) in the one other file defining ``qual``."""
        idx = self.index[path]
        sym = idx.defs.get(qual)
        if sym is not None and sym.kind in VARIABLES and idx.facts.language in LEXICAL:
            settings = idx.assigns.get((parent(qual), qual.rsplit(".", 1)[-1]))
            return self.infer(path, "", settings, ctx, 1) if settings else UNK  # M.f = g.h
        if sym is not None:
            return ("def", path, qual) if sym.kind not in ("variable", "constant") else UNK
        if self.index[path].facts.language not in GLOBAL_CONSTANTS:
            return UNK
        return self._constant_file(path, qual, ctx)

    def _global_constant(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """Ruby: a constant of the enclosing modules (innermost first, class bodies too) or
        of the top level, defined in another file: required or not, Ruby sees it."""
        cur = scope
        while True:
            qual = f"{cur}.{name}" if cur else name
            if cur and qual in self.index[path].defs:
                return ("def", path, qual)
            found = self._constant_file(path, qual, ctx)
            if found[0] != "unk" or not cur:
                return found
            cur = parent(cur)

    def _constant_file(self, path: str, qual: str, ctx: ResolutionNotes) -> Entity:
        """The one file of the language of ``path`` defining ``qual``: exact when ``path``
        requires it, else inferred; several (or none): unknown."""
        if self._constants is None:
            self._constants = {}
            for f in sorted(self.index):
                if self.index[f].facts.language in GLOBAL_CONSTANTS:
                    for sym in self.index[f].facts.symbols:
                        if sym.kind in TYPELIKE or sym.kind in ("function", "method"):
                            self._constants.setdefault(sym.qualname, []).append(f)
        files = [f for f in self._constants.get(qual, []) if f != path]
        if files and all(self.index[f].defs[qual].kind == "module" for f in files):
            files = files[:1]  # a module reopened in several files: its members are looked up

        required = {
            f
            for imp in self.index[path].stars.get("", [])
            for f in self.module_files(path, imp.module)
        }
        if len(files) > 1:
            files = [f for f in files if f in required] or files
        if len(files) != 1:
            return UNK
        if files[0] not in required:
            ctx.inferred = True
        return ("def", files[0], qual)

    def _enclosing_class(self, path: str, scope: str) -> str:
        defs = self.index[path].defs
        cur = scope
        while cur:
            sym = defs.get(cur)
            if sym is not None and sym.kind in ("method", "function"):
                up = defs.get(parent(cur))
                if up is not None and up.kind in CLASSLIKE:
                    return up.qualname
            cur = parent(cur)
        return ""

    def _implicit_member(
        self, path: str, scope: str, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity | None:
        """Java/TS-style: a bare name inside a method may be a member of its class."""
        klass = self._enclosing_class(path, scope)
        if not klass:
            extended = self._extended_type(path, scope)
            if extended[0] != "def":
                return None
            found = self.member(extended[1], extended[2], name, ctx, depth + 1, instance=True)
            return found if found[0] != "unk" else None
        found = self.member(path, klass, name, ctx, depth + 1, instance=True)
        return found if found[0] != "unk" else None

    def _extended_type(self, path: str, scope: str) -> Entity:
        """Swift: the type of a method of ``extension T`` where ``T`` is defined in another
        file of the module (the method's qualname is ``T.m``, ``T`` is no definition here)."""
        if self.index[path].facts.language != "swift" or scope not in self.index[path].defs:
            return UNK
        owner = parent(scope)
        if not owner or owner in self.index[path].defs:
            return UNK
        found = self._swift_module(path, owner)
        if found is None or self.index[found[1]].defs[found[2]].kind not in CLASSLIKE:
            return UNK
        return found

    def _go_package(self, path: str, name: str, ctx: ResolutionNotes, depth: int) -> Entity | None:
        """Go: a package is its directory, so a top-level name may be defined in any of its
        files (imports stay per file, so only definitions and package-level vars count)."""
        if self._go_dirs is None:
            self._go_dirs = {}
            for f in sorted(self.index):
                if self.index[f].facts.language == "go":
                    self._go_dirs.setdefault(posixpath.dirname(f), []).append(f)
        for other in self._go_dirs.get(posixpath.dirname(path), []):
            idx = self.index[other]
            if other == path:
                continue
            sym = idx.defs.get(name)
            if sym is not None and sym.kind not in ("variable", "constant"):
                return ("def", other, name)
            assigns = idx.assigns.get(("", name))
            if assigns:
                return self.infer(other, "", assigns, ctx, depth + 1)
            if sym is not None:
                return UNK
        return None

    def _swift_module(self, path: str, qual: str) -> Entity | None:
        """Swift: a definition of another file of the same module (``Sources/<name>/`` of a
        package, else the whole repository), which needs no import."""
        if self._swift_roots is None:
            # per module directory: each qualname to the files defining it (not as a
            # variable), in path order; the module is asked once per name looked up
            self._swift_roots = {}
            for f in sorted(self.index):
                if self.index[f].facts.language != "swift":
                    continue
                defined = self._swift_roots.setdefault(swift_module_root(f), {})
                for name, sym in self.index[f].defs.items():
                    if sym.kind not in ("variable", "constant"):
                        defined.setdefault(name, []).append(f)
        for other in self._swift_roots.get(swift_module_root(path), {}).get(qual, ()):
            if other != path:
                return ("def", other, qual)
        return None

    def _namespace_mate(self, path: str, name: str) -> Entity | None:
        """C#/PHP: a definition of the file's own namespace (C#: or an enclosing one) in
        another file, which needs no import; the namespaces are the file's 'module' symbols."""
        csharp = self.index[path].facts.language == "csharp"
        for sym in self.index[path].facts.symbols:
            if sym.kind != "module":
                continue
            parts = sym.name.split(".")
            names = (
                [".".join(parts[:n]) for n in range(len(parts), 0, -1)] if csharp else [sym.name]
            )
            for namespace in names:
                for other in self.module_files(path, namespace):
                    found = self.index[other].defs.get(name)
                    if other != path and found is not None and found.kind in CALLABLE:
                        return ("def", other, name)
        return None

    def _in_scope(
        self, path: str, scope: str, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity | None:
        idx = self.index[path]
        qual = f"{scope}.{name}" if scope else name
        sym = idx.defs.get(qual)
        if idx.facts.language in LEXICAL and self._set_twice(idx, scope, name, sym):
            return UNK  # Lua: a local set to a function (a module) and to other values
        if sym is not None and sym.kind == "method" and idx.facts.language in JS_OBJECTS:
            sym = None  # a JS method is a property, never a name in scope (``vary`` in
            # ``res.vary = function () { vary(this) }`` is the module's ``vary``)
        if sym is not None and (sym.kind not in VARIABLES or qual in idx.owners):
            return ("def", path, qual)
        if sym is not None and not scope and idx.facts.language in TYPESCRIPT:
            return ("var", path, qual)
        imports = idx.imports.get((scope, name))
        if imports and len(imports) > 1 and idx.facts.language == "rust":
            return self.rust_namespaces(path, imports, ctx, depth)
        if imports:
            return self.follow(path, imports[-1], ctx, depth + 1)
        assigns = idx.assigns.get((scope, name))
        if assigns:
            return self.infer(path, scope, assigns, ctx, depth + 1)
        if sym is not None:
            return UNK
        return None

    @staticmethod
    def _set_twice(idx: FileIndex, scope: str, name: str, sym: Symbol | None) -> bool:
        """A name of ``scope`` both defined (or imported) and set by an assignment."""
        held = (scope, name) in idx.assigns
        return held and (sym is not None or (scope, name) in idx.imports)

    def rust_namespaces(
        self, path: str, imports: list[Import], ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """Rust: one name imported twice (``pub use a::Foo; pub use macros::Foo;``, a trait
        and its derive macro, which live in two namespaces): the last that is known."""
        found = UNK
        for imp in reversed(imports):
            found = self.follow(path, imp, ctx, depth + 1)
            if found[0] != "unk":
                return found
        return found

    def follow(self, path: str, imp: Import, ctx: ResolutionNotes, depth: int) -> Entity:
        """What an import binds."""
        python = self.index[path].facts.language == "python"
        if not imp.name:
            module = imp.module if imp.alias or not python else imp.module.split(".")[0]
            files = self.module_files(path, module)
            named = binding(imp, python)
            for f in files if not python else ():  # Java: `import com.acme.Foo` names a class
                if named in self.index[f].defs:
                    return ("def", f, named)
            # `X = require('./x')` of a module doing `module.exports = Y` binds Y
            whole = self._commonjs_value(files, ctx, depth) if not python else None
            if whole is not None:
                return whole
            if files:
                return ("mod", *files)
            if python and not imp.alias and self.module_files(path, imp.module):
                return ("ns", module, path)
            return ("ext", imp.module)
        files = self.module_files(path, imp.module)
        if not files:
            if python and self.module_files(path, _join(imp.module, imp.name)):
                return ("mod", *self.module_files(path, _join(imp.module, imp.name)))
            return ("ext", f"{imp.module}.{imp.name}")
        found = self.attribute(("mod", *files), imp.name, ctx, depth + 1)
        language = self.index[path].facts.language
        if found[0] == "unk" and language in RETURNED_MODULES and self.commonjs_default(files):
            returned = self._module_attr(files, "default", ctx, depth + 1)
            return self.attribute(returned, imp.name, ctx, depth + 1)
        if found[0] == "unk" and not python:  # Java `import static a.b.C.m`: member m of C
            klass = imp.module.rsplit(".", 1)[-1]
            for f in files:
                sym = self.index[f].defs.get(klass)
                if sym is not None and sym.kind in CLASSLIKE:
                    return self.member(f, klass, imp.name, ctx, depth + 1, instance=False)
        if found[0] == "unk" and python:
            sub = self.module_files(path, _join(imp.module, imp.name))
            if sub:
                return ("mod", *sub)
        return found

    def infer(
        self, path: str, scope: str, assigns: list[Assignment], ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """The type an assignment proves, or unknown; several disagreeing ones: unknown."""
        results = {self._infer_one(path, scope, a, ctx, depth) for a in assigns}
        return results.pop() if len(results) == 1 else UNK

    def _infer_one(
        self, path: str, scope: str, asg: Assignment, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """``_infer`` of one assignment, memoised per (file, scope, assignment, depth): the
        same answer as without the memo, in polynomial time. A plain parameter (no value, marked
        ``annotation``) is typed by what its language's ``passed`` resolver proves."""
        if depth > MAX_DEPTH:
            return UNK
        passed = self.passed.get(self.index[path].facts.language) if not asg.value else None
        if not asg.value and (passed is None or not asg.annotation):
            return UNK
        key = (path, scope, asg, depth)
        if key in self._inferred:
            known = self._inferred[key]
            if known is None:  # a cycle: this assignment is being worked out further up
                return UNK
            ctx.inferred = ctx.inferred or known[1]
            return known[0]
        self._inferred[key] = None
        notes = ResolutionNotes()
        found = self._infer(path, scope, asg, notes, depth)
        self._inferred[key] = (found, notes.inferred)
        ctx.inferred = ctx.inferred or notes.inferred
        return found

    def _infer(
        self, path: str, scope: str, asg: Assignment, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        if not asg.value:
            return self.passed[self.index[path].facts.language].parameter(path, asg, ctx, depth)
        value = asg.value.replace("::", ".")
        if value.startswith("="):
            dotted = value[1:]
            return (
                self._resolve_in(path, scope, dotted, ctx, depth) if DOTTED.match(dotted) else UNK
            )
        if asg.annotation:
            java = self.index[path].facts.language == "java"
            value = annotation_type(strip_generics(value) if java else value)
            if not value:
                return UNK
        elif CHAIN.match(value) and self.index[path].facts.language in JS_OBJECTS:
            made, receiver = self._chain_call(path, scope, value, ctx, depth + 1)  # a.b().c()
            return self.called(made, ctx, depth + 1, receiver)
        elif not DOTTED.match(value):
            return UNK
        target = self._resolve_in(path, scope, value, ctx, depth)
        ctx.inferred = True
        if target[0] == "var":  # a variable's value called (JS/TS ``x = ky()``)
            return UNK if asg.annotation else self.called(target, ctx, depth + 1)
        if target[0] == "def":
            sym = self.index[target[1]].defs[target[2]]
            if sym.kind in CLASSLIKE:
                return ("inst", target[1], target[2])
            if not asg.annotation and sym.kind == "method" and "." in value:
                receiver = self._resolve_in(path, scope, parent(value), ctx, depth)
                return self.called(target, ctx, depth + 1, receiver)  # x = this.status(200)
            if not asg.annotation:
                return self._returns(target[1], sym, ctx, depth + 1)
        return ("ext", value) if target[0] == "ext" else UNK

    def _returns(self, path: str, sym: Symbol, ctx: ResolutionNotes, depth: int) -> Entity:
        """What calling a function gives, when its declared return type names a class
        (Python ``-> X``, Go ``func NewX() *X``, Rust ``-> Self`` / ``-> X``)."""
        language = self.index[path].facts.language
        if language == "python":
            named = (
                annotation_type(sym.signature.rsplit("->", 1)[1]) if "->" in sym.signature else ""
            )
        elif language == "go":
            named = go_return_type(sym.signature)
        elif language == "rust":
            named = rust_return_type(sym.signature, parent(sym.qualname))
        elif language in JS_OBJECTS or language in LEXICAL:  # the extractor wrote ``name()``
            declared = self.index[path].assigns.get((parent(sym.qualname), sym.name + "()"))
            named = declared[0].value if declared and len(declared) == 1 else ""
            if language in JS_OBJECTS and named.startswith("=") and not named.startswith("=this"):
                inner = f"{sym.qualname}.{named[1:]}"  # ``return function inner() {...}``
                found = self.index[path].defs.get(inner)
                if found is not None:
                    return ("def", path, inner) if found.kind == "function" else UNK
                local = self.index[path].assigns.get((sym.qualname, named[1:]))  # ``return x``
                return self.infer(path, sym.qualname, local, ctx, depth + 1) if local else UNK
        else:
            return UNK
        if not named and language in LEXICAL:
            return self._lua_constructor(path, sym, ctx)
        if not named:
            return UNK
        scope = parent(sym.qualname)
        defs = self.index[path].defs
        while (
            language in LEXICAL and scope and getattr(defs.get(scope), "kind", "") not in FUNCTIONS
        ):
            scope = parent(scope)  # Lua: a returned name is seen from the enclosing function
        target = self._resolve_in(path, scope, named, ctx, depth)
        found = self.index[target[1]].defs[target[2]] if target[0] == "def" else None
        if found is not None and found.kind in CLASSLIKE:
            return ("inst", target[1], target[2])
        if found is not None and found.kind in FUNCTIONS and language in LEXICAL:
            return self._returns(target[1], found, ctx, depth + 1)  # Lua: ``return make()``
        return ("ext", named) if target[0] == "ext" else UNK

    def _lua_constructor(self, path: str, sym: Symbol, ctx: ResolutionNotes) -> Entity:
        """Lua ``Cart.new()`` / ``Cart:create()`` whose returns prove nothing: by convention
        (Programming in Lua's classes) a ``Cart``, when ``Cart`` is a class (inferred)."""
        owner = self.index[path].defs.get(parent(sym.qualname))
        if sym.name not in LUA_CONSTRUCTORS or owner is None or owner.kind not in CLASSLIKE:
            return UNK
        ctx.inferred = True
        return ("inst", path, owner.qualname)

    def _resolve_in(
        self, path: str, scope: str, dotted: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        found = self._cfamily(path, scope, dotted, ctx)
        if found is not None:
            return found
        head, *rest = dotted.split(".")
        entity = self.name(path, scope, head, ctx, depth + 1)
        for part in rest:
            if entity[0] in ("unk", "ext"):
                return entity
            entity = self.attribute(entity, part, ctx, depth + 1)
        return entity

    # ------------------------------------------------------------ C and C++

    def _cfamily(self, path: str, scope: str, dotted: str, ctx: ResolutionNotes) -> Entity | None:
        """C/C++: ``dotted`` (``ns.f``, ``Foo.make``, ``f``) qualified from the innermost
        enclosing namespace or class outward, defined in this file or a header it includes
        (transitively)."""
        if self.index[path].facts.language not in CFAMILY:
            return None
        prefixes = []
        cur = scope
        while cur:
            prefixes.append(cur)
            cur = parent(cur)
        prefixes.append("")
        candidates = [f"{prefix}.{dotted}" if prefix else dotted for prefix in prefixes]
        candidates += self._c_using(path, prefixes, dotted)
        visible = self.visible(path)
        for qual in candidates:
            for f in visible:
                stored = qual if qual in self.index[f].defs else self._hidden.aliases(f).get(qual)
                sym = self.index[f].defs.get(stored) if stored else None
                if stored and sym is not None and sym.kind not in ("variable", "constant"):
                    return ("def", f, self._injected_class(f, stored, dotted))
        return None

    def _injected_class(self, path: str, qual: str, dotted: str) -> str:
        """``Foo`` looked up inside ``Foo``'s own scope is the class (its injected class
        name), not its constructor ``Foo.Foo``."""
        owner = parent(qual)
        if "." not in dotted and owner.rsplit(".", 1)[-1] == dotted:
            sym = self.index[path].defs.get(owner)
            if sym is not None and sym.kind in CLASSLIKE:
                return owner
        return qual

    def _c_using(self, path: str, prefixes: list[str], dotted: str) -> list[str]:
        """More qualnames ``dotted`` may denote through the ``using`` lines in scope: ``using
        namespace a::b;`` (a star import of ``namespace a::b``) and ``using a::B;``."""
        out = []
        head, _, rest = dotted.partition(".")
        for imp in self.index[path].facts.imports:
            if imp.scope not in prefixes:
                continue
            if imp.name == "*" and imp.module.startswith("namespace "):
                out.append(imp.module.removeprefix("namespace ").replace("::", ".") + "." + dotted)
            elif imp.name and imp.alias == head and "::" in imp.module:
                out.append(imp.module.replace("::", ".") + (f".{rest}" if rest else ""))
        return out

    def visible(self, path: str) -> list[str]:
        """``path`` and the repository files its ``#include`` lines reach, nearest first."""
        if path not in self._visible:
            seen = [path]
            queue = [path]
            while queue and len(seen) < MAX_INCLUDES:
                here = queue.pop(0)
                for imp in self.index[here].stars.get("", []):
                    for f in self.module_files(here, imp.module):
                        if f not in seen:
                            seen.append(f)
                            queue.append(f)
            self._visible[path] = seen
        return self._visible[path]

    def _c_definition(
        self, path: str, header: str, qual: str, ctx: ResolutionNotes, arguments: int = -1
    ) -> Entity:
        """A function or method a call found declared in a header, followed to the one source
        file including that header that defines it, else, when the header only declares it
        (a prototype, C++ an ``FMT_API`` declaration of the overloads ``arguments`` fits), to
        the one file of the repository that defines it (inferred either way)."""
        if header == path or self.index[header].defs[qual].kind not in ("function", "method"):
            return ("def", header, qual)
        found = self._including_definers(header, qual)
        declared = None if found else self._declaration(header, qual, arguments)
        if declared is not None:
            # a function template's definition never defines a plain function's declaration
            generic = (
                declared.signature.startswith("template") if declared.kind == "function" else None
            )
            found = self._c_bodies(arguments, generic).get(qual, [])
        if len(found) == 1:
            ctx.inferred = True
            return ("def", found[0], qual)
        return ("def", header, qual)

    def _including_definers(self, header: str, qual: str) -> list[str]:
        """The source files including ``header`` (transitively) that define ``qual``."""
        if self._includers is None:
            self._includers = {}
            for f in sorted(self.index):
                if self.index[f].facts.language in CFAMILY:
                    for reached in self.visible(f)[1:]:
                        self._includers.setdefault(reached, []).append(f)
        return [
            f
            for f in self._includers.get(header, [])
            if not f.endswith(C_HEADERS)
            and qual in self.index[f].defs
            and self.index[f].defs[qual].kind in ("function", "method")
        ]

    def _declaration(self, header: str, qual: str, arguments: int) -> Symbol | None:
        """The declaration without a body ``qual`` names in ``header``, when every function of
        that name there that takes ``arguments`` is one."""
        if header not in self._c_functions:
            by_name: dict[str, list[Symbol]] = {}
            for s in self.index[header].facts.symbols:
                if s.kind in ("function", "method"):
                    by_name.setdefault(s.qualname, []).append(s)
            self._c_functions[header] = by_name
        named = [s for s in self._c_functions[header].get(qual, []) if takes(s, arguments)]
        if named and all(DECLARATION in s.decorators for s in named):
            return named[0]
        return None

    def _c_bodies(self, arguments: int, generic: bool | None) -> dict[str, list[str]]:
        """Per qualname, the C/C++ files defining a function of it with a body that other
        files may call (not ``static``, not a macro) and that takes ``arguments``; a
        ``generic`` (a template) or not, when that is known (None: a method, whose out-of-line
        definition in a class template is written ``template <...>`` too)."""
        key = (arguments, generic)
        if key not in self._bodies:
            out: dict[str, list[str]] = {}
            for f in sorted(self.index):
                if self.index[f].facts.language not in CFAMILY:
                    continue
                for s in self.index[f].facts.symbols:
                    if (
                        s.kind in ("function", "method")
                        and s.exported
                        and DECLARATION not in s.decorators
                        and not s.signature.startswith("#")
                        and generic in (None, s.signature.startswith("template"))
                        and takes(s, arguments)
                        and f not in out.get(s.qualname, [])
                    ):
                        out.setdefault(s.qualname, []).append(f)
            self._bodies[key] = out
        return self._bodies[key]

    # ------------------------------------------------------------ attributes

    def attribute(self, entity: Entity, name: str, ctx: ResolutionNotes, depth: int) -> Entity:
        if depth > MAX_DEPTH:
            return UNK
        entity = self.value(entity, ctx, depth)
        kind = entity[0]
        if kind == "mod":
            return self._module_attr(entity[1:], name, ctx, depth)
        if kind == "ns":
            files = self.module_files(entity[2], f"{entity[1]}.{name}")
            return ("mod", *files) if files else ("ns", f"{entity[1]}.{name}", entity[2])
        if kind in ("def", "inst"):
            sym = self.index[entity[1]].defs[entity[2]]
            if sym.kind == "module" and entity[1] in self.index:
                return self._nested(entity[1], f"{entity[2]}.{name}", ctx)
            if sym.kind not in CLASSLIKE:
                found = UNK
                if entity[2] in self.index[entity[1]].owners:  # JS: app.m = function
                    found = self._nested(entity[1], f"{entity[2]}.{name}", ctx)
                if self.index[entity[1]].facts.language in JS_OBJECTS and kind == "def":
                    if found[0] == "unk":
                        found = self._exported_function_member(entity, name, ctx, depth)
                    if found[0] == "unk":
                        found = self._member_assigned(entity, name, ctx, depth)
                    if found[0] == "unk":
                        found = self._mixed_in(entity, name, ctx, depth)
                    if found[0] == "unk" and sym.kind in VARIABLES:
                        found = self._assigned_member(entity, name, ctx, depth)
                return found
            return self.member(entity[1], entity[2], name, ctx, depth + 1, kind == "inst")
        return entity if kind == "ext" else UNK

    def _module_attr(
        self, files: tuple[str, ...], name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """``name`` defined or imported by the module of ``files``, or re-exported by one of
        its star imports (followed depth first), memoised per (files, name, depth)."""
        if depth > MAX_DEPTH:  # star re-exports (``export *``, ``#include``) may form a cycle
            return UNK
        key = (files, name, depth)
        known = self._attrs.get(key)
        if known is None:
            notes = ResolutionNotes()
            known = (self._module_attr_uncached(files, name, notes, depth), notes.inferred)
            self._attrs[key] = known
        ctx.inferred = ctx.inferred or known[1]
        return known[0]

    def _module_attr_uncached(
        self, files: tuple[str, ...], name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        for path in files:
            exported = self._commonjs_member(path, name, ctx, depth)
            found = exported or self._in_scope(path, "", name, ctx, depth + 1)
            if found is not None:
                return found
        for path in files:
            idx = self.index[path]
            if idx.facts.language == "python" and path.endswith(("__init__.py", "__init__.pyi")):
                sub = self.module_files(path, "." + name)
                if sub:
                    return ("mod", *sub)
            for imp in idx.stars.get("", []):
                if idx.facts.language == "dart" and imp.alias not in ("export", "part"):
                    continue  # a Dart import is not re-exported
                star = self.module_files(path, imp.module)
                if star and star != files:
                    found = self._module_attr(star, name, ctx, depth + 1)
                    if found[0] != "unk":
                        return found
        return UNK

    def _commonjs_member(
        self, path: str, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity | None:
        """What a JS module sets as ``exports.name`` (``exports.Router = Router``,
        ``exports.static = require('serve-static')``), None when it sets nothing so."""
        if self.index[path].facts.language not in JS_OBJECTS:
            return None
        return self._in_scope(path, "", f"exports.{name}", ctx, depth + 1)

    def _exported_function_member(
        self, entity: Entity, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """``express.Router`` where ``express`` is the function ``f`` of ``exports =
        module.exports = f; exports.Router = Router``: the member set on it there."""
        whole = self.index[entity[1]].assigns.get(("", "module.exports"), [])
        if {a.value for a in whole} != {"=" + entity[2]}:
            return UNK
        found = self._commonjs_member(entity[1], name, ctx, depth)
        return found if found is not None else UNK

    def _mixed_in(self, entity: Entity, name: str, ctx: ResolutionNotes, depth: int) -> Entity:
        """JS ``app.name`` where members were mixed into ``app`` where it is declared
        (``mixin(app, proto)``, ``Object.assign(app, a)``: ``app.*`` assignments, see
        :mod:`~clawql_git.codegraph.js_members`): what the sources give for ``name`` when
        exactly one repository definition does and no source could hold it unseen (a
        source not known, or external other than ``EventEmitter.prototype``, whose
        members Node documents)."""
        path, qual = entity[1], entity[2]
        key = (parent(qual), qual.rsplit(".", 1)[-1] + MIXED_IN)
        found: set[Entity] = set()
        for asg in self.index[path].assigns.get(key, []):
            source = self._infer_one(path, asg.scope, asg, ctx, depth + 1)
            if source[0] == "ext" and self._event_emitter(path, asg, ctx, depth):
                if name in EVENT_EMITTER_METHODS:
                    found.add(("ext", name))
                continue
            member = self.attribute(source, name, ctx, depth + 1) if source != UNK else UNK
            if source[0] in ("unk", "ext") or member[0] not in ("def", "unk"):
                return UNK
            if member[0] == "def":
                found.add(member)
        return found.pop() if len(found) == 1 else UNK

    def _member_assigned(
        self, entity: Entity, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """JS ``app.name`` where ``app.name = value`` is written where ``app`` is declared
        (``app.response = Object.create(res)`` in ``createApplication``): what it proves."""
        path, qual = entity[1], entity[2]
        key = (parent(qual), f"{qual.rsplit('.', 1)[-1]}.{name}")
        assigns = self.index[path].assigns.get(key)
        return self.infer(path, parent(qual), assigns, ctx, depth + 1) if assigns else UNK

    def _assigned_member(
        self, entity: Entity, name: str, ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """JS ``app.name`` of a variable given methods of its own (``var app = express();
        app.resource = function``) that are not ``name``: ``name`` of the value assigned
        to it, when that is a definition of the repository."""
        path, qual = entity[1], entity[2]
        assigns = self.index[path].assigns.get((parent(qual), qual.rsplit(".", 1)[-1]))
        value = self.infer(path, parent(qual), assigns, ctx, depth + 1) if assigns else UNK
        if value[0] not in ("def", "inst") or value == entity:
            return UNK
        return self.attribute(value, name, ctx, depth + 1)

    def _event_emitter(self, path: str, asg: Assignment, ctx: ResolutionNotes, depth: int) -> bool:
        """A mixin source written ``X.prototype`` where ``X`` is Node's ``EventEmitter``."""
        written = asg.value.removeprefix("=")
        if not written.endswith(".prototype"):
            return False
        owner = self._resolve_in(path, asg.scope, written.removesuffix(".prototype"), ctx, depth)
        return owner in EVENT_EMITTERS

    def member(
        self, path: str, klass: str, name: str, ctx: ResolutionNotes, depth: int, instance: bool
    ) -> Entity:
        """A class's attribute: its own definitions, its class-level assignments, for an
        instance the ``self.x`` assignments of its methods, then its bases in order."""
        if depth > MAX_DEPTH:
            return UNK
        idx = self.index[path]
        qual = f"{klass}.{name}"
        sym = idx.defs.get(qual)
        if sym is not None and sym.kind not in ("variable", "constant"):
            return ("def", path, qual)
        own = idx.assigns.get((klass, name))
        if own:
            return self.infer(path, klass, own, ctx, depth + 1)
        attrs = idx.self_attrs.get((klass, name)) if instance else None
        if attrs:
            return self.infer_attr(path, attrs, ctx, depth + 1)
        external = False
        for base in idx.defs[klass].bases if klass in idx.defs else ():
            if idx.facts.language == "java":  # written with its type arguments
                base = strip_generics(base)
            if not DOTTED.match(base):
                continue
            target = self._resolve_in(path, parent(klass), base, ctx, depth + 1)
            if target[0] == "def" and self.index[target[1]].defs[target[2]].kind in TYPELIKE:
                found = self.member(target[1], target[2], name, ctx, depth + 1, instance)
                if found[0] != "unk":
                    return found
            elif target[0] == "ext":
                external = True
        if idx.facts.language == "go":
            return self._go_method(path, klass, name)
        if idx.facts.language == "swift":  # an extension in another file of the module
            return self._swift_module(path, f"{klass}.{name}") or (
                ("ext", name) if external else UNK
            )
        return ("ext", name) if external else UNK

    def infer_attr(
        self, path: str, attrs: list[Assignment], ctx: ResolutionNotes, depth: int
    ) -> Entity:
        """``self.x = Foo()`` in some method: each assignment resolved in its own method."""
        results = {self._infer_one(path, a.scope, a, ctx, depth) for a in attrs}
        return results.pop() if len(results) == 1 else UNK

    def _go_method(self, path: str, klass: str, name: str) -> Entity:
        """Go methods may sit in any file of the package (the directory)."""
        folder = posixpath.dirname(path)
        for other, idx in self.index.items():
            if (
                other != path
                and posixpath.dirname(other) == folder
                and (f"{klass}.{name}" in idx.defs)
            ):
                return ("def", other, f"{klass}.{name}")
        return UNK


def swift_module_root(path: str) -> str:
    """The directory of the Swift module ``path`` belongs to: ``Sources/<name>/`` (or
    ``Tests/<name>/``) of a Swift package, else '' (an Xcode project: one module)."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-2]):
        if part in {"Sources", "Tests"}:
            return "/".join(parts[: i + 2]) + "/"
    return ""


@dataclass
class ResolutionNotes:
    """Per-resolution notes: did the answer rest on an inferred type?"""

    inferred: bool = False


class CallResolver(Protocol):
    """A language's own call resolution (Java: by declared types, ``java_resolve``), built on
    a :class:`Resolver`'s facts and lookups; an extractor brings one as ``call_resolver``."""

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity: ...


class ParameterResolver(Protocol):
    """What a framework passes a plain parameter (pytest: a fixture's value,
    ``py_fixtures``); an extractor brings one as ``parameter_resolver``."""

    def parameter(self, path: str, asg: Assignment, ctx: ResolutionNotes, depth: int) -> Entity: ...


def takes(sym: Symbol, arguments: int) -> bool:
    """May ``sym`` be called with ``arguments`` arguments (-1: not known; a function of
    unknown arity, C's, takes any)?"""
    if arguments < 0 or sym.params < 0:
        return True
    return arguments == sym.params or (sym.variadic and arguments >= sym.params)


def _join(module: str, name: str) -> str:
    return module + name if module.endswith(".") else f"{module}.{name}"
