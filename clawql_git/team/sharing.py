"""Team memory over any git remote: clone, push and pull as library calls.

Transport is the real ``git`` binary, so a path, ``file://``, HTTP(S) and SSH all work with the
user's own credentials and config. A clone is configured like ``init`` (hooks, the catalog merge
driver, ``clawql.command``) and its index is built before it is handed back. A pull is a fetch
and a merge: entries are merged by git, the generated catalogs by the driver and then
regenerated, and the index catches up. A push never forces: when the remote moved, it refuses
and says to pull."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.config import VAULT_TOML
from clawql_git.errors import (
    CheckFailed,
    MergeConflict,
    NotAVault,
    NotFound,
    PushRefused,
    RemoteMoved,
    SyncError,
    VaultStateError,
)
from clawql_git.gitstore import AUDIT_REF
from clawql_git.gitstore.gitcli import git_message as _message
from clawql_git.gitstore.gitcli import run_git
from clawql_git.model.progress import Progress, phase

if TYPE_CHECKING:
    from clawql_git.gitstore import GitStore
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault

PUSH_EVENT = "MEMORY_SYNC_PUSH"  # the names the bundle remotes (sync/) use too
PULL_EVENT = "MEMORY_SYNC_PULL"
MERGE_IDENTITY = ("clawql-merge", "merge@agents.clawql")
# The catalog driver is passed on every merge we run, so a clone whose config lost it still
# merges catalogs by keeping one side (then regenerating them) instead of conflicting.
DRIVER_CONFIG = (
    "-c",
    "merge.clawql-catalog.name=clawql-git generated catalog",
    "-c",
    "merge.clawql-catalog.driver=true",
)
# Our own post-merge work runs in this process (it needs the writer lock we hold during the
# merge, and we want its result); the hook shim would only repeat it.
NO_HOOKS = ("-c", "core.hooksPath=/dev/null")
AUDITS_PREFIX = "refs/clawql/audits/"  # every clone's audit chain on a team remote


@dataclass(frozen=True)
class PushResult:
    """What a push did: the branch, the remote tip before and after, and whether it moved."""

    remote: str
    url: str
    branch: str
    old: str | None
    new: str
    pushed: bool

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "remote": self.remote,
            "url": self.url,
            "branch": self.branch,
            "old": self.old,
            "new": self.new,
            "pushed": self.pushed,
        }


@dataclass(frozen=True)
class PullResult:
    """What a pull did: commits taken in, how they were joined, and the follow-up work."""

    remote: str
    url: str
    branch: str
    before: str | None
    after: str
    incoming: int
    mode: str  # "up-to-date" | "fast-forward" | "merge"
    catalog_fix: str | None  # the MEMORY_CATALOG_FIX commit made after the merge, if any
    indexed: dict[str, Any]

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {
            "remote": self.remote,
            "url": self.url,
            "branch": self.branch,
            "before": self.before,
            "after": self.after,
            "incoming": self.incoming,
            "mode": self.mode,
            "catalog_fix": self.catalog_fix,
            "index": self.indexed,
        }


# ---------------------------------------------------------------- running git


# Local reads go through pygit2 (no process per question); only transport and merge run git.


def remote_url(store: GitStore, remote: str) -> str:
    """The URL of a configured remote (an unknown remote is a clear error)."""
    url = store.remote_url(remote)
    if not url:
        raise NotFound(f"{store.workdir} has no remote named {remote!r} (see `git remote -v`)")
    return str(url)


def _branch(vault: Vault) -> str:
    """The short name of the branch HEAD points at (refuses a detached HEAD)."""
    return vault.store.head_ref_name().removeprefix("refs/heads/")


def _rev(store: GitStore, ref: str) -> str | None:
    """The commit sha ``ref`` names, or None."""
    try:
        return str(store.resolve(ref).id)
    except NotFound:
        return None


def _ahead_behind(store: GitStore, ours: str | None, theirs: str) -> tuple[int, int]:
    """(commits only we have, commits only they have)."""
    if ours is None:
        return 0, sum(1 for _ in store.walk(store.commit_of(theirs), first_parent=False))
    mine, other = store.commit_of(ours), store.commit_of(theirs)
    if mine is None or other is None:
        return 0, 0
    return store.ahead_behind(mine, other)


def _record(
    vault: Vault,
    event: str,
    identity: Identity | None,
    url: str,
    branch: str,
    old: str | None,
    new: str,
) -> str:
    """A push or pull that moved something, on the audit chain (what the vault read: the tip)."""
    from clawql_git.audit.chain import AuditChain

    agent = (identity.agent_id if identity else "") or vault.settings.agent_id
    extra = [
        ("Sync-Remote", url),
        ("Sync-Branch", branch),
        ("Sync-From", old or "none"),
        ("Sync-To", new),
    ]
    head = vault.store.resolve(new)
    session = identity.session_id if identity else ""
    return AuditChain(vault.store).record(event, head, agent, session, extra=extra)


# ---------------------------------------------------------------- clone


def default_clone_dir(url: str) -> Path:
    """Where ``git clone URL`` would put the clone: the last path part without ``.git``."""
    name = url.rstrip("/").replace(":", "/").split("/")[-1].removesuffix(".git")
    if not name:
        raise VaultStateError(f"cannot derive a folder name from {url!r}; give DIR")
    return Path(name)


def clone(
    url: str,
    dest: str | os.PathLike[str] | None = None,
    *,
    progress: Progress | None = None,
    **flags: Any,
) -> Vault:
    """Clone the vault at ``url`` into ``dest``, set it up like ``init`` (hooks, merge driver,
    clawql.command) and build its index, so recall works at once. Nothing is left behind when
    the clone fails or ``url`` is not a vault."""
    from clawql_git.gitstore import GitStore
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.setup import install_hooks

    target = Path(dest) if dest is not None else default_clone_dir(url)
    target = target.resolve()
    # git refuses a non-empty folder before writing anything; only an empty one is ours to tidy
    existed = target.exists()
    if existed and (not target.is_dir() or any(target.iterdir())):
        raise VaultStateError(f"cannot clone {url} into {target}: it exists and is not empty")
    target.parent.mkdir(parents=True, exist_ok=True)
    cloning = phase(progress, f"cloning {url}", 1)  # git's transfer: one step, timed
    result = run_git(target.parent, _clone_args(url, target))
    cloning(1)
    if result.returncode != 0:
        _remove_failed(target, existed)
        raise SyncError(f"cannot clone {url}: {_message(result)}")
    if not (target / VAULT_TOML).is_file() and _remote_head_unborn(target):
        # A bare repository made by `git init --bare` may name an empty `master` as its HEAD
        # while the vault was pushed to `main`: check out `main` as the vault's branch.
        run_git(target, [*NO_HOOKS, "checkout", "--quiet", "main"])
    if not (target / VAULT_TOML).is_file():
        _remove_failed(target, existed)
        raise NotAVault(f"{url} is not a clawql vault (no {VAULT_TOML} on its default branch)")
    install_hooks(GitStore.open(target))
    vault = Vault.open(target, **flags)
    with vault.store.lock():
        vault.store.mark_synced()  # git's checkout is the baseline of the work-tree sync
    vault.update_index(progress)
    return vault


def _remote_head_unborn(target: Path) -> bool:
    """The clone has no checkout (the remote's HEAD names a missing branch) but a ``main``."""
    head = run_git(target, ["rev-parse", "--verify", "--quiet", "HEAD"])
    main = run_git(target, ["rev-parse", "--verify", "--quiet", "refs/remotes/origin/main"])
    return head.returncode != 0 and main.returncode == 0


def _clone_args(url: str, target: Path) -> list[str]:
    return [*NO_HOOKS, "clone", "--quiet", "--origin", "origin", "--", url, str(target)]


def _remove_failed(target: Path, existed: bool) -> None:
    """Remove what a failed clone wrote (an empty folder that was there before stays)."""
    if not existed:
        shutil.rmtree(target, ignore_errors=True)
        return
    for child in target.iterdir():  # it was empty: everything in it is the clone's
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


# ---------------------------------------------------------------- push


def push(vault: Vault, remote: str = "origin", *, identity: Identity | None = None) -> PushResult:
    """Push the current branch to the same branch on ``remote``. Never forces: when the remote
    has commits this clone lacks, raise RemoteMoved (pull, then push again). A push that moved
    the remote is recorded as MEMORY_SYNC_PUSH on the audit chain."""
    root = vault.root
    url = remote_url(vault.store, remote)
    branch = _branch(vault)
    new = _rev(vault.store, f"refs/heads/{branch}")
    if new is None:
        raise NotFound(f"branch {branch} has no commits to push")
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    refspecs = [refspec, *_audit_refspec(vault.store)]
    result = run_git(root, ["push", "--porcelain", "--atomic", remote, *refspecs])
    status = _porcelain_status(result.stdout, f"refs/heads/{branch}")
    if result.returncode != 0 or status.flag == "!":
        raise _push_error(remote, url, branch, result, status)
    old = _rev(vault.store, status.old) if status.old else None
    done = PushResult(remote, url, branch, old or status.old, new, status.flag != "=")
    if done.pushed:
        _record(vault, PUSH_EVENT, identity, url, branch, done.old, new)
    return done


def clone_id(store: GitStore) -> str:
    """This clone's name among the team's audit chains (``git config clawql.cloneId``)."""
    import uuid

    found = store.config_get("clawql.cloneId")
    if found:
        return found
    value = uuid.uuid4().hex[:12]
    store.config_set("clawql.cloneId", value)
    return value


def _audit_refspec(store: GitStore) -> list[str]:
    """Each clone keeps its own linear audit chain; push publishes it (never forced) as
    ``refs/clawql/audits/<clone id>`` so an auditor who fetches the team remote sees every
    clone's reads. An event recorded by this push travels with the next one."""
    if _rev(store, AUDIT_REF) is None:
        return []
    return [f"{AUDIT_REF}:{AUDITS_PREFIX}{clone_id(store)}"]


@dataclass(frozen=True)
class _RefStatus:
    flag: str  # git push --porcelain: " " fast-forward, "*" new, "=" up to date, "!" rejected
    old: str | None
    summary: str


def _porcelain_status(stdout: str, ref: str) -> _RefStatus:
    """The status line git push --porcelain printed for ``ref``."""
    for line in stdout.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1].endswith(f":{ref}"):
            summary = parts[2]
            old = summary.split("..")[0] if ".." in summary else None
            return _RefStatus(parts[0][:1] or " ", old, summary)
    return _RefStatus("!", None, "")


def _push_error(
    remote: str,
    url: str,
    branch: str,
    result: subprocess.CompletedProcess[str],
    status: _RefStatus,
) -> Exception:
    detail = _message(result)
    if "fetch first" in status.summary or "non-fast-forward" in status.summary:
        return RemoteMoved(
            f"push to {remote} ({url}) refused: {remote}/{branch} has commits this clone does "
            f"not have; run `clawql memory pull` and push again (nothing is ever forced). "
            f"git said: {detail}"
        )
    if "hook declined" in status.summary or "pre-receive" in detail:
        return PushRefused(f"push to {remote} ({url}) refused by the remote's checks: {detail}")
    return SyncError(f"push to {remote} ({url}) failed: {detail}")


# ---------------------------------------------------------------- pull


def pull(
    vault: Vault,
    remote: str = "origin",
    *,
    identity: Identity | None = None,
    progress: Progress | None = None,
) -> PullResult:
    """Fetch ``remote`` and merge its copy of the current branch. Entries merge by git, the
    catalogs by the driver and a regeneration commit, and the index catches up. Two sides that
    changed the same entry raise MergeConflict naming the files; the merge is aborted, so the
    clone is as it was before the pull."""
    from clawql_git.model.identity import Identity

    root = vault.root
    store = vault.store
    url = remote_url(store, remote)
    branch = _branch(vault)
    fetching = phase(progress, f"fetching {remote}", 1)  # git's transfer: one step, timed
    tracking = f"refs/remotes/{remote}/{branch}"
    known = _rev(store, tracking)
    _fetch(root, remote, url)  # outside the writer lock: the network may be slow
    fetching(1)
    with store.lock():
        theirs = _rev(store, tracking)
        if theirs is None:
            raise NotFound(f"{remote} ({url}) has no branch {branch}")
        # Engine writes may leave the git index behind HEAD; git merge reads it.
        store.sync_checkout(update_index=True)
        before = _rev(store, "HEAD")
        ahead, incoming = _ahead_behind(store, before, theirs)
        mode = ""
        if incoming:
            try:
                _check_incoming(store, (remote, url, branch), before, theirs)
            except CheckFailed:  # no ref of this clone keeps what was refused
                if known:
                    store.set_ref(tracking, known)
                else:
                    store.delete_ref(tracking)
                raise
            mode = "merge" if ahead else "fast-forward"
            merging = phase(progress, f"merging {incoming} commit(s)", 1)
            _merge(root, (remote, url, branch), theirs, incoming, mode)
            merging(1)
        store.mark_synced()  # git moved the work tree and the index itself
    fix = vault.catalog_fix(identity or Identity(agent_id=MERGE_IDENTITY[0])) if incoming else None
    report = vault.update_index(progress)
    after = _rev(store, "HEAD") or ""
    if incoming:
        _record(vault, PULL_EVENT, identity, url, branch, before, after)
    return PullResult(
        remote,
        url,
        branch,
        before,
        after,
        incoming,
        mode or "up-to-date",
        fix.sha if fix else None,
        asdict(report),
    )


def _check_incoming(
    store: GitStore, where: tuple[str, str, str], before: str | None, theirs: str
) -> None:
    """Hold what a pull would bring onto the branch to the protected remote's checks (secrets in
    files, names and messages, entry contract, paths every checkout holds, no links or
    submodules, the branch's review and signing policy) before anything is merged: a remote
    need not be protected, and a pulled symlink would let the next write leave the vault."""
    from clawql_git.gitstore import ZERO
    from clawql_git.team.protect import RefUpdate, check_push

    remote, url, branch = where
    problems = check_push(store, [RefUpdate(before or ZERO, theirs, f"refs/heads/{branch}")])
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise CheckFailed(
            f"{remote} ({url}) brings commits this vault refuses; nothing was merged:\n  "
            f"{shown}{more}",
            problems,
        )


def _fetch(root: Path, remote: str, url: str) -> None:
    audits = f"{AUDITS_PREFIX}*:refs/clawql/remotes/{remote}/audits/*"  # never forced
    result = run_git(
        root,
        [
            *NO_HOOKS,
            "fetch",
            "--quiet",
            "--no-tags",
            remote,
            f"+refs/heads/*:refs/remotes/{remote}/*",
            audits,
        ],
    )
    if result.returncode != 0:
        raise SyncError(f"cannot fetch from {remote} ({url}): {_message(result)}")


def _merge(root: Path, where: tuple[str, str, str], theirs: str, incoming: int, mode: str) -> None:
    """Merge ``theirs`` into HEAD with git: a fast-forward, or a merge commit."""
    remote, url, branch = where
    options = [*NO_HOOKS, *DRIVER_CONFIG]
    if mode == "fast-forward":
        how = ["--ff-only"]
    else:
        options += _committer(root)
        how = ["-m", f"Merge {remote}/{branch} ({incoming} incoming commits)"]
    result = run_git(root, [*options, "merge", "--quiet", "--no-edit", *how, theirs])
    if result.returncode != 0:
        _fail_merge(root, remote, url, branch, result)


def _committer(root: Path) -> list[str]:
    """A committer for the merge commit when git has none configured (CI, fresh machines)."""
    if run_git(root, ["var", "GIT_COMMITTER_IDENT"]).returncode == 0:
        return []
    name, email = MERGE_IDENTITY
    return ["-c", f"user.name={name}", "-c", f"user.email={email}"]


def _fail_merge(
    root: Path, remote: str, url: str, branch: str, result: subprocess.CompletedProcess[str]
) -> None:
    """Report a merge git could not finish; a conflicted merge is aborted (never resolved)."""
    listed = run_git(root, ["diff", "-z", "--name-only", "--diff-filter=U"]).stdout
    conflicted = [p for p in listed.split("\0") if p]
    if conflicted:
        run_git(root, ["merge", "--abort"])
        raise MergeConflict(remote, url, branch, conflicted, _message(result))
    raise VaultStateError(f"cannot merge {remote}/{branch} ({url}): {_message(result)}")
