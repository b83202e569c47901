"""Helpers of the per-language code graph tests: write a fixture repository, index it, and
read back its facts as plain tuples (symbols, calls, deps, supertypes) to compare exactly."""

from __future__ import annotations

from pathlib import Path

from clawql_git.codegraph.files import load_extractors
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.model import FileFacts


def build(root: Path, files: dict[str, str]) -> CodeGraph:
    """Write ``files`` under ``root`` and index them (no history)."""
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body)
    graph = CodeGraph.open(root)
    graph.index(history=False)
    return graph


def extract(language: str, path: str, source: str | bytes) -> FileFacts:
    """One file's facts from the extractor of ``language``."""
    raw = source.encode() if isinstance(source, str) else source
    return load_extractors()[language].extract(path, raw, language)


def symbols(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    """(qualname, kind, line, end_line, exported, signature, docstring) of ``path``."""
    return [
        tuple(r)
        for r in graph.store.query(
            "SELECT qualname, kind, line, end_line, exported, signature, docstring FROM symbols"
            " WHERE path=? ORDER BY line, qualname",
            (path,),
        )
    ]


def calls(graph: CodeGraph, path: str) -> list[tuple[object, ...]]:
    """(caller, callee, line, target_path, target_qualname, confidence, resolution)."""
    return [
        tuple(r)
        for r in graph.store.query(
            "SELECT caller, callee, line, target_path, target_qualname, confidence, resolution"
            " FROM calls WHERE path=? ORDER BY line, callee",
            (path,),
        )
    ]


def deps(graph: CodeGraph) -> set[tuple[object, ...]]:
    """(path, target, module) of every resolved import."""
    return {tuple(r) for r in graph.store.query("SELECT path, target, module FROM deps")}


def supertypes(graph: CodeGraph) -> set[tuple[object, ...]]:
    """(child_path, child_qualname, base, relation, line, target_path, target_qualname,
    resolution) of every supertype edge."""
    return {
        tuple(r)
        for r in graph.store.query(
            "SELECT child_path, child_qualname, base, relation, line, target_path,"
            " target_qualname, resolution FROM supertypes"
        )
    }
