"""Push manifests and their hash chain: one canonical JSON document per push, each naming the
sha256 of the one before, so a dropped, reordered or replayed manifest breaks the chain. The
chain is integrity only; who wrote a manifest is its ``signature`` (``signing.py``)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clawql_git.errors import TamperDetected

FORMAT = "clawql-sync-manifest/1"
MAIN_REF = "refs/heads/main"
AUDIT_REF = "refs/clawql/audit"
VAULT_REFS = (MAIN_REF, AUDIT_REF)  # the only refs a sync bundle may carry
SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256 object ids


def sha256_hex(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def vault_root_key(prefix: str, vault_id: str) -> str:
    """Where every object of one vault lives on a remote."""
    return f"{prefix.strip('/')}/{vault_id}".lstrip("/")


def manifest_key(root: str, seq: int) -> str:
    return f"{root}/manifests/{seq:08d}.json"


def bundle_key(root: str, seq: int, sha: str) -> str:
    return f"{root}/bundles/{seq:08d}-{sha}.bundle"


@dataclass(frozen=True)
class Manifest:
    """What one push uploaded: its bundle, the refs it carries, and the link to the last push."""

    vault_id: str
    seq: int
    bundle_key: str
    bundle_sha256: str
    bundle_size: int
    refs: Mapping[str, str]
    prerequisites: Sequence[str] = ()
    prev_manifest: str = ""  # sha256 of the previous manifest's bytes ("" for seq 1)
    time: str = ""
    agent: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    signature: str = ""  # SSH signature of :meth:`payload` (``signing.py``); "" unsigned

    def to_record(self) -> dict[str, Any]:
        record = self.unsigned_record()
        return {**record, "signature": self.signature} if self.signature else record

    def unsigned_record(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "vault_id": self.vault_id,
            "seq": self.seq,
            "bundle": {
                "key": self.bundle_key,
                "sha256": self.bundle_sha256,
                "size": self.bundle_size,
            },
            "refs": dict(sorted(self.refs.items())),
            "prerequisites": sorted(self.prerequisites),
            "prev_manifest": self.prev_manifest,
            "time": self.time,
            "agent": self.agent,
            **({"extra": dict(self.extra)} if self.extra else {}),
        }

    def encode(self) -> bytes:
        """Canonical JSON: sorted keys, no whitespace, ASCII; its sha256 is the chain link."""
        return canonical(self.to_record())

    def payload(self) -> bytes:
        """What the signature covers: the canonical record without the signature."""
        return canonical(self.unsigned_record())

    @classmethod
    def decode(cls, data: bytes, key: str) -> Manifest:
        """Parse a manifest; anything malformed is tampering, not a crash."""
        try:
            raw = json.loads(data.decode("utf-8"))
            bundle = raw["bundle"]
            if raw.get("format") != FORMAT:
                raise ValueError(f"unknown format {raw.get('format')!r}")
            return cls(
                vault_id=str(raw["vault_id"]),
                seq=int(raw["seq"]),
                bundle_key=str(bundle["key"]),
                bundle_sha256=str(bundle["sha256"]),
                bundle_size=int(bundle["size"]),
                refs={str(k): str(v) for k, v in raw["refs"].items()},
                prerequisites=tuple(str(p) for p in raw.get("prerequisites", [])),
                prev_manifest=str(raw.get("prev_manifest", "")),
                time=str(raw.get("time", "")),
                agent=str(raw.get("agent", "")),
                extra=dict(raw.get("extra", {})),
                signature=str(raw.get("signature", "")),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TamperDetected(f"manifest {key} is not a valid clawql manifest: {exc}") from exc


def canonical(record: Mapping[str, Any]) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@dataclass(frozen=True)
class ChainLink:
    """A manifest as read from the remote, with the sha256 of its stored bytes."""

    manifest: Manifest
    sha256: str
    key: str


def check_chain(links: Sequence[ChainLink], vault_id: str, start_prev: str = "") -> None:
    """Seqs contiguous, each manifest naming the sha256 of the one before, one vault id, keys
    agreeing with the contents. ``start_prev`` is the sha the first link must name."""
    problems: list[str] = []
    prev = start_prev
    expected = 1
    for link in links:
        m = link.manifest
        if m.seq != expected:
            problems.append(f"{link.key}: seq {m.seq} where {expected} was expected")
        if not link.key.endswith(f"/manifests/{m.seq:08d}.json"):
            problems.append(f"{link.key}: stored under the wrong key for seq {m.seq}")
        if m.vault_id != vault_id:
            problems.append(f"{link.key}: vault id {m.vault_id} is not {vault_id}")
        if m.prev_manifest != prev:
            problems.append(
                f"{link.key}: names previous manifest {m.prev_manifest or 'none'} but the "
                f"previous manifest's sha256 is {prev or 'none'} (chain broken or replayed)"
            )
        problems += _ref_problems(link)
        if not m.bundle_key.endswith(f"{m.seq:08d}-{m.bundle_sha256}.bundle"):
            problems.append(f"{link.key}: bundle key {m.bundle_key} does not match its sha256")
        prev = link.sha256
        expected = m.seq + 1
    if problems:
        raise TamperDetected("the manifest chain does not hold", problems)


def _ref_problems(link: ChainLink) -> list[str]:
    """A manifest names main, may name the audit chain, and nothing else; tips are shas."""
    m = link.manifest
    problems = [
        f"{link.key}: names ref {ref}, which is not one of the vault's ({', '.join(VAULT_REFS)})"
        for ref in m.refs
        if ref not in VAULT_REFS
    ]
    if MAIN_REF not in m.refs:
        problems.append(f"{link.key}: names no {MAIN_REF}")
    problems += [
        f"{link.key}: {ref} tip {sha!r} is not a commit id"
        for ref, sha in m.refs.items()
        if not SHA.fullmatch(sha)
    ]
    return problems
