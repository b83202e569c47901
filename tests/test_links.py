"""Tests for the link layer: extraction, Obsidian-style resolution and the link graph."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawql_git.links import (
    Edge,
    LinkGraph,
    LinkRef,
    LinkResolver,
    NoteInfo,
    extract_links,
    wikilinks,
)


def refs(body: str) -> list[tuple[str, str, str | None, str | None]]:
    return [(r.target, r.kind, r.heading, r.alias) for r in extract_links(body)]


def wiki(target: str, line: int = 1) -> LinkRef:
    return LinkRef(target, "wikilink", None, None, line)


def md(target: str, line: int = 1) -> LinkRef:
    return LinkRef(target, "markdown", None, None, line)


# --------------------------------------------------------------------------- extraction


class TestLinkForms:
    def test_wikilink_forms(self) -> None:
        body = (
            "[[plain]] [[aliased|The Alias]] [[headed#Some heading]] [[blocked#^b1d2]]\n"
            "[[both#Heading|Alias]] [[nested#H1#H2]] [[ spaced | padded ]]"
        )
        assert refs(body) == [
            ("plain", "wikilink", None, None),
            ("aliased", "wikilink", None, "The Alias"),
            ("headed", "wikilink", "Some heading", None),
            ("blocked", "wikilink", "^b1d2", None),
            ("both", "wikilink", "Heading", "Alias"),
            ("nested", "wikilink", "H1#H2", None),
            ("spaced", "wikilink", None, "padded"),
        ]

    def test_path_and_extension_targets_are_kept_as_written(self) -> None:
        body = "[[decisions/2026-07/auth-jwt]] [[note.md]] [[../up/there]]"
        assert [r.target for r in extract_links(body)] == [
            "decisions/2026-07/auth-jwt",
            "note.md",
            "../up/there",
        ]

    def test_embeds(self) -> None:
        body = "![[embedded]] and ![[other#Section|shown]]"
        assert refs(body) == [
            ("embedded", "embed", None, None),
            ("other", "embed", "Section", "shown"),
        ]

    def test_escaped_pipe_inside_a_table(self) -> None:
        body = "| a | b |\n|---|---|\n| [[target\\|alias]] | x |\n"
        assert refs(body) == [("target", "wikilink", None, "alias")]

    def test_markdown_links(self) -> None:
        body = (
            "[Rel](other.md) [Up](../x/y.md) [Anchor](note.md#Some%20Heading)\n"
            "[Spaced](my%20note.md) [Angle](<with space.md>) [Dot](./here.md)\n"
            "[**Rich** `text`](rich.md) [](empty-text.md) [Upper](CAPS.MD)\n"
        )
        assert refs(body) == [
            ("other.md", "markdown", None, "Rel"),
            ("../x/y.md", "markdown", None, "Up"),
            ("note.md", "markdown", "Some Heading", "Anchor"),
            ("my note.md", "markdown", None, "Spaced"),
            ("with space.md", "markdown", None, "Angle"),
            ("./here.md", "markdown", None, "Dot"),
            ("rich.md", "markdown", None, "**Rich** `text`"),
            ("empty-text.md", "markdown", None, None),
            ("CAPS.MD", "markdown", None, "Upper"),
        ]

    def test_reference_style_and_titled_markdown_links(self) -> None:
        body = 'See [the ref][r] and [titled](t.md "A title").\n\n[r]: ref-target.md\n'
        assert refs(body) == [
            ("ref-target.md", "markdown", None, "the ref"),
            ("t.md", "markdown", None, "titled"),
        ]

    def test_cqk_notes_are_notes_too(self) -> None:
        assert refs("[k](entry.cqk)") == [("entry.cqk", "markdown", None, "k")]

    def test_links_in_headings_lists_and_quotes(self) -> None:
        body = "# Title [[h]]\n\n- item [[li]]\n  1. [[ol]]\n\n> quoted [[q]]\n> > deeper [[qq]]\n"
        assert [r.target for r in extract_links(body)] == ["h", "li", "ol", "q", "qq"]

    def test_document_order(self) -> None:
        body = "[[b]] [a](a.md) ![[c]]\n\n[[d]]"
        assert [r.target for r in extract_links(body)] == ["b", "a.md", "c", "d"]

    def test_no_links(self) -> None:
        assert extract_links("") == []
        assert extract_links("plain text\n\nno links here") == []
        assert extract_links("[not a link] [[]] [[ ]] [[a\nb]]") == []

    def test_html_renderer_plugin(self) -> None:
        import mistune

        html = mistune.create_markdown(plugins=[wikilinks])
        assert '<span class="wikilink">[[a|&lt;b&gt;]]</span>' in str(html("x [[a|<b>]]"))


class TestIgnored:
    def test_code_spans(self) -> None:
        body = "`[[in-span]]` and ``[[double `tick` span]]`` and `[x](in-span.md)` but [[real]]"
        assert [r.target for r in extract_links(body)] == ["real"]

    def test_fenced_code(self) -> None:
        body = (
            "before [[a]]\n\n```toml\n[[tool.mypy.overrides]]\n```\n\n"
            "~~~\n[x](fenced.md)\n~~~\n\n````\n```\n[[inner]]\n```\n````\nafter [[b]]\n"
        )
        assert [r.target for r in extract_links(body)] == ["a", "b"]

    def test_unclosed_fence_runs_to_the_end(self) -> None:
        assert [r.target for r in extract_links("[[a]]\n\n```\n[[b]]\n\n[[c]]\n")] == ["a"]

    def test_indented_code(self) -> None:
        body = (
            "para [[a]]\n\n    [[indented]]\n    [x](indented.md)\n\n\tif [[ -z x ]]\n\nend [[b]]\n"
        )
        assert [r.target for r in extract_links(body)] == ["a", "b"]

    def test_code_inside_lists_and_quotes(self) -> None:
        body = "- item [[a]]\n\n  ```\n  [[code]]\n  ```\n\n> ```\n> [[code2]]\n> ```\n> [[b]]\n"
        assert [r.target for r in extract_links(body)] == ["a", "b"]

    def test_indented_list_continuation_is_not_code(self) -> None:
        body = "- item\n\n    continuation [[kept]]\n"
        assert [r.target for r in extract_links(body)] == ["kept"]

    def test_html_blocks_and_comments(self) -> None:
        body = "<div>\n[[in-html]]\n</div>\n\ntext <!-- [[in-comment]] --> [[kept]]\n"
        assert [r.target for r in extract_links(body)] == ["kept"]

    def test_external_urls_anchors_and_other_files(self) -> None:
        body = (
            "[w](https://example.com/a.md) [h](http://x.org/b.md) [m](mailto:a@b.md)\n"
            "[o](obsidian://open?file=x.md) [p](//cdn.example.com/c.md) <https://auto.md>\n"
            "[anchor](#heading) [img](pic.png) [pdf](doc.pdf) [plain](folder/) ![alt](i.jpg)\n"
            "[[#Heading in this note]] [[#^block]] ![[diagram.png]] ![[spec.pdf#page=2]]\n"
            "[[board.canvas]] https://example.com/bare.md [[kept]]\n"
        )
        assert [r.target for r in extract_links(body)] == ["kept"]

    def test_escaped_brackets(self) -> None:
        assert extract_links(r"\[[not-a-link]] \[x](y.md)") == []


class TestLines:
    def test_lines_are_one_based_body_lines(self) -> None:
        body = (
            "first [[l1]]\n"  # 1
            "\n"  # 2
            "- item [[l3]]\n"  # 3
            "- \n"  # 4: bare marker, text starts on the next line
            "  text [[l5]]\n"  # 5
            "  - nested [[l6]]\n"  # 6
            "\n"  # 7
            "> quote [[l8]]\n"  # 8
            "lazy [[l9]]\n"  # 9
            "\n"  # 10
            "1. one\n"  # 11
            "   > in list [[l12]]\n"  # 12
            "2. two [[l13]]\n"  # 13
            "\n"  # 14
            "## Heading [[l15]]\n"  # 15
            "[multi\n"  # 16
            "line](l16.md) [[l17]]\n"  # 17
        )
        got = [(r.target, r.line) for r in extract_links(body)]
        assert got == [
            ("l1", 1),
            ("l3", 3),
            ("l5", 5),
            ("l6", 6),
            ("l8", 8),
            ("l9", 9),
            ("l12", 12),
            ("l13", 13),
            ("l15", 15),
            ("l16.md", 16),
            ("l17", 17),
        ]

    def test_crlf_line_endings(self) -> None:
        assert [r.line for r in extract_links("a\r\n\r\n[[x]]\r\n[y](y.md)\r\n")] == [3, 4]

    def test_leading_blank_lines(self) -> None:
        assert [r.line for r in extract_links("\n\n   \n[[x]]")] == [4]


# Building blocks for a generated document: (lines, links that count). "{}" is replaced by a
# fresh target; a target in "lines" but not counted sits where it must be ignored.
BLOCKS: dict[str, tuple[list[str], list[bool]]] = {
    "para": (["text [[{}]] more", "second line [[{}]]"], [True, True]),
    "heading": (["## Heading [[{}]]"], [True]),
    "setext": (["Setext [[{}]]", "======"], [True]),
    "list": (["- item [[{}]]", "- other", "  continued [[{}]]"], [True, True]),
    "bare_item": (["-", "  after a bare marker [[{}]]"], [True]),
    "nested_list": (["1. one [[{}]]", "   - two [[{}]]", "     - three [[{}]]"], [True] * 3),
    "loose_list": (["- a [[{}]]", "", "  para in item [[{}]]", "", "- b [[{}]]"], [True] * 3),
    "quote": (["> quoted [[{}]]", "> > nested [[{}]]", "lazy [[{}]]"], [True] * 3),
    "quote_list": (["> - quoted item [[{}]]", ">   more [[{}]]"], [True, True]),
    "list_quote": (["- item", "  > quote in item [[{}]]"], [True]),
    "fence": (["```", "[[{}]]", "", "[x]({}.md)", "```"], [False, False]),
    "fence_in_list": (["- item [[{}]]", "  ```", "  [[{}]]", "  ```"], [True, False]),
    "indented": (["sep", "", "    [[{}]]", "    more [[{}]]"], [False, False]),
    "span": (["a `[[{}]]` b [[{}]]"], [False, True]),
    "mdlink": (["see [label]({}.md#part) and [w](https://x.org/{}.md)"], [True, False]),
    "embed": (["![[{}]] ![[{}.png]]"], [True, False]),
    "html": (["<div>", "[[{}]]", "</div>"], [False]),
    # containers cut short by the next block, with no blank line in between
    "list_then_quote": (["- item [[{}]]", "> quote [[{}]]"], [True, True]),
    "quote_then_list": (["> quote [[{}]]", "- item [[{}]]", "  more [[{}]]"], [True] * 3),
    "list_then_heading": (["* item [[{}]]", "# Heading [[{}]]"], [True, True]),
    "list_then_fence": (["+ item [[{}]]", "```", "[[{}]]", "```"], [True, False]),
    "bare_ordered": (["1.", "   text [[{}]]", "2) other [[{}]]"], [True, True]),
}


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[str, int]]]:
    names = draw(st.lists(st.sampled_from(sorted(BLOCKS)), min_size=1, max_size=12))
    lines: list[str] = []
    expected: list[tuple[str, int]] = []
    counter = 0
    for name in names:
        if lines:
            lines.append("")
        template, counted = BLOCKS[name]
        slot = 0
        for text in template:
            while "{}" in text:
                counter += 1
                target = f"t{counter}"
                text = text.replace("{}", target, 1)
                if counted[slot]:
                    md_target = text.count(f"({target}.md")
                    expected.append((f"{target}.md" if md_target else target, len(lines) + 1))
                slot += 1
            lines.append(text)
    return "\n".join(lines) + "\n", expected


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_documents_give_exact_links_and_lines(
    doc: tuple[str, list[tuple[str, int]]],
) -> None:
    body, expected = doc
    assert [(r.target, r.line) for r in extract_links(body)] == expected, body


@settings(max_examples=500)
@given(st.text())
def test_extract_links_never_raises_on_arbitrary_text(body: str) -> None:
    for ref in extract_links(body):
        assert ref.line >= 1
        assert ref.target


MARKDOWNISH = st.text(alphabet=list("[]()!#|^`~>*-+=_ \t\n\\<>.:/%1aZ"), max_size=400)


@settings(max_examples=500)
@given(MARKDOWNISH)
def test_extract_links_never_raises_on_markdown_punctuation(body: str) -> None:
    line_count = body.replace("\r\n", "\n").count("\n") + 1
    for ref in extract_links(body):
        assert 1 <= ref.line <= line_count


SNIPPETS = [
    "[[a]]",
    "![[b|c]]",
    "[[d#h]]",
    "[[e.png]]",
    "[x](y.md)",
    "[u](<s p.md>)",
    "[r]",
    "[r]: z.md\n",
    "`",
    "``",
    "\n",
    "\n\n",
    "    ",
    "\t",
    "- ",
    "* ",
    "> ",
    "1. ",
    "# ",
    "```\n",
    "~~~\n",
    "<div>",
    "</div>",
    "<!--",
    "-->",
    "<b>",
    "\\",
    "[",
    "]",
    "(",
    ")",
    "*",
    "_",
    "text ",
    "===\n",
    "---\n",
    "|",
    "!",
    "<https://x.md>",
]


def _oracle_targets(body: str) -> list[str]:
    """Targets by stock mistune with our plugin: no line tracking, no shortcuts."""
    import mistune

    found: list[str] = []
    stack = list(reversed(mistune.create_markdown(renderer=None, plugins=[wikilinks])(body)))
    while stack:
        token = stack.pop()
        if token["type"] == "wikilink":
            inner = token["raw"].removeprefix("!")[2:-2]
            target = inner.partition("|")[0].removesuffix("\\").partition("#")[0].strip()
            if target and not target.lower().endswith((".png",)):
                found.append(target)
        elif token["type"] in ("link", "image"):
            url = unquote(token["attrs"]["url"].partition("#")[0])
            if url.endswith(".md") and "://" not in url:
                found.append(url)
        else:
            stack.extend(reversed(token.get("children", [])))
    return found


@settings(max_examples=1000)
@given(st.lists(st.sampled_from(SNIPPETS), max_size=40).map("".join))
def test_same_links_as_stock_mistune(body: str) -> None:
    assert sorted(r.target for r in extract_links(body)) == sorted(_oracle_targets(body)), body


def test_deep_nesting_does_not_blow_the_stack() -> None:
    body = ">" * 5000 + " [[deep]]\n" + "- " * 3000 + "[[x]]\n" + "[" * 5000 + "[[y]]"
    extract_links(body)  # mistune caps nesting; this must simply return


def _ten_kb_body() -> str:
    section = (
        "## Context {i}\n\n"
        "The team compared sessions with tokens; [[redis-outage|the June outage]] showed the\n"
        "shared store is fragile. See [revocation](../context/revocation.md#options) and\n"
        "[[auth-jwt-over-sessions#Consequences]] for what follows from it.\n\n"
        "We replayed a week of traffic on staging for both designs and measured p99 latency;\n"
        "the token path was cheaper by a margin that holds under failover.\n\n"
        "- Option A: sessions in Redis, [[patterns/sticky-sessions]]\n"
        "- Option B: JWT with short expiry\n\n"
        "```python\nreturn jwt.decode(token, key)  # [[not-a-link]]\n```\n\n"
    )
    return "".join(section.format(i=i) for i in range(40))[:10240]


def _best_of(fn: Callable[[], object], runs: int = 30) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def test_extract_links_is_fast_on_a_10kb_body() -> None:
    body = _ten_kb_body()
    assert len(extract_links(body)) > 30
    # Generous bound for slow shared CI machines; the summary reports the measured figure.
    assert _best_of(lambda: extract_links(body)) < 0.02


# --------------------------------------------------------------------------- resolution

NOTES = [
    NoteInfo("index.md", "Home"),
    NoteInfo("decisions/2026-07/auth-jwt.md", "Use JWT for auth", ("jwt decision", "ADR-7")),
    NoteInfo("decisions/2026-07/Cache Layer.md"),
    NoteInfo("context/auth-jwt.md"),
    NoteInfo("context/deep/nested/readme.md"),
    NoteInfo("patterns/readme.md"),
    NoteInfo("zz/readme.md"),
    NoteInfo("patterns/retry.md", "Retry with jitter"),
    NoteInfo("errors/2026-08/webhook-loss.md", aliases=("Lost webhooks",)),
    NoteInfo("archive/v1.2 notes.md"),
    NoteInfo("entries/x.cqk"),
]


@pytest.fixture
def resolver() -> LinkResolver:
    return LinkResolver(NOTES)


class TestWikilinkResolution:
    @pytest.mark.parametrize(
        ("target", "source", "expected"),
        [
            # exact vault path, with or without the suffix, any case, leading slash allowed
            ("decisions/2026-07/auth-jwt", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("decisions/2026-07/auth-jwt.md", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("DECISIONS/2026-07/Auth-JWT", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("/patterns/retry", "x.md", "patterns/retry.md"),
            ("index", "deep/a/b.md", "index.md"),
            # relative to the source folder
            (
                "../2026-07/Cache Layer",
                "decisions/2026-08/y.md",
                "decisions/2026-07/Cache Layer.md",
            ),
            ("./retry", "patterns/z.md", "patterns/retry.md"),
            ("nested/readme", "context/deep/n.md", "context/deep/nested/readme.md"),
            # stem, unique
            ("retry", "x.md", "patterns/retry.md"),
            ("cache layer", "x.md", "decisions/2026-07/Cache Layer.md"),
            ("v1.2 notes", "x.md", "archive/v1.2 notes.md"),
            ("x", "y.md", "entries/x.cqk"),
            # path suffix
            ("2026-07/auth-jwt", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("deep/nested/readme", "x.md", "context/deep/nested/readme.md"),
            # title, then alias (our extension), case- and space-insensitive
            ("Use JWT  for auth", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("retry with JITTER", "x.md", "patterns/retry.md"),
            ("adr-7", "x.md", "decisions/2026-07/auth-jwt.md"),
            ("lost webhooks", "x.md", "errors/2026-08/webhook-loss.md"),
        ],
    )
    def test_resolves(
        self, resolver: LinkResolver, target: str, source: str, expected: str
    ) -> None:
        assert resolver.resolve(wiki(target), source) == expected

    def test_ambiguous_stem_prefers_the_source_folder(self, resolver: LinkResolver) -> None:
        assert resolver.resolve(wiki("auth-jwt"), "context/other.md") == "context/auth-jwt.md"
        assert (
            resolver.resolve(wiki("auth-jwt"), "decisions/2026-07/o.md")
            == "decisions/2026-07/auth-jwt.md"
        )

    def test_ambiguous_stem_elsewhere_takes_the_shortest_path(self, resolver: LinkResolver) -> None:
        # "context/auth-jwt.md" (19 chars) beats "decisions/2026-07/auth-jwt.md".
        assert resolver.resolve(wiki("auth-jwt"), "errors/e.md") == "context/auth-jwt.md"
        # The shortest string, not the fewest folders; equal lengths go alphabetically.
        assert resolver.resolve(wiki("readme"), "errors/e.md") == "zz/readme.md"
        assert resolver.resolve(wiki("readme"), "patterns/p.md") == "patterns/readme.md"
        # An ancestor of the source folder does not count as its folder.
        assert resolver.resolve(wiki("readme"), "context/deep/nested/x/y.md") == "zz/readme.md"

    def test_explicitly_relative_links_are_only_relative(self) -> None:
        resolver = LinkResolver([NoteInfo("retry.md"), NoteInfo("patterns/retry.md")])
        assert resolver.resolve(wiki("./retry"), "patterns/z.md") == "patterns/retry.md"
        assert resolver.resolve(wiki("retry"), "patterns/z.md") == "retry.md"
        assert resolver.resolve(wiki("./retry"), "errors/z.md") is None
        assert resolver.resolve(wiki("../retry"), "patterns/z.md") == "retry.md"

    def test_exact_path_beats_a_stem_in_the_source_folder(self) -> None:
        resolver = LinkResolver([NoteInfo("Note.md"), NoteInfo("b/Note.md")])
        assert resolver.resolve(wiki("Note"), "b/src.md") == "Note.md"
        assert resolver.resolve(wiki("b/Note"), "b/src.md") == "b/Note.md"

    def test_stem_beats_title_and_title_beats_alias(self) -> None:
        resolver = LinkResolver(
            [
                NoteInfo("a/shared.md"),
                NoteInfo("b/other.md", title="shared", aliases=("alias-x",)),
                NoteInfo("c/third.md", title="alias-x"),
            ]
        )
        assert resolver.resolve(wiki("shared"), "z.md") == "a/shared.md"
        assert resolver.resolve(wiki("alias-x"), "z.md") == "c/third.md"

    @pytest.mark.parametrize(
        ("target", "source"),
        [
            ("missing", "x.md"),
            ("auth", "x.md"),  # no prefix matching
            ("jwt", "x.md"),
            ("other/auth-jwt", "x.md"),  # a suffix must match whole folders
            ("2026-07/auth-jwt/extra", "x.md"),
            ("../../../escape", "a/b.md"),
            ("Home/index", "x.md"),
        ],
    )
    def test_broken(self, resolver: LinkResolver, target: str, source: str) -> None:
        assert resolver.resolve(wiki(target), source) is None

    def test_embeds_resolve_like_wikilinks(self, resolver: LinkResolver) -> None:
        ref = LinkRef("retry", "embed", "Heading", None, 3)
        assert resolver.resolve(ref, "x.md") == "patterns/retry.md"


class TestMarkdownResolution:
    @pytest.mark.parametrize(
        ("target", "source", "expected"),
        [
            ("retry.md", "patterns/p.md", "patterns/retry.md"),
            ("./retry.md", "patterns/p.md", "patterns/retry.md"),
            ("../patterns/retry.md", "errors/e.md", "patterns/retry.md"),
            (
                "../../decisions/2026-07/auth-jwt.md",
                "errors/2026-08/x.md",
                "decisions/2026-07/auth-jwt.md",
            ),
            ("sub/../retry.md", "patterns/p.md", "patterns/retry.md"),
            (
                "../2026-07/cache layer.md",
                "decisions/2026-08/y.md",
                "decisions/2026-07/Cache Layer.md",
            ),
            ("RETRY.MD", "patterns/p.md", "patterns/retry.md"),
            ("index.md", "index2.md", "index.md"),
            # a vault-root path (Obsidian's "absolute path in vault" link format)
            ("/patterns/retry.md", "errors/e.md", "patterns/retry.md"),
            ("patterns/retry.md", "errors/e.md", "patterns/retry.md"),
        ],
    )
    def test_resolves(
        self, resolver: LinkResolver, target: str, source: str, expected: str
    ) -> None:
        assert resolver.resolve(md(target), source) == expected

    @pytest.mark.parametrize(
        ("target", "source"),
        [
            ("retry.md", "errors/e.md"),  # not relative to the source, no stem lookup
            ("./patterns/retry.md", "errors/e.md"),  # explicitly relative: no root fallback
            ("../../patterns/retry.md", "errors/e.md"),  # escapes the vault
            ("../index.md", "index2.md"),
            ("missing.md", "x.md"),
        ],
    )
    def test_broken(self, resolver: LinkResolver, target: str, source: str) -> None:
        assert resolver.resolve(md(target), source) is None


# --------------------------------------------------------------------------- graph


@pytest.fixture
def graph() -> LinkGraph:
    bodies = {
        "index.md": "Start at [[alpha]] and [Beta](notes/beta.md).\n\n[[nowhere]]\n",
        "alpha.md": "Back to [[index|home]], on to ![[beta#Part]].\n`[[ignored]]`\n",
        "notes/beta.md": 'See [[Alpha Title]] and [[ghost "quoted"]] and [up](../alpha.md).\n',
        "lonely.md": "no links\n",
    }
    titles = {"alpha.md": "Alpha Title", "notes/beta.md": 'Beta "B" [x]'}
    return LinkGraph.build(
        (NoteInfo(path, titles.get(path)), body) for path, body in bodies.items()
    )


class TestGraph:
    def test_outgoing(self, graph: LinkGraph) -> None:
        assert [(e.target, e.ref.kind, e.ref.line) for e in graph.outgoing("index.md")] == [
            ("alpha.md", "wikilink", 1),
            ("notes/beta.md", "markdown", 1),
            (None, "wikilink", 3),
        ]
        assert graph.outgoing("lonely.md") == []
        assert graph.outgoing("not-a-note.md") == []

    def test_backlinks(self, graph: LinkGraph) -> None:
        assert sorted((e.source, e.ref.kind) for e in graph.backlinks("alpha.md")) == [
            ("index.md", "wikilink"),
            ("notes/beta.md", "markdown"),
            ("notes/beta.md", "wikilink"),
        ]
        assert [e.source for e in graph.backlinks("notes/beta.md")] == ["alpha.md", "index.md"]
        assert graph.backlinks("lonely.md") == []

    def test_broken(self, graph: LinkGraph) -> None:
        assert [(e.source, e.ref.target) for e in graph.broken()] == [
            ("index.md", "nowhere"),
            ("notes/beta.md", 'ghost "quoted"'),
        ]

    def test_edges(self, graph: LinkGraph) -> None:
        edges = graph.edges()
        assert len(edges) == 8
        assert all(isinstance(e, Edge) for e in edges)
        assert [e.source for e in edges] == sorted(e.source for e in edges)
        assert [n.path for n in graph.notes] == [
            "alpha.md",
            "index.md",
            "lonely.md",
            "notes/beta.md",
        ]

    def test_to_json(self, graph: LinkGraph) -> None:
        data = json.loads(json.dumps(graph.to_json()))
        assert {"id": "alpha.md", "title": "Alpha Title"} in data["nodes"]
        assert {"id": "lonely.md", "title": None} in data["nodes"]
        assert len(data["nodes"]) == 4
        assert {
            "source": "alpha.md",
            "target": "notes/beta.md",
            "kind": "embed",
            "broken": False,
            "line": 1,
        } in data["edges"]
        assert {
            "source": "index.md",
            "target": "nowhere",
            "kind": "wikilink",
            "broken": True,
            "line": 3,
        } in data["edges"]
        assert len(data["edges"]) == len(graph.edges())

    def test_to_dot(self, graph: LinkGraph) -> None:
        dot = graph.to_dot()
        assert dot.startswith("digraph links {\n") and dot.rstrip().endswith("}")
        assert '"index.md" -> "alpha.md";' in dot
        assert '"alpha.md" -> "notes/beta.md";' in dot
        assert '"index.md" -> "broken:nowhere" [style=dashed];' in dot
        assert '"broken:nowhere" [label="nowhere", style=dashed];' in dot
        assert '"notes/beta.md" [label="Beta \\"B\\" [x]"];' in dot
        assert '"notes/beta.md" -> "broken:ghost \\"quoted\\"" [style=dashed];' in dot
        assert dot.count("->") == 7  # beta -> alpha twice (wikilink and markdown) is one arrow
        _assert_valid_dot(dot)

    def test_to_mermaid(self, graph: LinkGraph) -> None:
        mermaid = graph.to_mermaid()
        lines = mermaid.splitlines()
        assert lines[0] == "graph LR"
        ids = {m[2]: m[1] for m in (re.match(r'\s+(\w+)\["(.*)"\]', x) for x in lines) if m}
        assert ids["Alpha Title"] == "n0"
        assert "Beta #quot;B#quot; [x]" in ids  # no raw quote can end the label early
        assert f"  {ids['Home' if 'Home' in ids else 'index.md']} --> n0" in lines
        assert f"  n0 --> {ids['Beta #quot;B#quot; [x]']}" in lines
        assert f"  {ids['index.md']} -.-> {ids['nowhere']}" in lines
        assert any(x.endswith(":::broken") for x in lines)
        assert "classDef broken" in mermaid
        _assert_valid_mermaid(mermaid)

    def test_exports_of_an_empty_graph(self) -> None:
        empty = LinkGraph.build([])
        assert empty.to_json() == {"nodes": [], "edges": []}
        _assert_valid_dot(empty.to_dot())
        assert empty.to_mermaid() == "graph LR\n"

    def test_self_link_and_duplicate_links(self) -> None:
        graph = LinkGraph.build([(NoteInfo("a.md"), "[[a]] [[a]] [[a#h]]")])
        assert [e.target for e in graph.edges()] == ["a.md"] * 3
        assert len(graph.backlinks("a.md")) == 3
        assert graph.to_dot().count("->") == 1


def _assert_valid_dot(dot: str) -> None:
    """Every statement is a node, an edge or a graph attribute with quoted ids."""
    quoted = r'"(?:[^"\\]|\\.)*"'
    attrs = rf"(?: \[\w+=(?:{quoted}|\w+)(?:, \w+=(?:{quoted}|\w+))*\])?"
    statement = re.compile(rf"  (?:{quoted}(?: -> {quoted})?{attrs}|\w+=\w+|node \[\w+=\w+\]);")
    lines = dot.splitlines()
    assert lines[0] == "digraph links {" and lines[-1] == "}"
    for line in lines[1:-1]:
        assert statement.fullmatch(line), line


def _assert_valid_mermaid(mermaid: str) -> None:
    node = re.compile(r'  [nb]\d+\["[^"]*"\](?::::broken)?')
    edge = re.compile(r"  [nb]\d+ (?:-->|-\.->) [nb]\d+")
    for line in mermaid.splitlines()[1:]:
        assert node.fullmatch(line) or edge.fullmatch(line) or line.startswith("  classDef "), line
