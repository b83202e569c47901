"""The storage a sync remote needs: write-once objects with tags, listed by prefix.

S3/R2 (``s3.py``, boto3) and Arweave (``arweave.py``) both implement :class:`Backend`; the
push/pull/restore logic (``bundles.py``, ``manifest.py``) talks only to this protocol, so the
hash chain, the prerequisites and the rollback checks are the same for every provider.

Keys are ``<prefix>/<vault-id>/bundles/<seq>-<sha256>.bundle`` and
``<prefix>/<vault-id>/manifests/<seq:08d>.json``. ``put_once`` must never overwrite: a second
write of an existing key raises :class:`KeyExists` (S3: ``If-None-Match: *``; Arweave: a
transaction for that key already exists under the same tags). That single rule is what makes
two clones pushing at once safe: exactly one manifest wins each sequence number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from clawql_git.errors import KeyExists, NotFound, SyncError, TamperDetected

__all__ = [
    "Backend",
    "KeyExists",
    "NotFound",
    "Progress",
    "RemoteObject",
    "SyncError",
    "TamperDetected",
]

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


@dataclass(frozen=True)
class RemoteObject:
    key: str
    size: int
    tags: Mapping[str, str] = field(default_factory=dict)
    locator: str = ""  # provider id: S3 ETag / Arweave transaction id


class Backend(Protocol):
    """Write-once object storage for bundles and manifests."""

    name: str  # "s3" | "r2" | "arweave"

    def put_once(
        self, key: str, data: bytes, tags: Mapping[str, str], progress: Progress | None = None
    ) -> RemoteObject:
        """Store ``data`` under ``key``; raise KeyExists if the key is already there."""
        ...

    def get(self, key: str, progress: Progress | None = None) -> bytes:
        """The object's bytes; NotFound if absent, SyncError if unreachable."""
        ...

    def list(self, prefix: str) -> Iterator[RemoteObject]:
        """Objects under ``prefix``, in key order."""
        ...

    def describe(self) -> str:
        """Where this remote is, for status output (``s3://bucket/prefix``)."""
        ...
