"""Which files of a work tree the code graph reads: git's view (tracked plus untracked, minus
ignored) in a repository, a plain walk elsewhere; vendored trees left out; nested repositories
listed with their own module root; bundled third-party and minified files (``jquery.min.js``,
``wwwroot/lib/``, ``linguist-vendored``) named with the reason they are not read."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from clawql_git.codegraph.model import Extractor
from clawql_git.errors import optional_layer

EXCLUDED_DIRS = frozenset(
    {
        "vendor",
        "node_modules",
        "__pycache__",
        ".git",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".clawql-codegraph",
    }
)
LANGUAGE_MODULES = tuple(
    f"lang_{n}"
    for n in (
        "python",
        "js",
        "go",
        "rust",
        "java",
        "c",
        "cpp",
        "csharp",
        "php",
        "ruby",
        "kotlin",
        "swift",
        "lua",
        "dart",
        "svelte",
        "scala",
        "elixir",
    )
)
MAX_FILE_BYTES = 2_000_000
VENDORED_PATHS = ("wwwroot/lib/", "bower_components/", "jspm_packages/")  # bundled libraries
MINIFIED_NAME = re.compile(r"[.-]min\.[A-Za-z]+$")  # jquery.min.js, bootstrap.bundle.min.js
MINIFIED_HEAD = 32_768  # bytes read to tell a minified file
MINIFIED_MEAN_LINE = 200  # a hand-written script's mean line is far shorter
MINIFIED_SUFFIXES = (".js", ".mjs", ".cjs")  # only scripts ship minified (jsoup's EntitiesData
# .java holds one 30 kB string literal: a source file all the same)
LINGUIST = ("linguist-vendored", "linguist-generated")
SOURCE_SUFFIXES = {  # source files by language: those no loaded extractor reads are skipped
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"), "cpp"),
    ".cs": "csharp",
    ".php": "php",
    **dict.fromkeys((".rb", ".rake"), "ruby"),
    **dict.fromkeys((".kt", ".kts"), "kotlin"),
    ".swift": "swift",
    ".lua": "lua",
    ".dart": "dart",
    ".svelte": "svelte",
    **dict.fromkeys((".scala", ".sc"), "scala"),
    **dict.fromkeys((".ex", ".exs"), "elixir"),
    **dict.fromkeys((".erl", ".hrl"), "erlang"),
    ".hs": "haskell",
    **dict.fromkeys((".ml", ".mli"), "ocaml"),
    **dict.fromkeys((".clj", ".cljs", ".cljc"), "clojure"),
    **dict.fromkeys((".fs", ".fsx"), "fsharp"),
    ".vb": "visual-basic",
    ".groovy": "groovy",
    ".mm": "objective-c",
    ".zig": "zig",
    ".nim": "nim",
    ".jl": "julia",
    ".r": "r",
    ".R": "r",
    **dict.fromkeys((".pl", ".pm"), "perl"),
    ".vue": "vue",
    **dict.fromkeys((".sh", ".bash"), "shell"),
    ".ps1": "powershell",
    ".sql": "sql",
}


@dataclass(frozen=True)
class SourceFile:
    """A file to index: repository-relative path and the nested repository it belongs to."""

    path: str
    module: str  # '' for the top repository, else the nested repository's directory


def load_extractors() -> dict[str, Extractor]:
    """Language name -> extractor, from each ``codegraph.lang_*`` module that is present."""
    out: dict[str, Extractor] = {}
    for name in LANGUAGE_MODULES:
        try:
            with optional_layer("the code graph", "codegraph"):  # tree-sitter and its grammars
                module = importlib.import_module(f"clawql_git.codegraph.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(name):
                continue
            raise
        extractor: Extractor = module.EXTRACTOR
        for language in extractor.suffixes.values():
            out.setdefault(language, extractor)
    return out


def suffix_map(extractors: dict[str, Extractor]) -> dict[str, str]:
    """File suffix -> language."""
    out: dict[str, str] = {}
    for extractor in extractors.values():
        out.update(extractor.suffixes)
    return out


def skipped_files(root: Path, suffixes: dict[str, str]) -> dict[str, int]:
    """Source files under ``root`` that no loaded extractor reads, counted by language
    (a language of the list without its grammar installed counts here too)."""
    unread = {s: lang for s, lang in SOURCE_SUFFIXES.items() if s not in suffixes}
    counts: dict[str, int] = {}
    for found in discover(root, unread):
        language = language_of(found.path, unread)
        counts[language] = counts.get(language, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def is_git_worktree(root: Path) -> bool:
    return (root / ".git").exists()


def _git_files(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-c", "core.quotepath=off", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return []
    return [p for p in done.stdout.decode("utf-8", "replace").split("\0") if p]


def _excluded(path: str) -> bool:
    return any(part in EXCLUDED_DIRS for part in path.split("/")[:-1])


def discover(root: Path, suffixes: dict[str, str], module: str = "") -> Iterator[SourceFile]:
    """Every indexable file under ``root`` (repository-relative to the top ``root``)."""
    prefix = f"{module}/" if module else ""
    if is_git_worktree(root):
        for rel in _git_files(root):
            full = root / rel
            if rel.endswith("/") or (full.is_dir() and (full / ".git").exists()):
                nested = rel.rstrip("/")
                if not _excluded(nested + "/x") and (full / ".git").exists():
                    yield from discover(full, suffixes, prefix + nested)
                continue
            if _wanted(rel, suffixes) and not _excluded(rel):
                yield SourceFile(prefix + rel, module)
        return
    yield from _walk(root, suffixes, module, prefix)


def _walk(root: Path, suffixes: dict[str, str], module: str, prefix: str) -> Iterator[SourceFile]:
    for folder, dirs, names in os.walk(root):
        rel_dir = Path(folder).relative_to(root).as_posix()
        here = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for d in sorted(dirs):
            if d in EXCLUDED_DIRS or d.startswith("."):
                continue
            if (Path(folder) / d / ".git").exists():
                yield from discover(Path(folder) / d, suffixes, prefix + here + d)
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(names):
            if _wanted(name, suffixes):
                yield SourceFile(prefix + here + name, module)


def _wanted(path: str, suffixes: dict[str, str]) -> bool:
    return os.path.splitext(path)[1] in suffixes


def language_of(path: str, suffixes: dict[str, str]) -> str:
    return suffixes.get(os.path.splitext(path)[1], "")


def vendored_reason(root: Path, path: str) -> str:
    """Why a file is a bundled or minified copy rather than the repository's own source
    ('' when it is source): a library directory (``wwwroot/lib/``, ``bower_components/``), a
    ``.min.`` name, or a minified script (its first MINIFIED_HEAD bytes have a mean line
    longer than MINIFIED_MEAN_LINE characters; only scripts are read for it)."""
    where = "/" + path
    library = next((d for d in VENDORED_PATHS if f"/{d}" in where), "")
    if library:
        return f"vendored ({library})"
    if MINIFIED_NAME.search(path):
        return "minified (.min. name)"
    if not path.endswith(MINIFIED_SUFFIXES):
        return ""
    head = _head(root / path)
    if len(head) >= 4096 and len(head) / (head.count(b"\n") + 1) > MINIFIED_MEAN_LINE:
        return "minified (long lines)"
    return ""


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(MINIFIED_HEAD)
    except OSError:
        return b""


def linguist_marked(root: Path, paths: list[str]) -> dict[str, str]:
    """The paths ``.gitattributes`` marks ``linguist-vendored`` or ``linguist-generated``
    (GitHub's convention), with that attribute as the reason; {} outside a repository."""
    if not paths or not is_git_worktree(root):
        return {}
    done = subprocess.run(
        ["git", "check-attr", "-z", "--stdin", *LINGUIST],
        cwd=root,
        input="\0".join(paths).encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return {}
    fields = done.stdout.decode("utf-8", "replace").split("\0")
    out: dict[str, str] = {}
    for i in range(0, len(fields) - 2, 3):
        path, attribute, value = fields[i : i + 3]
        if value in ("set", "true") and path not in out:
            out[path] = attribute
    return out
