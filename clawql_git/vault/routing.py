"""Review routing: with ``[policy] review = "required"`` committed on main, a write by an agent
that is not exempt goes to ``proposals/<agent>/<session>`` instead of main. The writer asks
here where each write goes; review/ lists, accepts and rejects what landed on proposals."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from clawql_git.config import VAULT_TOML
from clawql_git.errors import VaultStateError
from clawql_git.gitstore import PROPOSALS, Commit, GitStore, Repo, Tree
from clawql_git.model.entry import slugify
from clawql_git.model.identity import Identity

POLICY_REF = "refs/clawql/policy"  # the last main commit whose policy the engine wrote


@dataclass(frozen=True)
class ReviewPolicy:
    """The ``[policy]`` table of ``.clawql/vault.toml`` as committed on main (read from the
    commit, not the work tree, so an agent cannot switch review off by editing a file).

    With ``allowed_signers`` (a path in the tree, the file git's ``gpg.ssh.allowedSignersFile``
    reads) exempt writers and reviewers are principals proven by the engine's signing key;
    without it they are names, which any caller can type (see docs/security.md)."""

    required: bool = False
    exempt: frozenset[str] = frozenset()  # identities that write to main directly
    reviewers: frozenset[str] = frozenset()  # who may accept and change the policy; empty: anyone
    signers_path: str = ""
    signers: bytes = b""  # the allowed-signers file's bytes, from the same tree
    notes: tuple[str, ...] = ()

    @classmethod
    def at(cls, store: Repo, commit: Commit | None) -> ReviewPolicy:
        tree = commit.tree if commit else None
        table = policy_table(store, tree)
        review = str(table.get("review", "")).strip().lower()
        signers_path = str(table.get("allowed_signers", "") or "").strip()
        signers = (store.blob_at(tree, signers_path) or b"") if signers_path else b""
        return cls(
            review == "required",
            _names(table.get("review_exempt")),
            _names(table.get("reviewers")),
            signers_path,
            signers,
        )

    @property
    def keyed(self) -> bool:
        """True when identities are keys (an allowed-signers file is named), not names."""
        return bool(self.signers_path)

    def proven(self, store: GitStore) -> frozenset[str]:
        """The principals the engine's signing key proves (empty in name mode)."""
        from clawql_git.vault.signers import proven_principals

        return proven_principals(store.signing_key, self.signers) if self.keyed else frozenset()

    def exempts(self, store: GitStore, agent_id: str) -> bool:
        """True when ``agent_id`` may write to main directly: listed, and (with keys) proven."""
        if agent_id not in self.exempt:
            return False
        return not self.keyed or agent_id in self.proven(store)

    def applies_to(self, store: GitStore, agent_id: str) -> bool:
        return self.required and not self.exempts(store, agent_id)

    def refusal(self, store: GitStore, who: str) -> str:
        """Why ``who`` may not act as a reviewer under this policy ("" when they may)."""
        if not who:
            return "the reviewer is not named"
        if not self.keyed and _has_proposals(store, who):
            return (
                f"{who} has proposals open: an identity whose writes are under review reviews none"
            )
        if self.reviewers and who not in self.reviewers:
            return (
                f"{who} is not one of the policy's reviewers ({', '.join(sorted(self.reviewers))})"
            )
        if self.keyed and who not in self.proven(store):
            return (
                f"the signing key does not prove {who}: {self.signers_path} must list its public "
                "key with that principal (sign with --sign, CLAWQL_SIGNING_KEY or "
                "`git config user.signingkey`)"
            )
        return ""

    def meet(self, other: ReviewPolicy, note: str) -> ReviewPolicy:
        """The stricter of two policies: review required if either requires it, exemptions
        only where both grant them; reviewers and keys stay this (the trusted) policy's."""
        if self.required and other.required:
            exempt = self.exempt & other.exempt
        else:
            exempt = self.exempt if self.required else other.exempt
        keys = self if self.keyed or not other.keyed else other
        return ReviewPolicy(
            self.required or other.required,
            exempt,
            self.reviewers or other.reviewers,
            keys.signers_path,
            keys.signers,
            (note,),
        )

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view (what `clawql review policy show` prints)."""
        return {
            "review": "required" if self.required else "off",
            "review_exempt": sorted(self.exempt),
            "reviewers": sorted(self.reviewers),
            "allowed_signers": self.signers_path or None,
            "identities": "keys" if self.keyed else "names (self-asserted)",
            "notes": list(self.notes),
        }

    def table(self, base: dict[str, Any], review: str) -> dict[str, Any]:
        """``base`` (a ``[policy]`` table) with this policy's rules written over it."""
        out = {k: v for k, v in base.items() if k not in _RULE_KEYS}
        out["review"] = review
        rules = (
            ("review_exempt", sorted(self.exempt)),
            ("reviewers", sorted(self.reviewers)),
            ("allowed_signers", self.signers_path),
        )
        out.update({key: value for key, value in rules if value})
        return out

    def same_rules(self, other: ReviewPolicy) -> bool:
        return replace(self, notes=()) == replace(other, notes=())


_RULE_KEYS = ("review", "review_exempt", "reviewers", "allowed_signers")


def policy_table(store: Repo, tree: Tree | None) -> dict[str, Any]:
    """The ``[policy]`` table of the settings file in ``tree`` ({} when absent or broken: a
    broken settings file is reported by `memory check`, not here)."""
    data = store.blob_at(tree, VAULT_TOML)
    if data is None:
        return {}
    try:
        table = tomllib.loads(data.decode("utf-8")).get("policy", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}
    return table if isinstance(table, dict) else {}


def _has_proposals(store: GitStore, who: str) -> bool:
    """True when ``who`` authored an open proposal (its slug is a proposal branch's agent)."""
    slug = slugify(who)
    return any(ref.startswith(f"{PROPOSALS}{slug}/") for ref in store.ref_names(PROPOSALS))


def _names(value: object) -> frozenset[str]:
    if isinstance(value, str):
        value = [value]
    return frozenset(str(a).strip() for a in value or () if str(a).strip())  # type: ignore[attr-defined]


def effective_policy(store: GitStore, main: Commit | None) -> ReviewPolicy:
    """The policy in force on main. The engine remembers (``refs/clawql/policy``) the last main
    commit whose settings it wrote itself; when main's policy differs from that commit's, it was
    changed outside the engine (a hand commit), and only the parts that make review stricter
    count until a reviewer sets the policy through the engine."""
    tip = ReviewPolicy.at(store, main)
    anchor = store.ref_commit(POLICY_REF)
    if main is None or anchor is None or anchor.id == main.id:
        return tip
    trusted = ReviewPolicy.at(store, anchor)
    if trusted.same_rules(tip):
        return tip
    note = (
        f"main's [policy] was changed outside the engine since git:{anchor.id}; enforcing the "
        "stricter of the two until a reviewer runs `clawql review policy`"
    )
    return trusted.meet(tip, note)


def record_policy(store: GitStore, route: Route, paths: Iterable[str], sha: str) -> None:
    """After an engine commit on main that wrote the settings (or the allowed-signers file),
    remember it as the policy the engine vouches for."""
    if route.proposal:
        return
    commit = store.ref_commit(route.ref)
    if commit is None or str(commit.id) != sha:
        return
    written = set(paths)
    policy = ReviewPolicy.at(store, commit)
    if VAULT_TOML in written or (policy.signers_path and policy.signers_path in written):
        store.set_ref(POLICY_REF, sha)


@dataclass(frozen=True)
class Route:
    """Where one write goes: main, or a proposal branch (created from main on first write)."""

    ref: str
    parent: Commit | None
    proposal: bool = False

    @property
    def branch(self) -> str:
        return self.ref.removeprefix("refs/heads/") if self.proposal else ""

    def open(self, store: GitStore) -> None:
        """Create the proposal branch at main's commit when this is its first write (called
        after the write was validated, so bad input leaves no branch behind)."""
        if not self.proposal or self.parent is None or store.ref_commit(self.ref) is not None:
            return
        store.create_branch(self.ref, self.parent)


def proposal_ref(agent_id: str, session_id: str) -> str:
    """``refs/heads/proposals/<agent>/<session>`` with both parts slugged for ref safety."""
    agent = slugify(agent_id) or "unknown-agent"
    session = slugify(session_id) or "no-session"
    return f"{PROPOSALS}{agent}/{session}"


def route_write(store: GitStore, ident: Identity) -> Route:
    """The ref a write goes to under the policy on main (call with the writer lock held)."""
    main = main_route(store)
    if main.parent is None or not effective_policy(store, main.parent).applies_to(
        store, ident.agent_id
    ):
        return main
    ref = proposal_ref(ident.agent_id, ident.session_id)
    return Route(ref, store.ref_commit(ref) or main.parent, proposal=True)


def main_route(store: GitStore) -> Route:
    """Straight to main: a person's write (policy, review, catalog repair), never proposed."""
    ref = main_ref_name(store)
    return Route(ref, store.ref_commit(ref))


def main_ref_name(store: GitStore) -> str:
    """The branch proposals start from and merge into: the branch HEAD points at."""
    ref = store.head_ref_name()
    if ref.startswith(PROPOSALS):
        raise VaultStateError(f"HEAD is on the proposal branch {ref}; check out main first")
    return ref


def admit(store: GitStore, to: str, person: str, ident: Identity, acting: str = "") -> None:
    """A write that does not route by the policy (``to="main"``: a person's; ``"head"``: the
    engine's catalog repair) must be one the policy in force lets skip review: a person's
    write is a reviewer's, made by a process that does not run as an agent review binds
    (``acting``: the agent id its settings declare); a repair is made by an exempt identity."""
    if to == "review" or store.head_ref_name().startswith(PROPOSALS):
        return  # routed, or a repair of a proposal branch (reviewed with it)
    main = store.ref_commit(main_ref_name(store))
    policy = effective_policy(store, main)
    if not policy.required:
        return
    if to == "main":
        who = person or ident.agent_id
        why = policy.refusal(store, who)
        if not why and acting and policy.applies_to(store, acting):  # naming itself too
            why = f"this process runs as the agent {acting} (--agent / CLAWQL_AGENT_ID)"
        if why:
            raise VaultStateError(f"review is required and this write skips it: {why}")
    elif not policy.exempts(store, ident.agent_id):
        raise VaultStateError(
            f"review is required and {ident.agent_id or 'this writer'} is not exempt: a commit "
            "on main by it would skip review (run it as an exempt or reviewing identity)"
        )
