"""One mounted vault of a workspace: its name, source, scope and local folder, and opening it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.errors import NotFound

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder
    from clawql_git.vault.facade import Vault

SCOPES = ("personal", "team", "org")
_SCP_URL = re.compile(r"^[\w.-]+@[\w.-]+:")  # git@host:owner/repo


def is_url(source: str) -> bool:
    """A git URL (scheme://... or user@host:path) rather than a local folder."""
    return "://" in source or bool(_SCP_URL.match(source))


@dataclass(frozen=True)
class Mount:
    """One mounted vault: its name, where it comes from, its scope and its local folder."""

    name: str
    source: str
    scope: str
    path: Path

    @property
    def remote(self) -> bool:
        return is_url(self.source)

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "scope": self.scope,
            "path": str(self.path),
            "remote": self.remote,
        }


def open_mount(mount: Mount, embedder: Embedder | None = None) -> Vault:
    """Open a mounted vault (NotAVault/NotFound when it is gone or not a vault)."""
    if not mount.path.is_dir():
        raise NotFound(f"vault {mount.name!r} is missing: {mount.path} does not exist")
    return open_vault(mount.path, embedder)


def open_vault(path: Path, embedder: Embedder | None = None) -> Vault:
    """The vault at ``path`` (NotAVault when it is not one), with ``embedder`` if given."""
    from clawql_git.vault.facade import Vault

    flags: dict[str, Any] = {"embedder": embedder} if embedder is not None else {}
    return Vault.open(path, **flags)
