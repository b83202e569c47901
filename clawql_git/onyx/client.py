"""An HTTP client (urllib, no extra dependency) for the part of Onyx's API clawql uses.

Followed: the Onyx API reference at docs.onyx.app ("Search / Handle Search Request" and
"Admin Search", "Ingestion / Upsert Ingestion Doc"), as published for Onyx 1.x/2.x:

- ``POST {base}/query/document-search`` with ``{"message", "search_type",
  "retrieval_options": {"filters": {"source_type", "document_set", "time_cutoff", "tags"},
  "limit", "offset"}}`` answers ``{"top_documents": [...]}``; Onyx answers from the documents
  the calling user (the API key's) may see.
- ``POST {base}/admin/search`` with ``{"query", "filters"}`` answers ``{"documents": [...]}``
  over every document (an admin key).
- ``POST {base}/onyx-api/ingestion`` with ``{"document": {...}, "cc_pair_id"}`` answers
  ``{"document_id", "already_existed"}``.

``base`` is the API root (``https://cloud.onyx.app/api``, ``http://localhost:8080/api``); the
key goes in ``Authorization: Bearer <key>``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from clawql_git.errors import InvalidInput, StorageError

PERMISSIONS = ("user", "admin")
"""``user``: the documents the key's user may see (``/query/document-search``); ``admin``:
every document (``/admin/search``, an admin key)."""
DEFAULT_TIMEOUT = 5.0
MAX_RESULTS = 100


class OnyxUnavailable(StorageError):
    """Onyx could not answer: down, unreachable, refused the key, or answered garbage.
    Recall fails open on it (the layer is skipped, with this message)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"Onyx at {url} did not answer: {reason}")
        self.url = url
        self.reason = reason


@dataclass(frozen=True)
class OnyxQuery:
    """A knowledge search: the text, Onyx source types, a date the documents must be updated
    after, how many results, and the permission level the search runs with."""

    text: str
    sources: tuple[str, ...] = ()
    date_from: datetime | None = None
    max_results: int = 10
    permission: str = "user"

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise InvalidInput("a knowledge search needs a non-empty query")
        if not 1 <= self.max_results <= MAX_RESULTS:
            raise InvalidInput(f"max_results must be in 1..{MAX_RESULTS}, got {self.max_results}")
        if self.permission not in PERMISSIONS:
            raise InvalidInput(
                f"permission must be one of {', '.join(PERMISSIONS)}, got {self.permission!r}"
            )

    def filters(self) -> dict[str, Any]:
        """Onyx's ``BaseFilters``."""
        return {
            "source_type": list(self.sources) or None,
            "document_set": None,
            "time_cutoff": _iso(self.date_from) if self.date_from else None,
            "tags": None,
        }

    def body(self) -> dict[str, Any]:
        """The request body for the endpoint of this permission level."""
        if self.permission == "admin":
            return {"query": self.text, "filters": self.filters()}
        return {
            "message": self.text,
            "search_type": "semantic",
            "retrieval_options": {
                "run_search": "always",
                "real_time": True,
                "filters": self.filters(),
                "enable_auto_detect_filters": False,
                "offset": 0,
                "limit": self.max_results,
                "dedupe_docs": True,
            },
        }


@dataclass(frozen=True)
class OnyxDocument:
    """One Onyx search result, with the citation that lets a reader check it."""

    document_id: str
    title: str
    blurb: str
    source_type: str
    link: str
    score: float
    updated_at: str
    citation: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> OnyxDocument:
        """A result from Onyx's ``SearchDoc`` JSON."""
        doc_id = str(raw.get("document_id") or "")
        if not doc_id:
            raise ValueError("a result without a document_id")
        title = str(raw.get("semantic_identifier") or doc_id)
        citation = {
            "document_id": doc_id,
            "semantic_identifier": title,
            "link": raw.get("link"),
            "source_type": raw.get("source_type"),
            "chunk_ind": raw.get("chunk_ind"),
            "updated_at": raw.get("updated_at"),
            "match_highlights": list(raw.get("match_highlights") or []),
            "primary_owners": list(raw.get("primary_owners") or []),
        }
        return cls(
            doc_id,
            title,
            str(raw.get("blurb") or raw.get("content") or ""),
            str(raw.get("source_type") or ""),
            str(raw.get("link") or ""),
            float(raw.get("score") or 0.0),
            str(raw.get("updated_at") or ""),
            citation,
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "document_id": self.document_id,
            "title": self.title,
            "blurb": self.blurb,
            "source_type": self.source_type,
            "link": self.link or None,
            "score": round(self.score, 4),
            "updated_at": self.updated_at or None,
            "citation": self.citation,
        }


@dataclass(frozen=True)
class OnyxResult:
    """What a knowledge search answered."""

    query: OnyxQuery
    documents: list[OnyxDocument]
    endpoint: str

    def to_record(self) -> dict[str, Any]:
        return {
            "query": self.query.text,
            "permission": self.query.permission,
            "sources": list(self.query.sources),
            "date_from": _iso(self.query.date_from) if self.query.date_from else None,
            "endpoint": self.endpoint,
            "documents": [d.to_record() for d in self.documents],
        }


@dataclass(frozen=True)
class OnyxClient:
    """Onyx's search and ingestion endpoints under ``base_url`` (the API root)."""

    base_url: str
    api_key: str = ""
    timeout: float = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise InvalidInput(f"the Onyx URL must be http(s)://..., got {self.base_url!r}")

    def search(self, query: OnyxQuery) -> OnyxResult:
        """Search Onyx at the query's permission level; OnyxUnavailable when it cannot."""
        path = "/admin/search" if query.permission == "admin" else "/query/document-search"
        data = self._post(path, query.body())
        raw = data.get("documents" if query.permission == "admin" else "top_documents")
        if not isinstance(raw, list):
            raise OnyxUnavailable(self.base_url, f"{path} answered without a list of documents")
        try:
            docs = [OnyxDocument.parse(item) for item in raw]
        except (ValueError, TypeError, AttributeError) as exc:
            raise OnyxUnavailable(self.base_url, f"{path} answered a bad document: {exc}") from exc
        return OnyxResult(query, _dedupe(docs)[: query.max_results], path)

    def ingest(self, document: Mapping[str, Any], cc_pair_id: int | None = None) -> str:
        """Upsert one document through the Ingestion API; returns Onyx's document id."""
        body = {"document": dict(document), "cc_pair_id": cc_pair_id}
        data = self._post("/onyx-api/ingestion", body)
        doc_id = data.get("document_id")
        if not isinstance(doc_id, str) or not doc_id:
            raise OnyxUnavailable(self.base_url, "the ingestion answer has no document_id")
        return doc_id

    def _post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.base_url.rstrip("/") + path,
            data=json.dumps(body).encode(),
            headers=self._headers(),
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            raise OnyxUnavailable(self.base_url, f"{path} answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise OnyxUnavailable(self.base_url, f"{path}: {reason}") from exc
        return _json_object(self.base_url, path, payload)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers


def _json_object(url: str, path: str, payload: bytes) -> dict[str, Any]:
    try:
        data = json.loads(payload)
    except ValueError as exc:
        raise OnyxUnavailable(url, f"{path} answered something that is not JSON") from exc
    if not isinstance(data, dict):
        raise OnyxUnavailable(url, f"{path} answered JSON that is not an object")
    return data


def _dedupe(docs: Sequence[OnyxDocument]) -> list[OnyxDocument]:
    """One result per document (Onyx may return several chunks of one), best first."""
    seen: set[str] = set()
    out = []
    for doc in sorted(docs, key=lambda d: -d.score):
        if doc.document_id not in seen:
            seen.add(doc.document_id)
            out.append(doc)
    return out


def _iso(when: datetime) -> str:
    when = when.astimezone(UTC) if when.tzinfo else when
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
