"""C++ namespaces a macro opens: ``FMT_BEGIN_NAMESPACE`` alone on a line, where a header of
the translation unit defines ``#define FMT_BEGIN_NAMESPACE namespace fmt { inline namespace
v12 {``, puts what follows (up to ``FMT_END_NAMESPACE``, defined as ``} }``) in ``fmt::v12``.

The extractor blanks such lines before parsing (the grammar cannot expand macros), so the
definitions after them are stored without those namespaces (``format``, not
``fmt.v12.format``). It records each blanked line as an import of module ``macro NAME``
(``lang_cpp.MACRO_USE``) and each macro whose value only opens or closes namespaces as an
assignment of that value to the macro's name. Here the two meet: for each file, the
qualnames its definitions have in C++ (``fmt.v12.format``, and ``fmt.format`` through the
inline namespace) are mapped to the qualnames stored. A macro defined differently in two
headers the file sees, or not seen at all, opens nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clawql_git.codegraph.model import FileFacts

MACRO_USE = "macro "  # the module of a lone macro line's import: ``macro FMT_BEGIN_NAMESPACE``
_OPENED = re.compile(r"(inline )?namespace ([\w:]+)")

# the prefixes a definition's C++ qualname may be written with: ("fmt.v12", "fmt")
Prefixes = tuple[str, ...]


def opened(expansion: str) -> list[tuple[str, bool]]:
    """``namespace fmt { inline namespace v12 {`` -> [('fmt', False), ('v12', True)]; a
    ``namespace a::b {`` is two namespaces."""
    out = []
    for inline, written in _OPENED.findall(expansion):
        out += [(part, bool(inline)) for part in written.split("::") if part]
    return out


def prefixes(stack: list[tuple[str, bool]]) -> Prefixes:
    """The dotted prefixes naming the namespaces of ``stack``, outermost first: an inline
    namespace may be left out (``fmt.v12`` and ``fmt``)."""
    found = [""]
    for name, inline in stack:
        found = [f"{p}.{name}" if p else name for p in found] + (found if inline else [])
    return tuple(p for p in found if p)


class MacroNamespaces:
    """Per file, the C++ qualnames of its definitions that macro-opened namespaces hide, to
    the qualnames stored; ``visible`` gives a file and the headers it includes."""

    def __init__(
        self, facts: Callable[[str], FileFacts], visible: Callable[[str], list[str]]
    ) -> None:
        self._facts = facts
        self._visible = visible
        self._aliases: dict[str, dict[str, str]] = {}

    def aliases(self, path: str) -> dict[str, str]:
        """``{'fmt.v12.format': 'format', 'fmt.format': 'format', ...}`` of ``path``."""
        if path not in self._aliases:
            self._aliases[path] = self._work_out(path)
        return self._aliases[path]

    def _work_out(self, path: str) -> dict[str, str]:
        facts = self._facts(path)
        uses = sorted(
            (i.line, i.module.removeprefix(MACRO_USE))
            for i in facts.imports
            if i.module.startswith(MACRO_USE) and not i.scope
        )
        if not uses:
            return {}
        expansions = self._expansions(path, {name for _, name in uses})
        regions = self._regions(uses, expansions)
        stored = {s.qualname for s in facts.symbols}
        out: dict[str, str] = {}
        for sym in facts.symbols:
            for start, end, names in regions:
                if start < sym.line <= end:
                    for prefix in names:
                        real = f"{prefix}.{sym.qualname}"
                        if real not in stored:
                            out.setdefault(real, sym.qualname)
        return out

    def _expansions(self, path: str, names: set[str]) -> dict[str, str]:
        """Each macro of ``names`` the files ``path`` sees define as namespaces opened or
        closed, with its one value (a macro defined with two values is left out)."""
        found: dict[str, set[str]] = {}
        for f in self._visible(path):
            for asg in self._facts(f).assignments:
                if asg.target in names and not asg.scope and asg.value[:1] in {"n", "}"}:
                    found.setdefault(asg.target, set()).add(asg.value)
        return {name: values.pop() for name, values in found.items() if len(values) == 1}

    @staticmethod
    def _regions(
        uses: list[tuple[int, str]], expansions: dict[str, str]
    ) -> list[tuple[int, int, Prefixes]]:
        """(after line, up to line, prefixes) of each stretch the macro uses open: a closer
        shuts as many namespaces as it has braces; the last stretch runs to the file's end."""
        out = []
        stack: list[tuple[str, bool]] = []
        start = 0
        for line, name in uses:
            expansion = expansions.get(name, "")
            if not expansion:
                continue
            if stack:
                out.append((start, line, prefixes(stack)))
            if expansion.startswith("}"):
                del stack[max(0, len(stack) - expansion.count("}")) :]
            else:
                stack += opened(expansion)
            start = line
        if stack:
            out.append((start, 1 << 30, prefixes(stack)))
        return out
