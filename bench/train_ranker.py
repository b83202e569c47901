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


def examples(vault: Vault, pairs: Sequence[tuple[str, Any]]) -> list[tuple[str, Any, Any]]:
    """(kind, feature matrix, index of the answer) for each pseudo-query whose answer is among
    the fusion's top candidates (for a set of answers: the indices of those there)."""
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
        found = [n for n, p in enumerate(paths) if p == answer or p in answer]
        if not found:
            continue
        cands = {p: c for p, c, _ in ranked[: ranker.DEPTH]}
        ctx = ranker.RankContext(text, qvec, service.index.loaded())
        matrix, kind = ranker.features(head, cands, ctx)
        out.append((kind.kind, matrix, found[0] if isinstance(answer, str) else found))
    pipeline.LEARNED_RANKER = True
    return out


def fit(data: Sequence[tuple[Any, int]], l2: float = 1e-3, steps: int = 1500) -> np.ndarray:
    """Listwise softmax regression: maximise the answer's share of exp(score) per query, with
    an L2 pull towards the fusion's order (weight 1 on the fused score, 0 elsewhere)."""
    base = np.zeros(len(ranker.FEATURES), dtype=np.float64)
    base[0] = 1.0
    w = base.copy()
    lr = 0.5
    for _ in range(steps):
        grad = l2 * (w - base)
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
        best = max(s[i] for i in y) if isinstance(y, list) else s[y]
        rank = int((s > best).sum()) + 1
        total += 1 / rank if rank <= 10 else 0.0
    return total / max(len(data), 1)


def _dump(path: Path, found: Sequence[tuple[str, Any, int]]) -> None:
    arrays = {f"x{n}": x for n, (_, x, _) in enumerate(found)}
    meta = [(kind, y) for kind, _, y in found]
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def _load(path: Path) -> list[tuple[str, Any, int]]:
    data = np.load(path)
    meta = json.loads(str(data["meta"]))
    return [(kind, data[f"x{n}"], y) for n, (kind, y) in enumerate(meta)]


def tune_questions(keep: Path, per_vault: int) -> list[tuple[str, Any, Any]]:
    """Features of tuning-split questions (conversations of the tuning half; ADR rows marked
    tune), used only to choose the regularisation, never as training examples."""
    out: list[tuple[str, Any, Any]] = []
    convs = sorted(p for p in keep.glob("locomo-*") if p.is_dir())
    data = rh.locomo_conversations(None) or []
    by_id = {f"locomo-{c['sample_id']}": c for c in data}
    for path in convs[: len(convs) // 2]:
        vault = Vault.open(path)
        by_dia = {str(e.meta.get("dia_id")): e.path for e in vault.entries(identity=rh.IDENTITY)}
        pairs = []
        for qa in by_id[path.name]["qa"]:
            rel = {by_dia[d] for d in rh._dia_ids(qa.get("evidence")) if d in by_dia}
            if rel:
                pairs.append((qa["question"], rel))
        out += examples(vault, rh.thin(pairs, per_vault))  # type: ignore[arg-type]
        vault.close()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True, help="vaults of recall_heldout.py")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--write", action="store_true", help="write ranker_weights.json")
    parser.add_argument("--sources", default="adr,conversations", help="%(default)s")
    parser.add_argument("--select", type=int, default=0, help="choose L2 on N tune questions/vault")
    parser.add_argument("--dump", type=Path, help="save the examples (npz) for a later --load")
    parser.add_argument("--load", type=Path, nargs="*", default=[], help="examples saved before")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    found: list[tuple[str, Any, int]] = []
    for saved in args.load:
        found += _load(saved)
    if "adr" in args.sources:
        adr = Vault.open(args.keep / "adr")
        found += examples(adr, adr_queries(adr, rng))
        adr.close()
    convs = sorted(p for p in args.keep.glob("locomo-*") if p.is_dir())
    for path in convs[: len(convs) // 2] if "conversations" in args.sources else []:
        vault = Vault.open(path)  # the tuning half only
        found += examples(vault, conversation_queries(vault, rng))
        vault.close()
    if args.dump:
        _dump(args.dump, found)
    by_kind: dict[str, list[tuple[Any, int]]] = defaultdict(list)
    for kind, x, y in found:
        by_kind[kind].append((x, y))
    base = np.zeros(len(ranker.FEATURES))
    base[0] = 1.0
    tune: dict[str, list[tuple[Any, Any]]] = defaultdict(list)
    for kind, x, y in tune_questions(args.keep, args.select) if args.select else []:
        tune[kind].append((x, y))
    weights, report = {}, {}
    for kind in ranker.KINDS:
        data = by_kind.get(kind) or by_kind["plain"]
        fits = {l2: fit(data, l2) for l2 in ((0.001, 0.03, 0.3, 3.0) if tune else (0.001,))}
        chosen = max(fits, key=lambda l2: mrr(tune.get(kind, []), fits[l2]) if tune else 0)
        w = fits[chosen]
        weights[kind] = [round(float(v), 4) for v in w]
        report[kind] = {
            "l2": chosen,
            "tune_mrr": {str(l2): round(mrr(tune.get(kind, []), f), 4) for l2, f in fits.items()}
            | {"fusion": round(mrr(tune.get(kind, []), base), 4), "n": len(tune.get(kind, []))},
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
