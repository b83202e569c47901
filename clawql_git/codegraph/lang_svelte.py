"""Svelte facts: the component, its ``<script>`` blocks read as JavaScript/TypeScript, and
the components its markup uses.

Conventions:

- a ``.svelte`` file is a component: a 'class' symbol named after the file (``Counter``
  for ``Counter.svelte``; characters that cannot be in a name dropped, except that a
  SvelteKit route file keeps its name: ``+page.svelte`` is ``+page``, as codegraph and the
  SvelteKit docs call it; ``find-symbol page`` still finds it, fuzzily) spanning the
  file, its doc the ``<!-- @component ... -->`` comment (Svelte's own convention), also
  the file's doc. What ``import X from './X.svelte'`` binds.
- the ``<script>`` blocks (instance and ``context="module"`` / ``module``) are read by the
  JS/TS extractor (``lang_js``): TypeScript when a block says ``lang="ts"``, else
  JavaScript. Everything outside them is blanked to spaces first, so lines and columns
  are the file's own. Their imports, functions, variables (``export let`` props are
  exported variables) and calls are the file's.
- markup: an element whose tag is capitalized or dotted (``<Button>``, ``<ui.Card>``)
  is a call of that component by the component (caller its qualname), resolved through
  the script's imports like any call.
- ``resolve_module``: as JavaScript/TypeScript (``./Button.svelte`` names that file);
  SvelteKit's ``$lib/x`` alias, when no tsconfig ``paths`` maps it, is ``src/lib/x``.
"""

from __future__ import annotations

import posixpath
import re

from tree_sitter import Node

from clawql_git.codegraph import lang_js
from clawql_git.codegraph.model import Assignment, Call, FileFacts, RepoView, Symbol
from clawql_git.codegraph.ts_util import Parsers, count_errors, line, text

_NOT_NEWLINE = re.compile(rb"[^\n]")
_NOT_NAME = re.compile(r"[^\w$]")
_COMPONENT_TAG = re.compile(r"^(?:[A-Z][\w$]*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)$")
_DOC = re.compile(r"^<!--\s*@component\b(.*?)-->$", re.S)


def _languages() -> dict[str, object]:
    import tree_sitter_svelte

    return {"svelte": tree_sitter_svelte.language}


def component_name(path: str) -> str:
    """``src/lib/Counter.svelte`` -> ``Counter``; a SvelteKit route file keeps the name it
    is known by: ``+page.svelte`` -> ``+page``, ``+layout@(app).svelte`` -> ``+layout@(app)``."""
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    if stem.startswith("+") and len(stem) > 1:
        return stem
    name = _NOT_NAME.sub("", stem)
    return name if name and not name[0].isdigit() else "_" + name


class _Markup:
    """What one walk of the Svelte tree finds: script ranges, component tags, the doc."""

    def __init__(self) -> None:
        self.scripts: list[tuple[int, int]] = []  # byte ranges of script contents
        self.typescript = False
        self.tags: list[tuple[str, Node]] = []
        self.doc = ""

    def walk(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "script_element":
                self.script(node)
                continue
            if node.type == "comment" and not self.doc:
                found = _DOC.match(text(node).strip())
                if found:
                    self.doc = _dedent(found.group(1))
            if node.type in {"element", "self_closing_tag", "start_tag"}:
                self.tag(node)
            stack.extend(reversed(node.named_children))

    def script(self, node: Node) -> None:
        for child in node.named_children:
            if child.type == "raw_text":
                self.scripts.append((child.start_byte, child.end_byte))
            elif child.type == "start_tag":
                for attribute in (a for a in child.named_children if a.type == "attribute"):
                    name = next((c for c in attribute.named_children), None)
                    if name is not None and text(name) == "lang":
                        self.typescript |= "ts" in text(attribute).split("=", 1)[-1]

    def tag(self, node: Node) -> None:
        if node.type == "element":
            return  # its start_tag or self_closing_tag child is read
        name = next((c for c in node.named_children if c.type == "tag_name"), None)
        if name is not None and _COMPONENT_TAG.match(text(name)):
            self.tags.append((text(name), name))


def _dedent(raw: str) -> str:
    lines = raw.strip("\n").splitlines()
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents, default=0)
    return "\n".join(ln[cut:] for ln in lines).strip()


def blank_outside(source: bytes, keep: list[tuple[int, int]]) -> bytes:
    """``source`` with every byte outside the ``keep`` ranges a space (newlines kept)."""
    out = bytearray(_NOT_NEWLINE.sub(b" ", source))
    for start, end in keep:
        out[start:end] = source[start:end]
    return bytes(out)


class SvelteExtractor:
    """The Svelte extractor the code graph loads as ``lang_svelte.EXTRACTOR``."""

    version = "2"

    def __init__(self) -> None:
        self.suffixes = {".svelte": "svelte"}
        self._parsers = Parsers(_languages())  # type: ignore[arg-type]

    def extract(self, path: str, source: bytes, language: str) -> FileFacts:
        """Facts of one component; syntax errors (markup or script) are counted."""
        root = self._parsers.parse(language, source)
        markup = _Markup()
        markup.walk(root)
        script_language = "typescript" if markup.typescript else "javascript"
        facts = lang_js.EXTRACTOR.extract(
            path, blank_outside(source, markup.scripts), script_language
        )
        facts.language = language
        facts.errors += count_errors(root)
        name = component_name(path)
        total = source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
        component = Symbol(
            name=name,
            qualname=name,
            kind="class",
            line=1,
            end_line=max(total, 1),
            signature=f"<{name}>",
            docstring=markup.doc,
        )
        facts.symbols.insert(0, component)
        facts.module_doc = markup.doc or facts.module_doc
        for tag, at in markup.tags:
            facts.calls.append(Call(tag, name, line(at), at.start_point[1], "body"))
        if "default" not in facts.exports:  # what `import X from './X.svelte'` binds
            facts.exports.append("default")
            facts.assignments.append(Assignment("default", "=" + name, "", 1))
        return facts

    def resolve_module(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """As JavaScript/TypeScript resolves it; SvelteKit's ``$lib/x`` is ``src/lib/x``."""
        found = lang_js.EXTRACTOR.resolve_module(importer, module, repo)
        if not found and module.startswith("$lib/"):
            relative = "./" + module.removeprefix("$lib/")
            found = lang_js.EXTRACTOR.resolve_module("src/lib/index.js", relative, repo)
        return found


EXTRACTOR = SvelteExtractor()
