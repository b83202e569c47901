"""What checking every recall hit against its commit costs (``recall/checks.py``): warm
in-process recall p50 with the check and without it, interleaved in one run, on the path users
get by default (the packaged MiniLM model, the answer cache and the audit event on), for
answers from the cache and answers from the index.

    .venv/bin/python bench/recall_check_cost.py [--rounds 200] [--embedder minilm] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from audit_overhead import QUERIES  # the same warm questions, so the two benches compare

from clawql_git import Identity, Vault

ROOT = Path(__file__).resolve().parent.parent


def measure(rounds: int, embedder: str) -> dict[str, float | int | str]:
    with tempfile.TemporaryDirectory(prefix="clawql-check-bench-") as tmp:
        base = Vault.init(Path(tmp) / "v")
        base.seed(ROOT / "sample-vault", Identity(agent_id="seed"))
        checked = Vault.open(base.root, embedding_model=embedder)
        unchecked = Vault.open(base.root, embedding_model=embedder)
        unchecked.recall_service().check_hits = False
        checked.update_index()
        reader = Identity(agent_id="bench", session_id="s")
        for vault in (checked, unchecked):  # load the model and rows; fill the cache
            for query in QUERIES:
                vault.recall(query, identity=reader)
        times: dict[str, list[float]] = {
            f"{k}_{m}": [] for k in ("checked", "unchecked") for m in ("cache", "index")
        }
        for n in range(rounds):
            order = [("checked", checked), ("unchecked", unchecked)]
            for name, vault in order if n % 2 == 0 else reversed(order):
                for mode, use_cache in (("cache", True), ("index", False)):
                    start = time.perf_counter()
                    result = vault.recall(
                        QUERIES[n % len(QUERIES)], use_cache=use_cache, identity=reader
                    )
                    times[f"{name}_{mode}"].append((time.perf_counter() - start) * 1000)
                    assert result.cache_hit is use_cache and not result.warnings
    p50 = {k: statistics.median(v) for k, v in times.items()}
    out: dict[str, float | int | str] = {"embedder": embedder, "rounds": rounds}
    for mode in ("cache", "index"):
        on, off = p50[f"checked_{mode}"], p50[f"unchecked_{mode}"]
        out[f"{mode}_p50_checked_ms"] = round(on, 2)
        out[f"{mode}_p50_unchecked_ms"] = round(off, 2)
        out[f"{mode}_overhead_ms"] = round(on - off, 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description="recall latency with and without hit checks")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--embedder", default="minilm", help="minilm (default), hash, none")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = measure(args.rounds, args.embedder)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"warm recall on sample-vault, {args.rounds} interleaved rounds, {args.embedder}")
    print(f"{'answer from':<12}{'checked p50':>14}{'unchecked p50':>16}{'overhead':>12}")
    for mode in ("cache", "index"):
        print(
            f"{mode:<12}{report[f'{mode}_p50_checked_ms']:>11.2f} ms"
            f"{report[f'{mode}_p50_unchecked_ms']:>13.2f} ms"
            f"{report[f'{mode}_overhead_ms']:>9.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
