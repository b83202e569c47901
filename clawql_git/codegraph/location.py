"""Where a repository's code graph lives (``locate``), apart from ``graph`` so that a recall
asking whether a graph is attached does not import the indexer and its extractors."""

from __future__ import annotations

import subprocess
from pathlib import Path

from clawql_git.errors import NotFound

DB_NAME = "graph.sqlite"


def locate(path: str | Path) -> tuple[Path, Path]:
    """(work tree root, graph file) for a path: ``$GIT_DIR/clawql/codegraph/`` in a git work
    tree, ``.clawql-codegraph/`` at the directory otherwise."""
    target = Path(path).resolve()
    if not target.is_dir():
        raise NotFound(f"no directory at {path}")
    top = _git(target, "rev-parse", "--show-toplevel")
    if top:
        git_dir = _git(target, "rev-parse", "--absolute-git-dir")
        return Path(top), Path(git_dir) / "clawql" / "codegraph" / DB_NAME
    return target, target / ".clawql-codegraph" / DB_NAME


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""
