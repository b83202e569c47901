"""Review through proposal branches: with ``[policy] review = "required"`` in the vault settings
committed on main, every write made through the engine (an agent's write) is committed on
``proposals/<agent>/<session>`` instead of main; a human lists, accepts (a merge commit with
MEMORY_REVIEW trailers) or rejects (a MEMORY_REVIEW event on the audit chain) each proposal."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from clawql_git.config import VAULT_TOML
from clawql_git.errors import InvalidInput, NotFound
from clawql_git.gitstore import (
    PROPOSALS,
    Commit,
    GitStore,
    Tree,
    parse_trailers,
    valid_ref_name,
)
from clawql_git.model.identity import Identity
from clawql_git.model.paths import is_entry_path
from clawql_git.vault.routing import ReviewPolicy, effective_policy, main_ref_name
from clawql_git.vault.writer import Plan

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault

REVIEW_EVENT = "MEMORY_REVIEW"
SIGNERS_PATH = ".clawql/allowed_signers"


# ---------------------------------------------------------------- policy


def set_review_policy(
    vault: Vault,
    required: bool,
    who: str,
    exempt: Iterable[str] | None = None,
    reviewers: Iterable[str] | None = None,
    allowed_signers: bytes | None = None,
) -> str:
    """Commit ``[policy] review`` into ``.clawql/vault.toml`` on main (a MEMORY_POLICY commit
    by a person, never routed to a proposal); returns the commit sha. A change is itself a write
    under the policy: while review is required only a reviewer makes it (the writer refuses
    anyone else). ``exempt``, ``reviewers`` and ``allowed_signers`` (the file's bytes, committed
    at ``.clawql/allowed_signers``) replace those rules; left None they stay as the engine
    enforces them, so a hand commit's weakening is written back, never adopted."""
    import tomli_w

    state = "required" if required else "off"

    def prepare(tree: Tree | None) -> Plan:
        policy = _replaced(current_policy(vault.store), exempt, reviewers, allowed_signers)
        raw = vault.store.blob_at(tree, VAULT_TOML) or b""
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8")) if raw else {}
        data["policy"] = policy.table(data.get("policy", {}), state)
        files: dict[str, bytes | None] = {VAULT_TOML: tomli_w.dumps(data).encode()}
        if policy.keyed:  # the keys the engine enforces, not a hand-edited file
            files[policy.signers_path] = policy.signers
        return Plan(
            "MEMORY_POLICY",
            {},
            f"review {state}",
            extra_trailers=[("Review-Policy", state)],
            raw_files=files,
            person=who,
        )

    return vault.writer.write(prepare, Identity(agent_id=who), to="main").sha


def _replaced(
    policy: ReviewPolicy,
    exempt: Iterable[str] | None,
    reviewers: Iterable[str] | None,
    signers: bytes | None,
) -> ReviewPolicy:
    if exempt is not None:
        policy = replace(policy, exempt=frozenset(e.strip() for e in exempt if e.strip()))
    if reviewers is not None:
        policy = replace(policy, reviewers=frozenset(r.strip() for r in reviewers if r.strip()))
    if signers is not None:
        policy = replace(policy, signers_path=SIGNERS_PATH, signers=signers)
    return policy


def current_policy(store: GitStore) -> ReviewPolicy:
    """The review policy in force on main (``effective_policy``: hand-made weakenings ignored)."""
    return effective_policy(store, store.ref_commit(main_ref_name(store)))


def sign_as_reviewer(vault: Vault) -> None:
    """Under a keyed policy a reviewer's write must be signed: sign with the configured key
    (``signing_key`` setting or `git config user.signingkey`) when none is enabled yet. Without
    one the write is refused later, naming what is missing."""
    if vault.store.signing_key is not None or not current_policy(vault.store).keyed:
        return
    try:
        vault.enable_signing()
    except InvalidInput:
        return


# ---------------------------------------------------------------- proposals


@dataclass(frozen=True)
class Proposal:
    """One proposal branch: who proposed, what it changes against main, and since when."""

    branch: str
    tip: str
    base: str
    agent: str
    session: str
    entries: tuple[str, ...]
    commits: int
    created: int
    updated: int

    def to_record(self, now: float | None = None) -> dict[str, Any]:
        age = int((now or time.time()) - self.created)
        return {
            "branch": self.branch,
            "tip": self.tip,
            "base": self.base,
            "agent": self.agent,
            "session": self.session,
            "entries": len(self.entries),
            "paths": list(self.entries),
            "commits": self.commits,
            "created": _iso(self.created),
            "updated": _iso(self.updated),
            "age_seconds": age,
            "age": human_age(age),
        }


def list_proposals(store: GitStore) -> list[Proposal]:
    """Every proposal branch, oldest first."""
    main = store.ref_commit(main_ref_name(store))
    found = [_proposal(store, name, main) for name in store.ref_names(PROPOSALS)]
    return sorted((p for p in found if p is not None), key=lambda p: (p.created, p.branch))


def get_proposal(store: GitStore, branch: str) -> Proposal:
    """One proposal by branch name (``proposals/a/s`` or its full ref); NotFound otherwise."""
    ref = branch_ref(branch)
    proposal = _proposal(store, ref, store.ref_commit(main_ref_name(store)))
    if proposal is None:
        raise NotFound(f"no proposal branch {branch!r} (`clawql review list` shows the open ones)")
    return proposal


def branch_ref(branch: str) -> str:
    """The full ref of a proposal branch; NotFound for anything that is not one."""
    name = branch.removeprefix("refs/heads/")
    if not name.startswith("proposals/") or not valid_ref_name(f"refs/heads/{name}"):
        raise NotFound(
            f"{branch!r} is not a proposal branch (they are named proposals/<agent>/<session>)"
        )
    return f"refs/heads/{name}"


def _proposal(store: GitStore, ref: str, main: Commit | None) -> Proposal | None:
    tip = store.ref_commit(ref)
    if tip is None or main is None:
        return None
    base = store.merge_base(main, tip)
    base_tree = base.tree if base is not None else None
    base_id = str(base.id) if base is not None else ""
    own = _own_commits(store, tip, base_id)
    first = own[-1] if own else tip
    trailers = parse_trailers(first.message)
    paths = tuple(p for p, _, _ in store.diff_paths(base_tree, tip.tree) if is_entry_path(p))
    return Proposal(
        branch=ref.removeprefix("refs/heads/"),
        tip=str(tip.id),
        base=base_id,
        agent=_none(trailers.get("Agent-Id")),
        session=_none(trailers.get("Session-Id")),
        entries=paths,
        commits=len(own),
        created=first.commit_time,
        updated=tip.commit_time,
    )


def _own_commits(store: GitStore, tip: Commit, base: str) -> list[Commit]:
    """The proposal's commits, newest first (first-parent, down to the merge base)."""
    out = []
    for commit in store.walk(tip):
        if base and str(commit.id) == base:
            break
        out.append(commit)
    return out


# ---------------------------------------------------------------- accept / reject


@dataclass(frozen=True)
class ReviewOutcome:
    """What accept or reject did."""

    verdict: str
    branch: str
    proposal_tip: str
    reviewer: str
    commit: str  # the merge commit on main (accepted) or the audit event (rejected)
    paths: tuple[str, ...] = ()
    reason: str = ""
    index_note: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        key = "merge_commit" if self.verdict == "accepted" else "audit_ref"
        return {
            "verdict": self.verdict,
            "branch": self.branch,
            "proposal_tip": self.proposal_tip,
            "reviewer": self.reviewer,
            key: f"git:{self.commit}",
            "paths": list(self.paths),
            "reason": self.reason or None,
            "index": self.index_note or None,
            "warnings": self.warnings,
        }


def reviewer_name(store: GitStore, reviewer: str | None) -> str:
    """The reviewer: given; else, while review is required, the one reviewer the signing key
    proves (keyed policy) and otherwise nobody: git's ``user.name`` is set by whoever runs the
    command, the agent included, so it names no reviewer then. With review off, ``user.name``."""
    if reviewer and reviewer.strip():
        return reviewer.strip()
    policy = current_policy(store)
    if policy.required:
        proven = policy.proven(store)
        candidates = proven & policy.reviewers if policy.reviewers else proven
        if len(candidates) == 1:
            return next(iter(candidates))
        raise InvalidInput(
            "review is required: name the reviewer with --reviewer"
            + (" and sign with their key" if policy.keyed else "")
            + " (git's user.name is not taken: an agent sets it as easily as anyone)"
        )
    name = store.config_get("user.name").strip()
    if not name:
        raise InvalidInput("who reviews? pass --reviewer or set `git config user.name`")
    return name


def reject(vault: Vault, branch: str, reason: str, reviewer: str | None = None) -> ReviewOutcome:
    """Record a MEMORY_REVIEW rejected event on the audit chain (its tree is the proposal's, so
    what was turned down stays inspectable) and delete the branch; main is never touched."""
    from clawql_git.audit.chain import AuditChain

    if not reason.strip():
        raise InvalidInput("a rejection needs a reason (--reason)")
    store = vault.store
    who = reviewer_name(store, reviewer)
    with store.lock():
        proposal = get_proposal(store, branch)
        _may_reject(vault, proposal, who)
        tip = store.resolve(proposal.tip)
        extra = [
            ("Review-Verdict", "rejected"),
            ("Reviewer", who),
            ("Proposal-Branch", proposal.branch),
            ("Proposal-Tip", proposal.tip),
            ("Proposal-Agent", proposal.agent or "none"),
            ("Reason", " ".join(reason.split())[:500]),
        ] + [("Entry-Path", p) for p in proposal.entries]
        # The rejected commits become unreachable; naming them lets verify tell a rejection
        # from a rewrite when the same branch name is used again.
        extra += [("Proposal-Commit", str(c.id)) for c in _own_commits(store, tip, proposal.base)]
        sha = AuditChain(store).record(
            REVIEW_EVENT, tip, who, proposal.session, query=f"reject {proposal.branch}", extra=extra
        )
        store.delete_ref(branch_ref(branch))
    return ReviewOutcome(
        "rejected", proposal.branch, proposal.tip, who, sha, proposal.entries, reason
    )


def _may_reject(vault: Vault, proposal: Proposal, who: str) -> None:
    """Under required review, closing a proposal is a reviewer's act like accepting one: an
    agent (by name, or a process running as one) may withdraw its own proposal, never close
    another's; with reviewers listed (or keys), only they reject."""
    from clawql_git.model.identity import Identity
    from clawql_git.vault.routing import admit

    acting = vault.writer.acting()
    if proposal.agent and proposal.agent in (who, acting) and acting in ("", proposal.agent):
        return  # the author withdrawing its own proposal
    admit(vault.store, "main", who, Identity(agent_id=who), acting)


# ---------------------------------------------------------------- small helpers


def is_generated(path: str) -> bool:
    """Catalog and log files: regenerated after a merge, never merged."""
    name = path.rsplit("/", 1)[-1]
    return name == "index.md" or path == "log.md" or path.startswith("log/")


def must_exist(commit: Commit | None) -> Commit:
    if commit is None:
        raise NotFound("main has no commits yet")
    return commit


def _none(value: str) -> str:
    return "" if value in ("", "none") else value


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def human_age(seconds: int) -> str:
    """``42s``, ``5m``, ``3h``, ``2d``."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{max(seconds, 0)}s"
