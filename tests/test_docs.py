"""The README stays true: CLI reference current, the two commands present, .ci/run uses them."""

from __future__ import annotations

import re

from clawql_git.cli.reference import render

from .conftest import ROOT

README = (ROOT / "README.md").read_text()


CLI_DOC = ROOT / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    text = CLI_DOC.read_text()
    block = text.split("<!-- cli-reference:start -->\n", 1)[1].split("<!-- cli-reference:end")[0]
    assert block == render(), "run: python -m clawql_git.cli.reference > and paste into docs/cli.md"


def test_docs_links_resolve() -> None:
    """Every relative link of the README and docs/ names a file of the clone."""
    import re

    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        prose = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(), flags=re.S)  # not code
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    assert len(commands) == 2
    test_command = commands[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text()
