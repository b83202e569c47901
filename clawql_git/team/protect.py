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

import pygit2

from clawql_git.config import VAULT_TOML, Settings
from clawql_git.errors import ClawqlError, InvalidInput, NotFound
from clawql_git.model.entry import (
    Entry,
    check_secrets,
    check_size,
    decode_text,
    validate_meta,
    validate_title,
)
from clawql_git.model.paths import is_entry_path

ZERO = "0" * 40
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
        repo = pygit2.Repository(str(path))
    except (pygit2.GitError, KeyError) as exc:
        raise NotFound(f"{path} is not a git repository") from exc
    if not repo.is_bare:
        raise InvalidInput(f"{path} has a work tree; protect the bare repository teams push to")
    for key, value in REMOTE_CONFIG.items():
        repo.config[key] = value
    repo.config["clawql.command"] = clawql_command()
    hook = Path(repo.path) / "hooks" / "pre-receive"
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


def open_receiving(path: Path) -> pygit2.Repository:
    """The repository a hook runs in, with the push's quarantined objects visible."""
    repo = pygit2.Repository(str(path))
    quarantine = os.environ.get("GIT_QUARANTINE_PATH") or os.environ.get("GIT_OBJECT_DIRECTORY")
    if quarantine:
        repo.odb.add_disk_alternate(quarantine)
    return repo


def check_push(repo: pygit2.Repository, updates: list[RefUpdate]) -> list[str]:
    """Every reason to refuse the push (empty: accept)."""
    problems: list[str] = []
    for update in updates:
        if update.new == ZERO:
            problems.append(f"{update.ref}: deleting refs is refused on a protected vault")
            continue
        policy = _policy(repo, update)
        for commit in _new_commits(repo, update):
            problems += _check_commit(repo, commit, update.ref, policy)
    return problems


@dataclass(frozen=True)
class Policy:
    """What the vault's committed settings ask of pushes."""

    require_signed: bool = False
    allowed_signers: bytes = b""
    max_body_bytes: int = Settings().max_body_bytes


def _policy(repo: pygit2.Repository, update: RefUpdate) -> Policy:
    """The policy of the ref as it is now (a push cannot lift it), else of the pushed tip."""
    import tomllib

    base = update.old if update.old != ZERO else update.new
    commit = repo.get(base)
    if not isinstance(commit, pygit2.Commit):
        return Policy()
    try:
        data = tomllib.loads(repo.get((commit.tree / VAULT_TOML).id).data.decode())
    except (KeyError, ValueError, UnicodeDecodeError):
        return Policy()
    pol = data.get("policy", {})
    signers = b""
    if pol.get("allowed_signers"):
        try:
            signers = repo.get((commit.tree / str(pol["allowed_signers"])).id).data
        except KeyError:
            signers = b""
    limit = int(data.get("settings", {}).get("max_body_bytes", Settings().max_body_bytes))
    return Policy(bool(pol.get("require_signed")), signers, limit)


def _new_commits(repo: pygit2.Repository, update: RefUpdate) -> list[pygit2.Commit]:
    walker = repo.walk(update.new, pygit2.enums.SortMode.TOPOLOGICAL)
    for ref in repo.references:
        try:
            walker.hide(repo.references[ref].resolve().target)
        except (KeyError, pygit2.GitError, ValueError):
            continue
    return list(walker)


def _check_commit(
    repo: pygit2.Repository, commit: pygit2.Commit, ref: str, policy: Policy
) -> list[str]:
    where = f"{ref}: git:{commit.id}"
    problems = []
    if policy.require_signed and not _signed(commit, policy):
        problems.append(f"{where} is not signed by an allowed signer (the vault requires it)")
    parent = commit.parents[0].tree if commit.parents else None
    diff = (
        commit.tree.diff_to_tree(parent, swap=True)
        if parent is not None
        else (commit.tree.diff_to_tree(swap=True))
    )
    for delta in diff.deltas:
        if delta.new_file.id.raw == b"\0" * 20:
            continue  # a deletion
        problem = _check_file(repo, delta.new_file.path, delta.new_file.id, policy)
        if problem:
            problems.append(f"{where} {delta.new_file.path}: {problem}")
    return problems


def _check_file(repo: pygit2.Repository, path: str, oid: pygit2.Oid, policy: Policy) -> str:
    blob = repo.get(oid)
    if not isinstance(blob, pygit2.Blob) or blob.is_binary:
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


def _signed(commit: pygit2.Commit, policy: Policy) -> bool:
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
    return check_push(open_receiving(path), parse_updates(stdin))
