"""The Vault facade: open/init a vault and write, read and check its entries. Every write is one
commit with trailers; its sha is the entry's worm_ref."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Unpack

import tomli_w

from clawql_git.audit.history import LogFilter, LogRecord, Version, engine_log
from clawql_git.audit.history import versions as path_versions
from clawql_git.config import VAULT_TOML, Settings, SettingsOptions, read_toml, resolve_settings
from clawql_git.errors import ClawqlError, InvalidInput, NotAVault, NotFound, VaultStateError
from clawql_git.gitstore import Commit, GitStore, Tree
from clawql_git.model.drafts import Draft, draft_from_fields, draft_from_markdown
from clawql_git.model.entry import (
    Entry,
    append_section,
    now_timestamp,
    validate_entry_path,
)
from clawql_git.model.identity import Identity
from clawql_git.model.paths import INDEX
from clawql_git.model.progress import Progress
from clawql_git.vault import importer, placement, setup, truth
from clawql_git.vault.page_index import PageIndexer
from clawql_git.vault.reader import EntryView, Reader
from clawql_git.vault.writer import Plan, Writer, WriteResult, check_confidence

if TYPE_CHECKING:
    from clawql_git.audit.chain import AuditEvent, ReadAnswer
    from clawql_git.audit.verify import VerifyReport
    from clawql_git.index.embedders import Embedder
    from clawql_git.index.store import BuildReport
    from clawql_git.links import LinkGraph
    from clawql_git.model.staleness import Due
    from clawql_git.onyx import OnyxQuery
    from clawql_git.recall.layers import ExternalLayers
    from clawql_git.recall.pipeline import RecallOptions, RecallQuery, RecallResult
    from clawql_git.recall.service import RecallService
    from clawql_git.vault.distiller import DistillResult
    from clawql_git.vault.entities import EntityAnswer
    from clawql_git.vault.knowledge import IndexedSource, KnowledgeAnswer
    from clawql_git.vault.sameness import Cluster, Findings


class Vault:
    """A memory vault: a Git repository of Markdown entries."""

    def __init__(self, store: GitStore, settings: Settings, eager_index: bool = True) -> None:
        self.store = store
        self.settings = settings
        self.root = store.workdir
        self.eager_index = eager_index
        self.writer = Writer(store, settings, eager_index)
        self.cataloger = self.writer.cataloger
        self.reader = Reader(store, settings, self.cataloger)
        self._recall: RecallService | None = None
        self._layers: ExternalLayers | None = None
        self._embedder: Embedder | None = None  # an explicit embedder (tests, plugins)
        self.page_index = PageIndexer.from_env(store, os.environ)  # classifies at ingest
        if settings.signing_key and store.signing_key is None:
            # A configured key signs every engine write: verify holds every engine commit after
            # the first signed one to it, so a key that signed only some would fail it.
            self.enable_signing(settings.signing_key)

    # ------------------------------------------------------------ open / init / close

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        eager_index: bool = True,
        **settings: Unpack[SettingsOptions],
    ) -> Vault:
        """Open the vault at ``path`` (default: $CLAWQL_VAULT, else the current directory).
        ``embedder`` shares one loaded model between vaults (or plugs in another backend);
        ``eager_index=False`` defers the git index update of each write to ``close()``;
        ``settings`` override any layer (``agent_id="claude-code"``, ``fsync=True``, ...)."""
        root = Path(path or os.environ.get("CLAWQL_VAULT") or Path.cwd()).resolve()
        if not setup.is_vault(root):
            raise NotAVault(f"{root} is not a clawql vault (run `clawql memory init {root}`)")
        resolved = resolve_settings(root, dict(settings))
        vault = cls(GitStore.open(root, resolved.fsync), resolved, eager_index)
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
        embedder: Embedder | None = None,
        eager_index: bool = True,
        **settings: Unpack[SettingsOptions],
    ) -> Vault:
        """Create a vault at ``path`` (``adopt`` takes in the Markdown of a non-empty folder,
        ``default_type`` typing files without one); harmless on an existing vault. Use it like
        ``open``, also as a context manager."""
        root = Path(path).resolve()
        if setup.is_vault(root):
            vault = cls.open(root, embedder=embedder, eager_index=eager_index, **settings)
            setup.install_hooks(vault.store)
            return vault
        flags = dict(settings)
        store, plan, adopted = setup.first_commit(
            root, adopt, default_type, resolve_settings(None, flags)
        )
        vault = cls(store, resolve_settings(root, flags), eager_index)
        vault._embedder = embedder
        vault.writer.write(lambda tree: plan, vault.writer.identity(identity))
        setup.settle_adopted(store, adopted)
        setup.install_hooks(store)
        vault.close()  # the git index follows the first commit, so `git status` starts clean
        return vault

    def close(self) -> None:
        """Bring the git index up to date (deferred during fast in-process writes)."""
        with self.store.lock():
            self.store.sync_checkout(update_index=True)
        if self.page_index is not None:
            self.page_index.save()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def vault_id(self) -> str:
        """The id committed in ``.clawql/vault.toml``."""
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
        allow_new_type: bool = False,
        supersede: bool = False,
    ) -> WriteResult:
        """Write one entry from fields (the Python twin of ``clawql memory ingest``). A type that
        looks like a typo of a known one (``decison``) is refused unless ``allow_new_type``.
        The result names the current entries it nearly repeats (``duplicates``) or contradicts;
        ``append`` adds it to the same-titled entry, else to the entry it repeats most;
        ``supersede`` marks the entry it contradicts (else repeats) most superseded by it, in
        the same commit."""
        ident = _checked(identity)
        draft = draft_from_fields(
            self.settings,
            type,
            title,
            body,
            description,
            list(tags),
            meta or {},
            ident,
            path,
            allow_new_type=allow_new_type,
        )
        return self._ingest_draft(draft, ident, append, supersede, check=True, classify=True)

    def ingest_markdown(
        self,
        text: str | bytes,
        *,
        identity: Identity | None = None,
        overrides: Mapping[str, Any] | None = None,
        path: str | None = None,
        append: bool = False,
        body: str | None = None,
        allow_new_type: bool = False,
        supersede: bool = False,
    ) -> WriteResult:
        """Write one entry from a Markdown document (frontmatter optional when ``overrides``
        give a type); ``overrides`` win over its frontmatter and ``body`` over its body. A type
        that looks like a typo of a known one is refused unless ``allow_new_type``. Duplicates,
        ``append`` and ``supersede`` as for ``ingest``."""
        ident = _checked(identity)
        draft = draft_from_markdown(
            self.settings,
            text,
            overrides or {},
            ident,
            path,
            body_override=body,
            allow_new_type=allow_new_type,
        )
        return self._ingest_draft(draft, ident, append, supersede, check=True, classify=True)

    def _ingest_draft(
        self,
        draft: Draft,
        ident: Identity,
        append: bool,
        supersede: bool = False,
        check: bool = False,
        classify: bool = False,
    ) -> WriteResult:
        """One draft, one commit; ``check`` names what it repeats or contradicts (and
        ``supersede`` acts on it), ``classify`` files a new entry in the category tree first
        (an agent's write; seeds and imports keep their files as they are)."""
        ident = self.writer.identity(ident, draft.meta)
        found = self._findings(draft) if check else None
        target = truth.supersede_target(found, supersede)

        def prepare(tree: Tree | None) -> Plan:
            existing = placement.same_title(self.store, tree, draft) if append else None
            if existing is None and append and found is not None and found.duplicates:
                existing = found.duplicates[0].path
            if existing is not None:
                return self._append_plan(tree, existing, draft)
            if draft.path is not None and self.store.blob_at(tree, draft.path) is not None:
                raise VaultStateError(
                    f"{draft.path} already exists; change it with `clawql memory update`"
                )
            path = draft.path or placement.free_path(self.store, tree, draft)
            entry = Entry(path, draft.frontmatter, draft.meta, draft.body)
            if classify and self.page_index is not None:
                entry = self.page_index.classify(tree, entry)
            plan = Plan("MEMORY_INGEST", {path: entry}, f"ingest {path}")
            if target:
                truth.add_supersede(plan, self._read_entry(tree, target), path)
            return plan

        result = self.writer.write(prepare, ident)
        return truth.reported(result, draft.warning, found)

    def _findings(self, draft: Draft) -> Findings | None:
        """What the draft repeats or contradicts on HEAD (None when the check is off)."""
        if not self.settings.duplicate_check:
            return None
        from clawql_git.vault.sameness import Detector

        head = self.store.head_commit()
        entry = Entry(draft.path or "", draft.frontmatter, draft.meta, draft.body)
        return Detector(self).check(entry, head.tree if head is not None else None)

    def _append_plan(self, tree: Tree | None, path: str, draft: Draft) -> Plan:
        current = self._read_entry(tree, path)
        body = append_section(current.body, draft.body, now_timestamp())
        if body is None:
            return Plan("NOOP", {path: current}, "")
        return Plan("MEMORY_UPDATE", {path: current.with_changes({}, body)}, f"append {path}")

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
        ident = self.writer.identity(identity)
        from clawql_git.model.drafts import check_update

        def prepare(tree: Tree | None) -> Plan:
            current = self._read_entry(tree, path)
            updated = check_update(self.settings, current, changes or {}, body)
            return Plan(event, {path: updated}, f"{event.split('_')[-1].lower()} {path}")

        return self.writer.write(prepare, ident)

    def supersede(self, old: str, by: str, identity: Identity | None = None) -> WriteResult:
        """Mark ``old`` superseded by ``by`` (both must exist; ``by`` must be current)."""
        if validate_entry_path(old) == validate_entry_path(by):
            raise InvalidInput("an entry cannot supersede itself")
        replacement = self._read_entry(self._commit_at(None).tree, by)
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
        ident = self.writer.identity(identity)

        def prepare(tree: Tree | None) -> Plan:
            current = self._read_entry(tree, path)
            if path.startswith("archive/"):
                raise VaultStateError(f"{path} is already archived")
            new_path = f"archive/{path}"
            moved = Entry(new_path, current.frontmatter, current.meta, current.body)
            moved = moved.with_changes({"status": "archived"})
            pending = Plan("MEMORY_ARCHIVE", {path: None, new_path: moved}, f"archive {path}")
            pending.extra_trailers.append(("Archived-From", path))
            return pending

        return self.writer.write(prepare, ident)

    def ingest_many(
        self,
        drafts: list[Draft],
        identity: Identity | None = None,
        batch: bool = False,
        progress: Progress | None = None,
        event: str = "MEMORY_INGEST",
    ) -> list[WriteResult]:
        """Write already-validated drafts: one commit each, or one commit for all."""
        ident = self.writer.identity(identity)
        if progress:
            progress(0, len(drafts), "")  # the total shows before the first write ends
        if not batch:
            results = []
            for n, draft in enumerate(drafts, 1):
                results.append(self._ingest_draft(draft, ident, append=False))
                if progress:
                    progress(n, len(drafts), results[-1].path)
            return results

        def prepare(tree: Tree | None) -> Plan:
            changes: dict[str, Entry | None] = {}
            for n, draft in enumerate(drafts, 1):
                path = draft.path or placement.free_path(
                    self.store, tree, draft, taken=set(changes)
                )
                changes[path] = Entry(path, draft.frontmatter, draft.meta, draft.body)
                if progress and n < len(drafts):  # the last step is the commit itself
                    progress(n, len(drafts), path)
            return Plan(event, changes, f"import {len(changes)} entries")

        result = self.writer.write(prepare, ident)
        if progress:
            progress(len(drafts), len(drafts), "")
        return [result]

    def ingest_all(
        self,
        items: Iterable[Mapping[str, Any] | str | bytes],
        *,
        identity: Identity | None = None,
        batch: bool = True,
        progress: Progress | None = None,
        allow_new_type: bool = False,
    ) -> list[WriteResult]:
        """Write many entries, every one validated before anything is written: each item is
        either the keyword arguments of ``ingest`` (``{"type": ..., "title": ..., "body": ...}``)
        or a Markdown document with frontmatter. One commit for all (``batch``) or one each."""
        ident = _checked(identity)
        drafts = [self._draft(item, ident, allow_new_type) for item in items]
        if not drafts:
            raise InvalidInput("nothing to ingest")
        return self.ingest_many(drafts, ident, batch=batch, progress=progress)

    def _draft(
        self, item: Mapping[str, Any] | str | bytes, ident: Identity, allow_new_type: bool
    ) -> Draft:
        if isinstance(item, str | bytes):
            return draft_from_markdown(
                self.settings, item, {}, ident, None, allow_new_type=allow_new_type
            )
        fields = dict(item)
        unknown = set(fields) - {"type", "title", "body", "description", "tags", "meta", "path"}
        if unknown or "type" not in fields or "title" not in fields:
            raise InvalidInput(
                "an entry needs 'type' and 'title' (and may give body, description, tags, "
                f"meta, path); got {sorted(fields)}"
            )
        return draft_from_fields(
            self.settings,
            str(fields["type"]),
            str(fields["title"]),
            str(fields.get("body", "")),
            fields.get("description"),
            list(fields.get("tags", ())),
            dict(fields.get("meta") or {}),
            ident,
            fields.get("path"),
            allow_new_type=allow_new_type,
        )

    def import_folder(
        self,
        folder: str | os.PathLike[str],
        *,
        type: str | None = None,
        batch: bool = False,
        identity: Identity | None = None,
        progress: Progress | None = None,
    ) -> list[WriteResult]:
        """Import every Markdown file under ``folder`` (``type`` for files without one; the
        file's path is kept as ``source_path``): all validated first, then one commit each,
        or one for all with ``batch``."""
        drafts = importer.import_drafts(self.settings, Path(folder), type)
        return self.ingest_many(drafts, identity, batch=batch, progress=progress)

    def seed(
        self,
        source: str | os.PathLike[str],
        identity: Identity | None = None,
        progress: Progress | None = None,
    ) -> list[WriteResult]:
        """Ingest every entry of a folder laid out like a vault, one commit per entry, oldest
        first, keeping each entry's path; schema files (ontology/) come along in one commit.
        Entries already in the vault are skipped, so seeding twice writes nothing new."""
        ident = self.writer.identity(identity)
        entries, extra = setup.seed_files(self.settings, Path(source))
        head = self.store.head_commit()
        tree = head.tree if head is not None else None
        entries = [d for d in entries if self.store.blob_at(tree, d.path or "") is None]
        schemas: dict[str, bytes | None] = {
            p: b for p, b in extra.items() if self.store.blob_at(tree, p) != b
        }
        if schemas:
            plan = Plan(
                "MEMORY_ONTOLOGY", {}, f"add {len(schemas)} schema files", raw_files=schemas
            )
            self.writer.write(lambda tree: plan, ident)
        results = []
        if progress:
            progress(0, len(entries), "")
        for n, draft in enumerate(entries, 1):
            results += self.ingest_many([draft], ident)
            if progress:
                progress(n, len(entries), draft.path or "")
        return results

    # ------------------------------------------------------------ reads
    # Every read below that returns entry content goes through ``self.reader``: PHI entries
    # need ``allow_pii``, and each read is a MEMORY_READ event on the audit chain.

    def _read_entry(self, tree: Tree | None, path: str) -> Entry:
        return self.reader.load(tree, path)

    def _commit_at(self, at: str | None) -> Commit:
        return self.reader.commit_at(at)

    def get(
        self,
        path: str,
        at: str | None = None,
        *,
        identity: Identity | None = None,
        allow_pii: bool = False,
    ) -> EntryView:
        """An entry at HEAD (or at revision ``at``) with its first and last worm_ref; recorded
        as a read (``door="get"``); a PHI entry needs ``allow_pii``."""
        return self._view("get", path, at, identity, allow_pii)

    def _view(
        self, door: str, path: str, at: str | None, identity: Identity | None, allow_pii: bool
    ) -> EntryView:
        commit = self._commit_at(at)
        ident = self.writer.identity(identity)
        entry = self.reader.read_one(door, commit, path, ident, allow_pii)
        found = path_versions(self.store, commit, path)
        last = found[0].sha if found else str(commit.id)
        first = found[-1].sha if found else last
        return EntryView(entry, f"git:{first}", f"git:{last}", str(commit.id))

    def history(
        self,
        path: str,
        at: str | None = None,
        *,
        identity: Identity | None = None,
        allow_pii: bool = False,
    ) -> list[Version]:
        """Every version of an entry, newest first; recorded as a read (``door="history"``)."""
        commit = self._commit_at(at)
        found = path_versions(self.store, commit, path)
        if not found:
            raise NotFound(f"no history for {path}")
        ident = self.writer.identity(identity)
        with suppress(NotFound):  # archived or removed since: no entry at ``commit`` to gate
            self.reader.read_one("history", commit, path, ident, allow_pii)
        return found

    def log(self, flt: LogFilter | None = None, limit: int | None = None) -> list[LogRecord]:
        """Engine commits (newest first) whose trailers match the filter (trailers only)."""
        return list(engine_log(self.store, self.store.head_commit(), flt or LogFilter(), limit))

    def entries(
        self,
        at: str | None = None,
        *,
        identity: Identity | None = None,
        allow_pii: bool = False,
        door: str = "export",
    ) -> list[Entry]:
        """Every entry in the tree at HEAD (or ``at``); PHI entries are withheld unless
        ``allow_pii``; recorded as one read naming every entry returned."""
        commit = self._commit_at(at)
        loaded = self.reader.load_all(commit.tree)
        ident = self.writer.identity(identity)
        return self.reader.read_many(door, commit, loaded, ident, allow_pii).entries

    def link_graph(self, at: str | None = None) -> LinkGraph:
        """The link graph of every entry at HEAD (or ``at``): paths, titles and links, which
        the committed catalogs publish already; no entry content leaves, so it is not a read."""
        from clawql_git.links import LinkGraph, NoteInfo

        entries = self.reader.load_all(self._commit_at(at).tree)
        notes = [(NoteInfo.of(e.path, e.title, e.aliases, e.meta), e.body) for e in entries]
        return LinkGraph.build(notes)

    def after_git_event(self, event: str) -> BuildReport | None:
        """Called by the git hooks: git itself moved the work tree, so record that, then catch
        the index up. A failure leaves the index marked stale for the next call to repair.

        After ``post-commit`` (a person's ``git commit``) the index is left behind: the next
        recall catches it up from the changed paths, and it loads LanceDB and the embedding
        model anyway, costs the hook would otherwise add to every commit (~2-4 s)."""
        with self.store.lock():
            self.store.mark_synced()
        if self.store.head_commit() is None or event == "post-commit":
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

    # ------------------------------------------------------------ keeping memory true

    def duplicates(self, threshold: float | None = None) -> list[Cluster]:
        """Clusters of current entries that repeat one another (builds the index if needed)."""
        from clawql_git.vault.sameness import Detector

        return Detector(self, threshold).clusters()

    def stale(self, now: datetime | None = None) -> list[Due]:
        """Current entries due at ``now``: expired or past review (``review_by`` / ``expires``
        or vault.toml's per-type defaults), oldest due first."""
        from clawql_git.vault.stale import due_entries

        return due_entries(self.root, self.reader, now)

    # ------------------------------------------------------------ recall

    def recall_service(self) -> RecallService:
        """The index and recall pipeline of this vault (created on first use)."""
        if self._recall is None:
            from clawql_git.index.embedders import resolve_embedder
            from clawql_git.recall.service import RecallService

            embedder = self._embedder or resolve_embedder(
                self.settings.embedding_model or None, os.environ
            )
            self._recall = RecallService(self.store, embedder)
        return self._recall

    def recall(
        self,
        text: str | RecallQuery,
        *,
        at: str | None = None,
        identity: Identity | None = None,
        progress: Progress | None = None,
        **options: Unpack[RecallOptions],
    ) -> RecallResult:
        """Recall entries for a query (a text with ``RecallOptions``, or a ``RecallQuery``);
        PHI entries are left out unless ``allow_pii``; the recall is recorded on the audit
        chain with who asked (unless ``record_recalls`` is off). ``progress`` hears of the
        index build a first recall makes."""
        from clawql_git.recall.pipeline import RecallQuery
        from clawql_git.recall.service import Asker

        ident = self.writer.identity(identity)
        asker = Asker(
            ident.agent_id, ident.session_id, ident.correlation_id, self.settings.record_recalls
        )
        query = text if isinstance(text, RecallQuery) else RecallQuery(text, **options)
        return self.recall_service().recall(query, at, asker, progress, self.external_layers())

    def external_layers(self) -> ExternalLayers:
        """The layers recall merges beside the vault's own (``recall/layers.py``): the code
        graph attached to the vault and Onyx, when configured (resolved once per Vault)."""
        if self._layers is None:
            from clawql_git.recall.layers import external_layers

            s = self.settings
            self._layers = external_layers(
                self.store.state_dir, self.root, s.code_repo, s.onyx_url, s.onyx_api_key
            )
        return self._layers

    def knowledge_search(
        self, query: OnyxQuery, *, identity: Identity | None = None
    ) -> KnowledgeAnswer:
        """Search Onyx (``clawql knowledge search``); fails open when Onyx is down; recorded
        on the audit chain like a recall."""
        from clawql_git.vault.knowledge import knowledge_search

        return knowledge_search(self.store, self.settings, query, self.writer.identity(identity))

    def knowledge_index(
        self,
        *,
        types: Iterable[str] = (),
        cc_pair_id: int | None = None,
        identity: Identity | None = None,
    ) -> IndexedSource:
        """Send the current entries (without PII) to Onyx's Ingestion API; recorded as
        ONYX_SOURCE_INDEXED (``clawql knowledge index``)."""
        from clawql_git.vault.knowledge import index_into_onyx

        ident = self.writer.identity(identity)
        entries = self.entries(identity=ident, door="onyx-index")
        return index_into_onyx(
            self.store, self.settings, self.vault_id, entries, ident, tuple(types), cc_pair_id
        )

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

    def recent(
        self,
        days: int = 7,
        project: str | None = None,
        *,
        identity: Identity | None = None,
        allow_pii: bool = False,
    ) -> dict[str, Any]:
        """Session start: what was worked on recently and the latest context entries (their
        summaries are content: recorded as a read, PHI withheld unless ``allow_pii``)."""
        from clawql_git.model.times import check_days
        from clawql_git.recall.service import recent_summary

        check_days(days)
        now = datetime.now(UTC)
        log = self.log(LogFilter(since=now - timedelta(days=days)))
        commit = self._commit_at(None)
        loaded = self.reader.load_all(commit.tree)
        summary = recent_summary(loaded, log, days, project, now)
        shown = {c["path"] for c in summary["context"]}
        ident = self.writer.identity(identity)
        read = self.reader.read_many(
            "recent", commit, [e for e in loaded if e.path in shown], ident, allow_pii
        )
        if read.refused:
            kept = {e.path for e in read.entries}
            summary["context"] = [c for c in summary["context"] if c["path"] in kept]
        return summary

    def distill(
        self,
        transcript: str | bytes,
        *,
        identity: Identity | None = None,
        project: str | None = None,
        dry_run: bool = False,
        offline: bool = False,
    ) -> DistillResult:
        """Distil a session transcript (Claude Code JSONL, Markdown, text) into one ``type:
        context`` entry: decided, tried and rejected, in progress, blocked, next step, files and
        symbols touched, links to the entries it recalled or wrote. Offline unless
        ``CLAWQL_LLM_URL`` names an endpoint (and not ``offline``); ``dry_run`` writes nothing."""
        from clawql_git.llm.chat import endpoint_from_env
        from clawql_git.vault.distiller import DistillRequest, distill_session

        llm = None if offline else endpoint_from_env(os.environ)
        request = DistillRequest(transcript, _checked(identity), llm, project, dry_run)
        return distill_session(self, request)

    def enable_signing(self, key: str | None = None) -> Path:
        """Sign every engine commit from now on with an SSH key (``key``, else the
        ``signing_key`` setting, else git's ``user.signingkey``)."""
        chosen = key or self.settings.signing_key or self.store.config_get("user.signingkey")
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
        """Check the real objects, linear histories, trailers against changes, the log, every
        record of where the branch has been, and (with a signing key) signatures."""
        from clawql_git.audit.verify import verify_vault

        key = self.settings.signing_key or self.store.config_get("user.signingkey")
        path = Path(key).expanduser() if key else self.store.signing_key
        if path is not None and not path.is_file():
            path = None  # git's user.signingkey may name a GPG key: no SSH key to check with
        return verify_vault(self.store, path, self.cataloger)

    # ------------------------------------------------------------ catalogs

    def catalog_drift(self) -> list[str]:
        """Catalog files that differ from a fresh regeneration (empty when consistent)."""
        return sorted(self.cataloger.drift(self._commit_at(None)))

    def catalog_fix(self, identity: Identity | None = None) -> WriteResult | None:
        """Commit the regenerated catalogs when they drifted; None when nothing to fix."""
        ident = self.writer.identity(identity)
        regenerated: list[str] = []

        def prepare(tree: Tree | None) -> Plan | None:
            drift = self.cataloger.drift(self._commit_at(None))
            if not drift:
                return None
            files = {p: want for p, (_, want) in drift.items()}
            regenerated[:] = sorted(files)
            subject = f"regenerate {len(files)} files"
            return Plan("MEMORY_CATALOG_FIX", {}, subject, raw_files=files, catalogs=False)

        result = self.writer.write(prepare, ident, to="head")
        if result.noop:
            return None
        self.close()
        return replace(result, path=INDEX, paths=tuple(regenerated))

    # ------------------------------------------------------------ the ontology

    def entities(
        self,
        kind: str,
        where: Iterable[tuple[str, str]] = (),
        related: str = "",
        *,
        identity: Identity | None = None,
        allow_pii: bool = False,
    ) -> EntityAnswer:
        """The instances of an entity kind whose fields match ``where``, each with the
        instances ``related`` reaches (a reference field, or a relation that follows one
        backwards); recorded as a read (``door="entities"``), PHI withheld unless allowed."""
        from clawql_git.ontology import EntityQuery
        from clawql_git.vault.entities import query_entities

        query = EntityQuery(kind, tuple(where), related)
        return query_entities(self.reader, query, self.writer.identity(identity), allow_pii)

    def write_schema(self, *texts: str | bytes, identity: Identity | None = None) -> WriteResult:
        """Add or change entity schemas (``.cqe`` YAML documents) in one commit, as a reviewed
        write; refused, naming them, when it would leave instances invalid."""
        from clawql_git.vault.entities import write_schemas

        return write_schemas(self.writer, texts, _checked(identity))

    def write_vault_toml(self, data: Mapping[str, Any]) -> bytes:
        """Render vault settings (used by init)."""
        return tomli_w.dumps(dict(data)).encode()


def _checked(identity: Identity | None) -> Identity:
    ident = identity or Identity()
    check_confidence(ident)
    return ident
