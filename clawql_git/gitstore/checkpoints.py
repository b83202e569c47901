"""The checkpoint file ($GIT_DIR/clawql/checkpoints): one ``<ref> <sha> <link>`` line after every
engine commit (and for each ref a sync manifest recorded). ``link`` chains each line to the one
before it (sha256 of the previous link and this line's ref and sha), so a line deleted or edited
in the middle breaks the chain; lines of the older two-field format may precede the chain. The
newest link is also kept beside the file (checkpoints.head), so lines cut from its end show too."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clawql_git.gitstore.files import atomic_write
from clawql_git.gitstore.lock import exclusive_lock

CHECKPOINTS = "checkpoints"
HEAD = "checkpoints.head"  # the newest link, written after each append
TAIL_BYTES = 4096  # the last whole line always fits: a line is about 125 bytes


@dataclass(frozen=True)
class Checkpoint:
    """One line of the file: ``link`` is empty for a line of the older, unchained format."""

    number: int
    ref: str
    sha: str
    link: str


def chain_link(previous: str, ref: str, sha: str) -> str:
    """The link of a line: it commits to every line before it."""
    return hashlib.sha256(f"{previous}\n{ref} {sha}".encode("ascii")).hexdigest()


def parse_line(number: int, line: str) -> Checkpoint | None:
    """A well-formed line, or None (a torn last line, or one damaged by hand)."""
    parts = line.split()
    if len(parts) not in (2, 3) or len(parts[1]) != 40:
        return None
    link = parts[2] if len(parts) == 3 else ""
    if link and len(link) != 64:
        return None
    return Checkpoint(number, parts[0], parts[1], link)


def read_checkpoints(path: Path) -> list[Checkpoint]:
    """Every well-formed line, in file order."""
    try:
        lines = path.read_text(encoding="ascii", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    found = (parse_line(n, line) for n, line in enumerate(lines, 1))
    return [c for c in found if c is not None]


def chain_breaks(checkpoints: list[Checkpoint]) -> list[Checkpoint]:
    """Lines whose link does not follow from the line before (an edit or a deletion there), and
    unchained lines after the chain began (a line rewritten in the old format)."""
    previous = ""
    began = False
    broken = []
    for cp in checkpoints:
        if not cp.link:
            if began:
                broken.append(cp)
            continue
        began = True
        if cp.link != chain_link(previous, cp.ref, cp.sha):
            broken.append(cp)
        previous = cp.link
    return broken


def append_checkpoints(path: Path, pairs: Iterable[tuple[str, str]]) -> None:
    """Append ``(ref, sha)`` lines, each chained to the last line already there. Serialised by
    its own lock: the audit chain and the writer append from different processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(path.with_name(f"{CHECKPOINTS}.lock")):
        previous, torn = _tail(path)
        lines = ["\n"] if torn else []  # keep a torn line on its own: it is skipped on read
        for ref, sha in pairs:
            previous = chain_link(previous, ref, sha)
            lines.append(f"{ref} {sha} {previous}\n")
        with open(path, "a", encoding="ascii") as handle:
            handle.writelines(lines)
        atomic_write(path.with_name(HEAD), f"{previous}\n".encode("ascii"), False)


def recorded_head(path: Path) -> str:
    """The newest link as recorded beside the file ("" when none was)."""
    try:
        return path.with_name(HEAD).read_text(encoding="ascii").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


def tail_cut(checkpoints: list[Checkpoint], head: str) -> bool:
    """True when lines were cut from the end: the recorded newest link is on no line (a crash
    between the append and the head leaves the head one line behind, which is allowed)."""
    links = {cp.link for cp in checkpoints if cp.link}
    if not head:
        return bool(links)  # chained lines are written with a head: the head was deleted
    return head not in links


def _tail(path: Path) -> tuple[str, bool]:
    """The link of the last well-formed line ("" when none is chained), and whether the file
    ends in a torn line."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - TAIL_BYTES))
            data = handle.read().decode("ascii", errors="replace")
    except FileNotFoundError:
        return "", False
    for line in reversed(data.splitlines()):
        cp = parse_line(0, line)
        if cp is not None:
            return cp.link, not data.endswith("\n")
    return "", bool(data) and not data.endswith("\n")
