"""How an ingest acts on what the duplicate check found: the entry ``--supersede`` replaces, the
second change of that one commit, and the warnings and fields of the write result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from clawql_git.errors import VaultStateError

if TYPE_CHECKING:
    from clawql_git.model.entry import Entry
    from clawql_git.vault.sameness import Findings
    from clawql_git.vault.writer import Plan, WriteResult


def supersede_target(found: Findings | None, supersede: bool) -> str:
    """The entry ``--supersede`` marks: the one contradicted most, else the one repeated most;
    "" without ``supersede``. Nothing to supersede refuses the write (nothing is written)."""
    if not supersede:
        return ""
    if found is not None and found.contradictions:
        return found.contradictions[0].path
    if found is not None and found.duplicates:
        return found.duplicates[0].path
    why = found.note if found is not None and found.note else "the duplicate check is off"
    if found is not None and not found.note:
        why = "no current entry is repeated or contradicted by it"
    raise VaultStateError(
        f"nothing to supersede: {why}; nothing was written (name one with "
        "`clawql memory supersede OLD NEW` after the ingest)"
    )


def add_supersede(plan: Plan, old: Entry, new_path: str) -> None:
    """Mark ``old`` superseded by the entry ``plan`` writes at ``new_path``, in the same commit."""
    if old.status != "current":
        raise VaultStateError(f"{old.path} is {old.status} now; nothing was written")
    target = str(PurePosixPath(new_path).with_suffix(""))
    plan.changes[old.path] = old.with_changes({"status": "superseded", "superseded_by": target})
    plan.extra_trailers.append(("Supersedes", old.path))
    plan.subject += f", superseding {old.path}"


def reported(result: WriteResult, draft_warning: str, found: Findings | None) -> WriteResult:
    """The write result with the check's findings and their warnings."""
    if result.noop:
        return result
    notes = [draft_warning, result.warning]
    dups = found.duplicates if found is not None else ()
    contras = found.contradictions if found is not None else ()
    superseded = set(result.paths[1:])
    dups = tuple(m for m in dups if m.path not in superseded and m.path != result.path)
    contras = tuple(m for m in contras if m.path not in superseded and m.path != result.path)
    if dups:
        names = ", ".join(f"{m.path} ({m.score:.2f})" for m in dups)
        notes.append(f"nearly repeats {names}: --append adds to it, --supersede replaces it")
    for m in contras:
        notes.append(
            f"contradicts {m.path}: {m.reason}; resolve with "
            f"`clawql memory supersede {m.path} {result.path}`"
        )
    warning = "; ".join(n for n in notes if n)
    return replace(result, warning=warning, duplicates=dups, contradictions=contras)
