"""The pygit2 commit engine: trees built along changed paths, commits with trailers, locked ref
updates, a safe work-tree sync and history walks."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pygit2

from clawql_git.errors import ConcurrentUpdate, NotFound, StorageError, VaultStateError
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.gitstore.trailers import Trailers, format_message, parse_trailers

__all__ = ["Change", "CommitInfo", "GitStore", "Trailers", "format_message", "parse_trailers"]

BLOB = pygit2.enums.FileMode.BLOB
TREE = pygit2.enums.FileMode.TREE
# A change maps a path to new bytes, or to None for a deletion.
Change = Mapping[str, bytes | None]
ENGINE_EMAIL_DOMAIN = "agents.clawql"
CHECKPOINTS = "checkpoints"  # under $GIT_DIR/clawql: "<ref> <sha>" after every engine commit


@dataclass(frozen=True)
class CommitInfo:
    """One commit of history, as the audit and history views need it."""

    sha: str
    parents: tuple[str, ...]
    author: str
    author_email: str
    time: int
    subject: str
    trailers: Trailers

    @property
    def event(self) -> str:
        return self.trailers.get("Clawql-Event")


class GitStore:
    """A vault's Git repository (with a work tree) seen through pygit2."""

    def __init__(self, repo: pygit2.Repository, fsync: bool = False) -> None:
        self.repo = repo
        self.fsync = fsync
        if repo.is_bare or repo.workdir is None:
            raise VaultStateError(f"{repo.path} is a bare repository; a vault needs a work tree")
        self.workdir = Path(repo.workdir)
        self.gitdir = Path(repo.path)
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

    # ------------------------------------------------------------ refs and trees

    def head_ref_name(self) -> str:
        """The branch HEAD points at (a vault never writes on a detached HEAD)."""
        try:
            target = self.repo.lookup_reference("HEAD").target
        except (pygit2.GitError, KeyError) as exc:
            raise StorageError(f"cannot read HEAD: {exc}") from exc
        if not isinstance(target, str) or not target.startswith("refs/heads/"):
            raise VaultStateError("HEAD is detached; check out a branch before writing")
        return target

    def ref_commit(self, ref: str) -> pygit2.Commit | None:
        """The commit a ref points at, or None for an unborn branch."""
        try:
            oid = self.repo.references[ref].resolve().target
        except (KeyError, pygit2.GitError):
            return None
        obj = self.repo.get(oid)
        return obj if isinstance(obj, pygit2.Commit) else None

    def head_commit(self) -> pygit2.Commit | None:
        """HEAD's commit, or None when the branch is unborn."""
        return self.ref_commit(self.head_ref_name())

    def resolve(self, rev: str) -> pygit2.Commit:
        """Resolve a revision (sha, branch, HEAD~2, tag) to a commit."""
        try:
            obj = self.repo.revparse_single(rev)
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
            raise NotFound(f"unknown revision {rev!r}") from exc
        assert isinstance(commit, pygit2.Commit)
        return commit

    def blob_at(self, tree: pygit2.Tree | None, path: str) -> bytes | None:
        """The bytes of the blob at ``path`` in ``tree``, or None."""
        if tree is None:
            return None
        try:
            obj = self.repo.get((tree / path).id)
        except KeyError:
            return None
        return obj.data if isinstance(obj, pygit2.Blob) else None

    def subtree(self, tree: pygit2.Tree | None, path: str) -> pygit2.Tree | None:
        """The tree at ``path`` (``""`` for the root), or None."""
        if tree is None or not path:
            return tree
        try:
            obj = self.repo.get((tree / path).id)
        except KeyError:
            return None
        return obj if isinstance(obj, pygit2.Tree) else None

    def build_tree(self, base: pygit2.Tree | None, changes: Change) -> pygit2.Oid:
        """A new root tree: ``base`` with ``changes`` applied, rebuilding only the touched trees."""
        oid = self._apply(base, _group(changes))
        if oid is None:
            return self.repo.TreeBuilder().write()
        return oid

    def _apply(self, tree: pygit2.Tree | None, changes: dict[str, Any]) -> pygit2.Oid | None:
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

    def commit(
        self,
        ref: str,
        parent: pygit2.Commit | None,
        tree: pygit2.Oid,
        message: str,
        author: pygit2.Signature,
    ) -> str:
        """Write a commit on ``parent`` and move ``ref`` to it, refusing if ``ref`` moved."""
        committer = pygit2.Signature("clawql-git", "engine@clawql.local", int(time.time()), 0)
        parents = [parent.id] if parent is not None else []
        current = self.ref_commit(ref)
        if (current.id if current else None) != (parent.id if parent else None):
            raise ConcurrentUpdate(f"{ref} moved while the commit was being prepared")
        self._clear_ref_lock(ref)
        marker = self._ref_marker(ref)
        try:
            oid = self._create_commit(author, committer, message, tree, parents)
            _atomic_write(marker, ref.encode(), False)
            self.repo.create_reference_direct(ref, oid, True, message=message.splitlines()[0])
            marker.unlink(missing_ok=True)
        except (pygit2.GitError, OSError) as exc:
            raise StorageError(f"cannot write commit on {ref}: {exc}") from exc
        self._checkpoint(ref, str(oid))
        return str(oid)

    def _checkpoint(self, ref: str, sha: str) -> None:
        """Remember that ``ref`` pointed at ``sha``: verify proves it still contains it."""
        with open(self.state_dir / CHECKPOINTS, "a", encoding="ascii") as handle:
            handle.write(f"{ref} {sha}\n")

    def _create_commit(
        self,
        author: pygit2.Signature,
        committer: pygit2.Signature,
        message: str,
        tree: pygit2.Oid,
        parents: list[pygit2.Oid],
    ) -> pygit2.Oid:
        if self.signing_key is None:
            return self.repo.create_commit(None, author, committer, message, tree, parents)
        ids: list[str | pygit2.Oid] = list(parents)
        # pygit2's stubs say Oid; the call returns the commit's text.
        content = cast(str, self.repo.create_commit_string(author, committer, message, tree, ids))
        signature = ssh_sign(content, self.signing_key)
        return self.repo.create_commit_with_signature(content, signature, "gpgsig")

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

    # ------------------------------------------------------------ history

    def walk(
        self, start: pygit2.Commit | None, first_parent: bool = True
    ) -> Iterator[pygit2.Commit]:
        """Commits from ``start`` back to the root, newest first."""
        if start is None:
            return
        # TOPOLOGICAL/TIME sort the whole history before the first commit comes out; a
        # first-parent walk needs no sorting, so it starts at once whatever the history's size.
        mode = (
            pygit2.enums.SortMode.NONE
            if first_parent
            else pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        )
        walker = self.repo.walk(start.id, mode)
        if first_parent:
            walker.simplify_first_parent()
        yield from walker

    def diff_paths(
        self, old: pygit2.Tree | None, new: pygit2.Tree | None, prefix: str = ""
    ) -> list[tuple[str, str | None, str | None]]:
        """(path, old blob id, new blob id) for every blob that differs between two trees.
        Subtrees with equal ids are skipped, so the cost follows the change, not the vault."""
        if old is not None and new is not None and old.id == new.id:
            return []
        before = _entries(old)
        after = _entries(new)
        out: list[tuple[str, str | None, str | None]] = []
        for name in sorted(before.keys() | after.keys()):
            a, b = before.get(name), after.get(name)
            if a is not None and b is not None and a.id == b.id:
                continue
            path = f"{prefix}{name}"
            a_tree = self._as_tree(a)
            b_tree = self._as_tree(b)
            if a_tree is not None or b_tree is not None:
                out += self.diff_paths(a_tree, b_tree, f"{path}/")
            if (a is not None and a_tree is None) or (b is not None and b_tree is None):
                old_id = str(a.id) if a is not None and a_tree is None else None
                new_id = str(b.id) if b is not None and b_tree is None else None
                out.append((path, old_id, new_id))
        return out

    def _as_tree(self, obj: pygit2.Object | None) -> pygit2.Tree | None:
        if obj is None or obj.type_str != "tree":
            return None
        tree = self.repo.get(obj.id)
        return tree if isinstance(tree, pygit2.Tree) else None

    # ------------------------------------------------------------ work tree

    def sync_checkout(self, update_index: bool) -> None:
        """Bring the work tree (and optionally the git index) from their last synced commit to
        HEAD, touching only what still holds engine-written content (user edits are kept).
        Call with the writer lock held; safe to repeat after a crash at any point."""
        from clawql_git.gitstore.checkout import CheckoutSync

        CheckoutSync(self).sync(update_index)

    def mark_synced(self) -> None:
        """Record that work tree and index match HEAD (after a checkout done by git itself)."""
        from clawql_git.gitstore.checkout import CheckoutSync

        CheckoutSync(self).mark_synced()

    def tree_of(self, sha: str | None) -> pygit2.Tree | None:
        """The tree of a commit sha, or None."""
        if not sha:
            return None
        try:
            obj = self.repo.get(sha)
        except (ValueError, KeyError):
            return None
        return obj.tree if isinstance(obj, pygit2.Commit) else None

    def config_set(self, key: str, value: str) -> None:
        """Set a key in the repository's local git config."""
        self.repo.config[key] = value


def _group(changes: Change) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path, data in changes.items():
        node = root
        *dirs, name = path.split("/")
        for part in dirs:
            node = node.setdefault(part, {})
        node[name] = data
    return root


def _put(builder: pygit2.TreeBuilder, name: str, oid: pygit2.Oid | None, mode: int) -> None:
    if oid is None:
        if builder.get(name) is not None:
            builder.remove(name)
    else:
        builder.insert(name, oid, mode)


def _file_blob_id(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    return str(pygit2.hash(data))


def ssh_sign(content: str, key: Path) -> str:
    """An SSH signature of a commit's content (what `git commit -S` with gpg.format=ssh makes)."""
    import subprocess

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


def _entries(tree: pygit2.Tree | None) -> dict[str, pygit2.Object]:
    return {item.name or "": item for item in tree} if tree is not None else {}


def owned_lock(lock: Path, marker: Path) -> bool:
    """True when ``lock`` was left by an engine process that died holding it: the engine wrote
    ``marker`` just before taking the lock, so their times match (git's own locks do not)."""
    try:
        return abs(lock.stat().st_mtime - marker.stat().st_mtime) < 2.0
    except FileNotFoundError:
        return False


def _atomic_write(path: Path, data: bytes, fsync: bool, tmp_dir: Path | None = None) -> None:
    """Write via a temporary file and rename; temporaries live in ``tmp_dir`` when given, so a
    crash never leaves them in the work tree."""
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = tmp_dir or path.parent
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
        if fsync:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(tmp, path)


def _prune_empty_dirs(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
