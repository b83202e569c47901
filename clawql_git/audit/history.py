"""History read from Git: the trailer log, an entry's versions, and worm_refs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from clawql_git.errors import InvalidInput
from clawql_git.gitstore import Commit, GitStore, Trailers, Tree, parse_trailers
from clawql_git.model.times import utc

NONE = "none"


@dataclass(frozen=True)
class LogRecord:
    """One engine commit as the audit trail shows it."""

    sha: str
    when: datetime
    event: str
    paths: tuple[str, ...]
    entry_type: str
    agent: str
    session: str
    correlation: str
    verdict: str
    confidence: str
    subject: str

    @classmethod
    def from_commit(cls, commit: Commit) -> LogRecord:
        t = parse_trailers(commit.message)
        return cls(
            sha=str(commit.id),
            when=utc(commit.author.time),
            event=t.get("Clawql-Event"),
            paths=tuple(t.entry_paths()),
            entry_type=_val(t, "Entry-Type"),
            agent=_val(t, "Agent-Id"),
            session=_val(t, "Session-Id"),
            correlation=_val(t, "Correlation-Id"),
            verdict=_val(t, "Verdict"),
            confidence=_val(t, "Confidence"),
            subject=commit.message.splitlines()[0] if commit.message else "",
        )

    @property
    def worm_ref(self) -> str:
        return f"git:{self.sha}"

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "worm_ref": self.worm_ref,
            "sha": self.sha,
            "time": self.when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "event": self.event,
            "paths": list(self.paths),
            "type": self.entry_type,
            "agent_id": self.agent,
            "session_id": self.session,
            "correlation_id": self.correlation,
            "verdict": self.verdict,
            "confidence": self.confidence,
            "subject": self.subject,
        }


def _val(trailers: Trailers, key: str) -> str:
    value = trailers.get(key)
    return "" if value == NONE else value


@dataclass(frozen=True)
class LogFilter:
    """Filters for ``log``: every given field must match."""

    agent: str | None = None
    entry_type: str | None = None
    event: str | None = None
    session: str | None = None
    correlation: str | None = None
    path: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def matches(self, rec: LogRecord) -> bool:
        checks = (
            self.agent is None or rec.agent == self.agent,
            self.entry_type is None or rec.entry_type == self.entry_type,
            self.event is None or rec.event == self.event,
            self.session is None or rec.session == self.session,
            self.correlation is None or rec.correlation == self.correlation,
            self.path is None or self.path in rec.paths,
            self.since is None or rec.when >= self.since,
            self.until is None or rec.when <= self.until,
        )
        return all(checks)


def engine_log(
    store: GitStore, start: Commit | None, flt: LogFilter, limit: int | None = None
) -> Iterator[LogRecord]:
    """Engine commits reachable from ``start`` (merged branches included), newest first,
    that match the filter."""
    if limit is not None and limit < 1:
        raise InvalidInput(f"limit must be at least 1, got {limit!r}")
    found = 0
    for commit in store.walk(start, first_parent=False):
        rec = LogRecord.from_commit(commit)
        if flt.since is not None and rec.when < flt.since and not commit.parents:
            break
        if rec.event and flt.matches(rec):
            yield rec
            found += 1
            if limit is not None and found >= limit:
                return


@dataclass(frozen=True)
class Version:
    """One version of an entry: the commit that wrote it and the blob it wrote."""

    sha: str
    path: str
    blob: str
    record: LogRecord


def versions(store: GitStore, start: Commit | None, path: str) -> list[Version]:
    """Every commit that changed the entry at ``path``, newest first, merged branches included
    (a merge that took a parent's version is not a change). Follows archive moves through the
    ``Archived-From`` trailer."""
    out: list[Version] = []
    current = path
    for commit in store.walk(start, first_parent=False):
        blob = _blob_id(commit.tree, current)
        befores = {_blob_id(p.tree, current) for p in commit.parents} or {None}
        if blob is not None and blob not in befores:
            out.append(Version(str(commit.id), current, blob, LogRecord.from_commit(commit)))
            moved = parse_trailers(commit.message).get("Archived-From")
            if moved and befores == {None}:
                current = moved
    return out


def last_change(store: GitStore, start: Commit | None, path: str) -> str | None:
    """The sha of the newest commit that changed ``path`` (a bounded walk)."""
    for commit in store.walk(start):
        blob = _blob_id(commit.tree, path)
        parent = _blob_id(commit.parents[0].tree, path) if commit.parents else None
        if blob != parent:
            return str(commit.id)
    return None


def _blob_id(tree: Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str((tree / path).id)
    except KeyError:
        return None
