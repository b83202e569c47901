"""Replay recall_heldout.py's question sets through the engine's pipeline under variants of the
fusion, fast: each question's embedding and full-text hits are worked out once and reused, so a
variant costs only the fusion, links, ranker and weights after them.

A variant is a name in ``VARIANTS`` (a candidate's fused score) or ``FUSE_VARIANTS`` (the
whole fusion of one query) with parameters (``--grid name:key=v1,v2;key2=...``); every
combination is scored (R@5, hit@20, MRR@10) per family and split, beside the shipped fusion
(whose figures are recall_heldout.py's ``default`` column, same vaults). Choose on the tuning
halves (``tune``); the held-out figures are printed for the report, never for the choice.

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/fusion_replay.py --keep /tmp/rq-vaults
--grid 'weights:vector=0.05,0.1;entry_vector=0.15,0.3'``
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall_heldout as rh  # noqa: E402

from clawql_git.recall import pipeline  # noqa: E402
from clawql_git.recall.pipeline import Recaller, RecallQuery  # noqa: E402

ASKED = [""]  # the question being replayed, for variants that read it


class Prepared:
    """One question set with its questions' vectors and full-text hits memoised."""

    def __init__(self, qs: rh.QuestionSet) -> None:
        self.qs = qs
        service = qs.vault.recall_service()
        service.ensure()
        self.recaller = Recaller(service.index)
        embedder = service.index.embedder
        assert embedder is not None
        self.qvecs = {q.id: embedder.embed_query(q.text) for q in qs.questions}
        fts = self.recaller._fts
        memo: dict[tuple[str, str], Any] = {}

        def cached(q: RecallQuery, where: str) -> Any:
            key = (q.text, where)
            if key not in memo:
                memo[key] = fts(q, where)
            return memo[key]

        self.recaller._fts = cached  # type: ignore[method-assign]

    def ranking(self, question: rh.Question) -> list[str]:
        ASKED[0] = question.text
        q = RecallQuery(question.text, limit=rh.DEPTH, max_tokens=10**9, min_score=0.0)
        ranked, _ = self.recaller.search(q, self.qvecs[question.id], need=rh.DEPTH)
        return [p for p, _, _ in ranked[: rh.DEPTH]]


def score_all(sets: Sequence[Prepared]) -> dict[str, dict[str, float]]:
    """family/split -> mean metrics under the pipeline as it is now patched."""
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for prep in sets:
        family = "decisions" if prep.qs.name == "adr" else "conversations"
        for q in prep.qs.questions:
            s = rh.score(q.relevant, prep.ranking(q))
            groups[f"{family}/{q.split}"].append(s)
            if family == "decisions":
                groups[f"{family}/{q.split}/{q.kind}"].append(s)
    return {
        g: {"n": len(rows)} | {m: round(sum(r[m] for r in rows) / len(rows), 4) for m in rh.METRICS}
        for g, rows in sorted(groups.items())
    }


# ---------------------------------------------------------------- variants


def _shipped(**_: float) -> Callable[..., float]:
    return pipeline._fused


def _weights(**params: float) -> Callable[..., float]:
    """The shipped fusion with other layer weights."""
    weights = dict(pipeline.WEIGHTS) | params
    base = pipeline._fused

    def fused(cand: Any, best: dict[str, float]) -> float:
        saved = dict(pipeline.WEIGHTS)
        pipeline.WEIGHTS.update(weights)
        try:
            return base(cand, best)
        finally:
            pipeline.WEIGHTS.update(saved)

    return fused


STEM = 5


def coverage(text: str, cands: dict[str, Any]) -> float:
    """Share of the query's content words (crudely stemmed) found in the snippet of the
    full-text layer's best chunk (0 with no full-text hit)."""
    from clawql_git.recall.ranker import _content

    terms = {t[:STEM] for t in _content(text)}
    fts = [(c.scores["fts"], c.snippet) for c in cands.values() if "fts" in c.scores]
    if not terms or not fts:
        return 0.0
    snippet = max(fts)[1]
    words = {w[:STEM] for w in pipeline.WORD.findall(snippet.lower())}
    return len(terms & words) / len(terms)


def _coverage(
    a: float = 0.0, b: float = 0.0, vector: float = 0.05, entry: float = 0.15, power: float = 1.0
) -> Callable[..., Any]:
    """Vector weights times (1 + a * miss) and the full-text weight times (1 - b * miss), with
    miss = (1 - coverage) ** power."""
    base_weights = dict(pipeline.WEIGHTS) | {"vector": vector, "entry_vector": entry}
    original = pipeline._fuse

    def fuse(cands: dict[str, Any]) -> list[tuple[str, float]]:
        miss = (1 - coverage(ASKED[0], cands)) ** power
        saved = dict(pipeline.WEIGHTS)
        pipeline.WEIGHTS.update(base_weights)
        pipeline.WEIGHTS["vector"] *= 1 + a * miss
        pipeline.WEIGHTS["entry_vector"] *= 1 + a * miss
        pipeline.WEIGHTS["fts"] *= 1 - b * miss
        try:
            return original(cands)
        finally:
            pipeline.WEIGHTS.update(saved)

    return fuse


def _zfts(
    fts: float = 0.3, vector: float = 0.05, entry: float = 0.15, a: float = 0.0, b: float = 0.0
) -> Callable[..., Any]:
    """Full-text scores in deviations above their pool's mean too (0 outside it), with the
    coverage adaptation of ``_coverage``."""
    original = pipeline._fuse
    base_weights = dict(pipeline.WEIGHTS) | {"vector": vector, "entry_vector": entry, "fts": 0.0}

    def fuse(cands: dict[str, Any]) -> list[tuple[str, float]]:
        import numpy as np

        miss = 1 - coverage(ASKED[0], cands)
        pool = np.array([c.scores["fts"] for c in cands.values() if "fts" in c.scores])
        mean, std = (float(pool.mean()), float(pool.std()) or 1.0) if len(pool) else (0.0, 1.0)
        saved = dict(pipeline.WEIGHTS)
        pipeline.WEIGHTS.update(base_weights)
        pipeline.WEIGHTS["vector"] *= 1 + a * miss
        pipeline.WEIGHTS["entry_vector"] *= 1 + a * miss
        wf = fts * (1 - b * miss)
        try:
            ranked = original(cands)
        finally:
            pipeline.WEIGHTS.update(saved)
        out = [
            (p, s + wf * max(0.0, (cands[p].scores.get("fts", mean) - mean) / std))
            for p, s in ranked
        ]
        return sorted(out, key=lambda kv: (-kv[1], kv[0]))

    return fuse


def separation(cands: dict[str, Any], k: int = 5) -> float:
    """How far the best whole-entry cosine stands above the k-th best among the candidates,
    in the index's deviations (a clear nearest entry: the vectors know the answer)."""
    z = sorted((c.standard[1] for c in cands.values()), reverse=True)
    return z[0] - z[min(k, len(z)) - 1] if z else 0.0


def _confident(
    a: float = 4.0, b: float = 0.0, g0: float = 1.0, g1: float = 1.0, cov: float = 1.0, k: float = 5
) -> Callable[..., Any]:
    """Vector weights times (1 + a * lift), full text times (1 - b * lift), with lift the
    vectors' separation past ``g0`` (over ``g1``, at most 1), times the coverage miss when
    ``cov``."""
    original = pipeline._fuse

    def fuse(cands: dict[str, Any]) -> list[tuple[str, float]]:
        lift = min(1.0, max(0.0, separation(cands, int(k)) - g0) / g1)
        if cov:
            lift *= 1 - coverage(ASKED[0], cands)
        saved = dict(pipeline.WEIGHTS)
        pipeline.WEIGHTS["vector"] *= 1 + a * lift
        pipeline.WEIGHTS["entry_vector"] *= 1 + a * lift
        pipeline.WEIGHTS["fts"] *= 1 - b * lift
        try:
            return original(cands)
        finally:
            pipeline.WEIGHTS.update(saved)

    return fuse


def _gated(
    fts: float = 0.2, entry: float = 0.15, g0: float = 0.5, g1: float = 0.5, cov: float = 1.0
) -> Callable[..., Any]:
    """The shipped fusion and ``_zfts``'s, mixed per query by the lift of ``_confident``."""
    original = pipeline._fuse
    z = _zfts(fts=fts, entry=entry)

    def fuse(cands: dict[str, Any]) -> list[tuple[str, float]]:
        lift = min(1.0, max(0.0, separation(cands) - g0) / g1)
        if cov:
            lift *= 1 - coverage(ASKED[0], cands)
        plain = dict(original(cands))
        if lift == 0:
            return sorted(plain.items(), key=lambda kv: (-kv[1], kv[0]))
        mixed = {p: (1 - lift) * plain[p] + lift * s for p, s in z(cands)}
        return sorted(mixed.items(), key=lambda kv: (-kv[1], kv[0]))

    return fuse


def _impute(f: float = 1.0, a: float = 0.0, b: float = 0.0) -> Callable[..., Any]:
    """Candidates outside the full-text pool scored ``f`` times the pool's lowest score (their
    score is unknown, not zero), then ``_confident``'s lift when ``a``."""
    inner = _confident(a=a, b=b, g0=0.5, g1=0.5) if a else pipeline._fuse

    def fuse(cands: dict[str, Any]) -> list[tuple[str, float]]:
        pool = [c.scores["fts"] for c in cands.values() if "fts" in c.scores]
        if not pool:
            return inner(cands)
        floor = f * min(pool)
        added = [c for c in cands.values() if "fts" not in c.scores]
        for c in added:
            c.scores["fts"] = floor
        try:
            return inner(cands)
        finally:
            for c in added:
                del c.scores["fts"]

    return fuse


FUSE_VARIANTS: dict[str, Callable[..., Callable[..., Any]]] = {
    "impute": _impute,
    "gated": _gated,
    "confident": _confident,
    "coverage": _coverage,
    "zfts": _zfts,
}
VARIANTS: dict[str, Callable[..., Callable[..., float]]] = {
    "shipped": _shipped,
    "weights": _weights,
}


def grid(spec: str) -> list[tuple[str, dict[str, float]]]:
    """``name:key=a,b;key2=c`` -> every (name, params) combination."""
    name, _, rest = spec.partition(":")
    axes = []
    for part in filter(None, rest.split(";")):
        key, _, values = part.partition("=")
        axes.append([(key, float(v)) for v in values.split(",")])
    return [(name, dict(combo)) for combo in itertools.product(*axes)] or [(name, {})]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--kinds", default=",".join(rh.KINDS))
    parser.add_argument("--grid", action="append", default=[], help="name:key=v1,v2;key2=...")
    parser.add_argument("--no-ranker", action="store_true", help="the learned ranker off")
    args = parser.parse_args(argv)
    hargs = rh.parse_args(["--kinds", args.kinds, "--keep", str(args.keep)])
    notes: list[str] = []
    sets = [Prepared(qs) for qs in rh.question_sets(hargs, args.keep.resolve(), notes)]
    pipeline.LEARNED_RANKER = not args.no_ranker
    runs = [("shipped", {})] + [c for spec in args.grid for c in grid(spec)]
    original, original_fuse = pipeline._fused, pipeline._fuse
    for name, params in runs:
        if name in FUSE_VARIANTS:
            pipeline._fuse = FUSE_VARIANTS[name](**params)  # type: ignore[assignment]
        else:
            pipeline._fused = VARIANTS[name](**params)  # type: ignore[assignment]
        try:
            result = score_all(sets)
        finally:
            pipeline._fused, pipeline._fuse = original, original_fuse  # type: ignore[assignment]
        print(json.dumps({"variant": name, "params": params, "scores": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
