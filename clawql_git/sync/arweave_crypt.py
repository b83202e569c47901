"""Encryption of objects before they go to Arweave, which is public and permanent.

AES-256-GCM with keys derived (HKDF-SHA256) from ``CLAWQL_SYNC_KEY``. The nonce is synthetic:
an HMAC of the object key and of the plaintext's sha256, so the same bytes under the same
key always encrypt to the same ciphertext. That is what lets a retried upload resume the
chunks of the transaction already posted (same data_root) instead of leaving a half-written
object behind; distinct plaintexts still get distinct nonces (a 96-bit HMAC collision is
needed to repeat one). The only thing it reveals is that two uploads of one key were equal.

The object key is the associated data: a ciphertext moved under another key (another
sequence number, another vault) fails to open. Sealed layout: ``CLQ1 || nonce || ct+tag``.
``key_id`` (the ``Encryption-Key-Id`` tag) is a one-way fingerprint of the sync key, so a
reader holding the wrong key is told so instead of being told the data was tampered with.
"""

from __future__ import annotations

import hashlib
import hmac

from clawql_git.errors import SyncError, TamperDetected, optional_layer

MAGIC = b"CLQ1"
NONCE_SIZE = 12
TAG_SIZE = 16
MIN_KEY_BYTES = 16
CIPHER = "AES-256-GCM"  # the value of the Encryption tag


def _hkdf(key: bytes, info: bytes) -> bytes:
    with optional_layer("Arweave sync", "arweave"):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(hashes.SHA256(), 32, salt=b"clawql-git/arweave/v1", info=info).derive(key)


class Sealer:
    """Seals and opens objects with keys derived from one sync key (never stored)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise SyncError(
                f"CLAWQL_SYNC_KEY is {len(key)} bytes; it needs at least {MIN_KEY_BYTES} "
                "(e.g. `openssl rand -hex 32`)"
            )
        self._enc = _hkdf(key, b"aes-256-gcm key")
        self._mac = _hkdf(key, b"synthetic nonce key")
        self.key_id = hashlib.sha256(_hkdf(key, b"key id")).hexdigest()[:16]

    def seal(self, object_key: str, plaintext: bytes) -> bytes:
        """Encrypt ``plaintext`` bound to ``object_key``; deterministic (see module doc)."""
        with optional_layer("Arweave sync", "arweave"):
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        digest = hashlib.sha256(plaintext).digest()
        nonce = hmac.digest(self._mac, object_key.encode() + b"\0" + digest, "sha256")
        nonce = nonce[:NONCE_SIZE]
        return MAGIC + nonce + AESGCM(self._enc).encrypt(nonce, plaintext, object_key.encode())

    def open(self, object_key: str, sealed: bytes) -> bytes:
        """Decrypt and authenticate; TamperDetected if a single bit differs."""
        with optional_layer("Arweave sync", "arweave"):
            from cryptography.exceptions import InvalidTag
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        header = len(MAGIC) + NONCE_SIZE
        if len(sealed) < header + TAG_SIZE or not sealed.startswith(MAGIC):
            raise TamperDetected(f"{object_key}: not a clawql-git encrypted object")
        nonce = sealed[len(MAGIC) : header]
        try:
            return AESGCM(self._enc).decrypt(nonce, sealed[header:], object_key.encode())
        except InvalidTag as exc:
            raise TamperDetected(
                f"{object_key}: decryption failed (AES-GCM authentication): the object was "
                "altered, or CLAWQL_SYNC_KEY is not the key it was encrypted with"
            ) from exc
