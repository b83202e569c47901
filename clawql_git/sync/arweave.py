"""The Arweave sync backend: each object a layer-1 transaction, found again by its tags.

Objects are posted as format-2 transactions signed with the user's JWK wallet
(``CLAWQL_ARWEAVE_WALLET``), tagged ``App-Name: clawql-git``, ``Vault-Id``, ``Key`` (the
object key) and whatever the caller adds (``Seq``, ``Bundle-SHA256``, ``Prev-Manifest``,
``Kind``), plus ``Encryption``. Data up to 256 KiB goes inline; larger data is uploaded as
chunks with merkle proofs after the header. Arweave is public and permanent, so objects are
encrypted (``arweave_crypt``) unless the remote is ``public``.

Write-once on a chain nobody can lock. ``put_once`` refuses a key that GraphQL already
shows, but two writers that post the same key before either is visible both land. So every
read resolves a key the same way: among the transactions carrying it (only the wallet's own,
when a wallet is configured), the one in the earliest block wins, then the lowest id; pending
ones come last. Every reader, on every machine, picks the same winner. For that answer to be
final when the writer reads it back, ``put_once`` of a key that is not content-addressed (a
manifest; not a ``.bundle``, whose key names its sha256, so any winner holds the same bytes)
returns only once its transaction is in a block: a later transaction can only land in a later
block, or in the same block with the id order deciding, so a writer that reads back a
different winner knows it lost (the push service then retries on top of the winner).

Nothing is trusted from the gateway: each header's signature and id are checked, the data
must match the signed ``data_root`` and ``data_size``, the AES-GCM tag must verify, and a
bundle must hash to its ``Bundle-SHA256`` tag. Any mismatch is :class:`TamperDetected`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from clawql_git.errors import KeyExists, NotFound, SyncError, TamperDetected
from clawql_git.sync.arweave_crypt import CIPHER, MAGIC, NONCE_SIZE, TAG_SIZE, Sealer
from clawql_git.sync.arweave_gateway import Found, Gateway
from clawql_git.sync.arweave_tx import (
    MAX_CHUNK_SIZE,
    ChunkedData,
    Transaction,
    Wallet,
    b64url,
    chunk_transaction_data,
    unb64url,
)
from clawql_git.sync.backend import Progress, RemoteObject

APP_NAME = "clawql-git"
RESERVED = ("App-Name", "Key", "Vault-Id", "Encryption", "Encryption-Key-Id", "Content-Type")
SEAL_OVERHEAD = len(MAGIC) + NONCE_SIZE + TAG_SIZE
KEEP_OWN_BYTES = 1024 * 1024  # own writes up to this size are kept for read-your-writes


@dataclass(frozen=True)
class _Own:
    """A transaction this process posted: gateways answer "pending" for minutes, but the
    header (our own signature) and small data are known here, so reading back works."""

    found: Found
    header: Transaction
    stored: bytes | None


def vault_id_of(path: str) -> str | None:
    """The vault id in ``<prefix>/<vault-id>/{bundles,manifests}/...``, if the path names it."""
    parts = [p for p in path.split("/") if p]
    for i, part in enumerate(parts):
        if part in ("bundles", "manifests") and i > 0:
            return parts[i - 1]
    return None


class ArweaveBackend:
    """Write-once objects as Arweave transactions (see the module docstring)."""

    name = "arweave"

    def __init__(
        self,
        gateway: str,
        wallet: Path | None,
        public: bool = False,
        key: bytes | None = None,
        *,
        confirm_timeout: float = 1800.0,
        poll_seconds: float = 5.0,
    ) -> None:
        """``confirm_timeout``: how long ``put_once`` of a manifest waits for its block
        (0: do not wait, and accept that a racing writer may still win the key)."""
        if not public and key is None:
            raise SyncError(
                "the Arweave remote encrypts bundles before upload (Arweave is public and "
                "permanent): set CLAWQL_SYNC_KEY (e.g. `openssl rand -hex 32`, kept safe: "
                "without it nothing can be restored), or make the remote --public"
            )
        self.gateway = Gateway(gateway)
        self.public = public
        self._sealer = Sealer(key) if key is not None else None
        self._wallet = Wallet.load(wallet) if wallet is not None else None
        self._own: dict[str, _Own] = {}  # key -> this process's own, maybe unmined, write
        self.confirm_timeout = confirm_timeout
        self.poll_seconds = poll_seconds

    def describe(self) -> str:
        """Where this remote is, for status output."""
        mode = "public" if self.public else "encrypted"
        who = f", wallet {self._wallet.address}" if self._wallet else ""
        return f"arweave:{self.gateway.url} ({mode}{who})"

    # --- reading ------------------------------------------------------------------------

    def _owners(self) -> list[str]:
        return [self._wallet.address] if self._wallet else []

    def _candidates(self, key: str) -> Sequence[Found]:
        """Every transaction for ``key``, winner first (earliest block, then lowest id)."""
        tags = {"App-Name": APP_NAME, "Key": key}
        vault_id = vault_id_of(key)
        if vault_id:
            tags["Vault-Id"] = vault_id
        found = {f.id: f for f in self.gateway.find(tags, self._owners())}
        own = self._own.get(key)
        if own is not None:
            found.setdefault(own.found.id, own.found)
        return sorted(found.values(), key=lambda f: f.order)

    def list(self, prefix: str) -> Iterator[RemoteObject]:
        """Objects whose key starts with ``prefix``, in key order (one winner per key)."""
        tags = {"App-Name": APP_NAME}
        vault_id = vault_id_of(prefix)
        if vault_id:
            tags["Vault-Id"] = vault_id
        found = list(self.gateway.find(tags, self._owners()))
        found += [o.found for k, o in self._own.items() if k.startswith(prefix)]
        winners: dict[str, Found] = {}
        for f in sorted(found, key=lambda f: f.order):
            key = f.tags.get("Key", "")
            if key.startswith(prefix):
                winners.setdefault(key, f)
        for key in sorted(winners):
            f = winners[key]
            yield RemoteObject(key, self._plain_size(f), _caller_tags(f.tags), f.id)

    def _plain_size(self, found: Found) -> int:
        sealed = found.tags.get("Encryption", "none") != "none"
        return max(found.size - SEAL_OVERHEAD, 0) if sealed else found.size

    def get(self, key: str, progress: Progress | None = None) -> bytes:
        """The winning transaction's data, checked end to end (see the module docstring)."""
        candidates = self._candidates(key)
        if not candidates:
            raise NotFound(f"{key} not found on {self.describe()}")
        return self.read_tx(candidates[0].id, key, progress)

    def read_tx(self, tx_id: str, key: str, progress: Progress | None = None) -> bytes:
        """Fetch, verify and open transaction ``tx_id`` holding object ``key``."""
        own = self._own.get(key)
        if own is not None and own.header.id == tx_id and own.stored is not None:
            return self._open(own.header, key, own.stored)
        header = self._header(tx_id, key)
        stored = self._download(header, progress)
        return self._open(header, key, stored)

    def _header(self, tx_id: str, key: str) -> Transaction:
        """The transaction's header, its signature checked (our own writes: as we signed)."""
        own = self._own.get(key)
        if own is not None and own.header.id == tx_id:
            return own.header
        status, reply = self.gateway.request("GET", f"/tx/{tx_id}")
        if status == 202:
            raise SyncError(
                f"{key}: transaction {tx_id} is still pending on {self.gateway.url}; "
                "try again once it is mined"
            )
        if status == 404:
            raise NotFound(f"{key}: transaction {tx_id} not found on {self.gateway.url}")
        if status != 200:
            raise SyncError(f"{key}: {self.gateway.url} answered HTTP {status} for {tx_id}")
        try:
            header = Transaction.from_json(json.loads(reply))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise TamperDetected(f"{key}: transaction {tx_id} has a malformed header") from exc
        if header.id != tx_id or not header.verify():
            raise TamperDetected(
                f"{key}: transaction {tx_id} fails its signature check: its header or tags "
                "were altered after signing"
            )
        if header.tag("Key") != key or header.tag("App-Name") != APP_NAME:
            raise TamperDetected(f"{key}: transaction {tx_id} is signed for another object")
        return header

    def _download(self, header: Transaction, progress: Progress | None) -> bytes:
        """The data from whichever endpoint serves it whole; each answer checked against the
        signed data_root, so the route it came by does not matter."""
        if header.data_size == 0:
            if header.data_root:
                raise TamperDetected(f"transaction {header.id}: empty data, non-empty root")
            return b""
        best = b""
        for fetch in (self._inline, self._by_chunks, self._raw):
            data = fetch(header, progress)
            if len(data) == header.data_size and b64url(_root(data)) == header.data_root:
                if progress:
                    progress(len(data), len(data))
                return data
            best = max(best, data, key=len)
        return self._refuse(header, best)

    def _refuse(self, header: Transaction, best: bytes) -> bytes:
        key = header.tag("Key")
        if len(best) < header.data_size:
            raise TamperDetected(
                f"{key}: transaction {header.id} is incomplete on {self.gateway.url}: "
                f"{len(best)} of {header.data_size} bytes (an interrupted chunk upload; "
                "pushing again resumes it)"
            )
        raise TamperDetected(
            f"{key}: the data of transaction {header.id} does not match its signed data_root"
        )

    def _inline(self, header: Transaction, progress: Progress | None) -> bytes:
        status, body = self.gateway.request("GET", f"/tx/{header.id}/data")
        if status != 200 or not body.strip():
            return b""
        try:
            return unb64url(body.decode().strip())
        except ValueError:
            return b""

    def _by_chunks(self, header: Transaction, progress: Progress | None) -> bytes:
        """The standard chunk walk: ``/tx/{id}/offset``, then ``/chunk/{offset}`` in order."""
        status, body = self.gateway.request("GET", f"/tx/{header.id}/offset")
        if status != 200:
            return b""
        try:
            where = json.loads(body)
            start = int(where["offset"]) - int(where["size"]) + 1
        except (ValueError, KeyError, TypeError):
            return b""
        parts: list[bytes] = []
        got = 0
        while got < header.data_size:
            status, body = self.gateway.request("GET", f"/chunk/{start + got}")
            piece = _chunk_bytes(body) if status == 200 else b""
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
            if progress:
                progress(min(got, header.data_size), header.data_size)
        return b"".join(parts)

    def _raw(self, header: Transaction, progress: Progress | None) -> bytes:
        status, body = self.gateway.request("GET", f"/{header.id}")
        return body if status == 200 else b""

    def _open(self, header: Transaction, key: str, stored: bytes) -> bytes:
        cipher = header.tag("Encryption") or "none"
        if cipher == "none":
            if not self.public:
                raise TamperDetected(
                    f"{key}: stored unencrypted, but this remote is encrypted: refusing it "
                    "(a public remote would accept it)"
                )
            data = stored
        elif cipher != CIPHER:
            raise SyncError(f"{key}: unknown encryption {cipher!r}")
        elif self._sealer is None:
            raise SyncError(f"{key} is encrypted: set CLAWQL_SYNC_KEY to read it")
        elif header.tag("Encryption-Key-Id") != self._sealer.key_id:
            raise SyncError(f"{key} was encrypted with another CLAWQL_SYNC_KEY")
        else:
            data = self._sealer.open(key, stored)
        _check_bundle_hash(key, header, data)
        return data

    # --- writing ------------------------------------------------------------------------

    def put_once(
        self, key: str, data: bytes, tags: Mapping[str, str], progress: Progress | None = None
    ) -> RemoteObject:
        """Post ``data`` as a transaction for ``key``; KeyExists if the key has one already.

        If the only transaction for the key is this wallet's interrupted upload of the very
        same bytes (same data_root), the missing chunks are uploaded instead: a retried push
        resumes.
        """
        wallet = self._require_wallet()
        stored, all_tags = self._prepare(key, data, tags)
        chunked = chunk_transaction_data(stored)
        existing = self._candidates(key)
        if existing:
            return self._resume_or_refuse(key, data, stored, chunked, existing, progress)
        tx = self._sign(wallet, all_tags, stored, chunked)
        inline = len(stored) <= MAX_CHUNK_SIZE
        self.gateway.ok("POST", "/tx", tx.to_json(stored if inline else b""))
        found = Found(tx.id, wallet.address, len(stored), dict(all_tags), None)
        self._own[key] = _Own(found, tx, stored if len(stored) <= KEEP_OWN_BYTES else None)
        if not inline:
            self._upload_chunks(chunked, stored, progress)
        elif progress:
            progress(len(data), len(data))
        if not _content_addressed(key, tags):
            self._await_block(key, tx.id)
        return RemoteObject(key, len(data), dict(tags), tx.id)

    def _await_block(self, key: str, tx_id: str) -> None:
        """Wait until ``tx_id`` is in a block (see the module docstring for why)."""
        if self.confirm_timeout <= 0:
            return
        deadline = time.monotonic() + self.confirm_timeout
        while True:
            status, body = self.gateway.request("GET", f"/tx/{tx_id}/status")
            if status == 200 and b"block_height" in body:
                return
            if time.monotonic() >= deadline:
                raise SyncError(
                    f"{key}: transaction {tx_id} was not mined within {self.confirm_timeout:g}s "
                    f"on {self.gateway.url}; it may still be; push again later"
                )
            time.sleep(min(self.poll_seconds, max(deadline - time.monotonic(), 0)))

    def _require_wallet(self) -> Wallet:
        if self._wallet is None:
            raise SyncError(
                "pushing to Arweave needs a wallet: set CLAWQL_ARWEAVE_WALLET to a JWK file"
            )
        return self._wallet

    def _prepare(
        self, key: str, data: bytes, tags: Mapping[str, str]
    ) -> tuple[bytes, Sequence[tuple[str, str]]]:
        vault_id = vault_id_of(key) or tags.get("Vault-Id", "")
        if tags.get("Vault-Id", vault_id) != vault_id:
            raise SyncError(f"{key}: Vault-Id tag {tags['Vault-Id']!r} contradicts the key")
        ours = [
            ("App-Name", APP_NAME),
            ("Key", key),
            ("Vault-Id", vault_id),
            ("Content-Type", "application/octet-stream"),
        ]
        if self.public:
            stored, ours = data, [*ours, ("Encryption", "none")]
        else:
            assert self._sealer is not None  # __init__ requires a key unless public
            stored = self._sealer.seal(key, data)
            ours += [("Encryption", CIPHER), ("Encryption-Key-Id", self._sealer.key_id)]
        extra = [(k, str(v)) for k, v in tags.items() if k not in RESERVED]
        all_tags = ours + extra
        empty = [k for k, v in all_tags if not v]
        if empty:
            raise SyncError(f"{key}: Arweave tags cannot be empty: {empty}")
        return stored, all_tags

    def _sign(
        self, wallet: Wallet, tags: Sequence[tuple[str, str]], stored: bytes, chunked: ChunkedData
    ) -> Transaction:
        reward = self.gateway.text(f"/price/{len(stored)}")
        anchor = self.gateway.text("/tx_anchor")
        header = Transaction(
            owner=wallet.owner,
            tags=tuple(tags),
            data_size=len(stored),
            data_root=b64url(chunked.data_root),
            reward=reward,
            last_tx=anchor,
        )
        return header.signed(wallet)

    def _upload_chunks(
        self,
        chunked: ChunkedData,
        stored: bytes,
        progress: Progress | None,
    ) -> None:
        total = len(stored)
        for index, chunk in enumerate(chunked.chunks):
            self.gateway.ok("POST", "/chunk", chunked.upload_body(index, stored))
            if progress:
                progress(chunk.end, total)

    def _resume_or_refuse(
        self,
        key: str,
        data: bytes,
        stored: bytes,
        chunked: ChunkedData,
        existing: Sequence[Found],
        progress: Progress | None,
    ) -> RemoteObject:
        winner = existing[0]
        header = self._header(winner.id, key)
        mine = self._wallet is not None and header.owner == self._wallet.owner
        if not mine or header.data_root != b64url(chunked.data_root) or not chunked.chunks:
            raise KeyExists(key)
        try:
            self._download(header, None)
        except TamperDetected:
            self._upload_chunks(chunked, stored, progress)  # same bytes: finish the upload
            return RemoteObject(key, len(data), _caller_tags(dict(header.tags)), header.id)
        raise KeyExists(key)


def _content_addressed(key: str, tags: Mapping[str, str]) -> bool:
    """A bundle's key names its sha256: two transactions for it hold the same bytes."""
    return tags.get("Kind", "bundle" if key.endswith(".bundle") else "") == "bundle"


def _root(data: bytes) -> bytes:
    return chunk_transaction_data(data).data_root


def _chunk_bytes(body: bytes) -> bytes:
    try:
        return unb64url(str(json.loads(body)["chunk"]))
    except (ValueError, KeyError, TypeError):
        return b""


def _caller_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """The tags the caller passed (plus Vault-Id), without our bookkeeping ones."""
    hidden = {"App-Name", "Key", "Encryption", "Encryption-Key-Id", "Content-Type"}
    return {k: v for k, v in tags.items() if k not in hidden}


def _check_bundle_hash(key: str, header: Transaction, data: bytes) -> None:
    """A bundle must hash to its (signed) Bundle-SHA256 tag; manifests name their bundle's."""
    expected = header.tag("Bundle-SHA256")
    is_bundle = (header.tag("Kind") or ("bundle" if key.endswith(".bundle") else "")) == "bundle"
    if expected and is_bundle and hashlib.sha256(data).hexdigest() != expected:
        raise TamperDetected(
            f"{key}: sha256 {hashlib.sha256(data).hexdigest()} does not match its "
            f"Bundle-SHA256 tag {expected}"
        )
