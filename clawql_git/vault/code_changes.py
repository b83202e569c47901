"""Where the code graph meets the vault: a ``code_change`` entry describing what a range of
commits did to the symbols (affected symbols and files, breaking or not), and the
CODEGRAPH_INDEX_UPDATE events of the audit chain."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.codegraph.changes import MAX_LISTED, CodeChange, diff_symbols
from clawql_git.errors import NotFound

if TYPE_CHECKING:
    from clawql_git.codegraph.indexer import IndexReport
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.writer import WriteResult


def record_change(
    vault: Vault,
    root: Path,
    from_rev: str,
    to_rev: str,
    identity: Identity | None = None,
    reasoning: str = "",
) -> tuple[CodeChange, WriteResult]:
    """Write a ``type: code_change`` entry for the range into the vault (``breaking_change``,
    ``affected_symbols``, ``affected_files``); ``reasoning`` (Markdown: why the change was
    made, e.g. the session's decisions) becomes its ``## Reasoning`` section."""
    change = diff_symbols(root, from_rev, to_rev)
    title = f"Code change {change.from_rev[:10]}..{change.to_rev[:10]}"
    if change.subjects:
        title += f": {change.subjects[0][:80]}"
    meta: dict[str, Any] = {
        "affected_symbols": [f"{s.file}:{s.qualname}" for s in change.symbols][:MAX_LISTED],
        "affected_files": list(change.files)[:MAX_LISTED],
        "breaking_change": change.breaking,
        "from_rev": change.from_rev,
        "to_rev": change.to_rev,
        "resource": root.resolve().as_uri(),
    }
    result = vault.ingest(
        type="code_change",
        title=title,
        body=change.body()
        + (f"\n## Reasoning\n\n{reasoning.strip()}\n" if reasoning.strip() else ""),
        description=change.summary()[:300],
        tags=["code_change"],
        meta=meta,
        identity=identity,
    )
    return change, result


def record_index_update(vault: Vault, root: Path, report: IndexReport, agent: str = "") -> str:
    """Append a CODEGRAPH_INDEX_UPDATE event (which files the update re-read) to the vault's
    audit chain; returns the event's commit sha."""
    from clawql_git.audit.chain import AuditChain

    head = vault.store.head_commit()
    if head is None:
        raise NotFound(f"the vault at {vault.root} has no commit to record against")
    extra = [
        ("Codegraph-Repo", str(root)),
        ("Codegraph-Files", str(len(report.changed))),
        ("Codegraph-Symbols", str(report.symbols)),
        *[("Codegraph-Path", p) for p in report.changed[:50]],
    ]
    from clawql_git.recall.layers import attach_code

    attach_code(vault.store.state_dir, root)  # recall searches this graph from now on
    return AuditChain(vault.store).record(
        "CODEGRAPH_INDEX_UPDATE", read_commit=head, agent=agent or "clawql-codegraph", extra=extra
    )
