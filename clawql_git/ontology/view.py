"""Read-only views of a vault tree for the ontology checks: a committed tree, or a committed
tree with a pending commit's files laid over it (what the writer checks before committing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from clawql_git.gitstore import Repo, Tree


class TreeView(Protocol):
    """The two reads the checks need: one file's bytes, and the files under a folder."""

    def read(self, path: str) -> bytes | None:
        """The bytes at ``path``, or None when there is no file."""
        ...

    def files_under(self, folder: str) -> list[str]:
        """Every file path under ``folder`` (recursively), sorted."""
        ...


class GitView:
    """A committed tree (``None``: the empty tree of an unborn branch)."""

    def __init__(self, repo: Repo, tree: Tree | None) -> None:
        self.repo = repo
        self.tree = tree

    def read(self, path: str) -> bytes | None:
        return self.repo.blob_at(self.tree, path)

    def files_under(self, folder: str) -> list[str]:
        sub = self.repo.subtree(self.tree, folder)
        if sub is None:
            return []
        prefix = f"{folder.rstrip('/')}/"
        return sorted(p for p, _, is_tree in self.repo.tree_items(sub, prefix) if not is_tree)


class Overlay:
    """``base`` with ``files`` written over it (None removes a file)."""

    def __init__(self, base: TreeView, files: Mapping[str, bytes | None]) -> None:
        self.base = base
        self.files = dict(files)

    def read(self, path: str) -> bytes | None:
        if path in self.files:
            return self.files[path]
        return self.base.read(path)

    def files_under(self, folder: str) -> list[str]:
        prefix = f"{folder.rstrip('/')}/"
        found = set(self.base.files_under(folder))
        for path, data in self.files.items():
            if path.startswith(prefix):
                (found.add if data is not None else found.discard)(path)
        return sorted(found)
