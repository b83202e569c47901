"""Which Lua tables are classes and modules (names given methods or functions, the classes
Penlight's ``pl.class`` makes, see ``lua_penlight``) and their bases: the part of the
walker that names them, and the pass over a file's facts after the walk."""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from clawql_git.codegraph.lua_penlight import (
    CLASS_MODULE,
    PENLIGHT,
    PL_GLOBALS,
    STAR,
    UTILS_MODULE,
    Made,
    class_call,
    imported_globals,
)
from clawql_git.codegraph.lua_scopes import Span
from clawql_git.codegraph.model import FileFacts
from clawql_git.codegraph.ts_util import Walker, collapse, text

# the standard library's tables (the manual, §6): a function set on one (``function
# table.pack``, a polyfill) makes no table of this file
LIBRARY_TABLES = frozenset(
    ("_G", "_ENV", "string", "table", "math", "os", "io", "coroutine", "debug", "package", "utf8")
)


class TableNaming(Walker):
    """The walker's part naming tables: LDoc comments, the names set at file level, the
    classes ``pl.class`` makes there (the walk fills ``named``, ``modules`` and ``made``)."""

    returned: str  # the table the file returns
    returns: list[list[str | tuple[str, Span]]]  # per function walked (the file's first)
    owners: dict[int, str]  # id of a table constructor -> the name it has
    named: dict[str, tuple[Node, bool]]  # a file-level name -> its first setting, local?
    chunk_names: set[str]  # the file-level names set outside every function
    modules: dict[str, str]  # a file-level local -> the module it requires
    made: dict[str, tuple[Made, Node]]  # the classes ``pl.class`` makes here
    frames: list[tuple[str, set[str]]]  # the functions being walked, with their locals
    everything: bool  # ``require 'pl'`` at file level: Penlight's modules are globals

    def doc(self, node: Node) -> str:
        """The ``--`` (LDoc ``---``) comment lines right above ``node``."""
        lines = []
        for comment in self.leading(node):
            raw = text(comment)
            if raw.startswith("--") and not raw.startswith("--["):
                body = raw.lstrip("-")
                lines.append(body[1:] if body.startswith(" ") else body)
        return "\n".join(lines).strip()

    def in_chunk(self) -> bool:
        """Is the walk outside every function, named or not (the file's chunk)?"""
        return len(self.returns) == 1

    def aliases(self, module: str) -> set[str]:
        """The names bound to ``module`` at file level (see ``bound``)."""
        return {name for name, required in self.bound().items() if required == module}

    def bound(self) -> dict[str, str]:
        """The file-level locals bound by ``require``, each to its module, and after
        ``require 'pl'`` each Penlight module's global (unless a local hides it)."""
        if not self.everything:
            return self.modules
        hidden = self.frames[0][1]  # the file's locals so far
        lazy = {name: f"{PENLIGHT}.{name}" for name in PL_GLOBALS - hidden}
        return {**lazy, **self.modules}

    def penlight_call(self, node: Node) -> None:
        """A file-level ``class.Name(Base)`` / ``class(Base, nil, T)`` (a class made) or
        ``utils.import(m)`` (the fields of ``m`` become globals: an import aliased STAR)."""
        made = class_call(node, self.aliases(CLASS_MODULE))
        if made is not None:
            self.make_class(made, node)
        star = imported_globals(node, self.aliases(UTILS_MODULE), self.bound())
        if star:
            self.add_import(star, "", STAR, node)

    def make_class(self, made: Made, node: Node) -> None:
        """A class ``pl.class`` makes: ``class.Name`` sets the global ``Name`` there; the
        fields of its plain table are its functions."""
        self.made.setdefault(made.name, (made, node))
        if "." not in made.name:
            self.named.setdefault(made.name, (node, False))
        if made.table is not None:
            self.owners[made.table.id] = made.name

    def made_classes(self) -> None:
        """Each class ``pl.class`` made here is a class (defined where it is first set), a
        subtype of its base."""
        for name, (made, node) in self.made.items():
            self.define_named(name)
            for i, sym in enumerate(self.facts.symbols):
                if sym.qualname == name and sym.kind != "class":
                    self.facts.symbols[i] = replace(sym, kind="class")
            if made.base:
                self.add_supertype(name, made.base, node, "extends")
                self.extend_bases(name, made.base)

    def name_classes(self) -> None:
        """A file-level name given ``:`` methods but set to no table constructor (``local
        List = utils.stdmt.List``, ``local Date = class()``) is a class too, defined where
        it is first set: ``function List:m()`` proves it a table (its field is set). So is
        a name given functions (``local M = strict.module(...)``, ``function M.f()``), a
        module table, when set outside every function (a local of an unnamed function, as in
        ``it(function() ... end)``, is no name of the file), unless a ``require`` binds it
        or it is the standard library's."""
        owners = {parent_of(s.qualname) for s in self.facts.symbols if s.kind == "method"}
        imported = {i.alias for i in self.facts.imports if not i.scope}
        for sym in self.facts.symbols:
            owner = parent_of(sym.qualname)
            if sym.kind == "function" and owner in self.chunk_names and owner not in imported:
                owners.add(owner)
        for name in sorted(owners - LIBRARY_TABLES):
            self.define_named(name)

    def define_named(self, name: str) -> None:
        """Define the file-level ``name`` where it is first set, unless it is defined."""
        stmt, local = self.named.get(name, (None, False))
        if stmt is None or any(s.qualname == name for s in self.facts.symbols):
            return
        self.facts.assignments = [  # the table is what the name denotes here
            a for a in self.facts.assignments if (a.scope, a.target) != ("", name)
        ]
        self.add_symbol(
            stmt,
            name,
            "module",  # a class once it has methods or a base (see ``classes``)
            signature=collapse(("local " if local else "") + text(stmt)),
            docstring=self.doc(stmt),
            exported=not local or name == self.returned,
        )

    def extend_bases(self, child: str, base: str) -> None:
        """``setmetatable(Child, {__index = Base})`` after ``local Child = {}``: Base is
        among Child's bases (the resolver looks members up through them)."""
        for i, sym in enumerate(self.facts.symbols):
            if sym.qualname == child and base not in sym.bases:
                self.facts.symbols[i] = replace(sym, bases=(*sym.bases, base))


def classes(facts: FileFacts) -> None:
    """A table with ``:`` methods, a base or an ``__index`` is a class, others modules; a
    field given ``:`` methods (``Date.Format = class()``) is a class too."""
    methods = {parent_of(s.qualname) for s in facts.symbols if s.kind == "method"}
    owners = methods | {s.child for s in facts.supertypes}
    for i, sym in enumerate(facts.symbols):
        table = sym.kind == "module" and (sym.qualname in owners or bool(sym.bases))
        if table or (sym.kind == "variable" and sym.qualname in methods):
            facts.symbols[i] = replace(sym, kind="class")


def parent_of(qual: str) -> str:
    return qual.rpartition(".")[0]
