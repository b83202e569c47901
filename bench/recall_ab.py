"""Recall speed on the default path, this checkout against a baseline checkout, side by side in
one run: in-process ``Vault.recall`` with its default options (the answer cache on, every
recall recorded on the audit chain) and the packaged MiniLM embedding each question, against
an answer cache that has already taken 10,000 answers; fresh questions (cache misses) and the
same questions again (hits) timed apart; the index update after one ingest and the first
recall after that write; and whether both arms give the same top-10 for every question.

Run: ``.venv/bin/python bench/recall_ab.py --vault DIR --baseline OLD_CHECKOUT [--size 10000]
[--rounds 3] [--queries 40] [--fill 10000] [--writes 5] [--json]``

``--vault`` is kept: when DIR does not exist it is built there first (``--size`` entries from
the ADR corpus, as ``recall_speed.py`` seeds them; about a minute at 10,000), and later runs
reuse it. Each arm works on its own copy, so neither sees the other's writes. ``--baseline`` is
a checkout of the code to compare with (``git worktree add`` or ``git archive REV | tar -x -C
DIR``). The arms alternate, one child process each per round.

The embedder (``DefaultPathEmbedder``): every question is embedded by the packaged MiniLM, as
on the default path; the documents' vectors are hashed (``HashEmbedder(384)``) instead of
MiniLM's (which would take some 5 minutes per 10,000 chunks here). The vectors have the
packaged model's dimension (384), so the vector layers search as much as they would with
MiniLM; what differs is which chunks are nearest, and an index update embeds its new chunks
by hashing (no model time in the update figure).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ab import alternate, arms_of, load_range, medians, percentile, ratio_table

HERE = Path(__file__).resolve()
FILL = 10_000
TOP = 10


def progress(message: str) -> None:
    print(f"[recall_ab] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the child (one arm, one round)


class DefaultPathEmbedder:
    """Questions by the packaged MiniLM; documents hashed at MiniLM's dimension (see above)."""

    def __init__(self) -> None:
        from clawql_git.index.embedders import MINILM_DIM, HashEmbedder, resolve_embedder

        model = resolve_embedder(None, {})
        if model is None or model.dim != MINILM_DIM:
            raise SystemExit("the packaged MiniLM model is not installed")
        self.model = model
        self.docs = HashEmbedder(MINILM_DIM)
        self.dim = MINILM_DIM
        self.id = f"bench-docs-hash-{MINILM_DIM}+queries-{model.id}"

    @property
    def ready(self) -> bool:
        return bool(getattr(self.model, "ready", True))

    def embed(self, texts: Sequence[str]) -> Any:
        return self.docs.embed(texts)

    def embed_query(self, text: str) -> Any:
        return self.model.embed_query(text)


def child_build(spec: dict[str, Any]) -> dict[str, Any]:
    """Seed a vault of ``size`` entries and build its index (run with this checkout's code)."""
    sys.path.insert(0, str(HERE.parent))
    from datetime import UTC, datetime

    from corpus import CORPUS, history_months, load_corpus
    from recall_speed import HISTORY_MONTHS, build_vault

    from clawql_git import Vault

    path = Path(spec["vault"])
    months = history_months(datetime.now(UTC), HISTORY_MONTHS)
    seconds = build_vault(path, spec["size"], load_corpus(CORPUS), months)
    start = time.perf_counter()
    report = Vault.open(path, embedder=DefaultPathEmbedder()).update_index()
    return {"seed_s": seconds, "index_s": time.perf_counter() - start, "entries": report.entries}


def options(q: Any) -> dict[str, Any]:
    """The question's filters, every other option at its default (the cache on)."""
    return {"types": q.types, "tags": q.tags}


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """Measure one arm on its vault copy; runs with the arm's code first on sys.path."""
    sys.path.insert(0, str(HERE.parent))
    from corpus import CORPUS, load_corpus
    from recall_speed import make_queries

    from clawql_git import Identity, Vault
    from clawql_git.recall.cache import cache_key
    from clawql_git.recall.pipeline import RecallQuery

    r = spec["round"]
    queries = make_queries(load_corpus(CORPUS), 5 + spec["queries"] * (spec["rounds"] + 1))
    warmup = queries[:5]
    fresh = queries[5 + r * spec["queries"] : 5 + (r + 1) * spec["queries"]]
    who = Identity("bench", "recall-ab")
    vault = Vault.open(spec["vault"], embedder=DefaultPathEmbedder())
    vault.update_index()
    start = time.perf_counter()
    vault.recall(f"first question of round {r}", identity=who)
    first_load = time.perf_counter() - start

    service = vault.recall_service()
    sha = str(service.head().id)
    answer = vault.recall(f"an answer to fill the cache with {r}", identity=who)
    cache = service.cache()
    start = time.perf_counter()
    for i in range(spec["fill"]):
        key = cache_key(sha, service.index.embedder_id, RecallQuery(f"fill {r} {i} {answer.query}"))
        cache.put(key, sha, answer)
    fill_s = time.perf_counter() - start
    held = cache.count()

    for q in warmup:
        vault.recall(f"warm-up {r} {q.text}", identity=who, **options(q))
    prof = cProfile.Profile() if spec.get("profile") else None
    misses, answers = [], []
    for q in fresh:
        start = time.perf_counter()
        result = (
            prof.runcall(vault.recall, q.text, identity=who, **options(q))
            if prof
            else (vault.recall(q.text, identity=who, **options(q)))
        )
        misses.append(time.perf_counter() - start)
        if result.cache_hit:
            raise SystemExit(f"a fresh question was a cache hit: {q.text!r}")
        answers.append([h.path for h in result.hits[:TOP]])
    hits = []
    for q in fresh:
        start = time.perf_counter()
        result = vault.recall(q.text, identity=who, **options(q))
        hits.append(time.perf_counter() - start)
        if not result.cache_hit:
            raise SystemExit(f"a repeated question was not a cache hit: {q.text!r}")
    updates, after = [], []
    for n in range(spec["writes"]):
        vault.ingest(
            type="decision",
            title=f"Recall A/B write {r} {n}",
            body=f"A small decision written by the A/B bench, about {fresh[n].text}.",
            tags=["perf"],
            identity=who,
        )
        updates.append(_timed(vault.update_index))
        after.append(_timed(vault.recall, f"after write {r} {n} {fresh[n].text}", identity=who))
    out = {
        "miss_ms": statistics.median(misses) * 1000,
        "miss_p90_ms": percentile(misses, 90) * 1000,
        "hit_ms": statistics.median(hits) * 1000,
        "first_load_s": first_load,
        "update_ms": statistics.median(updates) * 1000,
        "first_after_write_ms": statistics.median(after) * 1000,
        "fill_s": fill_s,
        "cache_held": held,
        "entries": len(service.index.loaded().entries),
        "answers": answers,
    }
    if prof is not None:
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats("clawql_git", 40)
        out["profile"] = text.getvalue()
    return out


def _timed(fn: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


# ---------------------------------------------------------------- the driver


def run_child(code: Path, task: str, spec: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["PYTHONPATH"] = str(code)
    env.setdefault("LANCEDB_LOG", "error")
    out = subprocess.run(
        [sys.executable, str(HERE), f"--{task}", json.dumps(spec)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{task} child for {code} failed ({out.returncode})")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


LABELS = {
    "miss_ms": "fresh question (cache miss) p50 (ms)",
    "miss_p90_ms": "fresh question (cache miss) p90 (ms)",
    "hit_ms": "repeated question (cache hit) p50 (ms)",
    "update_ms": "index update after 1 ingest (ms)",
    "first_after_write_ms": "first recall after that write (ms)",
    "first_load_s": "first recall of a new process (s)",
}


def run(args: argparse.Namespace) -> dict[str, Any]:
    arms = arms_of(args.baseline)
    vault = Path(args.vault)
    built = None
    if not vault.exists():
        progress(f"building a {args.size:,}-entry vault in {vault}")
        built = run_child(arms["this"], "build", {"vault": str(vault), "size": args.size})
        progress(f"built: {built}")
    with tempfile.TemporaryDirectory(prefix="clawql-recall-ab-", dir=vault.parent) as tmp:
        copies = {name: Path(tmp) / name for name in arms}
        for name, copy in copies.items():
            progress(f"copying {vault} for {name}")
            shutil.copytree(vault, copy, symlinks=True)

        def measure(name: str, r: int) -> dict[str, Any]:
            spec = {
                "queries": args.queries,
                "rounds": args.rounds,
                "fill": args.fill,
                "writes": args.writes,
                "round": r,
                "vault": str(copies[name]),
                "profile": args.profile and name == "this" and r == 0,
            }
            return run_child(arms[name], "child", spec)

        report = alternate(arms, args.rounds, measure, quiet_progress)
    report["built"] = built
    return report


def quiet_progress(message: str) -> None:
    """Progress without the round's answers (a long list)."""
    progress(message.split(", 'answers'")[0] + "}")


def same_answers(report: dict[str, Any]) -> tuple[int, int]:
    """Questions (every round) whose top-10 is the same, in order, in both arms; and all."""
    pairs = zip(report["rounds"]["baseline"], report["rounds"]["this"], strict=True)
    same = total = 0
    for a, b in pairs:
        for x, y in zip(a["answers"], b["answers"], strict=True):
            same += x == y
            total += 1
    return same, total


def render(report: dict[str, Any]) -> str:
    rows = report["rounds"]["this"]
    same, total = same_answers(report)
    head = (
        f"recall A/B, default path: {len(rows)} rounds per arm, {rows[0]['entries']:,} entries, "
        f"answer cache holding {rows[0]['cache_held']:,} after {report['fill']:,} answers; "
        f"1-min load {load_range(report)}"
    )
    return "\n".join(
        [
            head,
            *ratio_table(report, LABELS, "median of round medians", 40, 1),
            f"top-{TOP} of every fresh question identical in both arms: {same}/{total}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", help="the bench vault (built here when missing)")
    parser.add_argument("--baseline", help="a checkout of the code to compare with")
    parser.add_argument("--size", type=int, default=10_000, help="entries of a vault built")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=40, help="fresh questions per round")
    parser.add_argument("--fill", type=int, default=FILL, help="answers put in the cache first")
    parser.add_argument("--writes", type=int, default=5, help="ingests per round")
    parser.add_argument("--profile", action="store_true", help="cProfile this arm's misses")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--build", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.build:
        result = (
            child(json.loads(args.child)) if args.child else child_build(json.loads(args.build))
        )
        print(json.dumps(result))
        return 0
    if not args.vault or not args.baseline:
        parser.error("--vault and --baseline are required")
    report = run(args)
    report["fill"] = args.fill
    report["summary"] = medians(report, LABELS)
    if args.profile:
        print(report["rounds"]["this"][0].get("profile", ""), file=sys.stderr)
    same, total = same_answers(report)
    report["same_answers"] = {"same": same, "total": total}
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
