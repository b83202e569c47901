"""Elixir call resolution: module names are global, so a call resolves by its module's name.

A bare call ``f(x)`` is, by Elixir's own rules, a function of the enclosing module, of a
module imported in scope (``import M``; ``use M``, whose ``__using__`` most often imports
``M``, as inferred), or of ``Kernel``. ``M.f(x)`` names its module: an alias in scope
(``alias A.B`` makes ``B`` stand for ``A.B``, ``as: C`` for ``C``), a module nested in an
enclosing one (``defmodule Plug do defmodule Conn`` makes ``Conn`` stand for
``Plug.Conn``), else the name as written. A module the repository defines resolves to its
file (exact; one of several files defining it: inferred); any other module (Elixir's own,
Erlang's ``:ets``, a dependency's) is external, and so is a bare name no repository module
gives when it is a ``Kernel`` function or the module imports one from outside.

Imports (``alias``, ``import``, ``require``, ``use``) resolve to the file defining the module,
read from the ``defmodule`` lines of the repository (:func:`scan_modules`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clawql_git.codegraph.model import Call, Import, RepoView
from clawql_git.codegraph.resolve import UNK, Entity, ResolutionNotes, parent

if TYPE_CHECKING:
    from clawql_git.codegraph.resolve import Resolver

MODULE_KINDS = frozenset({"module", "interface"})
CALLED_KINDS = frozenset({"function", "struct"})
_DEFMODULE_LINE = re.compile(rb"(?m)^([ \t]*)(?:defmodule|defprotocol)\s+([A-Z][\w.]*)")
_HEREDOC = re.compile(rb'(?s)""".*?"""|\'\'\'.*?\'\'\'')  # docs show ``defmodule`` examples
MAX_USES = 4  # ``use`` followed through the used modules' own ``use`` lines
# Kernel's functions and macros a module sees without an import (the common ones)
KERNEL = frozenset(
    {
        "abs", "apply", "binary_part", "binding", "bit_size", "byte_size", "ceil", "dbg",
        "div", "elem", "exit", "floor", "function_exported?", "get_and_update_in", "get_in",
        "hd", "inspect", "is_atom", "is_binary", "is_bitstring", "is_boolean", "is_exception",
        "is_float", "is_function", "is_integer", "is_list", "is_map", "is_map_key",
        "is_nil", "is_number", "is_pid", "is_port", "is_reference", "is_struct", "is_tuple",
        "length", "macro_exported?", "make_ref", "map_size", "match?", "max", "min", "node",
        "not", "pop_in", "put_elem", "put_in", "raise", "rem", "reraise", "round", "self",
        "send", "spawn", "spawn_link", "spawn_monitor", "struct", "struct!", "tap", "then",
        "throw", "tl", "to_charlist", "to_string", "trunc", "tuple_size", "update_in",
        "and", "or", "in", "sigil_r", "sigil_s", "sigil_w", "sigil_c", "sigil_D", "sigil_T",
        "sigil_N", "sigil_U", "var!", "alias!", "__ENV__", "__CALLER__", "__DIR__",
        "__STACKTRACE__", "require", "import", "defstruct",
    }
)  # fmt: skip


class ElixirCalls:
    """The call resolver ``lang_elixir`` brings (``call_resolver``), on a Resolver's facts."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._modules: dict[str, list[str]] | None = None

    def modules(self) -> dict[str, list[str]]:
        """Full module name -> the Elixir files defining it."""
        if self._modules is None:
            self._modules = {}
            for path in sorted(self.resolver.index):
                facts = self.resolver.index[path].facts
                if facts.language == "elixir":
                    for sym in facts.symbols:
                        if sym.kind in MODULE_KINDS:
                            self._modules.setdefault(sym.qualname, []).append(path)
        return self._modules

    def callee(self, path: str, scope: str, call: Call, ctx: ResolutionNotes) -> Entity:
        """What the callee of ``call`` (as ``lang_elixir`` writes it) denotes."""
        written = call.callee
        if written.startswith(":"):
            return ("ext", written)
        module, _, name = written.rpartition(".")
        if not module:
            return self.local(path, scope, name, ctx)
        if not module[:1].isupper():
            return UNK  # a module held in a variable
        return self.remote(self.expand(path, scope, module), name, ctx)

    def remote(self, module: str, name: str, ctx: ResolutionNotes) -> Entity:
        """``name`` of ``module``: its definition, external when the module is not the
        repository's, unknown when the repository's module does not define it."""
        files = self.modules().get(module)
        if not files:
            return ("ext", f"{module}.{name}")
        qual = f"{module}.{name}"
        index = self.resolver.index
        found = [f for f in files if _kind(index[f].defs.get(qual)) in CALLED_KINDS]
        if len(found) != 1:
            return UNK
        if len(files) > 1:
            ctx.inferred = True
        return ("def", found[0], qual)

    def local(self, path: str, scope: str, name: str, ctx: ResolutionNotes) -> Entity:
        """A bare call: the enclosing module's function, an imported one, else Kernel's."""
        module = self.enclosing_module(path, scope)
        qual = f"{module}.{name}" if module else name
        if _kind(self.resolver.index[path].defs.get(qual)) == "function":
            return ("def", path, qual)
        outside = False
        for imp in reversed(self.visible(path, scope)):
            if imp.name not in ("*", name):  # ``import M, only: [f: 1]`` imports ``f``
                continue
            full = self.expand(path, imp.scope, imp.module)
            if full not in self.modules():
                outside = True
                continue
            found = self.remote(full, name, ctx)
            if found[0] == "def":
                return found
        for used in self.used(path, module):
            found = self.injected(used, name, ctx, 0)
            if found[0] == "def":
                return found
            outside = outside or found[0] == "ext"
        return ("ext", name) if outside or name in KERNEL else UNK

    def injected(self, module: str, name: str, ctx: ResolutionNotes, depth: int) -> Entity:
        """``name`` as ``use module`` gives it: a function of ``module``, of a module its
        ``__using__`` imports, or (``use`` in ``__using__``) of those modules' in turn;
        inferred (the quoted code is not expanded). Not found, but one of those modules is
        not the repository's: external; else unknown."""
        found = self.remote(module, name, ctx)
        if found[0] == "ext":
            return ("ext", name)
        if found[0] == "def" or depth > MAX_USES:
            ctx.inferred = ctx.inferred or found[0] == "def"
            return found
        outside = False
        for path in self.modules().get(module, [])[:1]:
            using = f"{module}.__using__"
            for imp in self.resolver.index[path].facts.imports:
                if imp.name != "*" or not (imp.scope + ".").startswith(using + "."):
                    continue
                full = self.expand(path, imp.scope, imp.module)
                found = self.remote(full, name, ctx)
                if found[0] == "def":
                    ctx.inferred = True
                    return found
                outside = outside or found[0] == "ext"
            for used in self.used(path, module):
                if used == module:
                    continue
                found = self.injected(used, name, ctx, depth + 1)
                if found[0] == "def":
                    return found
                outside = outside or found[0] == "ext"
        return ("ext", name) if outside else UNK

    def used(self, path: str, module: str) -> list[str]:
        """The modules ``module`` of ``path`` has ``use`` lines of, as full names."""
        found = []
        for sup in self.resolver.index[path].facts.supertypes:
            if sup.relation == "uses" and sup.child == module:
                found.append(self.expand(path, module, sup.base))
        return found

    def enclosing_module(self, path: str, scope: str) -> str:
        defs = self.resolver.index[path].defs
        cur = scope
        while cur:
            sym = defs.get(cur)
            if sym is not None and sym.kind in MODULE_KINDS:
                return cur
            cur = parent(cur)
        return ""

    def visible(self, path: str, scope: str) -> list[Import]:
        """The imports of ``path`` whose scope encloses ``scope``, in source order."""
        chain = {scope}
        cur = scope
        while cur:
            cur = parent(cur)
            chain.add(cur)
        return [i for i in self.resolver.index[path].facts.imports if i.scope in chain]

    def expand(self, path: str, scope: str, written: str) -> str:
        """The full name of a module written in ``scope`` of ``path``: through an alias in
        scope, else a module nested in an enclosing one, else as written."""
        head, _, rest = written.partition(".")
        for imp in reversed(self.visible(path, scope)):
            if imp.alias == head and not imp.name:
                return f"{imp.module}.{rest}" if rest else imp.module
        defs = self.resolver.index[path].defs
        module = self.enclosing_module(path, scope)
        while module:
            nested = f"{module}.{written}"
            if _kind(defs.get(nested)) in MODULE_KINDS:
                return nested
            module = self.enclosing_module(path, parent(module))
        return written

    def type_def(self, path: str, scope: str, written: str) -> tuple[str, str]:
        """(file, qualname) of the module a base or ``defimpl`` type names from ``scope``;
        ('', 'external') for a module the repository does not define."""
        full = self.expand(path, scope, written)
        if full not in self.modules():  # a base is looked up from outside its module's body
            for imp in reversed(self.resolver.index[path].facts.imports):
                head, _, rest = written.partition(".")
                if imp.alias == head and not imp.name:
                    full = f"{imp.module}.{rest}" if rest else imp.module
                    break
        files = self.modules().get(full, [])
        if not files:
            return "", "external" if written[:1].isupper() or written[:1] == ":" else ""
        return (path if path in files else files[0]), full


def scan_modules(repo: RepoView) -> dict[str, list[str]]:
    """Module name -> the files of ``repo`` defining it, read from their ``defmodule`` lines
    (a nested one is named through the modules around it, told by indentation)."""
    out: dict[str, list[str]] = {}
    for path in sorted(repo.files):
        if not path.endswith((".ex", ".exs")):
            continue
        try:
            raw = repo.read(path)
        except (OSError, LookupError, ValueError):
            continue
        for name in module_names(raw):
            if path not in out.setdefault(name, []):
                out[name].append(path)
    return out


def module_names(raw: bytes) -> list[str]:
    """The full names of the modules a file defines, nested ones joined to their parents."""
    stack: list[tuple[int, str]] = []
    names = []
    for found in _DEFMODULE_LINE.finditer(_HEREDOC.sub(b"", raw)):
        indent = len(found.group(1).expandtabs())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = found.group(2).decode()
        full = f"{stack[-1][1]}.{name}" if stack else name
        stack.append((indent, full))
        names.append(full)
    return names


def _kind(sym: object) -> str:
    return getattr(sym, "kind", "")
