"""Sync remote settings (the ``[sync]`` section of ``.clawql/vault.toml``) and the backend
factory. Only where the remote is goes into the vault; credentials stay in the environment
(AWS variables and profiles, ``AWS_ENDPOINT_URL``, ``CLAWQL_ARWEAVE_WALLET``,
``CLAWQL_SYNC_KEY``)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.config import VAULT_TOML, read_toml
from clawql_git.errors import InvalidInput, SyncError

if TYPE_CHECKING:
    from clawql_git.model.identity import Identity
    from clawql_git.sync.backend import Backend
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.writer import WriteResult

PROVIDERS = ("s3", "r2", "arweave")
DEFAULT_GATEWAY = "https://arweave.net"


@dataclass(frozen=True)
class RemoteConfig:
    """Where a vault's bundles go. Nothing here is secret."""

    provider: str
    bucket: str = ""
    prefix: str = "clawql"
    endpoint: str = ""
    region: str = ""
    gateway: str = ""
    public: bool = False

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise InvalidInput(f"unknown sync provider {self.provider!r} (use s3, r2 or arweave)")
        if self.provider in ("s3", "r2") and not self.bucket:
            raise InvalidInput(f"provider {self.provider} needs --bucket")
        if self.provider == "r2" and not (self.endpoint or os.environ.get("AWS_ENDPOINT_URL")):
            raise InvalidInput(
                "provider r2 needs --endpoint https://<account>.r2.cloudflarestorage.com "
                "(or AWS_ENDPOINT_URL)"
            )
        for value in (self.endpoint, self.gateway):
            if "@" in value.split("//", 1)[-1].split("/", 1)[0]:
                raise InvalidInput("endpoint URLs must not carry credentials (user:pass@host)")

    def to_toml(self) -> dict[str, Any]:
        """The [sync] table: empty fields left out."""
        return {k: v for k, v in asdict(self).items() if v not in ("", None)}

    @classmethod
    def from_toml(cls, table: Mapping[str, Any]) -> RemoteConfig:
        if "provider" not in table:
            raise InvalidInput(f"the [sync] section of {VAULT_TOML} names no provider")
        text = {k: str(table[k]) for k in cls.__dataclass_fields__ if k in table and k != "public"}
        return cls(public=bool(table.get("public", False)), **text)

    def with_overrides(self, **values: Any) -> RemoteConfig:
        return replace(self, **{k: v for k, v in values.items() if v not in (None, "")})


def load_config(vault: Vault) -> RemoteConfig:
    """The vault's sync remote; a clear error when ``clawql sync init`` was never run."""
    table = read_toml(vault.root / VAULT_TOML).get("sync")
    if not table:
        raise InvalidInput("no sync remote configured: run `clawql sync init --provider ...`")
    return RemoteConfig.from_toml(table)


def save_config(vault: Vault, config: RemoteConfig, identity: Identity | None) -> WriteResult:
    """Record the remote as one vault commit that changes only ``.clawql/vault.toml``."""
    import tomllib

    from clawql_git.vault.writer import Plan

    def prepare(tree: Any) -> Plan:
        current = vault.store.blob_at(tree, VAULT_TOML) or b""
        data = tomllib.loads(current.decode()) if current else {}
        data["sync"] = config.to_toml()
        rendered = vault.write_vault_toml(data)
        subject = f"sync remote {config.provider} {config.bucket or config.gateway}".strip()
        return Plan("MEMORY_SYNC_INIT", {}, subject, raw_files={VAULT_TOML: rendered})

    return vault.writer.write(prepare, vault.writer.identity(identity))


def make_backend(config: RemoteConfig, env: Mapping[str, str] | None = None) -> Backend:
    """The backend for a remote; the Arweave one is imported only when asked for."""
    env = os.environ if env is None else env
    if config.provider in ("s3", "r2"):
        from clawql_git.sync.s3 import S3Backend

        endpoint = config.endpoint or env.get("AWS_ENDPOINT_URL") or None
        return S3Backend(config.bucket, endpoint, config.region or None, config.provider)
    return _arweave(config, env)


def _arweave(config: RemoteConfig, env: Mapping[str, str]) -> Backend:
    try:
        arweave: Any = importlib.import_module("clawql_git.sync.arweave")
    except ImportError as exc:
        raise SyncError(
            "the Arweave backend (clawql_git.sync.arweave) is not installed in this build"
        ) from exc
    wallet = env.get("CLAWQL_ARWEAVE_WALLET")
    key = _sync_key(env) if not config.public else None
    backend: Backend = arweave.ArweaveBackend(
        config.gateway or DEFAULT_GATEWAY,
        Path(wallet).expanduser() if wallet else None,
        public=config.public,
        key=key,
    )
    return backend


def _sync_key(env: Mapping[str, str]) -> bytes | None:
    """CLAWQL_SYNC_KEY as bytes (hex or base64 accepted); the backend says when it is needed."""
    raw = env.get("CLAWQL_SYNC_KEY", "").strip()
    if not raw:
        return None
    import base64
    import binascii

    try:
        return bytes.fromhex(raw)
    except ValueError:
        pass
    try:
        return base64.b64decode(raw, validate=True)
    except binascii.Error as exc:
        raise InvalidInput("CLAWQL_SYNC_KEY must be hex or base64") from exc
