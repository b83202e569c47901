"""Code-anchored memory over MCP, through the real client over stdio: ``cg_find_symbol`` and
``cg_explain_module`` list the entries anchored to a definition, ``memory_recall`` hits carry
``code_stale`` once the code moved on."""

from __future__ import annotations

import os
from pathlib import Path

from mcp.client.session import ClientSession

import clawql_git
from clawql_git import Vault
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.vault.anchoring import check_code, graph_resolver

from .test_anchors import code, commit, edit, remember  # noqa: F401  (the fixture)
from .test_mcp import ok, over_stdio


def test_cg_tools_and_recall_show_anchored_memory(
    code: Path,  # noqa: F811
    vault: Vault,
    tmp_path: Path,
) -> None:
    about = remember(vault, "Config parsing returns a dict", "`parse_config` returns a dict.")
    graph = CodeGraph.open(code)
    graph.index(history=False)
    check_code(vault, code, graph_resolver(graph))
    edit(code, "config.py", "open(path).read()", "open(path, encoding='utf-8').read()")
    commit(code, "utf-8")
    check_code(vault, code, graph_resolver(graph))
    graph.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    checkout = str(Path(clawql_git.__file__).resolve().parents[1])
    env.update(
        PYTHONPATH=os.pathsep.join([checkout, *filter(None, [env.get("PYTHONPATH")])]),
        CLAWQL_EMBEDDING_MODEL="hash",
        LANCEDB_LOG="error",
    )
    errlog = tmp_path / "stderr.txt"

    async def body(session: ClientSession) -> None:
        found = await ok(session, "cg_find_symbol", name="parse_config", repo=str(code))
        memory = found["items"][0]["memory"]
        assert [(m["entry"], m["state"]) for m in memory] == [(about, "changed")]
        module = await ok(session, "cg_explain_module", module="config.py", repo=str(code))
        export = next(i for i in module["items"] if i["qualname"] == "parse_config")
        assert [m["entry"] for m in export["memory"]] == [about]
        recalled = await ok(session, "memory_recall", query="config parsing dict", backend="fts")
        hit = next(h for h in recalled["entries"] if h["path"] == about)  # hits are brief
        assert [(s["symbol"], s["state"]) for s in hit["code_stale"]] == [
            ("config.py:parse_config", "changed")
        ]

    over_stdio(vault.root, env, errlog, body)
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
