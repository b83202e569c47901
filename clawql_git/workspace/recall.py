"""Recall over every vault of a workspace: each vault answers with its own pipeline (and records
the read on its own audit chain); the hits are merged by score, each saying which vault it came
from, and the token budget is applied over the merged list. A vault that cannot answer is
reported as unavailable and the others still answer (fail open).

Fusion: every vault fuses its layers the same way (weighted, max-normalised layer scores), so a
hit's score says how good it is relative to its own vault's best evidence on the same scale.
The merged list is sorted by that score; ties go to the better rank inside its vault, then to
the narrower scope (personal, team, org) and the mount order. We chose this over rank fusion
(RRF) across vaults because RRF would give a vault's weak best hit the same credit as another
vault's strong one; sorting by score keeps the strong evidence first while a vault with only
weak matches still contributes its best hits when the others have nothing better."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError
from clawql_git.workspace.mount import SCOPES, Mount, open_mount

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder
    from clawql_git.model.identity import Identity
    from clawql_git.recall.pipeline import RecallHit, RecallResult
    from clawql_git.vault.facade import Vault


@dataclass(frozen=True)
class VaultAnswer:
    """How one mounted vault answered: ok with a commit and layers, or unavailable and why."""

    name: str
    scope: str
    available: bool
    reason: str = ""
    commit: str = ""
    layers: tuple[str, ...] = ()
    hits: int = 0
    audit_ref: str = ""
    index_note: str = ""

    def to_record(self) -> dict[str, Any]:
        return {
            "vault": self.name,
            "scope": self.scope,
            "status": "ok" if self.available else "unavailable",
            "reason": self.reason or None,
            "commit": self.commit or None,
            "layers": list(self.layers),
            "hits": self.hits,
            "audit_ref": self.audit_ref or None,
            "index": self.index_note or None,
        }


@dataclass(frozen=True)
class WorkspaceHit:
    """One hit of the merged list and the vault it came from."""

    vault: str
    scope: str
    rank: int  # its rank inside its own vault, 1-based
    hit: RecallHit

    def to_record(self) -> dict[str, Any]:
        return {
            "vault": self.vault,
            "scope": self.scope,
            "vault_rank": self.rank,
            **self.hit.to_record(),
        }


@dataclass
class WorkspaceRecall:
    """The merged answer of every mounted vault."""

    query: str
    hits: list[WorkspaceHit] = field(default_factory=list)
    vaults: list[VaultAnswer] = field(default_factory=list)
    total_tokens: int = 0
    truncated: bool = False

    @property
    def unavailable(self) -> list[VaultAnswer]:
        return [v for v in self.vaults if not v.available]

    def to_record(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "fusion": "score",
            "total_tokens": self.total_tokens,
            "truncated": self.truncated,
            "vaults": [v.to_record() for v in self.vaults],
            "unavailable": [v.name for v in self.unavailable],
            "hits": [h.to_record() for h in self.hits],
        }


def recall_all(
    mounts: list[Mount],
    opened: dict[str, Vault],
    text: str,
    identity: Identity | None,
    options: dict[str, Any],
) -> WorkspaceRecall:
    """Ask every mounted vault, then merge (see the module docstring for the fusion).
    ``opened`` holds the vaults already open by mount name; those opened here are added."""
    out = WorkspaceRecall(text)
    embedders: dict[str, Embedder | None] = {}
    pooled: list[tuple[float, int, int, int, WorkspaceHit]] = []
    for order, mount in enumerate(mounts):
        answer, result = _ask(opened, mount, text, identity, options, embedders)
        out.vaults.append(answer)
        for rank, hit in enumerate(result.hits if result else [], 1):
            scope_rank = SCOPES.index(mount.scope) if mount.scope in SCOPES else len(SCOPES)
            item = WorkspaceHit(mount.name, mount.scope, rank, hit)
            pooled.append((-hit.score, rank, scope_rank, order, item))
    pooled.sort(key=lambda t: t[:4])
    _fit(
        out,
        [t[4] for t in pooled],
        int(options.get("limit", 10)),
        int(options.get("max_tokens", 2000)),
    )
    return out


def _fit(out: WorkspaceRecall, ranked: list[WorkspaceHit], limit: int, budget: int) -> None:
    """The limit and the token budget over the merged list (each vault already kept to them)."""
    for item in ranked[:limit]:
        if out.total_tokens + item.hit.tokens > budget:
            out.truncated = True
            return
        out.hits.append(item)
        out.total_tokens += item.hit.tokens
    out.truncated = out.truncated or len(ranked) > limit


def _ask(
    opened: dict[str, Vault],
    mount: Mount,
    text: str,
    identity: Identity | None,
    options: dict[str, Any],
    embedders: dict[str, Embedder | None],
) -> tuple[VaultAnswer, RecallResult | None]:
    """One vault's recall; a missing, unreadable or broken vault becomes an unavailable answer
    (its error translated here, at the boundary), never an error of the whole recall."""
    try:
        vault = opened.get(mount.name)
        if vault is None:
            vault = open_mount(mount, _embedder(mount, embedders))
            opened[mount.name] = vault
        result = vault.recall(text, identity=identity, **options)
    except (ClawqlError, OSError) as exc:
        return VaultAnswer(
            mount.name, mount.scope, False, reason=str(exc) or type(exc).__name__
        ), None
    answer = VaultAnswer(
        mount.name,
        mount.scope,
        True,
        commit=result.commit,
        layers=tuple(result.layers),
        hits=len(result.hits),
        audit_ref=result.audit_ref,
        index_note=result.index_note,
    )
    return answer, result


def _embedder(mount: Mount, cache: dict[str, Embedder | None]) -> Embedder | None:
    """One embedder per model name across the workspace (loading a model is the slow part)."""
    from clawql_git.config import resolve_settings
    from clawql_git.index.embedders import resolve_embedder

    model = resolve_settings(mount.path).embedding_model if mount.path.is_dir() else ""
    if model not in cache:
        import os

        cache[model] = resolve_embedder(model or None, os.environ)
    return cache[model]
