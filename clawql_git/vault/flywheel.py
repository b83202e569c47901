"""Flywheel export: training records (query, the entries recalled, their verdicts) read from the
audit chain, plus the entries whose verdict is ``passed``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pygit2

from clawql_git.audit.chain import AuditChain
from clawql_git.errors import ClawqlError
from clawql_git.model.entry import Entry, decode_text

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault

PASSED = "passed"


def _entry_at(repo: pygit2.Repository, blob: str, path: str) -> Entry | None:
    try:
        obj = repo.get(blob)
    except ValueError:
        return None
    if not isinstance(obj, pygit2.Blob):
        return None
    try:
        return Entry.parse(path, decode_text(obj.data, path))
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
            entry = _entry_at(vault.store.repo, hit.blob, hit.path)
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


def passed_records(vault: Vault) -> Iterator[dict[str, Any]]:
    """Entries at HEAD whose verdict is ``passed`` (what worked), with their worm_ref."""
    for entry in vault.entries():
        if str(entry.meta.get("verdict") or "").lower() != PASSED:
            continue
        view = vault.get(entry.path)
        yield {
            "kind": "entry",
            "path": entry.path,
            "title": entry.title,
            "type": entry.type,
            "verdict": PASSED,
            "worm_ref": view.last_ref,
            "body": entry.body.strip(),
        }


def export_lines(vault: Vault, since: datetime | None, exclude_cache_hits: bool) -> Iterator[str]:
    """The JSONL lines of a flywheel export."""
    for record in recall_records(vault, since, exclude_cache_hits):
        yield json.dumps(record, ensure_ascii=False)
    for record in passed_records(vault):
        yield json.dumps(record, ensure_ascii=False)
