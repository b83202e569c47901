"""Recall as one list across layers (issue 15 item 5): vault entries and the symbols and routes
of the code graph attached to the vault, each hit naming its source layer, in the seed's shape
(entries, index_summary, token_cost); archive, verdict and confidence weigh in; ``recent
--project`` filters the activity as well as the context entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.codegraph.graph import CodeGraph
from clawql_git.vault.code_changes import record_index_update

from .conftest import AGENT, git

KEYS_PY = '''"""Signing keys of the auth service."""


def rotate_signing_keys(days: int = 90) -> None:
    """Rotate the JWT signing keys and publish the new one."""


class TokenIssuer:
    """Issues access tokens."""

    def issue(self, subject: str) -> str:
        return subject
'''


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")


def code_repo(tmp_path: Path) -> Path:
    root = tmp_path / "service"
    (root / "auth").mkdir(parents=True)
    (root / "auth" / "keys.py").write_text(KEYS_PY)
    git(tmp_path, "init", "-q", str(root))
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "keys")
    return root


def new_vault(tmp_path: Path) -> Vault:
    return Vault.init(tmp_path / "vault", identity=AGENT)


def ingest_rotation(vault: Vault) -> str:
    return vault.ingest(
        type="decision",
        title="Rotate signing keys every 90 days",
        body="We rotate the JWT signing keys every 90 days and keep the old key for a day.",
    ).path


def attach(vault: Vault, repo: Path) -> None:
    graph = CodeGraph.open(repo)
    record_index_update(vault, graph.root, graph.index(), "test-agent")
    graph.close()


def test_one_list_holds_vault_entries_and_code_symbols(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    entry = ingest_rotation(vault)
    attach(vault, code_repo(tmp_path))
    result = Vault.open(vault.root).recall("rotate signing keys", limit=10)
    layers = {h.source_layer for h in result.hits}
    assert layers == {"vault", "code"}, [(h.path, h.source_layer) for h in result.hits]
    assert result.hits[0].path == entry  # the vault's own answer leads on equal evidence
    code = next(h for h in result.hits if h.source_layer == "code")
    assert code.title == "rotate_signing_keys" and code.type == "function"
    assert code.citation == {"repo": str(tmp_path / "service"), "file": "auth/keys.py", "line": 4}
    assert "code" in result.layers
    record = result.to_record()
    assert record["entries"] == record["hits"]  # one list, also under the seed's name
    assert {e["source_layer"] for e in record["entries"]} == {"vault", "code"}
    assert record["token_cost"] == sum(h.tokens for h in result.hits) == record["total_tokens"]
    assert record["index_summary"]["entries"] == 1
    assert record["index_summary"]["catalog_terms"]["rotate"] == 1
    event = vault.audit_events()[0]
    assert event.event == "MEMORY_RECALL"
    assert {h.path for h in event.hits} == {entry, "code:auth/keys.py:4:rotate_signing_keys"}


def test_code_layer_stays_out_of_filtered_recalls_and_without_a_graph(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    ingest_rotation(vault)
    assert {h.source_layer for h in vault.recall("rotate signing keys").hits} == {"vault"}
    attach(vault, code_repo(tmp_path))
    fresh = Vault.open(vault.root)
    only = fresh.recall("rotate signing keys", types=("decision",)).hits
    assert {h.source_layer for h in only} == {"vault"}
    assert {h.source_layer for h in fresh.recall("rotate signing keys", backend="fts").hits} == {
        "vault"
    }


def test_code_repo_setting_names_the_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = code_repo(tmp_path)
    graph = CodeGraph.open(repo)
    graph.index()
    graph.close()
    vault = new_vault(tmp_path)
    ingest_rotation(vault)
    monkeypatch.setenv("CLAWQL_CODE_REPO", str(repo))
    r = CliRunner().invoke(
        cli, ["memory", "--vault", str(vault.root), "recall", "token issuer", "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    titles = {(e["source_layer"], e["title"]) for e in data["entries"]}
    assert ("code", "TokenIssuer") in titles
    assert data["token_cost"] == data["total_tokens"] and "index_summary" in data


def test_a_broken_code_graph_is_skipped_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = new_vault(tmp_path)
    ingest_rotation(vault)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(tmp_path, "init", "-q", str(empty))  # a repository never indexed: no graph file
    monkeypatch.setenv("CLAWQL_CODE_REPO", str(empty))
    result = Vault.open(vault.root).recall("rotate signing keys")
    assert [h.source_layer for h in result.hits] == ["vault"]
    assert [s["layer"] for s in result.skipped_layers] == ["code"]
    assert any("code skipped" in w for w in result.warnings)


def twins(vault: Vault) -> list[str]:
    """Two entries that match 'queue retry backoff' equally."""
    paths = []
    for team in ("north", "south"):
        paths.append(
            vault.ingest(
                type="pattern",
                title=f"Queue retry backoff ({team})",
                body="Retry queue consumers with exponential backoff and jitter.",
            ).path
        )
    return paths


def test_archived_entry_ranks_below_a_current_one(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    body = "Retry queue consumers with exponential backoff and jitter."
    better = vault.ingest(type="pattern", title="Queue retry backoff", body=body).path
    current = vault.ingest(type="pattern", title="Consumer retries", body=body).path
    before = [h.path for h in vault.recall("queue retry backoff", use_cache=False).hits]
    assert before == [better, current]  # its title matches too: it leads while current
    archived = vault.archive(better).path
    after = vault.recall("queue retry backoff", use_cache=False).hits
    assert [h.path for h in after] == [current, archived]
    assert after[1].score < after[0].score


def test_rejected_verdict_and_low_confidence_rank_lower(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    north, south = twins(vault)
    vault.update(north, changes={"verdict": "rejected"})
    hits = vault.recall("queue retry backoff", use_cache=False).hits
    assert [h.path for h in hits][:2] == [south, north]
    vault.update(north, changes={"verdict": None, "confidence_score": 1.0})
    vault.update(south, changes={"confidence_score": 0.1})
    hits = vault.recall("queue retry backoff", use_cache=False).hits
    assert [h.path for h in hits][:2] == [north, south]


def test_recent_project_filters_the_activity_too(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    mine = vault.ingest(
        type="context",
        title="Ledger import in progress",
        body="Halfway.",
        meta={"project": "ledger"},
    ).path
    theirs = vault.ingest(
        type="decision", title="Billing uses cents", body="Integers.", meta={"project": "billing"}
    ).path
    loose = vault.ingest(type="decision", title="No project here", body="None.").path
    everything = {w["path"] for w in vault.recent(days=30)["worked_on"]}
    assert {mine, theirs, loose} <= everything
    summary = vault.recent(days=30, project="ledger")
    assert [w["path"] for w in summary["worked_on"]] == [mine]
    assert summary["events"] == 1
    r = CliRunner().invoke(
        cli,
        ["memory", "--vault", str(vault.root), "recent", "--project", "billing", "--json"],
    )
    assert r.exit_code == 0, r.output
    assert [w["path"] for w in json.loads(r.stdout)["worked_on"]] == [theirs]


def test_index_summary_from_the_catalog_survey(demo: Path) -> None:
    result = Vault.open(demo).recall("idempotency keys", identity=Identity(agent_id="t"))
    summary = result.index_summary
    assert summary["entries"] >= 30
    assert summary["categories"] and sum(summary["categories"].values()) == summary["entries"]
    assert summary["catalog_terms"]["idempotency"] >= 1
    assert sum(summary["hit_categories"].values()) == len(result.hits)
    cached = Vault.open(demo).recall("idempotency keys")
    assert cached.cache_hit and cached.index_summary == summary
