"""S3 and Cloudflare R2 (any S3-compatible store) through boto3: write-once objects with
``If-None-Match: *``, Object Lock retention when the bucket has it, multipart with progress for
large bundles. Credentials come from boto3's usual chain (env, profiles); never from the vault."""

from __future__ import annotations

import builtins
import contextlib
import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from clawql_git.errors import ClawqlError, KeyExists, NotFound, SyncError, optional_layer
from clawql_git.sync.backend import Progress, RemoteObject

PART_SIZE = 8 * 1024 * 1024
LOCK_DAYS = 365
# Answers meaning "no Object Lock here": none configured, or a store without the API (R2 applies
# its bucket lock rules by itself; MinIO without locking).
NO_LOCK_CODES = frozenset(
    {"ObjectLockConfigurationNotFoundError", "NotImplemented", "MethodNotAllowed", "InvalidRequest"}
)


@contextmanager
def boto_errors(what: str) -> Iterator[None]:
    """Translate botocore's errors into ours at the boundary."""
    with optional_layer("S3/R2 sync", "s3"):
        from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        raise translate(exc, what) from exc


def _code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def translate(exc: Exception, what: str) -> ClawqlError:
    """The error of ours that a botocore error means."""
    with optional_layer("S3/R2 sync", "s3"):
        from botocore.exceptions import ClientError

    if not isinstance(exc, ClientError):
        return SyncError(f"S3 is unreachable or misconfigured ({what}): {exc}")
    code = _code(exc)
    if code in ("PreconditionFailed", "ConditionalRequestConflict"):
        return KeyExists(what)
    if code in ("NoSuchKey", "404", "NotFound"):
        return NotFound(f"no remote object {what}")
    return SyncError(f"S3 refused {what}: {exc}")


class S3Backend:
    """A bucket (and key prefix) on S3, R2 or another S3-compatible store."""

    def __init__(
        self,
        bucket: str,
        endpoint: str | None = None,
        region: str | None = None,
        name: str = "s3",
        lock_days: int = LOCK_DAYS,
        part_size: int = PART_SIZE,
    ) -> None:
        self.name = name
        self.bucket = bucket
        self.endpoint = endpoint
        self.lock_days = lock_days
        self.part_size = max(part_size, 5 * 1024 * 1024)  # S3's smallest multipart part
        self._client = s3_client(endpoint, region, name)
        self._lock: bool | None = None

    def describe(self) -> str:
        where = f"s3://{self.bucket}"
        return f"{where} ({self.endpoint})" if self.endpoint else where

    # ------------------------------------------------------------ writes

    def put_once(
        self, key: str, data: bytes, tags: Mapping[str, str], progress: Progress | None = None
    ) -> RemoteObject:
        """Conditional write: S3 answers 412 when the key exists, and we say KeyExists."""
        extra = {"Metadata": {_meta(k): _ascii(v) for k, v in tags.items()}, **self._retention()}
        with boto_errors(key):
            if len(data) > self.part_size:
                etag = self._multipart(key, data, extra, progress)
            else:
                reply = self._client.put_object(
                    Bucket=self.bucket, Key=key, Body=data, IfNoneMatch="*", **extra
                )
                etag = str(reply.get("ETag", ""))
                if progress:
                    progress(len(data), len(data))
        return RemoteObject(key, len(data), dict(tags), etag)

    def _multipart(
        self, key: str, data: bytes, extra: dict[str, Any], progress: Progress | None
    ) -> str:
        upload = self._client.create_multipart_upload(Bucket=self.bucket, Key=key, **extra)
        upload_id = upload["UploadId"]
        parts = []
        try:
            step = self.part_size
            for number, start in enumerate(range(0, len(data), step), 1):
                chunk = data[start : start + step]
                parts.append(self._part(key, upload_id, number, chunk, extra))
                if progress:
                    progress(min(start + step, len(data)), len(data))
            done = self._client.complete_multipart_upload(
                Bucket=self.bucket,
                Key=key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
                IfNoneMatch="*",
            )
        except Exception:
            self._abort(key, upload_id)
            raise
        if "ObjectLockMode" in extra:
            # Stated again on the completed object: not every S3-compatible store carries the
            # retention of CreateMultipartUpload over (S3 does; setting it again is a no-op).
            retention = {
                "Mode": extra["ObjectLockMode"],
                "RetainUntilDate": extra["ObjectLockRetainUntilDate"],
            }
            self._client.put_object_retention(Bucket=self.bucket, Key=key, Retention=retention)
        return str(done.get("ETag", ""))

    def _part(
        self, key: str, upload_id: str, number: int, chunk: bytes, extra: dict[str, Any]
    ) -> dict[str, Any]:
        """One part; with Object Lock every part carries its SHA-256 (S3 requires a checksum)."""
        checksum = {"ChecksumAlgorithm": "SHA256"} if "ChecksumAlgorithm" in extra else {}
        reply = self._client.upload_part(
            Bucket=self.bucket,
            Key=key,
            UploadId=upload_id,
            PartNumber=number,
            Body=chunk,
            **checksum,
        )
        part = {"ETag": reply["ETag"], "PartNumber": number}
        if checksum:
            part["ChecksumSHA256"] = reply["ChecksumSHA256"]
        return part

    def _abort(self, key: str, upload_id: str) -> None:
        with optional_layer("S3/R2 sync", "s3"):
            from botocore.exceptions import BotoCoreError, ClientError

        # An abandoned upload is left to the bucket's lifecycle rules; the first error is raised.
        with contextlib.suppress(BotoCoreError, ClientError):
            self._client.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload_id)

    def _retention(self) -> dict[str, Any]:
        """Object Lock on the bucket: each object is retained (GOVERNANCE) for ``lock_days``."""
        if not self.object_lock_enabled():
            return {}
        until = datetime.now(UTC) + timedelta(days=self.lock_days)
        return {
            "ObjectLockMode": "GOVERNANCE",
            "ObjectLockRetainUntilDate": until,
            "ChecksumAlgorithm": "SHA256",
        }

    def object_lock_enabled(self) -> bool:
        """Read once per backend: does the bucket have Object Lock enabled?"""
        if self._lock is None:
            with optional_layer("S3/R2 sync", "s3"):
                from botocore.exceptions import BotoCoreError, ClientError

            try:
                conf = self._client.get_object_lock_configuration(Bucket=self.bucket)
            except ClientError as exc:
                if _code(exc) not in NO_LOCK_CODES:
                    raise translate(exc, f"s3://{self.bucket} object lock") from exc
                conf = {}
            except BotoCoreError as exc:
                raise translate(exc, f"s3://{self.bucket} object lock") from exc
            lock = conf.get("ObjectLockConfiguration", {}).get("ObjectLockEnabled")
            self._lock = lock == "Enabled"
        return self._lock

    # ------------------------------------------------------------ reads

    def get(self, key: str, progress: Progress | None = None) -> bytes:
        with boto_errors(key):
            reply = self._client.get_object(Bucket=self.bucket, Key=key)
            total = int(reply.get("ContentLength", 0))
            out = io.BytesIO()
            for chunk in reply["Body"].iter_chunks(1024 * 1024):
                out.write(chunk)
                if progress:
                    progress(out.tell(), total)
        return out.getvalue()

    def list(self, prefix: str) -> Iterator[RemoteObject]:
        """Keys in order (S3 lists lexicographically; our seqs are zero-padded)."""
        with boto_errors(f"s3://{self.bucket}/{prefix}"):
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            items = [obj for page in pages for obj in page.get("Contents", [])]
        for obj in items:
            yield RemoteObject(str(obj["Key"]), int(obj["Size"]), {}, str(obj.get("ETag", "")))

    def list_folders(self, prefix: str) -> builtins.list[str]:
        """The immediate "folders" under ``prefix`` (vault ids, for restore)."""
        with boto_errors(f"s3://{self.bucket}/{prefix}"):
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix, Delimiter="/"
            )
            return [p["Prefix"] for page in pages for p in page.get("CommonPrefixes", [])]


def s3_client(endpoint: str | None, region: str | None, name: str) -> Any:
    with optional_layer("S3/R2 sync", "s3"):
        import boto3
        from botocore.config import Config

    config = Config(
        retries={"max_attempts": 2, "mode": "standard"},
        connect_timeout=5,
        read_timeout=60,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    region = region or ("auto" if name == "r2" else None)
    with boto_errors("the S3 client configuration"):
        return boto3.client("s3", endpoint_url=endpoint, region_name=region, config=config)


def _meta(key: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in key.lower())


def _ascii(value: str) -> str:
    return value.encode("ascii", errors="replace").decode()[:1024]
