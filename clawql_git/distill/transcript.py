"""Transcripts parsed once at the boundary: Claude Code's JSONL (one JSON object a line,
``type`` user/assistant, ``message.content`` blocks text/tool_use/tool_result), or Markdown
and plain text (speaker lines such as ``User:`` / ``## Assistant``, else one block)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from clawql_git.errors import InvalidInput

_SPEAKER = re.compile(
    r"^\s*(?:#{1,6}\s*|>\s*)?(?:\*\*|__)?(user|human|you|assistant|claude|agent|ai)\s*"
    r"(?:\*\*|__)?\s*(?::\s*(?:\*\*|__)?\s*(.*))?$",
    re.IGNORECASE,
)
_ASSISTANT = frozenset({"assistant", "claude", "agent", "ai"})


@dataclass(frozen=True)
class ToolCall:
    """One tool the session called, with its input and (once seen) its result text."""

    name: str
    input: Mapping[str, Any]
    id: str = ""
    result: str = ""
    is_error: bool = False


@dataclass(frozen=True)
class Turn:
    """What one side said (text only; tool calls are kept apart)."""

    role: str  # "user" or "assistant"
    text: str


@dataclass(frozen=True)
class Transcript:
    """A parsed session: its turns, tool calls, and what the log says about it."""

    format: str  # "claude-jsonl", "markdown" or "text"
    turns: tuple[Turn, ...]
    tools: tuple[ToolCall, ...] = ()
    session_id: str = ""
    started: str = ""
    ended: str = ""
    cwd: str = ""
    summaries: tuple[str, ...] = field(default=())


def parse_transcript(text: str) -> Transcript:
    """Parse a transcript of any supported format (JSONL when its first line is an object)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if not first:
        raise InvalidInput("the transcript is empty")
    if first.lstrip().startswith("{"):
        return parse_jsonl(text)
    return parse_markdown(text)


def parse_jsonl(text: str) -> Transcript:
    """A Claude Code session log; a line that is not a JSON object is refused, naming it."""
    state = _JsonlState()
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            state.add(_json_line(line, number))
    return state.finish()


def _json_line(line: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise InvalidInput(f"transcript line {number} is not JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise InvalidInput(f"transcript line {number} is not a JSON object")
    return record


class _JsonlState:
    """Collects turns and tool calls line by line, pairing tool results with their calls."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.calls: dict[str, ToolCall] = {}
        self.order: list[str] = []
        self.meta: dict[str, str] = {"session": "", "started": "", "ended": "", "cwd": ""}
        self.summaries: list[str] = []

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        self._note(record)
        if kind == "summary" and isinstance(record.get("summary"), str):
            self.summaries.append(record["summary"])
        message = record.get("message")
        if kind in ("user", "assistant") and isinstance(message, dict):
            for block in _blocks(message.get("content")):
                self._block(str(kind), block)

    def _note(self, record: dict[str, Any]) -> None:
        stamp = str(record.get("timestamp") or "")
        if stamp:
            self.meta["started"] = self.meta["started"] or stamp
            self.meta["ended"] = stamp
        for key, name in (("session", "sessionId"), ("cwd", "cwd")):
            if not self.meta[key] and isinstance(record.get(name), str):
                self.meta[key] = record[name]

    def _block(self, role: str, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if kind == "text" and str(block.get("text") or "").strip():
            self.turns.append(Turn(role, str(block["text"])))
        elif kind == "tool_use":
            call_id = str(block.get("id") or f"call-{len(self.order)}")
            raw = block.get("input")
            self.calls[call_id] = ToolCall(
                str(block.get("name") or ""), raw if isinstance(raw, dict) else {}, call_id
            )
            self.order.append(call_id)
        elif kind == "tool_result":
            self._result(block)

    def _result(self, block: dict[str, Any]) -> None:
        call_id = str(block.get("tool_use_id") or "")
        call = self.calls.get(call_id)
        if call is not None:
            self.calls[call_id] = ToolCall(
                call.name,
                call.input,
                call.id,
                _result_text(block.get("content")),
                bool(block.get("is_error")),
            )

    def finish(self) -> Transcript:
        if not self.turns and not self.order:
            raise InvalidInput("the transcript holds no user or assistant messages")
        return Transcript(
            "claude-jsonl",
            tuple(self.turns),
            tuple(self.calls[c] for c in self.order),
            self.meta["session"],
            self.meta["started"],
            self.meta["ended"],
            self.meta["cwd"],
            tuple(self.summaries),
        )


def _blocks(content: Any) -> Iterator[dict[str, Any]]:
    """A message's content blocks (a bare string is one text block)."""
    if isinstance(content, str):
        yield {"type": "text", "text": content}
    elif isinstance(content, list):
        yield from (b for b in content if isinstance(b, dict))


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text") or "") for b in _blocks(content) if b.get("type") == "text")


def parse_markdown(text: str) -> Transcript:
    """Markdown or plain text: speaker lines split it into turns, else it is one user turn."""
    turns: list[Turn] = []
    role, lines = "user", []
    spoken = False
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match is None:
            lines.append(line)
            continue
        spoken = True
        _flush(turns, role, lines)
        role = "assistant" if match.group(1).lower() in _ASSISTANT else "user"
        lines = [match.group(2)] if match.group(2) else []
    _flush(turns, role, lines)
    if not turns:
        raise InvalidInput("the transcript holds no text")
    return Transcript("markdown" if spoken or _looks_markdown(text) else "text", tuple(turns))


def _flush(turns: list[Turn], role: str, lines: list[str]) -> None:
    body = "\n".join(lines).strip()
    if body:
        turns.append(Turn(role, body))


def _looks_markdown(text: str) -> bool:
    return bool(re.search(r"^(#{1,6} |[-*] |```)", text, re.MULTILINE))
