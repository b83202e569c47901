"""Path rules of a vault: which files are entries, which folders carry a catalog."""

from __future__ import annotations

from collections.abc import Iterable

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
MAX_COMPONENT_BYTES = 255  # ext4, APFS, NTFS: a name of at most 255 bytes (UTF-8) or characters
MAX_PATH_BYTES = 1024  # leaves room below PATH_MAX (4096) and macOS's 1024 for the vault's own root
WINDOWS_RESERVED = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{n}" for n in range(1, 10)),
        *(f"lpt{n}" for n in range(1, 10)),
    }
)
WINDOWS_FORBIDDEN = frozenset('<>:"\\|?*')


def portable_path_problem(path: str) -> str | None:
    """Why a checkout on some OS could not hold ``path`` (a ``/``-separated path inside the
    vault), or None. Case collisions need the rest of the tree: see the writer's checks."""
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        return f"the path is {len(path.encode('utf-8'))} bytes long (at most {MAX_PATH_BYTES})"
    for part in path.split("/"):
        size = len(part.encode("utf-8"))
        if size > MAX_COMPONENT_BYTES:
            return f"the name {part[:40]!r}... is {size} bytes long (at most {MAX_COMPONENT_BYTES})"
        if any(ord(c) < 32 or c in WINDOWS_FORBIDDEN for c in part):
            return f"the name {part!r} holds a character Windows cannot check out"
        if part.split(".")[0].lower() in WINDOWS_RESERVED:
            return f"the name {part!r} is reserved on Windows"
        if part.endswith((".", " ")):
            return f"the name {part!r} ends with a dot or space (Windows drops them)"
    return None


def case_collision(path: str, others: Iterable[str]) -> str | None:
    """The path among ``others`` that differs from ``path`` only in letter case (two files a
    case-insensitive checkout, macOS's or Windows', would hold as one), or None."""
    folded = path.casefold()
    return next((o for o in others if o != path and o.casefold() == folded), None)
