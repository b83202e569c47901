"""The offline, extractive distiller: cue phrases and Markdown structure sort the session's
sentences into decided / tried and rejected / in progress / blocked / next; the session's own
tool calls give the files and symbols touched and the entries it recalled or wrote."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from clawql_git.distill.transcript import ToolCall, Transcript

SECTIONS = ("decided", "rejected", "in_progress", "blocked", "next")
ITEM_MAX = 240  # characters of one item
PER_SECTION = 8
# Cue phrases, most specific first: a sentence goes to the first section whose cue it has.
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "blocked",
        re.compile(
            r"\b(blocked (on|by)|blocker|waiting (on|for)|can(no|')t proceed|stuck on)\b", re.I
        ),
    ),
    (
        "next",
        re.compile(
            r"^(next( steps?)?\b|todo\b|to do:|follow[- ]up\b|then\b.*\bnext\b)|\bTODO\b"
            r"|\bnext (step|session|time|up)\b|\b(next,? (we|i)('ll| will| should))",
            re.I,
        ),
    ),
    (
        "rejected",
        re.compile(
            r"\b(did(n'?t| not) work|does(n'?t| not) work|won'?t work|rejected|ruled out|"
            r"gave up on|abandon(ed)?|reverted|not viable|dropped the idea|dead end|"
            r"tried .{1,80}\b(but|and it) (failed|broke|was too))",
            re.I,
        ),
    ),
    (
        "decided",
        re.compile(
            r"\b(decided|decision:|let'?s go with|let us go with|going with|we'?ll use|"
            r"we will use|settled on|agreed (on|to)|chose|chosen|we'?ll keep)\b",
            re.I,
        ),
    ),
    (
        "in_progress",
        re.compile(
            r"\b(in progress|working on|wip\b|half[- ]?done|partially|still (need|have) to|"
            r"not (yet )?finished|started (on )?)",
            re.I,
        ),
    ),
)
_HEADING_SECTION: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("decided", re.compile(r"decision|decided", re.I)),
    ("rejected", re.compile(r"rejected|tried|didn'?t work|dead ends?", re.I)),
    ("in_progress", re.compile(r"in progress|wip|status", re.I)),
    ("blocked", re.compile(r"block", re.I)),
    ("next", re.compile(r"next|todo|follow", re.I)),
)
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])")
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "str_replace_editor"})
_READ_TOOLS = frozenset({"Read", "NotebookRead", "View"})
_SYMBOL = re.compile(
    r"^\s*(?:async\s+)?(?:def|class|function|func|fn|interface|struct|type)\s+([A-Za-z_]\w*)",
    re.M,
)
_CODE_SYMBOL = re.compile(r"`([A-Za-z_][\w.]*)\(\)`")
_ENTRY_PATH = re.compile(
    r"(?<![\w/])((?:decisions|context|errors|patterns|task_results|code_changes|"
    r"entity_instances)/[\w./-]+?\.(?:md|cqk))\b"
)
_RECALL_TOOLS = ("memory_recall", "memory_get", "memory_history", "memory_links")
_WRITE_MEMORY = ("memory_ingest", "memory_update", "memory_distill", "memory_supersede")


@dataclass(frozen=True)
class Distillation:
    """What a session leaves for the next one (the parts of its context entry)."""

    topic: str
    decided: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    in_progress: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    next: tuple[str, ...] = ()
    files_written: tuple[str, ...] = ()
    files_read: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    recalled: tuple[str, ...] = ()
    wrote: tuple[str, ...] = ()
    method: str = "extractive"
    notes: tuple[str, ...] = field(default=())

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "topic": self.topic,
            **{name: list(getattr(self, name)) for name in SECTIONS},
            "files_written": list(self.files_written),
            "files_read": list(self.files_read),
            "symbols": list(self.symbols),
            "recalled": list(self.recalled),
            "wrote": list(self.wrote),
            "method": self.method,
            "notes": list(self.notes),
        }

    def with_sections(self, sections: dict[str, list[str]], method: str) -> Distillation:
        """This distillation with the five sections replaced (an LLM's answer)."""
        kept = {name: tuple(_unique(sections.get(name, []))[:PER_SECTION]) for name in SECTIONS}
        return replace(self, method=method, **kept)  # type: ignore[arg-type]


def distill_offline(transcript: Transcript) -> Distillation:
    """Sort the session's sentences by cue and structure; read its tool calls."""
    found: dict[str, list[str]] = {name: [] for name in SECTIONS}
    for turn in transcript.turns:
        for section, sentence in classify_lines(turn.text.splitlines()):
            found[section].append(sentence)
    for call in transcript.tools:
        if call.is_error and call.name == "Bash":
            command = _one_line(str(call.input.get("command") or ""))
            found["rejected"].append(f"`{command}` failed: {_one_line(call.result)}")
    written, read = files_touched(transcript.tools)
    recalled, wrote = entries_touched(transcript.tools)
    parts = {name: tuple(_unique(items)[-PER_SECTION:]) for name, items in found.items()}
    return Distillation(
        topic=session_topic(transcript),
        decided=parts["decided"],
        rejected=parts["rejected"],
        in_progress=parts["in_progress"],
        blocked=parts["blocked"],
        next=parts["next"],
        files_written=written,
        files_read=tuple(p for p in read if p not in written),
        symbols=symbols_touched(transcript.tools),
        recalled=recalled,
        wrote=wrote,
    )


def classify_lines(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(section, sentence) for every sentence with a cue, or for every bullet under a heading
    that names a section (``## Next steps``: each bullet below it is a next step)."""
    under: str | None = None
    for kind, text in _paragraphs(lines):
        if kind == "heading":
            under = _heading_section(text)
        elif kind == "bullet" and under is not None:
            yield under, _clip(text)
        else:
            for sentence in _SENTENCE.split(text):
                section = cue_section(sentence)
                if section is not None:
                    yield section, _clip(sentence.strip())


def _paragraphs(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """("heading" | "bullet" | "text", text): wrapped lines joined, code fences left out."""
    fenced = False
    held: list[str] = []
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading or _BULLET.match(line) or not line.strip():
            if held:
                yield "text", " ".join(held)
                held = []
            if heading:
                yield "heading", heading.group(1)
            elif line.strip():
                yield "bullet", _BULLET.sub("", line).strip()
        elif held or line.strip():
            held.append(line.strip())
    if held:
        yield "text", " ".join(held)


def cue_section(sentence: str) -> str | None:
    """The section a sentence's cue phrase puts it in, or None."""
    return next((name for name, cue in _CUES if cue.search(sentence.strip())), None)


def _heading_section(title: str) -> str | None:
    return next((name for name, cue in _HEADING_SECTION if cue.search(title)), None)


def files_touched(tools: Iterable[ToolCall]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(files written, files read) by the session's own tool calls, in first-seen order."""
    written: list[str] = []
    read: list[str] = []
    for call in tools:
        path = str(call.input.get("file_path") or call.input.get("path") or "")
        if not path or call.is_error:
            continue
        if call.name in _WRITE_TOOLS or call.input.get("command") in ("create", "str_replace"):
            written.append(path)
        elif call.name in _READ_TOOLS:
            read.append(path)
    return tuple(_unique(written)), tuple(_unique(read))


def symbols_touched(tools: Iterable[ToolCall]) -> tuple[str, ...]:
    """Functions and classes the session's edits define or change (names in new code)."""
    found: list[str] = []
    for call in tools:
        if call.name not in _WRITE_TOOLS or call.is_error:
            continue
        for text in _edit_texts(call.input):
            found += _SYMBOL.findall(text) + _CODE_SYMBOL.findall(text)
    return tuple(_unique(found))[:30]


def _edit_texts(data: Any) -> Iterator[str]:
    for key in ("content", "new_string", "new_str", "file_text"):
        if isinstance(data.get(key), str):
            yield data[key]
    for edit in data.get("edits") or ():
        if isinstance(edit, dict) and isinstance(edit.get("new_string"), str):
            yield edit["new_string"]


def entries_touched(tools: Iterable[ToolCall]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(entries recalled, entries written): vault paths in the results of memory tools (MCP
    or ``clawql memory`` run in a shell)."""
    recalled: list[str] = []
    wrote: list[str] = []
    for call in tools:
        kind = _memory_kind(call)
        if kind is None or call.is_error:
            continue
        paths = _ENTRY_PATH.findall(call.result) + _ENTRY_PATH.findall(str(call.input))
        (wrote if kind == "write" else recalled).extend(paths)
    return tuple(_unique(recalled)), tuple(_unique(wrote))


def _memory_kind(call: ToolCall) -> str | None:
    name = call.name
    command = str(call.input.get("command") or "") if name == "Bash" else ""
    if any(t in name for t in _WRITE_MEMORY) or re.search(
        r"clawql memory (ingest|update)", command
    ):
        return "write"
    if any(t in name for t in _RECALL_TOOLS) or re.search(r"clawql memory (recall|get)", command):
        return "read"
    return None


def session_topic(transcript: Transcript) -> str:
    """What the session was about: its log's summary, else the first thing the user asked."""
    if transcript.summaries:
        return _one_line(transcript.summaries[-1])[:120]
    first = next((t.text for t in transcript.turns if t.role == "user"), "")
    first = first or (transcript.turns[0].text if transcript.turns else "")
    lines = [_BULLET.sub("", ln).strip("# ").strip() for ln in first.splitlines()]
    line = next((ln for ln in lines if ln and not _is_speaker_noise(ln)), "session")
    return _SENTENCE.split(line)[0][:120].rstrip(" .:")


def _is_speaker_noise(line: str) -> bool:
    return line.lower().rstrip(":") in ("user", "assistant", "transcript", "session")


def _one_line(text: str) -> str:
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return _clip(first)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ITEM_MAX else text[: ITEM_MAX - 1].rstrip() + "…"


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = item.strip().lower()
        if key and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out
