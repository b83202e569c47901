"""What the recall answer cache costs per recall as it fills, this checkout against a baseline,
side by side in one run: a lookup (hit), a lookup that misses, and an insert into a cache
already at its capacity (the insert evicts), for caches that have taken 1,000 to 20,000
answers, each answer shaped as a default recall's (10 hits, ~1,000-character snippets).

Run: ``.venv/bin/python bench/cache_cost.py --baseline OLD_CHECKOUT [--rounds 3]
[--seen 1000,5000,20000] [--capacity 1000] [--json]``

Each arm runs in its own child process with its checkout first on ``PYTHONPATH`` and a cache
file of its own; the arms alternate round by round (``ab.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, ratio_table

HERE = Path(__file__).resolve()
TIMED = 400  # operations timed per kind and size


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """One arm's figures: per cache size, p50 of insert, hit and miss (ms)."""
    from clawql_git.recall.cache import RecallCache
    from clawql_git.recall.pipeline import RecallHit, RecallResult

    hits = [
        RecallHit(
            f"decisions/entry-{i}.md",
            "Use an outbox table for webhook deliveries",
            "decision",
            0.5,
            ("fts", "vector"),
            "git:" + "a" * 40,
            "word " * 200,
            300,
            {"type": "decision", "tags": ["payments", "webhooks"], "title": "t" * 60},
        )
        for i in range(10)
    ]
    answer = RecallResult("q", hits, ["fts", "vector"], 3000, False, "b" * 40)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seen in spec["seen"]:
            cache = RecallCache(Path(tmp) / f"cache-{seen}.sqlite", spec["capacity"])
            for i in range(seen):
                cache.put(f"seen-{i}", "b" * 40, answer)
            put, hit, miss = [], [], []
            for i in range(TIMED):
                start = time.perf_counter()
                cache.put(f"timed-{i}", "b" * 40, answer)
                put.append(time.perf_counter() - start)
                start = time.perf_counter()
                cache.get(f"timed-{i}", "q")
                hit.append(time.perf_counter() - start)
                start = time.perf_counter()
                cache.get(f"never-{i}", "q")
                miss.append(time.perf_counter() - start)
            out[f"put_{seen}"] = 1000 * statistics.median(put)
            out[f"hit_{seen}"] = 1000 * statistics.median(hit)
            out[f"miss_{seen}"] = 1000 * statistics.median(miss)
            out[f"held_{seen}"] = cache.count()
            cache.close()
    return out


def measure(arms: dict[str, Path], spec: dict[str, Any]) -> Any:
    def run(name: str, r: int) -> dict[str, Any]:
        env = {**os.environ, "PYTHONPATH": str(arms[name])}
        proc = subprocess.run(
            [sys.executable, str(HERE), "--child", json.dumps(spec)],
            env=env,
            cwd=arms[name],
            capture_output=True,
            text=True,
            check=True,
        )
        figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        return figures

    return run


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seen", default="1000,5000,20000", help="answers put in first")
    parser.add_argument("--capacity", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if not args.baseline:
        parser.error("--baseline is required")
    spec = {"seen": [int(s) for s in args.seen.split(",")], "capacity": args.capacity}
    arms = arms_of(args.baseline)
    report = alternate(
        arms, args.rounds, measure(arms, spec), lambda m: print(m, file=sys.stderr, flush=True)
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return
    labels: dict[str, str] = {}
    for seen in spec["seen"]:
        labels[f"put_{seen}"] = f"insert (evicting), after {seen:,} answers"
        labels[f"hit_{seen}"] = f"lookup, hit, after {seen:,}"
        labels[f"miss_{seen}"] = f"lookup, miss, after {seen:,}"
    print(
        f"\nrecall cache cost, p50 of {TIMED} operations, capacity {spec['capacity']:,}; "
        f"1-min load {load_range(report)}"
    )
    print("\n".join(ratio_table(report, labels, "ms", 40, 3)))
    held = {name: rows[-1][f"held_{spec['seen'][-1]}"] for name, rows in report["rounds"].items()}
    print(f"answers held after {spec['seen'][-1]:,} + {TIMED}: {held}")


if __name__ == "__main__":
    main(sys.argv[1:])
