"""The one read path. Every read of entry content that an agent or a person can reach (show and
get, history, export, recent; recall goes through the recall service, which records the same
way) comes here: entries classified PHI are refused (one entry) or withheld (many) unless the
caller passes ``allow_pii``, and each read is recorded as a MEMORY_READ event on the audit
chain with the door, the reader, the entries returned and the entries refused, so
``audit reads`` answers for every door. ``load`` and ``load_all`` are the engine's own reads
(planning a write, checks): they return nothing to anyone and are not recorded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clawql_git.audit.chain import AuditChain, ReadHit
from clawql_git.catalog.update import Cataloger
from clawql_git.config import Settings
from clawql_git.errors import NotFound, PiiRefused
from clawql_git.gitstore import Commit, GitStore, Tree
from clawql_git.model.entry import Entry, decode_text, validate_entry_path
from clawql_git.model.identity import Identity

READ_EVENT = "MEMORY_READ"
GATED = "PHI"  # the classification recall hides and direct reads refuse without allow_pii


@dataclass(frozen=True)
class Read:
    """What one read returned, and what it refused (audited as one MEMORY_READ event)."""

    entries: list[Entry]
    refused: list[Entry]
    audit_ref: str = ""


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


class Reader:
    """Reads entry content for people and agents: the PII gate, then the audit event."""

    def __init__(self, store: GitStore, settings: Settings, cataloger: Cataloger) -> None:
        self.store = store
        self.settings = settings
        self.cataloger = cataloger

    # ------------------------------------------------------------ the engine's own reads

    def commit_at(self, at: str | None) -> Commit:
        """The commit of revision ``at`` (default HEAD)."""
        commit = self.store.resolve(at) if at else self.store.head_commit()
        if commit is None:
            raise NotFound("the vault has no commits yet")
        return commit

    def load(self, tree: Tree | None, path: str) -> Entry:
        """The entry at ``path`` (unaudited: for planning writes and checks)."""
        validate_entry_path(path)  # catalogs, logs and settings are never entries
        data = self.store.blob_at(tree, path)
        if data is None:
            raise NotFound(f"no entry at {path}")
        return Entry.parse(path, decode_text(data, path))

    def load_all(self, tree: Tree | None) -> list[Entry]:
        """Every entry of a tree (unaudited)."""
        return [self.load(tree, p) for p in self.cataloger.entry_paths(tree)]

    # ------------------------------------------------------------ reads that leave the engine

    def read_one(
        self, door: str, commit: Commit, path: str, ident: Identity, allow_pii: bool
    ) -> Entry:
        """One entry through a door; a gated entry without ``allow_pii`` is refused (and the
        refusal recorded)."""
        entry = self.load(commit.tree, path)
        read = self.read_many(door, commit, [entry], ident, allow_pii)
        if read.refused:
            raise PiiRefused([path], GATED)
        return entry

    def read_many(
        self, door: str, commit: Commit, entries: Sequence[Entry], ident: Identity, allow_pii: bool
    ) -> Read:
        """Entries already loaded for a door: the PII gate withholds the gated ones unless
        ``allow_pii``, and what passed and what did not is recorded."""
        shown: list[Entry] = []
        refused: list[Entry] = []
        for entry in entries:
            (shown if allow_pii or pii_of(entry) != GATED else refused).append(entry)
        ref = self._record(door, commit, shown, refused, ident, allow_pii)
        return Read(shown, refused, ref)

    def _record(
        self,
        door: str,
        commit: Commit,
        shown: list[Entry],
        refused: list[Entry],
        ident: Identity,
        allow_pii: bool,
    ) -> str:
        if not self.settings.record_recalls:
            return ""
        extra = [("Read-Door", door), ("Allow-PII", str(allow_pii).lower())]
        extra += [("Read-Refused", self._hit(commit, e).trailer()) for e in refused]
        sha = AuditChain(self.store).record(
            READ_EVENT,
            commit,
            ident.agent_id,
            ident.session_id,
            ident.correlation_id,
            query=f"{door} {' '.join(e.path for e in [*shown, *refused])}"[:200],
            hits=[self._hit(commit, e) for e in shown],
            extra=extra,
        )
        return f"git:{sha}"

    def _hit(self, commit: Commit, entry: Entry) -> ReadHit:
        return ReadHit(entry.path, self.store.blob_id_at(commit.tree, entry.path), pii_of(entry))


def pii_of(entry: Entry) -> str:
    """The entry's PII classification (``""`` when none)."""
    return str(entry.meta.get("pii_classification") or "")
