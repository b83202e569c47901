"""Onyx beside the vault: a knowledge search (its documents and citations, recorded on the
audit chain like a recall) and the publication of the vault's current entries into Onyx
through its Ingestion API (an ONYX_SOURCE_INDEXED event)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clawql_git.audit.chain import AuditChain
from clawql_git.errors import InvalidInput, NotFound
from clawql_git.onyx import OnyxClient, OnyxQuery, OnyxResult, OnyxUnavailable
from clawql_git.recall.layers import onyx_hit, read_hit
from clawql_git.vault.reader import pii_of

if TYPE_CHECKING:
    from clawql_git.config import Settings
    from clawql_git.gitstore import Commit, GitStore
    from clawql_git.model.entry import Entry
    from clawql_git.model.identity import Identity

SOURCE = "ingestion_api"  # the Onyx source type of documents sent through the Ingestion API
LISTED = 50  # documents named on an ONYX_SOURCE_INDEXED event


def onyx_client(settings: Settings) -> OnyxClient:
    """The configured Onyx client; InvalidInput naming the settings when there is none."""
    if not settings.onyx_url:
        raise InvalidInput(
            "Onyx is not configured: set CLAWQL_ONYX_URL (the API root, e.g. "
            "http://localhost:8080/api) and CLAWQL_ONYX_API_KEY"
        )
    return OnyxClient(settings.onyx_url, settings.onyx_api_key)


@dataclass
class KnowledgeAnswer:
    """A knowledge search's answer: Onyx's documents (empty when Onyx could not answer, with
    the reason in ``skipped_layers``), and the audit event that recorded it."""

    result: OnyxResult
    skipped_layers: list[dict[str, str]] = field(default_factory=list)
    audit_ref: str = ""

    def to_record(self) -> dict[str, Any]:
        entries = [
            onyx_hit(d, d.score).to_record() | {"document": d.to_record()}
            for d in self.result.documents
        ]
        return {
            **self.result.to_record(),
            "entries": entries,
            "skipped_layers": self.skipped_layers,
            "warnings": [f"{s['layer']} skipped: {s['reason']}" for s in self.skipped_layers],
            "audit_ref": self.audit_ref or None,
        }


def knowledge_search(
    store: GitStore, settings: Settings, query: OnyxQuery, identity: Identity
) -> KnowledgeAnswer:
    """Search Onyx; fails open (no documents, the reason in ``skipped_layers``) when Onyx is
    down. Recorded as a MEMORY_RECALL whose hits are ``onyx:<document id>``."""
    client = onyx_client(settings)
    try:
        answer = KnowledgeAnswer(client.search(query))
    except OnyxUnavailable as exc:
        skipped = [{"layer": "onyx", "reason": exc.message}]
        answer = KnowledgeAnswer(OnyxResult(query, [], ""), skipped)
    if settings.record_recalls:
        answer.audit_ref = _record_search(store, settings, answer, identity)
    return answer


def _record_search(
    store: GitStore, settings: Settings, answer: KnowledgeAnswer, identity: Identity
) -> str:
    q = answer.result.query
    hits = [read_hit(onyx_hit(d, d.score)) for d in answer.result.documents]
    extra = [
        ("Cache-Hit", "false"),
        ("Allow-PII", "false"),
        ("Source-Layers", "onyx"),
        ("Onyx-Permission", q.permission),
        ("Onyx-Url", settings.onyx_url),
        *[("Onyx-Skipped", s["reason"]) for s in answer.skipped_layers],
    ]
    sha = AuditChain(store).record(
        "MEMORY_RECALL",
        _head(store),
        identity.agent_id,
        identity.session_id,
        identity.correlation_id,
        q.text,
        hits,
        extra,
    )
    return f"git:{sha}"


def _head(store: GitStore) -> Commit:
    head = store.head_commit()
    if head is None:
        raise NotFound(f"the vault at {store.workdir} has no commit to record against")
    return head


@dataclass(frozen=True)
class IndexedSource:
    """What ``knowledge index`` sent to Onyx."""

    documents: list[str]
    skipped: list[str]
    audit_ref: str

    def to_record(self) -> dict[str, Any]:
        return {
            "indexed": len(self.documents),
            "documents": self.documents,
            "skipped": self.skipped,
            "audit_ref": self.audit_ref,
        }


def index_into_onyx(
    store: GitStore,
    settings: Settings,
    vault_id: str,
    entries: Sequence[Entry],
    identity: Identity,
    types: Sequence[str] = (),
    cc_pair_id: int | None = None,
) -> IndexedSource:
    """Send the vault's current entries (of ``types``, when given) to Onyx as documents of
    source ``ingestion_api``; entries with any PII classification stay in the vault.
    ``entries`` come through the reader (door ``onyx-index``); recorded as ONYX_SOURCE_INDEXED
    with the document ids; when Onyx fails midway, what was sent is recorded, then the error
    raised."""
    client = onyx_client(settings)
    chosen = [e for e in entries if e.status == "current" and (not types or e.type in types)]
    sent: list[str] = []
    skipped = [e.path for e in chosen if pii_of(e)]
    try:
        for entry in (e for e in chosen if not pii_of(e)):
            sent.append(client.ingest(_document(vault_id, entry), cc_pair_id))
    finally:
        done = bool(sent) or not chosen
        ref = _record_indexed(store, settings, identity, sent, skipped) if done else ""
    return IndexedSource(sent, skipped, ref)


def _document(vault_id: str, entry: Entry) -> dict[str, Any]:
    """An entry as Onyx's ``DocumentBase``."""
    tags = entry.meta.get("tags")
    meta: dict[str, Any] = {"type": entry.type, "path": entry.path}
    if isinstance(tags, list):
        meta["tags"] = [str(t) for t in tags]
    if entry.meta.get("project"):
        meta["project"] = str(entry.meta["project"])
    resource = entry.meta.get("resource")
    return {
        "id": f"clawql:{vault_id}:{entry.path}",
        "sections": [{"text": entry.body or entry.title, "link": resource or None}],
        "source": SOURCE,
        "semantic_identifier": entry.title,
        "metadata": meta,
        "doc_updated_at": entry.timestamp or None,
        "from_ingestion_api": True,
    }


def _record_indexed(
    store: GitStore, settings: Settings, identity: Identity, sent: list[str], skipped: list[str]
) -> str:
    extra = [
        ("Onyx-Url", settings.onyx_url),
        ("Onyx-Documents", str(len(sent))),
        ("Onyx-Withheld", str(len(skipped))),
        *[("Onyx-Document", doc) for doc in sent[:LISTED]],
    ]
    sha = AuditChain(store).record(
        "ONYX_SOURCE_INDEXED", _head(store), identity.agent_id or "clawql-onyx", extra=extra
    )
    return f"git:{sha}"
