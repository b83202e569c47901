"""The README stays true: CLI reference current, the two commands present, .ci/run uses them."""

from __future__ import annotations

import re

from clawql_git.cli.reference import render

from .conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_cli_reference_is_current() -> None:
    block = README.split("<!-- cli-reference:start -->\n", 1)[1].split("<!-- cli-reference:end")[0]
    assert block == render(), "run: python -m clawql_git.cli.reference and paste into README.md"


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    assert len(commands) == 2
    test_command = commands[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text()
