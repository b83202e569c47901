"""Change recency (issue #18): ``CodeGraph.changes``, ``clawql code changes`` and ``cg_changes``
over a real git repository whose commits carry the dates stated here, with the exact order
of the definitions they changed."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.errors import InvalidInput, NotFound

from .conftest import git
from .test_codegraph_mcp import session_run
from .test_mcp import ok

A1 = "def alpha():\n    return 1\n\n\nclass Gamma:\n    def m(self):\n        return 1\n"
A2 = A1.replace("return 1\n\n\nclass", "return 2\n\n\nclass")
A3 = A2.replace("def alpha():", "def alpha(x):") + "\n\ndef delta():\n    pass\n"
A5 = A3.replace("def delta():\n    pass\n", "").rstrip() + "\n"
A5 = A5.replace("        return 1", "        return 5")
B1 = "def beta():\n    return 1\n"
B4 = "def beta():\n    return 4\n"


def commit_at(root: Path, when: str, message: str, files: dict[str, str]) -> None:
    """Write ``files`` and commit them with author and committer date ``when``."""
    for path, body in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body)
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", message],
        cwd=root,
        check=True,
        env=env,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recency") / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit_at(root, "2026-01-01T12:00:00Z", "one", {"app/a.py": A1, "lib/b.py": B1})
    commit_at(root, "2026-02-01T12:00:00Z", "alpha returns 2", {"app/a.py": A2})
    commit_at(root, "2026-03-01T12:00:00Z", "alpha takes x; delta", {"app/a.py": A3})
    commit_at(root, "2026-04-01T12:00:00Z", "beta 4", {"lib/b.py": B4, "README.md": "x\n"})
    commit_at(root, "2026-05-01T12:00:00Z", "m returns 5; delta goes", {"app/a.py": A5})
    CodeGraph.open(root).index()
    return root


def names(items: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(i["file"], i["qualname"], i["changes"], i["last_date"][:10]) for i in items]  # type: ignore[index]


def test_most_recent_first(repo: Path) -> None:
    graph = CodeGraph.open(repo, create=False)
    from datetime import UTC, datetime

    answer = graph.changes(datetime(2026, 1, 15, tzinfo=UTC))
    assert answer.extra["commits"] == 4
    assert names(answer.items) == [
        ("app/a.py", "delta", 2, "2026-05-01"),
        ("app/a.py", "Gamma", 1, "2026-05-01"),
        ("app/a.py", "Gamma.m", 1, "2026-05-01"),
        ("lib/b.py", "beta", 1, "2026-04-01"),
        ("app/a.py", "alpha", 2, "2026-03-01"),
    ]
    delta, alpha = answer.items[0], answer.items[4]
    assert delta["last_change"] == "removed" and delta["exists"] is False
    assert delta["by_change"] == {"added": 1, "removed": 1}
    assert alpha["last_change"] == "signature" and alpha["last_subject"] == "alpha takes x; delta"
    assert alpha["by_change"] == {"body": 1, "signature": 1} and alpha["exists"] is True
    head = git(repo, "rev-parse", "HEAD~2").stdout.strip()
    assert alpha["last_commit"] == head


def test_most_often_first_and_paths(repo: Path) -> None:
    from datetime import UTC, datetime

    graph = CodeGraph.open(repo, create=False)
    since = datetime(2026, 1, 15, tzinfo=UTC)
    often = graph.changes(since, by="count")
    assert [i["qualname"] for i in often.items] == ["delta", "alpha", "Gamma", "Gamma.m", "beta"]
    assert [i["qualname"] for i in graph.changes(since, "app").items] == [
        "delta",
        "Gamma",
        "Gamma.m",
        "alpha",
    ]
    assert [i["qualname"] for i in graph.changes(since, "lib/b.py").items] == ["beta"]
    everything = graph.changes(datetime(2025, 1, 1, tzinfo=UTC), by="count")
    assert everything.extra["commits"] == 5
    assert names(everything.items)[:2] == [
        ("app/a.py", "alpha", 3, "2026-03-01"),
        ("app/a.py", "Gamma", 2, "2026-05-01"),
    ]
    bounded = graph.changes(since, limit=2)
    assert bounded.total == 5 and bounded.truncated and len(bounded.items) == 2
    with pytest.raises(NotFound, match="no indexed module 'nowhere'"):
        graph.changes(since, "nowhere")
    with pytest.raises(InvalidInput, match="--by"):
        graph.changes(since, by="size")


def test_default_window_is_thirty_days(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 90 * 86400))
    new = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 2 * 86400))
    commit_at(root, old, "old", {"lib/b.py": B1, "app/a.py": A1})
    commit_at(root, new, "new", {"lib/b.py": B4})
    graph = CodeGraph.open(root)
    graph.index()
    assert [i["qualname"] for i in graph.changes().items] == ["beta"]
    done = CliRunner().invoke(cli, ["code", "changes", "-C", str(root), "--json"])
    assert done.exit_code == 0, done.output
    assert [i["qualname"] for i in json.loads(done.output)["items"]] == ["beta"]


def test_cli_changes(repo: Path) -> None:
    runner = CliRunner()
    args = ["code", "changes", "-C", str(repo), "--since", "2026-01-15"]
    done = runner.invoke(cli, [*args, "--json", "--by", "count", "app"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.output)
    assert [i["qualname"] for i in record["items"]] == ["delta", "alpha", "Gamma", "Gamma.m"]
    assert record["path"] == "app" and record["by"] == "count"
    text = runner.invoke(cli, [*args, "--limit", "1"])
    assert text.stdout.splitlines() == [
        "app/a.py:delta  2x, last 2026-05-01T12:00:00+00:00 "
        f"{git(repo, 'rev-parse', 'HEAD').stdout[:10]} (removed) m returns 5; delta goes"
    ]


@pytest.mark.parametrize("since", ["yesterdayish", "99999999999d", "-3d"])
def test_a_bad_since_is_a_usage_error(repo: Path, since: str) -> None:
    done = CliRunner().invoke(cli, ["code", "changes", "-C", str(repo), "--since", since])
    assert done.exit_code == 2
    assert "--since" in done.output and since in done.output


def test_cli_unknown_path_is_not_found(repo: Path) -> None:
    done = CliRunner().invoke(cli, ["code", "changes", "-C", str(repo), "nowhere/x.py"])
    assert done.exit_code == 3 and "no indexed module 'nowhere/x.py'" in done.output


def test_cg_changes_over_mcp(repo: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert tools["cg_changes"].annotations.read_only_hint is True  # type: ignore[union-attr]
        found = await ok(session, "cg_changes", since="2026-01-15", by="count", path="app")
        assert [i["qualname"] for i in found["items"]] == ["delta", "alpha", "Gamma", "Gamma.m"]
        assert found["items"][1]["changes"] == 2 and found["items"][1]["last_date"].startswith(
            "2026-03-01"
        )
        bad = await session.call_tool("cg_changes", {"since": "whenever"})
        assert bad.is_error
        block = bad.content[0]
        assert block.type == "text" and "since: not a time: 'whenever'" in block.text

    session_run(repo, tmp_path, body)
