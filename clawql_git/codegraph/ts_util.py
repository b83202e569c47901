"""Tree-sitter helpers shared by the non-Python extractors: parsing, text, docs, the walk.

Every extractor walks each file's tree once, depth first, through :class:`Walker`: a
dispatch table from node type to handler, a qualname stack for the enclosing scope and the
current call context ('body', 'decorator', 'default'). Handlers that do not recurse
themselves call :meth:`Walker.visit_children`. Syntax errors are counted, not fatal: the
grammar's error recovery leaves the rest of the tree usable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, TypeVar

from tree_sitter import Language, Node, Parser

from clawql_git.codegraph.model import (
    Assignment,
    Call,
    FileFacts,
    Import,
    RepoView,
    Supertype,
    Symbol,
    SymbolKind,
)

MAX_SIGNATURE = 240
_SPACE = re.compile(r"\s+")
_GENERIC_ARGS = re.compile(r"<[^<>]*>")


def text(node: Node | None) -> str:
    """The node's source text; bytes that are not UTF-8 become U+FFFD instead of failing."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def collapse(value: str, limit: int = MAX_SIGNATURE) -> str:
    """One line: whitespace runs folded to one space, cut at ``limit`` characters."""
    one = _SPACE.sub(" ", value).strip()
    return one if len(one) <= limit else one[: limit - 1] + "…"


def strip_generics(name: str) -> str:
    """``Repo<User>`` / ``Vec::<u8>::new`` -> ``Repo`` / ``Vec::new`` (nested arguments too)."""
    previous = None
    while previous != name:
        previous, name = name, _GENERIC_ARGS.sub("", name)
    return name.replace("::::", "::")


def line(node: Node) -> int:
    """1-based first line of ``node``."""
    return node.start_point[0] + 1


def end_line(node: Node) -> int:
    """1-based last line of ``node``."""
    return node.end_point[0] + 1


def string_value(node: Node | None) -> str | None:
    """The content of a string literal without quotes; None for anything else."""
    if node is None or node.type not in {
        "string",
        "template_string",
        "interpreted_string_literal",
        "raw_string_literal",
        "string_literal",
    }:
        return None
    if node.type == "template_string" and any(
        c.type == "template_substitution" for c in node.named_children
    ):
        return None
    raw = text(node)
    if node.type == "raw_string_literal" and raw.startswith("r"):
        raw = raw.lstrip("r#").rstrip("#")
    return raw[1:-1] if len(raw) >= 2 else raw


def clean_block_doc(raw: str) -> str:
    """``/** ... */`` -> its text, leading ``*`` gutters removed."""
    body = raw[3:-2] if raw.endswith("*/") else raw[3:]
    lines = [re.sub(r"^\s*\* ?", "", part).rstrip() for part in body.splitlines()]
    return "\n".join(lines).strip()


def clean_line_docs(lines: list[str], marker: str) -> str:
    """Consecutive ``marker`` comments (``//``, ``///``) -> their text."""
    out = []
    for raw in lines:
        body = raw[len(marker) :] if raw.startswith(marker) else raw
        out.append(body[1:] if body.startswith(" ") else body)
    return "\n".join(out).strip()


def count_errors(root: Node) -> int:
    """ERROR and MISSING nodes in the tree (0 without a walk when the tree is clean)."""
    if not root.has_error:
        return 0
    count = 0
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None and (node.is_error or node.is_missing):
            count += 1
        if node is not None and node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return count


class Parsers:
    """One parser per language name, made on first use (grammars load lazily)."""

    def __init__(self, languages: dict[str, Callable[[], Any]]) -> None:
        self._factories = languages
        self._parsers: dict[str, Parser] = {}

    def parse(self, language: str, source: bytes) -> Node:
        """Parse ``source`` with the grammar of ``language`` and return the root node."""
        parser = self._parsers.get(language)
        if parser is None:
            parser = Parser(Language(self._factories[language]()))
            self._parsers[language] = parser
        return parser.parse(source).root_node


Handler = Callable[[Node], None]


class Walker:
    """A single depth-first pass over one tree that fills a :class:`FileFacts`."""

    handlers: ClassVar[dict[str, str]] = {}  # node type -> method name; subclasses fill it
    unnamed: ClassVar[frozenset[str]] = frozenset()  # targets that bind nothing (Go's ``_``)
    untyped: ClassVar[frozenset[str]] = frozenset()  # values that are no evidence (builtins)

    def __init__(self, facts: FileFacts, source: bytes) -> None:
        self.facts = facts
        self.source = source
        self._above: dict[int, Node] = {}  # last line -> comment/decorator that starts a line
        self.scope: list[str] = []
        self.context = "body"
        self._dispatch: dict[str, Handler] = {
            kind: getattr(self, name) for kind, name in self.handlers.items()
        }

    @property
    def qualname(self) -> str:
        """The dotted path of the enclosing definitions ('' at module level)."""
        return ".".join(self.scope)

    def child_qualname(self, name: str) -> str:
        """The qualname ``name`` gets when defined in the current scope."""
        return f"{self.qualname}.{name}" if self.scope else name

    def visit(self, node: Node | None) -> None:
        """Dispatch ``node`` to its handler, or walk its named children."""
        if node is None:
            return
        handler = self._dispatch.get(node.type)
        if handler is not None:
            handler(node)
        else:
            self.visit_children(node)

    def visit_children(self, node: Node | None) -> None:
        """Walk the named children of ``node`` (for handlers that only add facts).

        Leaves without a handler (identifiers, literals: most of a tree) are skipped here
        instead of costing a call each."""
        if node is None:
            return
        dispatch = self._dispatch
        stack = node.named_children[::-1]  # an explicit stack: deep expressions cost no frames
        while stack:
            child = stack.pop()
            handler = dispatch.get(child.type)
            if handler is not None:
                handler(child)
            elif child.named_child_count:
                stack.extend(child.named_children[::-1])

    @contextmanager
    def enter(self, name: str) -> Iterator[None]:
        """Push ``name`` on the scope for the duration of a definition's body."""
        self.scope.append(name)
        saved, self.context = self.context, "body"
        try:
            yield
        finally:
            self.scope.pop()
            self.context = saved

    @contextmanager
    def in_context(self, context: str) -> Iterator[None]:
        """Calls recorded inside are tagged ``context`` ('decorator', 'default')."""
        saved, self.context = self.context, context
        try:
            yield
        finally:
            self.context = saved

    def note_above(self, node: Node) -> None:
        """Remember a comment, decorator or attribute that opens its line, by its last line:
        the definition starting on the next line may take it as its doc or decorator.

        A line map instead of sibling links: ``prev_sibling`` and ``parent`` cost time in
        proportion to the width of the parent in tree-sitter, quadratic over a wide file."""
        start = self.source.rfind(b"\n", 0, node.start_byte) + 1
        if not self.source[start : node.start_byte].strip():
            row, column = node.end_point
            ends_at_newline = column == 0 and row > node.start_point[0]  # Rust line comments
            self._above[row if ends_at_newline else row + 1] = node

    def on_above(self, node: Node) -> None:
        """Handler for comments (and decorators/attributes kept only for their lines)."""
        self.note_above(node)

    def leading(self, node: Node) -> list[Node]:
        """The noted comments/decorators directly above ``node`` (no blank line), top first."""
        found: list[Node] = []
        at = line(node) - 1
        while at in self._above:
            above = self._above[at]
            found.append(above)
            at = line(above) - 1
        found.reverse()
        return found

    def signature(self, start: Node, stop: Node | None, whole: Node) -> str:
        """Source from ``start`` up to ``stop`` (the body), else all of ``whole``, on one line."""
        finish = stop.start_byte if stop is not None else whole.end_byte
        raw = self.source[start.start_byte : finish].decode("utf-8", "replace")
        return collapse(raw.rstrip().rstrip("{;").rstrip())

    def add_call(self, callee: str, node: Node) -> None:
        """Record a call site at ``node`` with the current caller and context."""
        if callee:
            self.facts.calls.append(
                Call(callee, self.qualname, line(node), node.start_point[1], self.context)
            )

    def add_import(self, module: str, name: str, alias: str, node: Node) -> None:
        """Record an import; ``scope`` is the enclosing function for local imports."""
        self.facts.imports.append(Import(module, name, alias, line(node), self.qualname))

    def assign(self, target: str, value: str, node: Node, annotation: bool) -> None:
        """Record that ``target`` holds a ``value`` (a type name): the evidence the resolver
        types receivers with. ``unnamed`` targets and ``untyped`` values are left out."""
        if target and value and target not in self.unnamed and value not in self.untyped:
            self.facts.assignments.append(
                Assignment(target, value, self.qualname, line(node), annotation)
            )

    def on_skip(self, node: Node) -> None:
        """The handler of node types whose subtree holds no facts: nothing is walked."""
        return

    def add_symbol(self, node: Node, name: str, kind: SymbolKind, **extra: Any) -> Symbol:
        """Record a definition spanning ``node`` under the current scope."""
        symbol = Symbol(
            name=name,
            qualname=self.child_qualname(name),
            kind=kind,
            line=line(node),
            end_line=end_line(node),
            **extra,
        )
        self.facts.symbols.append(symbol)
        return symbol

    def add_supertype(
        self, child: str, base: str, node: Node, relation: str, scope: str = ""
    ) -> None:
        """Record that ``child`` (a qualname here) derives from ``base`` written at ``node``."""
        if base:
            self.facts.supertypes.append(Supertype(child, base, line(node), relation, scope))


W = TypeVar("W", bound=Walker)


def walk_file(
    parsers: Parsers,
    path: str,
    source: bytes,
    language: str,
    walker: Callable[[FileFacts, bytes], W],
) -> tuple[Node, FileFacts, W]:
    """Parse ``source`` and walk it once with a new ``walker``: the root, the facts, the walker.

    Syntax errors are counted; a tree deeper than the recursion limit counts one more error
    and keeps what was extracted before it."""
    root = parsers.parse(language, source)
    facts = FileFacts(path=path, language=language, errors=count_errors(root))
    pass_ = walker(facts, source)
    try:
        pass_.visit(root)
    except RecursionError:
        facts.errors += 1
    return root, facts, pass_


def scan_declarations(
    repo: RepoView,
    suffix: str,
    types: re.Pattern[bytes],
    namespaces: Callable[[str, bytes], list[str]],
) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Which files of ``repo`` (those ending in ``suffix``) declare each namespace, and which
    type names each declares: what a namespaced language (C#, PHP) resolves imports against.
    Unreadable files are left out."""
    declared: dict[str, list[str]] = {}
    names: dict[str, set[str]] = {}
    for path in sorted(repo.files):
        if not path.endswith(suffix):
            continue
        try:
            raw = repo.read(path)
        except (OSError, LookupError, ValueError):
            continue
        names[path] = {m.decode() for m in types.findall(raw)}
        for namespace in namespaces(path, raw):
            declared.setdefault(namespace, []).append(path)
    return declared, names
