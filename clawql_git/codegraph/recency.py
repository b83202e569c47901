"""Change recency, definition by definition: which symbols the commits of a time window
changed, how often, and when last (``clawql code changes``, ``cg_changes``).

Read from git at query time: one ``git log --raw`` for the window (newest ``MAX_COMMITS``
commits, no merges, renames as a deletion and an addition), one ``git cat-file --batch`` for
the blobs it names; each blob is parsed once, and each commit's old and new version of a file
are compared definition by definition (``changes.compare``: added, removed, signature, body).
A definition's lines include its nested ones, so a class counts as changed with its method.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clawql_git.codegraph.changes import compare, definitions
from clawql_git.codegraph.files import EXCLUDED_DIRS, language_of, load_extractors, suffix_map
from clawql_git.errors import InvalidInput

MAX_COMMITS = 400
NULL_SHA = "0" * 40
SEP = "\x1e"
ORDERS = ("recent", "count")


@dataclass(frozen=True)
class FileChange:
    """One file one commit changed: its blob before and after (``NULL_SHA`` when absent)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Commit:
    sha: str
    time: int
    subject: str
    files: tuple[FileChange, ...]


@dataclass
class Tally:
    """What the window did to one definition."""

    file: str
    qualname: str
    kind: str
    changes: int = 0
    last: tuple[int, str, str, str] = (0, "", "", "")  # time, sha, subject, change
    kinds: dict[str, int] = field(default_factory=dict)

    def add(self, commit: Commit, kind: str, change: str) -> None:
        self.changes += 1
        self.kinds[change] = self.kinds.get(change, 0) + 1
        if commit.time > self.last[0] or not self.last[1]:
            self.last = (commit.time, commit.sha, commit.subject, change)
            self.kind = kind

    def to_record(self, exists: bool) -> dict[str, Any]:
        when, sha, subject, change = self.last
        return {
            "file": self.file,
            "qualname": self.qualname,
            "kind": self.kind,
            "changes": self.changes,
            "last_commit": sha,
            "last_date": datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds"),
            "last_time": when,
            "last_subject": subject,
            "last_change": change,
            "by_change": dict(sorted(self.kinds.items())),
            "exists": exists,
        }


def _git(root: Path, args: list[str], data: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=root,
        input=data,
        capture_output=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else b""


def read_commits(root: Path, since: int, prefix: str, limit: int = MAX_COMMITS) -> list[Commit]:
    """The commits of HEAD since ``since`` (unix time), newest first, with the indexable
    files each changed (under ``prefix`` when given)."""
    suffixes = suffix_map(load_extractors())
    args = ["log", f"-{limit}", "--no-merges", "--no-renames", "--raw", "--no-abbrev"]
    args += [f"--since=@{since}", f"--format={SEP}%H%x1f%ct%x1f%s"]
    if prefix:
        args += ["--", prefix]
    out = []
    for block in _git(root, args).decode("utf-8", "replace").split(SEP):
        head, _, raw = block.partition("\n")
        parts = head.split("\x1f")
        if len(parts) != 3:
            continue
        files = []
        for line in raw.splitlines():
            meta, _, path = line.partition("\t")
            fields = meta.split()
            if len(fields) < 5 or not language_of(path, suffixes):
                continue
            if any(d in EXCLUDED_DIRS for d in path.split("/")[:-1]):
                continue
            files.append(FileChange(path, fields[2], fields[3]))
        out.append(Commit(parts[0], int(parts[1]), parts[2], tuple(files)))
    return out


def read_blobs(root: Path, shas: set[str]) -> dict[str, bytes]:
    """Blob contents by sha, in one ``git cat-file --batch``."""
    wanted = sorted(shas - {NULL_SHA})
    if not wanted:
        return {}
    data = _git(root, ["cat-file", "--batch"], "\n".join(wanted).encode() + b"\n")
    blobs: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        header = data[at:end].decode().split()
        at = end + 1
        if len(header) != 3:  # "<sha> missing"
            continue
        size = int(header[2])
        blobs[header[0]] = data[at : at + size]
        at += size + 1
    return blobs


Parsed = dict[tuple[str, str], dict[str, tuple[Any, str]]]
MAX_CACHED = 20_000


def tally(
    root: Path, commits: list[Commit], parsed: Parsed | None = None
) -> dict[tuple[str, str], Tally]:
    """Each definition the commits changed, with how often and when last. ``parsed`` keeps
    the definitions of each (path, blob) between calls (a blob never changes)."""
    suffixes = suffix_map(load_extractors())
    parsed = {} if parsed is None else parsed
    wanted = {(f.path, s) for c in commits for f in c.files for s in (f.old, f.new)}
    blobs = read_blobs(root, {s for key in wanted - set(parsed) for s in key[1:]})

    def defs(path: str, sha: str) -> dict[str, tuple[Any, str]]:
        if (path, sha) in parsed:
            return parsed[(path, sha)]
        if sha == NULL_SHA or sha not in blobs:
            return {}
        found = definitions(path, blobs[sha], language_of(path, suffixes))
        if len(parsed) < MAX_CACHED:
            parsed[(path, sha)] = found
        return found

    out: dict[tuple[str, str], Tally] = {}
    for commit in commits:
        for f in commit.files:
            for change in compare(f.path, defs(f.path, f.old), defs(f.path, f.new)):
                key = (change.file, change.qualname)
                entry = out.setdefault(key, Tally(change.file, change.qualname, change.kind))
                entry.add(commit, change.kind, change.change)
    return out


def order(records: list[dict[str, Any]], by: str) -> list[dict[str, Any]]:
    """Most recent first (then most often), or most often first (then most recent)."""
    if by not in ORDERS:
        raise InvalidInput(f"--by must be one of {', '.join(ORDERS)}, got {by!r}")
    if by == "recent":
        key = lambda r: (-r["last_time"], -r["changes"], r["file"], r["qualname"])  # noqa: E731
    else:
        key = lambda r: (-r["changes"], -r["last_time"], r["file"], r["qualname"])  # noqa: E731
    return sorted(records, key=key)
