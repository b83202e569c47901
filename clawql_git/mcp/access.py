"""Who may reach the MCP server over HTTP: the bearer token (required off loopback) and the
Host/Origin allow-list that keeps DNS rebinding out (always on)."""

from __future__ import annotations

import hmac
import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from clawql_git.errors import InvalidInput

TOKEN_ENV = "CLAWQL_MCP_TOKEN"
MIN_TOKEN_CHARS = 24
MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
# the names a client on this machine uses; a rebinding page's Host is its own name, never these
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
_HOST_NAME = re.compile(
    r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?$"
)


def is_loopback(host: str) -> bool:
    """Whether the address the server binds is this machine only (127/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        addr = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False  # a name: it may resolve to any interface
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped.is_loopback
    return addr.is_loopback


@dataclass(frozen=True)
class HttpAccess:
    """The checks of one HTTP server: its token (None: open, loopback only) and the Host values
    its clients may send (Origin: the same hosts over http or https)."""

    url: str
    token: str | None
    allowed_hosts: tuple[str, ...]

    def transport_security(self) -> TransportSecuritySettings:
        """The SDK's Host/Origin checks, on whatever address the server binds (the SDK leaves
        them off for any host but the three loopback spellings)."""
        origins = [
            f"{scheme}://{host}" for host in self.allowed_hosts for scheme in ("http", "https")
        ]
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(self.allowed_hosts),
            allowed_origins=origins,
        )

    def auth_settings(self) -> AuthSettings | None:
        """The SDK's bearer check when a token is set. The server issues its own static token:
        no OAuth routes are mounted (no provider, no resource URL), so the issuer is itself."""
        if self.token is None:
            return None
        return AuthSettings(issuer_url=self.url, resource_server_url=None)  # type: ignore[arg-type]

    def token_verifier(self) -> StaticToken | None:
        """What checks ``Authorization: Bearer`` on every request (401 otherwise)."""
        return None if self.token is None else StaticToken(self.token)


class StaticToken:
    """The SDK's ``TokenVerifier`` for one shared token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        """An ``AccessToken`` for the right token, None (401) for any other."""
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="clawql-token", scopes=[])
        return None


def http_access(
    host: str,
    port: int,
    token_file: str | None = None,
    env_token: str | None = None,
    allow_hosts: Sequence[str] = (),
) -> HttpAccess:
    """The checks for ``clawql mcp serve --http`` on ``host:port``; off loopback without a
    token, or with a bad token or Host name, ``InvalidInput`` before anything binds."""
    token = read_token(token_file, env_token)
    if token is None and not is_loopback(host):
        raise InvalidInput(
            f"refusing to serve MCP on {host}: off loopback the server needs a bearer token "
            f"(--token-file PATH or ${TOKEN_ENV}; make one with {MAKE_TOKEN}); "
            "or serve on 127.0.0.1"
        )
    shown = f"[{host}]" if ":" in host else host
    return HttpAccess(f"http://{shown}:{port}", token, allowed_hosts(host, port, allow_hosts))


def read_token(token_file: str | None, env_token: str | None) -> str | None:
    """The token from ``token_file`` (first) or the environment, stripped; None when neither
    gives one. A token file that cannot be read, or a short token, is ``InvalidInput``."""
    where = f"--token-file {token_file}" if token_file else f"${TOKEN_ENV}"
    if token_file:
        try:
            text: str | None = Path(token_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read the token: {where}: {exc}") from exc
    else:
        text = env_token
    if text is None or (token_file is None and not text.strip()):
        return None
    token = text.strip()
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise InvalidInput(
            f"the token from {where} must be one word of at least {MIN_TOKEN_CHARS} characters "
            f"(make one with {MAKE_TOKEN})"
        )
    return token


def allowed_hosts(host: str, port: int, extra: Sequence[str]) -> tuple[str, ...]:
    """The Host values to accept: the loopback names, the bound address unless it is a
    wildcard, and each ``--allow-host`` (as given, and with the port when it has none)."""
    hosts = list(LOOPBACK_HOSTS)
    if host not in WILDCARD_BINDS:
        hosts.append(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    for name in extra:
        match = _HOST_NAME.match(name)
        if match is None:
            raise InvalidInput(f"--allow-host {name!r} is not a host name or host:port")
        hosts.extend([name] if match.group(2) else [name, f"{name}:{port}"])
    return tuple(dict.fromkeys(hosts))
