"""Onyx beside the vault (issue 16 item 4), against a local server implementing the part of
Onyx's documented API clawql calls (tests/onyx_server.py): the client, ``clawql knowledge
search|index``, the merge into recall's one list, the audit events, and failing open when
Onyx is stopped."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput
from clawql_git.onyx import OnyxClient, OnyxQuery, OnyxUnavailable

from .conftest import AGENT, ROOT, SAMPLE
from .onyx_server import ADMIN_KEY, USER_KEY, OnyxServer, onyx  # noqa: F401

ROTATION = "https://wiki.example.com/ops/key-rotation"


@pytest.fixture
def configured(onyx: OnyxServer, monkeypatch: pytest.MonkeyPatch) -> OnyxServer:  # noqa: F811
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    monkeypatch.setenv("CLAWQL_ONYX_URL", onyx.url)
    monkeypatch.setenv("CLAWQL_ONYX_API_KEY", USER_KEY)
    return onyx


def new_vault(tmp_path: Path) -> Vault:
    vault = Vault.init(tmp_path / "vault", identity=AGENT)
    vault.ingest(
        type="decision",
        title="Rotate signing keys every 90 days",
        body="We rotate the JWT signing keys every 90 days.",
    )
    return vault


def test_client_searches_with_the_key_and_keeps_citations(onyx: OnyxServer) -> None:  # noqa: F811
    client = OnyxClient(onyx.url, USER_KEY)
    found = client.search(OnyxQuery("signing key rotation", max_results=5))
    assert found.endpoint == "/query/document-search"
    assert found.documents[0].document_id == ROTATION
    assert "drive:board-minutes" not in {d.document_id for d in found.documents}  # not public
    top = found.documents[0]
    assert top.citation["link"] == ROTATION and top.citation["primary_owners"] == [
        "sre@example.com"
    ]
    assert top.source_type == "confluence" and top.updated_at == "2026-06-01T10:00:00Z"
    request = onyx.requests[-1]
    assert request["auth"] == f"Bearer {USER_KEY}"
    assert request["body"]["message"] == "signing key rotation"
    assert request["body"]["retrieval_options"]["limit"] == 5


def test_filters_and_permission_are_passed_through(onyx: OnyxServer) -> None:  # noqa: F811
    since = datetime(2026, 3, 1, tzinfo=UTC)
    q = OnyxQuery("signing keys webhook retries", ("confluence", "slack"), since, 10)
    found = OnyxClient(onyx.url, USER_KEY).search(q)
    assert [d.document_id for d in found.documents] == [ROTATION]  # slack's is older
    filters = onyx.requests[-1]["body"]["retrieval_options"]["filters"]
    assert filters["source_type"] == ["confluence", "slack"]
    assert filters["time_cutoff"] == "2026-03-01T00:00:00Z"
    admin = OnyxClient(onyx.url, ADMIN_KEY).search(OnyxQuery("signing", permission="admin"))
    assert admin.endpoint == "/admin/search"
    assert "drive:board-minutes" in {d.document_id for d in admin.documents}
    with pytest.raises(OnyxUnavailable, match="HTTP 403"):
        OnyxClient(onyx.url, USER_KEY).search(OnyxQuery("signing", permission="admin"))
    with pytest.raises(OnyxUnavailable, match="HTTP 401"):
        OnyxClient(onyx.url, "wrong").search(OnyxQuery("signing"))
    with pytest.raises(InvalidInput, match="permission"):
        OnyxQuery("signing", permission="root")


def test_knowledge_search_cli_json_and_audit(configured: OnyxServer, tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    args = ["knowledge", "--vault", str(vault.root), "search", "signing key rotation", "--json"]
    r = CliRunner().invoke(
        cli, [*args, "--sources", "confluence", "--date-from", "2026-01-01", "--max-results", "3"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [d["document_id"] for d in data["documents"]] == [ROTATION]
    assert data["entries"][0]["source_layer"] == "onyx"
    assert data["entries"][0]["citation"]["link"] == ROTATION
    assert data["permission"] == "user" and data["skipped_layers"] == []
    event = vault.audit_events()[0]
    assert event.event == "MEMORY_RECALL" and event.query == "signing key rotation"
    assert [h.path for h in event.hits] == [f"onyx:{ROTATION}"]
    assert f"git:{event.sha}" == data["audit_ref"]


def test_recall_merges_onyx_into_one_list(configured: OnyxServer, tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    result = Vault.open(vault.root).recall("signing key rotation")
    assert [h.source_layer for h in result.hits] == ["vault", "onyx"]
    onyx_hit = result.hits[1]
    assert onyx_hit.path == f"onyx:{ROTATION}" and onyx_hit.citation is not None
    assert onyx_hit.citation["source_type"] == "confluence"
    assert "onyx" in result.layers and not result.skipped_layers
    event = vault.audit_events()[0]
    assert {h.path for h in event.hits} == {result.hits[0].path, f"onyx:{ROTATION}"}
    assert configured.requests[-1]["auth"] == f"Bearer {USER_KEY}"


def test_recall_and_search_fail_open_when_onyx_is_stopped(
    configured: OnyxServer, tmp_path: Path
) -> None:
    vault = new_vault(tmp_path)
    configured.stop()
    base = ["--vault", str(vault.root)]
    r = CliRunner().invoke(cli, ["memory", *base, "recall", "signing key rotation", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [e["source_layer"] for e in data["entries"]] == ["vault"]
    assert [s["layer"] for s in data["skipped_layers"]] == ["onyx"]
    assert "did not answer" in data["skipped_layers"][0]["reason"]
    assert any(w.startswith("onyx skipped") for w in data["warnings"])
    r = CliRunner().invoke(cli, ["knowledge", *base, "search", "signing", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["documents"] == [] and data["skipped_layers"][0]["layer"] == "onyx"
    r = CliRunner().invoke(cli, ["knowledge", *base, "search", "signing"])
    assert r.exit_code == 0 and "warning: onyx skipped" in r.output


def test_knowledge_index_sends_entries_and_records_the_source(
    configured: OnyxServer, tmp_path: Path
) -> None:
    vault = new_vault(tmp_path)
    classified = [  # PHI: the reader withholds it; PII: not sent either
        vault.ingest(
            type="context",
            title=f"Intake notes {pii}",
            body="Classified.",
            meta={"pii_classification": pii},
        ).path
        for pii in ("PHI", "PII")
    ]
    r = CliRunner().invoke(cli, ["knowledge", "--vault", str(vault.root), "index", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["indexed"] == 1 and data["skipped"] == classified[1:]
    doc_id = data["documents"][0]
    assert doc_id.startswith(f"clawql:{vault.vault_id}:decisions/")
    sent = configured.requests[-1]
    assert sent["path"] == "/api/onyx-api/ingestion" and sent["auth"] == f"Bearer {USER_KEY}"
    assert sent["body"]["document"]["source"] == "ingestion_api"
    events = [e for e in vault.audit_events() if e.event == "ONYX_SOURCE_INDEXED"]
    assert len(events) == 1 and f"git:{events[0].sha}" == data["audit_ref"]
    found = vault.knowledge_search(OnyxQuery("rotate signing keys"))
    assert doc_id in {d.document_id for d in found.result.documents}


def test_not_configured_names_the_settings(tmp_path: Path) -> None:
    vault = new_vault(tmp_path)
    r = CliRunner().invoke(cli, ["knowledge", "--vault", str(vault.root), "search", "x"])
    assert r.exit_code == 2
    assert "CLAWQL_ONYX_URL" in r.output
    assert vault.audit_events() == [] or vault.audit_events()[0].query != "x"


def test_mcp_knowledge_search_and_recall_over_the_real_client(
    onyx: OnyxServer,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp.client.session import ClientSession

    from .test_mcp import ok, over_stdio

    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    vault = new_vault(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(CLAWQL_ONYX_URL=onyx.url, CLAWQL_ONYX_API_KEY=USER_KEY)
    errlog = tmp_path / "stderr.txt"

    async def body(session: ClientSession) -> None:
        found = await ok(session, "knowledge_search", query="signing key rotation", max_results=3)
        assert found["entries"][0]["citation"]["link"] == ROTATION
        assert found["entries"][0]["source_layer"] == "onyx" and "documents" not in found
        recalled = await ok(session, "memory_recall", query="signing key rotation")
        assert [e["source_layer"] for e in recalled["entries"]] == ["vault", "onyx"]
        assert [h["path"] for h in recalled["hits"]] == [e["path"] for e in recalled["entries"]]
        assert recalled["token_cost"] == sum(e["tokens"] for e in recalled["entries"])
        assert recalled["index_summary"]["entries"] == 1
        onyx.stop()
        down = await ok(session, "memory_recall", query="signing key rotation", max_tokens=3000)
        assert [s["layer"] for s in down["skipped_layers"]] == ["onyx"]
        assert [e["source_layer"] for e in down["entries"]] == ["vault"]

    over_stdio(vault.root, env, errlog, body)
    assert "Traceback" not in errlog.read_text()


def readme_layer_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- layers:start -->\n", 1)[1].split("<!-- layers:end -->", 1)[0]
    body = block.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in body.splitlines() if line.strip()]


def test_readme_layers_block_runs_on_the_demo_vault(
    onyx: OnyxServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Every line as written, in a fresh demo vault, with the README's Onyx URL and key
    pointed at the local Onyx (the only two values replaced)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"
    made = subprocess.run(
        [sys.executable, "-m", "clawql_git", "memory", "init", "demo-vault", "--from", str(SAMPLE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    local = {"CLAWQL_ONYX_URL": onyx.url, "CLAWQL_ONYX_API_KEY": USER_KEY}
    outputs = []
    for line in readme_layer_lines():
        words = shlex.split(line, comments=True)
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = local.get(key, value)
            continue
        assert words[0] == "clawql", line
        argv = [sys.executable, "-m", "clawql_git", *words[1:]]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        assert done.stdout.strip(), f"{line} printed nothing"
        outputs.append(done.stdout)
    assert len(outputs) >= 6
    recalled = json.loads(outputs[2])
    assert {e["source_layer"] for e in recalled["entries"]} == {"vault", "onyx"}
    assert "ONYX_SOURCE_INDEXED" in outputs[4]
    assert all(r["auth"] == f"Bearer {USER_KEY}" for r in onyx.requests)


class BlackHole:
    """A port that takes connections and never answers (a hung Onyx), counting them."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/api"
        self.held: list[Any] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


def test_recall_leaves_a_hung_onyx_out_until_its_backoff_passes() -> None:
    from clawql_git.recall.layers import Backoff, ExternalLayers
    from clawql_git.recall.pipeline import RecallQuery

    hole = BlackHole()
    now = [100.0]
    backoff = Backoff(wait=30.0, clock=lambda: now[0])
    layers = ExternalLayers(onyx=OnyxClient(hole.url, USER_KEY, timeout=0.3), onyx_backoff=backoff)
    q = RecallQuery("signing key rotation")
    try:
        hits, skipped = layers.gather(q)
        assert hits == [] and "timed out" in skipped[0]["reason"]
        assert len(hole.held) == 1
        now[0] += 10
        hits, skipped = layers.gather(q)  # within the wait: not asked, the earlier failure named
        assert len(hole.held) == 1
        assert skipped[0]["layer"] == "onyx"
        assert "timed out (10 s ago); recall asks it again 20 s from now" in skipped[0]["reason"]
        now[0] += 25
        layers.gather(q)  # past the wait: asked again
        assert len(hole.held) == 2
    finally:
        hole.close()


def test_an_answer_after_the_backoff_clears_it(onyx: OnyxServer) -> None:  # noqa: F811
    from clawql_git.recall.layers import Backoff, ExternalLayers
    from clawql_git.recall.pipeline import RecallQuery

    now = [0.0]
    backoff = Backoff(wait=30.0, clock=lambda: now[0])
    backoff.failed("/query/document-search: timed out")
    layers = ExternalLayers(onyx=OnyxClient(onyx.url, USER_KEY), onyx_backoff=backoff)
    q = RecallQuery("signing key rotation")
    assert layers.gather(q)[1] and not onyx.requests
    now[0] = 31.0
    hits, skipped = layers.gather(q)
    assert not skipped and [h.path for h in hits] == [f"onyx:{ROTATION}"]
    assert backoff.failed_at is None and layers.gather(q)[1] == []
