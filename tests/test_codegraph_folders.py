"""explain-module on folders (issue #18): a package directory in every language answers with
its modules and their exports, the dependencies and dependants outside it, and its recent
commits; a file or a dotted module name answers as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.errors import NotFound

from .test_codegraph_mcp import session_run
from .test_codegraph_recency import commit_at
from .test_mcp import ok

FIRST = {
    # Python: a nested package
    "pkg/__init__.py": '"""The package."""\n',
    "pkg/util.py": "def helper():\n    return 1\n",
    "pkg/sub/__init__.py": '"""Sub: the nested package."""\nfrom pkg.sub.mod import run\n',
    "pkg/sub/mod.py": (
        "import os\nfrom pkg.util import helper\n\n\ndef run():\n    return helper()\n\n\n"
        "def _hidden():\n    pass\n"
    ),
    "main.py": "from pkg.sub.mod import run\n\nrun()\n",
    # JS: a folder with index.js, one without, and a third they use
    "packages/x/index.js": (
        "/** Package x: the front door. */\n\nconst { lib } = require('./lib');\n"
        "module.exports = { lib };\n"
    ),
    "packages/x/lib.js": (
        "const { y } = require('../y/y');\nconst _ = require('lodash');\n"
        "function lib() { return y(); }\nmodule.exports = { lib };\n"
    ),
    "packages/y/y.js": "function y() { return 1; }\nmodule.exports = { y };\n",
    "packages/z/a.js": "import { y } from '../y/y';\nexport function a() { return y(); }\n",
    "packages/z/b.js": "export function b() { return 2; }\n",
    "app.js": "const x = require('./packages/x');\nimport { a } from './packages/z/a';\n",
    # Go: a package directory
    "go.mod": "module example.com/m\n\ngo 1.22\n",
    "store/doc.go": "// Package store keeps users.\npackage store\n",
    "store/store.go": (
        'package store\n\nimport (\n\t"fmt"\n\n\t"example.com/m/util"\n)\n\n'
        "type Store struct{}\n\nfunc New() *Store { fmt.Println(util.Name()); return nil }\n"
    ),
    "store/user.go": "package store\n\ntype User struct{}\n",
    "util/util.go": 'package util\n\nfunc Name() string { return "n" }\n',
    "cmd/main.go": (
        'package main\n\nimport "example.com/m/store"\n\nfunc main() { store.New() }\n'
    ),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("folders") / "repo"
    root.mkdir()
    from .conftest import git

    git(root, "init", "-q")
    commit_at(root, "2026-03-01T12:00:00Z", "first", FIRST)
    commit_at(
        root,
        "2026-04-01T12:00:00Z",
        "touch b",
        {"packages/z/b.js": FIRST["packages/z/b.js"] + "// b\n"},
    )
    commit_at(
        root,
        "2026-05-01T12:00:00Z",
        "touch user",
        {"store/user.go": FIRST["store/user.go"] + "// u\n"},
    )
    CodeGraph.open(root).index()
    return root


@pytest.fixture
def graph(repo: Path) -> CodeGraph:
    return CodeGraph.open(repo, create=False)


def exports(answer_items: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(s["file"], s["qualname"]) for s in answer_items]


def test_a_python_package_directory(graph: CodeGraph) -> None:
    answer = graph.explain_module("pkg/sub")
    x = answer.extra
    assert x["kind"] == "folder" and x["path"] == "pkg/sub" and x["language"] == "python"
    assert x["entry"] == "pkg/sub/__init__.py" and x["summary"] == "Sub: the nested package."
    assert [m["path"] for m in x["modules"]] == ["pkg/sub/__init__.py", "pkg/sub/mod.py"]
    assert exports(answer.items) == [("pkg/sub/mod.py", "run")]
    assert x["dependencies"] == ["pkg/util.py"]  # pkg/sub/mod.py from inside is not listed
    assert x["external_dependencies"] == ["os"]
    assert x["dependants"] == ["main.py"] and x["dependants_total"] == 1
    assert [c["subject"] for c in x["recent_changes"]] == ["first"]
    assert x["change_score"]["commits"] == 1
    # the dotted name of the package is its __init__ module, as before
    assert graph.explain_module("pkg.sub").extra["path"] == "pkg/sub/__init__.py"
    assert graph.explain_module("pkg.sub").extra["kind"] == "module"


def test_a_js_folder_with_index(graph: CodeGraph) -> None:
    for spelling in ("packages/x", "./packages/x/", "packages/x/"):
        answer = graph.explain_module(spelling)
        x = answer.extra
        assert x["kind"] == "folder" and x["path"] == "packages/x"
        assert x["entry"] == "packages/x/index.js"
        assert x["summary"] == "Package x: the front door."
        assert [m["path"] for m in x["modules"]] == ["packages/x/index.js", "packages/x/lib.js"]
        assert x["dependencies"] == ["packages/y/y.js"]
        assert x["external_dependencies"] == ["lodash"]
        assert x["dependants"] == ["app.js"]


def test_a_js_folder_without_index(graph: CodeGraph) -> None:
    answer = graph.explain_module("packages/z")
    x = answer.extra
    assert x["kind"] == "folder" and x["entry"] is None
    assert exports(answer.items) == [("packages/z/a.js", "a"), ("packages/z/b.js", "b")]
    assert x["dependencies"] == ["packages/y/y.js"] and x["dependants"] == ["app.js"]
    assert [c["subject"] for c in x["recent_changes"]] == ["touch b", "first"]
    users = graph.explain_module("packages/y").extra["dependants"]
    assert users == ["packages/x/lib.js", "packages/z/a.js"]


def test_a_go_package_directory(graph: CodeGraph) -> None:
    answer = graph.explain_module("store")
    x = answer.extra
    assert x["kind"] == "folder" and x["language"] == "go" and x["entry"] == "store/doc.go"
    assert x["summary"] == "Package store keeps users."
    assert [m["path"] for m in x["modules"]] == ["store/doc.go", "store/store.go", "store/user.go"]
    assert exports(answer.items) == [
        ("store/store.go", "Store"),
        ("store/store.go", "New"),
        ("store/user.go", "User"),
    ]
    assert x["dependencies"] == ["util/util.go"] and x["external_dependencies"] == ["fmt"]
    assert x["dependants"] == ["cmd/main.go"]
    assert [c["subject"] for c in x["recent_changes"]] == ["touch user", "first"]


def test_a_file_still_answers_as_a_module(graph: CodeGraph) -> None:
    assert graph.explain_module("store/store.go").extra["kind"] == "module"
    with pytest.raises(NotFound, match="no indexed module 'packages/nope'"):
        graph.explain_module("packages/nope")
    with pytest.raises(NotFound):
        graph.explain_module("packag")  # a prefix of a folder's name is not the folder


def test_cli_explain_module_on_a_folder(repo: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["code", "explain-module", "packages/x", "-C", str(repo), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["modules_total"] == 2
    text = runner.invoke(cli, ["code", "explain-module", "store", "-C", str(repo)])
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines()[:3] == [
        "store (go): Package store keeps users.",
        "modules (3):",
        "  store/doc.go  0 exports  # Package store keeps users.",
    ]
    assert "imported by (1): cmd/main.go" in text.stdout


def test_cg_explain_module_on_a_folder(repo: Path, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        found = await ok(session, "cg_explain_module", module="packages/z")
        assert found["kind"] == "folder" and found["dependencies"] == ["packages/y/y.js"]
        assert [m["path"] for m in found["modules"]] == ["packages/z/a.js", "packages/z/b.js"]
        tree = await ok(session, "cg_type_hierarchy", name="Store", direction="up")
        assert tree["total"] == 0 and tree["targets"] == ["store/store.go:Store"]

    session_run(repo, tmp_path, body)
