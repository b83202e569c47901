"""The one write path. Every engine commit of a vault (ingest, update, supersede, retract,
archive, imports, init and seeding, settings, sync config, review policy, catalog repair and
proposal acceptance) is made here, in this order, under the writer lock:

    plan (against the current tree) -> validate -> route -> catalogs -> trailers -> tree checks
    -> commit -> work-tree sync

Only ``gitstore`` below creates the commit and moves the ref. Every commit carries the full
trailer set (``TRAILER_ORDER``: event, entry paths, entry type, agent, session, correlation,
verdict, confidence; ``none`` where a value is absent) plus the plan's own trailers."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from clawql_git.audit.history import NONE, last_change
from clawql_git.catalog import render as catalog
from clawql_git.catalog.update import Cataloger
from clawql_git.config import Settings
from clawql_git.errors import ClawqlError, InvalidInput, UnsafePath, VaultStateError
from clawql_git.gitstore import Commit, GitStore, Signature, Trailers, Tree, format_message
from clawql_git.model.claims import Match
from clawql_git.model.entry import Entry, check_secrets, slugify, validate_entry_path
from clawql_git.model.identity import Identity
from clawql_git.model.paths import is_entry_path, portable_path_problem, tree_collisions
from clawql_git.model.times import utc
from clawql_git.ontology import GitView, Overlay, check_tree
from clawql_git.vault.routing import Route, admit, main_route, record_policy, route_write

Destination = Literal["review", "main", "head"]


@dataclass
class Plan:
    """What one commit changes, computed under the writer lock against the current tree."""

    event: str
    changes: dict[str, Entry | None]  # entries written, or None for an entry removed
    subject: str
    extra_trailers: list[tuple[str, str]] = field(default_factory=list)
    raw_files: dict[str, bytes | None] = field(default_factory=dict)  # settings, schemas, bytes
    merge: Commit | None = None  # the second parent: a proposal accepted into main
    catalogs: bool = True  # False: ``raw_files`` already hold the regenerated catalogs
    person: str = ""  # a person's commit (review, policy): authored with git's user.email
    closes: str = ""  # a ref deleted once the commit landed (the accepted proposal)
    identity: Identity | None = None  # who, when only the plan knows (a proposal's session)

    @property
    def written(self) -> list[str]:
        return [p for p, e in self.changes.items() if e is not None]


NOOP = "NOOP"
Prepare = Callable[[Tree | None], Plan | None]


@dataclass(frozen=True)
class WriteResult:
    """What a write returns: the commit (worm_ref) and the entry as written."""

    event: str
    path: str
    sha: str
    entry: Entry | None
    noop: bool = False
    paths: tuple[str, ...] = ()
    warning: str = ""
    branch: str = ""  # the proposal branch when the vault requires review, else ""
    duplicates: tuple[Match, ...] = ()  # current entries the written one nearly repeats
    contradictions: tuple[Match, ...] = ()  # ... and those it disagrees with

    @property
    def worm_ref(self) -> str:
        return f"git:{self.sha}"

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "event": self.event,
            "path": self.path,
            "paths": list(self.paths or (self.path,)),
            "worm_ref": self.worm_ref,
            "commit": self.sha,
            "noop": self.noop,
            "proposal": self.branch or None,
            "frontmatter": self.entry.to_record()["frontmatter"] if self.entry else None,
            "duplicates": [m.to_record() for m in self.duplicates],
            "contradictions": [m.to_record() for m in self.contradictions],
        }


class Writer:
    """Makes every engine commit of one vault."""

    def __init__(self, store: GitStore, settings: Settings, eager_index: bool = True) -> None:
        self.store = store
        self.settings = settings
        self.eager_index = eager_index
        self.cataloger = Cataloger(store, settings.recent_entries, settings.log_page_lines)
        self.clean_trees: set[str] = set()  # tree ids known to hold no link or submodule

    def identity(
        self, identity: Identity | None, meta: Mapping[str, Any] | None = None
    ) -> Identity:
        """Who wrote it: the arguments, then the entry's own frontmatter, then the settings."""
        ident = identity or Identity()
        meta = meta or {}
        check_confidence(ident)
        score = meta.get("confidence_score")
        return Identity(
            agent_id=ident.agent_id or str(meta.get("agent_id") or self.settings.agent_id),
            session_id=ident.session_id or str(meta.get("session_id") or self.settings.session_id),
            correlation_id=ident.correlation_id or str(meta.get("correlation_id") or ""),
            verdict=ident.verdict or str(meta.get("verdict") or ""),
            confidence=ident.confidence if ident.confidence is not None else score,
        )

    def write(self, prepare: Prepare, ident: Identity, to: Destination = "review") -> WriteResult:
        """Plan against the tip of the destination, then commit. ``to="review"`` routes by the
        review policy (an agent's write); ``"main"`` and ``"head"`` are a person's or the
        engine's own. ``prepare`` returning None, or a plan whose event is NOOP, writes nothing."""
        with self.store.lock():
            self.store.sync_checkout(update_index=False)
            route = self._route(to, ident)
            parent = route.parent
            plan = prepare(parent.tree if parent is not None else None)
            if plan is None or plan.event == NOOP:
                return self._noop(plan, parent)
            validate(plan)
            check_entities(self.store, parent.tree if parent is not None else None, plan)
            admit(self.store, to, plan.person, plan.identity or ident, self.acting())
            sha = self._commit(route, plan, plan.identity or ident)
            if sha is None:  # the plan changes nothing the tree does not already hold
                return self._noop(plan, parent)
            record_policy(self.store, route, [*plan.changes, *plan.raw_files], sha)
            if plan.closes:
                self.store.delete_ref(plan.closes)
            # A proposal leaves main, the work tree and main's index as they were.
            warning = "" if route.proposal else self._sync_after_commit()
        written = plan.written
        main = written[0] if written else next(iter(plan.changes), "")
        return WriteResult(
            plan.event,
            main,
            sha,
            plan.changes.get(main),
            paths=tuple(written),
            warning=warning,
            branch=route.branch,
        )

    def acting(self) -> str:
        """The agent id this process declares (flag, env, config), "" when left at the default."""
        agent = self.settings.agent_id
        return "" if agent == Settings().agent_id else agent

    def _route(self, to: Destination, ident: Identity) -> Route:
        if to == "review":
            return route_write(self.store, ident)
        if to == "main":
            return main_route(self.store)
        ref = self.store.head_ref_name()
        return Route(ref, self.store.ref_commit(ref))

    def _noop(self, plan: Plan | None, parent: Commit | None) -> WriteResult:
        head = str(parent.id) if parent is not None else ""
        if plan is None or not plan.changes:
            return WriteResult(NOOP, "", head, None, noop=True)
        path = next(iter(plan.changes))
        sha = last_change(self.store, parent, path) or head
        return WriteResult(NOOP, path, sha, plan.changes[path], noop=True)

    def _sync_after_commit(self) -> str:
        """The commit is acknowledged whatever happens here: a failed checkout sync is retried
        by the next write or ``close()``, and only reported."""
        try:
            skipped = self.store.sync_checkout(update_index=self.eager_index)
        except (OSError, ClawqlError) as exc:
            return f"committed, but the work tree is not updated yet: {exc}"
        if skipped:
            return "committed; left alone in the work tree: " + "; ".join(skipped)
        return ""

    def _commit(self, route: Route, plan: Plan, ident: Identity) -> str | None:
        """Write the commit; None (and nothing written, not even a proposal branch) when the
        plan's files are already what the tree holds: a commit never names an unchanged
        entry (verify would call its trailers forged)."""
        now = int(time.time())
        parent = route.parent
        files: dict[str, bytes | None] = {
            p: (None if e is None else e.render().encode("utf-8")) for p, e in plan.changes.items()
        }
        files.update(plan.raw_files)
        trailers = trailer_set(plan, ident)
        message = format_message(f"{plan.event}: {plan.subject}", trailers)
        check_secrets(message, "the commit message")
        author = self._author(plan, ident, now)
        parents = [parent] if parent is not None else []
        if plan.merge is not None:
            parents.append(plan.merge)
        old_tree = parent.tree if parent is not None else None
        if plan.merge is None and parent is not None and self._unchanged(old_tree, files):
            return None
        catalogs: dict[str, bytes | None] = {}
        if plan.catalogs:
            catalogs = self._catalogs(plan, parents, files, message, author, trailers, now)
        self._check_tree(old_tree, {**files, **catalogs}, route)
        tree = self.store.build_tree(old_tree, {**files, **catalogs})
        route.open(self.store)
        return self.store.commit(route.ref, parents, tree, message, author)

    def _check_tree(
        self, tree: Tree | None, files: Mapping[str, bytes | None], route: Route
    ) -> None:
        """What the commit's tree and the work tree must allow before anything is written: no
        symbolic link or submodule in the tree (a checkout would follow it out of the vault),
        no two names a case-insensitive checkout holds as one, no link in the work tree on the
        way to a file the sync will write."""
        check_special_entries(self.store, tree, files, self.clean_trees)
        written = [p for p, data in files.items() if data is not None]
        for path, other in tree_collisions(written, lambda f: self.store.names_in(tree, f)):
            raise UnsafePath(
                path,
                f"it differs only in letter case from {other} (macOS and "
                "Windows checkouts would hold the two as one file)",
            )
        if route.proposal:
            return  # a proposal leaves the work tree alone
        for path in written:
            problem = self.store.worktree_problem(path)
            if problem is not None:
                raise VaultStateError(
                    f"refusing to write {path}: in the work tree, {problem}; the engine never "
                    "writes through a link or into .git, so nothing was written. Put the folder "
                    "back (`rm <link> && git checkout -- <link>`) and retry"
                )

    def _unchanged(self, tree: Tree | None, files: Mapping[str, bytes | None]) -> bool:
        """True when every file already holds these bytes (or is already absent)."""
        return all(self.store.blob_at(tree, p) == data for p, data in files.items())

    def _catalogs(
        self,
        plan: Plan,
        parents: list[Commit],
        files: dict[str, bytes | None],
        message: str,
        author: Signature,
        trailers: list[tuple[str, str]],
        now: int,
    ) -> dict[str, bytes | None]:
        parent = parents[0] if parents else None
        if plan.merge is not None and parent is not None:
            # The log of a merge interleaves both histories by time: computed from the merged
            # history as it will be (a provisional commit with the same parents and message).
            tree = self.store.build_tree(parent.tree, files)
            provisional = self.store.provisional_commit(parents, tree, message, author)
            return self.cataloger.merged(parent, provisional, files, plan.changes)
        events = catalog.events_from_trailers(utc(now), Trailers(tuple(trailers)).as_dict())
        old_tree = parent.tree if parent is not None else None
        return self.cataloger.incremental(
            old_tree, files, plan.changes, parent, list(reversed(events))
        )

    def _author(self, plan: Plan, ident: Identity, now: int) -> Signature:
        if plan.person:
            return self.store.person_signature(plan.person, slugify(plan.person) or "reviewer")
        return self.store.agent_signature(ident.agent_id, slugify(ident.agent_id) or "agent", now)


def trailer_set(plan: Plan, ident: Identity) -> list[tuple[str, str]]:
    """The full trailer set of one commit, then the plan's own trailers."""
    written = [(p, e) for p, e in plan.changes.items() if e is not None]
    types = sorted({e.type for _, e in written}) or [NONE]
    pairs = [("Clawql-Event", plan.event)]
    pairs += [("Entry-Path", p) for p, _ in written] or [("Entry-Path", NONE)]
    pairs += [
        ("Entry-Type", types[0] if len(types) == 1 else ",".join(types)),
        ("Agent-Id", ident.agent_id or NONE),
        ("Session-Id", ident.session_id or NONE),
        ("Correlation-Id", ident.correlation_id or NONE),
        ("Verdict", ident.verdict or NONE),
        ("Confidence", NONE if ident.confidence is None else f"{ident.confidence:g}"),
    ]
    return pairs + plan.extra_trailers


def validate(plan: Plan) -> None:
    """What every plan must satisfy whoever made it: entries only at entry paths, other files
    never at one, no entry removed that is not replaced by the same plan's own rules."""
    for path in plan.changes:
        validate_entry_path(path)
    written = [p for p, e in plan.changes.items() if e is not None]
    written += [p for p, data in plan.raw_files.items() if data is not None]
    for path in written:
        problem = portable_path_problem(path)
        if problem is not None:  # a checkout somewhere could not hold it (teams clone on any OS)
            raise UnsafePath(path, problem)
    for path, other in tree_collisions(written, lambda folder: ()):
        raise UnsafePath(path, f"it differs only in letter case from {other}, written beside it")
    for path, data in plan.raw_files.items():
        if plan.catalogs and is_entry_path(path) and path not in plan.changes:
            raise InvalidInput(f"{path} is an entry path; entries are written as entries")
        if data is not None and path not in plan.changes:  # entries were scanned as drafts
            # settings, schemas, adopted files of any kind (config.env, id_rsa): text or not
            check_secrets(data.decode("utf-8", errors="replace"), path)


def check_entities(store: GitStore, tree: Tree | None, plan: Plan) -> None:
    """Entity instances the plan writes fit their kind's schema, a schema it changes leaves no
    instance invalid, an instance it removes leaves no reference dangling (checked in the tree
    as it will be; :class:`EntityInvalid` names each problem and nothing is written)."""
    files: dict[str, bytes | None] = {
        p: None if e is None else e.render().encode("utf-8")
        for p, e in plan.changes.items()
        if e is None or e.type == "entity_instance"
    }
    files.update(plan.raw_files)
    written = [p for p, data in files.items() if data is not None]
    check_tree(
        Overlay(GitView(store, tree), files), written, [p for p in files if p not in written]
    )


def check_special_entries(
    store: GitStore, tree: Tree | None, files: Mapping[str, bytes | None], clean: set[str]
) -> None:
    """Refuse to commit on a tree holding a symbolic link or a submodule (one a pull or a
    hand-made commit brought in) that this commit does not remove, naming each and the fix."""
    if len(clean) > 100_000:
        clean.clear()
    removed = {p for p, data in files.items() if data is None}
    found = [(p, kind) for p, kind in store.special_entries(tree, clean) if p not in removed]
    if not found:
        return
    names = ", ".join(f"{p} ({kind})" for p, kind in found[:5])
    first = found[0][0]
    raise VaultStateError(
        f"the vault's tree holds {names}; the engine writes no tree with links or submodules "
        "(a checkout follows a link out of the vault), so nothing was written. Remove them "
        f"with git (`git rm {first}`, then `git commit`; copy a linked folder's files in first "
        "if you mean to keep them) and retry"
    )


def check_confidence(ident: Identity) -> None:
    """Confidence, when given, is a probability."""
    if ident.confidence is not None and not 0 <= ident.confidence <= 1:
        raise InvalidInput(f"confidence must be in 0..1, got {ident.confidence}")
