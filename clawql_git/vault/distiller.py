"""``Vault.distill``: a session transcript made into one ``type: context`` entry, written
through the one writer like any ingest (offline by default; an LLM when one is configured)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from clawql_git.audit.history import LogFilter
from clawql_git.distill.extract import SECTIONS, Distillation, distill_offline
from clawql_git.distill.render import ContextFields, render_context
from clawql_git.distill.transcript import Transcript, parse_transcript
from clawql_git.errors import StorageError
from clawql_git.model.entry import decode_text, now_timestamp
from clawql_git.model.identity import Identity
from clawql_git.model.secrets import scan

if TYPE_CHECKING:
    from clawql_git.audit.chain import ReadAnswer
    from clawql_git.audit.history import LogRecord
    from clawql_git.gitstore import GitStore
    from clawql_git.llm.chat import ChatEndpoint
    from clawql_git.vault.writer import WriteResult


class SessionVault(Protocol):
    """What distillation needs of the vault (the facade): its writes, audit, log and store."""

    store: GitStore

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
    ) -> WriteResult: ...

    def audit_reads(self, *, session: str | None = None) -> ReadAnswer: ...

    def log(self, flt: LogFilter | None = None) -> list[LogRecord]: ...


@dataclass(frozen=True)
class DistillResult:
    """What ``distill`` made: the distillation, the entry's fields, and its write (None on a
    dry run)."""

    distillation: Distillation
    fields: ContextFields
    write: WriteResult | None
    warnings: tuple[str, ...] = ()

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "title": self.fields.title,
            "description": self.fields.description,
            "body": self.fields.body,
            "distillation": self.distillation.to_record(),
            "dry_run": self.write is None,
            "write": self.write.to_record() if self.write is not None else None,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class DistillRequest:
    """One distillation asked for: the transcript and how to file its entry."""

    text: str | bytes
    identity: Identity
    llm: ChatEndpoint | None = None
    project: str | None = None
    dry_run: bool = False


def distill_session(vault: SessionVault, request: DistillRequest) -> DistillResult:
    """Parse, distil (offline, or by the LLM failing open to offline), link what the session
    recalled and wrote, drop sentences holding a secret, then ingest (unless a dry run)."""
    text = request.text
    transcript = parse_transcript(decode_text(text) if isinstance(text, bytes) else text)
    warnings: list[str] = []
    found = _distil(transcript, request.llm, warnings)
    session = request.identity.session_id or transcript.session_id
    found = _linked(vault, found, session)
    found = _without_secrets(found, warnings)
    when = transcript.ended or now_timestamp()
    fields = render_context(found, when, _source(transcript, session))
    if request.dry_run:
        return DistillResult(found, fields, None, tuple(warnings))
    ident = replace(request.identity, session_id=session)
    result = vault.ingest(
        type="context",
        title=fields.title,
        body=fields.body,
        description=fields.description,
        tags=fields.tags,
        meta={**fields.meta, "project": request.project},
        identity=ident,
    )
    return DistillResult(found, fields, result, tuple(warnings))


def _distil(transcript: Transcript, llm: ChatEndpoint | None, warnings: list[str]) -> Distillation:
    base = distill_offline(transcript)
    if llm is None:
        return base
    from clawql_git.distill.llm import distill_with_llm

    try:
        return distill_with_llm(llm, transcript, base)
    except StorageError as exc:  # an optional layer: fail open to the offline distiller
        warnings.append(f"{exc.message}; distilled offline instead")
        return base


def _linked(vault: SessionVault, found: Distillation, session: str) -> Distillation:
    """Add what the vault's audit says the session recalled and its log says it wrote, and
    keep only entries that exist at HEAD (a link to nothing helps no one)."""
    recalled, wrote = list(found.recalled), list(found.wrote)
    if session:
        for event in vault.audit_reads(session=session).matches:
            recalled += [h.path for h in event.hits]
        for record in vault.log(LogFilter(session=session)):
            wrote += list(record.paths)
    head = vault.store.head_commit()
    tree = head.tree if head is not None else None
    exists = {p for p in {*recalled, *wrote} if vault.store.blob_id_at(tree, p)}
    return replace(
        found,
        recalled=tuple(dict.fromkeys(p for p in recalled if p in exists and p not in wrote)),
        wrote=tuple(dict.fromkeys(p for p in wrote if p in exists)),
    )


def _without_secrets(found: Distillation, warnings: list[str]) -> Distillation:
    """History cannot be un-written: a sentence holding a credential is left out, and said."""
    kept: dict[str, tuple[str, ...]] = {}
    dropped = 0
    for name in SECTIONS:
        items = getattr(found, name)
        kept[name] = tuple(i for i in items if not scan(i))
        dropped += len(items) - len(kept[name])
    if dropped:
        warnings.append(f"left out {dropped} sentence(s) that hold a secret")
    return replace(found, **kept)  # type: ignore[arg-type]


def _source(transcript: Transcript, session: str) -> dict[str, Any]:
    source: dict[str, Any] = {
        "format": transcript.format,
        "turns": len(transcript.turns),
        "tool_calls": len(transcript.tools),
    }
    if session:
        source["session"] = session
    if transcript.started:
        source["started"] = transcript.started
    if transcript.ended:
        source["ended"] = transcript.ended
    return source
