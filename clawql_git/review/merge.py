"""Accepting a proposal: one merge commit on main (MEMORY_REVIEW, accepted), written by the
vault's writer with the catalogs of the merged tree; the work tree and index follow and the
proposal branch is deleted."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from clawql_git.errors import ClawqlError, ReviewConflict, VaultStateError
from clawql_git.gitstore import Commit, GitStore, Tree
from clawql_git.model.entry import Entry, decode_text
from clawql_git.model.identity import Identity
from clawql_git.model.paths import is_entry_path
from clawql_git.review.proposals import (
    REVIEW_EVENT,
    Proposal,
    ReviewOutcome,
    branch_ref,
    get_proposal,
    is_generated,
    must_exist,
    reviewer_name,
    sign_as_reviewer,
)
from clawql_git.vault.routing import main_ref_name
from clawql_git.vault.writer import Plan

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault


def accept(vault: Vault, branch: str, reviewer: str | None = None) -> ReviewOutcome:
    """Merge a proposal into main as one merge commit (MEMORY_REVIEW, accepted) with catalogs
    regenerated, update the work tree and index, and delete the branch (the merge keeps every
    proposal commit reachable and names the tip). A conflict with main merges nothing."""
    store = vault.store
    sign_as_reviewer(vault)
    who = reviewer_name(store, reviewer)
    seen: list[Proposal] = []

    def prepare(main_tree: Tree | None) -> Plan:
        proposal = get_proposal(store, branch)
        seen.append(proposal)
        _refuse_self_review(proposal, who, vault.writer.acting())
        main = must_exist(store.ref_commit(main_ref_name(store)))
        tip = store.resolve(proposal.tip)
        return _merge_plan(store, proposal, main, tip, who)

    result = vault.writer.write(prepare, Identity(agent_id=who), to="main")
    proposal = seen[-1]
    outcome = ReviewOutcome(
        "accepted", proposal.branch, proposal.tip, who, result.sha, result.paths
    )
    return _with_index(vault, outcome)


def _merge_plan(store: GitStore, proposal: Proposal, main: Commit, tip: Commit, who: str) -> Plan:
    files = _merge_files(store, proposal, main, tip)
    changed: dict[str, Entry | None] = {}
    for path in sorted(p for p in files if is_entry_path(p)):
        data = files[path]
        changed[path] = None if data is None else Entry.parse(path, decode_text(data, path))
    extra = [
        ("Review-Verdict", "accepted"),
        ("Reviewer", who),
        ("Proposal-Branch", proposal.branch),
        ("Proposal-Tip", proposal.tip),
        ("Proposal-Agent", proposal.agent or "none"),
    ]
    return Plan(
        REVIEW_EVENT,
        changed,
        f"accept {proposal.branch}",
        extra_trailers=extra,
        raw_files=files,  # the proposal's bytes exactly as reviewed
        merge=tip,
        person=who,
        identity=Identity(agent_id=who, session_id=proposal.session),
        closes=branch_ref(proposal.branch),
    )


def _with_index(vault: Vault, outcome: ReviewOutcome) -> ReviewOutcome:
    """The merge is acknowledged whatever happens here: a failed index update is retried by the
    next recall (the index notices its stamp is behind HEAD)."""
    try:
        report = vault.update_index()
    except ClawqlError as exc:
        outcome.warnings.append(f"merged, but the index is not updated yet: {exc}")
        return outcome
    note = f"index {report.mode}: {report.changed} changed entries"
    return replace(outcome, index_note=note)


def _refuse_self_review(proposal: Proposal, who: str, acting: str) -> None:
    """The author never accepts its own proposal: not under its own name, and not from a
    process that runs as the author (--agent / CLAWQL_AGENT_ID) naming someone else."""
    for name in (who, acting):
        if name and name == proposal.agent:
            raise VaultStateError(
                f"{name} wrote {proposal.branch}; a proposal needs another reviewer"
            )


def _merge_files(
    store: GitStore, proposal: Proposal, main: Commit, tip: Commit
) -> dict[str, bytes | None]:
    """The proposal's own changes (since the merge base) laid over main. Generated catalogs are
    left out: they are regenerated for the merged tree. A path both sides changed differently
    is a conflict, reported and never resolved silently."""
    base = store.tree_of(proposal.base)
    theirs = [(p, new) for p, _, new in store.diff_paths(base, tip.tree) if not is_generated(p)]
    ours = {p: new for p, _, new in store.diff_paths(base, main.tree) if not is_generated(p)}
    conflicts = sorted(p for p, new in theirs if p in ours and ours[p] != new)
    if conflicts:
        raise ReviewConflict(proposal.branch, conflicts)
    if not theirs:
        raise VaultStateError(f"{proposal.branch} has nothing that main does not already hold")
    return {p: (None if new is None else store.blob_at(tip.tree, p)) for p, new in theirs}
