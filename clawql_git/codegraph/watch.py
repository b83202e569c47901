"""Keeping the graph current from filesystem events (inotify through watchfiles): a short
debounce, then the changed files are re-parsed and everything that can see them relinked."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from clawql_git.codegraph.csharp_projects import is_project_file
from clawql_git.codegraph.files import EXCLUDED_DIRS, is_git_worktree, language_of
from clawql_git.errors import InvalidInput, optional_layer

if TYPE_CHECKING:
    from clawql_git.codegraph.indexer import Indexer, IndexReport

DEBOUNCE_MS = 50
MAX_DEBOUNCE_MS = 60_000  # a minute of quiet; more overflowed watchfiles (a traceback)


class Watched(Protocol):
    """What the watcher needs of a graph (``CodeGraph`` is one): where it is, its indexer, and
    a way to re-read some files."""

    @property
    def root(self) -> Path: ...

    @property
    def indexer(self) -> Indexer: ...

    def update(self, paths: list[str]) -> IndexReport: ...


def relevant(root: Path, changed: Iterable[str], suffixes: dict[str, str]) -> list[str]:
    """The changed paths (absolute) the graph cares about, repository-relative: indexable
    suffix or a project file the resolver reads (``.csproj``), outside vendored and tool
    directories, not ignored by git."""
    out = []
    for raw in changed:
        try:
            rel = Path(raw).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
        parts = rel.split("/")
        if any(p in EXCLUDED_DIRS or p.startswith(".") for p in parts[:-1]):
            continue
        if language_of(rel, suffixes) or is_project_file(rel):
            out.append(rel)
    if out and is_git_worktree(root):
        ignored = _git_ignored(root, out)
        out = [p for p in out if p not in ignored]
    return sorted(set(out))


def _git_ignored(root: Path, paths: list[str]) -> set[str]:
    done = subprocess.run(
        ["git", "check-ignore", "--stdin", "-z"],
        cwd=root,
        input="\0".join(paths).encode(),
        capture_output=True,
        check=False,
    )
    return {p for p in done.stdout.decode("utf-8", "replace").split("\0") if p}


def watch(
    graph: Watched,
    on_update: Callable[[IndexReport], None] | None = None,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
) -> None:
    """Apply filesystem changes to ``graph`` until ``stop`` is set (or forever). Each update
    that changed the graph is handed to ``on_update`` (the CLI prints it and, with a vault,
    records it on the audit chain)."""
    if not 1 <= debounce_ms <= MAX_DEBOUNCE_MS:
        raise InvalidInput(f"debounce_ms must be 1..{MAX_DEBOUNCE_MS}, got {debounce_ms!r}")
    with optional_layer("the code graph's watcher", "codegraph"):
        from watchfiles import watch as watch_files

    suffixes = graph.indexer.suffixes
    graph.indexer.load()  # so the first edit costs one file, not reading them all
    for batch in watch_files(
        graph.root,
        stop_event=stop,
        debounce=debounce_ms,
        step=20,
        rust_timeout=500,
        yield_on_timeout=False,
    ):
        paths = relevant(graph.root, (p for _, p in batch), suffixes)
        if not paths:
            continue
        report = graph.update(paths)
        if report.changed and on_update is not None:
            on_update(report)
