"""Duplicate and contradiction detector bench on labelled pairs made from the ADR corpus
(/work/shared/corpora/adr, written by nine public projects, nobody here).

Each pair is (a new entry's text, an existing ADR) with a label (``duplicate`` or not) and a
kind (bench/data/duplicate_pairs.jsonl, written by ``--make`` from the corpus and
bench/data/restatements.jsonl; the labels follow from the kind):

- ``restated``: an ADR vs a one-sentence restatement of its decision in other words (written by
  hand for this bench): duplicate.
- ``summary``: an ADR vs its own title, problem statement and decision outcome (an agent's
  short note of the same decision): duplicate.
- ``swapped``: an ADR vs that summary with the chosen option replaced by another option the ADR
  considered (same topic, different decision): NOT a duplicate; a contradiction.
- ``superseding``: an ADR vs the ADR that supersedes it: NOT a duplicate.
- ``neighbour``: an ADR vs the most similar other ADR of the same project: NOT a duplicate.

Prints precision, recall and F1 of ``clawql_git.model.claims.judge`` at its default threshold
(term overlap + packaged MiniLM cosine, with the disagreement veto), the same without the
embedder, and a plain term-overlap (Jaccard) baseline at its best threshold on these pairs.

Run: ``.venv/bin/python bench/duplicates.py [--make] [--json] [--threshold 0.72]``
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawql_git.model import claims

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpora" / "adr"
PAIRS = HERE / "data" / "duplicate_pairs.jsonl"
RESTATED = HERE / "data" / "restatements.jsonl"
DUPLICATE_KINDS = ("restated", "summary")
_HEADING = re.compile(r"^(#+)\s+(.+?)\s*#*\s*$", re.MULTILINE)
_CHOSEN = re.compile(r"(Chosen option:\s*)(.+?)(,\s*because.*|$)", re.IGNORECASE | re.MULTILINE)
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Doc:
    """One ADR: its file (relative to the corpus), title and body."""

    file: str
    title: str
    body: str

    @property
    def text(self) -> str:
        return claims.text_of(self.title, "", self.body)


def read_doc(file: str) -> Doc:
    """An ADR split into its first heading (the title) and the rest."""
    raw = (CORPUS / file).read_text(encoding="utf-8", errors="replace")
    found = _HEADING.search(raw)
    title = found.group(2) if found else Path(file).stem
    body = raw[found.end() :] if found else raw
    return Doc(file, title.strip(), body.strip())


def sections(body: str) -> dict[str, str]:
    """Heading (lower case) -> text under it, up to the next heading."""
    marks = list(_HEADING.finditer(body))
    out: dict[str, str] = {}
    for n, mark in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(body)
        out.setdefault(mark.group(2).strip().lower(), body[mark.end() : end].strip())
    return out


def _first(parts: dict[str, str], *words: str) -> str:
    for heading, text in parts.items():
        if any(w in heading for w in words) and text:
            return text
    return ""


def _paragraph(text: str) -> str:
    return text.split("\n\n", 1)[0].strip()


def summary(doc: Doc) -> str:
    """The ADR's title, the first paragraph of its problem and of its decision."""
    parts = sections(doc.body)
    problem = _paragraph(_first(parts, "problem", "context"))
    decision = _paragraph(_first(parts, "decision outcome", "decision"))
    if not decision:
        return ""
    return claims.text_of(doc.title, "", f"{problem}\n\n{decision}".strip())


def considered(doc: Doc) -> list[str]:
    """The options a MADR lists under "Considered Options"."""
    text = _first(sections(doc.body), "considered options")
    return [m.group(1).strip('*"` ') for m in _ITEM.finditer(text)]


def swapped(doc: Doc, text: str) -> str:
    """The summary with "Chosen option: X, because ..." naming another considered option."""
    found = _CHOSEN.search(text)
    if found is None:
        return ""
    chosen = found.group(2).strip('*"` ').lower()
    others = [o for o in considered(doc) if o.lower() != chosen and o.lower() not in chosen]
    if not others:
        return ""
    return text[: found.start()] + f'Chosen option: "{others[0]}".' + text[found.end() :]


def superseding(docs: dict[str, Doc]) -> list[tuple[str, str]]:
    """(old, new) pairs where an ADR says it is superseded by another file of the corpus."""
    pairs = []
    for doc in docs.values():
        status = re.search(r"supersede[sd]? by[^\n]*?\(([^)\s]+\.md)\)", doc.body, re.IGNORECASE)
        if status is None:
            continue
        target = str((Path(doc.file).parent / status.group(1)).as_posix())
        target = re.sub(r"[^/]+/\.\./", "", target.replace("./", ""))
        if target in docs and target != doc.file:
            pairs.append((doc.file, target))
    return pairs


def neighbour(doc: Doc, docs: dict[str, Doc], seen: dict[str, set[str]]) -> str:
    """The other ADR of the same project whose terms overlap ``doc``'s most."""
    repo = doc.file.split("/", 1)[0]
    mine = seen[doc.file]
    best, best_score = "", -1.0
    for other in docs.values():
        if other.file == doc.file or not other.file.startswith(repo + "/"):
            continue
        score = claims.jaccard(mine, seen[other.file])
        if score > best_score:
            best, best_score = other.file, score
    return best


def make_pairs() -> list[dict[str, Any]]:
    """Every labelled pair, deterministically, from the corpus and the restatements."""
    files = sorted(
        line.split("\t", 1)[0]
        for line in (CORPUS / "MANIFEST.tsv").read_text().splitlines()[1:]
        if line.strip()
    )
    docs = {f: read_doc(f) for f in files}
    seen = {f: claims.terms(d.text) for f, d in docs.items()}
    pairs: list[dict[str, Any]] = []
    for line in RESTATED.read_text().splitlines():
        item = json.loads(line)
        pairs.append({"kind": "restated", "old": item["file"], "new": item["text"]})
    for file, doc in docs.items():
        short = summary(doc)
        if not short:
            continue
        pairs.append({"kind": "summary", "old": file, "new": short})
        other = swapped(doc, short)
        if other:
            pairs.append({"kind": "swapped", "old": file, "new": other})
    for old, new in superseding(docs):
        pairs.append({"kind": "superseding", "old": old, "new_file": new})
    for n, (file, doc) in enumerate(docs.items()):
        if n % 4 == 0:  # a quarter of the corpus: as many near neighbours as other negatives
            pairs.append({"kind": "neighbour", "old": file, "new_file": neighbour(doc, docs, seen)})
    for pair in pairs:
        pair["duplicate"] = pair["kind"] in DUPLICATE_KINDS
    return pairs


def new_text(pair: dict[str, Any]) -> str:
    """The text of the pair's new entry."""
    if "new_file" in pair:
        return read_doc(pair["new_file"]).text
    return str(pair["new"])


def load_pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]


def cosines(pairs: list[dict[str, Any]]) -> list[float] | None:
    """The packaged MiniLM cosine of each pair (texts cut as the vault cuts them)."""
    from clawql_git.errors import InvalidInput
    from clawql_git.index.embedders import MiniLMEmbedder, locate_minilm

    try:
        model = MiniLMEmbedder(locate_minilm())
    except InvalidInput:
        return None
    news = model.embed([claims.embed_text(new_text(p)) for p in pairs])
    olds = model.embed([claims.embed_text(read_doc(p["old"]).text) for p in pairs])
    return [float(a @ b) for a, b in zip(news, olds, strict=True)]


def scores(labels: list[bool], predicted: list[bool]) -> dict[str, float]:
    tp = sum(1 for y, p in zip(labels, predicted, strict=True) if y and p)
    fp = sum(1 for y, p in zip(labels, predicted, strict=True) if not y and p)
    fn = sum(1 for y, p in zip(labels, predicted, strict=True) if y and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def best_baseline(labels: list[bool], values: list[float]) -> tuple[float, dict[str, float]]:
    """The Jaccard threshold with the best F1 on these pairs (the baseline's best case)."""
    best = (0.0, scores(labels, [False] * len(labels)))
    for step in range(1, 100):
        cut = step / 100
        found = scores(labels, [v >= cut for v in values])
        if found["f1"] > best[1]["f1"]:
            best = (cut, found)
    return best


def run(threshold: float) -> dict[str, Any]:
    pairs = load_pairs()
    labels = [bool(p["duplicate"]) for p in pairs]
    texts = [(new_text(p), read_doc(p["old"]).text) for p in pairs]
    sims = cosines(pairs)
    ours = [
        claims.judge(a, b, sims[i] if sims else None, threshold) for i, (a, b) in enumerate(texts)
    ]
    terms_only = [claims.judge(a, b, None, threshold) for a, b in texts]
    jac = [claims.jaccard(claims.terms(a), claims.terms(b)) for a, b in texts]
    cut, baseline = best_baseline(labels, jac)
    contradicted = Counter(p["kind"] for p, v in zip(pairs, ours, strict=True) if v.contradiction)
    return {
        "pairs": len(pairs),
        "kinds": dict(Counter(p["kind"] for p in pairs)),
        "threshold": threshold,
        "embedder": "minilm" if sims else "none (MiniLM not installed)",
        "ours": scores(labels, [v.duplicate for v in ours]),
        "ours_terms_only": scores(labels, [v.duplicate for v in terms_only]),
        "baseline_jaccard": {**baseline, "threshold": cut},
        "baseline_jaccard_at_default": scores(labels, [v >= threshold for v in jac]),
        "contradictions_flagged": dict(contradicted),
        "missed_by_kind": dict(
            Counter(
                p["kind"] for p, v, y in zip(pairs, ours, labels, strict=True) if v.duplicate != y
            )
        ),
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        f"duplicate detector on {report['pairs']} labelled ADR pairs {report['kinds']}",
        f"embedder: {report['embedder']}; default threshold {report['threshold']}",
        f"{'detector':<44} {'precision':>9} {'recall':>7} {'F1':>6}  tp/fp/fn",
    ]
    rows = [
        ("ours (terms + MiniLM + disagreement veto)", report["ours"]),
        ("ours, terms only (no embedder)", report["ours_terms_only"]),
        (
            f"Jaccard baseline, best cut {report['baseline_jaccard']['threshold']}",
            report["baseline_jaccard"],
        ),
        ("Jaccard baseline at the default threshold", report["baseline_jaccard_at_default"]),
    ]
    for name, s in rows:
        lines.append(
            f"{name:<44} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f}  "
            f"{s['tp']}/{s['fp']}/{s['fn']}"
        )
    lines.append(f"contradictions flagged by kind: {report['contradictions_flagged']}")
    lines.append(f"wrong calls by kind: {report['missed_by_kind']}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--make", action="store_true", help="Write the pairs file from the corpus.")
    parser.add_argument("--threshold", type=float, default=claims.DUPLICATE_THRESHOLD)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no ADR corpus at {CORPUS}", file=sys.stderr)
        return 2
    if args.make:
        pairs = make_pairs()
        PAIRS.write_text("".join(json.dumps(p, sort_keys=True) + "\n" for p in pairs))
        print(f"wrote {len(pairs)} pairs to {PAIRS}: {dict(Counter(p['kind'] for p in pairs))}")
        return 0
    report = run(args.threshold)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
