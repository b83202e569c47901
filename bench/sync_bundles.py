"""Sync bench: push and restore time and bytes for a 10,000-entry vault on moto's S3 server
(over HTTP on 127.0.0.1), and the bytes of an incremental push after 10 more ingests, side by
side with the full bundle (goal: proportional to the new commits, not to the vault).

Run: ``.venv/bin/python bench/sync_bundles.py [--size 10000] [--more 10] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CORPUS, history_months, load_corpus
from ingest_scaling import build_vault, sample_fields

from clawql_git import Identity, Vault
from clawql_git.sync.remotes import RemoteConfig, save_config
from clawql_git.sync.restore import restore
from clawql_git.sync.s3 import S3Backend
from clawql_git.sync.service import for_vault

BUCKET = "bench-bundles"
AGENT = Identity(agent_id="bench")
INCREMENTAL_GOAL = 0.01  # incremental bundle / full bundle, for 10 ingests on 10,000 entries


def _server() -> tuple[Any, str]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server, f"http://127.0.0.1:{port}"


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def run(size: int, more: int, work: Path, endpoint: str) -> dict[str, Any]:
    docs = load_corpus(CORPUS)
    months = history_months(datetime.now(UTC), 36)
    (vault, build_s) = _timed(lambda: build_vault(work / "vault", size, docs, months))
    save_config(vault, RemoteConfig("s3", BUCKET, endpoint=endpoint), AGENT)
    service = for_vault(Vault.open(vault.root), agent="bench")[0]
    full, full_s = _timed(service.push)
    vault = Vault.open(vault.root, eager_index=False)
    for i in range(more):
        vault.ingest(**sample_fields(size + i, docs), identity=AGENT)
    vault.close()
    service = for_vault(Vault.open(vault.root), agent="bench")[0]
    incr, incr_s = _timed(service.push)
    backend = S3Backend(BUCKET, endpoint)
    restored, restore_s = _timed(lambda: restore(backend, work / "restored", "clawql"))
    same_head = Vault.open(work / "restored").store.head_commit().id == vault.store.head_commit().id  # type: ignore[union-attr]
    ratio = incr.bundle_size / full.bundle_size
    return {
        "size": size,
        "more_ingests": more,
        "build_s": round(build_s, 2),
        "full_push": {"seconds": round(full_s, 2), "bytes": full.bundle_size},
        "incremental_push": {"seconds": round(incr_s, 2), "bytes": incr.bundle_size},
        "incremental_over_full": round(ratio, 5),
        "incremental_bytes_per_ingest": incr.bundle_size // max(more, 1),
        "restore": {
            "seconds": round(restore_s, 2),
            "bytes": restored.bytes,
            "bundles": restored.bundles,
            "same_head": same_head,
        },
        "goal_met": ratio <= INCREMENTAL_GOAL and same_head,
        "repo_bytes": _du(vault.root / ".git" / "objects"),
        "embedder": os.environ.get("CLAWQL_EMBEDDING_MODEL", ""),
    }


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def render(r: dict[str, Any]) -> str:
    lines = [
        f"sync bench: {r['size']} entries (built in {r['build_s']} s), then {r['more_ingests']} "
        f"ingests; moto S3 over HTTP on 127.0.0.1; index embedder {r['embedder'] or 'default'}",
        f"  source .git/objects at the end       {r['repo_bytes']:>12,} bytes",
        f"  full push (seq 1)                    {r['full_push']['bytes']:>12,} bytes "
        f"{r['full_push']['seconds']:>7} s",
        f"  incremental push ({r['more_ingests']} ingests)         "
        f"{r['incremental_push']['bytes']:>12,} bytes {r['incremental_push']['seconds']:>7} s",
        f"  incremental / full                   {r['incremental_over_full']:>12} "
        f"(goal <= {INCREMENTAL_GOAL}; {r['incremental_bytes_per_ingest']:,} bytes per ingest)",
        f"  restore ({r['restore']['bundles']} bundles, checks + index)  "
        f"{r['restore']['bytes']:>12,} bytes {r['restore']['seconds']:>7} s",
        f"  restored HEAD equals the source's    {r['restore']['same_head']}",
        f"  goal met: {r['goal_met']}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--more", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("CLAWQL_EMBEDDING_MODEL", "none")
    for key, value in (("AWS_ACCESS_KEY_ID", "bench"), ("AWS_SECRET_ACCESS_KEY", "bench")):
        os.environ.setdefault(key, value)
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    server, endpoint = _server()
    try:
        import boto3

        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
        with tempfile.TemporaryDirectory(prefix="clawql-sync-bench-") as tmp:
            report = run(args.size, args.more, Path(tmp), endpoint)
    finally:
        server.stop()
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0 if report["goal_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
