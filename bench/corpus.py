"""Shared by the bench scripts: the ADR corpus as entry bodies, and the months a seeded vault
spreads its entries over."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from clawql_git.errors import ClawqlError
from clawql_git.model.entry import check_secrets, split_frontmatter

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "adr"
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_WORD = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class Doc:
    """One corpus document: a title and its Markdown body."""

    title: str
    body: str


def load_corpus(root: Path) -> list[Doc]:
    """ADR documents (frontmatter stripped) long enough to give a 300-word body and free of
    anything the secret scanner refuses."""
    docs = []
    for path in sorted(root.rglob("*.md")):
        doc = _read_doc(path)
        if doc is not None and len(doc.body.split()) >= 300 and _accepted(doc.body):
            docs.append(doc)
    if not docs:
        raise SystemExit(f"no usable ADR documents under {root}")
    return docs


def _read_doc(path: Path) -> Doc | None:
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        _, body = split_frontmatter(text)
    except (UnicodeDecodeError, ClawqlError):
        return None
    match = _HEADING.search(body)
    title = match.group(1) if match else path.stem.replace("-", " ")
    return Doc(" ".join(title.split())[:80], body)


def _accepted(body: str) -> bool:
    try:
        check_secrets(body)
    except ClawqlError:
        return False
    return True


def truncate_words(text: str, words: int) -> str:
    """The first ``words`` words of ``text``, keeping its line structure."""
    matches = zip(range(words), _WORD.finditer(text), strict=False)
    return "".join(m.group(0) for _, m in matches).rstrip() + "\n"


def describe(body: str) -> str:
    """A one-line description: the first prose line of a body, shortened."""
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "*", "-", "|", "`", ">")):
            return line[:120]
    return ""


def history_months(now: datetime, count: int) -> list[str]:
    """The ``count`` months before the current one (oldest first); the current month is
    left empty so every size starts the sampled ingests from the same shard."""
    months = []
    year, month = now.year, now.month
    for _ in range(count):
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        months.append(f"{year:04d}-{month:02d}")
    return list(reversed(months))
