"""Review routing: with ``[policy] review = "required"`` committed on main, a write by an agent
that is not exempt goes to ``proposals/<agent>/<session>`` instead of main. The writer asks
here where each write goes; review/ lists, accepts and rejects what landed on proposals."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from clawql_git.config import VAULT_TOML
from clawql_git.errors import VaultStateError
from clawql_git.gitstore import PROPOSALS, Commit, GitStore
from clawql_git.model.entry import slugify
from clawql_git.model.identity import Identity


@dataclass(frozen=True)
class ReviewPolicy:
    """The ``[policy]`` table of ``.clawql/vault.toml`` as committed on main (read from the
    commit, not the work tree, so an agent cannot switch review off by editing a file)."""

    required: bool = False
    exempt: frozenset[str] = frozenset()  # agent ids that write to main directly

    @classmethod
    def at(cls, store: GitStore, commit: Commit | None) -> ReviewPolicy:
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
    if main.parent is None or not ReviewPolicy.at(store, main.parent).applies_to(ident.agent_id):
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
