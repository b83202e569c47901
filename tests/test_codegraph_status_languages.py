"""``clawql code status`` names every language indexed and, so that nothing is skipped
silently, the source files no extractor reads, by language (issue #18)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from tests.codegraph_facts import build

FILES = {
    "app/models/user.rb": "class User\nend\n",
    "src/Main.kt": "package app\n\nfun main() {}\n",
    "Sources/App/App.swift": "struct App {}\n",
    "scripts/init.lua": "local M = {}\nreturn M\n",
    "lib/app.dart": "void main() {}\n",
    "src/routes/+page.svelte": "<h1>Hi</h1>\n",
    "Build.hs": "main = pure ()\n",
    "src/Main.hs": "module Main where\n",
    "lib/app.ex": "defmodule App do\nend\n",
    "deploy.sh": "echo hi\n",
    "README.md": "# not source\n",
    "vendor/Lib.hs": "module Lib where\n",  # vendored trees are not counted either
}


def test_code_status_lists_languages_indexed_and_files_skipped_by_language(
    tmp_path: Path,
) -> None:
    build(tmp_path, FILES)
    runner = CliRunner()
    done = runner.invoke(cli, ["code", "status", "-C", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.output
    info = json.loads(done.output)
    assert info["languages"] == {
        "dart": 1,
        "elixir": 1,  # read since lang_elixir: no longer among the skipped
        "kotlin": 1,
        "lua": 1,
        "ruby": 1,
        "svelte": 1,
        "swift": 1,
    }
    assert info["skipped"] == {"haskell": 2, "shell": 1}
    lines = runner.invoke(cli, ["code", "status", "-C", str(tmp_path)]).output.splitlines()
    assert "languages: dart 1, elixir 1, kotlin 1, lua 1, ruby 1, svelte 1, swift 1" in lines
    assert "skipped: haskell 2, shell 1" in lines


def test_skipped_counts_follow_the_work_tree_and_git_ignores(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("gen/\n")
    graph = build(tmp_path, {"a.rb": "x = 1\n", "gen/X.hs": "", "b.erl": "", "c.exs": ""})
    assert graph.status()["skipped"] == {"erlang": 1}  # gen/ is ignored by git; .exs is read
    (tmp_path / "b.erl").unlink()
    graph.index(history=False)
    assert CodeGraph.open(tmp_path).status()["skipped"] == {}


def test_bundled_and_minified_files_are_left_out_and_listed_with_a_reason(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitattributes").write_text("third_party/** linguist-vendored\n")
    minified = "function a(b){return b}" * 400 + "\n"  # 9,200 characters on one line
    graph = build(
        tmp_path,
        {
            "src/app.js": "export function start() {\n  return 1;\n}\n",
            "web/wwwroot/lib/jquery/dist/jquery.js": "function jQuery() {}\n",
            "web/wwwroot/js/site.js": "function site() {}\n",
            "static/vendor.min.js": "function m(){}\n",
            "static/bundle.js": minified,
            "third_party/lib.py": "def helper():\n    pass\n",
            "src/Data.java": 'class Data {\n  static final String S = "' + "x" * 9000 + '";\n}\n',
        },
    )
    info = graph.status()
    assert info["vendored"] == {
        "static/bundle.js": "minified (long lines)",
        "static/vendor.min.js": "minified (.min. name)",
        "third_party/lib.py": "linguist-vendored",
        "web/wwwroot/lib/jquery/dist/jquery.js": "vendored (wwwroot/lib/)",
    }
    assert sorted(graph.store.hashes()) == ["src/Data.java", "src/app.js", "web/wwwroot/js/site.js"]
    assert [s["file"] for s in graph.symbols("m") + graph.symbols("jQuery")] == []
    runner = CliRunner()
    lines = runner.invoke(cli, ["code", "status", "-C", str(tmp_path)]).output.splitlines()
    assert (
        "vendored: " + ", ".join(f"{p} {r}" for p, r in sorted(info["vendored"].items())) in lines
    )
    # a watcher's update leaves them out too
    (tmp_path / "static/vendor.min.js").write_text("function m2(){}\n")
    graph.update(["static/vendor.min.js"])
    assert graph.symbols("m2") == []
