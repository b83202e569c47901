"""What the MCP tool sets share: tool annotations, the caller's identity, library errors as
tool errors, and answers as bounded, JSON-safe records."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from clawql_git.errors import ClawqlError
from clawql_git.index.chunking import estimate_tokens

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from clawql_git.model.identity import Identity

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


@dataclass(frozen=True)
class Caller:
    """Who calls when a tool's arguments do not say: the server's --agent/--session, which
    default to $CLAWQL_AGENT_ID/$CLAWQL_SESSION_ID."""

    agent_id: str = ""
    session_id: str = ""

    def identity(self, agent_id: str | None, session_id: str | None, **more: Any) -> Identity:
        from clawql_git.model.identity import Identity

        return Identity(
            agent_id=agent_id or self.agent_id, session_id=session_id or self.session_id, **more
        )


@contextmanager
def tool_errors() -> Iterator[None]:
    """Library errors become MCP tool errors carrying their message (never a traceback)."""
    try:
        yield
    except ClawqlError as exc:
        raise ToolError(f"{exc.message} ({type(exc).__name__})") from exc


def answer(record: dict[str, Any]) -> CallToolResult:
    """A tool result: compact JSON for the model, the same record as structured content."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=record)


def tokens(value: Any) -> int:
    """Tokens the JSON form of ``value`` costs (the library's estimate)."""
    return estimate_tokens(
        json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    )


def fit(record: dict[str, Any], key: str, max_tokens: int) -> dict[str, Any]:
    """Keep the leading items of ``record[key]`` that fit the budget; say what was left out."""
    items = list(record[key])
    budget = max_tokens - tokens({**record, key: [], "truncated": True, "omitted": {key: 0}})
    kept: list[Any] = []
    for item in items:
        budget -= tokens(item) + 1
        if budget < 0:
            break
        kept.append(item)
    out = {**record, key: kept}
    out["truncated"] = bool(record.get("truncated")) or len(kept) < len(items)
    if len(kept) < len(items):
        out["omitted"] = {**record.get("omitted", {}), key: len(items) - len(kept)}
    return out


def fit_body(record: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """Cut an entry's body to the budget; the full length is given when it was cut."""
    body = str(record.get("body") or "")
    spare = max_tokens - tokens({**record, "body": "", "truncated": True, "body_chars": 0})
    if tokens(body) <= spare:
        return {**record, "truncated": False}
    cut = body[: max(0, spare * 4 - 8)]
    return {**record, "body": cut, "truncated": True, "body_chars": len(body)}


def add_tools(server: MCPServer[Any], tools: object, table: Mapping[str, ToolAnnotations]) -> None:
    """Add the methods of ``tools`` named in ``table`` to ``server``: the method's docstring is
    the tool's description, its signature the input schema, the table gives its hints."""
    for name, hints in table.items():
        method = getattr(tools, name)
        server.add_tool(method, name=name, description=inspect.getdoc(method), annotations=hints)
