"""GitStore: a vault's repository (with a work tree). Trees built along changed paths, commits
(any number of parents) with a checked, locked ref update and a checkpoint, other ref moves,
and the work-tree sync. The only place that creates commits or moves refs."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, cast

import pygit2

from clawql_git.errors import ConcurrentUpdate, NotFound, StorageError, VaultStateError
from clawql_git.gitstore.checkout import CheckoutSync
from clawql_git.gitstore.checkpoints import CHECKPOINTS, append_checkpoints
from clawql_git.gitstore.files import atomic_write, owned_lock, worktree_problem
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.gitstore.repo import Commit, Oid, Repo, Signature, Tree, signature

BLOB = pygit2.enums.FileMode.BLOB
TREE = pygit2.enums.FileMode.TREE
# A change maps a path to new bytes, or to None for a deletion.
Change = Mapping[str, bytes | None]
ENGINE_EMAIL_DOMAIN = "agents.clawql"


class GitStore(Repo):
    """A vault's Git repository (with a work tree) seen through pygit2."""

    def __init__(self, repo: pygit2.Repository, fsync: bool = False) -> None:
        super().__init__(repo)
        self.fsync = fsync
        if repo.is_bare or repo.workdir is None:
            raise VaultStateError(f"{repo.path} is a bare repository; a vault needs a work tree")
        self.workdir = Path(repo.workdir)
        self.state_dir = self.gitdir / "clawql"
        self.signing_key: Path | None = None  # an SSH key: engine commits are signed with it

    # ------------------------------------------------------------ open / init

    @classmethod
    def open(cls, path: Path, fsync: bool = False) -> GitStore:
        """Open the repository whose work tree is ``path``."""
        try:
            repo = pygit2.Repository(str(path), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        except (pygit2.GitError, KeyError) as exc:
            raise NotFound(f"{path} is not a git repository") from exc
        return cls(repo, fsync)

    @classmethod
    def init(cls, path: Path, branch: str = "main") -> GitStore:
        """Create (or reopen) a non-bare repository at ``path`` with ``branch`` as HEAD."""
        try:
            repo = pygit2.init_repository(str(path), bare=False, initial_head=branch)
        except pygit2.GitError as exc:
            raise StorageError(f"cannot create a git repository at {path}: {exc}") from exc
        return cls(repo)

    def lock(self) -> AbstractContextManager[None]:
        """The single-writer lock every engine write holds."""
        return exclusive_lock(self.state_dir / "write.lock")

    # ------------------------------------------------------------ HEAD

    def head_ref_name(self) -> str:
        """The branch HEAD points at (a vault never writes on a detached HEAD)."""
        try:
            target = self.repo.lookup_reference("HEAD").target
        except (pygit2.GitError, KeyError) as exc:
            raise StorageError(f"cannot read HEAD: {exc}") from exc
        if not isinstance(target, str) or not target.startswith("refs/heads/"):
            raise VaultStateError("HEAD is detached; check out a branch before writing")
        return target

    def head_commit(self) -> Commit | None:
        """HEAD's commit, or None when the branch is unborn."""
        return self.ref_commit(self.head_ref_name())

    # ------------------------------------------------------------ trees

    def build_tree(self, base: Tree | None, changes: Change) -> Oid:
        """A new root tree: ``base`` with ``changes`` applied, rebuilding only the touched trees."""
        oid = self._apply(base, _group(changes))
        if oid is None:
            return self.repo.TreeBuilder().write()
        return oid

    def tree(self, oid: Oid) -> Tree:
        """The tree with this id (one ``build_tree`` just wrote)."""
        obj = self.repo.get(oid)
        assert isinstance(obj, pygit2.Tree)
        return obj

    def _apply(self, tree: Tree | None, changes: dict[str, Any]) -> Oid | None:
        builder = self.repo.TreeBuilder(tree) if tree is not None else self.repo.TreeBuilder()
        for name, change in changes.items():
            if isinstance(change, dict):
                child = self.subtree(tree, name)
                oid = self._apply(child, change)
                _put(builder, name, oid, TREE)
            else:
                blob = None if change is None else self.repo.create_blob(change)
                _put(builder, name, blob, BLOB)
        if len(builder) == 0:
            return None
        return builder.write()

    # ------------------------------------------------------------ commits

    def commit(
        self,
        ref: str,
        parents: Sequence[Commit],
        tree: Oid,
        message: str,
        author: Signature,
    ) -> str:
        """Write a commit on ``parents`` (the first is where ``ref`` points now; a merge names
        more) and move ``ref`` to it, refusing if ``ref`` moved. Every engine commit comes here."""
        expected = parents[0].id if parents else None
        current = self.ref_commit(ref)
        if (current.id if current else None) != expected:
            raise ConcurrentUpdate(f"{ref} moved while the commit was being prepared")
        self._clear_ref_lock(ref)
        marker = self._ref_marker(ref)
        try:
            oid = self._create_commit(author, message, tree, [p.id for p in parents])
            atomic_write(marker, ref.encode(), False)
            self.repo.create_reference_direct(ref, oid, True, message=message.splitlines()[0])
            marker.unlink(missing_ok=True)
        except (pygit2.GitError, OSError) as exc:
            raise StorageError(f"cannot write commit on {ref}: {exc}") from exc
        self._checkpoint(ref, str(oid))
        return str(oid)

    def provisional_commit(
        self, parents: Sequence[Commit], tree: Oid, message: str, author: Signature
    ) -> Commit:
        """A commit object no ref points at (unsigned, never checkpointed): a merge's history
        as it will be, for what must be computed from it before the real commit is written."""
        committer = _committer(author.time)
        try:
            oid = self.repo.create_commit(
                None, author, committer, message, tree, [p.id for p in parents]
            )
        except pygit2.GitError as exc:
            raise StorageError(f"cannot write a provisional commit: {exc}") from exc
        found = self.commit_of(oid)
        assert found is not None
        return found

    def _checkpoint(self, ref: str, sha: str) -> None:
        """Remember that ``ref`` pointed at ``sha``: verify proves it still contains it."""
        self.add_checkpoints([(ref, sha)])

    def add_checkpoints(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Record ``(ref, sha)`` pairs verify will hold ``ref`` to (engine commits, manifests)."""
        try:
            append_checkpoints(self.checkpoints_path, pairs)
        except OSError as exc:
            raise StorageError(f"cannot record a checkpoint: {exc}") from exc

    @property
    def checkpoints_path(self) -> Path:
        """$GIT_DIR/clawql/checkpoints."""
        return self.state_dir / CHECKPOINTS

    def _create_commit(self, author: Signature, message: str, tree: Oid, parents: list[Oid]) -> Oid:
        committer = _committer(int(time.time()))
        if self.signing_key is None:
            return self.repo.create_commit(None, author, committer, message, tree, parents)
        ids: list[str | Oid] = list(parents)
        # pygit2's stubs say Oid; the call returns the commit's text.
        content = cast(str, self.repo.create_commit_string(author, committer, message, tree, ids))
        sig = ssh_sign(content, self.signing_key)
        return self.repo.create_commit_with_signature(content, sig, "gpgsig")

    def _ref_marker(self, ref: str) -> Path:
        return self.state_dir / f"ref-update-{ref.replace('/', '-')}"

    def _clear_ref_lock(self, ref: str) -> None:
        """A ref lock left by a killed engine process is removed; one held by git is waited for."""
        lock = self.gitdir / f"{ref}.lock"
        marker = self._ref_marker(ref)
        if lock.exists() and owned_lock(lock, marker):
            lock.unlink(missing_ok=True)
        deadline = time.monotonic() + 5.0
        while lock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        if lock.exists():
            raise ConcurrentUpdate(f"{lock} is held by another git process; try again")

    # ------------------------------------------------------------ other ref moves

    def create_branch(self, ref: str, commit: Commit) -> None:
        """Create ``ref`` at ``commit``; refuses when it exists."""
        try:
            self.repo.create_reference_direct(ref, commit.id, False)
        except (pygit2.GitError, ValueError) as exc:
            raise StorageError(f"cannot create {ref}: {exc}") from exc

    def set_ref(self, ref: str, sha: str) -> None:
        """Point ``ref`` at ``sha`` (fetched or restored history the caller has checked)."""
        try:
            self.repo.references.create(ref, sha, force=True)
        except (pygit2.GitError, ValueError) as exc:
            raise StorageError(f"cannot set {ref}: {exc}") from exc

    def delete_ref(self, ref: str) -> None:
        """Delete ``ref`` (a closed proposal, a stale remote-tracking ref)."""
        try:
            self.repo.references.delete(ref)
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise StorageError(f"cannot delete {ref}: {exc}") from exc

    # ------------------------------------------------------------ signatures

    def agent_signature(self, agent: str, local: str, when: int | None = None) -> Signature:
        """The author of an agent's engine commit: ``agent <local@agents.clawql>``."""
        return signature(agent, f"{local}@{ENGINE_EMAIL_DOMAIN}", when or int(time.time()))

    def person_signature(self, who: str, fallback_local: str) -> Signature:
        """The author of a person's commit (a review, a policy): git's ``user.email``, else
        ``fallback_local@agents.clawql``."""
        email = self.config_get("user.email") or f"{fallback_local}@{ENGINE_EMAIL_DOMAIN}"
        return signature(who, email, int(time.time()))

    # ------------------------------------------------------------ work tree

    def sync_checkout(self, update_index: bool) -> list[str]:
        """Bring the work tree (and optionally the git index) from their last synced commit to
        HEAD, touching only what still holds engine-written content (user edits are kept) and
        never writing through a symbolic link or into ``.git``: the paths so left alone are
        returned. Call with the writer lock held; safe to repeat after a crash at any point."""
        try:
            return CheckoutSync(self).sync(update_index)
        except pygit2.GitError as exc:
            raise StorageError(f"cannot update the work tree: {exc}") from exc

    def worktree_problem(self, path: str) -> str | None:
        """Why the engine would not write ``path`` in the work tree (see ``files``), or None."""
        return worktree_problem(self.workdir, path)

    def mark_synced(self) -> None:
        """Record that work tree and index match HEAD (after a checkout done by git itself)."""
        CheckoutSync(self).mark_synced()

    def start_checkout(self) -> None:
        """A new vault: nothing of the work tree or index is synced yet."""
        CheckoutSync(self).write_marks({"worktree": "", "index": ""})


def _committer(when: int) -> Signature:
    return signature("clawql-git", "engine@clawql.local", when)


def _group(changes: Change) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path, data in changes.items():
        node = root
        *dirs, name = path.split("/")
        for part in dirs:
            node = node.setdefault(part, {})
        node[name] = data
    return root


def _put(builder: pygit2.TreeBuilder, name: str, oid: Oid | None, mode: int) -> None:
    if oid is None:
        if builder.get(name) is not None:
            builder.remove(name)
    else:
        builder.insert(name, oid, mode)


def ssh_sign(content: str, key: Path) -> str:
    """An SSH signature of a commit's content (what `git commit -S` with gpg.format=ssh makes)."""
    try:
        result = subprocess.run(
            ["ssh-keygen", "-Y", "sign", "-n", "git", "-f", str(key)],
            input=content.encode(),
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise StorageError(f"cannot run ssh-keygen to sign: {exc}") from exc
    if result.returncode != 0:
        raise StorageError(f"signing with {key} failed: {result.stderr.decode().strip()}")
    return result.stdout.decode()
