"""Packaging tells the truth: each optional layer, used without its extra, says which extra to
install; the test extra pulls every optional layer; the package ships ``py.typed``."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from clawql_git.errors import ClawqlError, MissingExtra

from .conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
LAYERS = ("codegraph", "s3", "arweave")


def hide(monkeypatch: pytest.MonkeyPatch, *top_level: str) -> None:
    """Make third-party packages (and any submodule already imported) look not installed."""
    for name in [n for n in sys.modules if n.split(".")[0] in top_level] + list(top_level):
        monkeypatch.setitem(sys.modules, name, None)


def forget(monkeypatch: pytest.MonkeyPatch, prefix: str) -> None:
    """Drop our modules under ``prefix`` from the import cache (restored after the test)."""
    for name in [n for n in sys.modules if n.startswith(prefix)]:
        monkeypatch.delitem(sys.modules, name)


def assert_names_extra(caught: pytest.ExceptionInfo[MissingExtra], extra: str) -> None:
    assert isinstance(caught.value, ClawqlError) and caught.value.extra == extra
    assert f"pip install 'clawql-git[{extra}]'" in str(caught.value)


def test_s3_without_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from clawql_git.sync.s3 import S3Backend

    hide(monkeypatch, "boto3", "botocore")
    with pytest.raises(MissingExtra, match=r"S3/R2 sync .*module 'boto3'") as caught:
        S3Backend("bucket", endpoint="http://127.0.0.1:9")
    assert_names_extra(caught, "s3")


def test_arweave_without_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from clawql_git.sync.arweave_crypt import Sealer
    from clawql_git.sync.arweave_tx import verify_signature

    hide(monkeypatch, "cryptography")
    with pytest.raises(MissingExtra, match=r"Arweave sync .*module 'cryptography") as caught:
        Sealer(b"k" * 32)
    assert_names_extra(caught, "arweave")
    with pytest.raises(MissingExtra):
        verify_signature("AQAB", b"message", b"signature")


def test_codegraph_without_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from clawql_git.codegraph.files import load_extractors

    forget(monkeypatch, "clawql_git.codegraph")
    hide(monkeypatch, "tree_sitter")
    with pytest.raises(MissingExtra, match=r"the code graph .*module 'tree_sitter'") as caught:
        load_extractors()
    assert_names_extra(caught, "codegraph")


def test_codegraph_watch_without_watchfiles(monkeypatch: pytest.MonkeyPatch) -> None:
    from clawql_git.codegraph.watch import watch

    hide(monkeypatch, "watchfiles")
    with pytest.raises(MissingExtra, match="module 'watchfiles'") as caught:
        watch(None)  # type: ignore[arg-type]  # never reached: the import fails first
    assert_names_extra(caught, "codegraph")


def test_a_missing_module_of_ours_stays_a_bug() -> None:
    from clawql_git.errors import optional_layer

    with pytest.raises(ModuleNotFoundError), optional_layer("the code graph", "codegraph"):
        import clawql_git.no_such_module  # type: ignore[import-not-found]  # noqa: F401


def test_the_test_extra_pulls_every_optional_layer() -> None:
    name = PYPROJECT["project"]["name"]
    assert f"{name}[{','.join(LAYERS)}]" in EXTRAS["test"]
    assert set(EXTRAS) == {*LAYERS, "test"}


def test_no_dev_tool_is_a_runtime_dependency() -> None:
    runtime = " ".join(PYPROJECT["project"]["dependencies"])
    for tool in ("pytest", "ruff", "mypy", "hypothesis", "moto", "types-"):
        assert tool not in runtime


def test_the_package_ships_py_typed() -> None:
    assert (ROOT / "clawql_git" / "py.typed").is_file()
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "clawql_git" in wheel["packages"]  # hatch ships every file of the package dir


def test_imports_in_the_library_match_the_declared_dependencies() -> None:
    """dulwich and python-frontmatter were declared and never imported: keep it so."""
    declared = " ".join(PYPROJECT["project"]["dependencies"])
    for unused in ("dulwich", "python-frontmatter"):
        assert unused not in declared
    for path in Path(ROOT / "clawql_git").rglob("*.py"):
        text = path.read_text()
        assert "import dulwich" not in text and "import frontmatter" not in text, path
