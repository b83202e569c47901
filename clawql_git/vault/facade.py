"""The Vault facade: open/init a vault and write, read and check its entries. Every write is one
commit with trailers; its sha is the entry's worm_ref."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import pygit2
import tomli_w

from clawql_git.audit.history import NONE, LogFilter, LogRecord, Version, engine_log, last_change
from clawql_git.audit.history import versions as path_versions
from clawql_git.catalog import render as catalog
from clawql_git.catalog.update import Cataloger
from clawql_git.config import VAULT_TOML, Settings, resolve_settings
from clawql_git.errors import (
    ClawqlError,
    InvalidInput,
    NotAVault,
    NotFound,
    VaultStateError,
)
from clawql_git.gitstore import ENGINE_EMAIL_DOMAIN, GitStore, Trailers, format_message
from clawql_git.model.drafts import Draft, draft_from_fields, draft_from_markdown
from clawql_git.model.entry import (
    Entry,
    append_section,
    decode_text,
    iso_timestamp,
    now_timestamp,
    parse_timestamp,
    slugify,
    type_folder,
    validate_entry_path,
)
from clawql_git.model.identity import Identity
from clawql_git.model.paths import INDEX
from clawql_git.model.times import utc

if TYPE_CHECKING:
    from clawql_git.audit.chain import AuditEvent, ReadAnswer
    from clawql_git.audit.verify import VerifyReport
    from clawql_git.index.embedders import Embedder
    from clawql_git.index.store import BuildReport
    from clawql_git.links import LinkGraph
    from clawql_git.recall.pipeline import RecallResult
    from clawql_git.recall.service import RecallService

GITATTRIBUTES = """\
# Generated catalogs are merged by regenerating them (clawql-git).
index.md merge=clawql-catalog
**/index.md merge=clawql-catalog
log.md merge=clawql-catalog
log/*.md merge=clawql-catalog
*.md text eol=lf
"""
HOOK_NAMES = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
Progress = Callable[[int, int, str], None]


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
        }


@dataclass(frozen=True)
class EntryView:
    """An entry read at a revision, with its materialised worm_refs."""

    entry: Entry
    first_ref: str
    last_ref: str
    at: str

    def to_record(self) -> dict[str, Any]:
        return {
            **self.entry.to_record(),
            "worm_ref": self.last_ref,
            "worm_ref_first": self.first_ref,
            "at": self.at,
        }

    def materialised(self) -> str:
        """The document with worm_ref written into its frontmatter (for export)."""
        changes = {"worm_ref": self.last_ref, "worm_ref_first": self.first_ref}
        return self.entry.with_changes(changes).render()


@dataclass
class _Pending:
    """What a write puts into its commit (computed under the lock, against the current tree)."""

    event: str
    changes: dict[str, Entry | None]
    subject: str
    extra_trailers: list[tuple[str, str]] = field(default_factory=list)
    raw_files: dict[str, bytes] = field(default_factory=dict)


class Vault:
    """A memory vault: a Git repository of Markdown entries."""

    def __init__(self, store: GitStore, settings: Settings, eager_index: bool = True) -> None:
        self.store = store
        self.settings = settings
        self.root = store.workdir
        self.eager_index = eager_index
        self.cataloger = Cataloger(store, settings.recent_entries, settings.log_page_lines)
        self._recall: RecallService | None = None
        self._embedder: Embedder | None = None  # an explicit embedder (tests, plugins)

    # ------------------------------------------------------------ open / init / close

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, **flags: Any) -> Vault:
        """Open the vault at ``path`` (default: $CLAWQL_VAULT, else the current directory)."""
        root = Path(path or os.environ.get("CLAWQL_VAULT") or Path.cwd()).resolve()
        if not (root / VAULT_TOML).is_file() or not (root / ".git").exists():
            raise NotAVault(f"{root} is not a clawql vault (run `clawql memory init {root}`)")
        embedder = flags.pop("embedder", None)
        settings = resolve_settings(root, flags)
        eager = bool(flags.pop("eager_index", True))
        vault = cls(GitStore.open(root, settings.fsync), settings, eager)
        vault._embedder = embedder
        return vault

    @classmethod
    def init(
        cls,
        path: str | os.PathLike[str],
        *,
        adopt: bool = False,
        default_type: str | None = None,
        identity: Identity | None = None,
        **flags: Any,
    ) -> Vault:
        """Create a vault at ``path``; harmless on an existing vault."""
        from clawql_git.vault.setup import create_vault

        return create_vault(cls, Path(path), adopt, default_type, identity or Identity(), flags)

    def close(self) -> None:
        """Bring the git index up to date (deferred during fast in-process writes)."""
        with self.store.lock():
            self.store.sync_checkout(update_index=True)

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def vault_id(self) -> str:
        from clawql_git.config import read_toml

        return str(read_toml(self.root / VAULT_TOML).get("vault", {}).get("id", ""))

    # ------------------------------------------------------------ writes

    def ingest(
        self,
        *,
        type: str,
        title: str,
        body: str = "",
        description: str | None = None,
        tags: Iterable[str] = (),
        meta: Mapping[str, Any] | None = None,
        identity: Identity | None = None,
        append: bool = False,
        path: str | None = None,
    ) -> WriteResult:
        """Write one entry from fields (the Python twin of ``clawql memory ingest``)."""
        ident = _checked(identity)
        draft = draft_from_fields(
            self.settings, type, title, body, description, list(tags), meta or {}, ident, path
        )
        return self._ingest_draft(draft, ident, append)

    def ingest_markdown(
        self,
        text: str | bytes,
        *,
        identity: Identity | None = None,
        overrides: Mapping[str, Any] | None = None,
        path: str | None = None,
        append: bool = False,
        body: str | None = None,
    ) -> WriteResult:
        """Write one entry from a Markdown document (frontmatter optional when ``overrides``
        give a type); ``overrides`` win over its frontmatter and ``body`` over its body."""
        ident = _checked(identity)
        draft = draft_from_markdown(
            self.settings, text, overrides or {}, ident, path, body_override=body
        )
        return self._ingest_draft(draft, ident, append)

    def _ingest_draft(self, draft: Draft, ident: Identity, append: bool) -> WriteResult:
        ident = self._identity(ident, draft.meta)

        def prepare(tree: pygit2.Tree | None) -> _Pending:
            existing = self._find_same_title(tree, draft) if append else None
            if existing is not None:
                return self._append_plan(tree, existing, draft)
            if draft.path is not None and self.store.blob_at(tree, draft.path) is not None:
                raise VaultStateError(
                    f"{draft.path} already exists; change it with `clawql memory update`"
                )
            path = draft.path or self._free_path(tree, draft)
            entry = Entry(path, draft.frontmatter, draft.meta, draft.body)
            return _Pending("MEMORY_INGEST", {path: entry}, f"ingest {path}")

        return self._write(prepare, ident)

    def _append_plan(self, tree: pygit2.Tree | None, path: str, draft: Draft) -> _Pending:
        current = self._read_entry(tree, path)
        body = append_section(current.body, draft.body, now_timestamp())
        if body is None:
            return _Pending("NOOP", {path: current}, "")
        return _Pending("MEMORY_UPDATE", {path: current.with_changes({}, body)}, f"append {path}")

    def update(
        self,
        path: str,
        *,
        body: str | None = None,
        changes: Mapping[str, Any] | None = None,
        identity: Identity | None = None,
        event: str = "MEMORY_UPDATE",
    ) -> WriteResult:
        """Change an entry by a new commit: new body and/or frontmatter keys (None removes)."""
        ident = self._identity(identity)
        from clawql_git.model.drafts import check_update

        def prepare(tree: pygit2.Tree | None) -> _Pending:
            current = self._read_entry(tree, path)
            updated = check_update(self.settings, current, changes or {}, body)
            return _Pending(event, {path: updated}, f"{event.split('_')[-1].lower()} {path}")

        return self._write(prepare, ident)

    def supersede(self, old: str, by: str, identity: Identity | None = None) -> WriteResult:
        """Mark ``old`` superseded by ``by`` (both must exist; ``by`` must be current)."""
        if validate_entry_path(old) == validate_entry_path(by):
            raise InvalidInput("an entry cannot supersede itself")
        replacement = self.get(by).entry
        if replacement.status != "current":
            raise VaultStateError(f"{by} is {replacement.status}; supersede with a current entry")
        target = str(PurePosixPath(by).with_suffix(""))
        changes = {"status": "superseded", "superseded_by": target}
        return self.update(old, changes=changes, identity=identity, event="MEMORY_SUPERSEDE")

    def retract(
        self, path: str, reason: str | None = None, identity: Identity | None = None
    ) -> WriteResult:
        """Mark an entry retracted (it stays in history; recall leaves it out)."""
        changes: dict[str, Any] = {"status": "retracted"}
        if reason:
            changes["retraction_reason"] = reason
        return self.update(path, changes=changes, identity=identity, event="MEMORY_RETRACT")

    def archive(self, path: str, identity: Identity | None = None) -> WriteResult:
        """Move an entry under ``archive/`` with ``status: archived``."""
        ident = self._identity(identity)

        def prepare(tree: pygit2.Tree | None) -> _Pending:
            current = self._read_entry(tree, path)
            if path.startswith("archive/"):
                raise VaultStateError(f"{path} is already archived")
            new_path = f"archive/{path}"
            moved = Entry(new_path, current.frontmatter, current.meta, current.body)
            moved = moved.with_changes({"status": "archived"})
            pending = _Pending("MEMORY_ARCHIVE", {path: None, new_path: moved}, f"archive {path}")
            pending.extra_trailers.append(("Archived-From", path))
            return pending

        return self._write(prepare, ident)

    def ingest_many(
        self,
        drafts: list[Draft],
        identity: Identity | None = None,
        batch: bool = False,
        progress: Progress | None = None,
        event: str = "MEMORY_INGEST",
    ) -> list[WriteResult]:
        """Write already-validated drafts: one commit each, or one commit for all."""
        ident = self._identity(identity)
        if not batch:
            results = []
            for n, draft in enumerate(drafts, 1):
                results.append(self._ingest_draft(draft, ident, append=False))
                if progress:
                    progress(n, len(drafts), results[-1].path)
            return results

        def prepare(tree: pygit2.Tree | None) -> _Pending:
            changes: dict[str, Entry | None] = {}
            for draft in drafts:
                path = draft.path or self._free_path(tree, draft, taken=set(changes))
                changes[path] = Entry(path, draft.frontmatter, draft.meta, draft.body)
            return _Pending(event, changes, f"import {len(changes)} entries")

        result = self._write(prepare, ident)
        if progress:
            progress(len(drafts), len(drafts), "")
        return [result]

    # ------------------------------------------------------------ the commit

    def _write(
        self, prepare: Callable[[pygit2.Tree | None], _Pending], ident: Identity
    ) -> WriteResult:
        from clawql_git.review.proposals import route_write

        with self.store.lock():
            self.store.sync_checkout(update_index=False)
            route = route_write(self.store, ident)  # main, or a proposal branch under review
            parent = route.parent
            old_tree = parent.tree if parent is not None else None
            pending = prepare(old_tree)
            if pending.event == "NOOP":
                path = next(iter(pending.changes))
                sha = last_change(self.store, parent, path) or str(parent.id if parent else "")
                return WriteResult("NOOP", path, sha, pending.changes[path], noop=True)
            route.open(self.store)
            sha = self._commit(route.ref, parent, pending, ident)
            # A proposal leaves main, the work tree and main's index as they were.
            warning = "" if route.proposal else self._sync_after_commit()
        written = [p for p, e in pending.changes.items() if e is not None]
        main = written[0] if written else next(iter(pending.changes), "")
        return WriteResult(
            pending.event,
            main,
            sha,
            pending.changes.get(main),
            paths=tuple(written),
            warning=warning,
            branch=route.branch,
        )

    def _sync_after_commit(self) -> str:
        """The commit is acknowledged whatever happens here: a failed checkout sync is retried
        by the next write or ``close()``, and only reported."""
        try:
            self.store.sync_checkout(update_index=self.eager_index)
        except (OSError, pygit2.GitError, ClawqlError) as exc:
            return f"committed, but the work tree is not updated yet: {exc}"
        return ""

    def _commit(
        self, ref: str, parent: pygit2.Commit | None, pending: _Pending, ident: Identity
    ) -> str:
        now = int(time.time())
        files: dict[str, bytes | None] = {
            p: (None if e is None else e.render().encode("utf-8"))
            for p, e in pending.changes.items()
        }
        files.update(pending.raw_files)
        old_tree = parent.tree if parent is not None else None
        trailers = self._trailers(pending, ident)
        events = catalog.events_from_trailers(utc(now), Trailers(tuple(trailers)).as_dict())
        catalogs = self.cataloger.incremental(
            old_tree, files, pending.changes, parent, list(reversed(events))
        )
        tree2 = self.store.build_tree(old_tree, {**files, **catalogs})
        message = format_message(f"{pending.event}: {pending.subject}", trailers)
        author = pygit2.Signature(
            ident.agent_id, f"{slugify(ident.agent_id) or 'agent'}@{ENGINE_EMAIL_DOMAIN}", now, 0
        )
        return self.store.commit(ref, parent, tree2, message, author)

    def _trailers(self, pending: _Pending, ident: Identity) -> list[tuple[str, str]]:
        written = [(p, e) for p, e in pending.changes.items() if e is not None]
        types = sorted({e.type for _, e in written}) or [NONE]
        pairs = [("Clawql-Event", pending.event)]
        pairs += [("Entry-Path", p) for p, _ in written]
        pairs += [
            ("Entry-Type", types[0] if len(types) == 1 else ",".join(types)),
            ("Agent-Id", ident.agent_id or NONE),
            ("Session-Id", ident.session_id or NONE),
            ("Correlation-Id", ident.correlation_id or NONE),
            ("Verdict", ident.verdict or NONE),
            ("Confidence", NONE if ident.confidence is None else f"{ident.confidence:g}"),
        ]
        return pairs + pending.extra_trailers

    def _identity(
        self, identity: Identity | None, meta: Mapping[str, Any] | None = None
    ) -> Identity:
        """Fill who-wrote-it from the arguments, then the entry's own frontmatter, then settings."""
        ident = identity or Identity()
        meta = meta or {}
        if ident.confidence is not None and not 0 <= ident.confidence <= 1:
            raise InvalidInput(f"confidence must be in 0..1, got {ident.confidence}")
        score = meta.get("confidence_score")
        return Identity(
            agent_id=ident.agent_id or str(meta.get("agent_id") or self.settings.agent_id),
            session_id=ident.session_id or str(meta.get("session_id") or self.settings.session_id),
            correlation_id=ident.correlation_id or str(meta.get("correlation_id") or ""),
            verdict=ident.verdict or str(meta.get("verdict") or ""),
            confidence=ident.confidence if ident.confidence is not None else score,
        )

    # ------------------------------------------------------------ paths

    def _free_path(
        self, tree: pygit2.Tree | None, draft: Draft, taken: set[str] | None = None
    ) -> str:
        """``<type folder>/<YYYY-MM>/<slug>.md`` with a stem not used in the type folder yet."""
        folder = type_folder(str(draft.meta["type"]), draft.meta)
        month = parse_timestamp(iso_timestamp(draft.meta["timestamp"])).strftime("%Y-%m")
        base = slugify(str(draft.meta["title"]))
        months = self._month_trees(tree, folder)
        slug, n = base, 1
        while f"{folder}/{month}/{slug}.md" in (taken or ()) or any(
            f"{slug}.md" in m for m in months
        ):
            n += 1
            slug = f"{base[: 96 - len(str(n)) - 1]}-{n}"
        return f"{folder}/{month}/{slug}.md"

    def _month_trees(self, tree: pygit2.Tree | None, folder: str) -> list[pygit2.Tree]:
        type_tree = self.store.subtree(tree, folder)
        out = []
        for item in type_tree or ():
            if item.type_str == "tree":
                sub = self.store.subtree(type_tree, item.name or "")
                if sub is not None:
                    out.append(sub)
        return out

    def _find_same_title(self, tree: pygit2.Tree | None, draft: Draft) -> str | None:
        if draft.path is not None:
            return draft.path if self.store.blob_at(tree, draft.path) is not None else None
        folder = type_folder(str(draft.meta["type"]), draft.meta)
        slug = slugify(str(draft.meta["title"]))
        type_tree = self.store.subtree(tree, folder)
        months = sorted(
            (m.name or "" for m in type_tree or () if m.type_str == "tree"), reverse=True
        )
        for month in months:
            path = f"{folder}/{month}/{slug}.md"
            if self.store.blob_at(tree, path) is not None:
                return path
        return None

    # ------------------------------------------------------------ reads

    def _read_entry(self, tree: pygit2.Tree | None, path: str) -> Entry:
        validate_entry_path(path)  # catalogs, logs and settings are never entries
        data = self.store.blob_at(tree, path)
        if data is None:
            raise NotFound(f"no entry at {path}")
        return Entry.parse(path, decode_text(data, path))

    def _commit_at(self, at: str | None) -> pygit2.Commit:
        commit = self.store.resolve(at) if at else self.store.head_commit()
        if commit is None:
            raise NotFound("the vault has no commits yet")
        return commit

    def get(self, path: str, at: str | None = None) -> EntryView:
        """An entry at HEAD (or at revision ``at``) with its first and last worm_ref."""
        commit = self._commit_at(at)
        entry = self._read_entry(commit.tree, path)
        found = path_versions(self.store, commit, path)
        last = found[0].sha if found else str(commit.id)
        first = found[-1].sha if found else last
        return EntryView(entry, f"git:{first}", f"git:{last}", str(commit.id))

    def history(self, path: str, at: str | None = None) -> list[Version]:
        """Every version of an entry, newest first."""
        commit = self._commit_at(at)
        found = path_versions(self.store, commit, path)
        if not found:
            raise NotFound(f"no history for {path}")
        return found

    def log(self, flt: LogFilter | None = None, limit: int | None = None) -> list[LogRecord]:
        """Engine commits (newest first) whose trailers match the filter."""
        return list(engine_log(self.store, self.store.head_commit(), flt or LogFilter(), limit))

    def entries(self, at: str | None = None) -> list[Entry]:
        """Every entry in the tree at HEAD (or ``at``)."""
        from clawql_git.catalog.update import _entry_paths

        commit = self._commit_at(at)
        return [self._read_entry(commit.tree, p) for p in _entry_paths(self.store, commit.tree, "")]

    def link_graph(self, at: str | None = None) -> LinkGraph:
        """The link graph of every entry at HEAD (or ``at``)."""
        from clawql_git.links import LinkGraph, NoteInfo

        entries = self.entries(at)
        notes = [(NoteInfo.of(e.path, e.title, e.aliases, e.meta), e.body) for e in entries]
        return LinkGraph.build(notes)

    def after_git_event(self, event: str) -> BuildReport | None:
        """Called by the git hooks: git itself moved the work tree, so record that, then catch
        the index up. A failure leaves the index marked stale for the next call to repair."""
        with self.store.lock():
            self.store.mark_synced()
        if self.store.head_commit() is None:
            return None
        if event == "post-merge" and self.catalog_drift():
            # Catalogs merged by the driver keep one side; regenerate them from the merged tree.
            self.catalog_fix(Identity(agent_id="clawql-merge"))
        service = self.recall_service()
        try:
            return service.ensure()
        except ClawqlError:
            service.index.mark_stale()
            raise

    # ------------------------------------------------------------ recall

    def recall_service(self) -> RecallService:
        """The index and recall pipeline of this vault (created on first use)."""
        if self._recall is None:
            from clawql_git.index.embedders import resolve_embedder
            from clawql_git.recall.service import RecallService

            embedder = self._embedder or resolve_embedder(
                self.settings.embedding_model or None, os.environ
            )
            self._recall = RecallService(self.store, embedder, self.settings.memory_cache_threshold)
        return self._recall

    def recall(
        self,
        text: str,
        *,
        at: str | None = None,
        identity: Identity | None = None,
        **options: Any,
    ) -> RecallResult:
        """Recall entries for a query (see ``RecallQuery`` for the options); the recall is
        recorded on the audit chain with who asked (unless ``record_recalls`` is off)."""
        from clawql_git.recall.pipeline import RecallQuery
        from clawql_git.recall.service import Reader

        ident = self._identity(identity)
        reader = Reader(
            ident.agent_id, ident.session_id, ident.correlation_id, self.settings.record_recalls
        )
        return self.recall_service().recall(RecallQuery(text, **options), at, reader)

    def rebuild_index(self, at: str | None = None, progress: Progress | None = None) -> BuildReport:
        """Rebuild the derived index from the tree of ``at`` (default HEAD)."""
        return self.recall_service().rebuild(at, progress)

    def update_index(self, progress: Progress | None = None) -> BuildReport:
        """Catch the derived index up with HEAD."""
        return self.recall_service().ensure(progress)

    def index_status(self) -> dict[str, Any]:
        """The index stamp and how far it is behind HEAD."""
        return self.recall_service().status()

    def category_tree(self) -> dict[str, int]:
        """The category tree (page_index_path) with entry counts."""
        return self.recall_service().tree()

    def recent(self, days: int = 7, project: str | None = None) -> dict[str, Any]:
        """Session start: what was worked on recently and the latest context entries."""
        from datetime import UTC, datetime, timedelta

        from clawql_git.recall.service import recent_summary

        now = datetime.now(UTC)
        log = self.log(LogFilter(since=now - timedelta(days=days)))
        return recent_summary(self.entries(), log, days, project, now)

    def enable_signing(self, key: str | None = None) -> Path:
        """Sign every engine commit from now on with an SSH key (``key``, else the
        ``signing_key`` setting, else git's ``user.signingkey``)."""
        chosen = key or self.settings.signing_key or _git_config(self.store, "user.signingkey")
        if not chosen:
            raise InvalidInput(
                "no signing key: pass one, set CLAWQL_SIGNING_KEY or `git config user.signingkey`"
            )
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise InvalidInput(f"signing key {path} does not exist")
        self.store.signing_key = path
        return path

    # ------------------------------------------------------------ audit

    def audit_events(self) -> list[AuditEvent]:
        """Every event on the audit chain (recalls, cache hits, syncs), newest first."""
        from clawql_git.audit.chain import AuditChain

        return list(AuditChain(self.store).events())

    def audit_reads(
        self,
        path: str | None = None,
        pii: str | None = None,
        session: str | None = None,
        agent: str | None = None,
    ) -> ReadAnswer:
        """Negative proof: which recalls returned ``path`` (or any ``pii``-classified entry),
        over the whole audit chain; says plainly when none did."""
        from clawql_git.audit.chain import AuditChain, ReadQuery, reads

        return reads(AuditChain(self.store), ReadQuery(path, pii, session, agent))

    def verify(self) -> VerifyReport:
        """Check fsck, linear histories, trailers against changes, and checkpoints."""
        from clawql_git.audit.verify import verify_vault

        return verify_vault(self.store)

    # ------------------------------------------------------------ catalogs

    def catalog_drift(self) -> list[str]:
        """Catalog files that differ from a fresh regeneration (empty when consistent)."""
        return sorted(self.cataloger.drift(self._commit_at(None)))

    def catalog_fix(self, identity: Identity | None = None) -> WriteResult | None:
        """Commit the regenerated catalogs when they drifted; None when nothing to fix."""
        ident = self._identity(identity)
        with self.store.lock():
            ref = self.store.head_ref_name()
            parent = self._commit_at(None)
            drift = self.cataloger.drift(parent)
            if not drift:
                return None
            files = {p: want for p, (_, want) in drift.items()}
            tree = self.store.build_tree(parent.tree, files)
            pairs = [("Clawql-Event", "MEMORY_CATALOG_FIX"), ("Agent-Id", ident.agent_id)]
            message = format_message(f"MEMORY_CATALOG_FIX: regenerate {len(files)} files", pairs)
            author = pygit2.Signature(ident.agent_id, f"catalog@{ENGINE_EMAIL_DOMAIN}")
            sha = self.store.commit(ref, parent, tree, message, author)
            self.store.sync_checkout(update_index=True)
        return WriteResult("MEMORY_CATALOG_FIX", INDEX_PATH, sha, None, paths=tuple(sorted(files)))

    def write_vault_toml(self, data: Mapping[str, Any]) -> bytes:
        """Render vault settings (used by init)."""
        return tomli_w.dumps(dict(data)).encode()


INDEX_PATH = INDEX


def _git_config(store: GitStore, key: str) -> str:
    try:
        return str(store.repo.config[key])
    except KeyError:
        return ""


def _checked(identity: Identity | None) -> Identity:
    ident = identity or Identity()
    if ident.confidence is not None and not 0 <= ident.confidence <= 1:
        raise InvalidInput(f"confidence must be in 0..1, got {ident.confidence}")
    return ident


def new_vault_id() -> str:
    """A fresh vault id."""
    return str(uuid.uuid4())
