"""``verify``: prove that nothing was rewritten. Checks git fsck, that the audit chain is
linear, that every engine commit's trailers agree with what it changed, and that every
checkpoint the vault knows is still an ancestor of its ref, and that HEAD holds no symbolic
link or submodule. Tampering is reported with the
commit and the problem; nothing is repaired."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from clawql_git.gitstore import AUDIT_REF, CHECKPOINTS, PROPOSALS, Commit, GitStore, parse_trailers
from clawql_git.model.paths import (
    folders_of,
    is_entry_path,
    portable_path_problem,
    tree_collisions,
)

MERGE_EVENTS = frozenset({"MEMORY_MERGE", "MEMORY_REVIEW"})


@dataclass
class VerifyReport:
    """What verify checked and what it found."""

    checks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_record(self) -> dict[str, object]:
        return {"ok": self.ok, "checks": self.checks, "problems": self.problems}


def checkpoints_path(store: GitStore) -> Path:
    return store.state_dir / CHECKPOINTS


def read_checkpoints(store: GitStore) -> list[tuple[str, str]]:
    """(ref, sha) pairs recorded after every engine commit (and from remote manifests)."""
    try:
        lines = checkpoints_path(store).read_text().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and len(parts[1]) == 40:  # a torn last line is skipped
            out.append((parts[0], parts[1]))
    return out


def verify_vault(store: GitStore) -> VerifyReport:
    """Run every check."""
    report = VerifyReport()
    _fsck(store, report)
    head_ref = store.head_ref_name()
    _linear_audit(store, report)
    _trailers_agree(store, store.ref_commit(head_ref), report)
    _checkpoints(store, report)
    _no_links(store, store.ref_commit(head_ref), report)
    return report


def _no_links(store: GitStore, head: Commit | None, report: VerifyReport) -> None:
    """A symbolic link or submodule in HEAD's tree: a checkout follows it out of the vault,
    and the writer refuses every write until it is removed."""
    found = store.special_entries(head.tree if head is not None else None, set())
    for path, kind in found:
        report.problems.append(
            f"HEAD holds a {kind} at {path}; engine writes are refused until it is removed "
            f"(`git rm {path}`, then `git commit`)"
        )
    if not found:
        report.checks.append("no symbolic links or submodules in HEAD")
    _portable(store, head, report)


def _portable(store: GitStore, head: Commit | None, report: VerifyReport) -> None:
    """Names in HEAD some checkout (Linux, macOS, Windows) cannot hold; pulled or hand-made,
    since the writer refuses them."""
    files = [p for p, _, is_tree in store.tree_items(head.tree if head else None) if not is_tree]
    before = len(report.problems)
    for path in files:
        problem = portable_path_problem(path)
        if problem is not None:
            report.problems.append(f"HEAD holds {path}, which some checkout cannot hold: {problem}")
    folders: dict[str, list[str]] = {}
    for path in files:
        for folder, name in folders_of(path):
            folders.setdefault(folder, []).append(name)
    listing = lambda folder: folders.get(folder, ())  # noqa: E731
    pairs = {tuple(sorted(pair)) for pair in tree_collisions(files, listing)}
    for first, second in sorted(pairs):
        report.problems.append(f"HEAD holds {first} and {second}, one file on macOS and Windows")
    if len(report.problems) == before:
        report.checks.append(f"every name in HEAD fits every checkout: {len(files)} files")


def _fsck(store: GitStore, report: VerifyReport) -> None:
    result = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling", "--no-progress", "--full"],
        cwd=store.workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0:
        report.checks.append("git fsck --strict: clean")
        return
    lines = [x for x in (result.stdout + result.stderr).splitlines() if x.strip()]
    report.problems.append("git fsck failed: " + "; ".join(lines[:10]))


def _linear_audit(store: GitStore, report: VerifyReport) -> None:
    tip = store.ref_commit(AUDIT_REF)
    count = 0
    for commit in store.walk(tip):
        count += 1
        if len(commit.parents) > 1:
            report.problems.append(
                f"audit commit git:{commit.id} is a merge; the chain must be linear"
            )
        if not parse_trailers(commit.message).get("Clawql-Event"):
            report.problems.append(f"audit commit git:{commit.id} carries no Clawql-Event trailer")
    report.checks.append(f"audit chain linear: {count} events")


def _trailers_agree(store: GitStore, head: Commit | None, report: VerifyReport) -> None:
    count = 0
    for commit in store.walk(head):
        trailers = parse_trailers(commit.message)
        event = trailers.get("Clawql-Event")
        if not event:
            continue
        count += 1
        if len(commit.parents) > 1 and event not in MERGE_EVENTS:
            report.problems.append(
                f"git:{commit.id} ({event}) has {len(commit.parents)} parents: engine commits "
                "are linear"
            )
        _one_commit(
            store,
            commit,
            event,
            trailers.entry_paths(),
            trailers.get("Archived-From"),
            report,
        )
    report.checks.append(f"trailers agree with changes: {count} engine commits")


def _one_commit(
    store: GitStore,
    commit: Commit,
    event: str,
    named: list[str],
    moved_from: str,
    report: VerifyReport,
) -> None:
    parent = commit.parents[0].tree if commit.parents else None
    changed = {p for p, _, _ in store.diff_paths(parent, commit.tree) if is_entry_path(p)}
    for path in named:
        if path not in changed:
            report.problems.append(
                f"git:{commit.id} ({event}) names Entry-Path {path} but did not change it "
                "(forged or edited trailers)"
            )
    expected = set(named) | ({moved_from} if moved_from else set())
    # No event may change an entry it does not name (a catalog repair or a schema commit
    # names none, so it may change none); merges bring the other side's entries.
    if event in MERGE_EVENTS:
        return
    for path in sorted(changed - expected):
        report.problems.append(
            f"git:{commit.id} ({event}) changed {path} without naming it in its trailers"
        )


def _checkpoints(store: GitStore, report: VerifyReport) -> None:
    known = read_checkpoints(store)
    by_ref: dict[str, list[str]] = {}
    for ref, sha in known:
        by_ref.setdefault(ref, []).append(sha)
    rejected = _rejected(store, by_ref)
    for ref, shas in sorted(by_ref.items()):
        tip = store.ref_commit(ref)
        if tip is None:
            if ref == AUDIT_REF or ref == store.head_ref_name():
                report.problems.append(f"{ref} is gone but {len(shas)} checkpoints name it")
            continue
        # Any ancestor counts: after a pull fast-forwards onto a teammate's merge, this clone's
        # own commits are that merge's second parent, not on the first-parent chain.
        reachable = {str(c.id) for c in store.walk(tip, first_parent=False)}
        lost = [s for s in dict.fromkeys(shas) if s not in reachable]
        lost = [s for s in lost if not _reviewed(store, ref, s, rejected)]
        for sha in lost[:20]:
            report.problems.append(
                f"checkpoint git:{sha} of {ref} is no longer an ancestor of its tip "
                f"git:{tip.id}: history was rewritten (amend, rebase, reset or a deleted commit)"
            )
        if len(lost) > 20:
            report.problems.append(f"... and {len(lost) - 20} more lost checkpoints of {ref}")
    report.checks.append(f"checkpoints still ancestors: {len(known)} checked")


def _rejected(store: GitStore, by_ref: dict[str, list[str]]) -> dict[str, set[str]]:
    """Commits of rejected proposals, by branch (named by their MEMORY_REVIEW events)."""
    return rejected_commits(store) if any(r.startswith(PROPOSALS) for r in by_ref) else {}


def _reviewed(store: GitStore, ref: str, sha: str, rejected: dict[str, set[str]]) -> bool:
    """A proposal branch name used again after review: its earlier commits were accepted (now
    in main's history) or rejected (named on the audit chain); neither is a rewrite."""
    return ref.startswith(PROPOSALS) and closed_proposal_commit(store, ref, sha, rejected)


def rejected_commits(store: GitStore) -> dict[str, set[str]]:
    """Proposal ref -> the commits its rejections dropped (from the audit chain), so verify
    excuses checkpoints of a rejected proposal when its branch name is used again."""
    out: dict[str, set[str]] = {}
    for commit in store.walk(store.ref_commit(AUDIT_REF)):
        trailers = parse_trailers(commit.message)
        if trailers.get("Clawql-Event") != "MEMORY_REVIEW":
            continue
        if trailers.get("Review-Verdict") != "rejected":
            continue
        ref = f"refs/heads/{trailers.get('Proposal-Branch')}"
        out.setdefault(ref, set()).update(trailers.get_all("Proposal-Commit"))
    return out


def closed_proposal_commit(
    store: GitStore, ref: str, sha: str, rejected: dict[str, set[str]]
) -> bool:
    """True when ``sha``, once on proposal ``ref``, left it by review rather than by a rewrite:
    a rejection named it, or an accepted merge made it part of main's history."""
    if sha in rejected.get(ref, set()):
        return True
    main = store.head_commit()
    return main is not None and store.is_ancestor(sha, main)
