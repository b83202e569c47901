"""Recall's view of an entry's truth: labels on hits (superseded, expired, review due) and the
weight an expired entry's score is multiplied by. One hook, called from ``Recaller``."""

from __future__ import annotations

import heapq
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
    ranked: list[tuple[str, Any, float]],
    rows: dict[str, Any],
    policy: Policy,
    need: int | None = None,
) -> list[tuple[str, Any, float]]:
    """``ranked`` (best first) with expired entries down-weighted, sorted again. With
    ``need``, only the candidates that can still be among the ``need`` best are weighed: a
    weight is at most 1, so once a score is below the ``need``-th best weighed one, neither
    it nor any after it can get in; those follow, unweighed, in their order (each below the
    ``need`` first, so the first ``need``, and any prefix of them, are as if all were weighed)."""
    now = datetime.now(UTC)
    best: list[float] = []  # the ``need`` best weighed scores so far, a min-heap
    out: list[tuple[str, Any, float]] = []
    rest: list[tuple[str, Any, float]] = []
    for n, (p, c, s) in enumerate(ranked):
        if need is not None and len(best) >= need and s < best[0]:
            rest = ranked[n:]
            break
        weighed = s * weight(rows.get(p), policy, now)
        out.append((p, c, weighed))
        if need is not None:
            (heapq.heappush if len(best) < need else heapq.heappushpop)(best, weighed)
    out.sort(key=lambda r: (-r[2], r[0]))
    return out + rest


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
