"""Splitting an entry into chunks for full-text and vector search (title prepended to each)."""

from __future__ import annotations

import re
from dataclasses import dataclass

TARGET_WORDS = 160
MAX_WORDS = 220
_BLOCK_SPLIT = re.compile(r"\n\s*\n")
_HEADING = re.compile(r"^#{1,6}\s")


@dataclass(frozen=True)
class Chunk:
    """One searchable piece of an entry."""

    index: int
    text: str  # title-prefixed, as embedded and indexed
    body: str  # the chunk alone, used as the hit's snippet


def _blocks(body: str) -> list[str]:
    return [b.strip() for b in _BLOCK_SPLIT.split(body) if b.strip()]


def _split_long(block: str) -> list[str]:
    words = block.split()
    if len(words) <= MAX_WORDS:
        return [block]
    return [" ".join(words[i : i + TARGET_WORDS]) for i in range(0, len(words), TARGET_WORDS)]


def chunk_entry(title: str, description: str, body: str) -> list[Chunk]:
    """Chunks of roughly 120-200 words along paragraph and heading boundaries."""
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for block in (p for b in _blocks(body) for p in _split_long(b)):
        words = len(block.split())
        starts_section = bool(_HEADING.match(block)) and count >= TARGET_WORDS // 2
        if current and (count + words > MAX_WORDS or starts_section):
            pieces.append("\n\n".join(current))
            current, count = [], 0
        current.append(block)
        count += words
    if current:
        pieces.append("\n\n".join(current))
    head = title if not description else f"{title}. {description}"
    if not pieces:
        return [Chunk(0, head, description or title)]
    return [Chunk(i, f"{head}\n\n{p}", p) for i, p in enumerate(pieces)]


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (about 4 characters per token for English prose)."""
    return max(1, (len(text) + 3) // 4)
