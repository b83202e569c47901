"""What does encryption cost on the Arweave path? Post, mine and fetch a bundle through a real
arlocal (tests/arlocal, installed with `npm ci --nodedir=/usr`), encrypted and public side by
side, interleaved in one run.

    .venv/bin/python bench/sync_arweave.py [--size-mib 3] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clawql_git.sync.arweave import ArweaveBackend  # noqa: E402
from tests.arweave_server import ArLocal, make_wallet, node_ready, wallet_address  # noqa: E402

KEY = os.urandom(32)
MODES = ("encrypted", "public")


def one_round(server: ArLocal, wallet: Path, data: bytes, mode: str, n: int) -> dict[str, float]:
    public = mode == "public"
    key = f"clawql/bench-vault/bundles/{n}-{mode}.bundle"
    writer = ArweaveBackend(server.url, wallet, public=public, key=None if public else KEY)
    t0 = time.perf_counter()
    writer.put_once(key, data, {"Seq": str(n), "Kind": "bundle"})
    t1 = time.perf_counter()
    server.mine()
    t2 = time.perf_counter()
    reader = ArweaveBackend(server.url, None, public=public, key=None if public else KEY)
    assert reader.get(key) == data
    t3 = time.perf_counter()
    return {"post": t1 - t0, "mine": t2 - t1, "fetch": t3 - t2, "total": t3 - t0}


def measure(size: int, rounds: int) -> dict[str, dict[str, float]]:
    samples: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    with tempfile.TemporaryDirectory(prefix="clawql-arweave-bench-") as tmp:
        wallet = make_wallet(Path(tmp) / "wallet.json")
        server = ArLocal(Path(tmp) / "db")
        try:
            server.mint(wallet_address(wallet))
            for n in range(rounds):
                for mode in MODES if n % 2 == 0 else reversed(MODES):
                    print(f"round {n + 1}/{rounds} {mode}", file=sys.stderr)
                    samples[mode].append(one_round(server, wallet, os.urandom(size), mode, n))
        finally:
            server.stop()
    phases = ("post", "mine", "fetch", "total")
    return {m: {p: statistics.median(s[p] for s in samples[m]) for p in phases} for m in MODES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reason = node_ready()
    if reason:
        print(f"cannot run arlocal: {reason}", file=sys.stderr)
        return 2
    size = int(args.size_mib * 1024 * 1024)
    result = measure(size, args.rounds)
    if args.json:
        print(json.dumps({"bytes": size, "rounds": args.rounds, **result}, indent=2))
        return 0
    print(f"{size} bytes, median of {args.rounds} rounds (seconds), arlocal on 127.0.0.1")
    print(f"{'phase':<8}{'encrypted':>12}{'public':>12}{'enc/pub':>10}")
    for phase in ("post", "mine", "fetch", "total"):
        enc, pub = result["encrypted"][phase], result["public"][phase]
        print(f"{phase:<8}{enc:>12.3f}{pub:>12.3f}{enc / pub:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
