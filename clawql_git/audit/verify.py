"""``verify``: prove that nothing was rewritten, and say what could not be proved. Checks git
fsck on the real objects, that nothing substitutes them (replace refs, grafts, a forged shallow
list), that the audit chain is linear, that every engine commit's trailers agree with what it
changed and that the engine committed it, that the catalogs' log is the one the trailers make,
that every record of where a ref has been (checkpoints, reflog, pushes) is still in its
history, that HEAD holds no symbolic link, submodule or name a checkout cannot hold, and,
with a signing key, that engine-labelled commits are signed. Tampering is reported
with the commit and the problem; nothing is repaired. See docs/security.md, "What verify
proves"."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from clawql_git.audit import anchors
from clawql_git.audit.anchors import ENGINE, Findings
from clawql_git.audit.signed import NO_REPLACE, signatures, vault_signers
from clawql_git.gitstore import AUDIT_REF, Commit, GitStore, parse_trailers
from clawql_git.model.paths import (
    folders_of,
    is_entry_path,
    portable_path_problem,
    tree_collisions,
)

if TYPE_CHECKING:
    from clawql_git.catalog.update import Cataloger

MERGE_EVENTS = frozenset({"MEMORY_MERGE", "MEMORY_REVIEW"})


@dataclass
class VerifyReport:
    """What verify checked, what it found (tampering), and what it could not prove (limits)."""

    checks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)
    anchored: bool = False  # a record this repository kept names a commit of its branch

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_record(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "anchored": self.anchored,
            "checks": self.checks,
            "problems": self.problems,
            "limits": self.limits,
        }

    def verdict(self) -> str:
        """One line: verified, verified only as self-consistent, or how many problems."""
        if not self.ok:
            return f"{len(self.problems)} problem(s) found"
        if not self.anchored:
            return "verified as self-consistent only: nothing here anchors this history"
        return "verified"


def verify_vault(
    store: GitStore, signing_key: Path | None = None, cataloger: Cataloger | None = None
) -> VerifyReport:
    """Run every check (signatures with ``signing_key`` or committed allowed signers; the
    catalogs' log against its regeneration with ``cataloger``)."""
    found = Findings()
    _fsck(store, found)
    anchors.substitutions(store, found)
    head_ref = store.head_ref_name()
    head = store.ref_commit(head_ref)
    _linear_audit(store, found)
    _trailers_agree(store, head, found)
    if cataloger is not None and head is not None:
        _log_agrees(cataloger, head, found)
    known = anchors.checkpoints(store, head_ref, found)
    anchors.reflog(store, head_ref, known, found)
    anchors.remotes(store, head_ref, found)
    anchors.audit_copies(store, found)
    signatures(store, head, vault_signers(store, signing_key), found)
    _no_links(store, head, found)
    anchored = any(cp.ref == head_ref for cp in known.lines)
    if not anchored and head is not None:
        found.limits.append(_NO_ANCHOR.format(ref=head_ref))
    return VerifyReport(found.checks, found.problems, found.limits, anchored)


_NO_ANCHOR = (
    "no anchor: the engine never recorded a checkpoint of {ref} here (a clone, or the "
    "checkpoints were deleted), so its history is only self-consistent; a rewrite made before "
    "this copy was taken cannot be seen from it"
)


def _no_links(store: GitStore, head: Commit | None, report: Findings) -> None:
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


def _portable(store: GitStore, head: Commit | None, report: Findings) -> None:
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


def _fsck(store: GitStore, report: Findings) -> None:
    result = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling", "--no-progress", "--full"],
        cwd=store.workdir,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **NO_REPLACE},
    )
    if result.returncode == 0:
        report.checks.append("git fsck --strict: clean")
        return
    lines = [x for x in (result.stdout + result.stderr).splitlines() if x.strip()]
    lines = [x for x in lines if not x.startswith("hint:")]
    report.problems.append("git fsck failed: " + "; ".join(lines[:10]))


def _linear_audit(store: GitStore, report: Findings) -> None:
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


def _trailers_agree(store: GitStore, head: Commit | None, report: Findings) -> None:
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
        _engine_committed(commit, event, report)
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
    report: Findings,
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


def _engine_committed(commit: Commit, event: str, report: Findings) -> None:
    """The engine commits every engine commit as ENGINE; git's amend, rebase or cherry-pick
    keep the trailers and author but put the person running them as committer."""
    if commit.committer.email != ENGINE:
        report.problems.append(
            f"git:{commit.id} ({event}) carries engine trailers but was committed by "
            f"{commit.committer.name} <{commit.committer.email}>, not the engine: made or "
            "rewritten with git by hand"
        )


def _log_agrees(cataloger: Cataloger, head: Commit, report: Findings) -> None:
    """log.md and log/*.md are regenerated from the commits' trailers: a difference is an edit."""
    drift = sorted(cataloger.drift(head))
    for path in [p for p in drift if _is_log(p)]:
        report.problems.append(
            f"{path} at git:{head.id} differs from the log its commits' trailers make: "
            "edited by hand"
        )
    stale = [p for p in drift if not _is_log(p)]
    if stale:
        report.limits.append(
            f"catalogs out of date ({', '.join(stale[:5])}): a hand commit; "
            "`clawql memory catalog --fix` regenerates them"
        )
    report.checks.append("log.md and log/ agree with the trailers of history")


def _is_log(path: str) -> bool:
    return path == "log.md" or path.startswith("log/")
