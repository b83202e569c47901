"""Files beside the object database: atomic writes, blob ids of work-tree files, lock ownership."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pygit2


def file_blob_id(path: Path) -> str | None:
    """The blob id git would give the file at ``path``, or None when there is no file."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    return str(pygit2.hash(data))


def worktree_problem(root: Path, path: str) -> str | None:
    """Why writing (or removing) the vault-relative ``path`` under ``root`` could reach outside
    the vault or into git's own folder, or None: a ``..``, ``.`` or empty component, a ``.git``
    in any case, or a component on the way that is a symbolic link (followed, a write would land
    wherever it points) or not a folder. Components are ``lstat``-ed, never followed."""
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", "..") or part.rstrip(". ").casefold() == ".git":
            return f"{path!r} has the component {part!r}"
    for i in range(len(parts)):
        where = root.joinpath(*parts[: i + 1])
        try:
            mode = where.lstat().st_mode
        except FileNotFoundError:
            return None  # nothing below a missing folder can be a link
        except NotADirectoryError:
            return f"{'/'.join(parts[:i])} is not a folder"
        if stat.S_ISLNK(mode):
            return f"{'/'.join(parts[: i + 1])} is a symbolic link"
        if i < len(parts) - 1 and not stat.S_ISDIR(mode):
            return f"{'/'.join(parts[: i + 1])} is not a folder"
    return None


def owned_lock(lock: Path, marker: Path) -> bool:
    """True when ``lock`` was left by an engine process that died holding it: the engine wrote
    ``marker`` just before taking the lock, so their times match (git's own locks do not)."""
    try:
        return abs(lock.stat().st_mtime - marker.stat().st_mtime) < 2.0
    except FileNotFoundError:
        return False


def atomic_write(path: Path, data: bytes, fsync: bool, tmp_dir: Path | None = None) -> None:
    """Write via a temporary file and rename; temporaries live in ``tmp_dir`` when given, so a
    crash never leaves them in the work tree."""
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = tmp_dir or path.parent
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
        if fsync:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp, path)


def prune_empty_dirs(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents up to ``stop`` while they are empty."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
