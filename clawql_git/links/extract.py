"""Link extraction with mistune: `[[target]]`, `[[target|alias]]`, `[[target#heading]]`,
`[[target#^block]]`, `![[embed]]` and relative Markdown links to notes. Only what mistune
parses as prose counts: code spans, fenced and indented code blocks and HTML blocks do not.

mistune is imported lazily (the first call builds one cached parser), so importing this
module stays cheap for `clawql --help`.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import unquote

if TYPE_CHECKING:
    from re import Match

    from mistune import Markdown
    from mistune.block_parser import BlockParser
    from mistune.core import BaseRenderer, BlockState, InlineState
    from mistune.inline_parser import InlineParser

Token = dict[str, Any]

#: File suffixes of notes (`.cqk` is the opt-in extension with the same contract as `.md`).
NOTE_SUFFIXES: tuple[str, ...] = (".md", ".cqk")

#: Obsidian's non-note file formats: a wikilink or embed naming one is an attachment, not a
#: link between notes (https://help.obsidian.md/file-formats).
ATTACHMENT_SUFFIXES: frozenset[str] = frozenset(
    {
        *(".avif", ".bmp", ".gif", ".jpeg", ".jpg", ".png", ".svg", ".webp"),
        *(".flac", ".m4a", ".mp3", ".ogg", ".wav", ".webm", ".3gp"),
        *(".mkv", ".mov", ".mp4", ".ogv", ".pdf", ".canvas", ".base"),
    }
)

# A wikilink never spans lines and never nests brackets (Obsidian forbids [ ] in names).
_WIKILINK_PATTERN = r"!?\[\[[^\[\]\n]+\]\]"
_WIKILINK = re.compile(_WIKILINK_PATTERN)
# Without these (and without reference definitions) only the wikilink rule can produce a
# token: links need "](" or a reference, code spans "`", escapes "\\", autolinks and HTML "<".
_OTHER_INLINE_SYNTAX = re.compile(r"[`<\\]|\]\(")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_BARE_LIST_MARKER = re.compile(r"[ \t]*(?:[*+-]|\d{1,9}[.)])[ \t]*\n?")
_INLINE_STRIP = " \r\n\t\f"  # what mistune strips from block text before inline parsing
_LINE = "_clawql_line"  # token key: 0-based body line where a block's text starts
_POS = "_clawql_pos"  # token key: offset of an inline link inside its block's text


@dataclass(frozen=True)
class LinkRef:
    """One link as written in a body."""

    target: str  # without alias/heading/block: "auth-jwt", "decisions/2026-07/x", "../x/y.md"
    kind: str  # "wikilink" | "embed" | "markdown"
    heading: str | None  # "Some heading", or "^blockid" for a block reference
    alias: str | None  # [[t|alias]] or the text of a Markdown link
    line: int  # 1-based line in the body


# --------------------------------------------------------------------------- extraction


def extract_links(body: str) -> list[LinkRef]:
    """Links in a Markdown body: [[t]], [[t|a]], [[t#h]], [[t#^b]], ![[e]], and relative
    Markdown links to notes, in document order.

    Links inside code spans, fenced or indented code blocks and HTML blocks do not count.
    External URLs (any `scheme:`), pure `#anchors`, Markdown links to non-note files and
    wikilinks or embeds of attachments (images, PDFs, canvases, ...) are ignored. Markdown
    link targets are URL-decoded and their `#anchor` becomes the heading.
    """
    if "[" not in body:  # every link form needs one; skips the parse for most bodies
        return []
    md = _markdown()
    state = md.block.state_cls()
    state.process(body.replace("\r\n", "\n").replace("\r", "\n") + "\n")
    md.block.parse(state)
    refs: list[LinkRef] = []
    for block in _text_blocks(state.tokens):
        refs.extend(_links_in_block(md.inline, block, state.env))
    # mistune 3.4 can emit blocks out of order (a block quote ended lazily by a list that is
    # itself ended by a fence comes after the list); a stable sort keeps in-line order.
    refs.sort(key=lambda ref: ref.line)
    return refs


def _text_blocks(tokens: list[Token]) -> Iterator[Token]:
    """Block tokens that carry inline text (paragraphs, headings), in document order."""
    stack = list(reversed(tokens))
    while stack:
        token = stack.pop()
        if "text" in token:
            yield token
        elif "children" in token:
            stack.extend(reversed(token["children"]))


def _links_in_block(inline: InlineParser, block: Token, env: Any) -> Iterator[LinkRef]:
    text: str = block["text"]
    if "[" not in text:
        return
    stripped = text.lstrip(_INLINE_STRIP)
    first_line = block.get(_LINE, 0) + text.count("\n", 0, len(text) - len(stripped)) + 1
    src = stripped.rstrip(_INLINE_STRIP)
    lines = _LineCounter(src)
    for token in _inline_tokens(inline, src, env):
        line = first_line + lines.newlines_before(token.get(_POS, 0))
        if token["type"] == "wikilink":
            ref = _wikilink_ref(token["raw"], line)
        else:
            ref = _markdown_ref(token, line)
        if ref is not None:
            yield ref


def _inline_tokens(inline: InlineParser, src: str, env: Any) -> Iterator[Token]:
    if env.get("ref_links") or _OTHER_INLINE_SYNTAX.search(src):
        return _inline_links(inline(src, env))
    # Only the wikilink rule can fire, so its pattern alone gives what mistune would give
    # (a regex search, like mistune's, left to right); this skips most of the inline work.
    return ({"type": "wikilink", "raw": m[0], _POS: m.start()} for m in _WIKILINK.finditer(src))


def _inline_links(tokens: list[Token]) -> Iterator[Token]:
    """Wikilink, link and image tokens in order; a link's own text is not searched."""
    stack = list(reversed(tokens))
    while stack:
        token = stack.pop()
        if token["type"] in ("wikilink", "link", "image"):
            yield token
        elif "children" in token:
            stack.extend(reversed(token["children"]))


class _LineCounter:
    """Newlines before an offset, counted incrementally (offsets mostly increase)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._count = 0

    def newlines_before(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._count = 0, 0
        self._count += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._count


def _wikilink_ref(raw: str, line: int) -> LinkRef | None:
    embed = raw.startswith("!")
    inner = raw[3:-2] if embed else raw[2:-2]
    linktext, _, alias = inner.partition("|")
    # Inside a table the pipe is escaped: [[target\|alias]].
    linktext = linktext.removesuffix("\\")
    target, _, heading = linktext.partition("#")
    target = target.strip()
    if not target or _suffix(target) in ATTACHMENT_SUFFIXES:
        return None  # [[#heading]] is a link inside the same note; attachments are not notes
    kind = "embed" if embed else "wikilink"
    return LinkRef(target, kind, heading.strip() or None, alias.strip() or None, line)


def _markdown_ref(token: Token, line: int) -> LinkRef | None:
    url: str = token.get("attrs", {}).get("url", "")
    if not url or url.startswith(("#", "//")) or _SCHEME.match(url):
        return None
    path, _, anchor = url.partition("#")
    target = unquote(path.partition("?")[0])
    if not target.lower().endswith(NOTE_SUFFIXES):
        return None
    alias = _link_text(token.get("children", []))
    return LinkRef(target, "markdown", unquote(anchor) or None, alias or None, line)


def _link_text(tokens: list[Token]) -> str:
    """A link's text close to how it was written (like a wikilink alias), on one line."""
    parts: list[str] = []
    stack = list(reversed(tokens))
    while stack:
        token = stack.pop()
        raw = token.get("raw", "")
        parts.append(f"`{raw}`" if token["type"] == "codespan" else raw)
        stack.extend(reversed(token.get("children", [])))
    return " ".join("".join(parts).split())


def _suffix(target: str) -> str:
    return posixpath.splitext(target.rpartition("/")[2])[1].lower()


# --------------------------------------------------------------------------- mistune glue


class _LineTracking(Protocol):
    """What the block parser reads and writes on its block states (see _line_state_class)."""

    quote_line: int | None
    item_pos: int

    def line_at(self, pos: int) -> int: ...


def wikilinks(md: Markdown) -> None:
    """mistune 3 plugin: parse `[[...]]` and `![[...]]` into `wikilink` tokens.

    The token's `raw` is the whole link as written; `_clawql_pos` its offset in the text.
    """
    rule = "wikilink"
    try:
        md.inline.register(rule, _WIKILINK_PATTERN, _parse_wikilink, "link", start_chars=("!", "["))
    except TypeError:  # older mistune 3 releases have no start_chars (a slower scan)
        md.inline.register(rule, _WIKILINK_PATTERN, _parse_wikilink, before="link")
    if md.renderer is not None and md.renderer.NAME == "html":
        md.renderer.register(rule, _render_wikilink_html)


def _parse_wikilink(inline: InlineParser, m: Match[str], state: InlineState) -> int:
    state.append_token({"type": "wikilink", "raw": m.group(0), _POS: m.start()})
    return m.end()


def _render_wikilink_html(renderer: BaseRenderer, text: str) -> str:
    from mistune.util import escape

    return '<span class="wikilink">' + escape(text) + "</span>"


@functools.lru_cache(maxsize=1)
def _markdown() -> Markdown:
    """One parser for every call: mistune keeps no per-document state in it."""
    from mistune import Markdown

    block = _line_block_parser_class()()
    return Markdown(
        renderer=None, block=block, inline=_positioned_inline_parser()(), plugins=[wikilinks]
    )


def _line_block_parser_class() -> type[BlockParser]:
    """A mistune block parser whose tokens know the body line their text starts on.

    mistune drops source positions, so each block state carries the body line of its first
    line: a block quote's or list item's text has one line per source line (markers and
    indentation stripped), so a child state only needs the line where it starts.
    """
    from mistune.block_parser import BlockParser

    state_cls = _line_state_class()

    class LineBlockParser(BlockParser):
        def extract_block_quote(
            self, m: Match[str], state: BlockState
        ) -> tuple[str, int | None, set[int]]:
            line_state = cast(_LineTracking, state)
            start, saved = line_state.line_at(state.cursor), line_state.item_pos
            result = super().extract_block_quote(m, state)
            # A lazy continuation may have parsed a whole list on this state meanwhile.
            line_state.item_pos, line_state.quote_line = saved, start
            return result

        def parse_list(self, m: Match[str], state: BlockState) -> int:
            cast(_LineTracking, state).item_pos = m.start()
            return super().parse_list(m, state)

    LineBlockParser.state_cls = state_cls
    return LineBlockParser


def _line_state_class() -> type[BlockState]:
    from mistune.core import BlockState

    class LineState(BlockState):
        """A block state that knows the body line of its source's first line."""

        def __init__(self, parent: Any = None) -> None:
            super().__init__(parent)
            self.first_line = 0
            self.quote_line: int | None = None  # set just before a block quote's child
            self.item_pos = 0  # a position on the marker line of the next list item
            self._counter = _LineCounter("")

        def process(self, src: str) -> None:
            super().process(src)
            self._counter = _LineCounter(src)

        def line_at(self, pos: int) -> int:
            return self.first_line + self._counter.newlines_before(pos)

        def child_state(self, src: str, lazy_line_starts: set[int] | None = None) -> BlockState:
            if lazy_line_starts is None:  # older mistune 3 releases take only src
                child = cast(LineState, super().child_state(src))
            else:
                child = cast(LineState, super().child_state(src, lazy_line_starts))
            if self.quote_line is not None:
                child.first_line, self.quote_line = self.quote_line, None
                return child
            # Otherwise a list item: mistune creates it once its lines are consumed, when the
            # cursor has just passed the next item's marker line (if there is a next item).
            child.first_line = self._list_item_line()
            self.item_pos = max(self.cursor - 1, 0)
            return child

        def _list_item_line(self) -> int:
            start = self.src.rfind("\n", 0, self.item_pos) + 1
            marker_line = self.get_line(start)
            line = self.first_line + self.src.count("\n", 0, start)
            # An item whose marker line is bare starts its text on the next line.
            return line + 1 if _BARE_LIST_MARKER.fullmatch(marker_line) else line

        def add_paragraph(self, text: str) -> None:
            count = len(self.tokens)
            super().add_paragraph(text)
            if len(self.tokens) > count:
                self.tokens[-1][_LINE] = self.line_at(self.cursor)

        def append_token(self, token: Token) -> None:
            if "text" in token and _LINE not in token:
                token[_LINE] = self.line_at(self.cursor)
            super().append_token(token)

    return LineState


def _positioned_inline_parser() -> type[InlineParser]:
    """A mistune inline parser that stamps each link token with its offset in the text."""
    from mistune.inline_parser import InlineParser

    class PositionedInlineParser(InlineParser):
        def __init__(self) -> None:
            super().__init__()
            # Only what can hide or form a link; emphasis and line breaks never matter.
            unused = ("emphasis", "linebreak", "softbreak")
            self.rules = [rule for rule in self.rules if rule not in unused]

        def finalize_tokens(self, tokens: list[Token], depth: int) -> list[Token]:
            return tokens  # this resolves emphasis, which links do not depend on

        def parse_link(self, m: Match[str], state: InlineState) -> int | None:
            count = len(state.tokens)  # older mistune 3 releases build the link here
            end = super().parse_link(m, state)
            for token in state.tokens[count:]:
                _stamp(token, m.start())
            return end

        def parse_link_close(self, m: Match[str], state: InlineState) -> int:
            # A link replaces the "[" token of its opener, at the opener's index.
            openers = [(b.token_index, b.start) for b in getattr(state, "brackets", ())]
            end = super().parse_link_close(m, state)
            for index, start in openers:
                if index < len(state.tokens):
                    _stamp(state.tokens[index], start)
            return end

    return PositionedInlineParser


def _stamp(token: Token, pos: int) -> None:
    if token["type"] in ("link", "image"):
        token.setdefault(_POS, pos)
