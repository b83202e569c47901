"""Path rules of a vault: which files are entries, which folders carry a catalog."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable

from clawql_git.model.entry import ENTRY_SUFFIXES

INDEX = "index.md"
LOG = "log.md"
NON_CATALOG_TOP = frozenset({"log", "ontology"})


def is_entry_path(path: str) -> bool:
    """True for files that are memory entries (not catalogs, logs, schemas or settings)."""
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(ENTRY_SUFFIXES) or name == INDEX or name in (".md", ".cqk"):
        return False
    if any(p.startswith(".") for p in parts):
        return False
    if len(parts) == 1:
        return name != LOG
    return parts[0] not in NON_CATALOG_TOP


def is_catalog_folder(folder: str) -> bool:
    """True for folders that carry an index.md (the root is handled apart)."""
    parts = folder.split("/")
    return (
        bool(folder)
        and parts[0] not in NON_CATALOG_TOP
        and not any(p.startswith(".") for p in parts)
    )


# What every checkout can hold: teams clone on Linux, macOS and Windows.
MAX_COMPONENT_BYTES = 255  # ext4: 255 bytes; APFS, NTFS: 255 characters (UTF-8 bytes are stricter)
# The whole vault-relative path. macOS refuses an absolute path over 1024 bytes (PATH_MAX) and
# the engine opens files by absolute path, so half of that is left for where the vault lives.
MAX_PATH_BYTES = 512
WINDOWS_RESERVED = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        "conin$",
        "conout$",
        *(f"com{n}" for n in "123456789\u00b9\u00b2\u00b3"),
        *(f"lpt{n}" for n in "123456789\u00b9\u00b2\u00b3"),
    }
)
WINDOWS_FORBIDDEN = frozenset('<>:"\\|?*')
# Code points HFS+ ignores in names, so ".g\u200cit" is ".git" there (git's own fsck list).
_HFS_IGNORED = dict.fromkeys(
    [
        *range(0x200C, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x206A, 0x2070),
        0xFEFF,
    ]
)


def windows_reserved(name: str) -> bool:
    """True for a device name Windows reserves whatever its extension (``CON``, ``aux.md``,
    ``nul .txt``, ``COM\u00b9``)."""
    return name.partition(".")[0].rstrip(" ").casefold() in WINDOWS_RESERVED


def is_git_dir_name(name: str) -> bool:
    """True for a name some checkout reads as ``.git``: any case, trailing dots or spaces
    (Windows), HFS+'s ignored code points, NTFS's short name ``git~1``."""
    bare = name.translate(_HFS_IGNORED).rstrip(". ").casefold()
    return bare in (".git", "git~1")


def portable_path_problem(path: str) -> str | None:
    """Why a checkout on some OS could not hold ``path`` (a ``/``-separated path inside the
    vault), or None. Case collisions need the rest of the tree: see ``case_collision``."""
    size = len(path.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        return f"the path is {size} bytes long (at most {MAX_PATH_BYTES})"
    if path.startswith("/"):
        return "the path is absolute"
    for part in path.split("/"):
        problem = _name_problem(part)
        if problem:
            return problem
    return None


def _name_problem(part: str) -> str | None:
    size = len(part.encode("utf-8"))
    if part in ("", ".", ".."):
        return f"the path has an empty, '.' or '..' component ({part!r})"
    if size > MAX_COMPONENT_BYTES:
        return f"the name {part[:40]!r}... is {size} bytes long (at most {MAX_COMPONENT_BYTES})"
    if any(ord(c) < 32 or c in WINDOWS_FORBIDDEN for c in part):
        return f"the name {part!r} holds a character Windows cannot check out"
    if part.endswith((".", " ")):
        return f"the name {part!r} ends with a dot or space (Windows drops them)"
    if is_git_dir_name(part):
        return f"the name {part!r} is read as .git by some checkouts"
    if windows_reserved(part):
        return f"the name {part!r} is reserved on Windows"
    return None


def fold_name(name: str) -> str:
    """A name as a case-insensitive, normalisation-insensitive file system sees it (APFS,
    HFS+, NTFS): NFC, then case folded."""
    if name.isascii():
        return name.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def case_collision(path: str, others: Iterable[str]) -> str | None:
    """The path among ``others`` that differs from ``path`` only in letter case or Unicode
    normalisation (two files a case-insensitive checkout, macOS's or Windows', would hold as
    one), or None."""
    folded = fold_name(path)
    return next((o for o in others if o != path and fold_name(o) == folded), None)


def folders_of(path: str) -> list[tuple[str, str]]:
    """(folder, name) for each component of ``path``: ``a/b/c.md`` gives ("", "a"),
    ("a", "b"), ("a/b", "c.md")."""
    parts = path.split("/")
    return [("/".join(parts[:i]), parts[i]) for i in range(len(parts))]


def tree_collisions(
    paths: Iterable[str], listing: Callable[[str], Iterable[str]]
) -> list[tuple[str, str]]:
    """(path, what it collides with) for each of ``paths`` (files a commit writes) whose name,
    or a folder on its way, differs only in case from a neighbour: one in ``listing(folder)``
    (the names a folder holds before the commit) or another of ``paths``."""
    paths = list(paths)
    added: dict[str, set[str]] = {}
    for path in paths:
        for folder, name in folders_of(path):
            added.setdefault(folder, set()).add(name)
    folded: dict[str, dict[str, set[str]]] = {}  # folder -> folded name -> the names
    out: list[tuple[str, str]] = []
    for path in paths:
        for folder, name in folders_of(path):
            if folder not in folded:
                folded[folder] = _fold_index(set(listing(folder)) | added[folder])
            others = folded[folder][fold_name(name)] - {name}
            if others:
                out.append((path, f"{folder}/{min(others)}".lstrip("/")))
                break
    return out


def _fold_index(names: Iterable[str]) -> dict[str, set[str]]:
    index: dict[str, set[str]] = {}
    for name in names:
        index.setdefault(fold_name(name), set()).add(name)
    return index
