"""Module specifiers of JS/TS imports -> repository files, the way TypeScript and Node look.

Relative specifiers (``./util``) try the exact file, then the source extensions, then
the directory's ``package.json`` ``main``, then ``util/index.*`` (``'../'`` of ``test/x.js``
is the root's ``index.js``), as Node's ``require`` looks; a ``.js``/``.jsx``/``.mjs``/``.cjs``
specifier also finds the TypeScript source it is compiled from (``./util.js`` -> ``util.ts``).
Bare specifiers go through the
nearest ``tsconfig.json``/``jsconfig.json`` ``compilerOptions.paths`` and ``baseUrl``
(one level of relative ``extends`` followed); anything else (``express``, ``node:fs``,
``@scope/pkg``) is external: [].
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field

from clawql_git.codegraph.model import RepoView

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
COMPILED_FROM = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True)
class PathConfig:
    """``baseUrl`` (repository-relative directory, or None) and ``paths`` of one tsconfig."""

    base: str | None
    paths: dict[str, list[str]] = field(default_factory=dict)
    root: str = ""  # the directory the paths are relative to


def parse_jsonc(raw: bytes) -> dict[str, object]:
    """tsconfig is JSON with comments and trailing commas; {} when it cannot be read."""
    cleaned = _JSONC.sub(lambda m: m.group(1) or "", raw.decode("utf-8", "replace"))
    try:
        value = json.loads(_TRAILING_COMMA.sub(r"\1", cleaned))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def candidates(base: str, files: frozenset[str]) -> list[str]:
    """The file ``base`` (no or any extension) denotes, or [] when none exists."""
    return as_file(base, files) or as_index(base, files)


def as_file(base: str, files: frozenset[str]) -> list[str]:
    """``base`` itself, the TypeScript source of a ``.js`` name, or ``base`` + an extension."""
    if base in files:
        return [base]
    stem, ext = posixpath.splitext(base)
    for source_ext in COMPILED_FROM.get(ext, ()):
        if stem + source_ext in files:
            return [stem + source_ext]
    for ext in EXTENSIONS:
        if base + ext in files:
            return [base + ext]
    return []


def as_index(base: str, files: frozenset[str]) -> list[str]:
    """The ``index.*`` of the directory ``base`` ('' is the repository root)."""
    for ext in EXTENSIONS:
        index = f"{base}/index{ext}" if base else f"index{ext}"
        if index in files:
            return [index]
    return []


class JsResolver:
    """Resolves specifiers; tsconfig lookups are cached for the repository last seen."""

    def __init__(self) -> None:
        self._repo: RepoView | None = None
        self._configs: dict[str, PathConfig | None] = {}

    def resolve(self, importer: str, module: str, repo: RepoView) -> list[str]:
        """Files of ``repo`` that ``module`` (as written in ``importer``) denotes."""
        if not module or module.startswith("node:"):
            return []
        directory = posixpath.dirname(importer)
        if module.startswith("."):
            target = _relative(posixpath.join(directory, module))  # '../' of test/: the root
            if target.startswith(".."):
                return []
            return (
                as_file(target, repo.files)
                or _package_main(target, repo)
                or as_index(target, repo.files)
            )
        config = self._config_for(directory, repo)
        return self._through_config(module, config, repo.files) if config else []

    def _through_config(self, module: str, config: PathConfig, files: frozenset[str]) -> list[str]:
        root = config.base if config.base is not None else config.root
        for pattern, targets in config.paths.items():
            star = _match(pattern, module)
            if star is None:
                continue
            for target in targets:
                joined = posixpath.normpath(posixpath.join(root, target.replace("*", star)))
                found = candidates(_relative(joined), files)
                if found:
                    return found
        if config.base is not None:
            return candidates(posixpath.normpath(posixpath.join(config.base, module)), files)
        return []

    def _config_for(self, directory: str, repo: RepoView) -> PathConfig | None:
        if repo is not self._repo:
            self._repo, self._configs = repo, {}
        if directory in self._configs:
            return self._configs[directory]
        config = None
        for name in CONFIG_NAMES:
            path = posixpath.join(directory, name) if directory else name
            if path in repo.files or _exists(repo, path):
                config = _load(repo, path)
                break
        if config is None and directory:
            config = self._config_for(posixpath.dirname(directory), repo)
        self._configs[directory] = config
        return config


def _package_main(directory: str, repo: RepoView) -> list[str]:
    """The file a directory's ``package.json`` names as ``main``: Node loads it before the
    directory's ``index.js``; [] when there is none."""
    manifest = posixpath.join(directory, "package.json") if directory else "package.json"
    if manifest not in repo.files and not _exists(repo, manifest):
        return []
    try:
        main = parse_jsonc(repo.read(manifest)).get("main")
    except (OSError, KeyError, ValueError):
        return []
    if not isinstance(main, str) or not main:
        return []
    return candidates(_relative(posixpath.join(directory, main)), repo.files)


def _exists(repo: RepoView, path: str) -> bool:
    """tsconfig.json is rarely an indexed file; ask the repository for its bytes."""
    try:
        repo.read(path)
    except (OSError, KeyError, ValueError):
        return False
    return True


def _load(repo: RepoView, path: str, depth: int = 0) -> PathConfig:
    directory = posixpath.dirname(path)
    try:
        data = parse_jsonc(repo.read(path))
    except (OSError, KeyError, ValueError):
        data = {}
    options = data.get("compilerOptions")
    options = options if isinstance(options, dict) else {}
    parent = data.get("extends")
    inherited = PathConfig(None, {}, directory)
    if isinstance(parent, str) and parent.startswith(".") and depth < 3:
        parent_path = posixpath.normpath(posixpath.join(directory, parent))
        if not parent_path.endswith(".json"):
            parent_path += ".json"
        inherited = _load(repo, parent_path, depth + 1)
    base_url = options.get("baseUrl")
    base = (
        _relative(posixpath.join(directory, base_url))
        if isinstance(base_url, str)
        else inherited.base
    )
    paths = options.get("paths")
    if isinstance(paths, dict):
        table = {
            k: [t for t in v if isinstance(t, str)] for k, v in paths.items() if isinstance(v, list)
        }
        return PathConfig(base, table, directory)
    return PathConfig(base, inherited.paths, inherited.root)


def _relative(path: str) -> str:
    """A normalised repository-relative directory: '' for the root."""
    normal = posixpath.normpath(path)
    return "" if normal == "." else normal


def _match(pattern: str, module: str) -> str | None:
    """What ``*`` matched when ``module`` fits ``pattern`` ('' for an exact pattern)."""
    if "*" not in pattern:
        return "" if pattern == module else None
    prefix, _, suffix = pattern.partition("*")
    if (
        module.startswith(prefix)
        and module.endswith(suffix)
        and len(module) >= len(prefix + suffix)
    ):
        return module[len(prefix) : len(module) - len(suffix)]
    return None
