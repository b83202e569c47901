"""Restore: rebuild a vault on an empty machine from a remote's bundles alone. Everything is
checked in a hidden sibling folder first (every bundle's sha256, the manifest chain, each
bundle's prerequisites, every manifest's tips against the newest); only a vault that passes is
moved to DEST, given hooks and config like ``init``, and indexed."""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from clawql_git.errors import InvalidInput, NotFound, StorageError, TamperDetected, VaultStateError
from clawql_git.gitstore import GitStore
from clawql_git.gitstore.gitcli import git_message, run_git
from clawql_git.model.progress import Progress
from clawql_git.sync import apply
from clawql_git.sync.backend import Backend
from clawql_git.sync.manifest import AUDIT_REF, MAIN_REF, ChainLink, vault_root_key


@dataclass(frozen=True)
class RestoreResult:
    """What a restore rebuilt."""

    path: str
    vault_id: str
    seq: int
    bundles: int
    bytes: int
    refs: dict[str, str]
    remote: str

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


def find_vault_ids(backend: Backend, prefix: str) -> list[str]:
    """Vault ids that have manifests under ``prefix``."""
    base = vault_root_key(prefix, "")
    ids = set()
    for obj in backend.list(base):
        rest = obj.key[len(base) :].lstrip("/").split("/")
        if len(rest) == 3 and rest[1] == "manifests":
            ids.add(rest[0])
    return sorted(ids)


def choose_vault_id(backend: Backend, prefix: str, vault_id: str | None) -> str:
    if vault_id:
        return vault_id
    ids = find_vault_ids(backend, prefix)
    if not ids:
        raise NotFound(f"no vault on {backend.describe()} under prefix {prefix!r}")
    if len(ids) > 1:
        raise InvalidInput(f"{len(ids)} vaults under {prefix!r}; pick one with --vault-id: {ids}")
    return ids[0]


def restore(
    backend: Backend,
    dest: Path,
    prefix: str,
    vault_id: str | None = None,
    progress: Progress | None = None,
    min_seq: int = 0,
) -> RestoreResult:
    """Rebuild the vault into ``dest`` (absent or an empty folder); nothing is left on failure.
    ``min_seq``: the newest seq the caller knows was pushed (an empty machine has no record of
    its own, so this is how a restore refuses a remote rolled back past it)."""
    from clawql_git.sync.service import LocalState, add_checkpoints, read_chain

    dest = dest.resolve()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise VaultStateError(f"{dest} is not empty; restore needs an empty folder")
    vid = choose_vault_id(backend, prefix, vault_id)
    links = read_chain(backend, vault_root_key(prefix, vid), vid)
    if not links:
        raise NotFound(f"no manifests for vault {vid} on {backend.describe()}")
    if links[-1].manifest.seq < min_seq:
        raise TamperDetected(
            f"{backend.describe()} is rolled back: its newest manifest is seq "
            f"{links[-1].manifest.seq}, but seq {min_seq} was pushed"
        )
    bundles = apply.download(backend, links, progress)
    work = dest.parent / f".{dest.name}.restoring-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        store = _rebuild(work, links, bundles)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    del store
    if dest.exists():
        dest.rmdir()
    work.rename(dest)
    store = GitStore.open(dest)
    newest = links[-1]
    LocalState(newest.manifest.seq, newest.sha256, dict(newest.manifest.refs)).save(store)
    add_checkpoints(store, links)
    _settle(dest)
    return RestoreResult(
        str(dest),
        vid,
        newest.manifest.seq,
        len(links),
        sum(len(b) for b in bundles),
        dict(newest.manifest.refs),
        backend.describe(),
    )


def _rebuild(work: Path, links: list[ChainLink], bundles: list[bytes]) -> GitStore:
    """A fresh repository holding every bundle, refs set to the newest manifest's tips."""
    store = GitStore.init(work)
    repo = store.workdir
    apply.unpack(repo, links, bundles)
    tips = links[-1].manifest.refs
    if MAIN_REF not in tips:
        raise StorageError("the newest manifest names no main branch")
    apply.check_ancestry(repo, links, tips.get(AUDIT_REF))
    for ref in (MAIN_REF, AUDIT_REF):
        if ref in tips:
            store.set_ref(ref, tips[ref])
    apply.drop_incoming(store)
    _git(repo, "reset", "-q", "--hard", "HEAD")
    return store


def _settle(dest: Path) -> None:
    """Hooks and merge driver as ``init`` installs them; the work tree is git's checkout;
    then the derived index is built from HEAD."""
    from clawql_git.vault.facade import Vault

    vault = Vault.init(dest)  # an existing vault: installs hooks and the merge driver
    with vault.store.lock():
        vault.store.mark_synced()
    vault.rebuild_index()


def _git(repo: Path, *args: str) -> None:
    result = run_git(repo, args)
    if result.returncode != 0:
        raise StorageError(f"git {' '.join(args)} failed: {git_message(result)}")
