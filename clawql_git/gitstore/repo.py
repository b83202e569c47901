"""The read side of a repository through pygit2 (refs, trees, blobs, walks, tree diffs), for a
vault's repository and for the bare repositories teams push to. pygit2 errors stop here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pygit2

from clawql_git.errors import NotFound, StorageError, VaultStateError
from clawql_git.gitstore.trailers import Trailers

Commit = pygit2.Commit
Tree = pygit2.Tree
Oid = pygit2.Oid
Signature = pygit2.Signature
ZERO = "0" * 40
CACHED_OBJECT_MAX = 16 * 1024 * 1024  # bytes: trees and commits up to this are kept parsed


def _keep_large_trees() -> None:
    """Let libgit2's object cache (256 MB in all) keep trees and commits of any size a vault
    has. By default it keeps none over 4 KB, so every path lookup in a folder of more than
    ~100 entries read and parsed that folder's tree again: a recall's hit checks spent 6 ms
    on it at 100,000 entries (0.15 ms a lookup, 0.001 ms once kept; bench/README.md)."""
    kinds = pygit2.enums.ObjectType
    for kind in (kinds.TREE, kinds.COMMIT):
        pygit2.settings.cache_object_limit(kind, CACHED_OBJECT_MAX)


_keep_large_trees()


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


@dataclass(frozen=True)
class BlobData:
    """A blob's bytes and whether libgit2 calls it binary."""

    data: bytes
    binary: bool


@dataclass(frozen=True)
class TreeEntry:
    """One non-tree item of a tree: a file, a symlink (mode 120000) or a submodule (160000)."""

    path: str
    oid: str
    mode: int

    @property
    def kind(self) -> str:
        """``file``, ``symlink`` or ``submodule``."""
        if self.mode == SYMLINK_MODE:
            return "symlink"
        if self.mode == SUBMODULE_MODE:
            return "submodule"
        return "file"


@dataclass(frozen=True)
class TagData:
    """An annotated tag object: what it points at, its message and its tagger (raw bytes)."""

    name: str
    target: str
    target_kind: str
    message: bytes
    tagger: bytes


SYMLINK_MODE = 0o120000
SUBMODULE_MODE = 0o160000


def valid_ref_name(name: str) -> bool:
    """True when ``name`` (a full ref name) is one git accepts."""
    return bool(pygit2.reference_is_valid_name(name))


def signature(name: str, email: str, when: int | None = None) -> Signature:
    """An author or committer signature (UTC offset 0)."""
    if when is None:
        return pygit2.Signature(name, email)
    return pygit2.Signature(name, email, when, 0)


class Repo:
    """A repository read through pygit2: refs, commits, trees, blobs, history."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self.gitdir = Path(repo.path)

    @classmethod
    def open_bare(cls, path: Path) -> Repo:
        """Open a bare repository (a team remote)."""
        repo = _repository(path)
        if not repo.is_bare:
            raise VaultStateError(f"{path} has a work tree; expected a bare repository")
        return cls(repo)

    @classmethod
    def open_receiving(cls, path: Path) -> Repo:
        """The repository a receive hook runs in, with the push's quarantined objects visible."""
        repo = _repository(path)
        quarantine = os.environ.get("GIT_QUARANTINE_PATH") or os.environ.get("GIT_OBJECT_DIRECTORY")
        if quarantine:
            repo.odb.add_disk_alternate(quarantine)
        return cls(repo)

    # ------------------------------------------------------------ refs

    def ref_commit(self, ref: str) -> Commit | None:
        """The commit a ref points at, or None for an unborn branch."""
        target = self.ref_target(ref)
        return self.commit_of(target) if target else None

    def ref_target(self, ref: str) -> str | None:
        """The sha a ref (symbolic refs followed) points at, or None."""
        try:
            return str(self.repo.references[ref].resolve().target)
        except (KeyError, pygit2.GitError, ValueError):
            return None

    def head_target(self) -> str:
        """The ref name HEAD points at (a bare repository's default branch), or ``""``."""
        try:
            target = self.repo.lookup_reference("HEAD").target
        except (pygit2.GitError, KeyError, ValueError):
            return ""
        return target if isinstance(target, str) else ""

    def ref_names(self, prefix: str = "refs/") -> list[str]:
        """Every ref name starting with ``prefix``."""
        return [name for name in self.repo.references if name.startswith(prefix)]

    def reflog(self, ref: str) -> list[tuple[str, str]]:
        """``(new sha, message)`` of every move of ``ref`` its reflog kept, oldest first."""
        try:
            entries = list(self.repo.references[ref].log())
        except (KeyError, pygit2.GitError, ValueError):
            return []
        return [(str(e.oid_new), e.message or "") for e in reversed(entries)]

    def stored_parents(self, sha: str) -> list[str] | None:
        """The parents written in the commit object itself (libgit2 applies info/grafts and
        shallow to ``Commit.parents``; this does not), or None when the object is absent."""
        try:
            kind, data = self.repo.odb.read(sha)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if kind != pygit2.enums.ObjectType.COMMIT:
            return None
        header = bytes(data).split(b"\n\n", 1)[0].decode("ascii", errors="replace")
        return [line[7:] for line in header.splitlines() if line.startswith("parent ")]

    def resolve(self, rev: str) -> Commit:
        """Resolve a revision (sha, branch, HEAD~2, tag) to a commit."""
        try:
            obj = self.repo.revparse_single(rev)
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
            raise NotFound(f"unknown revision {rev!r}") from exc
        assert isinstance(commit, pygit2.Commit)
        return commit

    def config_get(self, key: str) -> str:
        """A git config value (local, then global), or ``""``."""
        try:
            return str(self.repo.config[key])
        except (KeyError, pygit2.GitError):
            return ""

    def config_set(self, key: str, value: str) -> None:
        """Set a key in the repository's local git config."""
        try:
            self.repo.config[key] = value
        except pygit2.GitError as exc:
            raise StorageError(f"cannot set git config {key}: {exc}") from exc

    def remote_url(self, name: str) -> str | None:
        """The URL of a configured remote, or None."""
        try:
            return str(self.repo.remotes[name].url)
        except (KeyError, ValueError, pygit2.GitError):
            return None

    # ------------------------------------------------------------ objects

    def commit_of(self, sha: str | Oid | None) -> Commit | None:
        """The commit with this id, or None (unknown id, or not a commit)."""
        if not sha:
            return None
        try:
            obj = self.repo.get(sha)
        except (ValueError, KeyError, TypeError):
            return None
        return obj if isinstance(obj, pygit2.Commit) else None

    def object_kind(self, sha: str) -> str:
        """``commit``, ``tree``, ``blob`` or ``tag`` for an object id, ``""`` when unknown."""
        try:
            obj = self.repo.get(sha)
        except (ValueError, KeyError, TypeError):
            return ""
        return str(obj.type_str) if obj is not None else ""

    def tag_data(self, sha: str) -> TagData | None:
        """The annotated tag object with this id, or None."""
        try:
            obj = self.repo.get(sha)
        except (ValueError, KeyError, TypeError):
            return None
        if not isinstance(obj, pygit2.Tag):
            return None
        tagger = obj.tagger
        who = b"" if tagger is None else tagger.raw_name + b" <" + tagger.raw_email + b">"
        target = str(obj.target)
        return TagData(str(obj.name), target, self.object_kind(target), obj.raw_message, who)

    def raw_headers(self, sha: str) -> bytes:
        """The header block of a commit or tag object (the lines before its message), with
        the headers git lets anyone add (``gpgsig``, ``mergetag``, unknown ones)."""
        try:
            _, data = self.repo.odb.read(sha)
        except (KeyError, ValueError, TypeError, pygit2.GitError):
            return b""
        return bytes(data).split(b"\n\n", 1)[0]

    def tree_of(self, sha: str | None) -> Tree | None:
        """The tree of a commit sha, or None."""
        commit = self.commit_of(sha)
        return commit.tree if commit is not None else None

    def tree_by_id(self, sha: str) -> Tree | None:
        """The tree object with this id, or None when the repository does not hold one."""
        try:
            obj = self.repo.get(sha)
        except (ValueError, KeyError):
            return None
        return obj if isinstance(obj, pygit2.Tree) else None

    def blob(self, oid: str | Oid) -> bytes | None:
        """The bytes of a blob by id, or None."""
        try:
            obj = self.repo.get(oid)
        except (ValueError, KeyError, TypeError):
            return None
        return obj.data if isinstance(obj, pygit2.Blob) else None

    def blob_data(self, oid: str | Oid) -> BlobData | None:
        """A blob's bytes and binary flag by id, or None when it is not a blob."""
        try:
            obj = self.repo.get(oid)
        except (ValueError, KeyError, TypeError):
            return None
        return BlobData(obj.data, bool(obj.is_binary)) if isinstance(obj, pygit2.Blob) else None

    def blob_at(self, tree: Tree | None, path: str) -> bytes | None:
        """The bytes of the blob at ``path`` in ``tree``, or None."""
        if tree is None:
            return None
        try:
            obj = self.repo.get((tree / path).id)
        except KeyError:
            return None
        return obj.data if isinstance(obj, pygit2.Blob) else None

    def blob_id_at(self, tree: Tree | None, path: str) -> str:
        """The id of the object at ``path`` in ``tree``, or ``""``."""
        if tree is None:
            return ""
        try:
            return str((tree / path).id)
        except KeyError:
            return ""

    def subtree(self, tree: Tree | None, path: str) -> Tree | None:
        """The tree at ``path`` (``""`` for the root), or None."""
        if tree is None or not path:
            return tree
        try:
            obj = self.repo.get((tree / path).id)
        except KeyError:
            return None
        return obj if isinstance(obj, pygit2.Tree) else None

    def tree_items(self, tree: Tree | None, prefix: str = "") -> Iterator[tuple[str, str, bool]]:
        """(path, object id, is a tree) for every item of ``tree``, depth first."""
        for item in tree or ():
            path = f"{prefix}{item.name}"
            sub = self._as_tree(item)
            yield path, str(item.id), sub is not None
            if sub is not None:
                yield from self.tree_items(sub, f"{path}/")

    def names_in(self, tree: Tree | None, folder: str) -> list[str]:
        """The names a folder of ``tree`` holds (``""`` for the root); [] when it is no folder."""
        return [item.name or "" for item in self.subtree(tree, folder) or ()]

    def changed_entries(
        self, old: Tree | None, new: Tree | None, prefix: str = ""
    ) -> list[TreeEntry]:
        """Every non-tree item of ``new`` that ``old`` does not hold (same path, id and mode),
        with its mode, so symlinks and submodules are seen; the cost follows the change."""
        if old is not None and new is not None and old.id == new.id:
            return []
        before = _entries(old)
        out: list[TreeEntry] = []
        for name, item in sorted(_entries(new).items()):
            was = before.get(name)
            if was is not None and was.id == item.id and was.filemode == item.filemode:
                continue
            path = f"{prefix}{name}"
            sub = self._as_tree(item)
            if sub is not None:
                out += self.changed_entries(self._as_tree(was), sub, f"{path}/")
            else:
                out.append(TreeEntry(path, str(item.id), int(item.filemode)))
        return out

    def special_entries(self, tree: Tree | None, clean: set[str]) -> list[tuple[str, str]]:
        """(path, "symbolic link" or "submodule") for every entry of ``tree`` git would check
        out as a link or a gitlink. Trees whose ids are in ``clean`` are skipped; trees found
        clean are added to it, so a caller that keeps the set rescans only what changed."""
        if tree is None or str(tree.id) in clean:
            return []
        found = self._special(tree, "", clean)
        if not found:
            clean.add(str(tree.id))
        return found

    def _special(self, tree: Tree, prefix: str, clean: set[str]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for item in tree:
            path = f"{prefix}{item.name}"
            if item.filemode == pygit2.enums.FileMode.LINK:
                found.append((path, "symbolic link"))
            elif item.filemode == pygit2.enums.FileMode.COMMIT:
                found.append((path, "submodule"))
            elif item.filemode == pygit2.enums.FileMode.TREE and str(item.id) not in clean:
                sub = self._as_tree(item)
                inner = self._special(sub, f"{path}/", clean) if sub is not None else []
                if not inner:
                    clean.add(str(item.id))
                found += inner
        return found

    # ------------------------------------------------------------ history

    def walk(self, start: Commit | None, first_parent: bool = True) -> Iterator[Commit]:
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

    def new_commits(self, tip: str) -> list[Commit]:
        """Commits reachable from ``tip`` and from no ref (what a push brings), parents last."""
        try:
            walker = self.repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
        except (ValueError, KeyError, pygit2.GitError) as exc:
            raise NotFound(f"unknown commit {tip}: {exc}") from exc
        for name in self.repo.references:
            target = self.ref_target(name)
            if target is not None:
                try:
                    walker.hide(target)
                except (KeyError, pygit2.GitError, ValueError):
                    continue
        return list(walker)

    def commits_since(self, tip: Commit, base: str | None) -> list[Commit]:
        """Commits reachable from ``tip`` and not from ``base`` (every commit a move of a
        branch from ``base`` to ``tip`` brings onto it, whatever other refs hold them)."""
        walker = self.repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL)
        if base:
            with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
                walker.hide(base)
        return list(walker)

    def first_parent_since(self, tip: Commit, base: str | None) -> list[Commit]:
        """The first-parent chain from ``tip`` down to (not into) the ancestors of ``base``:
        the commits a fast-forward of a branch from ``base`` to ``tip`` lays on it."""
        walker = self.repo.walk(tip.id, pygit2.enums.SortMode.NONE)
        walker.simplify_first_parent()
        if base:
            with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
                walker.hide(base)
        return list(walker)

    def merge_base(self, a: Commit, b: Commit) -> Commit | None:
        """The best common ancestor of two commits, or None."""
        try:
            base = self.repo.merge_base(a.id, b.id)
        except pygit2.GitError:
            return None
        return self.commit_of(base) if base is not None else None

    def is_ancestor(self, sha: str, of: Commit) -> bool:
        """True when commit ``sha`` is ``of`` or one of its ancestors."""
        if str(of.id) == sha:
            return True
        try:
            return bool(self.repo.descendant_of(of.id, pygit2.Oid(hex=sha)))
        except (pygit2.GitError, ValueError, KeyError):
            return False

    def ahead_behind(self, ours: Commit, theirs: Commit) -> tuple[int, int]:
        """How many commits ``ours`` has that ``theirs`` lacks, and the other way round."""
        ahead, behind = self.repo.ahead_behind(ours.id, theirs.id)
        return int(ahead), int(behind)

    def diff_paths(
        self, old: Tree | None, new: Tree | None, prefix: str = ""
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

    def _as_tree(self, obj: pygit2.Object | None) -> Tree | None:
        if obj is None or obj.type_str != "tree":
            return None
        tree = self.repo.get(obj.id)
        return tree if isinstance(tree, pygit2.Tree) else None


def _repository(path: Path) -> pygit2.Repository:
    try:
        return pygit2.Repository(str(path))
    except (pygit2.GitError, KeyError) as exc:
        raise NotFound(f"{path} is not a git repository") from exc


def _entries(tree: Tree | None) -> dict[str, pygit2.Object]:
    return {item.name or "": item for item in tree} if tree is not None else {}
