"""Train the learned ranker's weights (clawql_git/recall/ranker_weights.json) on pseudo-queries
drawn from document structure, never from a question set:

- decision records (the ADR corpus bodies): a section's heading with part of its first
  sentence, or part of the record's first sentence; the answer is that record;
- conversation turns of the *tuning* half of LoCoMo only (conversations the held-out split
  never uses): part of a turn's text, named after its speaker ("Caroline ..."), asked as
  "when did ..." or dated by its session's month; the answer is that turn.

Each pseudo-query runs through the engine's pipeline with the ranker off; the features of its
top candidates (recall/ranker.py) feed a listwise softmax model, one weight set per query kind.

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/train_ranker.py --keep /tmp/rq-vaults [--write]``
(the vaults are the ones bench/recall_heldout.py builds with the same ``--keep``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall_heldout as rh  # noqa: E402

from clawql_git import Vault  # noqa: E402
from clawql_git.recall import pipeline, ranker  # noqa: E402
from clawql_git.recall.pipeline import Recaller, RecallQuery  # noqa: E402

SECTION = re.compile(r"^#{2,4}\s+(.+?)\s*#*\s*$", re.MULTILINE)
SENTENCE = re.compile(r"(?<=[.!?])\s+")
TRAINED_ON = (
    "bench/train_ranker.py: pseudo-queries from ADR record structure and tuning-half LoCoMo "
    "turns (no question set)"
)
WEIGHTS = Path(ranker.__file__).with_name(ranker.WEIGHTS_FILE)


def partial(text: str, rng: random.Random, keep: float = 0.6, most: int = 14) -> str:
    """Some of the words of ``text``, in order (a query is never the sentence verbatim)."""
    words = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", text)][:40]
    kept = [w for w in words if rng.random() < keep][:most]
    return " ".join(kept)


def first_sentence(text: str) -> str:
    for para in text.split("\n\n"):
        para = para.strip()
        if para and not para.startswith(("#", "|", "-", "*", "```", ">")):
            return SENTENCE.split(para, maxsplit=1)[0]
    return ""


def adr_queries(vault: Vault, rng: random.Random) -> list[tuple[str, str]]:
    """(pseudo-query, answering entry) pairs from record structure."""
    out = []
    for entry in vault.entries(identity=rh.IDENTITY):
        body = entry.body
        picks = []
        lead = partial(first_sentence(body), rng)
        if len(lead.split()) >= 4:
            picks.append(lead)
        sections = list(SECTION.finditer(body))
        rng.shuffle(sections)
        for m in sections[:2]:
            start = m.end()
            nxt = SECTION.search(body, start)
            text = first_sentence(body[start : nxt.start() if nxt else len(body)])
            words = partial(text, rng, keep=0.5, most=10)
            if len(words.split()) >= 3:
                picks.append(f"{m.group(1)} {words}")
        out += [(q, entry.path) for q in picks]
    return out


def conversation_queries(vault: Vault, rng: random.Random) -> list[tuple[str, str]]:
    """Pseudo-queries from the turns of one (tuning-half) conversation."""
    out = []
    for entry in vault.entries(identity=rh.IDENTITY):
        words = partial(entry.body.split("\n\n")[0], rng, keep=0.5, most=8)
        if len(words.split()) < 4 or rng.random() > 0.5:
            continue
        speaker = str(entry.meta.get("speaker", ""))
        month = str(entry.meta.get("timestamp", ""))[:7]
        style = rng.randrange(4)
        if style == 0:
            q = f"{speaker} {words}"
        elif style == 1:
            q = f"When did {speaker} {words}"
        elif style == 2:
            q = f"{speaker} {words} in {_month_name(month)}"
        else:
            q = words
        out.append((q, entry.path))
    return out


def _month_name(month: str) -> str:
    import calendar

    year, m = month.split("-")
    return f"{calendar.month_name[int(m)]} {year}"


def examples(vault: Vault, pairs: Sequence[tuple[str, str]]) -> list[tuple[str, Any, int]]:
    """(kind, feature matrix, index of the answer) for each pseudo-query whose answer is among
    the fusion's top candidates."""
    service = vault.recall_service()
    service.ensure()
    recaller = Recaller(service.index)
    embedder = service.index.embedder
    assert embedder is not None
    out = []
    pipeline.LEARNED_RANKER = False
    for text, answer in pairs:
        qvec = embedder.embed_query(text)
        ranked, _ = recaller.search(RecallQuery(text, limit=ranker.DEPTH), qvec)
        head = [(p, s) for p, _, s in ranked[: ranker.DEPTH]]
        paths = [p for p, _ in head]
        if answer not in paths:
            continue
        cands = {p: c for p, c, _ in ranked[: ranker.DEPTH]}
        ctx = ranker.RankContext(text, qvec, service.index.loaded())
        matrix, kind = ranker.features(head, cands, ctx)
        out.append((kind.kind, matrix, paths.index(answer)))
    pipeline.LEARNED_RANKER = True
    return out


def fit(data: Sequence[tuple[Any, int]], l2: float = 1e-3, steps: int = 1500) -> np.ndarray:
    """Listwise softmax regression: maximise the answer's share of exp(score) per query."""
    w = np.zeros(len(ranker.FEATURES), dtype=np.float64)
    w[0] = 1.0  # start at the fusion's order
    lr = 0.5
    for _ in range(steps):
        grad = l2 * w
        for x, y in data:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += (x.T @ p - x[y]) / len(data)
        w -= lr * grad
    return w


def mrr(data: Sequence[tuple[Any, int]], w: np.ndarray) -> float:
    total = 0.0
    for x, y in data:
        s = x @ w
        rank = int((s > s[y]).sum()) + 1
        total += 1 / rank if rank <= 10 else 0.0
    return total / max(len(data), 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True, help="vaults of recall_heldout.py")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="write ranker_weights.json")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    by_kind: dict[str, list[tuple[Any, int]]] = defaultdict(list)
    adr = Vault.open(args.keep / "adr")
    for kind, x, y in examples(adr, adr_queries(adr, rng)):
        by_kind[kind].append((x, y))
    adr.close()
    convs = sorted(p for p in args.keep.glob("locomo-*") if p.is_dir())
    for path in convs[: len(convs) // 2]:  # the tuning half only
        vault = Vault.open(path)
        for kind, x, y in examples(vault, conversation_queries(vault, rng)):
            by_kind[kind].append((x, y))
        vault.close()
    base = np.zeros(len(ranker.FEATURES))
    base[0] = 1.0
    weights, report = {}, {}
    for kind in ranker.KINDS:
        data = by_kind.get(kind) or by_kind["plain"]
        w = fit(data)
        weights[kind] = [round(float(v), 4) for v in w]
        report[kind] = {
            "n": len(data),
            "mrr_fusion": round(mrr(data, base), 4),
            "mrr_model": round(mrr(data, w), 4),
        }
    print(json.dumps({"report": report, "weights": weights}, indent=1))
    if args.write:
        WEIGHTS.write_text(
            json.dumps(
                {
                    "features": list(ranker.FEATURES),
                    "trained_on": TRAINED_ON,
                    "seed": args.seed,
                    "examples": {k: len(v) for k, v in by_kind.items()},
                    "weights": weights,
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
