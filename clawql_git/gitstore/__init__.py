"""The only pygit2 user: repositories read (``Repo``) and written (``GitStore``: commits with any
number of parents, locked ref updates, checkpoints, the work-tree sync), trailers, refs, locks.
pygit2 errors are translated here into the ``clawql_git.errors`` tree."""

from __future__ import annotations

from clawql_git.gitstore.checkpoints import (
    CHECKPOINTS,
    Checkpoint,
    chain_breaks,
    read_checkpoints,
    recorded_head,
    tail_cut,
)
from clawql_git.gitstore.refs import AUDIT_REF, PROPOSALS, branch_ref
from clawql_git.gitstore.repo import (
    ZERO,
    BlobData,
    Commit,
    CommitInfo,
    Oid,
    Repo,
    Signature,
    TagData,
    Tree,
    TreeEntry,
    signature,
    valid_ref_name,
)
from clawql_git.gitstore.store import ENGINE_EMAIL_DOMAIN, Change, GitStore, ssh_sign
from clawql_git.gitstore.trailers import Trailers, format_message, parse_trailers

__all__ = [
    "AUDIT_REF",
    "CHECKPOINTS",
    "ENGINE_EMAIL_DOMAIN",
    "PROPOSALS",
    "ZERO",
    "BlobData",
    "Change",
    "Checkpoint",
    "Commit",
    "CommitInfo",
    "GitStore",
    "Oid",
    "Repo",
    "Signature",
    "TagData",
    "Trailers",
    "Tree",
    "TreeEntry",
    "branch_ref",
    "chain_breaks",
    "format_message",
    "parse_trailers",
    "read_checkpoints",
    "recorded_head",
    "signature",
    "ssh_sign",
    "tail_cut",
    "valid_ref_name",
]
