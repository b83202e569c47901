"""libgit2 keeps the trees a vault's paths are looked up in, whatever their size (by default
it keeps none over 4 KB, and every lookup in a folder of a few hundred entries parsed that
folder again)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from clawql_git.gitstore.repo import Repo


def _repo_with_a_large_folder(root: Path, files: int) -> Path:
    folder = root / "decisions"
    folder.mkdir(parents=True)
    for i in range(files):
        (folder / f"{i:04d}-a-decision-with-a-long-enough-name.md").write_text(f"# {i}\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "x"],
        check=True,
    )
    return root


def test_a_folder_tree_over_4_kb_stays_cached_after_a_path_lookup(tmp_path: Path) -> None:
    root = _repo_with_a_large_folder(tmp_path / "v", 400)
    repo = Repo(pygit2.Repository(str(root)))
    tree = repo.repo.head.peel(pygit2.Commit).tree
    size = ["git", "-C", str(root), "cat-file", "-s", "HEAD:decisions"]
    folder_size = int(subprocess.run(size, check=True, capture_output=True, text=True).stdout)
    assert folder_size > 4096 * 4
    before = pygit2.settings.cached_memory[0]
    blob = repo.blob_id_at(tree, "decisions/0123-a-decision-with-a-long-enough-name.md")
    assert blob
    grew = pygit2.settings.cached_memory[0] - before
    assert grew >= folder_size, f"the cache grew by {grew} bytes; the tree is {folder_size}"
