"""Path rules of a vault: which files are entries, which folders carry a catalog."""

from __future__ import annotations

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
