"""Restore: rebuild a vault on an empty machine from a remote's bundles alone. Everything is
checked in a hidden sibling folder first (every bundle's sha256, the manifest chain, each
bundle's prerequisites, every manifest's tips against the newest, each manifest's signature,
every commit against the checks of a protected remote); only a vault that passes is moved to
DEST, given hooks and config like ``init``, and indexed.

An empty machine has no record of what was pushed, so a remote whose newest manifests were
deleted would restore an older vault without a word. Restore therefore looks for newer seqs
it can know of (bundles named for a seq no manifest has, the caller's ``min_seq``) and refuses
to restore an older vault unless ``allow_older``; then the result carries the warning."""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from clawql_git.errors import InvalidInput, NotFound, StorageError, TamperDetected, VaultStateError
from clawql_git.gitstore import GitStore
from clawql_git.gitstore.gitcli import git_message, run_git
from clawql_git.model.progress import Progress
from clawql_git.sync import apply, signing
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
    newest_known: int = 0  # the highest seq anything on the remote (or the caller) names
    authenticated: bool = False  # every manifest verified against allowed signers
    signed_by: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

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
    signers: signing.Signers | None = None,
    allow_older: bool = False,
) -> RestoreResult:
    """Rebuild the vault into ``dest`` (absent or an empty folder); nothing is left on failure.
    ``min_seq``: the newest seq the caller knows was pushed (an empty machine has no record of
    its own, so this is how a restore refuses a remote rolled back past it). ``signers``: the
    allowed signers every manifest must be signed by (default: each manifest is checked
    against the policy committed at the previous manifest's main, the first against its own;
    no policy anywhere: not authenticated, said in ``warnings``). ``allow_older``: restore
    even when a newer seq is known to have existed (the warning stays in the result)."""
    from clawql_git.sync.service import LocalState, add_checkpoints, read_chain

    dest = dest.resolve()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise VaultStateError(f"{dest} is not empty; restore needs an empty folder")
    vid = choose_vault_id(backend, prefix, vault_id)
    root = vault_root_key(prefix, vid)
    links = read_chain(backend, root, vid)
    if not links:
        raise NotFound(f"no manifests for vault {vid} on {backend.describe()}")
    signed_by = signing.check_all(_signed_items(links), signers) if signers else []
    bundles = apply.download(backend, links, progress)
    work = dest.parent / f".{dest.name}.restoring-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        store = _rebuild(work, links, bundles)
        seq = links[-1].manifest.seq
        newest_known, warnings = _newer(backend, root, seq, min_seq, allow_older)
        if signers is None:
            signed_by, note = _check_by_policy(store, links)
            warnings += [note] if note else []
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
        newest_known,
        bool(signed_by),
        signed_by,
        warnings,
    )


def _newer(
    backend: Backend, root: str, seq: int, min_seq: int, allow_older: bool
) -> tuple[int, list[str]]:
    """The highest seq known to have existed, and the warnings an older restore carries;
    refuses (``TamperDetected``) an older restore unless ``allow_older``."""
    from clawql_git.sync.service import newer_bundles, orphans_note

    orphans = newer_bundles(backend, root, seq)
    problems = []
    if min_seq > seq:
        problems.append(
            f"{backend.describe()} is rolled back: its newest manifest is seq {seq}, but seq "
            f"{min_seq} was pushed"
        )
    if orphans:
        problems.append(orphans_note(backend.describe(), orphans, seq))
    known = max([seq, min_seq, *orphans])
    if problems and not allow_older:
        raise TamperDetected(
            f"refusing to restore seq {seq}: seq {known} is known to exist (possibly rolled "
            "back); pass --allow-older to restore the older vault anyway",
            problems,
        )
    return known, [
        f"restored seq {seq}, older than the newest known seq {known}: {p}" for p in problems
    ]


def _signed_items(links: list[ChainLink]) -> list[tuple[str, bytes, str]]:
    return [(lk.key, lk.manifest.payload(), lk.manifest.signature) for lk in links]


def _check_by_policy(store: GitStore, links: list[ChainLink]) -> tuple[list[str], str]:
    """Without explicit signers: manifest N must be signed by an allowed signer of the policy
    committed at manifest N-1's main (the first: at its own main, trusted on first use)."""
    signed_by: list[str] = []
    problems: list[str] = []
    for i, link in enumerate(links):
        basis = links[max(i - 1, 0)].manifest.refs.get(MAIN_REF)
        signers = signing.committed_signers(store, basis)
        if not signers:
            if signed_by:  # the policy was dropped from a signed chain
                problems.append(f"{link.key}: the policy before it names no allowed signers")
            continue
        try:
            m = link.manifest
            signed_by.append(signing.verify(m.payload(), m.signature, signers))
        except TamperDetected as exc:
            problems.append(f"{link.key}: {exc.message}")
    if problems:
        raise TamperDetected("manifests fail their signature check", problems)
    if len(signed_by) == len(links):
        return signed_by, ""
    note = (
        "the manifests are not authenticated: no allowed signers were given and the vault's "
        "policy names none (pass --allowed-signers)"
    )
    if signed_by:
        note = (
            f"only {len(signed_by)} of {len(links)} manifests are authenticated: the vault's "
            "policy named allowed signers only from a later seq (pass --allowed-signers)"
        )
    return [], note


def _rebuild(work: Path, links: list[ChainLink], bundles: list[bytes]) -> GitStore:
    """A fresh repository holding every bundle, refs set to the newest manifest's tips."""
    store = GitStore.init(work)
    repo = store.workdir
    apply.unpack(repo, links, bundles)
    tips = links[-1].manifest.refs
    if MAIN_REF not in tips:
        raise StorageError("the newest manifest names no main branch")
    apply.check_ancestry(repo, links, tips.get(AUDIT_REF))
    apply.drop_incoming(store)  # the objects stay; with no ref, every commit is checked
    apply.check_content(store, tips)
    for ref in (MAIN_REF, AUDIT_REF):
        if ref in tips:
            store.set_ref(ref, tips[ref])
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
