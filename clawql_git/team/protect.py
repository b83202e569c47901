"""Protected team remotes: a bare repository that refuses rewrites, deletions, invalid entries,
secrets and (when the vault policy asks) unsigned commits. The checks run in its pre-receive
hook with the same validation as ingest."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clawql_git.config import VAULT_TOML, Settings
from clawql_git.errors import ClawqlError, InvalidInput, VaultStateError
from clawql_git.gitstore import ZERO, Commit, Repo
from clawql_git.model.entry import (
    Entry,
    check_secrets,
    check_size,
    decode_text,
    validate_meta,
    validate_title,
)
from clawql_git.model.paths import is_entry_path

REMOTE_CONFIG = {
    "receive.denyNonFastForwards": "true",
    "receive.denyDeletes": "true",
    "receive.fsckObjects": "true",
}


@dataclass(frozen=True)
class RefUpdate:
    """One line of pre-receive input."""

    old: str
    new: str
    ref: str


def protect_remote(path: Path) -> list[str]:
    """Configure a bare repository to refuse rewrites and install the pre-receive hook."""
    from clawql_git.vault.setup import clawql_command, hooks_source

    try:
        repo = Repo.open_bare(path)
    except VaultStateError as exc:
        raise InvalidInput(
            f"{path} has a work tree; protect the bare repository teams push to"
        ) from exc
    for key, value in REMOTE_CONFIG.items():
        repo.config_set(key, value)
    repo.config_set("clawql.command", clawql_command())
    hook = repo.gitdir / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    shutil.copyfile(hooks_source() / "pre-receive", hook)
    hook.chmod(0o755)
    return [*(f"{k}={v}" for k, v in REMOTE_CONFIG.items()), f"hook {hook}"]


def parse_updates(lines: Iterable[str]) -> list[RefUpdate]:
    """``<old> <new> <ref>`` lines from git."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) == 3:
            out.append(RefUpdate(*parts))
    return out


def check_push(repo: Repo, updates: list[RefUpdate]) -> list[str]:
    """Every reason to refuse the push (empty: accept)."""
    problems: list[str] = []
    for update in updates:
        if update.new == ZERO:
            problems.append(f"{update.ref}: deleting refs is refused on a protected vault")
            continue
        policy = _policy(repo, update)
        for commit in repo.new_commits(update.new):
            problems += _check_commit(repo, commit, update.ref, policy)
    return problems


@dataclass(frozen=True)
class Policy:
    """What the vault's committed settings ask of pushes."""

    require_signed: bool = False
    allowed_signers: bytes = b""
    max_body_bytes: int = Settings().max_body_bytes


def _policy(repo: Repo, update: RefUpdate) -> Policy:
    """The policy of the ref as it is now (a push cannot lift it), else of the pushed tip."""
    import tomllib

    base = update.old if update.old != ZERO else update.new
    commit = repo.commit_of(base)
    if commit is None:
        return Policy()
    try:
        data = tomllib.loads((repo.blob_at(commit.tree, VAULT_TOML) or b"").decode())
    except (ValueError, UnicodeDecodeError):
        return Policy()
    pol = data.get("policy", {})
    signers = b""
    if pol.get("allowed_signers"):
        signers = repo.blob_at(commit.tree, str(pol["allowed_signers"])) or b""
    limit = int(data.get("settings", {}).get("max_body_bytes", Settings().max_body_bytes))
    return Policy(bool(pol.get("require_signed")), signers, limit)


def _check_commit(repo: Repo, commit: Commit, ref: str, policy: Policy) -> list[str]:
    where = f"{ref}: git:{commit.id}"
    problems = []
    if policy.require_signed and not _signed(commit, policy):
        problems.append(f"{where} is not signed by an allowed signer (the vault requires it)")
    parent = commit.parents[0].tree if commit.parents else None
    for path, _, new in repo.diff_paths(parent, commit.tree):
        if new is None:
            continue  # a deletion
        problem = _check_file(repo, path, new, policy)
        if problem:
            problems.append(f"{where} {path}: {problem}")
    return problems


def _check_file(repo: Repo, path: str, oid: str, policy: Policy) -> str:
    blob = repo.blob_data(oid)
    if blob is None or blob.binary:
        return ""
    try:
        text = decode_text(blob.data, path)
        check_secrets(text, path)
        if is_entry_path(path):
            entry = Entry.parse(path, text)
            validate_meta(entry.meta)
            validate_title(entry.title)
            check_size(entry.body, policy.max_body_bytes)
    except ClawqlError as exc:
        return exc.message
    return ""


def _signed(commit: Commit, policy: Policy) -> bool:
    if not policy.allowed_signers:
        return False
    with tempfile.NamedTemporaryFile("wb", suffix=".signers", delete=False) as handle:
        handle.write(policy.allowed_signers)
    try:
        result = subprocess.run(
            [
                "git",
                "-c",
                "gpg.format=ssh",
                "-c",
                f"gpg.ssh.allowedSignersFile={handle.name}",
                "verify-commit",
                str(commit.id),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ},
        )
    finally:
        os.unlink(handle.name)
    return result.returncode == 0


def pre_receive_problems(path: Path, stdin: Iterable[str]) -> list[str]:
    """What the pre-receive hook refuses (empty: the push may land)."""
    return check_push(Repo.open_receiving(path), parse_updates(stdin))
