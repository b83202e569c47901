"""The change index: which files git history touched, weighted by recency (a commit counts
less the older it is: half its weight every HALF_LIFE_DAYS)."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import time
from pathlib import Path

HALF_LIFE_DAYS = 30.0
MAX_COMMITS = 400
SEP = "\x1e"


def read_history(
    root: Path, limit: int = MAX_COMMITS
) -> list[tuple[str, int, str, str, list[str]]]:
    """The newest ``limit`` commits of HEAD: (sha, time, author, subject, files)."""
    done = subprocess.run(
        [
            "git",
            "-c",
            "core.quotepath=off",
            "log",
            f"-{limit}",
            "--no-merges",
            "--name-only",
            f"--format={SEP}%H%x1f%ct%x1f%an%x1f%s",
        ],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return []
    out = []
    for block in done.stdout.decode("utf-8", "replace").split(SEP):
        if not block.strip():
            continue
        head, _, names = block.partition("\n")
        parts = head.split("\x1f")
        if len(parts) != 4:
            continue
        sha, when, author, subject = parts
        files = [n for n in names.splitlines() if n.strip()]
        out.append((sha, int(when), author, subject, files))
    return out


def write_history(db: sqlite3.Connection, root: Path, now: float | None = None) -> int:
    """Replace the change index from git history; returns the number of commits read."""
    history = read_history(root)
    now = time.time() if now is None else now
    db.execute("DELETE FROM commits")
    db.execute("DELETE FROM file_commits")
    db.execute("DELETE FROM changes")
    scores: dict[str, list[float]] = {}
    for sha, when, author, subject, files in history:
        db.execute("INSERT OR REPLACE INTO commits VALUES (?,?,?,?)", (sha, when, author, subject))
        weight = math.pow(0.5, max(0.0, now - when) / 86400.0 / HALF_LIFE_DAYS)
        for path in files:
            db.execute("INSERT INTO file_commits VALUES (?,?)", (path, sha))
            entry = scores.setdefault(path, [0.0, 0, 0])
            entry[0] += weight
            entry[1] += 1
            entry[2] = max(entry[2], when)
    db.executemany(
        "INSERT INTO changes VALUES (?,?,?,?)",
        [(p, round(s[0], 4), int(s[1]), int(s[2])) for p, s in scores.items()],
    )
    return len(history)
