"""The code graph on a small Python repository with the expected symbols, edges and
dependencies stated here: indexing (gitignore, vendor/, nested repositories, content-hash
skip), the queries, resolution rules, and the ``clawql code`` CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.errors import NotFound

from .conftest import git

FIXTURES = Path(__file__).parent / "fixtures" / "code"


def make_repo(tmp_path: Path, fixture: str = "python_app") -> Path:
    """A git work tree holding the fixture, committed, plus files that must be left out."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    git(tmp_path, "init", "-q", str(root))
    (root / ".gitignore").write_text("ignored.py\n")
    (root / "ignored.py").write_text("def ignored():\n    pass\n")
    for folder in ("vendor/lib", "node_modules/pkg"):
        (root / folder).mkdir(parents=True)
        (root / folder / "x.py").write_text("def vendored():\n    pass\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "first")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


@pytest.fixture
def graph(repo: Path) -> CodeGraph:
    g = CodeGraph.open(repo)
    g.index()
    return g


def targets(graph: CodeGraph, name: str, file: str | None = None) -> set[tuple[str, str, str]]:
    """(calling file, caller, resolution) of every resolved call site of ``name``."""
    answer = graph.callers(name, file, unresolved=False)
    return {(c["file"], c["caller"], c["resolution"]) for c in answer.items}


def edge(graph: CodeGraph, file: str, caller: str, callee: str) -> dict[str, object]:
    rows = [c for c in graph.callees(caller, file).items if c["callee"] == callee]
    assert rows, f"no call {callee} in {file}:{caller}"
    return rows[0]


def test_index_location_and_files(repo: Path, graph: CodeGraph) -> None:
    assert graph.db_path == repo / ".git" / "clawql" / "codegraph" / "graph.sqlite"
    files = {r[0] for r in graph.store.query("SELECT path FROM files")}
    assert files == {
        "app/__init__.py",
        "app/api.py",
        "app/core.py",
        "app/db.py",
        "app/util.py",
        "main.py",
    }
    assert git(repo, "status", "--porcelain").stdout == ""  # nothing written in the work tree


def test_symbols_with_signature_docstring_and_lines(graph: CodeGraph) -> None:
    answer = graph.find_symbol("Engine")
    assert answer.extra["match"] == "exact" and answer.total == 1
    engine = answer.items[0]
    assert engine["file"] == "app/core.py" and engine["kind"] == "class"
    assert engine["docstring"] == "Runs jobs." and engine["line"] == 12
    run = graph.find_symbol("Engine.run").items[0]
    assert run["kind"] == "method" and run["signature"] == "def run(self) -> None"
    assert run["line"] == 19 and run["end_line"] == 24


def test_fuzzy_find_symbol(graph: CodeGraph) -> None:
    answer = graph.find_symbol("helpr")
    assert answer.extra["match"] == "fuzzy"
    assert "helper" in {s["name"] for s in answer.items}
    assert graph.find_symbol("Eng").items[0]["name"] == "Engine"


def test_resolution_through_types_and_reexports(graph: CodeGraph) -> None:
    # self.db is annotated, self.cache assigned from a constructor: both typed
    # and conn in main.py from connect()'s return annotation
    assert targets(graph, "Database.query") == {
        ("app/core.py", "Engine.run", "inferred"),
        ("main.py", "main", "inferred"),
    }
    assert len(graph.callers("Database.query", unresolved=False).items) == 3
    # module attribute through `from . import util`; re-export through app/__init__.py
    assert ("app/core.py", "Engine.run", "exact") in targets(graph, "helper")
    assert targets(graph, "Engine.run") == {
        ("app/core.py", "make", "inferred"),
        ("main.py", "main", "inferred"),
    }
    assert edge(graph, "app/core.py", "Engine.run", "self._local")["target"] == (
        "app/core.py:Engine._local"
    )
    # `import app` then app.core.make(); `import app.core as core_mod`
    assert targets(graph, "make") == {
        ("main.py", "main", "exact"),
        ("app/api.py", "handler", "exact"),
    }


def test_calls_in_defaults_and_decorators(graph: CodeGraph) -> None:
    call = edge(graph, "app/api.py", "handler", "gdb")
    assert call["context"] == "default" and call["target"] == "app/util.py:get_db"
    deco = edge(graph, "app/api.py", "handler", "Depends")
    assert deco["resolution"] == "external" and deco["target"] is None


def test_external_calls_never_resolve_into_the_repository(graph: CodeGraph) -> None:
    # session is a requests.Session: its .query() is not main.query
    call = edge(graph, "main.py", "main", "session.query")
    assert call["resolution"] == "external" and call["target"] is None
    assert edge(graph, "app/core.py", "Engine.run", "json.dumps")["resolution"] == "external"
    assert targets(graph, "query", "main.py") == {("main.py", "main", "exact")}


def test_shadowed_names_stay_unresolved(graph: CodeGraph) -> None:
    call = edge(graph, "app/api.py", "shadow", "helper")
    assert call["resolution"] == "unresolved" and call["confidence"] == 0.0
    unresolved = [c for c in graph.callers("helper").items if c["resolution"] == "unresolved"]
    assert [(c["file"], c["caller"]) for c in unresolved] == [("app/api.py", "shadow")]
    assert edge(graph, "app/api.py", "outer", "inner")["target"] == "app/api.py:outer.inner"


def test_explain_module(graph: CodeGraph) -> None:
    answer = graph.explain_module("app.core")
    x = answer.extra
    assert x["path"] == "app/core.py"
    assert x["summary"] == "Core engine: runs jobs against the database."
    assert {s["name"] for s in answer.items} == {"Engine", "make"}
    assert x["dependencies"] == ["app/db.py", "app/util.py"]
    assert x["external_dependencies"] == ["json"]
    assert x["dependants"] == ["app/__init__.py", "app/api.py"]
    assert [c["subject"] for c in x["recent_changes"]] == ["first"]
    assert x["change_score"]["commits"] == 1


def test_dependency_path(graph: CodeGraph) -> None:
    answer = graph.dependency_path("main.py", "app.util")  # dotted names work too
    assert [i["file"] for i in answer.items] == ["main.py", "app/__init__.py", "app/util.py"]
    answer = graph.dependency_path("app/api.py", "app/db.py")
    assert [i["file"] for i in answer.items] == ["app/api.py", "app/core.py", "app/db.py"]
    assert answer.extra["hops"] == 2
    assert graph.dependency_path("app/db.py", "main.py").extra["found"] is False
    with pytest.raises(NotFound):
        graph.dependency_path("main.py", "nowhere.py")


def test_bounded_answers_say_their_total(graph: CodeGraph) -> None:
    answer = graph.callees("Engine.run", limit=2)
    assert answer.total == 5 and len(answer.items) == 2 and answer.truncated
    small = graph.callees("Engine.run", max_chars=50)
    assert len(small.items) == 1 and small.truncated
    assert not graph.callees("Engine.run").truncated


def test_reindex_skips_unchanged_and_sees_edits(repo: Path, graph: CodeGraph) -> None:
    again = CodeGraph.open(repo).index()
    assert again.parsed == 0 and again.unchanged == 6
    (repo / "app" / "util.py").write_text("def helper2() -> int:\n    return 2\n")
    third = CodeGraph.open(repo)
    report = third.index()
    assert report.parsed == 1 and report.changed == ("app/util.py",)
    assert third.find_symbol("helper2").extra["match"] == "exact"
    # the edge from core.py into util.helper is re-resolved: helper is gone
    call = edge(third, "app/core.py", "Engine.run", "util.helper")
    assert call["resolution"] == "unresolved"


def test_nested_repository_and_non_git_directory(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    nested = root / "plugins" / "extra"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / "plugin.py").write_text("def plug():\n    pass\n")
    g = CodeGraph.open(root)
    g.index()
    rows = g.store.query("SELECT module FROM files WHERE path='plugins/extra/plugin.py'")
    assert [r[0] for r in rows] == ["plugins/extra"]
    plain = tmp_path / "plain"
    shutil.copytree(FIXTURES / "python_app", plain)
    p = CodeGraph.open(plain)
    p.index()
    assert p.db_path == plain / ".clawql-codegraph" / "graph.sqlite"
    assert p.find_symbol("Engine").total == 1


def test_query_before_index_is_a_clear_error(repo: Path) -> None:
    with pytest.raises(NotFound, match="clawql code index"):
        CodeGraph.open(repo).find_symbol("Engine")


def test_cli(repo: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["code", "index", str(repo), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["files"] == 6
    done = runner.invoke(
        cli, ["code", "callers", "Engine.run", "-C", str(repo), "--json", "--limit", "1"]
    )
    record = json.loads(done.output)
    assert record["total"] == 2 and record["truncated"] and len(record["items"]) == 1
    done = runner.invoke(cli, ["code", "find-symbol", "make", "-C", str(repo)])
    assert done.exit_code == 0 and "app/core.py:30" in done.output
    assert "fuzzy" not in done.output  # an exact match is not labelled
    done = runner.invoke(cli, ["code", "find-symbol", "helpr", "-C", str(repo)])
    assert done.exit_code == 0 and "helper" in done.output
    assert "fuzzy" in done.output.splitlines()[0]  # no definition is named "helpr"
    done = runner.invoke(cli, ["code", "explain-module", "nope", "-C", str(repo), "--json"])
    assert done.exit_code == 3 and "no indexed module" in done.output
    done = runner.invoke(
        cli, ["code", "dependency-path", "app/api.py", "app/db.py", "-C", str(repo)]
    )
    assert done.output.strip() == "app/api.py -> app/core.py -> app/db.py"
    done = runner.invoke(cli, ["code", "status", "-C", str(repo), "--json"])
    assert json.loads(done.output)["languages"] == {"python": 6}


def test_a_graph_of_another_schema_or_extractor_version_is_rebuilt(repo: Path) -> None:
    first = CodeGraph.open(repo)
    first.index()
    with first.store.transaction() as db:
        db.execute("UPDATE meta SET value='0' WHERE key='schema'")
    first.close()
    again = CodeGraph.open(repo)
    assert again.store.hashes() == {}  # derived data of another schema is dropped
    assert again.index().parsed == 6
    with again.store.transaction() as db:
        db.execute("UPDATE meta SET value='python:0' WHERE key='extractors'")
    again.close()
    assert CodeGraph.open(repo).index().parsed == 6  # facts of another extractor: re-parsed


def test_index_reports_progress(repo: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    CodeGraph.open(repo).index(lambda done, total, item: seen.append((done, total, item)))
    assert seen[0] == (0, 6, "app/__init__.py") and seen[-1] == (6, 6, "")
    assert [s[0] for s in seen] == list(range(7))


def test_a_query_on_a_folder_never_indexed_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text("def make():\n    return 1\n")
    done = CliRunner().invoke(cli, ["code", "find-symbol", "make", "-C", str(folder)])
    assert done.exit_code == 3 and "no code graph yet" in done.output
    assert sorted(p.name for p in folder.iterdir()) == ["a.py"]  # no graph file left behind
    with pytest.raises(NotFound):
        CodeGraph.open(folder, create=False)
