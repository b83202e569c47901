"""Svelte in the code graph (issue #18): a small SvelteKit app written the way the Svelte
tutorial writes components (``<script lang="ts">``, ``export let`` props, ``<!--
@component -->`` docs, child components in markup), its script blocks read as JS/TS,
with its definitions, imports and calls (and their confidence) stated exactly."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls, deps, extract, symbols

SV = {
    "src/lib/Counter.svelte": (
        "<!--\n"
        "  @component\n"
        "  Counts clicks.\n"
        "-->\n"
        '<script lang="ts">\n'
        "  import Button from './Button.svelte';\n"
        "  import { double } from './math';\n"
        "\n"
        "  /** The starting value. */\n"
        "  export let start: number = 0;\n"
        "  let count = start;\n"
        "\n"
        "  function increment(): void {\n"
        "    count = double(count) + 1;\n"
        "  }\n"
        "</script>\n"
        "\n"
        "<Button on:click={increment}>\n"
        "  Clicked {count} times\n"
        "</Button>\n"
        "\n"
        "<style>\n"
        "  button { color: red; }\n"
        "</style>\n"
    ),
    "src/lib/Button.svelte": (
        "<script>\n"
        "  export let kind = 'primary';\n"
        "</script>\n"
        "\n"
        "<button class={kind} on:click><slot /></button>\n"
    ),
    "src/lib/math.ts": "export function double(n: number): number {\n  return n * 2;\n}\n",
    "src/routes/+page.svelte": (
        '<script context="module">\n'
        "  export const prerender = true;\n"
        "</script>\n"
        "\n"
        "<script>\n"
        "  import Counter from '$lib/Counter.svelte';\n"
        "  import * as ui from '../lib/ui';\n"
        "  import { double } from '../lib/math';\n"
        "  const twice = double(2);\n"
        "</script>\n"
        "\n"
        "<h1>Welcome</h1>\n"
        "<Counter start={twice} />\n"
        "<ui.Card />\n"
    ),
    "src/lib/ui.js": "export function Card() {}\n",
}
COUNTER, BUTTON, PAGE = "src/lib/Counter.svelte", "src/lib/Button.svelte", "src/routes/+page.svelte"
MATH, UI = "src/lib/math.ts", "src/lib/ui.js"


def test_svelte_components_are_definitions_with_their_script_symbols(tmp_path: Path) -> None:
    graph = build(tmp_path, SV)
    assert symbols(graph, COUNTER) == [
        ("Counter", "class", 1, 24, 1, "<Counter>", "Counts clicks."),
        ("start", "variable", 10, 10, 1, "export let start: number = 0", "The starting value."),
        ("count", "variable", 11, 11, 0, "let count = start", ""),
        ("increment", "function", 13, 15, 0, "function increment(): void", ""),
    ]
    assert symbols(graph, BUTTON) == [
        ("Button", "class", 1, 5, 1, "<Button>", ""),
        ("kind", "variable", 2, 2, 1, "export let kind = 'primary'", ""),
    ]
    assert symbols(graph, PAGE) == [  # both script blocks; the file's name, +page
        ("+page", "class", 1, 14, 1, "<+page>", ""),
        ("prerender", "constant", 2, 2, 1, "export const prerender = true", ""),
        ("twice", "constant", 9, 9, 0, "const twice = double(2)", ""),
    ]
    assert graph.status()["languages"] == {"svelte": 3, "typescript": 1, "javascript": 1}
    facts = extract("svelte", COUNTER, SV[COUNTER])
    assert facts.language == "svelte" and facts.errors == 0
    assert facts.module_doc == "Counts clicks."


def test_svelte_script_imports_resolve_like_javascript(tmp_path: Path) -> None:
    f = extract("svelte", PAGE, SV[PAGE])
    assert [(i.module, i.name, i.alias, i.line) for i in f.imports] == [
        ("$lib/Counter.svelte", "default", "Counter", 6),
        ("../lib/ui", "", "ui", 7),  # a namespace import
        ("../lib/math", "double", "double", 8),
    ]
    graph = build(tmp_path, SV)
    assert deps(graph) == {
        (COUNTER, BUTTON, "./Button.svelte"),
        (COUNTER, MATH, "./math"),
        (PAGE, COUNTER, "$lib/Counter.svelte"),  # SvelteKit's $lib is src/lib
        (PAGE, MATH, "../lib/math"),
        (PAGE, UI, "../lib/ui"),
    }


def test_svelte_markup_components_and_script_calls_with_their_confidence(
    tmp_path: Path,
) -> None:
    graph = build(tmp_path, SV)
    assert calls(graph, COUNTER) == [
        ("increment", "double", 14, MATH, "double", 1.0, "exact"),
        ("Counter", "Button", 18, BUTTON, "Button", 1.0, "exact"),  # <Button> in markup
    ]
    assert calls(graph, PAGE) == [
        ("", "double", 9, MATH, "double", 1.0, "exact"),
        ("+page", "Counter", 13, COUNTER, "Counter", 1.0, "exact"),  # the default import
        ("+page", "ui.Card", 14, UI, "Card", 1.0, "exact"),  # a dotted component
    ]
    assert calls(graph, BUTTON) == []  # <button> and <slot> are elements, not components


def test_svelte_broken_markup_or_script_is_counted_not_fatal() -> None:
    f = extract(
        "svelte",
        "Broken.svelte",
        b"<script>\nfunction ok() { go() }\nfunction (\n</script>\n<div\n\xff",
    )
    assert f.errors > 0
    assert "ok" in {s.name for s in f.symbols}
