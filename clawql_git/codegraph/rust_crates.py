"""The crates of a Cargo workspace a Rust file may name: the path dependencies its crate's
``Cargo.toml`` declares (``axum = { path = "../axum" }``, or ``{ workspace = true }`` with the
path in the workspace's ``[workspace.dependencies]``). A dependency without a path (crates.io,
git) is outside the repository."""

from __future__ import annotations

import posixpath
import tomllib
from typing import Any

from clawql_git.codegraph.model import RepoView

TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


class Manifests:
    """The path dependencies of the crates of one repository, read once per manifest."""

    def __init__(self, repo: RepoView) -> None:
        self.repo = repo
        self._read: dict[str, dict[str, Any] | None] = {}
        self._deps: dict[str, dict[str, str]] = {}

    def crate_root(self, crate_dir: str, name: str) -> str | None:
        """The root file (``src/lib.rs``) of the dependency ``name`` (written as in code:
        ``axum_core``) of the crate in ``crate_dir``, when it is a crate of the repository."""
        found = self.dependencies(crate_dir).get(name)
        if found is None:
            return None
        root = posixpath.normpath(posixpath.join(found, "src", "lib.rs"))
        return root if root in self.repo.files else None

    def dependencies(self, crate_dir: str) -> dict[str, str]:
        """Code name -> directory of each path dependency of the crate in ``crate_dir``."""
        if crate_dir not in self._deps:
            self._deps[crate_dir] = self._work_out(crate_dir)
        return self._deps[crate_dir]

    def _work_out(self, crate_dir: str) -> dict[str, str]:
        manifest = self.manifest(crate_dir)
        if manifest is None:
            return {}
        tables = [manifest.get(t, {}) for t in TABLES]
        for target in manifest.get("target", {}).values():
            tables += [target.get(t, {}) for t in TABLES] if isinstance(target, dict) else []
        out: dict[str, str] = {}
        for table in tables:
            for key, spec in table.items() if isinstance(table, dict) else ():
                where = self._path_of(crate_dir, key, spec)
                if where is not None:
                    out.setdefault(key.replace("-", "_"), where)
        return out

    def _path_of(self, crate_dir: str, key: str, spec: object) -> str | None:
        if not isinstance(spec, dict):
            return None
        if isinstance(spec.get("path"), str):
            return posixpath.normpath(posixpath.join(crate_dir, spec["path"]))
        if spec.get("workspace") is not True:
            return None
        workspace = self.workspace(crate_dir)
        if workspace is None:
            return None
        shared = self.manifest(workspace) or {}
        entry = shared.get("workspace", {}).get("dependencies", {}).get(key)
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            return posixpath.normpath(posixpath.join(workspace, entry["path"]))
        return None

    def package_dir(self, directory: str) -> str | None:
        """The directory of the nearest manifest at or above ``directory`` declaring a
        ``[package]`` (an integration test's or an example's own package)."""
        cur = directory
        while True:
            manifest = self.manifest(cur)
            if manifest is not None and "package" in manifest:
                return cur
            if cur in ("", "."):
                return None
            cur = posixpath.dirname(cur)

    def workspace(self, crate_dir: str) -> str | None:
        """The directory of the nearest manifest at or above ``crate_dir`` with a
        ``[workspace]`` table."""
        cur = crate_dir
        while True:
            manifest = self.manifest(cur)
            if manifest is not None and "workspace" in manifest:
                return cur
            if cur in ("", "."):
                return None
            cur = posixpath.dirname(cur)

    def manifest(self, directory: str) -> dict[str, Any] | None:
        """The parsed ``Cargo.toml`` of ``directory`` (None: absent or not TOML)."""
        if directory not in self._read:
            path = posixpath.join(directory, "Cargo.toml") if directory else "Cargo.toml"
            try:
                self._read[directory] = tomllib.loads(self.repo.read(path).decode("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                self._read[directory] = None  # no manifest here: no dependencies known
        return self._read[directory]


def crate_dir(root_file: str) -> str:
    """The directory of the manifest of the crate whose root file is ``root_file``
    (``axum/src/lib.rs`` -> ``axum``; ``build.rs``-style roots: their directory)."""
    directory = posixpath.dirname(root_file)
    return posixpath.dirname(directory) if posixpath.basename(directory) == "src" else directory
