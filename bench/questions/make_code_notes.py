"""Rebuild code_notes.jsonl from a local clone of pallets/itsdangerous (one note per human commit).

Usage: python bench/questions/make_code_notes.py CLONE bench/questions/code_notes.jsonl
Bot commits (dependabot, pre-commit-ci) and merges are left out; ``text`` is the message's first
three sentences, at most 400 characters; ``date`` is the author date.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

TRAILER = re.compile(r"(signed-off-by|co-authored-by|\(cherry picked)", re.I)


def trim(message: str) -> str:
    """The message as one line, cut to three sentences and 400 characters."""
    lines = [ln.strip() for ln in message.strip().splitlines()]
    text = re.sub(r"\s+", " ", " ".join(ln for ln in lines if ln and not TRAILER.match(ln)))
    text = " ".join(re.split(r"(?<=[.!?])\s+", text)[:3])
    return text if len(text) <= 400 else text[:397].rsplit(" ", 1)[0] + "..."


def notes(repo: Path) -> list[dict[str, Any]]:
    """One note per non-merge, non-bot commit, oldest first."""
    fmt = "--format=%x1e%H%x1f%aI%x1f%an%x1f%B%x1f"
    args = ["git", "-C", str(repo), "log", "--no-merges", "--reverse", "--name-only", fmt]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    rows = []
    for rec in out.split("\x1e")[1:]:
        sha, date, author, body, files = rec.split("\x1f")
        if "[bot]" in author:
            continue
        paths = [f for f in files.strip().splitlines() if f]
        rows.append(
            {"id": sha[:10], "date": date, "author": author, "files": paths, "text": trim(body)}
        )
    return rows


if __name__ == "__main__":
    rows = notes(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(len(rows))
