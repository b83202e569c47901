"""HTTP to an Arweave gateway (arweave.net, an ar.io node, arlocal): stdlib only.

Every network failure becomes a :class:`SyncError` naming the gateway, here at the
boundary; callers see our errors, never urllib's.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawql_git.errors import NotFound, SyncError

TIMEOUT = 60.0
PAGE = 100

_QUERY = """
query($tags: [TagFilter!], $owners: [String!], $after: String, $first: Int) {
  transactions(tags: $tags, owners: $owners, first: $first, after: $after, sort: HEIGHT_ASC) {
    pageInfo { hasNextPage }
    edges { cursor node {
      id owner { address } data { size } tags { name value } block { height }
    } }
  }
}
"""


@dataclass(frozen=True)
class Found:
    """One transaction a GraphQL query returned (``height`` None while pending)."""

    id: str
    owner: str
    size: int
    tags: Mapping[str, str]
    height: int | None

    @property
    def order(self) -> tuple[int, int, str]:
        """Earliest block first, pending last, then the lowest id: every reader agrees."""
        return (self.height is None, self.height or 0, self.id)


class Gateway:
    """A gateway's HTTP API: tx headers and data, chunks, price, anchor, GraphQL."""

    def __init__(self, url: str, timeout: float = TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """One HTTP exchange; (status, body). Unreachable gateways raise SyncError."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        req = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as reply:
                return int(reply.status), bytes(reply.read())
        except urllib.error.HTTPError as exc:
            return int(exc.code), bytes(exc.read() or b"")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise SyncError(f"Arweave gateway {self.url} unreachable: {reason}") from exc

    def ok(self, method: str, path: str, body: Any = None) -> bytes:
        """Like :meth:`request`, but anything but 2xx is a SyncError (404: NotFound)."""
        status, reply = self.request(method, path, body)
        if status == 404:
            raise NotFound(f"{path} not found on Arweave gateway {self.url}")
        if not 200 <= status < 300:
            text = reply[:300].decode(errors="replace")
            raise SyncError(
                f"Arweave gateway {self.url} refused {method} {path}: HTTP {status} {text}"
            )
        return reply

    def json(self, method: str, path: str, body: Any = None) -> Any:
        """A 2xx JSON answer, parsed."""
        reply = self.ok(method, path, body)
        try:
            return json.loads(reply)
        except ValueError as exc:
            raise SyncError(f"Arweave gateway {self.url}: {path} is not JSON") from exc

    def text(self, path: str) -> str:
        """A 2xx plain-text answer (``/price``, ``/tx_anchor``)."""
        return self.ok("GET", path).decode().strip()

    def find(self, tags: Mapping[str, str], owners: Sequence[str] = ()) -> Iterator[Found]:
        """Every transaction carrying all of ``tags`` (from ``owners`` if given), paged."""
        variables: dict[str, Any] = {
            "tags": [{"name": k, "values": [v]} for k, v in tags.items()],
            "owners": list(owners) or None,
            "after": None,
            "first": PAGE,
        }
        while True:
            page = self.json("POST", "/graphql", {"query": _QUERY, "variables": variables})
            if page.get("errors"):
                raise SyncError(f"Arweave gateway {self.url} GraphQL: {page['errors'][0]}")
            conn = page["data"]["transactions"]
            for edge in conn["edges"]:
                yield _found(edge["node"])
            if not conn["pageInfo"]["hasNextPage"] or not conn["edges"]:
                return
            variables["after"] = conn["edges"][-1]["cursor"]


def _found(node: Mapping[str, Any]) -> Found:
    tags: dict[str, str] = {}
    for tag in node.get("tags") or []:
        tags.setdefault(str(tag["name"]), str(tag["value"]))
    block = node.get("block") or {}
    height = block.get("height")
    return Found(
        str(node["id"]),
        str((node.get("owner") or {}).get("address", "")),
        int((node.get("data") or {}).get("size") or 0),
        tags,
        None if height is None else int(height),
    )
