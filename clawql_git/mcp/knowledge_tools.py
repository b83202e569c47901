"""The Onyx tool (knowledge_search): a thin adapter over ``Vault.knowledge_search``, served
with the memory tools over the same vault."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from clawql_git.mcp.common import fit, make_tools
from clawql_git.mcp.memory_tools import AgentId, MaxTokens, SessionId
from clawql_git.model.times import parse_when

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool

    from clawql_git.mcp.memory_tools import MemoryTools
    from clawql_git.vault.facade import Vault


# Read-only like recall, but it reaches a system outside the vault (Onyx): open world.
SEARCHES_ONYX = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)


class KnowledgeTools:
    """Onyx's search, through the vault the memory tools serve (its settings name Onyx)."""

    def __init__(self, memory: MemoryTools) -> None:
        self.memory = memory

    def knowledge_search(
        self,
        query: Annotated[str, Field(description="The question, in plain words.")],
        sources: Annotated[
            list[str] | None,
            Field(description='Only these Onyx source types, e.g. ["confluence", "slack"].'),
        ] = None,
        date_from: Annotated[
            str | None, Field(description="Only documents updated since: 30d, a date, ISO time.")
        ] = None,
        max_results: Annotated[int, Field(ge=1, le=100, description="At most this many.")] = 10,
        permission: Annotated[
            Literal["user", "admin"],
            Field(
                description="user: documents the key's user may see; admin: every document "
                "(an admin key)."
            ),
        ] = "user",
        max_tokens: MaxTokens = 2000,
        agent_id: AgentId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        """Search the organisation's knowledge in Onyx (wikis, tickets, chat, drive): ranked
        documents, each with its citation (document id, link, source, owners, updated_at).
        Fails open: when Onyx is down the answer is empty and `skipped_layers` says why.
        memory_recall already merges Onyx's hits into its list (source_layer "onyx")."""
        from clawql_git.onyx import OnyxQuery

        who = self.memory.caller.identity(agent_id, session_id)

        def run(vault: Vault) -> dict[str, Any]:
            when = parse_when(date_from, what="date_from")
            q = OnyxQuery(query, tuple(sources or ()), when, max_results, permission)
            record = vault.knowledge_search(q, identity=who).to_record()
            record.pop("documents")  # each entry carries its document: no need to say it twice
            return fit(record, "entries", max_tokens)

        return self.memory.call(run)


def make(memory: MemoryTools) -> list[Tool]:
    """The knowledge_* tools, over the memory tools' vault."""
    return make_tools(KnowledgeTools(memory), {"knowledge_search": SEARCHES_ONYX})
