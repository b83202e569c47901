"""The recall hook of code-anchored memory: each hit whose anchored code changed, moved or
vanished (as the last check of the vault's anchor store found it) carries ``code_stale``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from clawql_git.codegraph.anchor_store import code_labels
from clawql_git.errors import StorageError
from clawql_git.recall.pipeline import RecallHit


def labelled(state_dir: Path, hits: list[RecallHit]) -> list[RecallHit]:
    """``hits`` with ``code_stale`` set on those whose anchors no longer hold (the same list
    when none has any, or the vault has no anchor store). The labels are a derived hint, so
    an unreadable store fails open: the hits are served unlabelled."""
    try:
        labels = code_labels(state_dir, [h.path for h in hits])
    except StorageError:
        return hits
    if not labels:
        return hits
    return [replace(h, code_stale=tuple(labels.get(h.path, ()))) for h in hits]


def describe(hit: RecallHit) -> str:
    """One line for a person: which anchored code no longer matches the entry ('' if none)."""
    if not hit.code_stale:
        return ""
    parts = [f"{label['symbol']} {label['state']}" for label in hit.code_stale[:5]]
    return "code changed since written: " + ", ".join(parts)
