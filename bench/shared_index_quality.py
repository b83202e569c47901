"""The team's shared index on object storage, hybrid against full text only, beside the local
engine, in one run: import the decision records into a vault (the packaged embedding model),
publish its index to a local S3 server (moto's, over HTTP), and ask every question three ways:

- ``shared fts``: the shared reader without vectors (what ``recall --index`` was before);
- ``shared hybrid``: the shared reader with the model that built the index (today's default);
- ``local auto``: the local engine's default recall on the same vault.

Prints Recall@1, Recall@5, MRR@10 per reader and question kind, and the median latency.

Run: ``.venv/bin/python bench/shared_index_quality.py [--questions FILE] [--corpus DIR]
[--json]`` (needs the ``test`` extra for moto, and the ADR corpus at ``../shared``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_quality import (
    CORPUS,
    QUESTIONS,
    Question,
    build_index,
    build_vault,
    corpus_documents,
    load_questions,
    rank_of,
    ranked_sources,
    scores,
    vault_folder,
    vault_sources,
)

from clawql_git import Vault
from clawql_git.index.embedders import resolve_embedder
from clawql_git.sync.shared_index import SharedIndex, publish

READERS = ("shared fts", "shared hybrid", "local auto")
BUCKET = "bench-shared-index"
LIMIT = 10


def progress(message: str) -> None:
    print(f"[shared_index_quality] {message}", file=sys.stderr, flush=True)


def start_s3() -> tuple[Any, str]:
    """moto's S3 server on a free loopback port, with AWS_* pointing at it."""
    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    urllib.request.urlopen(
        urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=10
    ).close()
    os.environ.update(
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=endpoint,
    )
    import boto3

    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=BUCKET)
    return server, endpoint


def readers(vault: Vault, uri: str) -> dict[str, Callable[[str], list[str]]]:
    """Each reader as question -> source paths, best first."""
    by_entry = {entry: source for source, entry in vault_sources(vault).items()}
    fts = SharedIndex(uri, embedder=None)
    hybrid = SharedIndex(uri, embedder=vault.recall_service().index.embedder)

    def shared(index: SharedIndex) -> Callable[[str], list[str]]:
        return lambda text: [by_entry.get(h.path, h.path) for h in index.search(text, LIMIT)]

    return {
        "shared fts": shared(fts),
        "shared hybrid": shared(hybrid),
        "local auto": lambda text: ranked_sources(vault, text, "auto")[0],
    }


def evaluate(
    questions: Sequence[Question], ask: dict[str, Callable[[str], list[str]]]
) -> dict[str, Any]:
    """Ranks and latencies per reader, interleaved so that noise hits all readers alike."""
    ranks: dict[str, dict[str, list[int | None]]] = {r: {} for r in ask}
    seconds: dict[str, list[float]] = {r: [] for r in ask}
    for reader in ask.values():
        reader("warm up the readers")
    for n, q in enumerate(questions, 1):
        for name, reader in ask.items():
            start = time.perf_counter()
            sources = reader(q.question)
            seconds[name].append(time.perf_counter() - start)
            rank = rank_of(q.answer, sources)
            ranks[name].setdefault(q.kind, []).append(rank)
            ranks[name].setdefault("all", []).append(rank)
        if n % 50 == 0 or n == len(questions):
            progress(f"asked {n}/{len(questions)}")
    return {
        name: {
            "scores": {kind: scores(r) for kind, r in sorted(per_kind.items())},
            "p50_ms": round(statistics.median(seconds[name]) * 1000, 1),
        }
        for name, per_kind in ranks.items()
    }


def render(report: dict[str, Any]) -> str:
    kinds = list(next(iter(report["readers"].values()))["scores"])
    lines = [
        f"shared index quality: {report['documents']} records, {report['questions']} questions "
        f"({report['question_file']}), embedder {report['embedder']}",
        f"{'reader':<14} {'kind':<10} {'R@1':>6} {'R@5':>6} {'MRR@10':>7} {'p50 ms':>8}",
    ]
    for name, data in report["readers"].items():
        for kind in kinds:
            s = data["scores"][kind]
            p50 = f"{data['p50_ms']:>8.1f}" if kind == "all" else ""
            lines.append(
                f"{name:<14} {kind:<10} {s['R@1']:>6.3f} {s['R@5']:>6.3f} {s['MRR@10']:>7.3f} {p50}"
            )
    fts, hybrid = report["readers"]["shared fts"], report["readers"]["shared hybrid"]
    lines.append(
        f"hybrid/fts R@5: {hybrid['scores']['all']['R@5']:.3f} vs {fts['scores']['all']['R@5']:.3f}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions, errors = load_questions(args.questions)
    if errors:
        raise SystemExit("\n".join(errors))
    docs = corpus_documents(args.corpus)
    embedder = resolve_embedder(None, os.environ)
    server, _ = start_s3()
    try:
        with vault_folder(None) as folder:
            vault = build_vault(folder, args.corpus, docs, embedder)
            vault = Vault.open(folder, embedder=embedder)
            build_index(vault)
            start = time.perf_counter()
            done = publish(vault, f"s3://{BUCKET}/team")
            progress(f"published {done.files} files in {time.perf_counter() - start:.1f}s")
            results = evaluate(questions, readers(vault, f"s3://{BUCKET}/team"))
            vault.close()
    finally:
        server.stop()
    return {
        "documents": len(docs),
        "questions": len(questions),
        "question_file": args.questions.name,
        "embedder": embedder.id if embedder else "none",
        "readers": results,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        raise SystemExit(f"no corpus at {args.corpus} (the ADR corpus lives in ../shared)")
    report = run(args)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
