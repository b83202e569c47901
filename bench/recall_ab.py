"""Recall speed, this checkout against a baseline checkout, side by side in one run: warm
in-process recall (recorded on the audit chain, as the MCP server does), the index update
after one ingest, and the first recall after that write, on copies of one vault.

Run: ``.venv/bin/python bench/recall_ab.py --vault DIR --baseline OLD_CHECKOUT [--rounds 3]
[--queries 60] [--writes 5] [--json]``

``--vault`` is a vault built by another bench (``mcp_speed.py --keep DIR`` or
``recall_quality.py --keep DIR``); each arm works on its own copy, so neither sees the other's
writes. ``--baseline`` is a checkout of the code to compare with (``git worktree add`` or
``git archive REV | tar -x -C DIR``). The arms alternate, one child process each per round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, medians, ratio_table

HERE = Path(__file__).resolve()


def progress(message: str) -> None:
    print(f"[recall_ab] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the child (one arm, one round)


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """Measure one arm on its vault copy; runs with the arm's code first on sys.path."""
    sys.path.insert(0, str(HERE.parent))
    from corpus import CORPUS, load_corpus
    from mcp_speed import make_queries

    from clawql_git import Identity, Vault
    from clawql_git.index.embedders import HashEmbedder

    queries = make_queries(load_corpus(CORPUS), spec["queries"] + 5)
    who = Identity("bench", "recall-ab")
    vault = Vault.open(spec["vault"], embedder=HashEmbedder())
    vault.update_index()
    start = time.perf_counter()
    vault.recall("first question", identity=who, use_cache=False)
    first_load = time.perf_counter() - start
    for q in queries[:5]:
        vault.recall(f"warm-up {q}", identity=who, use_cache=False)
    warm = [_timed(vault.recall, q, identity=who, use_cache=False) for q in queries[5:]]
    updates, after = [], []
    for n in range(spec["writes"]):
        vault.ingest(
            type="decision",
            title=f"Recall A/B write {spec['round']} {n}",
            body=f"A small decision written by the A/B bench, about {queries[n]}.",
            tags=["perf"],
            identity=who,
        )
        updates.append(_timed(vault.update_index))
        after.append(_timed(vault.recall, queries[n], identity=who, use_cache=False))
    return {
        "warm_ms": statistics.median(warm) * 1000,
        "first_load_s": first_load,
        "update_ms": statistics.median(updates) * 1000,
        "first_after_write_ms": statistics.median(after) * 1000,
        "entries": len(vault.recall_service().index.loaded().entries),
    }


def _timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


# ---------------------------------------------------------------- the driver


def run_arm(code: Path, vault: Path, spec: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["PYTHONPATH"] = str(code)
    env.setdefault("LANCEDB_LOG", "error")
    payload = json.dumps({**spec, "vault": str(vault)})
    out = subprocess.run(
        [sys.executable, str(HERE), "--child", payload],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"child for {code} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


LABELS = {
    "warm_ms": "warm recall p50 (ms)",
    "update_ms": "index update after 1 ingest (ms)",
    "first_after_write_ms": "first recall after that write (ms)",
    "first_load_s": "first recall of a new process (s)",
}


def run(args: argparse.Namespace) -> dict[str, Any]:
    arms = arms_of(args.baseline)
    with tempfile.TemporaryDirectory(prefix="clawql-recall-ab-") as tmp:
        copies = {name: Path(tmp) / name for name in arms}
        for name, copy in copies.items():
            progress(f"copying {args.vault} for {name}")
            shutil.copytree(args.vault, copy, symlinks=True)

        def measure(name: str, r: int) -> dict[str, Any]:
            spec = {"queries": args.queries, "writes": args.writes, "round": r}
            return run_arm(arms[name], copies[name], spec)

        return alternate(arms, args.rounds, measure, progress)


def render(report: dict[str, Any]) -> str:
    rows = report["rounds"]["this"]
    head = (
        f"recall A/B: {len(rows)} rounds per arm, {rows[0]['entries']:,} entries (hash embedder); "
        f"1-min load {load_range(report)}"
    )
    return "\n".join([head, *ratio_table(report, LABELS, "median of round medians", 36, 1)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", help="a vault built by mcp_speed.py or recall_quality.py")
    parser.add_argument("--baseline", help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=60, help="timed warm recalls per round")
    parser.add_argument("--writes", type=int, default=5, help="ingests per round")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    if not args.vault or not args.baseline:
        parser.error("--vault and --baseline are required")
    report = run(args)
    report["summary"] = medians(report, LABELS)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
