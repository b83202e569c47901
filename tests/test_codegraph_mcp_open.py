"""The server keeps each code graph open across cg_* calls (no ``git rev-parse`` per call), and
still answers from the graph on disk: one rebuilt as a new file, updated in place, or removed
is seen by the next call of a running server (real ``clawql mcp serve`` over stdio, real git)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from clawql_git.codegraph.graph import CodeGraph, OpenGraphs
from clawql_git.errors import NotFound

from .test_codegraph_mcp import FIXTURES, session_run
from .test_mcp import ok


def git_repo(path: Path) -> Path:
    """The python_app fixture as a git repository with one commit, indexed."""
    shutil.copytree(FIXTURES / "python_app", path)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "fixture"], check=True)
    CodeGraph.open(path).index()
    return path


def remove_graph(root: Path) -> Path:
    """Delete the graph file (and its WAL files) of ``root``; the path it had."""
    db = CodeGraph.open(root, create=False).db_path
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    return db


def test_a_graph_rebuilt_as_a_new_file_is_seen_by_the_next_call(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")

    async def body(session: ClientSession) -> None:
        first = await ok(session, "cg_find_symbol", name="Engine")
        assert first["match"] == "exact"
        remove_graph(root)
        (root / "app" / "fresh.py").write_text("def fresh_function():\n    return 1\n")
        CodeGraph.open(root).index()  # a new graph.sqlite at the same path
        found = await ok(session, "cg_find_symbol", name="fresh_function")
        assert found["match"] == "exact"
        assert [i["file"] for i in found["items"]] == ["app/fresh.py"]

    session_run(root, tmp_path, body)


def test_a_removed_graph_is_a_tool_error_not_an_old_answer(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")

    async def body(session: ClientSession) -> None:
        assert (await ok(session, "cg_find_symbol", name="Engine"))["match"] == "exact"
        remove_graph(root)
        result = await session.call_tool("cg_find_symbol", {"name": "Engine"})
        assert result.is_error
        block = result.content[0]
        assert block.type == "text" and "has no code graph yet" in block.text
        CodeGraph.open(root).index()  # indexed again: served again
        assert (await ok(session, "cg_find_symbol", name="Engine"))["match"] == "exact"

    session_run(root, tmp_path, body)


def test_a_graph_updated_in_place_is_seen_by_the_next_call(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")

    async def body(session: ClientSession) -> None:
        assert (await ok(session, "cg_find_symbol", name="later_one"))["match"] == "fuzzy"
        (root / "app" / "later.py").write_text("def later_one():\n    return 2\n")
        CodeGraph.open(root).update(["app/later.py"])
        found = await ok(session, "cg_find_symbol", name="later_one")
        assert found["match"] == "exact" and found["items"][0]["file"] == "app/later.py"

    session_run(root, tmp_path, body)


def test_open_graphs_keeps_one_graph_and_sees_a_nested_repository(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    graphs = OpenGraphs()
    try:
        first = graphs.get(root / "app")
        assert graphs.get(root / "app") is first  # kept open, not reopened per call
        assert graphs.get(root) is first  # the same repository from its root
        assert first.find_symbol("Engine").extra["match"] == "exact"
        # app/ becomes a repository of its own (never indexed): no longer the outer graph
        subprocess.run(["git", "init", "-q", str(root / "app")], check=True)
        with pytest.raises(NotFound, match="has no code graph yet"):
            graphs.get(root / "app")
        assert graphs.get(root).find_symbol("Engine").extra["match"] == "exact"
    finally:
        graphs.close()
