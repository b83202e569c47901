"""Recall's view of an entry's truth: labels on hits (superseded, expired, review due) and the
weight an expired entry's score is multiplied by. One hook, called from ``Recaller``."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from clawql_git.config import VAULT_TOML, read_toml
from clawql_git.errors import InvalidInput
from clawql_git.model.staleness import EXPIRED, Policy, state

if TYPE_CHECKING:
    from clawql_git.gitstore import GitStore

EXPIRED_WEIGHT = 0.5  # an expired entry still answers, below the current ones on its subject
SUPERSEDED = "superseded"


def policy_of(store: GitStore) -> Policy:
    """The vault's per-type staleness defaults; none when vault.toml cannot be read (recall
    fails open: `memory stale` reports the bad setting)."""
    try:
        return Policy.from_toml(read_toml(store.workdir / VAULT_TOML))
    except InvalidInput:
        return Policy()


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(row.get("frontmatter") or "{}")
    return loaded


def weight(row: dict[str, Any] | None, policy: Policy, now: datetime) -> float:
    """What an entry's fused score is multiplied by: EXPIRED_WEIGHT when it has expired."""
    if row is None or row["status"] != "current":
        return 1.0
    reason = state(_meta(row), policy, now)[0]
    return EXPIRED_WEIGHT if reason == EXPIRED else 1.0


def reweigh(
    ranked: list[tuple[str, Any, float]], rows: dict[str, Any], policy: Policy
) -> list[tuple[str, Any, float]]:
    """``ranked`` with expired entries down-weighted, sorted again."""
    now = datetime.now(UTC)
    out = [(p, c, s * weight(rows.get(p), policy, now)) for p, c, s in ranked]
    out.sort(key=lambda r: (-r[2], r[0]))
    return out


def labels(frontmatter: dict[str, Any], policy: Policy, now: datetime) -> tuple[str, ...]:
    """The labels of a hit: "superseded" (with superseded_by), "expired", "review due"."""
    if str(frontmatter.get("status") or "current") == SUPERSEDED:
        return (SUPERSEDED,)
    reason = state(frontmatter, policy, now)[0]
    return (reason,) if reason else ()


def label(hits: list[Any], policy: Policy) -> list[Any]:
    """The hits (``RecallHit``) with their labels."""
    now = datetime.now(UTC)
    return [replace(h, labels=labels(h.frontmatter, policy, now)) for h in hits]
