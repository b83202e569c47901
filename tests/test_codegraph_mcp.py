"""The cg_* tools end to end, through the real MCP client over stdio
(``python -m clawql_git mcp serve``), against the indexed route fixture repository."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import clawql_git
from clawql_git.codegraph.graph import CodeGraph

from .test_mcp import ok, run

FIXTURES = Path(__file__).parent / "fixtures" / "code"
CG_TOOLS = {
    "cg_find_symbol",
    "cg_find_callers",
    "cg_explain_module",
    "cg_dependency_path",
    "cg_find_route",
    "cg_type_hierarchy",
    "cg_changes",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cg-mcp") / "repo"
    shutil.copytree(FIXTURES / "python_routes", root)
    shutil.copytree(FIXTURES / "python_app" / "app", root / "app")
    CodeGraph.open(root).index()
    return root


def session_run(
    repo: Path, tmp_path: Path, body: Callable[[ClientSession], Awaitable[None]]
) -> None:
    """Run ``body`` against a server started in ``repo`` (its default repository)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWQL_", "GIT_"))}
    env.update(HOME=str(tmp_path), CLAWQL_EMBEDDING_MODEL="hash", LANCEDB_LOG="error")
    # the server runs in the repository: this checkout must stay first on its path
    checkout = str(Path(clawql_git.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([checkout, *filter(None, [env.get("PYTHONPATH")])])
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "clawql_git", "mcp", "serve"], env=env, cwd=str(repo)
    )
    errlog = tmp_path / "stderr.txt"

    async def main() -> None:
        with errlog.open("a") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await body(session)

    run(main)
    assert "Traceback" not in errlog.read_text(), errlog.read_text()


def test_cg_tools_listed_read_only(repo: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) >= CG_TOOLS
        for name in CG_TOOLS:
            tool = tools[name]
            assert tool.description and len(tool.description) > 80
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert "max_chars" in tool.input_schema["properties"]
            assert "repo" in tool.input_schema["properties"]

    session_run(repo, tmp_path, body)


def test_cg_tools_answer_from_the_graph(repo: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        found = await ok(session, "cg_find_symbol", name="Engine")
        assert found["items"][0]["file"] == "app/core.py" and found["match"] == "exact"
        callers = await ok(session, "cg_find_callers", name="Database.query")
        assert {c["caller"] for c in callers["items"]} == {"Engine.run"}
        assert callers["total"] == 2
        module = await ok(session, "cg_explain_module", module="app.core", repo=str(repo))
        assert module["summary"].startswith("Core engine")
        chain = await ok(session, "cg_dependency_path", source="api/main.py", target="api/deps.py")
        assert [i["file"] for i in chain["items"]] == ["api/main.py", "api/deps.py"]
        route = await ok(session, "cg_find_route", path="/api/users/7", method="PATCH")
        assert route["items"][0]["handler_qualname"] == "update_user"
        assert route["items"][0]["middleware"] == ["Depends(auth)"]
        bounded = await ok(session, "cg_find_route", path="/api/users/7", limit=1)
        assert bounded["total"] == 2 and bounded["truncated"] and len(bounded["items"]) == 1

    session_run(repo, tmp_path, body)


def test_cg_tool_errors_are_tool_errors(repo: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        result = await session.call_tool("cg_explain_module", {"module": "nowhere"})
        assert result.is_error
        block = result.content[0]
        assert block.type == "text" and "no indexed module 'nowhere' (NotFound)" in block.text
        result = await session.call_tool("cg_find_symbol", {"name": "x", "repo": "/nonexistent"})
        assert result.is_error

    session_run(repo, tmp_path, body)
