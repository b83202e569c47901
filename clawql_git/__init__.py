"""clawql-git: a durable, auditable memory for AI coding agents that lives in Git.

The public surface is re-exported here; it is loaded on first use so that `clawql --help`
and other light commands do not pay for pygit2 and friends.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError

if TYPE_CHECKING:
    from clawql_git.audit.history import LogFilter, LogRecord
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import EntryView, Vault, WriteResult

__all__ = ["ClawqlError", "EntryView", "Identity", "LogFilter", "LogRecord", "Vault", "WriteResult"]

_LAZY = {
    "EntryView": "clawql_git.vault.facade",
    "Identity": "clawql_git.vault.facade",
    "Vault": "clawql_git.vault.facade",
    "WriteResult": "clawql_git.vault.facade",
    "LogFilter": "clawql_git.audit.history",
    "LogRecord": "clawql_git.audit.history",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'clawql_git' has no attribute {name!r}")
