"""clawql-git: a durable, auditable memory for AI coding agents that lives in Git."""

from clawql_git.errors import ClawqlError
from clawql_git.history import LogFilter, LogRecord
from clawql_git.vault import EntryView, Identity, Vault, WriteResult

__all__ = ["ClawqlError", "EntryView", "Identity", "LogFilter", "LogRecord", "Vault", "WriteResult"]
