"""The refs the engine writes: the vault's branch (HEAD), the audit chain, proposal branches."""

from __future__ import annotations

AUDIT_REF = "refs/clawql/audit"
PROPOSALS = "refs/heads/proposals/"


def branch_ref(branch: str) -> str:
    """``refs/heads/<branch>`` for a branch name or a full ref name."""
    return f"refs/heads/{branch.removeprefix('refs/heads/')}"
