"""Git trailers: the audit contract written into every engine commit message."""

from __future__ import annotations

import re
from dataclasses import dataclass

TRAILER_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*): ?(.*)$")
TRAILER_ORDER = (
    "Clawql-Event",
    "Entry-Path",
    "Entry-Type",
    "Agent-Id",
    "Session-Id",
    "Correlation-Id",
    "Verdict",
    "Confidence",
)


@dataclass(frozen=True)
class Trailers:
    """An ordered list of (key, value) pairs; keys may repeat (a batch names many paths)."""

    pairs: tuple[tuple[str, str], ...]

    def get(self, key: str, default: str = "") -> str:
        """The first value for ``key`` (case-insensitive), or ``default``."""
        for k, v in self.pairs:
            if k.lower() == key.lower():
                return v
        return default

    def get_all(self, key: str) -> list[str]:
        """Every value for ``key`` in order."""
        return [v for k, v in self.pairs if k.lower() == key.lower()]

    def entry_paths(self) -> list[str]:
        """The ``Entry-Path`` values, without the ``none`` a commit that wrote no entry carries."""
        return [v for v in self.get_all("Entry-Path") if v != "none"]

    def as_dict(self) -> dict[str, str | list[str]]:
        """Trailers as a mapping; repeated keys become lists."""
        out: dict[str, str | list[str]] = {}
        for k, v in self.pairs:
            if k in out:
                prev = out[k]
                out[k] = [*prev, v] if isinstance(prev, list) else [prev, v]
            else:
                out[k] = v
        return out


def clean_value(value: object) -> str:
    """A trailer value must be one line; newlines and surrounding space are folded away."""
    return " ".join(str(value).split())


def format_message(subject: str, pairs: list[tuple[str, str]], body: str = "") -> str:
    """A commit message: subject, optional body, then the trailer block."""
    lines = [clean_value(subject) or "clawql commit", ""]
    if body.strip():
        lines += [body.strip(), ""]
    lines += [f"{k}: {clean_value(v)}" for k, v in pairs]
    return "\n".join(lines) + "\n"


def parse_trailers(message: str) -> Trailers:
    """Read the trailer block (the last paragraph, if every line of it is a trailer)."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return Trailers(())
    pairs: list[tuple[str, str]] = []
    for line in paragraphs[-1].splitlines():
        match = TRAILER_LINE.match(line)
        if not match:
            return Trailers(())
        pairs.append((match.group(1), match.group(2).strip()))
    return Trailers(tuple(pairs))
