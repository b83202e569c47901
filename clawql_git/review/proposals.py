"""Review through proposal branches: with ``[policy] review = "required"`` in the vault settings
committed on main, every write made through the engine (an agent's write) is committed on
``proposals/<agent>/<session>`` instead of main; a human lists, accepts (a merge commit with
MEMORY_REVIEW trailers) or rejects (a MEMORY_REVIEW event on the audit chain) each proposal."""

from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygit2

from clawql_git.config import VAULT_TOML
from clawql_git.errors import (
    InvalidInput,
    NotFound,
    StorageError,
    VaultStateError,
)
from clawql_git.gitstore import ENGINE_EMAIL_DOMAIN, GitStore, format_message, parse_trailers
from clawql_git.model.entry import slugify
from clawql_git.model.paths import is_entry_path

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault

PROPOSALS = "refs/heads/proposals/"
REVIEW_EVENT = "MEMORY_REVIEW"


# ---------------------------------------------------------------- policy and routing


@dataclass(frozen=True)
class ReviewPolicy:
    """The ``[policy]`` table of ``.clawql/vault.toml`` as committed on main (read from the
    commit, not the work tree, so an agent cannot switch review off by editing a file)."""

    required: bool = False
    exempt: frozenset[str] = frozenset()  # agent ids that write to main directly

    @classmethod
    def at(cls, store: GitStore, commit: pygit2.Commit | None) -> ReviewPolicy:
        data = store.blob_at(commit.tree if commit else None, VAULT_TOML)
        if data is None:
            return cls()
        try:
            table = tomllib.loads(data.decode("utf-8")).get("policy", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return cls()  # a broken settings file is reported by `memory check`, not here
        review = str(table.get("review", "")).strip().lower()
        exempt = frozenset(str(a) for a in table.get("review_exempt", ()) or ())
        return cls(review == "required", exempt)

    def applies_to(self, agent_id: str) -> bool:
        return self.required and agent_id not in self.exempt


@dataclass(frozen=True)
class Route:
    """Where one write goes: main, or a proposal branch (created from main on first write)."""

    ref: str
    parent: pygit2.Commit | None
    proposal: bool = False

    @property
    def branch(self) -> str:
        return self.ref.removeprefix("refs/heads/") if self.proposal else ""

    def open(self, store: GitStore) -> None:
        """Create the proposal branch at main's commit when this is its first write (called
        after the write was validated, so bad input leaves no branch behind)."""
        if not self.proposal or self.parent is None or store.ref_commit(self.ref) is not None:
            return
        try:
            store.repo.create_reference_direct(self.ref, self.parent.id, False)
        except (pygit2.GitError, ValueError) as exc:
            raise StorageError(f"cannot create {self.ref}: {exc}") from exc


def proposal_ref(agent_id: str, session_id: str) -> str:
    """``refs/heads/proposals/<agent>/<session>`` with both parts slugged for ref safety."""
    agent = slugify(agent_id) or "unknown-agent"
    session = slugify(session_id) or "no-session"
    return f"{PROPOSALS}{agent}/{session}"


def route_write(store: GitStore, ident: Identity) -> Route:
    """The ref a write goes to under the policy on main (call with the writer lock held)."""
    main_ref = main_ref_name(store)
    main = store.ref_commit(main_ref)
    if main is None or not ReviewPolicy.at(store, main).applies_to(ident.agent_id):
        return Route(main_ref, main)
    ref = proposal_ref(ident.agent_id, ident.session_id)
    return Route(ref, store.ref_commit(ref) or main, proposal=True)


def main_ref_name(store: GitStore) -> str:
    """The branch proposals start from and merge into: the branch HEAD points at."""
    ref = store.head_ref_name()
    if ref.startswith(PROPOSALS):
        raise VaultStateError(f"HEAD is on the proposal branch {ref}; check out main first")
    return ref


def set_review_policy(vault: Vault, required: bool, who: str) -> str:
    """Commit ``[policy] review`` into ``.clawql/vault.toml`` on main (a MEMORY_POLICY commit by
    a human, never routed to a proposal); returns the commit sha."""
    import tomli_w

    store = vault.store
    with store.lock():
        store.sync_checkout(update_index=False)
        ref = main_ref_name(store)
        parent = store.ref_commit(ref)
        raw = store.blob_at(parent.tree if parent else None, VAULT_TOML) or b""
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8")) if raw else {}
        data.setdefault("policy", {})["review"] = "required" if required else "off"
        tree = store.build_tree(
            parent.tree if parent else None, {VAULT_TOML: tomli_w.dumps(data).encode()}
        )
        pairs = [
            ("Clawql-Event", "MEMORY_POLICY"),
            ("Agent-Id", who),
            ("Review-Policy", data["policy"]["review"]),
        ]
        message = format_message(f"MEMORY_POLICY: review {data['policy']['review']}", pairs)
        sha = store.commit(ref, parent, tree, message, person_signature(store, who))
        store.sync_checkout(update_index=True)
    return sha


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
    found = [
        _proposal(store, name, main) for name in store.repo.references if name.startswith(PROPOSALS)
    ]
    return sorted((p for p in found if p is not None), key=lambda p: (p.created, p.branch))


def get_proposal(store: GitStore, branch: str) -> Proposal:
    """One proposal by branch name (``proposals/a/s`` or its full ref); NotFound otherwise."""
    ref = branch_ref(branch)
    proposal = _proposal(store, ref, store.ref_commit(main_ref_name(store)))
    if proposal is None:
        raise NotFound(f"no proposal branch {branch!r} (`clawql review list` shows the open ones)")
    return proposal


def branch_ref(branch: str) -> str:
    name = branch.removeprefix("refs/heads/")
    if not name.startswith("proposals/") or not pygit2.reference_is_valid_name(
        f"refs/heads/{name}"
    ):
        raise NotFound(
            f"{branch!r} is not a proposal branch (they are named proposals/<agent>/<session>)"
        )
    return f"refs/heads/{name}"


def _proposal(store: GitStore, ref: str, main: pygit2.Commit | None) -> Proposal | None:
    tip = store.ref_commit(ref)
    if tip is None or main is None:
        return None
    base_id = store.repo.merge_base(main.id, tip.id)
    base = store.repo.get(base_id) if base_id is not None else None
    base_tree = base.tree if isinstance(base, pygit2.Commit) else None
    own = _own_commits(store, tip, base_id)
    first = own[-1] if own else tip
    trailers = parse_trailers(first.message)
    paths = tuple(p for p, _, _ in store.diff_paths(base_tree, tip.tree) if is_entry_path(p))
    return Proposal(
        branch=ref.removeprefix("refs/heads/"),
        tip=str(tip.id),
        base=str(base_id) if base_id else "",
        agent=_none(trailers.get("Agent-Id")),
        session=_none(trailers.get("Session-Id")),
        entries=paths,
        commits=len(own),
        created=first.commit_time,
        updated=tip.commit_time,
    )


def _own_commits(
    store: GitStore, tip: pygit2.Commit, base: pygit2.Oid | None
) -> list[pygit2.Commit]:
    """The proposal's commits, newest first (first-parent, down to the merge base)."""
    out = []
    for commit in store.walk(tip):
        if base is not None and commit.id == base:
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
    """The reviewer: given, else git's ``user.name``; a review without a name is refused."""
    name = (reviewer or _git_config(store, "user.name")).strip()
    if not name:
        raise InvalidInput("who reviews? pass --reviewer or set `git config user.name`")
    return name


def accept(vault: Vault, branch: str, reviewer: str | None = None) -> ReviewOutcome:
    """Merge a proposal into main (see ``review_merge.accept_proposal``)."""
    from clawql_git.review.merge import accept_proposal

    return accept_proposal(vault, branch, reviewer)


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
        extra += [
            ("Proposal-Commit", str(c.id)) for c in _own_commits(store, tip, _oid(proposal.base))
        ]
        sha = AuditChain(store).record(
            REVIEW_EVENT, tip, who, proposal.session, query=f"reject {proposal.branch}", extra=extra
        )
        store.repo.references.delete(branch_ref(branch))
    return ReviewOutcome(
        "rejected", proposal.branch, proposal.tip, who, sha, proposal.entries, reason
    )


def rejected_commits(store: GitStore) -> dict[str, set[str]]:
    """Proposal ref -> the commits its rejections dropped (from the audit chain), so verify
    excuses checkpoints of a rejected proposal when its branch name is used again."""
    from clawql_git.audit.chain import AUDIT_REF

    out: dict[str, set[str]] = {}
    for commit in store.walk(store.ref_commit(AUDIT_REF)):
        trailers = parse_trailers(commit.message)
        if trailers.get("Clawql-Event") != REVIEW_EVENT:
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
    try:
        return main is not None and (
            str(main.id) == sha or store.repo.descendant_of(main.id, pygit2.Oid(hex=sha))
        )
    except (pygit2.GitError, ValueError, KeyError):
        return False


# ---------------------------------------------------------------- small helpers


def _oid(sha: str) -> pygit2.Oid | None:
    return pygit2.Oid(hex=sha) if sha else None


def is_generated(path: str) -> bool:
    """Catalog and log files: regenerated after a merge, never merged."""
    name = path.rsplit("/", 1)[-1]
    return name == "index.md" or path == "log.md" or path.startswith("log/")


def person_signature(store: GitStore, who: str) -> pygit2.Signature:
    email = (
        _git_config(store, "user.email") or f"{slugify(who) or 'reviewer'}@{ENGINE_EMAIL_DOMAIN}"
    )
    return pygit2.Signature(who, email, int(time.time()), 0)


def _git_config(store: GitStore, key: str) -> str:
    try:
        return str(store.repo.config[key])
    except KeyError:
        return ""


def must_exist(commit: pygit2.Commit | None) -> pygit2.Commit:
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
