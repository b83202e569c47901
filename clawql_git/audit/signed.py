"""Signatures: with a signing key configured (or an allowed_signers policy committed), every
engine-labelled commit from the first signed one on must carry a good SSH signature by an allowed
key. Trailers and author names can be forged by anyone who can commit; a signature cannot without
the key, and it covers the parents, so older history cannot be rewritten under it either."""

from __future__ import annotations

import os
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from clawql_git.audit.anchors import MAX_LISTED, Findings
from clawql_git.config import VAULT_TOML
from clawql_git.gitstore import ENGINE_EMAIL_DOMAIN, Commit, GitStore, Tree, parse_trailers

NO_REPLACE = {"GIT_NO_REPLACE_OBJECTS": "1"}


@dataclass(frozen=True)
class Signers:
    """The allowed_signers text verify checks against, and whether the committed policy
    requires signatures."""

    text: bytes
    required: bool


def vault_signers(store: GitStore, signing_key: Path | None) -> Signers:
    """The committed allowed_signers (``[policy] allowed_signers``) plus the public half of the
    vault's signing key (the one engine commits are signed with)."""
    head = store.head_commit()
    policy = _policy(store, head.tree) if head else {}
    text = b""
    if policy.get("allowed_signers") and head is not None:
        text = store.blob_at(head.tree, str(policy["allowed_signers"])) or b""
    public = _public_key(signing_key) if signing_key else ""
    if public:
        text = text.rstrip(b"\n") + (b"\n" if text else b"") + f"vault {public}\n".encode()
    return Signers(text, bool(policy.get("require_signed")))


def _policy(store: GitStore, tree: Tree) -> dict[str, object]:
    try:
        data = tomllib.loads((store.blob_at(tree, VAULT_TOML) or b"").decode())
    except (ValueError, UnicodeDecodeError):
        return {}
    policy = data.get("policy", {})
    return policy if isinstance(policy, dict) else {}


def _public_key(key: Path) -> str:
    pub = key.with_name(key.name + ".pub")
    if pub.is_file():
        return pub.read_text().strip()
    try:
        out = subprocess.run(
            ["ssh-keygen", "-y", "-f", str(key)], capture_output=True, text=True, check=False
        )
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def engine_labelled(commit: Commit) -> bool:
    """A commit that says the engine (or an agent) made it: a Clawql-Event trailer, or an
    agent author (a plain merge by ``git merge`` is a person's, whatever its identity)."""
    if parse_trailers(commit.message).get("Clawql-Event"):
        return True
    return len(commit.parents) < 2 and commit.author.email.endswith(f"@{ENGINE_EMAIL_DOMAIN}")


def signatures(store: GitStore, head: Commit | None, signers: Signers, found: Findings) -> None:
    """Every engine-labelled commit from the first signed one (or from the commit that made the
    policy require signing) is signed by an allowed key."""
    if head is None:
        return
    if not signers.text.strip():
        found.limits.append(
            "no signing key and no allowed_signers: a commit made by hand with forged engine "
            "trailers and an agent author cannot be told from the engine's"
        )
        return
    oldest_first = list(reversed(list(store.walk(head, first_parent=False))))
    labelled = [c for c in oldest_first if engine_labelled(c)]
    status = _statuses(store, head, signers.text)
    start = _era_start(store, labelled, status, signers.required)
    if start is None:
        found.limits.append(
            f"signing is configured but none of {len(labelled)} engine commits is signed by an "
            "allowed key: signatures prove nothing here yet"
        )
        return
    bad = [c for c in labelled[start:] if status.get(str(c.id)) != "G"]
    for commit in bad[:MAX_LISTED]:
        found.problems.append(
            f"git:{commit.id} is labelled an engine commit ({_label(commit)}) but is not signed "
            "by an allowed key: forged, or rewritten after it was signed"
        )
    if start:
        found.limits.append(f"{start} engine commits predate signing and are not proved by it")
    found.checks.append(f"engine commits signed by an allowed key: {len(labelled) - start} checked")


def _era_start(
    store: GitStore, labelled: list[Commit], status: dict[str, str], required: bool
) -> int | None:
    for i, commit in enumerate(labelled):
        if status.get(str(commit.id)) == "G":
            return i
        if required and _policy(store, commit.tree).get("require_signed"):
            return i
    return None


def _label(commit: Commit) -> str:
    event = parse_trailers(commit.message).get("Clawql-Event")
    return event or f"author {commit.author.email}"


def _statuses(store: GitStore, head: Commit, signers: bytes) -> dict[str, str]:
    """git's %G? for every commit of ``head``'s history (G: good signature by an allowed key)."""
    with tempfile.NamedTemporaryFile("wb", suffix=".signers", delete=False) as handle:
        handle.write(signers)
    try:
        out = subprocess.run(
            [
                "git",
                "-c",
                "gpg.format=ssh",
                "-c",
                f"gpg.ssh.allowedSignersFile={handle.name}",
                "log",
                "--format=%H %G?",
                str(head.id),
            ],
            cwd=store.workdir,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **NO_REPLACE},
        ).stdout
    finally:
        os.unlink(handle.name)
    pairs = (line.split() for line in out.splitlines())
    return {p[0]: p[1] for p in pairs if len(p) == 2}
