"""Settings, resolved at the entry points: flag > CLAWQL_* env > vault.toml > user > default."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, TypedDict

from clawql_git.errors import InvalidInput

VAULT_TOML = ".clawql/vault.toml"


@dataclass(frozen=True)
class Settings:
    """Tunable behaviour of a vault; every field can come from any configuration layer."""

    max_body_bytes: int = 1024 * 1024
    max_frontmatter_bytes: int = 64 * 1024  # the whole YAML block
    max_field_bytes: int = 4 * 1024  # each field a catalog line repeats (title, description)
    recent_entries: int = 10
    log_page_lines: int = 50
    fsync: bool = False
    agent_id: str = "unknown-agent"
    session_id: str = ""
    embedding_model: str = ""  # "" = the packaged MiniLM when installed; "none" turns vectors off
    record_recalls: bool = True  # MEMORY_RECALL events on refs/clawql/audit
    signing_key: str = ""  # SSH private key for signed engine commits (--sign)
    duplicate_check: bool = True  # an ingest names the entries it repeats or contradicts
    duplicate_threshold: float = 0.61  # = model/claims.py DUPLICATE_THRESHOLD (a test checks)
    code_repo: str = ""  # the repository whose code graph recall searches ("" = the attached one)
    onyx_url: str = ""  # Onyx's API root (http://host:8080/api); "" = no Onyx layer
    onyx_api_key: str = ""  # Onyx API key: from the environment or user config, never vault.toml

    def with_overrides(self, values: Mapping[str, Any]) -> Settings:
        """Return a copy with the known, non-None keys of ``values`` applied (type-checked)."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in values.items():
            if value is None or key not in known:
                continue
            changes[key] = _coerce(key, value, type(getattr(self, key)))
        return replace(self, **changes)


class SettingsOptions(TypedDict, total=False):
    """``Settings`` fields as keyword arguments (``Vault.open(path, agent_id=..., fsync=True)``);
    a test keeps the two in step."""

    max_body_bytes: int
    max_frontmatter_bytes: int
    max_field_bytes: int
    recent_entries: int
    log_page_lines: int
    fsync: bool
    agent_id: str
    session_id: str
    embedding_model: str
    record_recalls: bool
    signing_key: str
    duplicate_check: bool
    duplicate_threshold: float
    code_repo: str
    onyx_url: str
    onyx_api_key: str


def _coerce(key: str, value: Any, kind: type) -> Any:
    if isinstance(value, kind):
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"setting {key!r} must be {kind.__name__}, got {value!r}")
    try:
        if kind is bool:
            return value.strip().lower() in ("1", "true", "yes", "on")
        return kind(value)
    except ValueError as exc:
        raise InvalidInput(f"setting {key!r} must be {kind.__name__}, got {value!r}") from exc


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(Settings):
        name = "CLAWQL_" + f.name.upper()
        if name in env:
            out[f.name] = env[name]
    return out


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file, or return {} when it does not exist."""
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{path}: not valid TOML: {exc}") from exc


def user_config_path(env: Mapping[str, str]) -> Path:
    """Where the per-user config lives (XDG)."""
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "clawql" / "config.toml"


def resolve_settings(
    vault_root: Path | None,
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve settings for a vault from every layer, highest precedence last applied."""
    env = os.environ if env is None else env
    settings = Settings().with_overrides(read_toml(user_config_path(env)).get("settings", {}))
    if vault_root is not None:
        vault_toml = read_toml(vault_root / VAULT_TOML)
        settings = settings.with_overrides(vault_toml.get("settings", {}))
    settings = settings.with_overrides(_env_layer(env))
    return settings.with_overrides(flags or {})
