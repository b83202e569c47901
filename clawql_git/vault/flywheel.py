"""Flywheel export: training records (query, the entries recalled, their verdicts) read from the
audit chain, plus the entries whose verdict is ``passed``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from clawql_git.audit.chain import AuditChain
from clawql_git.audit.history import versions
from clawql_git.errors import ClawqlError
from clawql_git.gitstore import GitStore
from clawql_git.model.entry import Entry, decode_text
from clawql_git.model.identity import Identity

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault

PASSED = "passed"


def _entry_at(store: GitStore, blob: str, path: str) -> Entry | None:
    data = store.blob(blob)
    if data is None:
        return None
    try:
        return Entry.parse(path, decode_text(data, path))
    except ClawqlError:
        return None


def recall_records(
    vault: Vault, since: datetime | None, exclude_cache_hits: bool
) -> Iterator[dict[str, Any]]:
    """One record per recall on the audit chain, oldest first."""
    events = list(AuditChain(vault.store).events())
    for ev in reversed(events):
        if ev.event not in ("MEMORY_RECALL", "MEMORY_CACHE_HIT"):
            continue
        if (since is not None and ev.when < since) or (exclude_cache_hits and ev.cache_hit):
            continue
        recalled = []
        for hit in ev.hits:
            entry = _entry_at(vault.store, hit.blob, hit.path)
            verdict = str(entry.meta.get("verdict") or "") if entry else ""
            title = entry.title if entry else ""
            recalled.append(
                {"path": hit.path, "blob": hit.blob, "title": title, "verdict": verdict or None}
            )
        yield {
            "kind": "recall",
            "query": ev.query,
            "time": ev.when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "agent_id": ev.agent,
            "session_id": ev.session,
            "cache_hit": ev.cache_hit,
            "read_commit": ev.read_commit,
            "audit_ref": f"git:{ev.sha}",
            "recalled": recalled,
        }


def passed_records(
    vault: Vault, identity: Identity | None = None, allow_pii: bool = False
) -> Iterator[dict[str, Any]]:
    """Entries at HEAD whose verdict is ``passed`` (what worked), with their worm_ref: one
    audited read (``door="export"``); PHI entries are withheld unless ``allow_pii``."""
    commit = vault.reader.commit_at(None)
    passed = [
        e
        for e in vault.reader.load_all(commit.tree)
        if str(e.meta.get("verdict") or "").lower() == PASSED
    ]
    ident = vault.writer.identity(identity)
    for entry in vault.reader.read_many("export", commit, passed, ident, allow_pii).entries:
        found = versions(vault.store, commit, entry.path)
        yield {
            "kind": "entry",
            "path": entry.path,
            "title": entry.title,
            "type": entry.type,
            "verdict": PASSED,
            "worm_ref": f"git:{found[0].sha if found else commit.id}",
            "body": entry.body.strip(),
        }


def export_lines(
    vault: Vault,
    since: datetime | None,
    exclude_cache_hits: bool,
    identity: Identity | None = None,
    allow_pii: bool = False,
) -> Iterator[str]:
    """The JSONL lines of a flywheel export."""
    for record in recall_records(vault, since, exclude_cache_hits):
        yield json.dumps(record, ensure_ascii=False)
    for record in passed_records(vault, identity, allow_pii):
        yield json.dumps(record, ensure_ascii=False)
