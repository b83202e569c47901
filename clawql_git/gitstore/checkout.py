"""Keeping the work tree and the git index in step with the commits the engine writes.

The engine commits first (the commit is the record) and syncs the checkout after, so a crash
can leave the sync half done. Marks in $GIT_DIR/clawql/checkout.json say which commit the work
tree and the index were last synced to, and which sync was under way (``*_pending``); content
from either of those is the engine's own and may be replaced, anything else is a person's edit
and is kept."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Protocol

import pygit2

from clawql_git.gitstore.files import (
    atomic_write,
    file_blob_id,
    owned_lock,
    prune_empty_dirs,
    worktree_problem,
)

MARKS = "checkout.json"
_Syncer = Callable[[pygit2.Tree | None, pygit2.Tree, pygit2.Tree | None], None]


class WorkTreeRepo(Protocol):
    """What a sync needs of the store (``GitStore``, which owns the sync, satisfies it)."""

    repo: pygit2.Repository
    workdir: Path
    gitdir: Path
    state_dir: Path
    fsync: bool

    def head_commit(self) -> pygit2.Commit | None: ...

    def tree_of(self, sha: str | None) -> pygit2.Tree | None: ...

    def diff_paths(
        self, old: pygit2.Tree | None, new: pygit2.Tree | None, prefix: str = ""
    ) -> list[tuple[str, str | None, str | None]]: ...


class CheckoutSync:
    """One sync of the work tree and the git index to HEAD (writer lock held)."""

    def __init__(self, store: WorkTreeRepo) -> None:
        self.store = store
        self.marks_path = store.state_dir / MARKS
        self.tmp = store.state_dir / "tmp"
        self.skipped: list[str] = []  # paths left alone: writing them would leave the vault

    def read_marks(self) -> dict[str, str]:
        try:
            data = json.loads(self.marks_path.read_text())
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str)}

    def write_marks(self, marks: dict[str, str]) -> None:
        atomic_write(self.marks_path, json.dumps(marks, sort_keys=True).encode(), False)

    def mark_synced(self) -> None:
        head = self.store.head_commit()
        if head is not None:
            self.write_marks({"worktree": str(head.id), "index": str(head.id)})

    def sync(self, update_index: bool) -> list[str]:
        """Sync; returns the paths left alone because a write there could leave the vault (a
        symbolic link or a non-folder on the way, a ``.git`` component), each with why."""
        self.skipped = []
        self._sync(update_index)
        return self.skipped

    def _sync(self, update_index: bool) -> None:
        head = self.store.head_commit()
        if head is None:
            return
        self._clear_temporaries()
        marks = self.read_marks()
        sha = str(head.id)
        if "worktree" not in marks:
            # First engine write in this checkout (a fresh clone): git's checkout is the baseline.
            marks.setdefault("index", sha)
            self.write_marks({**marks, "worktree": sha})
            return
        parts: list[tuple[str, _Syncer]] = []
        if marks.get("worktree", sha) != sha:
            parts.append(("worktree", self._sync_files))
        if update_index and marks.get("index", sha) != sha and self._index_unlocked(marks):
            parts.append(("index", self._sync_index))
        if not parts:
            return
        befores = {
            p: (self.store.tree_of(marks.get(p)), self.store.tree_of(marks.get(f"{p}_pending")))
            for p, _ in parts
        }
        for part, _ in parts:
            marks[f"{part}_pending"] = sha
        self.write_marks(marks)  # one write says what is under way ...
        for part, fn in parts:
            old, earlier = befores[part]
            fn(old, head.tree, earlier)
            marks[part] = sha
            del marks[f"{part}_pending"]
        self.write_marks(marks)  # ... and one says it is done

    def _clear_temporaries(self) -> None:
        """Temporaries left by writers killed mid-write (we hold the writer lock)."""
        try:
            leftovers = list(self.tmp.iterdir())
        except FileNotFoundError:
            return
        for path in leftovers:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)

    def _ours(self, tree: pygit2.Tree | None, path: str, *ids: str | None) -> set[str | None]:
        accepted = set(ids)
        if tree is not None:
            try:
                accepted.add(str((tree / path).id))
            except KeyError:
                accepted.add(None)
        return accepted

    def _sync_files(
        self, old: pygit2.Tree | None, new: pygit2.Tree, earlier: pygit2.Tree | None
    ) -> None:
        root = self.store.workdir
        for path, old_id, new_id in self.store.diff_paths(old, new):
            problem = worktree_problem(root, path)
            if problem is not None:  # never written through a link, never into .git
                self.skipped.append(f"{path} ({problem})")
                continue
            target = root / path
            current = file_blob_id(target)
            if current == new_id:
                continue
            if current is not None and current not in self._ours(earlier, path, old_id):
                continue  # edited by a person: leave it alone
            if new_id is None:
                target.unlink(missing_ok=True)
                prune_empty_dirs(target.parent, root)
            else:
                blob = self.store.repo.get(new_id)
                assert isinstance(blob, pygit2.Blob)
                atomic_write(target, blob.data, self.store.fsync, self.tmp)

    def _index_unlocked(self, marks: dict[str, str]) -> bool:
        """The index lock is free, or was left by an engine process that died holding it."""
        lock = self.store.gitdir / "index.lock"
        if not lock.exists():
            return True
        if "index_pending" in marks and owned_lock(lock, self.marks_path):
            lock.unlink(missing_ok=True)
            return True
        return False  # git holds it: leave the index for a later sync

    def _sync_index(
        self, old: pygit2.Tree | None, new: pygit2.Tree, earlier: pygit2.Tree | None
    ) -> None:
        index = self.store.repo.index
        index.read(False)
        for path, old_id, new_id in self.store.diff_paths(old, new):
            staged = str(index[path].id) if path in index else None
            if staged is not None and staged not in self._ours(earlier, path, old_id, new_id):
                continue  # the user staged something else there
            if new_id is None:
                if staged is not None:
                    index.remove(path)
            elif (
                worktree_problem(self.store.workdir, path) is None
                and file_blob_id(self.store.workdir / path) == new_id
            ):
                index.add(path)  # from the work tree, with its stat data: git trusts it as is
            else:
                index.add(
                    pygit2.IndexEntry(path, pygit2.Oid(hex=new_id), pygit2.enums.FileMode.BLOB)
                )
        # The marks' time is how a later sync knows an index.lock left by a kill inside this
        # write is ours (``owned_lock``: within 2 s). They were written before the work-tree
        # part, which can take longer than that on a busy machine: stamp them again now.
        with suppress(FileNotFoundError):
            os.utime(self.marks_path)
        index.write()
