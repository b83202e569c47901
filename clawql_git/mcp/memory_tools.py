"""The memory tools (memory_*): each a thin adapter over one ``Vault`` call that answers a
bounded, JSON-safe record."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from clawql_git.errors import ClawqlError, NotFound
from clawql_git.mcp.common import (
    READ_ONLY,
    WRITES,
    Caller,
    answer,
    fit,
    fit_body,
    make_tools,
    tool_errors,
)
from clawql_git.model.times import parse_when

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool

    from clawql_git.links import LinkGraph
    from clawql_git.vault.facade import Vault

log = logging.getLogger("clawql_git.mcp")

# Argument types: their descriptions are what a model reads in the input schema.
AgentId = Annotated[
    str | None, Field(description="Who is calling (your agent name); defaults to the server's.")
]
SessionId = Annotated[str | None, Field(description="Your session id; defaults to the server's.")]
CorrelationId = Annotated[
    str | None, Field(description="The task or ticket this belongs to, e.g. LL-101.")
]
Since = Annotated[
    str | None, Field(description="Not before: 90d, 12h, 2w, a date (2026-07-01) or ISO time.")
]
Until = Annotated[str | None, Field(description="Not after: a date or an ISO timestamp.")]
MaxTokens = Annotated[
    int, Field(ge=100, le=50_000, description="Token budget of the answer (about 4 chars each).")
]
AllowPii = Annotated[
    bool, Field(description="Read entries classified PHI too (every read is recorded).")
]
EntryPath = Annotated[
    str, Field(description="Vault-relative path of an entry, e.g. decisions/2026-07/use-jwt.md")
]
Backend = Literal["auto", "hybrid", "fts", "vector", "page_index"]


class MemoryTools:
    """The tools, over one vault opened on first use. Calls are serialised (the vault and its
    index are not shared across threads); the index is warmed in the background at start."""

    def __init__(self, vault_path: str | None, caller: Caller) -> None:
        self.vault_path = vault_path
        self.caller = caller
        self._lock = threading.Lock()
        self._vault: Vault | None = None
        self._graph: tuple[str, LinkGraph] | None = None
        self._warming = False
        self._start_lock = threading.Lock()

    # ------------------------------------------------------------ the vault

    def open(self) -> Vault:
        """The vault (opened once; raises NotAVault for a wrong path)."""
        if self._vault is None:
            from clawql_git.vault.facade import Vault

            self._vault = Vault.open(self.vault_path)
        return self._vault

    def call(self, fn: Callable[[Vault], dict[str, Any]]) -> CallToolResult:
        """Run one library call under the lock, with its errors as tool errors."""
        with self._lock, tool_errors():
            return answer(fn(self.open()))

    def warm(self) -> None:
        """Open the vault, catch its index up with HEAD, load it and the embedding model, so
        the first recall is fast. Fails open: a problem is logged, and the calls report it."""
        with self._lock:
            try:
                vault = self.open()
                vault.update_index()
                service = vault.recall_service()
                service.index.background_compaction = True  # long-lived: off the write path
                service.warm()  # the index rows, category tree and link graph into memory
                embedder = service.embedder
                if embedder is not None:
                    embedder.embed_query("warm up")  # the model loads on first use
            except ClawqlError as exc:
                log.warning("clawql: %s", exc.message)

    def start_warming(self) -> None:
        """Warm up in a daemon thread, once (calls wait for it; the server answers meanwhile)."""
        with self._start_lock:
            if self._warming:
                return
            self._warming = True
        threading.Thread(target=self.warm, name="clawql-warm", daemon=True).start()

    def link_graph(self, vault: Vault) -> LinkGraph:
        """The link graph at HEAD, kept until HEAD moves (building it reads every entry)."""
        head = vault.store.head_commit()
        sha = str(head.id) if head is not None else ""
        if self._graph is None or self._graph[0] != sha:
            self._graph = (sha, vault.link_graph())
        return self._graph[1]

    # ------------------------------------------------------------ writes

    def memory_ingest(
        self,
        type: Annotated[
            str,
            Field(
                description="Entry type: decision, context (what is in progress), error, "
                "pattern, task_result, code_change, or another plain word."
            ),
        ],
        title: Annotated[str, Field(description="A short title; it becomes the file name.")],
        body: Annotated[
            str,
            Field(
                description="Markdown. Link related entries with [[wikilinks]] to their title "
                "or path. Secrets (keys, tokens, passwords) are refused."
            ),
        ] = "",
        tags: Annotated[list[str] | None, Field(description='Tags, e.g. ["auth"].')] = None,
        description: Annotated[
            str | None, Field(description="One line for catalogs and recall.")
        ] = None,
        project: Annotated[str | None, Field(description="Project the entry belongs to.")] = None,
        verdict: Annotated[
            str | None, Field(description="Outcome: accepted, rejected, failed, success, ...")
        ] = None,
        confidence: Annotated[
            float | None, Field(ge=0, le=1, description="How sure you are, 0..1.")
        ] = None,
        agent_id: AgentId = None,
        session_id: SessionId = None,
        correlation_id: CorrelationId = None,
        append: Annotated[
            bool,
            Field(
                description="When an entry of this type and title exists, append the body to "
                "it as a dated section instead of writing a new entry."
            ),
        ] = False,
        allow_new_type: Annotated[
            bool,
            Field(
                description="Start a new type even though it looks like a misspelling of a "
                "known one (decison is refused as a typo of decision without it)."
            ),
        ] = False,
        supersede: Annotated[
            bool,
            Field(
                description="Mark the current entry this one contradicts (else the one it "
                "nearly repeats) superseded by it, in the same commit."
            ),
        ] = False,
    ) -> CallToolResult:
        """Write one memory entry as a Git commit and return its path and worm_ref (the commit
        sha that holds it). Record decisions with their reasons, what was tried and failed, the
        state of work in progress (type context, append=true to add to it), reusable patterns.
        The answer names current entries it nearly repeats (duplicates) or contradicts
        (contradictions): resolve them with append, supersede or memory_supersede.
        Nothing is written when the input is refused (missing type, a secret in the body...)."""
        who = self.caller.identity(
            agent_id,
            session_id,
            correlation_id=correlation_id or "",
            verdict=verdict or "",
            confidence=confidence,
        )

        def run(vault: Vault) -> dict[str, Any]:
            result = vault.ingest(
                type=type,
                title=title,
                body=body,
                description=description,
                tags=tags or (),
                meta={"project": project},
                identity=who,
                append=append,
                allow_new_type=allow_new_type,
                supersede=supersede,
            )
            return {**result.to_record(), "warning": result.warning or None}

        return self.call(run)

    def memory_supersede(
        self,
        old: Annotated[str, Field(description="Path of the entry that no longer holds.")],
        by: Annotated[str, Field(description="Path of the current entry that replaces it.")],
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Mark entry `old` superseded by entry `by` (one commit): recall then ranks it below
        current entries and points at its replacement; history keeps every version. Use it
        when memory_ingest reported a contradiction you have resolved."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            return vault.supersede(old, by, identity=who).to_record()

        return self.call(run)

    def memory_distill(
        self,
        transcript: Annotated[
            str,
            Field(
                description="The session transcript: Claude Code JSONL (one JSON object a "
                "line), Markdown or plain text."
            ),
        ],
        project: Annotated[str | None, Field(description="Project the entry belongs to.")] = None,
        dry_run: Annotated[bool, Field(description="Answer the entry; write nothing.")] = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Call this at the end of a session: distil its transcript into one context entry
        (decided, tried and rejected, in progress, blocked, next step, files and symbols
        touched, links to the entries it recalled or wrote) that the next session's
        memory_recent shows first. Offline unless the server has an LLM endpoint configured."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            result = vault.distill(transcript, identity=who, project=project, dry_run=dry_run)
            return result.to_record()

        return self.call(run)

    # ------------------------------------------------------------ recall

    def memory_recall(
        self,
        query: Annotated[str, Field(description="The question, in plain words.")],
        limit: Annotated[int, Field(ge=1, le=50, description="At most this many hits.")] = 10,
        max_tokens: MaxTokens = 2000,
        types: Annotated[
            list[str] | None, Field(description='Only these entry types, e.g. ["decision"].')
        ] = None,
        tags: Annotated[list[str] | None, Field(description="Only entries with a tag.")] = None,
        project: Annotated[str | None, Field(description="Only this project.")] = None,
        since: Since = None,
        until: Until = None,
        as_of: Annotated[
            str | None,
            Field(description="Answer from the vault as it was at a revision or date."),
        ] = None,
        backend: Annotated[
            Backend,
            Field(
                description="Layers: auto (all), hybrid (full text + vectors), fts, vector, "
                "page_index (category tree, no embedding model)."
            ),
        ] = "auto",
        allow_pii: AllowPii = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
        correlation_id: CorrelationId = None,
    ) -> CallToolResult:
        """Search the memory for entries that answer a question: past decisions and their
        reasons, errors already met, patterns, context. `entries` is one ranked list, each
        with path, title, type, score, snippet, worm_ref and source_layer ("vault"; "code" for
        symbols and routes of the attached code graph; "onyx" for organisational documents,
        with a citation), within a token budget (`truncated` says when some were left out).
        Retracted entries never come back; superseded ones point at their replacement. Every
        recall is recorded on the vault's audit chain with who asked."""
        who = self.caller.identity(agent_id, session_id, correlation_id=correlation_id or "")

        def run(vault: Vault) -> dict[str, Any]:
            result = vault.recall(
                query,
                at=as_of,
                identity=who,
                limit=limit,
                max_tokens=max_tokens,
                types=tuple(types or ()),
                tags=tuple(tags or ()),
                project=project,
                since=parse_when(since, what="since"),
                until=parse_when(until, what="until"),
                backend=backend,
                allow_pii=allow_pii,
            )
            record = {**result.to_record(), "audit_ref": result.audit_ref or None}
            return one_list(fit({**record, "hits": []}, "entries", max_tokens))

        return self.call(run)

    # ------------------------------------------------------------ reads

    def memory_get(
        self,
        path: EntryPath,
        at: Annotated[
            str | None, Field(description="Read it as of this revision (commit, branch, tag).")
        ] = None,
        max_tokens: MaxTokens = 4000,
        allow_pii: AllowPii = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Read one entry: its frontmatter, its Markdown body, and worm_ref (the commit that
        last changed it) and worm_ref_first (the commit that created it). A body over the
        budget is cut (`truncated`, with `body_chars` the full length). The read is recorded
        on the audit chain; an entry classified PHI needs allow_pii."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            view = vault.get(path, at=at, identity=who, allow_pii=allow_pii)
            return fit_body(view.to_record(), max_tokens)

        return self.call(run)

    def memory_log(
        self,
        agent: Annotated[str | None, Field(description="Only commits by this agent.")] = None,
        type: Annotated[str | None, Field(description="Only this entry type.")] = None,
        event: Annotated[
            str | None,
            Field(
                description="Only this event: MEMORY_INGEST, MEMORY_UPDATE, MEMORY_SUPERSEDE, "
                "MEMORY_RETRACT, MEMORY_ARCHIVE, ..."
            ),
        ] = None,
        session: Annotated[str | None, Field(description="Only this session.")] = None,
        correlation: Annotated[str | None, Field(description="Only this correlation id.")] = None,
        path: Annotated[str | None, Field(description="Only commits naming this entry.")] = None,
        since: Since = None,
        until: Until = None,
        limit: Annotated[int, Field(ge=1, le=500, description="At most this many records.")] = 20,
        max_tokens: MaxTokens = 2000,
    ) -> CallToolResult:
        """The audit trail of writes, newest first: one record per commit with its worm_ref,
        time, event, entry paths, type, agent, session, correlation, verdict and confidence."""
        from clawql_git.audit.history import LogFilter

        def run(vault: Vault) -> dict[str, Any]:
            window = parse_when(since, what="since"), parse_when(until, what="until")
            flt = LogFilter(agent, type, event, session, correlation, path, *window)
            records = [r.to_record() for r in vault.log(flt, limit)]
            return fit({"records": records}, "records", max_tokens)

        return self.call(run)

    def memory_links(
        self,
        path: Annotated[
            str | None, Field(description="The entry whose links to list (omit with broken).")
        ] = None,
        broken: Annotated[
            bool, Field(description="List every broken link in the vault instead.")
        ] = False,
        max_tokens: MaxTokens = 2000,
    ) -> CallToolResult:
        """The link graph around an entry: its outgoing links (resolved target or broken) and
        its backlinks (entries linking to it). With broken=true: every link that resolves to
        no entry. Links are [[wikilinks]] and relative Markdown links."""

        def run(vault: Vault) -> dict[str, Any]:
            graph = self.link_graph(vault)
            if broken or path is None:
                return fit(
                    {"broken": [e.to_record() for e in graph.broken()]}, "broken", max_tokens
                )
            if path not in {note.path for note in graph.notes}:
                raise NotFound(f"no entry at {path}")
            record = {
                "path": path,
                "outgoing": [e.to_record() for e in graph.outgoing(path)],
                "backlinks": [e.to_record() for e in graph.backlinks(path)],
            }
            return fit(fit(record, "backlinks", max_tokens // 2), "outgoing", max_tokens)

        return self.call(run)

    def memory_history(
        self,
        path: EntryPath,
        max_tokens: MaxTokens = 2000,
        allow_pii: AllowPii = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Every version of an entry, newest first: the commit (worm_ref) that wrote it, when,
        the event, who, and the blob id of that version (read one with memory_get at=<sha>).
        Recorded as a read; an entry classified PHI needs allow_pii."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            versions = [
                {"path": v.path, "blob": v.blob, **v.record.to_record()}
                for v in vault.history(path, identity=who, allow_pii=allow_pii)
            ]
            return fit({"path": path, "versions": versions}, "versions", max_tokens)

        return self.call(run)

    def memory_recent(
        self,
        days: Annotated[int, Field(ge=1, le=3650, description="How far back to look.")] = 7,
        project: Annotated[
            str | None, Field(description="Only this project's context entries.")
        ] = None,
        max_tokens: MaxTokens = 2000,
        allow_pii: AllowPii = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Call this first in a session: what was worked on recently (entries by number of
        changes) and the latest context entries (work in progress), in a few hundred tokens.
        Recorded as a read; context classified PHI is left out unless allow_pii."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            summary = vault.recent(days, project, identity=who, allow_pii=allow_pii)
            return fit(fit(summary, "worked_on", max_tokens // 2), "context", max_tokens)

        return self.call(run)

    def memory_entities(
        self,
        kind: Annotated[str, Field(description="The entity kind, e.g. service, person.")],
        where: Annotated[
            dict[str, str] | None,
            Field(
                description='Field values every instance must hold, e.g. {"owner": "priya-raman"}.'
            ),
        ] = None,
        related: Annotated[
            str | None,
            Field(
                description="A relation to follow from each instance: a reference field (owner), "
                "a relation its schema names (owns), or KIND.FIELD of a kind that references it."
            ),
        ] = None,
        max_tokens: MaxTokens = 2000,
        allow_pii: AllowPii = False,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Typed entities checked against their schema (ontology/entities/<kind>.cqe): the
        instances of a kind whose fields match `where`, each with the instances `related`
        reaches, forwards (a service's owner) or backwards (the services a person owns).
        Recorded as a read; instances classified PHI are left out unless allow_pii."""
        who = self.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            pairs = sorted((where or {}).items())
            found = vault.entities(kind, pairs, related or "", identity=who, allow_pii=allow_pii)
            return fit(found.to_record(), "instances", max_tokens)

        return self.call(run)


HIT_FIELDS = ("path", "title", "type", "score", "worm_ref", "source_layer")


def one_list(record: dict[str, Any]) -> dict[str, Any]:
    """A recall answer for a model: ``entries`` is the one list (across vault, code graph and
    Onyx) within the budget; ``hits``, kept for older callers, names the same hits in brief
    (repeating every snippet would double what the model reads)."""
    hits = [{k: e[k] for k in HIT_FIELDS} for e in record["entries"]]
    return {**record, "hits": hits, "token_cost": sum(e["tokens"] for e in record["entries"])}


TOOLS: dict[str, ToolAnnotations] = {
    "memory_ingest": WRITES,
    "memory_distill": WRITES,
    "memory_supersede": WRITES,
    "memory_recall": READ_ONLY,
    "memory_get": READ_ONLY,
    "memory_log": READ_ONLY,
    "memory_links": READ_ONLY,
    "memory_history": READ_ONLY,
    "memory_recent": READ_ONLY,
    "memory_entities": READ_ONLY,
}


def make(tools: MemoryTools) -> list[Tool]:
    """The memory_* tools, served by ``tools``, for an MCP server."""
    return make_tools(tools, TOOLS)
