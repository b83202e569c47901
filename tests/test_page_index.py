"""PageIndex classification at ingest (#16.3): the classifier files each new entry in the
category tree, writes ``page_index_path`` / ``page_index_categories`` into its frontmatter in
the ingest's own commit, and ``recall --backend page_index`` walks from the query's class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput
from clawql_git.index.classifier import CategoryProfile
from clawql_git.vault.page_index import PROFILE_FILE, PageIndexer
from tests.conftest import git

SEED = [
    ("Use JWT access tokens", ["auth"], "Access tokens are signed JWTs checked at the gateway."),
    ("Refresh tokens expire after 30 days", ["auth"], "A refresh token logs the user in again."),
    ("Reject server side sessions", ["auth"], "Sessions would need sticky login state."),
    ("Postgres for the orders database", ["storage"], "Orders live in Postgres tables."),
    ("Partition the events table", ["storage"], "The events table is partitioned by month."),
    ("Nightly database backups", ["storage"], "Postgres backups run nightly to the bucket."),
]


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")


def _seed(vault: Vault) -> None:
    for title, tags, body in SEED:
        vault.ingest(type="decision", title=title, tags=tags, body=body)


def test_the_classifier_writes_the_frontmatter_in_the_ingests_own_commit(vault: Vault) -> None:
    _seed(vault)
    result = vault.ingest(
        type="decision",
        title="Rotate refresh tokens on every use",
        body="Each refresh issues a new refresh token; a reused token logs the user out.",
    )
    entry = vault.get(result.path).entry
    assert entry.meta["page_index_path"] == "decision/auth"  # no tag: found by its terms
    assert entry.meta["page_index_categories"][0] == "decision/auth"
    # in the same commit, the only one that touched the file (real git)
    shown = git(vault.root, "show", f"{result.sha}:{result.path}").stdout
    assert "page_index_path: decision/auth\n" in shown
    log = git(vault.root, "log", "--format=%H", "--", result.path).stdout.split()
    assert log == [result.sha]
    # edited in place: the keys the engine wrote first keep their bytes, the new ones follow
    assert entry.frontmatter.startswith("type: decision\ntitle: Rotate refresh tokens on every")
    assert entry.frontmatter.endswith("page_index_categories:\n- decision/auth\n")
    assert vault.category_tree()["decision/auth"] == 4  # the index files it where it says


def test_a_new_leaf_when_nothing_fits_and_a_given_path_is_kept(vault: Vault) -> None:
    _seed(vault)
    odd = vault.ingest(type="decision", title="Helm charts for Kubernetes", body="Charts.")
    meta = vault.get(odd.path).entry.meta
    assert meta["page_index_path"] in ("decision/helm", "decision/kubernet")
    assert meta["page_index_categories"][0] == meta["page_index_path"]
    given = vault.ingest(
        type="decision", title="Token audit", body="JWT login.", meta={"page_index_path": "x/y"}
    )
    kept = vault.get(given.path).entry.meta
    assert kept["page_index_path"] == "x/y" and "page_index_categories" not in kept
    other = vault.ingest(type="pattern", title="Token bucket rate limits", body="Tokens refill.")
    assert vault.get(other.path).entry.meta["page_index_path"].startswith("pattern/")


def test_the_profile_caught_up_equals_one_built_fresh(vault: Vault, tmp_path: Path) -> None:
    _seed(vault)
    (vault.root / "decisions" / "hand.md").write_text(
        "---\ntype: decision\ntitle: Hand made\ntags: [auth]\n---\nJWT login by hand.\n"
    )
    git(vault.root, "add", "decisions/hand.md")
    git(vault.root, "commit", "-qm", "hand-made commit")
    indexer = vault.page_index
    assert indexer is not None
    head = vault.store.head_commit()
    assert head is not None
    caught_up = indexer.profile_at(head.tree).to_json()
    fresh = PageIndexer(vault.store).profile_at(head.tree).to_json()
    assert caught_up == fresh and caught_up["size"]["decision/auth"] == 4
    vault.close()  # saved beside the index, stamped with its tree
    saved = json.loads((vault.store.state_dir / PROFILE_FILE).read_text())
    assert CategoryProfile.from_json(saved) is not None and saved["tree"] == str(head.tree.id)


def test_classification_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_PAGE_INDEX", "off")
    vault = Vault.init(tmp_path / "v")
    result = vault.ingest(type="decision", title="Plain", body="Nothing added.", tags=["a"])
    assert "page_index_path" not in vault.get(result.path).entry.meta


def test_the_page_index_backend_walks_from_the_querys_class(vault: Vault) -> None:
    _seed(vault)
    answer = vault.recall("refresh token login", backend="page_index")
    assert answer.page_index_class == "decision/auth"
    assert answer.hits and all(
        h.frontmatter["page_index_path"] == "decision/auth" for h in answer.hits
    )
    storage = vault.recall("postgres backups", backend="page_index")
    assert storage.page_index_class == "decision/storage"
    assert {h.path for h in storage.hits} <= {
        p
        for p, row in vault.recall_service().index.loaded().entries.items()
        if row["page_index_path"] == "decision/storage"
    }
    out = CliRunner().invoke(
        cli,
        [
            "memory",
            "--vault",
            str(vault.root),
            "recall",
            "refresh token",
            "--backend",
            "page_index",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["page_index_class"] == "decision/auth"


def test_a_configured_llm_classifies_and_fails_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.chat_server import chat_server

    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    _seed(Vault.init(tmp_path / "v"))  # filed offline
    monkeypatch.setenv("CLAWQL_PAGE_INDEX", "llm")
    reply = json.dumps({"path": "decision/Security", "categories": ["decision/auth"]})
    with chat_server(reply) as server:
        monkeypatch.setenv("CLAWQL_LLM_URL", server.url)
        vault = Vault.open(tmp_path / "v")
        result = vault.ingest(type="decision", title="Rotate refresh tokens", body="JWT login.")
        server.status = 500
        down = vault.ingest(
            type="decision", title="Postgres replica lag", body="Postgres tables and backups."
        )
    meta = vault.get(result.path).entry.meta
    assert meta["page_index_path"] == "decision/security"
    assert meta["page_index_categories"] == ["decision/security", "decision/auth"]
    assert vault.get(down.path).entry.meta["page_index_path"] == "decision/storage"  # offline
    asked = [r["body"]["messages"][1]["content"] for r in server.requests]
    assert len(asked) == 2 and "Title: Postgres replica lag" in asked[1]
    assert "decision/auth" in asked[0]  # the offline candidates are offered
    monkeypatch.delenv("CLAWQL_LLM_URL")
    with pytest.raises(InvalidInput, match="CLAWQL_PAGE_INDEX=llm needs CLAWQL_LLM_URL"):
        Vault.open(tmp_path / "v")
