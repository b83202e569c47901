"""The facts the graph stores for unchanged files are the facts a parse gives (docstrings
aside, which live in the symbols table): an incremental index resolves the files it relinks
with the stored facts of the others, so anything lost in storage makes its edges differ from
a fresh index (the C# resolver reads extension methods from signatures, Kotlin too, Go and
Rust their return types)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.model import FileFacts

FIXTURES = Path(__file__).parent / "fixtures" / "code"


def without_docstrings(facts: FileFacts) -> FileFacts:
    symbols = [dataclasses.replace(s, docstring="") for s in facts.symbols]
    return dataclasses.replace(facts, symbols=symbols)


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_stored_facts_are_the_parsed_facts(fixture: str, tmp_path: Path) -> None:
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    graph = CodeGraph.open(root)
    try:
        graph.index(history=False)
        parsed = graph.indexer.facts
        assert parsed, f"{fixture}: nothing indexed"
        stored = graph.store.facts()
        assert sorted(stored) == sorted(parsed)
        for path, facts in parsed.items():
            assert stored[path] == without_docstrings(facts), path
    finally:
        graph.close()


def test_a_signature_survives_storage(tmp_path: Path) -> None:
    """The case that broke: a C# extension method's ``this`` parameter is read from its
    signature when a caller is relinked against the stored facts."""
    (tmp_path / "Ext.cs").write_text(
        "namespace A;\npublic static class Ext { public static void Ping(this string s) { } }\n"
    )
    graph = CodeGraph.open(tmp_path)
    try:
        graph.index(history=False)
        (ping,) = [s for s in graph.store.facts()["Ext.cs"].symbols if s.name == "Ping"]
        assert ping.signature == "public static void Ping(this string s)"
    finally:
        graph.close()
