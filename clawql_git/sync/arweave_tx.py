"""Arweave layer-1 transactions (format 2), byte for byte as arweave-js builds them.

Owns the parts a gateway and every other Arweave client check: the deep-hash of the fields
that are signed, RSA-PSS signatures (SHA-256, salt 32, like arweave-js), ids (sha256 of the
signature), wallet addresses (sha256 of the modulus), and ``data_root``: the merkle root of
the data cut into 256 KiB chunks, with the rule that rebalances the last two chunks so that
none is under 32 KiB. ``tests/test_sync_arweave.py`` compares all of it with the ``arweave``
npm package, because a single differing byte makes the network refuse the transaction.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from math import ceil
from pathlib import Path
from typing import Any, TypeAlias

from clawql_git.errors import SyncError, optional_layer

MAX_CHUNK_SIZE = 256 * 1024
MIN_CHUNK_SIZE = 32 * 1024
NOTE_SIZE = 32
SALT_LENGTH = 32  # arweave-js signs with saltLength 32 (the SHA-256 digest size)

DeepHashable: TypeAlias = "bytes | Sequence[DeepHashable]"


def b64url(data: bytes) -> str:
    """Unpadded base64url, the encoding of every binary field in Arweave JSON."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """Inverse of :func:`b64url`; padding optional."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sha256(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _sha384(data: bytes) -> bytes:
    return hashlib.sha384(data).digest()


def deep_hash(item: DeepHashable) -> bytes:
    """Arweave's deep-hash (SHA-384 over tagged blobs and lists), as in arweave-js."""
    if isinstance(item, bytes | bytearray):
        tag = _sha384(b"blob" + str(len(item)).encode())
        return _sha384(tag + _sha384(bytes(item)))
    acc = _sha384(b"list" + str(len(item)).encode())
    for child in item:
        acc = _sha384(acc + deep_hash(child))
    return acc


# --- data_root: the merkle tree of chunks -----------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """One chunk of transaction data: its sha256 and its byte range [start, end)."""

    data_hash: bytes
    start: int
    end: int


@dataclass(frozen=True)
class _Node:
    id: bytes
    max_byte_range: int
    data_hash: bytes = b""  # leaves only
    byte_range: int = 0  # branches only: the left child's end
    children: tuple[_Node, ...] = ()


def note(value: int) -> bytes:
    """A 32-byte big-endian integer, the "note" arweave hashes offsets as."""
    return value.to_bytes(NOTE_SIZE, "big")


def chunk_data(data: bytes) -> list[Chunk]:
    """Cut data like arweave-js: 256 KiB chunks, the last two rebalanced, none under 32 KiB.

    Data whose size is a multiple of 256 KiB (and empty data) ends with an empty chunk, as
    in arweave-js; it is part of the tree but never uploaded.
    """
    chunks: list[Chunk] = []
    cursor = 0
    while len(data) - cursor >= MAX_CHUNK_SIZE:
        rest = len(data) - cursor
        size = MAX_CHUNK_SIZE
        after = rest - MAX_CHUNK_SIZE
        if 0 < after < MIN_CHUNK_SIZE:
            size = ceil(rest / 2)
        chunks.append(Chunk(_sha256(data[cursor : cursor + size]), cursor, cursor + size))
        cursor += size
    chunks.append(Chunk(_sha256(data[cursor:]), cursor, len(data)))
    return chunks


def _leaf(chunk: Chunk) -> _Node:
    node_id = _sha256(_sha256(chunk.data_hash), _sha256(note(chunk.end)))
    return _Node(node_id, chunk.end, data_hash=chunk.data_hash)


def _branch(left: _Node, right: _Node) -> _Node:
    node_id = _sha256(_sha256(left.id), _sha256(right.id), _sha256(note(left.max_byte_range)))
    return _Node(
        node_id, right.max_byte_range, byte_range=left.max_byte_range, children=(left, right)
    )


def _build(nodes: list[_Node]) -> _Node:
    while len(nodes) > 1:
        pairs = [nodes[i : i + 2] for i in range(0, len(nodes), 2)]
        nodes = [_branch(p[0], p[1]) if len(p) == 2 else p[0] for p in pairs]
    return nodes[0]


def _proofs(node: _Node, prefix: bytes = b"") -> list[bytes]:
    if not node.children:
        return [prefix + node.data_hash + note(node.max_byte_range)]
    left, right = node.children
    path = prefix + left.id + right.id + note(node.byte_range)
    return _proofs(left, path) + _proofs(right, path)


def merkle_root(data: bytes) -> bytes:
    """arweave-js ``computeRootHash(data)`` (also defined for empty data)."""
    return _build([_leaf(c) for c in chunk_data(data)]).id


@dataclass(frozen=True)
class ChunkedData:
    """What a transaction needs to carry ``data``: its data_root and one proof per chunk."""

    data_root: bytes
    chunks: tuple[Chunk, ...]
    proofs: tuple[bytes, ...]

    def upload_body(self, index: int, data: bytes) -> dict[str, str]:
        """The JSON body of ``POST /chunk`` for chunk ``index``."""
        chunk = self.chunks[index]
        return {
            "data_root": b64url(self.data_root),
            "data_size": str(len(data)),
            "data_path": b64url(self.proofs[index]),
            "offset": str(chunk.end - 1),
            "chunk": b64url(data[chunk.start : chunk.end]),
        }


def chunk_transaction_data(data: bytes) -> ChunkedData:
    """Like arweave-js ``prepareChunks``: empty data has an empty data_root and no chunks;
    a trailing empty chunk is dropped from the upload."""
    if not data:
        return ChunkedData(b"", (), ())
    chunks = chunk_data(data)
    root = _build([_leaf(c) for c in chunks])
    proofs = _proofs(root)
    if chunks[-1].start == chunks[-1].end:
        chunks, proofs = chunks[:-1], proofs[:-1]
    return ChunkedData(root.id, tuple(chunks), tuple(proofs))


def data_root(data: bytes) -> bytes:
    """The ``data_root`` field a transaction carrying ``data`` signs (empty for no data)."""
    return chunk_transaction_data(data).data_root


# --- wallets and signatures -------------------------------------------------------------


def _int_b64url(value: int) -> str:
    return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


def _b64url_int(text: str) -> int:
    return int.from_bytes(unb64url(text), "big")


@dataclass(frozen=True)
class Wallet:
    """An Arweave RSA wallet (a JWK). Holds the private key; never printed, never stored."""

    jwk: Mapping[str, str] = field(repr=False)

    @classmethod
    def load(cls, path: Path) -> Wallet:
        """Read a JWK wallet file (``CLAWQL_ARWEAVE_WALLET``); a clear error if unusable."""
        try:
            jwk = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SyncError(f"cannot read the Arweave wallet {path}: {exc}") from exc
        if not isinstance(jwk, dict):
            raise SyncError(f"{path} is not an Arweave JWK wallet (not a JSON object)")
        missing = [k for k in ("kty", "n", "e", "d", "p", "q", "dp", "dq", "qi") if k not in jwk]
        if jwk.get("kty") != "RSA" or missing:
            raise SyncError(f"{path} is not an Arweave RSA JWK wallet (missing {missing})")
        return cls({k: str(v) for k, v in jwk.items()})

    @property
    def owner(self) -> str:
        """The public modulus ``n``, base64url: a transaction's ``owner`` field."""
        return self.jwk["n"]

    @property
    def address(self) -> str:
        """The wallet address: base64url(sha256(modulus))."""
        return owner_address(self.owner)

    def sign(self, message: bytes) -> bytes:
        """RSA-PSS with SHA-256 and a 32-byte salt, like arweave-js."""
        with optional_layer("Arweave sync", "arweave"):
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.asymmetric import padding, rsa

        j = self.jwk
        public = rsa.RSAPublicNumbers(_b64url_int(j["e"]), _b64url_int(j["n"]))
        private = rsa.RSAPrivateNumbers(
            p=_b64url_int(j["p"]),
            q=_b64url_int(j["q"]),
            d=_b64url_int(j["d"]),
            dmp1=_b64url_int(j["dp"]),
            dmq1=_b64url_int(j["dq"]),
            iqmp=_b64url_int(j["qi"]),
            public_numbers=public,
        ).private_key()
        pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=SALT_LENGTH)
        return private.sign(message, pss, hashes.SHA256())


def owner_address(owner: str) -> str:
    """The address of the wallet whose modulus is ``owner`` (base64url)."""
    return b64url(_sha256(unb64url(owner)))


def verify_signature(owner: str, message: bytes, signature: bytes) -> bool:
    """Check an RSA-PSS signature by the wallet whose modulus is ``owner`` (any salt length,
    as the Arweave nodes accept)."""
    with optional_layer("Arweave sync", "arweave"):
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding, rsa

    key = rsa.RSAPublicNumbers(65537, _b64url_int(owner)).public_key()
    pss = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.AUTO)
    try:
        key.verify(signature, message, pss, hashes.SHA256())
    except InvalidSignature:
        return False
    return True


# --- transactions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Transaction:
    """A format-2 transaction header. Tags are (name, value) strings, in order."""

    owner: str
    tags: tuple[tuple[str, str], ...]
    data_size: int
    data_root: str  # base64url, "" for empty data
    reward: str
    last_tx: str
    target: str = ""
    quantity: str = "0"
    signature: str = ""
    id: str = ""
    format: int = 2

    def signature_data(self) -> bytes:
        """The deep-hash a v2 signature covers (arweave-js ``getSignatureData``)."""
        tag_list = [[name.encode(), value.encode()] for name, value in self.tags]
        return deep_hash(
            [
                str(self.format).encode(),
                unb64url(self.owner),
                unb64url(self.target),
                self.quantity.encode(),
                self.reward.encode(),
                unb64url(self.last_tx),
                tag_list,
                str(self.data_size).encode(),
                unb64url(self.data_root),
            ]
        )

    def signed(self, wallet: Wallet) -> Transaction:
        """This header signed by ``wallet``; the id is sha256 of the signature."""
        if wallet.owner != self.owner:
            raise SyncError("the transaction owner is not the signing wallet")
        signature = wallet.sign(self.signature_data())
        return replace(self, signature=b64url(signature), id=b64url(_sha256(signature)))

    def verify(self) -> bool:
        """True when the id matches the signature and the signature covers these fields."""
        if not self.signature or b64url(_sha256(unb64url(self.signature))) != self.id:
            return False
        return verify_signature(self.owner, self.signature_data(), unb64url(self.signature))

    def tag(self, name: str) -> str | None:
        """The first value of tag ``name``, or None."""
        return next((value for key, value in self.tags if key == name), None)

    def to_json(self, data: bytes = b"") -> dict[str, Any]:
        """The body of ``POST /tx``; ``data`` inline (small data) or empty (chunked)."""
        return {
            "format": self.format,
            "id": self.id,
            "last_tx": self.last_tx,
            "owner": self.owner,
            "tags": [
                {"name": b64url(n.encode()), "value": b64url(v.encode())} for n, v in self.tags
            ],
            "target": self.target,
            "quantity": self.quantity,
            "data": b64url(data),
            "data_size": str(self.data_size),
            "data_root": self.data_root,
            "reward": self.reward,
            "signature": self.signature,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Transaction:
        """Parse a gateway's ``GET /tx/{id}`` answer (tags base64url-encoded)."""
        raw_tags = body.get("tags") or []
        if isinstance(raw_tags, str):  # some gateways (arlocal) store them as a JSON string
            raw_tags = json.loads(raw_tags)
        tags = tuple(
            (unb64url(t["name"]).decode(), unb64url(t["value"]).decode()) for t in raw_tags
        )
        return cls(
            owner=str(body["owner"]),
            tags=tags,
            data_size=int(body.get("data_size") or 0),
            data_root=str(body.get("data_root") or ""),
            reward=str(body.get("reward") or "0"),
            last_tx=str(body.get("last_tx") or ""),
            target=str(body.get("target") or ""),
            quantity=str(body.get("quantity") or "0"),
            signature=str(body.get("signature", "")),
            id=str(body.get("id", "")),
            format=int(body.get("format") or 2),
        )
