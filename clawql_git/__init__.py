"""clawql-git: a durable, auditable memory for AI coding agents that lives in Git.

The public surface is re-exported here; it is loaded on first use so that `clawql --help`
and other light commands do not pay for pygit2 and friends.

    from clawql_git import Identity, Vault

    with Vault.init("my-vault") as vault:
        vault.ingest(type="decision", title="Use JWT", body="...", identity=Identity("me"))
        hits = vault.recall("how do we authenticate?", limit=5).hits
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError

if TYPE_CHECKING:
    from clawql_git.audit.chain import AuditEvent, ReadAnswer
    from clawql_git.audit.history import LogFilter, LogRecord, Version
    from clawql_git.codegraph.graph import CodeGraph
    from clawql_git.config import Settings, SettingsOptions
    from clawql_git.model.entry import Entry
    from clawql_git.model.identity import Identity
    from clawql_git.recall.pipeline import RecallHit, RecallOptions, RecallQuery, RecallResult
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.reader import EntryView
    from clawql_git.vault.writer import WriteResult
    from clawql_git.workspace.mounts import Workspace

__all__ = [
    "AuditEvent",
    "ClawqlError",
    "CodeGraph",
    "Entry",
    "EntryView",
    "Identity",
    "LogFilter",
    "LogRecord",
    "ReadAnswer",
    "RecallHit",
    "RecallOptions",
    "RecallQuery",
    "RecallResult",
    "Settings",
    "SettingsOptions",
    "Vault",
    "Version",
    "Workspace",
    "WriteResult",
]

_LAZY = {
    "AuditEvent": "clawql_git.audit.chain",
    "ReadAnswer": "clawql_git.audit.chain",
    "LogFilter": "clawql_git.audit.history",
    "LogRecord": "clawql_git.audit.history",
    "Version": "clawql_git.audit.history",
    "CodeGraph": "clawql_git.codegraph.graph",
    "Settings": "clawql_git.config",
    "SettingsOptions": "clawql_git.config",
    "Entry": "clawql_git.model.entry",
    "Identity": "clawql_git.model.identity",
    "RecallHit": "clawql_git.recall.pipeline",
    "RecallOptions": "clawql_git.recall.pipeline",
    "RecallQuery": "clawql_git.recall.pipeline",
    "RecallResult": "clawql_git.recall.pipeline",
    "EntryView": "clawql_git.vault.reader",
    "Vault": "clawql_git.vault.facade",
    "WriteResult": "clawql_git.vault.writer",
    "Workspace": "clawql_git.workspace.mounts",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'clawql_git' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
