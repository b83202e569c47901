"""A local Onyx for the tests: a real HTTP server on 127.0.0.1 (free port) that implements the
part of Onyx's documented API clawql calls (docs.onyx.app API reference, Onyx 1.x/2.x):

- ``POST /api/query/document-search`` (``message``, ``retrieval_options.filters.source_type``
  and ``time_cutoff``, ``retrieval_options.limit``) -> ``{"top_documents": [SearchDoc]}``,
  only the documents the key's user may see;
- ``POST /api/admin/search`` (``query``, ``filters``) -> ``{"documents": [SearchDoc]}``, every
  document, for the admin key only;
- ``POST /api/onyx-api/ingestion`` (``document``, ``cc_pair_id``) ->
  ``{"document_id", "already_existed"}``; ingested documents are searchable.

Every request needs ``Authorization: Bearer <key>`` (401 without it). Scores are the share of
the query's words a document holds. Use it with ``from .onyx_server import onyx  # noqa: F401``."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

USER_KEY = "on_user_" + "k3y"  # split: this file holds no key-shaped string
ADMIN_KEY = "on_admin_" + "k3y"
WORD = re.compile(r"[a-z0-9]+")

DOCUMENTS: list[dict[str, Any]] = [
    {
        "document_id": "https://wiki.example.com/ops/key-rotation",
        "semantic_identifier": "Signing key rotation runbook",
        "blurb": "Rotate the JWT signing keys every 90 days; publish the new key in the JWKS.",
        "source_type": "confluence",
        "link": "https://wiki.example.com/ops/key-rotation",
        "updated_at": "2026-06-01T10:00:00Z",
        "primary_owners": ["sre@example.com"],
        "public": True,
    },
    {
        "document_id": "slack:C01:1717000000.1",
        "semantic_identifier": "#payments: webhook retries",
        "blurb": "Webhook retries back off exponentially; the outbox worker redelivers.",
        "source_type": "slack",
        "link": "https://slack.example.com/archives/C01/p1717000000",
        "updated_at": "2026-01-15T08:00:00Z",
        "primary_owners": [],
        "public": True,
    },
    {
        "document_id": "drive:board-minutes",
        "semantic_identifier": "Board minutes: signing authority",
        "blurb": "Restricted: the board's signing authority for contracts and keys.",
        "source_type": "google_drive",
        "link": "https://drive.example.com/board-minutes",
        "updated_at": "2026-05-01T00:00:00Z",
        "primary_owners": ["cfo@example.com"],
        "public": False,
    },
]


@dataclass
class OnyxServer:
    """The running server, the requests it received, and its documents."""

    url: str  # the API root, as CLAWQL_ONYX_URL takes it
    server: ThreadingHTTPServer
    requests: list[dict[str, Any]] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=lambda: [dict(d) for d in DOCUMENTS])

    stopped: bool = False

    def stop(self) -> None:
        """Stop serving and close the port (connections are then refused)."""
        if not self.stopped:
            self.stopped = True
            self.server.shutdown()
            self.server.server_close()


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def _search(
    docs: list[dict[str, Any]], query: str, filters: dict[str, Any]
) -> list[dict[str, Any]]:
    want = _words(query)
    sources = filters.get("source_type") or None
    cutoff = filters.get("time_cutoff") or ""
    found = []
    for doc in docs:
        text = f"{doc['semantic_identifier']} {doc['blurb']}"
        score = len(want & _words(text)) / max(len(want), 1)
        if score == 0 or (sources and doc["source_type"] not in sources):
            continue
        if cutoff and doc["updated_at"] < cutoff:
            continue
        public = {k: v for k, v in doc.items() if k != "public"}
        found.append({**public, "score": score, "chunk_ind": 0, "match_highlights": []})
    return sorted(found, key=lambda d: -d["score"])


def _handler(state: OnyxServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            auth = self.headers.get("Authorization", "")
            state.requests.append({"path": self.path, "auth": auth, "body": body})
            key = auth.removeprefix("Bearer ")
            if key not in (USER_KEY, ADMIN_KEY):
                return self._send(401, {"detail": "Invalid API key"})
            if self.path == "/api/query/document-search":
                options = body.get("retrieval_options") or {}
                visible = [d for d in state.documents if d["public"] or key == ADMIN_KEY]
                found = _search(visible, body["message"], options.get("filters") or {})
                return self._send(200, {"top_documents": found[: options.get("limit") or 10]})
            if self.path == "/api/admin/search":
                if key != ADMIN_KEY:
                    return self._send(403, {"detail": "admin only"})
                return self._send(
                    200,
                    {
                        "documents": _search(
                            state.documents, body["query"], body.get("filters") or {}
                        )
                    },
                )
            if self.path == "/api/onyx-api/ingestion":
                return self._ingest(body["document"])
            return self._send(404, {"detail": "Not Found"})

        def _ingest(self, doc: dict[str, Any]) -> None:
            existed = any(d["document_id"] == doc["id"] for d in state.documents)
            state.documents = [d for d in state.documents if d["document_id"] != doc["id"]]
            state.documents.append(
                {
                    "document_id": doc["id"],
                    "semantic_identifier": doc["semantic_identifier"],
                    "blurb": " ".join(s["text"] for s in doc["sections"])[:500],
                    "source_type": doc["source"],
                    "link": doc["sections"][0].get("link"),
                    "updated_at": doc.get("doc_updated_at") or "",
                    "primary_owners": [],
                    "public": True,
                }
            )
            self._send(200, {"document_id": doc["id"], "already_existed": existed})

        def _send(self, status: int, data: dict[str, Any]) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def start() -> OnyxServer:
    """Start a server on a free port of 127.0.0.1."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = OnyxServer(f"http://127.0.0.1:{server.server_address[1]}/api", server)
    server.RequestHandlerClass = _handler(state)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state


@pytest.fixture
def onyx() -> Iterator[OnyxServer]:
    """A running local Onyx, stopped after the test (tests may stop it earlier)."""
    state = start()
    yield state
    state.stop()
