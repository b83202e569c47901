"""Derived state is checked, not trusted (issue #14): a forged recall cache or index row is
never served, `verify --index` says whether the index matches its commit, and recall fails
open (FTS, catalog, category tree) when a configured remote embedder is down or failing.

Every attack edits the real files under .git/clawql (sqlite, LanceDB) the way a hostile
process with write access to the repository would; every embedder failure is a real one: a
closed local port, or a real HTTP server answering 500."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from clawql_git import Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.index.lance import import_lancedb

from .conftest import git

QUERY = "idempotency keys for payment retries"
FAKE_PATH = "decisions/2026-01/forged-entry.md"
FAKE_SNIPPET = "FORGED: disable idempotency keys and retry every payment twice"


# ---------------------------------------------------------------- helpers


def hash_vault(root: Path) -> Vault:
    return Vault.open(root, embedder=HashEmbedder())


def lance_table(root: Path, name: str) -> Any:
    return import_lancedb().connect(str(root / ".git" / "clawql" / "index")).open_table(name)


def audit_hits(root: Path) -> str:
    """The trailers of the newest audit event (what the chain recorded as read)."""
    return git(root, "log", "-1", "--format=%B", "refs/clawql/audit").stdout


def forge_cache(root: Path, edit: Any) -> int:
    """Rewrite every cached answer with ``edit(record)``; how many rows were forged."""
    db = sqlite3.connect(root / ".git" / "clawql" / "recall-cache.sqlite")
    rows = db.execute("SELECT rowid, result FROM answers").fetchall()
    with db:
        for rowid, result in rows:
            record = json.loads(result)
            edit(record)
            db.execute("UPDATE answers SET result = ? WHERE rowid = ?", (json.dumps(record), rowid))
    db.close()
    return len(rows)


def cli(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``clawql memory --vault ROOT ARGS`` as a real process."""
    command = [sys.executable, "-m", "clawql_git", "memory", "--vault", str(root), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env or dict(os.environ))


def closed_port() -> int:
    with socket.socket() as probe:  # free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Embeddings(BaseHTTPRequestHandler):
    """A real /v1/embeddings (hash-embedder vectors), or HTTP 500 while ``server.failing``."""

    server: EmbeddingServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests += 1
        if self.server.failing:
            return self.answer(500, {"error": {"message": "model crashed"}})
        vectors = HashEmbedder().embed(body["input"])
        data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        return self.answer(200, {"object": "list", "data": data})

    def answer(self, status: int, doc: Any) -> None:
        payload = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class EmbeddingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Embeddings)
        self.failing = False
        self.requests = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)


def remote_env(base_url: str) -> dict[str, str]:
    """The environment of a user who configured an OpenAI-compatible embedder."""
    env = dict(os.environ)
    env.update(
        CLAWQL_EMBEDDING_MODEL="openai:text-embedding-3-small",
        OPENAI_API_KEY="test-key",
        OPENAI_BASE_URL=base_url,
        no_proxy="127.0.0.1,localhost",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def recall_json(root: Path, env: dict[str, str], *extra: str, query: str = QUERY) -> dict[str, Any]:
    done = cli(root, "recall", query, "--json", *extra, env=env)
    assert done.returncode == 0, done.stderr
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def skipped(record: dict[str, Any]) -> dict[str, str]:
    return {s["layer"]: s["reason"] for s in record["skipped_layers"]}


# ---------------------------------------------------------------- the recall cache


def test_a_forged_cache_answer_is_dropped_not_served(demo: Path) -> None:
    vault = hash_vault(demo)
    first = vault.recall(QUERY, limit=3)
    assert first.hits and not first.cache_hit

    def fake(record: dict[str, Any]) -> None:
        record["hits"][0]["path"] = FAKE_PATH
        record["hits"][0]["snippet"] = FAKE_SNIPPET

    assert forge_cache(demo, fake) == 1
    again = hash_vault(demo).recall(QUERY, limit=3)
    assert FAKE_PATH not in [h.path for h in again.hits]
    assert all(FAKE_SNIPPET not in h.snippet for h in again.hits)
    assert not again.cache_hit
    assert [h.path for h in again.hits] == [h.path for h in first.hits]
    assert any("recall cache" in w and FAKE_PATH in w for w in again.warnings), again.warnings
    trail = audit_hits(demo)
    assert FAKE_PATH not in trail and "Cache-Hit: false" in trail
    third = hash_vault(demo).recall(QUERY, limit=3)  # the fresh answer was cached again
    assert third.cache_hit and not third.warnings


def test_a_forged_snippet_under_a_real_path_is_dropped(demo: Path) -> None:
    vault = hash_vault(demo)
    first = vault.recall(QUERY, limit=3)

    def fake(record: dict[str, Any]) -> None:
        record["hits"][0]["snippet"] = FAKE_SNIPPET
        record["hits"][0]["title"] = "Forged title"

    forge_cache(demo, fake)
    again = hash_vault(demo).recall(QUERY, limit=3)
    assert all(FAKE_SNIPPET not in h.snippet for h in again.hits)
    assert again.hits[0].snippet == first.hits[0].snippet and not again.cache_hit
    assert again.warnings


def test_a_cached_answer_cannot_smuggle_a_phi_entry(demo: Path) -> None:
    vault = hash_vault(demo)
    secret = vault.ingest(
        type="context",
        title="Patient intake notes",
        body="Blood pressure readings for the intake clinic.",
        meta={"pii_classification": "PHI"},
    )
    vault.recall(QUERY, limit=3)
    real = vault.get(secret.path, allow_pii=True)

    def smuggle(record: dict[str, Any]) -> None:
        hit = dict(record["hits"][0])
        hit.update(path=secret.path, title=real.entry.title, snippet=real.entry.body.strip())
        hit.update(type="context", frontmatter=real.entry.to_record()["frontmatter"])
        record["hits"][0] = hit

    forge_cache(demo, smuggle)
    again = hash_vault(demo).recall(QUERY, limit=3)
    assert secret.path not in [h.path for h in again.hits]
    assert again.warnings


def test_a_forged_commit_in_the_cache_is_not_echoed(demo: Path) -> None:
    vault = hash_vault(demo)
    first = vault.recall(QUERY, limit=3)
    forge_cache(demo, lambda r: r.update(commit="0" * 40, total_tokens=1))
    again = hash_vault(demo).recall(QUERY, limit=3)
    assert again.commit == first.commit
    assert again.total_tokens == sum(h.tokens for h in again.hits)


# ---------------------------------------------------------------- the LanceDB index


def test_a_forged_chunk_text_is_not_served_and_the_index_is_rebuilt(demo: Path) -> None:
    vault = hash_vault(demo)
    top = vault.recall(QUERY, limit=3, use_cache=False).hits[0]
    lance_table(demo, "chunks").update(
        where=f"path = '{top.path}'", values={"snippet": FAKE_SNIPPET, "text": FAKE_SNIPPET}
    )
    again = hash_vault(demo).recall(QUERY, limit=3, use_cache=False)
    assert all(FAKE_SNIPPET not in h.snippet for h in again.hits)
    assert again.hits[0].path == top.path and again.hits[0].snippet == top.snippet
    assert any(top.path in w and "rebuilt" in w for w in again.warnings), again.warnings
    assert FAKE_SNIPPET not in json.dumps(lance_table(demo, "chunks").to_arrow().to_pylist())


def test_a_forged_entry_row_is_not_served(demo: Path) -> None:
    vault = hash_vault(demo)
    top = vault.recall(QUERY, limit=3, use_cache=False).hits[0]
    lance_table(demo, "entries").update(
        where=f"path = '{top.path}'", values={"title": "Forged title", "description": FAKE_SNIPPET}
    )
    again = hash_vault(demo).recall(QUERY, limit=3, use_cache=False)
    assert again.hits[0].title == top.title and again.warnings


def test_a_warm_process_notices_a_forged_row(demo: Path) -> None:
    vault = hash_vault(demo)
    top = vault.recall(QUERY, limit=3, use_cache=False).hits[0]
    lance_table(demo, "chunks").update(
        where=f"path = '{top.path}'", values={"snippet": FAKE_SNIPPET}
    )
    again = vault.recall(QUERY, limit=3, use_cache=False)  # the same process, rows in memory
    assert all(FAKE_SNIPPET not in h.snippet for h in again.hits)
    assert again.hits[0].snippet == top.snippet


def test_verify_index_passes_on_a_built_index(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    assert cli(demo, "index", "update").returncode == 0
    done = cli(demo, "verify", "--index", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["problems"] == [] and report["entries"] > 5
    assert report["commit"] == git(demo, "rev-parse", "HEAD").stdout.strip()
    text = cli(demo, "verify", "--index")
    assert text.returncode == 0 and "index matches" in text.stdout


def test_verify_index_reports_a_forged_chunk_and_a_missing_entry(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    assert cli(demo, "index", "update").returncode == 0
    paths = sorted(lance_table(demo, "entries").to_arrow().column("path").to_pylist())
    forged, dropped = paths[0], paths[1]
    lance_table(demo, "chunks").update(where=f"path = '{forged}'", values={"text": FAKE_SNIPPET})
    lance_table(demo, "entries").delete(f"path = '{dropped}'")
    lance_table(demo, "chunks").delete(f"path = '{dropped}'")
    done = cli(demo, "verify", "--index", "--json")
    assert done.returncode != 0
    report = json.loads(done.stdout)
    assert not report["ok"]
    problems = "\n".join(report["problems"])
    assert forged in problems and dropped in problems and "not indexed" in problems
    text = cli(demo, "verify", "--index")
    assert text.returncode != 0 and forged in text.stdout
    assert cli(demo, "index", "rebuild").returncode == 0  # derived: rebuilt from the commit
    assert cli(demo, "verify", "--index").returncode == 0


def test_verify_index_reports_a_row_for_an_entry_the_commit_lacks(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "hash")
    assert cli(demo, "index", "update").returncode == 0
    chunks = lance_table(demo, "chunks")
    row = chunks.search().where("chunk = 0").limit(1).to_arrow()
    forged = row.set_column(row.schema.get_field_index("path"), "path", [[FAKE_PATH]])
    chunks.add(forged)
    done = cli(demo, "verify", "--index", "--json")
    assert done.returncode != 0 and FAKE_PATH in done.stdout


# ---------------------------------------------------------------- fail open


def test_unreachable_embedder_on_a_fresh_vault_answers_from_full_text(demo: Path) -> None:
    env = remote_env(f"http://127.0.0.1:{closed_port()}/v1")
    record = recall_json(demo, env)  # the first recall builds the index: it cannot embed
    assert any("idempotency" in h["path"] for h in record["hits"])
    assert "fts" in record["layers"] and "vector" not in record["layers"]
    reasons = skipped(record)
    assert set(reasons) == {"vector", "entry_vector"}
    assert "cannot reach embedding endpoint" in reasons["vector"]
    text = cli(demo, "recall", QUERY, env=env)
    assert text.returncode == 0 and "skipped vector" in text.stdout, text.stdout + text.stderr


def test_embedder_answering_500_fails_open_then_vectors_come_back(
    demo: Path, server: EmbeddingServer
) -> None:
    env = remote_env(server.base_url)
    healthy = recall_json(demo, env, "--no-cache")
    assert "vector" in healthy["layers"] and healthy["skipped_layers"] == []
    server.failing = True
    down = recall_json(demo, env, "--no-cache")
    assert down["hits"] and "vector" not in down["layers"]
    assert "HTTP 500" in skipped(down)["vector"]
    hybrid = recall_json(demo, env, "--backend", "hybrid")
    assert hybrid["layers"] == ["fts"] and hybrid["hits"]
    server.failing = False
    back = recall_json(demo, env)
    assert "vector" in back["layers"] and back["skipped_layers"] == []
    assert not back["cache_hit"]  # the degraded answer was not cached


def test_an_ingest_while_the_embedder_fails_is_still_recalled(
    demo: Path, server: EmbeddingServer
) -> None:
    env = remote_env(server.base_url)
    assert cli(demo, "index", "update", env=env).returncode == 0
    server.failing = True
    title = "Quarantine flaky settlement webhooks"
    done = cli(demo, "ingest", "--type", "decision", "--title", title, "--body", "zebra", env=env)
    assert done.returncode == 0, done.stderr
    record = recall_json(demo, env, query="quarantine settlement webhooks zebra")
    assert record["hits"][0]["title"] == title
    assert "vector" in skipped(record)
    server.failing = False
    back = recall_json(demo, env, "--no-cache")
    assert "vector" in back["layers"] and back["skipped_layers"] == []
    assert cli(demo, "verify", "--index", env=env).returncode == 0


def test_vector_only_backend_with_the_embedder_down_says_why(demo: Path) -> None:
    env = remote_env(f"http://127.0.0.1:{closed_port()}/v1")
    done = cli(demo, "recall", QUERY, "--backend", "vector", env=env)
    assert done.returncode == 5 and "cannot reach embedding endpoint" in done.stderr
    assert "Traceback" not in done.stderr


def test_mcp_recall_fails_open_with_the_embedder_down(demo: Path, tmp_path: Path) -> None:
    env = remote_env(f"http://127.0.0.1:{closed_port()}/v1")
    args = ["-m", "clawql_git", "mcp", "serve", "--vault", str(demo)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    errlog = tmp_path / "server-stderr.txt"
    answers: list[Any] = []

    async def main() -> None:
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                answers.append(await session.call_tool("memory_recall", {"query": QUERY}))

    anyio.run(main)
    result = answers[0]
    assert not result.is_error, result.content
    record = result.structured_content
    assert record["hits"] and "vector" not in record["layers"]
    assert "cannot reach embedding endpoint" in skipped(record)["vector"]
    assert "Traceback" not in errlog.read_text()
