"""The audit chain: events that change no entry (recalls, cache hits, syncs) as commits on
``refs/clawql/audit`` whose tree is the vault tree that was read, plus queries over it
(negative proof: which recalls returned an entry) and the checkpoints verify relies on."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from clawql_git.errors import StorageError
from clawql_git.gitstore import AUDIT_REF, Commit, GitStore, format_message, parse_trailers
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.gitstore.trailers import clean_value
from clawql_git.model.secrets import redact
from clawql_git.model.times import utc

QUERY_MAX = 500
READ_EVENTS = frozenset({"MEMORY_RECALL", "MEMORY_CACHE_HIT", "MEMORY_READ"})


@dataclass(frozen=True)
class ReadHit:
    """One entry a recall returned: its path, the blob that was read, its PII class."""

    path: str
    blob: str
    pii: str = ""

    def trailer(self) -> str:
        return f"{self.path} {self.blob} {self.pii or '-'}"

    @classmethod
    def parse(cls, value: str) -> ReadHit:
        path, _, rest = value.partition(" ")
        blob, _, pii = rest.partition(" ")
        return cls(path, blob, "" if pii in ("", "-") else pii)


@dataclass(frozen=True)
class AuditEvent:
    """One commit of the audit chain."""

    sha: str
    when: datetime
    event: str
    agent: str
    session: str
    correlation: str
    query: str
    read_commit: str
    cache_hit: bool
    allow_pii: bool
    hits: tuple[ReadHit, ...]
    door: str = "recall"  # MEMORY_READ events name theirs: get, history, export, recent
    refused: tuple[ReadHit, ...] = ()  # entries the PII gate kept back

    @classmethod
    def from_commit(cls, commit: Commit) -> AuditEvent:
        t = parse_trailers(commit.message)
        return cls(
            sha=str(commit.id),
            when=utc(commit.author.time),
            event=t.get("Clawql-Event"),
            agent=_none(t.get("Agent-Id")),
            session=_none(t.get("Session-Id")),
            correlation=_none(t.get("Correlation-Id")),
            query=t.get("Query"),
            read_commit=t.get("Read-Commit"),
            cache_hit=t.get("Cache-Hit") == "true",
            allow_pii=t.get("Allow-PII") == "true",
            hits=tuple(ReadHit.parse(v) for v in t.get_all("Recall-Hit")),
            door=t.get("Read-Door") or "recall",
            refused=tuple(ReadHit.parse(v) for v in t.get_all("Read-Refused")),
        )

    def to_record(self) -> dict[str, object]:
        return {
            "audit_ref": f"git:{self.sha}",
            "time": self.when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "event": self.event,
            "agent_id": self.agent,
            "session_id": self.session,
            "correlation_id": self.correlation,
            "query": self.query,
            "read_commit": self.read_commit,
            "cache_hit": self.cache_hit,
            "allow_pii": self.allow_pii,
            "hits": [{"path": h.path, "blob": h.blob, "pii": h.pii or None} for h in self.hits],
            "door": self.door,
            "refused": [{"path": h.path, "pii": h.pii or None} for h in self.refused],
        }


def _none(value: str) -> str:
    return "" if value == "none" else value


class AuditChain:
    """Appends to and reads ``refs/clawql/audit``."""

    def __init__(self, store: GitStore) -> None:
        self.store = store

    def record(
        self,
        event: str,
        read_commit: Commit,
        agent: str,
        session: str = "",
        correlation: str = "",
        query: str = "",
        hits: Sequence[ReadHit] = (),
        extra: Sequence[tuple[str, str]] = (),
    ) -> str:
        """Append one event; its tree is the tree of the commit that was read. The event must
        exist whatever the caller typed, so credential-like strings in what the caller gave
        (who, the query, a reason) are redacted, never refused: the chain travels with push."""
        agent, session, correlation = redact(agent), redact(session), redact(correlation)
        query = redact(clean_value(query))
        pairs = [
            ("Clawql-Event", event),
            ("Agent-Id", agent or "none"),
            ("Session-Id", session or "none"),
            ("Correlation-Id", correlation or "none"),
            ("Read-Commit", str(read_commit.id)),
        ]
        if query:
            pairs.append(("Query", query[:QUERY_MAX]))
        pairs += [(k, redact(clean_value(v))) for k, v in extra]
        pairs += [("Recall-Hit", h.trailer()) for h in hits]
        message = format_message(f"{event}: {query[:60]}", pairs)
        now = int(time.time())
        author = self.store.agent_signature(agent or "unknown-agent", "audit", now)
        with exclusive_lock(self.store.state_dir / "audit.lock"):
            parent = self.store.ref_commit(AUDIT_REF)
            return self.store.commit(
                AUDIT_REF, [parent] if parent else [], read_commit.tree.id, message, author
            )

    def tip(self) -> Commit | None:
        return self.store.ref_commit(AUDIT_REF)

    def events(self) -> Iterator[AuditEvent]:
        """Every audit event, newest first."""
        for commit in self.store.walk(self.tip()):
            yield AuditEvent.from_commit(commit)


@dataclass(frozen=True)
class ReadQuery:
    """Negative-proof questions: which recalls returned this path / any entry of a PII class."""

    path: str | None = None
    pii: str | None = None
    session: str | None = None
    agent: str | None = None

    def matches(self, ev: AuditEvent) -> bool:
        """True when the event returned an entry the question names."""
        return self._scoped(ev) and any(self._names(h) for h in ev.hits)

    def refused(self, ev: AuditEvent) -> bool:
        """True when the event asked for such an entry and the PII gate kept it back."""
        return self._scoped(ev) and any(self._names(h) for h in ev.refused)

    def _scoped(self, ev: AuditEvent) -> bool:
        if ev.event not in READ_EVENTS:
            return False
        if self.session is not None and ev.session != self.session:
            return False
        return self.agent is None or ev.agent == self.agent

    def _names(self, hit: ReadHit) -> bool:
        return (self.path is None or hit.path == self.path) and (
            self.pii is None or hit.pii == self.pii
        )


@dataclass(frozen=True)
class ReadAnswer:
    """The answer to a negative-proof question, over the whole chain."""

    question: ReadQuery
    matches: list[AuditEvent]
    events_scanned: int
    chain_tip: str
    refused: list[AuditEvent] = field(default_factory=list)

    def statement(self) -> str:
        what = self._what()
        attempts = f"; {len(self.refused)} refused attempt(s)" if self.refused else ""
        if not self.matches:
            return (
                f"no read returned {what} (recall, show/get, history, export, recent): checked "
                f"all {self.events_scanned} audit events up to git:{self.chain_tip or 'none'}"
                f"{attempts}"
            )
        return f"{len(self.matches)} read(s) returned {what}{attempts}"

    def _what(self) -> str:
        q = self.question
        parts = [
            f"entry {q.path}" if q.path else "",
            f"a {q.pii}-classified entry" if q.pii else "",
        ]
        scope = [f"in session {q.session}" if q.session else "", f"to {q.agent}" if q.agent else ""]
        return " ".join(p for p in [*parts, *scope] if p) or "any entry"


def reads(chain: AuditChain, question: ReadQuery) -> ReadAnswer:
    """Scan the whole chain for recalls that returned what the question names."""
    tip = chain.tip()
    matches: list[AuditEvent] = []
    refused: list[AuditEvent] = []
    scanned = 0
    for ev in chain.events():
        scanned += 1
        if question.matches(ev):
            matches.append(ev)
        if question.refused(ev):
            refused.append(ev)
    return ReadAnswer(question, matches, scanned, str(tip.id) if tip else "", refused)


def audit_error(exc: Exception) -> StorageError:
    """A failure to write an audit event."""
    return StorageError(f"cannot record the audit event: {exc}")
