"""What verify holds history to: the objects themselves (no replace refs, grafts or a forged
shallow list in the way), and the records of where each ref has been (checkpoints, chained line
to line; the reflog; the remote-tracking refs, whose pushes the remote refuses to rewrite). Every
record here lives in the same $GIT_DIR as the history it anchors: what each can and cannot prove
is written in docs/security.md ("What verify proves")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from clawql_git.gitstore import (
    AUDIT_REF,
    PROPOSALS,
    Checkpoint,
    Commit,
    GitStore,
    chain_breaks,
    parse_trailers,
    read_checkpoints,
    recorded_head,
    tail_cut,
)

REPLACE = "refs/replace/"
REMOTES = "refs/remotes/"
MAX_LISTED = 20


@dataclass
class Findings:
    """Problems (tampering) and limits (what could not be proved) of one group of checks."""

    checks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- the objects themselves


def substitutions(store: GitStore, found: Findings) -> None:
    """refs/replace/*, info/grafts and a shallow list that hides present commits: each makes git
    (and libgit2, for grafts and shallow) show a history other than the one stored."""
    for ref in store.ref_names(REPLACE):
        target = store.ref_target(ref) or "?"
        found.problems.append(
            f"{ref} makes git show git:{target} in place of git:{ref[len(REPLACE) :]} "
            "(git replace): a substituted object is tampering"
        )
    grafts = store.gitdir / "info" / "grafts"
    if grafts.is_file() and grafts.read_text(errors="replace").strip():
        found.problems.append(
            f"{grafts} rewrites the parents git and libgit2 see (a graft): tampering"
        )
    _shallow(store, found)
    found.checks.append("no replace refs, grafts or forged shallow boundary")


def _shallow(store: GitStore, found: Findings) -> None:
    try:
        cut = (store.gitdir / "shallow").read_text().split()
    except FileNotFoundError:
        return
    for sha in cut:
        parents = store.stored_parents(sha) or []
        present = [p for p in parents if store.stored_parents(p) is not None]
        if present:
            found.problems.append(
                f"$GIT_DIR/shallow cuts history at git:{sha} though its parent git:{present[0]} "
                "is stored: the older history is hidden, not absent"
            )
        else:
            found.limits.append(
                f"shallow clone: history before git:{sha} is not here and is not verified"
            )


# ---------------------------------------------------------------- checkpoints


@dataclass(frozen=True)
class Recorded:
    """The checkpoint file as read, and whether its chain proves no line was taken out."""

    lines: list[Checkpoint]
    whole: bool


def checkpoints(store: GitStore, head_ref: str, found: Findings) -> Recorded:
    """Every recorded (ref, sha) is still an ancestor of its ref, and the file's chain is whole."""
    known = read_checkpoints(store.checkpoints_path)
    breaks = chain_breaks(known)
    for cp in breaks[:MAX_LISTED]:
        found.problems.append(
            f"checkpoint line {cp.number} ({cp.ref} git:{cp.sha}) does not follow from the line "
            "before it: lines of $GIT_DIR/clawql/checkpoints were edited or deleted"
        )
    cut = tail_cut(known, recorded_head(store.checkpoints_path))
    if cut:
        found.problems.append(
            "$GIT_DIR/clawql/checkpoints ends before its recorded newest line "
            "(checkpoints.head): lines were cut from its end, or the head was deleted"
        )
    by_ref: dict[str, list[str]] = {}
    for cp in known:
        by_ref.setdefault(cp.ref, []).append(cp.sha)
    rejected = _rejected(store, by_ref)
    for ref, shas in sorted(by_ref.items()):
        _ref_keeps(store, ref, shas, rejected, head_ref, found)
    found.checks.append(f"checkpoints still ancestors, chained line to line: {len(known)} checked")
    chained = any(cp.link for cp in known)
    return Recorded(known, chained and not breaks and not cut)


def _ref_keeps(
    store: GitStore,
    ref: str,
    shas: list[str],
    rejected: dict[str, set[str]],
    head_ref: str,
    found: Findings,
) -> None:
    tip = store.ref_commit(ref)
    if tip is None:
        if ref in (AUDIT_REF, head_ref):
            found.problems.append(f"{ref} is gone but {len(shas)} checkpoints name it")
        return
    lost = lost_commits(store, tip, shas)
    lost = [s for s in lost if not _reviewed(store, ref, s, rejected)]
    _report_lost(found, ref, tip, lost, "checkpoint")


def lost_commits(store: GitStore, tip: Commit, shas: Iterable[str]) -> list[str]:
    """Those of ``shas`` that are not ``tip`` or an ancestor of it (any parent counts: after a
    pull fast-forwards onto a teammate's merge, this clone's own commits are a second parent)."""
    reachable = {str(c.id) for c in store.walk(tip, first_parent=False)}
    return [s for s in dict.fromkeys(shas) if s not in reachable]


def _report_lost(found: Findings, ref: str, tip: Commit, lost: list[str], what: str) -> None:
    for sha in lost[:MAX_LISTED]:
        found.problems.append(
            f"{what} git:{sha} of {ref} is no longer an ancestor of its tip git:{tip.id}: "
            "history was rewritten (amend, rebase, reset or a deleted commit)"
        )
    if len(lost) > MAX_LISTED:
        found.problems.append(f"... and {len(lost) - MAX_LISTED} more lost {what}s of {ref}")


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


# ---------------------------------------------------------------- reflog


def reflog(store: GitStore, head_ref: str, known: Recorded, found: Findings) -> None:
    """Every commit the branch's reflog says it held is still in its history, and every engine
    commit the engine wrote here (reflog message = its subject) has its checkpoint."""
    tip = store.ref_commit(head_ref)
    moves = store.reflog(head_ref)
    # From the engine's first write on: a folder adopted as a vault may have a past of its own.
    first = next((i for i, (s, msg) in enumerate(moves) if _engine_wrote(store, s, msg)), None)
    if tip is None or first is None:
        return
    moves = moves[first:]
    recorded = {cp.sha for cp in known.lines if cp.ref == head_ref}  # lost ones: reported
    held = [s for s, _ in moves if s not in recorded]
    _report_lost(found, head_ref, tip, lost_commits(store, tip, held), "reflog entry")
    missing = [s for s, msg in moves if s not in recorded and _engine_wrote(store, s, msg)]
    _unrecorded(found, head_ref, missing, known.whole)
    found.checks.append(f"reflog of {head_ref} still in its history: {len(moves)} moves")


def _unrecorded(found: Findings, ref: str, missing: list[str], whole: bool) -> None:
    """Engine commits without a checkpoint. With the chain whole no line was taken out: a kill
    between a commit and its checkpoint, or a commit from before lines were chained, explains
    them. Without a whole chain the file (or its lines) was deleted."""
    if whole:
        if missing:
            found.limits.append(
                f"{len(missing)} engine commits of {ref} have no checkpoint (first "
                f"git:{missing[0]}): a process killed between commit and checkpoint, or written "
                "before checkpoints were chained"
            )
        return
    for sha in missing[:MAX_LISTED]:
        found.problems.append(
            f"git:{sha} was written on {ref} by the engine (its reflog says so) but has no "
            "checkpoint: lines of $GIT_DIR/clawql/checkpoints were deleted"
        )


def _engine_wrote(store: GitStore, sha: str, message: str) -> bool:
    """The engine names each move of a branch by the commit's subject, and commits as ENGINE."""
    commit = store.commit_of(sha)
    if commit is None or not parse_trailers(commit.message).get("Clawql-Event"):
        return False
    return message == commit.message.splitlines()[0] and commit.committer.email == ENGINE


ENGINE = "engine@clawql.local"  # the committer of every commit the engine writes


# ---------------------------------------------------------------- the team remote


def remotes(store: GitStore, head_ref: str, found: Findings) -> None:
    """What this clone pushed (recorded on its remote-tracking refs) is still in the branch; a
    branch that parted from its remote copy is said plainly (a pull, or a rewrite here)."""
    branch = head_ref.removeprefix("refs/heads/")
    tip = store.ref_commit(head_ref)
    tracking = [r for r in store.ref_names(REMOTES) if r.endswith(f"/{branch}")]
    if tip is None or not tracking:
        return
    for ref in tracking:
        pushed = [s for s, msg in store.reflog(ref) if msg.startswith("update by push")]
        _report_lost(found, head_ref, tip, lost_commits(store, tip, pushed), f"push to {ref}")
        theirs = store.ref_commit(ref)
        if theirs is None:
            continue
        if _related(store, tip, theirs):
            continue
        copies = _copies(store, tip, theirs)
        for original, copy in copies[:MAX_LISTED]:
            found.problems.append(
                f"git:{original} on {ref} was copied into git:{copy} of {head_ref} (same author, "
                "time and message): history the remote holds was rewritten here"
            )
        if not copies:
            found.limits.append(
                f"{head_ref} and {ref} have parted: the remote holds commits this branch lacks "
                "(a teammate's, until you pull; or this branch was rewritten after a push)"
            )
    found.checks.append(f"pushed commits still in {head_ref}: {len(tracking)} remote refs")


def _related(store: GitStore, ours: Commit, theirs: Commit) -> bool:
    """One contains the other (ahead, behind or equal)."""
    return store.is_ancestor(str(theirs.id), ours) or store.is_ancestor(str(ours.id), theirs)


def _copies(store: GitStore, ours: Commit, theirs: Commit) -> list[tuple[str, str]]:
    """(remote commit, local copy) pairs among the commits each side alone holds: a rebase or
    amend keeps author, author time and message, a teammate's new commit does not match."""
    mine = {str(c.id) for c in store.walk(ours, first_parent=False)}
    theirs_only = [c for c in store.walk(theirs, first_parent=False) if str(c.id) not in mine]
    if not theirs_only:
        return []
    remote = {str(c.id) for c in store.walk(theirs, first_parent=False)}
    ours_only = [c for c in store.walk(ours, first_parent=False) if str(c.id) not in remote]
    by_key = {_key(c): str(c.id) for c in ours_only}
    return [(str(c.id), by_key[_key(c)]) for c in theirs_only if _key(c) in by_key]


def _key(commit: Commit) -> tuple[str, int, str]:
    return (commit.author.email, commit.author.time, commit.message)


CLONE_ID = "clawql.cloneId"  # this clone's name for its audit chain on a team remote


def audit_copies(store: GitStore, found: Findings) -> None:
    """This clone's audit chain as fetched back from a team remote (which never forces it) is
    still contained in the local chain."""
    clone = store.config_get(CLONE_ID)
    mine = f"/audits/{clone}"
    copies = [r for r in store.ref_names("refs/clawql/remotes/") if clone and r.endswith(mine)]
    local = store.ref_commit(AUDIT_REF)
    for ref in copies:
        theirs = store.ref_commit(ref)
        if theirs is None:
            continue
        if local is None or not store.is_ancestor(str(theirs.id), local):
            found.problems.append(
                f"{AUDIT_REF} no longer holds git:{theirs.id}, the tip of its copy {ref} on the "
                "team remote: audit events were deleted here"
            )
    if copies:
        found.checks.append(f"audit chain holds its team-remote copy: {len(copies)} checked")
