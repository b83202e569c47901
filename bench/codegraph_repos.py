"""The real repositories the code-graph benches run on (bench/codegraph_repos.json): one per
language, each pinned to a commit, checked out from a local mirror into a temporary directory.

Mirrors are found at ``/work/.mirror/OWNER+NAME/repo`` (where the fetch tool leaves them) or in
the directory given by ``--mirrors`` / ``$CLAWQL_BENCH_MIRRORS`` as ``OWNER+NAME`` or ``NAME``;
nothing is downloaded here. None of their code is committed to this repository.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "codegraph_repos.json"
MIRRORS = Path(os.environ.get("CLAWQL_BENCH_MIRRORS", "/work/.mirror"))

# One name per language, whichever tool reports it (codegraph splits tsx/jsx out, luau).
LANGUAGE_ALIASES = {"tsx": "typescript", "jsx": "javascript", "luau": "lua", "c_sharp": "csharp"}


@dataclass(frozen=True)
class BenchRepo:
    """One pinned repository: ``owner/name``, the commit, the languages it stands for."""

    repo: str
    commit: str
    languages: tuple[str, ...]

    @property
    def name(self) -> str:
        """The short name (``chi`` for ``go-chi/chi``)."""
        return self.repo.split("/", 1)[1]


def load(path: Path = DEFAULT, only: list[str] | None = None) -> list[BenchRepo]:
    """The repositories listed in ``path``; ``only`` keeps those whose name, ``owner/name`` or
    one of whose languages is given."""
    data = json.loads(path.read_text())
    out = [BenchRepo(r["repo"], r["commit"], tuple(r.get("languages", ()))) for r in data["repos"]]
    if only:
        wanted = {w.lower() for w in only}
        out = [
            r
            for r in out
            if r.name.lower() in wanted
            or r.repo.lower() in wanted
            or wanted & {lang.lower() for lang in r.languages}
        ]
    return out


def mirror_of(repo: BenchRepo, mirrors: Path = MIRRORS) -> Path:
    """The local git directory holding ``repo``; raises FileNotFoundError naming what to fetch."""
    slug = repo.repo.replace("/", "+")
    for candidate in (
        mirrors / slug / "repo",
        mirrors / slug / "repo" / ".git",
        mirrors / slug,
        mirrors / repo.name,
    ):
        if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
            return candidate
    raise FileNotFoundError(
        f"no mirror of {repo.repo} under {mirrors}: fetch github:{repo.repo} "
        f"(or git clone https://github.com/{repo.repo} {mirrors / slug / 'repo'})"
    )


def checkout(repo: BenchRepo, into: Path, label: str = "", mirrors: Path = MIRRORS) -> Path:
    """A fresh working tree of ``repo`` at its pinned commit (a ``--shared`` clone, so the
    history is there for tools that read it) in ``into/NAME[-label]``."""
    src = mirror_of(repo, mirrors)
    dst = into / (repo.name + (f"-{label}" if label else ""))
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(src), str(dst)], check=True
    )
    subprocess.run(
        ["git", "-c", "advice.detachedHead=false", "checkout", "-q", repo.commit],
        cwd=dst,
        check=True,
    )
    return dst


def language(name: str) -> str:
    """The one name of a language, whichever tool reported it."""
    return LANGUAGE_ALIASES.get(name, name)
