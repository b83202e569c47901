"""The README's test command needs nothing outside the clone: its dependencies are registry
requirements (no path, no URL), and what the tests read beyond the clone is optional
(skipped on a user's machine, a failure under CI). `.ci/run` runs it in such a clone."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests import conftest

from .conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
README = (ROOT / "README.md").read_text()
# How a test module could reach a path outside the clone.
OUTSIDE = re.compile(r"ROOT\.parent\b|__file__.*\.parents\[[2-9]\]|\.parent\.parent\.parent|/work/")


def readme_test_dependencies() -> list[str]:
    """Every requirement the README test command installs: the package's and its [test] extra
    (which names the other extras), and the build backend's."""
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    return [
        *PYPROJECT["build-system"]["requires"],
        *project["dependencies"],
        *(req for name in ("test", "codegraph", "s3", "arweave") for req in extras[name]),
    ]


@pytest.mark.parametrize("spec", readme_test_dependencies())
def test_each_dependency_is_a_registry_requirement(spec: str) -> None:
    requirement = Requirement(spec)
    assert requirement.url is None, f"{spec} installs from a URL or a path"
    assert "/" not in spec and "\\" not in spec, spec


def test_the_test_extra_names_every_optional_layer() -> None:
    test_extra = [Requirement(s) for s in PYPROJECT["project"]["optional-dependencies"]["test"]]
    own = [r for r in test_extra if r.name == PYPROJECT["project"]["name"]]
    assert [sorted(r.extras) for r in own] == [["arweave", "codegraph", "s3"]]


def test_the_readme_test_command_stays_inside_the_clone() -> None:
    command = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)[1]
    assert "pytest" in command
    assert ".." not in command and "/" not in command.replace(".venv/bin/", "")


def test_only_conftest_reaches_outside_the_clone() -> None:
    """One path outside the clone, the ADR corpus in ../shared, named once in conftest and
    read through ``adr_corpus()`` (skip, or fail under CI) or behind an ``is_dir()`` check."""
    hits = {
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "fixtures" not in path.parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if OUTSIDE.search(line) and not line.lstrip().startswith(("#", 'r"', "OUTSIDE"))
    }
    line = next(
        n
        for n, text in enumerate((ROOT / "tests/conftest.py").read_text().splitlines(), 1)
        if text.startswith("ADR = ")
    )
    assert hits == {f"tests/conftest.py:{line}"}
    users = {path.name for path in (ROOT / "tests").glob("*.py") if _uses_adr(path)}
    assert users == {"test_secrets.py"}  # behind ADR.is_dir(), the sample otherwise


def _uses_adr(path: Path) -> bool:
    """Does the module import conftest's ADR (the ../shared path) or read ``conftest.ADR``?"""
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").endswith("conftest")
            and any(alias.name == "ADR" for alias in node.names)
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "ADR":
            return True
    return False


def test_a_missing_corpus_skips_outside_ci_and_fails_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "ADR", tmp_path / "no-shared" / "corpora" / "adr")
    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match=r"no-shared/corpora/adr"):
        conftest.adr_corpus()
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match=r"^CI: the ADR corpus is not at .*no-shared"):
        conftest.adr_corpus()


def test_the_in_repo_adr_sample_is_what_its_manifest_lists() -> None:
    sample = conftest.ADR_SAMPLE
    rows = (sample / "MANIFEST.tsv").read_text().splitlines()[1:]
    listed = sorted(row.split("\t")[0] for row in rows)
    files = sorted(p.relative_to(sample).as_posix() for p in sample.rglob("*.md"))
    assert listed == files and len(files) == 20
    assert (sample / "LICENSE-JabRef__jabref").read_text().startswith("MIT License")
