"""``memory stale``: the current entries that are due, from ``review_by`` / ``expires`` or the
per-type defaults of vault.toml (``model/staleness.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from clawql_git.config import VAULT_TOML, read_toml
from clawql_git.model.staleness import Due, Policy, state

if TYPE_CHECKING:
    from clawql_git.vault.reader import Reader


def policy(root: Path) -> Policy:
    """The per-type defaults of the vault at ``root`` (InvalidInput naming a bad value)."""
    return Policy.from_toml(read_toml(root / VAULT_TOML))


def due_entries(root: Path, reader: Reader, now: datetime | None = None) -> list[Due]:
    """Every current entry at HEAD that is due at ``now`` (default: now), oldest due first."""
    rules = policy(root)
    when = now or datetime.now(UTC)
    head = reader.store.head_commit()
    found = []
    for entry in reader.load_all(head.tree if head is not None else None):
        reason, due, source = state(entry.meta, rules, when)
        if reason:
            found.append(Due(entry.path, entry.title, entry.type, reason, due, source))
    return sorted(found, key=lambda d: (d.due, d.path))
