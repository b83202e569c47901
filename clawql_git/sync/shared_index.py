"""A shared read-only index for teams: the LanceDB index of ``main`` published to object storage
(``s3://bucket/prefix``), and a reader that queries it there with LanceDB's object-store
support, without a local vault.

Layout: ``<prefix>/<commit>/...`` holds the index directory as built for that commit (written
once, ``published.json`` last), and ``<prefix>/current.json`` points at the newest one, so a
reader never sees half an index."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from clawql_git.errors import InvalidInput, StorageError, SyncError, VaultStateError
from clawql_git.sync.manifest import MAIN_REF

if TYPE_CHECKING:
    from clawql_git.vault.facade import Vault

POINTER = "current.json"
DONE = "published.json"


@dataclass(frozen=True)
class IndexLocation:
    """``s3://bucket/prefix`` split in two."""

    bucket: str
    prefix: str

    @classmethod
    def parse(cls, uri: str) -> IndexLocation:
        if not uri.startswith("s3://") or not uri[5:].split("/", 1)[0]:
            raise InvalidInput(f"a shared index lives at s3://bucket/prefix, not {uri!r}")
        bucket, _, prefix = uri[5:].partition("/")
        return cls(bucket, prefix.strip("/"))

    def key(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def uri(self, *parts: str) -> str:
        return f"s3://{self.bucket}/{self.key(*parts)}"


@dataclass(frozen=True)
class Published:
    """What a publish wrote (also the content of ``current.json``)."""

    uri: str
    commit: str
    embedder: str
    schema: int
    vault_id: str
    files: int
    bytes: int
    time: str

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


def storage_options(endpoint: str | None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """LanceDB object-store options from the usual AWS environment (never from the vault)."""
    env = os.environ if env is None else env
    endpoint = endpoint or env.get("AWS_ENDPOINT_URL")
    names = {
        "aws_access_key_id": "AWS_ACCESS_KEY_ID",
        "aws_secret_access_key": "AWS_SECRET_ACCESS_KEY",
        "aws_session_token": "AWS_SESSION_TOKEN",
        "aws_region": "AWS_DEFAULT_REGION",
    }
    out = {opt: env[var] for opt, var in names.items() if env.get(var)}
    if endpoint:
        out["aws_endpoint"] = endpoint
        if endpoint.startswith("http://"):
            out["allow_http"] = "true"
    return out


def _client(endpoint: str | None) -> Any:
    from clawql_git.sync.s3 import s3_client as make

    return make(endpoint or os.environ.get("AWS_ENDPOINT_URL") or None, None, "s3")


def publish(vault: Vault, uri: str, endpoint: str | None = None) -> Published:
    """Bring the index up to ``main`` and upload it under the commit, then move the pointer."""
    from clawql_git.sync.s3 import boto_errors

    loc = IndexLocation.parse(uri)
    if vault.store.head_ref_name() != MAIN_REF:
        raise VaultStateError("a shared index is published from main; check out main first")
    vault.update_index()
    stamp = vault.recall_service().index.stamp()
    root = vault.recall_service().index.root
    if stamp is None:
        raise StorageError("the index has no stamp after an update")
    files = sorted(p for p in root.rglob("*") if p.is_file())
    client = _client(endpoint)
    total = 0
    with boto_errors(loc.uri(stamp.commit)):
        for path in files:
            key = loc.key(stamp.commit, path.relative_to(root).as_posix())
            client.upload_file(str(path), loc.bucket, key)
            total += path.stat().st_size
        done = Published(
            loc.uri(stamp.commit),
            stamp.commit,
            stamp.embedder,
            stamp.schema,
            vault.vault_id,
            len(files),
            total,
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        body = json.dumps(done.to_record(), sort_keys=True).encode()
        client.put_object(Bucket=loc.bucket, Key=loc.key(stamp.commit, DONE), Body=body)
        client.put_object(Bucket=loc.bucket, Key=loc.key(POINTER), Body=body)
    return done


@dataclass(frozen=True)
class SharedHit:
    """One entry the shared index returned."""

    path: str
    title: str
    type: str
    score: float
    snippet: str
    worm_ref: str

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


class SharedIndex:
    """Read-only queries on a published index (BM25 over chunks and the catalog view, fused by
    reciprocal rank); current entries only, PII-classified ones left out."""

    def __init__(self, uri: str, endpoint: str | None = None) -> None:
        from clawql_git.sync.s3 import boto_errors

        self.location = IndexLocation.parse(uri)
        with boto_errors(self.location.uri(POINTER)):
            reply = _client(endpoint).get_object(
                Bucket=self.location.bucket, Key=self.location.key(POINTER)
            )
            self.published = Published(**json.loads(reply["Body"].read()))
        from clawql_git.index.lance import import_lancedb

        lancedb = import_lancedb()
        try:
            self._db = lancedb.connect(
                self.published.uri, storage_options=storage_options(endpoint)
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise SyncError(f"cannot open the shared index {self.published.uri}: {exc}") from exc

    def search(self, query: str, limit: int = 10) -> list[SharedHit]:
        where = "status = 'current' AND pii = ''"
        try:
            chunks = self._fts("chunks", query, limit * 3, where)
            catalog = self._fts("entries", query, limit * 3, where)
            ranked = _fuse([[r["path"] for r in chunks], [r["path"] for r in catalog]])[:limit]
            rows = self._entries([p for p, _ in ranked])
        except (OSError, ValueError, RuntimeError) as exc:
            raise SyncError(f"shared index query failed: {exc}") from exc
        snippets: dict[str, str] = {}
        for r in chunks:
            snippets.setdefault(r["path"], str(r.get("snippet") or ""))
        return [
            SharedHit(
                path,
                str(rows.get(path, {}).get("title", "")),
                str(rows.get(path, {}).get("type", "")),
                score,
                snippets.get(path, str(rows.get(path, {}).get("description", ""))),
                _worm_ref(str(rows.get(path, {}).get("worm_ref", ""))),
            )
            for path, score in ranked
        ]

    def _fts(self, table: str, query: str, limit: int, where: str) -> list[dict[str, Any]]:
        q = self._db.open_table(table).search(query, query_type="fts")
        rows: list[dict[str, Any]] = q.where(where, prefilter=True).limit(limit).to_list()
        return rows

    def _entries(self, paths: list[str]) -> dict[str, dict[str, Any]]:
        if not paths:
            return {}
        quoted = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        table = self._db.open_table("entries")
        rows = table.search().where(f"path IN ({quoted})").limit(len(paths)).to_list()
        return {str(r["path"]): r for r in rows}


def _worm_ref(sha: str) -> str:
    return sha if not sha or sha.startswith("git:") else f"git:{sha}"


def _fuse(rankings: list[list[str]], k: int = 60) -> list[tuple[str, float]]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, path in enumerate(dict.fromkeys(ranking)):
            scores[path] = scores.get(path, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
