"""Accepting a proposal: one merge commit on main (MEMORY_REVIEW, accepted) with the catalogs of
the merged tree, the work tree and index brought along, and the proposal branch deleted."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pygit2

from clawql_git.errors import (
    ConcurrentUpdate,
    InvalidInput,
    ReviewConflict,
    StorageError,
    VaultStateError,
)
from clawql_git.gitstore import GitStore, format_message, parse_trailers
from clawql_git.model.paths import is_entry_path
from clawql_git.review.proposals import (
    REVIEW_EVENT,
    Proposal,
    ReviewOutcome,
    branch_ref,
    get_proposal,
    is_generated,
    main_ref_name,
    must_exist,
    person_signature,
    reviewer_name,
)

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault


def accept_proposal(vault: Vault, branch: str, reviewer: str | None = None) -> ReviewOutcome:
    """Merge a proposal into main as one merge commit (MEMORY_REVIEW, accepted) with catalogs
    regenerated, update the work tree and index, and delete the branch (the merge keeps every
    proposal commit reachable and names the tip). A conflict with main merges nothing."""
    store = vault.store
    who = reviewer_name(store, reviewer)
    with store.lock():
        store.sync_checkout(update_index=False)
        main_ref = main_ref_name(store)
        proposal = get_proposal(store, branch)
        _refuse_self_review(proposal, who)
        main = must_exist(store.ref_commit(main_ref))
        tip = store.resolve(proposal.tip)
        files = _merge_files(store, proposal, main, tip)
        sha = _merge_commit(vault, main_ref, main, tip, files, proposal, who)
        store.repo.references.delete(branch_ref(branch))
        store.sync_checkout(update_index=True)
    written = tuple(p for p, data in files.items() if data is not None and is_entry_path(p))
    outcome = ReviewOutcome("accepted", proposal.branch, proposal.tip, who, sha, written)
    return _with_index(vault, outcome)


def _with_index(vault: Vault, outcome: ReviewOutcome) -> ReviewOutcome:
    """The merge is acknowledged whatever happens here: a failed index update is retried by the
    next recall (the index notices its stamp is behind HEAD)."""
    from clawql_git.errors import ClawqlError

    try:
        report = vault.update_index()
    except ClawqlError as exc:
        outcome.warnings.append(f"merged, but the index is not updated yet: {exc}")
        return outcome
    note = f"index {report.mode}: {report.changed} changed entries"
    return replace(outcome, index_note=note)


def _refuse_self_review(proposal: Proposal, who: str) -> None:
    if who == proposal.agent:
        raise VaultStateError(f"{who} wrote {proposal.branch}; a proposal needs another reviewer")


def _merge_files(
    store: GitStore, proposal: Proposal, main: pygit2.Commit, tip: pygit2.Commit
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


def _merge_commit(
    vault: Vault,
    ref: str,
    main: pygit2.Commit,
    tip: pygit2.Commit,
    files: dict[str, bytes | None],
    proposal: Proposal,
    who: str,
) -> str:
    """Write the two-parent merge commit and move main to it (writer lock held). Catalogs are
    computed from a provisional commit with the same tree, parents and message, so the
    merged history and the stored catalogs agree (``catalog_drift()`` is empty)."""
    store = vault.store
    written = sorted(p for p, d in files.items() if d is not None and is_entry_path(p))
    message = format_message(
        f"{REVIEW_EVENT}: accept {proposal.branch}",
        _accept_trailers(store, proposal, who, written, tip),
    )
    author = person_signature(store, who)
    committer = pygit2.Signature("clawql-git", "engine@clawql.local", author.time, 0)
    parents = [main.id, tip.id]
    draft_tree = store.build_tree(main.tree, files)
    draft = store.repo.create_commit(None, author, committer, message, draft_tree, parents)
    provisional = store.repo.get(draft)
    assert isinstance(provisional, pygit2.Commit)
    tree = store.build_tree(provisional.tree, merged_catalogs(vault, main, provisional, files))
    return _commit_merge(store, ref, main, tree, message, author, committer, parents)


def merged_catalogs(
    vault: Vault,
    main: pygit2.Commit,
    merged: pygit2.Commit,
    files: dict[str, bytes | None],
) -> dict[str, bytes | None]:
    """The catalogs of the merged tree without re-reading every entry: folder catalogs and the
    root index incrementally along the proposal's entries (main's catalogs are consistent, so
    only those folders change), and the log regenerated from the merged history (the
    proposal's commits interleave with main's by time, which no prepend can reproduce)."""
    from clawql_git.catalog import render as catalog
    from clawql_git.model.entry import Entry, decode_text
    from clawql_git.model.times import utc

    changed: dict[str, Entry | None] = {}
    for path in sorted(p for p in files if is_entry_path(p)):
        data = files[path]
        changed[path] = None if data is None else Entry.parse(path, decode_text(data, path))
    out = vault.cataloger.incremental(main.tree, files, changed, main, [])
    events = []
    for commit in reversed(list(vault.store.walk(merged, first_parent=False))):
        trailers = parse_trailers(commit.message).as_dict()
        events += catalog.events_from_trailers(utc(commit.author.time), trailers)
    logs = catalog.full_log(events, vault.settings.log_page_lines)
    out.update({p: text.encode() for p, text in logs.items()})
    old_pages = vault.store.subtree(main.tree, "log")
    for item in old_pages or ():
        out.setdefault(f"log/{item.name}", None)  # a page the regenerated log no longer has
    return out


def _commit_merge(
    store: GitStore,
    ref: str,
    main: pygit2.Commit,
    tree: pygit2.Oid,
    message: str,
    author: pygit2.Signature,
    committer: pygit2.Signature,
    parents: list[pygit2.Oid],
) -> str:
    """GitStore.commit writes single-parent commits only; this is its merge twin (same ref check,
    signing and checkpoint), kept here so the review feature stays in its own module."""
    current = store.ref_commit(ref)
    if current is None or current.id != main.id:
        raise ConcurrentUpdate(f"{ref} moved while the merge was being prepared")
    try:
        oid = store._create_commit(author, committer, message, tree, parents)
        store.repo.create_reference_direct(ref, oid, True, message=message.splitlines()[0])
    except (pygit2.GitError, OSError) as exc:
        raise StorageError(f"cannot write the merge commit on {ref}: {exc}") from exc
    store._checkpoint(ref, str(oid))
    return str(oid)


def _accept_trailers(
    store: GitStore, proposal: Proposal, who: str, written: list[str], tip: pygit2.Commit
) -> list[tuple[str, str]]:
    types = sorted({_entry_type(store, tip, p) for p in written}) or ["none"]
    pairs = [("Clawql-Event", REVIEW_EVENT), ("Review-Verdict", "accepted"), ("Reviewer", who)]
    pairs += [("Proposal-Branch", proposal.branch), ("Proposal-Tip", proposal.tip)]
    pairs += [("Proposal-Agent", proposal.agent or "none")]
    pairs += [("Entry-Path", p) for p in written]
    pairs += [
        ("Entry-Type", ",".join(types)),
        ("Agent-Id", who),
        ("Session-Id", proposal.session or "none"),
    ]
    return pairs


def _entry_type(store: GitStore, commit: pygit2.Commit, path: str) -> str:
    from clawql_git.model.entry import Entry, decode_text

    data = store.blob_at(commit.tree, path) or b""
    try:
        return Entry.parse(path, decode_text(data, path)).type or "none"
    except (InvalidInput, ValueError):
        return "none"
