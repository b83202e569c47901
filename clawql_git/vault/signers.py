"""Who a signing key proves to be: the principals of an allowed-signers file (git's
``gpg.ssh.allowedSignersFile`` format) whose key made a fresh signature. A name typed on a
command line proves nothing; a signature by a listed key proves possession of that key."""

from __future__ import annotations

import secrets
import subprocess
import tempfile
from pathlib import Path

from clawql_git.errors import StorageError
from clawql_git.gitstore import ssh_sign

NAMESPACE = "git"  # the namespace git signs commits in, so the same key and file serve both


def proven_principals(key: Path | None, allowed_signers: bytes) -> frozenset[str]:
    """The principals ``allowed_signers`` lists for the key at ``key``, proven by signing a
    fresh challenge with it and verifying that signature; empty without a key or a match."""
    if key is None or not allowed_signers.strip():
        return frozenset()
    challenge = f"clawql review proof {secrets.token_hex(16)}\n"
    signature = ssh_sign(challenge, key)
    with tempfile.TemporaryDirectory(prefix="clawql-signers-") as tmp:
        signers = Path(tmp) / "allowed_signers"
        signers.write_bytes(allowed_signers)
        sig = Path(tmp) / "challenge.sig"
        sig.write_text(signature, encoding="ascii")
        found = _keygen(["-Y", "find-principals", "-s", str(sig), "-f", str(signers)]) or ""
        names = frozenset(n for line in found.splitlines() for n in line.split(",") if n)
        return frozenset(n for n in names if _verifies(signers, sig, n, challenge))


def _verifies(signers: Path, sig: Path, principal: str, challenge: str) -> bool:
    args = ["-Y", "verify", "-f", str(signers), "-I", principal, "-n", NAMESPACE, "-s", str(sig)]
    return _keygen(args, stdin=challenge) is not None


def _keygen(args: list[str], stdin: str = "") -> str | None:
    """ssh-keygen's output, or None when it says no: a key that is not listed, or a signature
    that does not verify, is an answer (no principal), not an error."""
    try:
        result = subprocess.run(
            ["ssh-keygen", *args], input=stdin.encode(), capture_output=True, check=False
        )
    except OSError as exc:
        raise StorageError(f"cannot run ssh-keygen to check a signature: {exc}") from exc
    return result.stdout.decode() if result.returncode == 0 else None
