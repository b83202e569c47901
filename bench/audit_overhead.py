"""Does recording MEMORY_RECALL on the audit chain slow recall? Warm in-process recall p50 with
and without the event, interleaved in one run.

    .venv/bin/python bench/audit_overhead.py [--rounds 200] [--embedder hash] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from clawql_git import Identity, Vault

ROOT = Path(__file__).resolve().parent.parent
QUERIES = [
    "why did we stop queueing webhooks in redis",
    "idempotency keys for payment retries",
    "how are money amounts stored",
    "dashboard authentication tokens",
    "reconciliation job migration status",
    "database connection pool exhausted",
    "fx rounding for yen payouts",
    "ci type checking setup",
]


def measure(rounds: int, embedder: str) -> dict[str, float | int | str]:
    with tempfile.TemporaryDirectory(prefix="clawql-audit-bench-") as tmp:
        base = Vault.init(Path(tmp) / "v")
        base.seed(ROOT / "sample-vault", Identity(agent_id="seed"))
        with_event = Vault.open(base.root, embedding_model=embedder)
        without = Vault.open(base.root, embedding_model=embedder, record_recalls=False)
        with_event.update_index()
        reader = Identity(agent_id="bench", session_id="s")
        times: dict[str, list[float]] = {"with": [], "without": []}
        for n in range(rounds):
            order = [("with", with_event), ("without", without)]
            for name, vault in order if n % 2 == 0 else reversed(order):
                start = time.perf_counter()
                vault.recall(QUERIES[n % len(QUERIES)], use_cache=False, identity=reader)
                times[name].append((time.perf_counter() - start) * 1000)
        events = len(with_event.audit_events())
    p50 = {k: statistics.median(v) for k, v in times.items()}
    return {
        "embedder": embedder,
        "rounds": rounds,
        "p50_with_ms": round(p50["with"], 2),
        "p50_without_ms": round(p50["without"], 2),
        "overhead_ms": round(p50["with"] - p50["without"], 2),
        "ratio": round(p50["with"] / p50["without"], 3),
        "audit_events_written": events,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="recall latency with and without audit events")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--embedder", default="hash", help="hash (default), minilm, none")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = measure(args.rounds, args.embedder)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"warm recall on sample-vault, {args.rounds} interleaved rounds, "
            f"embedder {report['embedder']}"
        )
        print(f"  p50 with MEMORY_RECALL event:    {report['p50_with_ms']:.2f} ms")
        print(f"  p50 without:                     {report['p50_without_ms']:.2f} ms")
        print(
            f"  overhead: {report['overhead_ms']:.2f} ms (ratio {report['ratio']:.3f}); "
            f"{report['audit_events_written']} audit commits written"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
