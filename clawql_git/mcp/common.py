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
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from clawql_git.errors import ClawqlError
from clawql_git.index.chunking import estimate_tokens

if TYPE_CHECKING:
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


class CheckedTool(Tool):
    """A tool whose argument errors read as one line naming each bad argument, instead of
    pydantic's multi-line dump (with the rejected input and a help URL) the model would get."""

    async def run(self, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            raise ToolError(f"{self.name}: {argument_problems(exc)}") from exc
        return await super().run(arguments, *args, **kwargs)


def argument_problems(error: ValidationError) -> str:
    """``missing required argument 'type'; argument 'confidence': Input should be ...``: the
    fields and pydantic's reason, never the values given (they are the caller's data)."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"missing required argument {field!r}")
        else:
            problems.append(f"argument {field!r}: {item['msg']}")
    return "; ".join(problems)


def make_tools(tools: object, table: Mapping[str, ToolAnnotations]) -> list[Tool]:
    """The methods of ``tools`` named in ``table`` as MCP tools: the method's docstring is the
    tool's description, its signature the input schema, the table gives its hints."""
    made: list[Tool] = []
    for name, hints in table.items():
        method = getattr(tools, name)
        made.append(
            CheckedTool.from_function(
                method, name=name, description=inspect.getdoc(method), annotations=hints
            )
        )
    return made
