"""The team's shared index on object storage (moto's real S3 server over HTTP): published with
its vectors, read back by the hybrid reader, and full text only (with a warning that says why)
when the reader cannot use the vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import SyncError, VaultStateError
from clawql_git.index.embedders import HashEmbedder
from clawql_git.sync.shared_index import POINTER, SharedIndex, publish

from .conftest import AGENT
from .s3server import S3Server, s3_server  # noqa: F401

BUCKET = "team-index"
URI = f"s3://{BUCKET}/payments"

# The target shares no word with the question below: only the vector layers can find it.
TARGET = "Card charges: retry schedule"
NOTES = {
    TARGET: "Failed card charges are retried three times with exponential backoff, then the "
    "invoice is marked unpaid and the customer is emailed.",
    "Ledger rounding": "Amounts are stored as integer minor units; rounding happens once, at "
    "display time, with banker's rounding.",
    "Webhook outbox": "Outgoing webhooks are written to a Postgres outbox table in the same "
    "transaction and delivered by a dedicated worker.",
    "Deploy freeze": "No production deploys on Fridays after noon; hotfixes need two approvals.",
    "Logging fields": "Every log line carries request_id, tenant and route as structured fields.",
}
QUESTION = "how frequently do we attempt again after a declined purchase?"


@pytest.fixture
def remote(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:  # noqa: F811
    s3_server.client().create_bucket(Bucket=BUCKET)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_server.endpoint)
    return s3_server


def _vault(root: Path, model: str, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", model)
    vault = Vault.init(root, identity=AGENT)
    for title, body in NOTES.items():
        vault.ingest(type="decision", title=title, body=body, identity=AGENT)
    return vault


@pytest.fixture
def published(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> tuple[Vault, str]:
    """A vault on the packaged model (the default), published; the reader's env is reset."""
    vault = _vault(tmp_path / "vault", "", monkeypatch)
    done = publish(vault, URI)
    monkeypatch.delenv("CLAWQL_EMBEDDING_MODEL")
    return vault, done.commit


def _embedder(vault: Vault) -> object:
    return vault.recall_service().index.embedder


def test_publish_carries_the_vectors_and_the_reader_uses_them(
    published: tuple[Vault, str],
) -> None:
    vault, commit = published
    index = SharedIndex(URI, embedder=_embedder(vault))  # type: ignore[arg-type]
    assert index.published.vectors is True
    assert index.published.commit == commit
    answer = index.recall(QUESTION, limit=3)
    assert answer.layers == ("fts", "catalog", "vector", "entry_vector")
    assert answer.warnings == ()
    assert answer.hits[0].title == TARGET
    assert {"vector", "entry_vector"} <= set(answer.hits[0].layers)
    assert answer.hits[0].worm_ref.startswith("git:")


def test_full_text_alone_misses_what_the_vectors_find(published: tuple[Vault, str]) -> None:
    """The same question without vectors: the target is not found (the layers matter)."""
    answer = SharedIndex(URI, embedder=None).recall(QUESTION, limit=3)
    assert answer.layers == ("fts", "catalog")
    assert TARGET not in [h.title for h in answer.hits]
    assert "no embedding model here" in answer.warnings[0]


def test_a_reader_with_another_model_says_so_and_answers_from_full_text(
    published: tuple[Vault, str],
) -> None:
    answer = SharedIndex(URI, embedder=HashEmbedder()).recall("Postgres outbox", limit=3)
    assert answer.layers == ("fts", "catalog")
    assert "minilm" in answer.warnings[0] and "hash" in answer.warnings[0]
    assert answer.hits[0].title == "Webhook outbox"


def test_cli_recall_index_is_hybrid_on_the_default_model(published: tuple[Vault, str]) -> None:
    result = CliRunner().invoke(
        cli, ["memory", "recall", QUESTION, "--index", URI, "--limit", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["index"]["vectors"] is True
    assert data["layers"] == ["fts", "catalog", "vector", "entry_vector"]
    assert data["hits"][0]["title"] == TARGET
    text = CliRunner().invoke(cli, ["memory", "recall", QUESTION, "--index", URI, "--limit", "3"])
    assert text.exit_code == 0, text.output
    assert "from fts, catalog, vector, entry_vector" in text.output
    fts = CliRunner().invoke(
        cli, ["memory", "recall", "outbox", "--index", URI, "--backend", "fts", "--json"]
    )
    assert json.loads(fts.output)["layers"] == ["fts", "catalog"]


def test_cli_publish_then_recall(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "v", "hash", monkeypatch)
    vault.close()
    runner = CliRunner()
    out = runner.invoke(
        cli, ["memory", "--vault", str(tmp_path / "v"), "index", "publish", URI, "--json"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["vectors"] is True
    # the reader's env names the same model: the vectors answer
    got = runner.invoke(cli, ["memory", "recall", "outbox", "--index", URI, "--json"])
    assert got.exit_code == 0, got.output
    assert "vector" in json.loads(got.output)["layers"]


def test_an_index_published_without_vectors_is_read_as_full_text(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "v", "none", monkeypatch)
    assert publish(vault, URI).vectors is False
    answer = SharedIndex(URI, embedder=HashEmbedder()).recall("outbox", limit=3)
    assert answer.layers == ("fts", "catalog")
    assert "published without vectors" in answer.warnings[0]


def test_a_pointer_from_before_vectors_reads_as_full_text(
    published: tuple[Vault, str], remote: S3Server
) -> None:
    client = remote.client()
    key = "payments/" + POINTER
    data = json.loads(client.get_object(Bucket=BUCKET, Key=key)["Body"].read())
    del data["vectors"]
    client.put_object(Bucket=BUCKET, Key=key, Body=json.dumps(data).encode())
    vault, _ = published
    index = SharedIndex(URI, embedder=_embedder(vault))  # type: ignore[arg-type]
    assert index.published.vectors is False
    assert index.recall("outbox").layers == ("fts", "catalog")


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"uri": "s3://x/y"}'])
def test_a_broken_pointer_is_a_sync_error(
    published: tuple[Vault, str], remote: S3Server, body: bytes
) -> None:
    remote.client().put_object(Bucket=BUCKET, Key="payments/" + POINTER, Body=body)
    with pytest.raises(SyncError, match="pointer"):
        SharedIndex(URI)


def test_publish_refuses_a_branch_other_than_main(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "v", "none", monkeypatch)
    from .conftest import git

    git(vault.root, "checkout", "-q", "-b", "topic")
    with pytest.raises(VaultStateError, match="main"):
        publish(vault, URI)
    assert "Contents" not in remote.client().list_objects_v2(Bucket=BUCKET)
