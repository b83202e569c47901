"""The audit chain: events that change no entry (recalls, cache hits, syncs) as commits on
``refs/clawql/audit`` whose tree is the vault tree that was read, plus queries over it
(negative proof: which recalls returned an entry) and the checkpoints verify relies on."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

import pygit2

from clawql_git.errors import StorageError
from clawql_git.gitstore import ENGINE_EMAIL_DOMAIN, GitStore, format_message, parse_trailers
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.gitstore.trailers import clean_value
from clawql_git.model.times import utc

AUDIT_REF = "refs/clawql/audit"
QUERY_MAX = 500


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

    @classmethod
    def from_commit(cls, commit: pygit2.Commit) -> AuditEvent:
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
        read_commit: pygit2.Commit,
        agent: str,
        session: str = "",
        correlation: str = "",
        query: str = "",
        hits: Sequence[ReadHit] = (),
        extra: Sequence[tuple[str, str]] = (),
    ) -> str:
        """Append one event; its tree is the tree of the commit that was read."""
        pairs = [
            ("Clawql-Event", event),
            ("Agent-Id", agent or "none"),
            ("Session-Id", session or "none"),
            ("Correlation-Id", correlation or "none"),
            ("Read-Commit", str(read_commit.id)),
        ]
        if query:
            pairs.append(("Query", clean_value(query)[:QUERY_MAX]))
        pairs += list(extra) + [("Recall-Hit", h.trailer()) for h in hits]
        message = format_message(f"{event}: {clean_value(query)[:60]}", pairs)
        now = int(time.time())
        author = pygit2.Signature(agent or "unknown-agent", f"audit@{ENGINE_EMAIL_DOMAIN}", now, 0)
        with exclusive_lock(self.store.state_dir / "audit.lock"):
            parent = self.store.ref_commit(AUDIT_REF)
            return self.store.commit(AUDIT_REF, parent, read_commit.tree.id, message, author)

    def tip(self) -> pygit2.Commit | None:
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
        if ev.event not in ("MEMORY_RECALL", "MEMORY_CACHE_HIT"):
            return False
        if self.session is not None and ev.session != self.session:
            return False
        if self.agent is not None and ev.agent != self.agent:
            return False
        return any(
            (self.path is None or h.path == self.path) and (self.pii is None or h.pii == self.pii)
            for h in ev.hits
        )


@dataclass(frozen=True)
class ReadAnswer:
    """The answer to a negative-proof question, over the whole chain."""

    question: ReadQuery
    matches: list[AuditEvent]
    events_scanned: int
    chain_tip: str

    def statement(self) -> str:
        what = self._what()
        if not self.matches:
            return (
                f"no recall returned {what}: checked all {self.events_scanned} audit events "
                f"up to git:{self.chain_tip or 'none'}"
            )
        return f"{len(self.matches)} recall(s) returned {what}"

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
    scanned = 0
    for ev in chain.events():
        scanned += 1
        if question.matches(ev):
            matches.append(ev)
    return ReadAnswer(question, matches, scanned, str(tip.id) if tip else "")


def audit_error(exc: Exception) -> StorageError:
    """A failure to write an audit event."""
    return StorageError(f"cannot record the audit event: {exc}")
