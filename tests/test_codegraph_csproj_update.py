"""Editing only a C# project file (``.csproj``, ``Directory.Build.props``) re-resolves the C#
files it governs: after each commit of a real git repository, the incremental update (``clawql
code index``, and ``CodeGraph.update`` as the watcher calls it) leaves the same call, import
and supertype edges as a fresh index of a clone of that commit; a change touching no project
file relinks only what it did before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.codegraph.watch import relevant

from .conftest import git

PLAIN = '<Project Sdk="Microsoft.NET.Sdk">\n</Project>\n'


def project(*references: str, usings: tuple[str, ...] = (), implicit: bool = False) -> str:
    """A ``.csproj`` referencing ``references`` (``..\\Core\\Core.csproj``), with ``<Using>``
    items and ImplicitUsings when asked."""
    lines = ['<Project Sdk="Microsoft.NET.Sdk">']
    if implicit:
        lines.append("  <PropertyGroup><ImplicitUsings>enable</ImplicitUsings></PropertyGroup>")
    lines += [f'  <ItemGroup><ProjectReference Include="{r}" /></ItemGroup>' for r in references]
    lines += [f'  <ItemGroup><Using Include="{u}" /></ItemGroup>' for u in usings]
    return "\n".join([*lines, "</Project>", ""])


LIB = "..\\Lib\\Lib.csproj"
CORE = "..\\Core\\Core.csproj"
MAILER = (
    "namespace Shop.Mail;\n"
    "public class Mailer { public void Send() { } }\n"
    "public static class Pings { public static void Ping(this IDisposable d) { } }\n"
)
# two projects declare the same ``Shop.Mail`` types; App sees one only through a reference
FILES = {
    "Core/Core.csproj": PLAIN,
    "Core/Mailer.cs": MAILER,
    "Legacy/Legacy.csproj": PLAIN,
    "Legacy/Mailer.cs": MAILER,
    "Lib/Lib.csproj": PLAIN,
    "Lib/Util.cs": (
        "namespace Shop.Lib;\n"
        "public class Util\n"
        "{\n"
        "    public void Help() { }\n"
        "    public void Walk(System.Collections.Generic.List<Util> all) { all.First().Help(); }\n"
        "}\n"
    ),
    "App/App.csproj": project(LIB),
    "App/Program.cs": (
        "using Shop.Mail;\n"
        "namespace Shop.App;\n"
        "public class Program\n"
        "{\n"
        "    public void Run(Mailer m, Shop.Lib.Util u, IDisposable d)\n"
        "    {\n"
        "        m.Send(); u.Help(); d.Ping();\n"
        "    }\n"
        "}\n"
    ),
    "App/Post.cs": (
        "namespace Shop.App;\npublic class Post\n{\n    public void Go(Mailer m) { m.Send(); }\n}\n"
    ),
    "README.md": "two projects\n",
}

Edits = dict[str, str | None]  # path -> new text (None: deleted)
# each case: the commits made one after the other, each editing project files only
CASES: dict[str, list[Edits]] = {
    "own reference added": [{"App/App.csproj": project(LIB, CORE)}],
    "referenced project's reference": [{"Lib/Lib.csproj": project(CORE)}],
    "using item": [{"App/App.csproj": project(LIB, CORE, usings=("Shop.Mail",))}],
    "directory props": [
        {"Directory.Build.props": project(implicit=True).replace(' Sdk="Microsoft.NET.Sdk"', "")},
        {"Directory.Build.props": None},
    ],
    "project deleted": [
        {"App/App.csproj": project(LIB, CORE)},
        {"Legacy/Legacy.csproj": None},  # Legacy's Mailer now seen from App as well
        {"Legacy/Legacy.csproj": PLAIN},
        {"App/App.csproj": None},  # App sees every file
    ],
}


def write(root: Path, edits: Edits) -> None:
    for path, text in edits.items():
        if text is None:
            (root / path).unlink()
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()


def edges(graph: CodeGraph) -> dict[str, set[tuple[object, ...]]]:
    """Every resolved-or-not link the graph holds, by table."""
    tables = {
        "calls": "SELECT path, caller, callee, line, target_path, target_qualname, confidence,"
        " resolution FROM calls",
        "deps": "SELECT path, target, module, line FROM deps",
        "supertypes": "SELECT * FROM supertypes",
    }
    return {name: {tuple(r) for r in graph.store.query(sql)} for name, sql in tables.items()}


def fresh_edges(root: Path, sha: str, tmp_path: Path) -> dict[str, set[tuple[object, ...]]]:
    """The edges of a full index of a new clone of commit ``sha``."""
    clone = tmp_path / f"clone-{sha[:10]}"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    git(clone, "checkout", "-q", sha)
    graph = CodeGraph.open(clone)
    graph.index(history=False)
    try:
        return edges(graph)
    finally:
        graph.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    git(tmp_path, "init", "-q", str(root))
    write(root, dict(FILES))
    commit(root, "two projects")
    return root


@pytest.fixture
def graph(repo: Path) -> Iterator[CodeGraph]:
    g = CodeGraph.open(repo)
    g.index(history=False)
    yield g
    g.close()


def index_with_cli(root: Path) -> None:
    done = CliRunner().invoke(cli, ["code", "index", str(root), "--no-history", "--json"])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("how", ["code index", "watcher update"])
def test_a_project_file_commit_relinks_as_a_full_index(
    repo: Path, graph: CodeGraph, tmp_path: Path, case: str, how: str
) -> None:
    for step, edits in enumerate(CASES[case]):
        before = edges(graph)
        write(repo, edits)
        sha = commit(repo, f"{case} {step}")
        if how == "code index":
            index_with_cli(repo)
        else:
            found = relevant(repo, [str(repo / p) for p in edits], graph.indexer.suffixes)
            assert found == sorted(edits)  # the watcher hands project files on
            graph.update(found)
        expected = fresh_edges(repo, sha, tmp_path)
        assert expected != before, f"step {step} of {case} changes no edge: not a test"
        assert edges(graph) == expected, f"step {step} of {case}"


def test_resolutions_the_cases_turn_on(repo: Path, graph: CodeGraph) -> None:
    """What the edits change, stated once: App's ``d.Ping()`` goes to Core's extension only
    while App's compilation holds Core (directly or through Lib), and is ambiguous when
    Legacy's copy is seen too (Legacy in no project); ``Post`` sees ``Mailer`` through the
    ``<Using>`` item; Lib's ``all.First()`` is System.Linq's under ImplicitUsings."""

    def target(path: str, callee: str) -> str:
        rows = graph.store.query(
            "SELECT target_path FROM calls WHERE path=? AND callee=?", (path, callee)
        )
        return str(rows[0][0])

    ping, send = ("App/Program.cs", "d.Ping"), ("App/Post.cs", "m.Send")
    help_ = ("Lib/Util.cs", "all.First().Help")
    assert (target(*ping), target(*send), target(*help_)) == ("", "", "")
    write(repo, {"App/App.csproj": project(LIB, CORE, usings=("Shop.Mail",))})
    graph.update(["App/App.csproj"])
    assert (target(*ping), target(*send)) == ("Core/Mailer.cs", "Core/Mailer.cs")
    write(repo, {"Legacy/Legacy.csproj": None})
    graph.update(["Legacy/Legacy.csproj"])
    assert target(*ping) == ""
    write(repo, {"Lib/Lib.csproj": project(implicit=True)})
    graph.update(["Lib/Lib.csproj"])
    assert target(*help_) == "Lib/Util.cs"


def test_a_change_without_project_files_relinks_what_it_did(repo: Path, graph: CodeGraph) -> None:
    """A source edit relinks the edited file and its importers, not every C# file; an index
    run with no source and no project file changed relinks nothing."""
    (repo / "Lib/Util.cs").write_text(FILES["Lib/Util.cs"].replace("Help() { }", "Help() {  }"))
    assert graph.update(["Lib/Util.cs"]).relinked == ("Lib/Util.cs",)
    program = FILES["App/Program.cs"].replace("u.Help();", "u.Help(); u.Help();")
    (repo / "App/Program.cs").write_text(program)
    assert graph.update(["App/Program.cs"]).relinked == ("App/Program.cs",)
    commit(repo, "edits")
    (repo / "README.md").write_text("still two projects\n")
    assert graph.index(history=False).relinked == ()


def test_a_project_edit_relinks_the_projects_it_governs(repo: Path, graph: CodeGraph) -> None:
    """An edit of Lib's ``.csproj`` relinks Lib's files and those of App, which references
    Lib (App's compilation is Lib's references too); Core's and Legacy's are left alone."""
    write(repo, {"Lib/Lib.csproj": project(CORE)})
    report = graph.update(["Lib/Lib.csproj"])
    assert report.relinked == ("App/Post.cs", "App/Program.cs", "Lib/Util.cs")
    assert report.changed == ("Lib/Lib.csproj",)
    write(repo, {"Lib/Lib.csproj": project(CORE)})
    assert graph.update(["Lib/Lib.csproj"]).changed == ()  # same text: nothing to do
