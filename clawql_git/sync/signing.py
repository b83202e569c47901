"""Manifest signatures: who wrote a manifest, not only that it is intact.

The hash chain (``manifest.py``) proves that nothing between two manifests was dropped or
changed; it says nothing about who appended the newest one, so anyone with write access to the
bucket could append a correctly chained manifest. A push therefore signs each manifest's
canonical unsigned bytes with the vault's SSH key (``ssh-keygen -Y sign``, namespace
:data:`NAMESPACE`, so a manifest signature is never a valid git commit signature), and pull and
restore verify it with ``ssh-keygen -Y verify`` against an allowed-signers file: the vault's
committed ``[policy] allowed_signers`` or one given on the command line."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clawql_git.config import VAULT_TOML
from clawql_git.errors import InvalidInput, StorageError, TamperDetected
from clawql_git.gitstore import Repo

NAMESPACE = "clawql-sync-manifest"


@dataclass(frozen=True)
class Signers:
    """An allowed-signers file's bytes and where they came from (for messages)."""

    data: bytes
    source: str

    def __bool__(self) -> bool:
        return bool(self.data.strip())


NO_SIGNERS = Signers(b"", "")


def sign(payload: bytes, key: Path) -> str:
    """The armored SSH signature of ``payload`` made with the private key ``key``."""
    if not key.is_file():
        raise InvalidInput(f"signing key {key} does not exist")
    result = _ssh_keygen(["-Y", "sign", "-n", NAMESPACE, "-f", str(key)], payload)
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()
        raise StorageError(f"signing the manifest with {key} failed: {detail}")
    return result.stdout.decode()


def verify(payload: bytes, signature: str, signers: Signers) -> str:
    """The principal of ``signers`` whose key made ``signature`` over ``payload``; raise
    :class:`TamperDetected` when no allowed signer did."""
    if not signature:
        raise TamperDetected(f"unsigned (signatures are required by {signers.source})")
    with tempfile.TemporaryDirectory(prefix="clawql-sig-") as tmp:
        sig = Path(tmp) / "manifest.sig"
        sig.write_text(signature)
        allowed = Path(tmp) / "allowed_signers"
        allowed.write_bytes(signers.data)
        found = _ssh_keygen(["-Y", "find-principals", "-s", str(sig), "-f", str(allowed)], b"")
        principals = found.stdout.decode(errors="replace").split() if found.returncode == 0 else []
        for principal in principals:
            args = ["-Y", "verify", "-f", str(allowed), "-I", principal, "-n", NAMESPACE]
            if _ssh_keygen([*args, "-s", str(sig)], payload).returncode == 0:
                return principal
    raise TamperDetected(f"not signed by an allowed signer of {signers.source}")


def check_all(items: Sequence[tuple[str, bytes, str]], signers: Signers) -> list[str]:
    """Verify ``(what, payload, signature)`` triples; the principal of each, or raise with
    every failure listed (an empty ``signers``: nothing is checked, nothing returned)."""
    if not signers:
        return []
    problems: list[str] = []
    principals: list[str] = []
    for what, payload, signature in items:
        try:
            principals.append(verify(payload, signature, signers))
        except TamperDetected as exc:
            problems.append(f"{what}: {exc.message}")
    if problems:
        raise TamperDetected("manifests fail their signature check", problems)
    return principals


def committed_signers(repo: Repo, sha: str | None) -> Signers:
    """The allowed signers the vault's committed policy names at commit ``sha``."""
    import tomllib

    commit = repo.commit_of(sha) if sha else None
    if commit is None:
        return NO_SIGNERS
    try:
        data = tomllib.loads((repo.blob_at(commit.tree, VAULT_TOML) or b"").decode())
    except (ValueError, UnicodeDecodeError):
        return NO_SIGNERS
    path = data.get("policy", {}).get("allowed_signers")
    if not path:
        return NO_SIGNERS
    blob = repo.blob_at(commit.tree, str(path)) or b""
    return Signers(blob, f"the vault's {path} (commit {sha[:12] if sha else ''})")


def file_signers(path: Path) -> Signers:
    """An allowed-signers file given by the user."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read allowed signers {path}: {exc}") from exc
    if not data.strip():
        raise InvalidInput(f"allowed signers {path} is empty")
    return Signers(data, str(path))


def _ssh_keygen(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["ssh-keygen", *args], input=data, capture_output=True, check=False)
    except OSError as exc:
        raise StorageError(f"cannot run ssh-keygen for manifest signatures: {exc}") from exc
