"""Workspaces: several vaults mounted under names with a scope (personal, team, org), recall over
all of them, and ingest routed to one of them by entry type. A vault is only ever written
through its own repository (a URL mount is a clone that pushes), so the hosting site's
permissions are the access control."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli_w

from clawql_git.config import read_toml, user_config_path
from clawql_git.errors import (
    ClawqlError,
    InvalidInput,
    NotAVault,
    NotFound,
    StorageError,
    SyncError,
)
from clawql_git.gitstore.gitcli import git_message, run_git
from clawql_git.workspace.mount import SCOPES, Mount, is_url, open_mount, open_vault

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.writer import WriteResult
    from clawql_git.workspace.recall import WorkspaceRecall

ENV_WORKSPACE = "CLAWQL_WORKSPACE"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def workspace_path(env: Mapping[str, str] | None = None) -> Path:
    """``$CLAWQL_WORKSPACE``, else ``workspace.toml`` beside the user config (XDG)."""
    env = os.environ if env is None else env
    given = env.get(ENV_WORKSPACE, "").strip()
    return Path(given).expanduser() if given else user_config_path(env).parent / "workspace.toml"


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """Where URL mounts are cloned: ``$XDG_CACHE_HOME/clawql/workspace`` (else ~/.cache)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache")
    return Path(base) / "clawql" / "workspace"


@dataclass(frozen=True)
class WorkspaceWrite:
    """An ingest through the workspace: which vault took it and whether it was pushed."""

    vault: str
    scope: str
    routed_by: str  # "--to", "type <t>", "default", "only vault"
    result: WriteResult
    pushed: bool | None = None  # None for a local mount

    def to_record(self) -> dict[str, Any]:
        return {
            "vault": self.vault,
            "scope": self.scope,
            "routed_by": self.routed_by,
            "pushed": self.pushed,
            **self.result.to_record(),
            "warning": self.result.warning or None,
        }


@dataclass
class Workspace:
    """The mounts and routing rules of ``workspace.toml``; every change is saved at once."""

    path: Path
    mounts: dict[str, Mount] = field(default_factory=dict)
    routes: dict[str, str] = field(default_factory=dict)  # entry type -> mount name
    default: str = ""
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    # Vaults opened by this workspace object, kept so repeated recalls reuse their open
    # indexes (a CLI call opens each once anyway); never shared between workspaces.
    opened: dict[str, Vault] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------ load / save

    @classmethod
    def load(cls, path: Path | None = None, env: Mapping[str, str] | None = None) -> Workspace:
        """Read the workspace (an absent file is an empty workspace)."""
        env = dict(os.environ if env is None else env)
        where = path or workspace_path(env)
        data = read_toml(where)
        mounts = {
            name: _mount(where, name, table) for name, table in (data.get("mounts") or {}).items()
        }
        routing = data.get("routing") or {}
        routes = {str(k): str(v) for k, v in (routing.get("types") or {}).items()}
        return cls(where, mounts, routes, str(routing.get("default") or ""), env)

    def save(self) -> None:
        """Write the file atomically (a temporary file renamed over it)."""
        mounts = {
            m.name: {"source": m.source, "scope": m.scope, "path": str(m.path)}
            for m in self.mounts.values()
        }
        routing: dict[str, Any] = {"types": dict(sorted(self.routes.items()))}
        if self.default:
            routing["default"] = self.default
        data = tomli_w.dumps({"mounts": mounts, "routing": routing}).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, self.path)

    # ------------------------------------------------------------ mounts

    def add(self, name: str, source: str, scope: str) -> Mount:
        """Mount a vault folder, or clone a vault URL into the cache and mount the clone."""
        _check_name(name)
        if scope not in SCOPES:
            raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
        if name in self.mounts:
            raise InvalidInput(f"a vault is already mounted as {name!r}; remove it first")
        if is_url(source):
            path = self._clone(name, source)
        else:
            path = Path(source).expanduser().resolve()
            open_vault(path)  # refuse a folder that is not a vault, before saving anything
        mount = Mount(name, source if is_url(source) else str(path), scope, path)
        self.mounts[name] = mount
        if not self.default and scope == "personal":
            self.default = name
        self.save()
        return mount

    def _clone(self, name: str, url: str) -> Path:
        """Clone ``url`` into the cache the way ``clawql memory clone`` does (one code path: a
        bare remote whose HEAD names an empty ``master`` works, hooks and merge driver are
        installed, git's checkout is the work-tree baseline) and build its index."""
        from clawql_git.team.sharing import clone
        from clawql_git.vault.setup import install_hooks, is_vault

        digest = hashlib.sha256(url.encode()).hexdigest()[:12]
        target = cache_root(self.env) / f"{name}-{digest}"
        if (target / ".git").exists():  # cloned before: mount it again as it is
            install_hooks(open_vault(target).store)
            return target
        try:
            clone(url, target).close()
        except NotAVault:
            raise
        except ClawqlError:
            if not is_vault(target):
                raise  # the clone itself failed (clone removed what it wrote)
            # Only the index build failed: fail open, the first recall retries or reports it.
        return target

    def remove(self, name: str) -> Mount:
        """Unmount (the vault and any cached clone are left on disk) and drop its routes."""
        mount = self.get(name)
        del self.mounts[name]
        self.opened.pop(name, None)
        self.routes = {t: n for t, n in self.routes.items() if n != name}
        if self.default == name:
            self.default = ""
        self.save()
        return mount

    def get(self, name: str) -> Mount:
        if name not in self.mounts:
            known = ", ".join(sorted(self.mounts)) or "none"
            raise NotFound(f"no vault mounted as {name!r} (mounted: {known})")
        return self.mounts[name]

    # ------------------------------------------------------------ routing

    def set_routes(
        self, rules: Mapping[str, str], default: str | None = None, clear: tuple[str, ...] = ()
    ) -> None:
        """Route entry types to mounts (``{"decision": "team"}``), set the default, or clear
        the rules of some types; every name must be mounted."""
        for entry_type, name in rules.items():
            if not entry_type.strip():
                raise InvalidInput("a route needs an entry type: TYPE=NAME")
            self.get(name)
        if default:
            self.get(default)
        for entry_type in clear:
            self.routes.pop(entry_type, None)
        self.routes.update(rules)
        if default:
            self.default = default
        self.save()

    def target(self, entry_type: str, to: str | None = None) -> tuple[Mount, str]:
        """The mount an entry of ``entry_type`` goes to, and which rule chose it."""
        if to:
            return self.get(to), "--to"
        if entry_type in self.routes:
            return self.get(self.routes[entry_type]), f"type {entry_type}"
        if self.default:
            return self.get(self.default), "default"
        if len(self.mounts) == 1:
            return next(iter(self.mounts.values())), "only vault"
        raise InvalidInput(
            f"no route for type {entry_type!r}: pass --to NAME, or set one with "
            "`clawql workspace route TYPE=NAME` or `--default NAME`"
        )

    def to_record(self) -> dict[str, Any]:
        return {
            "workspace": str(self.path),
            "mounts": [m.to_record() for m in self.mounts.values()],
            "routes": dict(sorted(self.routes.items())),
            "default": self.default or None,
        }

    # ------------------------------------------------------------ recall / ingest

    def recall(
        self, text: str, identity: Identity | None = None, **options: Any
    ) -> WorkspaceRecall:
        """Recall from every mounted vault (see ``workspace_recall``)."""
        from clawql_git.workspace.recall import recall_all

        return recall_all(list(self.mounts.values()), self.opened, text, identity, options)

    def ingest(self, *, type: str, to: str | None = None, **fields: Any) -> WorkspaceWrite:
        """``Vault.ingest`` into the vault the routing rules (or ``to``) choose."""
        return self._routed(type, to, lambda vault: vault.ingest(type=type, **fields))

    def ingest_markdown(
        self,
        text: str | bytes,
        *,
        to: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> WorkspaceWrite:
        """``Vault.ingest_markdown`` routed by the document's type (an override wins)."""
        entry_type = str((overrides or {}).get("type") or _frontmatter_type(text))
        return self._routed(
            entry_type,
            to,
            lambda vault: vault.ingest_markdown(text, overrides=overrides, **fields),
        )

    def _routed(
        self, entry_type: str, to: str | None, write: Callable[[Vault], WriteResult]
    ) -> WorkspaceWrite:
        """Write through the chosen vault's own repository; a URL mount is brought up to date
        first and its branch pushed after (the remote decides who may write)."""
        mount, why = self.target(entry_type, to)
        vault = open_mount(mount)
        if mount.remote:
            _git(mount.path, "pull", "--ff-only", "--quiet")
        with vault:
            result = write(vault)
        pushed = None
        if mount.remote and not result.noop:
            branch = result.branch or vault.store.head_ref_name().removeprefix("refs/heads/")
            _push(mount, branch)
            pushed = True
        return WorkspaceWrite(mount.name, mount.scope, why, result, pushed)

    def pull(self, names: tuple[str, ...] = ()) -> dict[str, str]:
        """Bring URL mounts up to date (``git pull --ff-only``); name -> "updated" or why not."""
        out: dict[str, str] = {}
        for mount in [self.get(n) for n in names] or list(self.mounts.values()):
            if not mount.remote:
                out[mount.name] = "local folder: nothing to pull"
                continue
            try:
                _git(mount.path, "pull", "--ff-only", "--quiet")
                out[mount.name] = "updated"
            except SyncError as exc:
                out[mount.name] = f"not updated: {exc.message}"
        return out


def _frontmatter_type(text: str | bytes) -> str:
    """The type a document declares (validation proper happens in the vault's ingest)."""
    from clawql_git.model.entry import decode_text, parse_yaml_mapping, split_frontmatter

    doc = decode_text(text, "document") if isinstance(text, bytes) else text
    fm, _ = split_frontmatter(doc)
    meta = parse_yaml_mapping(fm) if fm is not None else {}
    if not meta.get("type"):
        raise InvalidInput("the document has no type: give --type or a type in its frontmatter")
    return str(meta["type"])


def _mount(where: Path, name: str, table: Any) -> Mount:
    """One ``[mounts.NAME]`` table, checked (a hand-edited file gets a clear error)."""
    if not isinstance(table, dict) or not all(k in table for k in ("source", "scope", "path")):
        raise InvalidInput(f"{where}: [mounts.{name}] needs source, scope and path")
    return Mount(name, str(table["source"]), str(table["scope"]), Path(str(table["path"])))


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise InvalidInput(
            f"mount name {name!r} must be lowercase letters, digits, '-' or '_' (at most 64)"
        )


def _push(mount: Mount, branch: str) -> None:
    try:
        _git(mount.path, "push", "--quiet", "origin", f"refs/heads/{branch}:refs/heads/{branch}")
    except SyncError as exc:
        raise SyncError(
            f"committed in the local clone {mount.path}, but {mount.source} refused the push "
            f"of {branch}: {exc.message}"
        ) from exc


def _git(cwd: Path, *args: str) -> str:
    """Run real git (clone, pull, push go through the user's git and its credentials)."""
    try:
        result = run_git(cwd, args, timeout=600)
    except StorageError as exc:
        raise SyncError(exc.message) from exc
    if result.returncode != 0:
        raise SyncError(f"git {args[0]} failed: {git_message(result)}")
    return result.stdout
