"""A shared read-only index for teams: the LanceDB index of ``main`` published to object storage
(``s3://bucket/prefix``), and a reader that queries it there with LanceDB's object-store
support, without a local vault.

Layout: ``<prefix>/<commit>/...`` holds the index directory as built for that commit (written
once, ``published.json`` last), and ``<prefix>/current.json`` points at the newest one, so a
reader never sees half an index.

The published tables are the hybrid index: BM25 over chunks and the catalog view, and the chunk
and whole-entry vectors of the embedder that built them. A reader whose embedder is the same
model queries all four layers; with another model (vectors of different spaces cannot be
compared) or none, it answers from full text and says why in ``warnings``."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final

from clawql_git.errors import InvalidInput, StorageError, SyncError, VaultStateError
from clawql_git.sync.manifest import MAIN_REF

if TYPE_CHECKING:
    from clawql_git.index.embedders import Embedder
    from clawql_git.vault.facade import Vault

POINTER = "current.json"
DONE = "published.json"
WHERE = "status = 'current' AND pii = ''"
POOL = 3  # each layer returns POOL * limit candidates to the fusion
# Reciprocal-rank weights: the chunk layers carry the body, the catalog view and the
# whole-entry vector confirm it (the local engine weighs its layers alike).
LAYER_WEIGHTS: Final = {"fts": 1.0, "vector": 1.0, "catalog": 0.6, "entry_vector": 0.6}


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
    vectors: bool = False  # the tables carry the embedder's vectors (False: full text only)

    def to_record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, data: Any) -> Published:
        """Parse ``current.json``; a pointer written before vectors were published has no
        ``vectors`` key and is read as full text only."""
        if not isinstance(data, dict):
            raise SyncError("the shared index pointer is not a JSON object")
        names = {f for f in cls.__dataclass_fields__}
        missing = sorted(names - set(data) - {"vectors"})
        if missing:
            raise SyncError(f"the shared index pointer lacks {', '.join(missing)}")
        return cls(**{k: v for k, v in data.items() if k in names})


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
    index = vault.recall_service().index
    stamp = index.stamp()
    root = index.root
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
            vectors=stamp.embedder not in ("", "none") and not stamp.no_vectors,
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
    layers: tuple[str, ...] = ()  # the layers that returned it

    def to_record(self) -> dict[str, Any]:
        return {**asdict(self), "layers": list(self.layers)}


@dataclass(frozen=True)
class SharedAnswer:
    """A shared-index recall: the hits, the layers queried, and why any layer was left out."""

    hits: list[SharedHit]
    layers: tuple[str, ...]
    warnings: tuple[str, ...]

    def to_record(self) -> dict[str, Any]:
        return {
            "hits": [h.to_record() for h in self.hits],
            "layers": list(self.layers),
            "warnings": list(self.warnings),
        }


class SharedIndex:
    """Read-only hybrid queries on a published index: BM25 over chunks and the catalog view and,
    when this reader's embedder built it, chunk and whole-entry vectors, fused by weighted
    reciprocal rank; current entries only, PII-classified ones left out."""

    def __init__(
        self, uri: str, endpoint: str | None = None, embedder: Embedder | None = None
    ) -> None:
        from clawql_git.sync.s3 import boto_errors

        self.location = IndexLocation.parse(uri)
        with boto_errors(self.location.uri(POINTER)):
            reply = _client(endpoint).get_object(
                Bucket=self.location.bucket, Key=self.location.key(POINTER)
            )
            try:
                data = json.loads(reply["Body"].read())
            except ValueError as exc:
                raise SyncError(f"the shared index pointer is not JSON: {exc}") from exc
        self.published = Published.from_record(data)
        self.embedder = embedder
        from clawql_git.index.lance import import_lancedb

        lancedb = import_lancedb()
        try:
            self._db = lancedb.connect(
                self.published.uri, storage_options=storage_options(endpoint)
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise SyncError(f"cannot open the shared index {self.published.uri}: {exc}") from exc

    def vector_problem(self) -> str:
        """Why the vector layers cannot answer here (``""`` when they can)."""
        built = self.published.embedder
        if not self.published.vectors:
            return "the shared index was published without vectors: full text only"
        if self.embedder is None:
            return f"no embedding model here (the index was built with {built}): full text only"
        if self.embedder.id != built:
            return (
                f"the shared index was built with {built}, this reader embeds with "
                f"{self.embedder.id} (vectors of two models do not compare): full text only"
            )
        return ""

    def search(self, query: str, limit: int = 10) -> list[SharedHit]:
        """The fused hits (see :meth:`recall` for the layers and warnings)."""
        return self.recall(query, limit).hits

    def recall(self, query: str, limit: int = 10) -> SharedAnswer:
        """Query every layer this reader can use and fuse them."""
        problem = self.vector_problem()
        pool = limit * POOL
        try:
            ranked: dict[str, list[dict[str, Any]]] = {
                "fts": self._fts("chunks", query, pool),
                "catalog": self._fts("entries", query, pool),
            }
            warnings: list[str] = [problem] if problem else []
            if not problem:
                vec = self._query_vector(query, warnings)
                if vec is not None:
                    ranked["vector"] = self._nearest("chunks", vec, pool)
                    ranked["entry_vector"] = self._nearest("entries", vec, pool)
            fused = _fuse({k: [r["path"] for r in v] for k, v in ranked.items()})[:limit]
            rows = self._entries([p for p, _, _ in fused])
        except (OSError, ValueError, RuntimeError) as exc:
            raise SyncError(f"shared index query failed: {exc}") from exc
        snippets = _snippets(ranked)
        hits = [
            _shared_hit(path, rows.get(path, {}), score, snippets.get(path), layers)
            for path, score, layers in fused
        ]
        return SharedAnswer(hits, tuple(ranked), tuple(warnings))

    def _query_vector(self, query: str, warnings: list[str]) -> Any:
        assert self.embedder is not None
        try:
            return self.embedder.embed_query(query)
        except StorageError as exc:  # the embedder is down: fail open to full text
            warnings.append(f"the embedding model failed ({exc.message}): full text only")
            return None

    def _fts(self, table: str, query: str, limit: int) -> list[dict[str, Any]]:
        q = self._db.open_table(table).search(query, query_type="fts")
        rows: list[dict[str, Any]] = q.where(WHERE, prefilter=True).limit(limit).to_list()
        return rows

    def _nearest(self, table: str, vec: Any, limit: int) -> list[dict[str, Any]]:
        cols = ["path", "snippet"] if table == "chunks" else ["path"]
        q = self._db.open_table(table).search(vec, query_type="vector").metric("cosine")
        rows: list[dict[str, Any]] = (
            q.where(WHERE, prefilter=True).limit(limit).select(cols).to_list()
        )
        return rows

    def _entries(self, paths: list[str]) -> dict[str, dict[str, Any]]:
        if not paths:
            return {}
        quoted = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        table = self._db.open_table("entries")
        rows = table.search().where(f"path IN ({quoted})").limit(len(paths)).to_list()
        return {str(r["path"]): r for r in rows}


def _snippets(ranked: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """The first chunk snippet each path got, full-text layer first."""
    out: dict[str, str] = {}
    for layer in ("fts", "vector"):
        for r in ranked.get(layer, []):
            if r.get("snippet"):
                out.setdefault(str(r["path"]), str(r["snippet"]))
    return out


def _shared_hit(
    path: str, row: dict[str, Any], score: float, snippet: str | None, layers: tuple[str, ...]
) -> SharedHit:
    return SharedHit(
        path,
        str(row.get("title", "")),
        str(row.get("type", "")),
        score,
        snippet if snippet is not None else str(row.get("description", "")),
        _worm_ref(str(row.get("worm_ref", ""))),
        layers,
    )


def _worm_ref(sha: str) -> str:
    return sha if not sha or sha.startswith("git:") else f"git:{sha}"


def _fuse(rankings: dict[str, list[str]], k: int = 60) -> list[tuple[str, float, tuple[str, ...]]]:
    """Weighted reciprocal-rank fusion: (path, score, the layers that returned it)."""
    scores: dict[str, float] = {}
    seen: dict[str, list[str]] = {}
    for layer, ranking in rankings.items():
        weight = LAYER_WEIGHTS.get(layer, 1.0)
        for rank, path in enumerate(dict.fromkeys(ranking)):
            scores[path] = scores.get(path, 0.0) + weight / (k + rank + 1)
            seen.setdefault(path, []).append(layer)
    order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(path, score, tuple(seen[path])) for path, score in order]
