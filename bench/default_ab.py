"""The default recall path, this checkout against a baseline checkout, side by side in one run:
the packaged embedder, the answer cache on (one that has seen ``--seen`` recalls) and every
recall recorded on the audit chain, in process and over MCP (``clawql mcp serve`` through the
real MCP client SDK), on copies of one vault.

Run: ``.venv/bin/python bench/default_ab.py --vault DIR --baseline OLD_CHECKOUT [--rounds 2]
[--queries 60] [--seen 10000] [--mcp-calls 40] [--embedder hash] [--json]``

``--vault`` is a vault built by another bench (``mcp_speed.py --keep DIR --embedder minilm``);
each arm works on its own copy. Before its first round each arm's cache is filled with
``--seen`` answers through that arm's own cache API (one real answer stored under that many
distinct questions, as that many recalls would leave it): the old cache keeps them all, a
bounded one keeps what its capacity allows. Timed recalls ask questions the cache has not
seen (misses: the full pipeline plus the cache's lookup and insert), then ask them again
(hits)."""

from __future__ import annotations

import argparse
import inspect
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
FILLED = "default-ab-filled"


def progress(message: str) -> None:
    print(f"[default_ab] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the child (one arm, one round)


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """Measure one arm on its vault copy; runs with the arm's code first on sys.path."""
    sys.path.insert(0, str(HERE.parent))
    import anyio
    from corpus import CORPUS, load_corpus
    from mcp_speed import make_queries

    from clawql_git import Identity, Vault

    queries = make_queries(load_corpus(CORPUS), 5 + spec["queries"] + spec["mcp_calls"])
    queries = [f"{q} r{spec['round']}" for q in queries]  # unseen by earlier rounds' caches
    who = Identity("bench", "default-ab")
    os.environ["CLAWQL_EMBEDDING_MODEL"] = spec["embedder"]  # "" = the packaged model
    vault = Vault.open(spec["vault"])
    vault.update_index()
    seen = _fill(vault, spec["seen"], Path(spec["vault"]))
    for q in queries[:5]:
        vault.recall(f"warm-up {q}", identity=who)
    asked = queries[5 : 5 + spec["queries"]]
    misses = [_timed(vault.recall, q, identity=who) for q in asked]
    hits = [_timed(vault.recall, q, identity=who) for q in asked]
    served = sum(vault.recall(q, identity=who).cache_hit for q in asked[:10])
    vault.close()
    mcp = anyio.run(_over_mcp, Path(spec["vault"]), queries[5 + spec["queries"] :])
    return {
        "miss_ms": statistics.median(misses) * 1000,
        "hit_ms": statistics.median(hits) * 1000,
        "mcp_ms": statistics.median(mcp) * 1000,
        "served_from_cache": served,
        "cache_rows": _rows(Path(spec["vault"])),
        "seen": seen,
        "embedder": spec["embedder"],
        "entries": len(Vault.open(spec["vault"]).recall_service().index.loaded().entries),
    }


def _fill(vault: Any, count: int, root: Path) -> int:
    """Store one real answer under ``count`` distinct questions through the arm's own cache
    API (once per vault copy), as ``count`` recalls of the default options would."""
    marker = root / ".git" / "clawql" / FILLED
    if marker.exists() or count <= 0:
        return count
    import numpy as np

    from clawql_git.recall.pipeline import RecallQuery

    service = vault.recall_service()
    result = vault.recall("what did we decide about the storage layer", use_cache=False)
    index, commit, _ = service.index_for(None)
    sha, cache = str(commit.id), service.cache()
    rng = np.random.default_rng(5)
    old_api = len(inspect.signature(cache.put).parameters) == 5
    for n in range(count):
        q = RecallQuery(f"an earlier question number {n} about the storage layer")
        if old_api:  # (sha, params, q, qvec, result): a unit vector per question
            vec = rng.standard_normal(index.embedder.dim).astype("float32")
            cache.put(
                sha, f"{index.embedder_id}|{q.cache_key()}", q, vec / np.linalg.norm(vec), result
            )
        else:
            from clawql_git.recall.cache import cache_key

            cache.put(cache_key(sha, index.embedder_id, q), sha, result)
    marker.write_text(str(count))
    return count


def _rows(root: Path) -> int:
    import sqlite3

    db = sqlite3.connect(root / ".git" / "clawql" / "recall-cache.sqlite")
    try:
        return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
    finally:
        db.close()


async def _over_mcp(vault: Path, queries: list[str]) -> list[float]:
    """Seconds of each ``memory_recall`` call through the real MCP client (warm server)."""
    from mcp_speed import connected, recall

    times = []
    async with connected(vault) as (session, _):
        for q in queries[:5]:
            await recall(session, f"mcp warm-up {q}")
        for q in queries[5:]:
            elapsed, _found = await recall(session, q)
            times.append(elapsed)
    return times


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
    "miss_ms": "in-process recall, unseen question p50 (ms)",
    "hit_ms": "in-process recall, asked again p50 (ms)",
    "mcp_ms": "MCP memory_recall, unseen question p50 (ms)",
    "cache_rows": "answers in the cache after the round",
}


def run(args: argparse.Namespace) -> dict[str, Any]:
    arms = arms_of(args.baseline)
    with tempfile.TemporaryDirectory(prefix="clawql-default-ab-") as tmp:
        copies = {name: Path(tmp) / name for name in arms}
        for name, copy in copies.items():
            progress(f"copying {args.vault} for {name}")
            shutil.copytree(args.vault, copy, symlinks=True)
            (copy / ".git" / "clawql" / "recall-cache.sqlite").unlink(missing_ok=True)

        def measure(name: str, r: int) -> dict[str, Any]:
            spec = {
                "queries": args.queries,
                "mcp_calls": args.mcp_calls,
                "seen": args.seen,
                "round": r,
                "embedder": args.embedder,
            }
            return run_arm(arms[name], copies[name], spec)

        return alternate(arms, args.rounds, measure, progress)


def render(report: dict[str, Any]) -> str:
    rows = report["rounds"]["this"]
    head = (
        f"default recall A/B: {len(rows)} rounds per arm, {rows[0]['entries']:,} entries, "
        f"embedder {rows[0]['embedder'] or 'packaged'}, audit on, "
        f"cache that has seen {rows[0]['seen']:,} recalls; "
        f"1-min load {load_range(report)}"
    )
    table = ratio_table(report, LABELS, "median of round medians", 46, 1)
    served = {name: [r["served_from_cache"] for r in rs] for name, rs in report["rounds"].items()}
    return "\n".join([head, *table, f"asked-again served from the cache (of 10): {served}"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", help="a vault built by mcp_speed.py --keep (minilm index)")
    parser.add_argument("--baseline", help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", type=int, default=60, help="timed in-process recalls")
    parser.add_argument("--mcp-calls", type=int, default=40, help="memory_recall calls")
    parser.add_argument("--seen", type=int, default=10_000, help="recalls the cache has seen")
    parser.add_argument(
        "--embedder", default="", help="as the vault's index was built (default: packaged)"
    )
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
