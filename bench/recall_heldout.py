"""Held-out recall bench: question sets of different kinds, each split into a tuning half and a
held-out half, scored for the engine's default recall side by side with plain baselines
computed in the same run.

Sets (``--kinds``):

- ``conversations``: LoCoMo (snap-research/locomo, CC BY-NC, never committed here), one vault
  per conversation, one entry per dialog turn (type ``conversation``, the turn's speaker, the
  session's date as its timestamp); a question's relevant entries are its ``evidence`` turns.
  Conversations are split by id: the first half (sorted) tunes, the second is held out.
- ``decisions``: the ADR corpus (``../shared/corpora/adr``) with a question file (default
  ``bench/questions/adr_heldout.jsonl``, else ``adr.jsonl`` for plumbing); rows carry a
  ``split`` ("tune" / "heldout"), else one is derived from a hash of the id.

Methods: ``bm25`` (Okapi BM25 over whole entries, title + body), ``dense`` (cosine of the
packaged embedder's whole-entry vector), ``rrf`` (reciprocal-rank fusion of those two, k=60),
``fusion`` (the engine's pipeline with its learned ranker and its conversation-turn step off),
``no_turns`` (the default without the conversation-turn step, ``recall/turns.py``) and
``default`` (the engine's recall with default options but ``limit=20``, no token cut, no
relative-score cut, no cache).

Metrics: R@5 (share of a question's relevant entries in the top 5, averaged), hit@20 (any
relevant entry in the top 20), MRR@10 (first relevant entry). Below the table, the default
against each other method question by question: the mean difference with a 95% paired-bootstrap
interval and the questions won and lost, so a gap of a few questions on a hundred reads as what
it is.

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/recall_heldout.py [--kinds conversations,decisions]
[--locomo PATH] [--adr-questions FILE] [--limit N] [--keep DIR] [--json]``;
``--from-json REPORT`` renders an earlier ``--json`` report again (with the paired table).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from clawql_git import Identity, Vault

HERE = Path(__file__).resolve().parent
ADR_CORPUS = HERE.parents[1] / "shared" / "corpora" / "adr"
ADR_QUESTIONS = (HERE / "questions" / "adr_heldout.jsonl", HERE / "questions" / "adr.jsonl")
LOCOMO_MIRROR = Path("/work/.mirror/snap-research+locomo/repo")
LOCOMO_IN_MIRROR = "data/locomo10.zip"
KINDS = ("conversations", "decisions")
METHODS = ("bm25", "dense", "rrf", "fusion", "no_turns", "default")
METRICS = ("R@5", "hit@20", "MRR@10")
DEPTH = 20
TURN_FORMAT = "turns-by-the-second"  # turn_items' stamps; kept vaults of another are rebuilt
BOOTSTRAP = 2_000  # paired-bootstrap resamples per interval
IDENTITY = Identity(agent_id="bench-import", session_id="recall-heldout")
LOCOMO_CATEGORIES = {
    1: "multi_hop",
    2: "temporal",
    3: "open_domain",
    4: "single_hop",
    5: "adversarial",
}
WORD = re.compile(r"[a-z0-9]+")
os.environ.setdefault("LANCEDB_LOG", "error")


def progress(message: str) -> None:
    print(f"[recall_heldout] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Question:
    """One question, the entry paths that answer it, its kind and its split."""

    id: str
    text: str
    relevant: frozenset[str]
    kind: str
    split: str


@dataclass
class QuestionSet:
    """A vault and the questions asked of it."""

    name: str
    vault: Vault
    questions: list[Question] = field(default_factory=list)


# ---------------------------------------------------------------- LoCoMo


def locomo_conversations(path: Path | None) -> list[dict[str, Any]] | None:
    """The LoCoMo conversations from a JSON file, the dataset zip, or (no path) the zip in the
    mirror of snap-research/locomo; None when none of them is there."""
    raw: bytes | None = None
    if path is not None:
        raw = path.read_bytes()
    elif LOCOMO_MIRROR.is_dir():
        shown = subprocess.run(
            ["git", "-C", str(LOCOMO_MIRROR), "show", f"HEAD:{LOCOMO_IN_MIRROR}"],
            capture_output=True,
            check=False,
        )
        raw = shown.stdout if shown.returncode == 0 else None
    if raw is None:
        return None
    if raw[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            names = sorted(n for n in z.namelist() if n.endswith(".json"))
            return [{"sample_id": Path(n).stem, **json.loads(z.read(n))} for n in names]
    data = json.loads(raw)
    return [{"sample_id": d["sample_id"], **d["conversation"], "qa": d["qa"]} for d in data]


def session_dates(conv: dict[str, Any]) -> dict[str, str]:
    """session key -> ISO timestamp of its date_time ("1:56 pm on 8 May, 2023")."""
    out = {}
    for key, value in conv.items():
        if key.endswith("_date_time") and isinstance(value, str):
            when = datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
            out[key.removesuffix("_date_time")] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return out


def turn_items(conv: dict[str, Any]) -> list[dict[str, Any]]:
    """One ingest item per dialog turn (a shared photo's caption is part of the turn)."""
    items = []
    for session, stamp in sorted(session_dates(conv).items(), key=lambda kv: kv[1]):
        start = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        day = start.strftime("%-d %B %Y")
        for n, turn in enumerate(conv.get(session) or []):
            body = turn["text"]
            if turn.get("blip_caption"):
                body += f"\n\n[shares {turn['blip_caption']}]"
            # LoCoMo dates a session, not its turns: turn n is stamped n seconds after the
            # session's start, so the turns keep their order as a chat log's messages do
            when = (start + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
            meta = {"timestamp": when, "speaker": turn["speaker"], "dia_id": turn["dia_id"]}
            items.append(
                {
                    "type": "conversation",
                    "title": f"{turn['speaker']}, {day}",
                    "body": body,
                    "meta": meta,
                }
            )
    return items


def build_conversation(path: Path, conv: dict[str, Any]) -> Vault:
    """A vault at ``path`` with one entry per turn (reused when it is already there)."""
    marker = path.parent / f"{path.name}.format"
    if (path / ".clawql" / "vault.toml").is_file():
        if marker.is_file() and marker.read_text().strip() == TURN_FORMAT:
            return Vault.open(path)
        progress(f"{path.name}: built by an older bench (turn format), building it again")
        shutil.rmtree(path)
    Vault.init(path, identity=IDENTITY).close()
    vault = Vault.open(path)
    vault.ingest_all(turn_items(conv), identity=IDENTITY, batch=True, allow_new_type=True)
    vault.rebuild_index()
    marker.write_text(TURN_FORMAT + "\n")
    return vault


def locomo_sets(convs: list[dict[str, Any]], root: Path, limit: int | None) -> list[QuestionSet]:
    """One question set per conversation; the first half of the ids tunes, the rest is held out."""
    ids = sorted(c["sample_id"] for c in convs)
    tune = set(ids[: len(ids) // 2])
    sets = []
    for conv in sorted(convs, key=lambda c: c["sample_id"]):
        start = time.perf_counter()
        vault = build_conversation(root / f"locomo-{conv['sample_id']}", conv)
        by_dia = {str(e.meta.get("dia_id")): e.path for e in vault.entries(identity=IDENTITY)}
        split = "tune" if conv["sample_id"] in tune else "heldout"
        qs = QuestionSet(f"locomo-{conv['sample_id']}", vault)
        for n, qa in enumerate(conv["qa"]):
            relevant = frozenset(by_dia[d] for d in _dia_ids(qa.get("evidence")) if d in by_dia)
            if relevant:
                kind = LOCOMO_CATEGORIES.get(int(qa["category"]), str(qa["category"]))
                qid = f"{conv['sample_id']}-{n}"
                qs.questions.append(Question(qid, qa["question"], relevant, kind, split))
        qs.questions = thin(qs.questions, limit)
        sets.append(qs)
        progress(
            f"{qs.name}: {len(by_dia)} turns, {len(qs.questions)} questions "
            f"({split}, {time.perf_counter() - start:.1f}s)"
        )
    return sets


def _dia_ids(evidence: Any) -> list[str]:
    """Evidence ids, some written "D8:6; D9:17" in one string."""
    out = []
    for item in evidence or []:
        out.extend(p.strip() for p in re.split(r"[;,]", str(item)) if p.strip())
    return out


# ---------------------------------------------------------------- ADR decisions


def adr_set(corpus: Path, questions: Path, root: Path, limit: int | None) -> QuestionSet:
    """The ADR corpus in one vault (imported as recall_quality.py does) and its questions."""
    sys.path.insert(0, str(HERE))
    import recall_quality as rq  # the same import path as the existing quality bench

    docs = rq.corpus_documents(corpus)
    vault = rq.build_vault(root / "adr", corpus, docs, None)
    vault = Vault.open(root / "adr")
    vault.update_index()
    sources = rq.vault_sources(vault)
    out = QuestionSet("adr", vault)
    for n, line in enumerate(questions.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        answers = row.get("relevant") or row.get("answers") or [row["answer"]]
        relevant = frozenset(sources[a.removeprefix("./")] for a in answers if a in sources)
        if not relevant:
            continue
        qid = str(row.get("id", n))
        split = row.get("split") or _hash_split(qid)
        out.questions.append(Question(qid, row["question"], relevant, row.get("kind", "?"), split))
    out.questions = thin(out.questions, limit)
    return out


def _hash_split(qid: str) -> str:
    return "tune" if hashlib.sha256(qid.encode()).digest()[0] % 2 == 0 else "heldout"


def thin(questions: list[Question], limit: int | None) -> list[Question]:
    """At most ``limit`` questions, spread evenly over the list (None: all)."""
    if limit is None or len(questions) <= limit:
        return questions
    step = len(questions) / limit
    return [questions[int(i * step)] for i in range(limit)]


# ---------------------------------------------------------------- baselines


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) over whole entries."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.paths = list(docs)
        self.tf = [Counter(WORD.findall(docs[p].lower())) for p in self.paths]
        self.lens = [sum(tf.values()) for tf in self.tf]
        self.avg = sum(self.lens) / max(len(self.lens), 1)
        df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, tf in enumerate(self.tf):
            df.update(tf.keys())
            for term in tf:
                self.postings[term].append(i)
        n = len(self.paths)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query: str, depth: int = DEPTH) -> list[str]:
        scores: dict[int, float] = defaultdict(float)
        for term in set(WORD.findall(query.lower())):
            for i in self.postings.get(term, ()):
                f = self.tf[i][term]
                norm = f + 1.2 * (0.25 + 0.75 * self.lens[i] / self.avg)
                scores[i] += self.idf[term] * f * 2.2 / norm
        best = sorted(scores.items(), key=lambda kv: (-kv[1], self.paths[kv[0]]))[:depth]
        return [self.paths[i] for i, _ in best]


@dataclass
class Baselines:
    """Plain BM25 and plain dense over one vault's entries."""

    bm25: BM25
    vectors: Any
    order: list[str]
    embed: Callable[[str], Any]

    def dense(self, query: str, depth: int = DEPTH) -> list[str]:
        import numpy as np

        sims = self.vectors @ self.embed(query)
        top = np.argsort(-sims, kind="stable")[:depth]
        return [self.order[i] for i in top]


def baselines(vault: Vault) -> Baselines:
    """BM25 over title + body of every entry; the index's whole-entry vectors (the mean of the
    entry's chunk vectors from the packaged embedder, normalised)."""
    docs = {e.path: f"{e.title}\n{e.body}" for e in vault.entries(identity=IDENTITY)}
    service = vault.recall_service()
    service.ensure()
    loaded = service.index.loaded()
    embedder = service.index.embedder
    if embedder is None or loaded.entry_vectors is None:
        raise SystemExit("the dense baseline needs the packaged embedder (minilm)")
    return Baselines(
        BM25(docs), loaded.entry_vectors, list(loaded.entry_order), embedder.embed_query
    )


def rrf(*rankings: Sequence[str], k: int = 60, depth: int = DEPTH) -> list[str]:
    """Reciprocal-rank fusion."""
    score: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for n, path in enumerate(ranking, 1):
            score[path] += 1 / (k + n)
    return [p for p, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]]


def engine(vault: Vault, query: str, ranker: bool = True, turns: bool = True) -> list[str]:
    """The engine's recall (default options, top 20, no budget or relative-score cut)."""
    with _switched(ranker, turns):
        result = vault.recall(query, limit=DEPTH, max_tokens=10**9, min_score=0.0, use_cache=False)
    return [h.path for h in result.hits]


@contextmanager
def _switched(ranker: bool, turns: bool) -> Iterator[None]:
    """The pipeline with its learned ranker and/or its conversation-turn step switched off,
    for the ``fusion`` and ``no_turns`` columns (a bench comparison, so they are patched here
    rather than switched inside shipped code)."""
    from clawql_git.recall import pipeline

    saved = pipeline.LEARNED_RANKER, pipeline.TURN_CONTEXT
    pipeline.LEARNED_RANKER, pipeline.TURN_CONTEXT = saved[0] and ranker, saved[1] and turns
    try:
        yield
    finally:
        pipeline.LEARNED_RANKER, pipeline.TURN_CONTEXT = saved


# ---------------------------------------------------------------- scoring


def score(relevant: frozenset[str], ranking: Sequence[str]) -> dict[str, float]:
    """R@5, hit@20, MRR@10 of one ranking."""
    first = next((n for n, p in enumerate(ranking[:10], 1) if p in relevant), None)
    return {
        "R@5": len(relevant & set(ranking[:5])) / len(relevant),
        "hit@20": float(bool(relevant & set(ranking[:20]))),
        "MRR@10": 1 / first if first else 0.0,
    }


def ask(qs: QuestionSet, methods: Sequence[str]) -> list[dict[str, Any]]:
    """Every question of a set through every method."""
    base = baselines(qs.vault)
    engine(qs.vault, "warm up")
    rows = []
    for q in qs.questions:
        ranks: dict[str, list[str]] = {}
        if "bm25" in methods or "rrf" in methods:
            ranks["bm25"] = base.bm25.rank(q.text)
        if "dense" in methods or "rrf" in methods:
            ranks["dense"] = base.dense(q.text)
        if "rrf" in methods:
            ranks["rrf"] = rrf(ranks["bm25"], ranks["dense"])
        ms: dict[str, float] = {}
        for method, on in (("fusion", False), ("no_turns", True), ("default", True)):
            if method in methods:
                start = time.perf_counter()
                turns = method == "default"
                ranks[method] = engine(qs.vault, q.text, ranker=on, turns=turns)
                ms[method] = (time.perf_counter() - start) * 1000
        rows.append(
            {
                "set": qs.name,
                "id": q.id,
                "kind": q.kind,
                "split": q.split,
                "question": q.text,
                "scores": {m: score(q.relevant, ranks[m]) for m in methods},
                "ms": ms,
            }
        )
    return rows


def summarise(rows: Sequence[dict[str, Any]], methods: Sequence[str]) -> dict[str, Any]:
    """Mean metrics per (set kind, split, question kind) and method."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        for kind in ("all", row["kind"]):
            groups[f"{row['family']}/{row['split']}/{kind}"].append(row)
    out: dict[str, Any] = {}
    for name in sorted(groups, key=_group_order):
        members = groups[name]
        out[name] = {"n": len(members)} | {
            m: {
                k: round(sum(r["scores"][m][k] for r in members) / len(members), 4) for k in METRICS
            }
            for m in methods
        }
    return out


def paired(
    rows: Sequence[dict[str, Any]],
    methods: Sequence[str],
    against: str = "default",
    resamples: int = BOOTSTRAP,
) -> dict[str, Any]:
    """The engine's default against each other method, question by question, per set kind and
    split: the mean difference of each metric with a 95% paired-bootstrap interval (questions
    resampled with replacement, seeded, so a run repeats), and how many questions each side
    wins on it. A difference whose interval spans 0 is not one these questions can tell."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[f"{row['family']}/{row['split']}"].append(row)
    out: dict[str, Any] = {}
    for name in sorted(groups, key=lambda g: _group_order(f"{g}/all")):
        members = groups[name]
        out[name] = {
            other: {
                metric: _paired_cell(
                    [r["scores"][against][metric] - r["scores"][other][metric] for r in members],
                    resamples,
                    f"{name}/{other}/{metric}",
                )
                for metric in METRICS
            }
            for other in methods
            if other != against
        }
    return out


def _paired_cell(diffs: Sequence[float], resamples: int, seed: str) -> dict[str, float | int]:
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    return {
        "diff": round(sum(diffs) / n, 4),
        "lo": round(means[int(0.025 * resamples)], 4),
        "hi": round(means[int(0.975 * resamples) - 1], 4),
        "wins": sum(d > 0 for d in diffs),
        "losses": sum(d < 0 for d in diffs),
    }


def render_paired(pairs: dict[str, Any], against: str = "default") -> str:
    """One line per set kind, split, other method and metric: the difference, its interval and
    the questions won and lost."""
    head = f"{against} minus ...  {'group':<24}{'method':<10}{'metric':<8}{'diff':>8}  95% interval"
    lines = [head, "-" * (len(head) + 20)]
    for name, others in pairs.items():
        for other, cells in others.items():
            for metric, c in cells.items():
                lines.append(
                    f"{'':<17}{name:<24}{other:<10}{metric:<8}{c['diff']:>+8.3f}  "
                    f"[{c['lo']:+.3f}, {c['hi']:+.3f}]  won {c['wins']}, lost {c['losses']}"
                )
    return "\n".join(lines)


def _group_order(name: str) -> tuple[str, int, str, str]:
    family, split, kind = name.split("/")
    return family, 0 if split == "tune" else 1, "" if kind == "all" else "~", kind


def render(summary: dict[str, Any], methods: Sequence[str]) -> str:
    """One table: a row per group and metric, a column per method."""
    head = f"{'group':<38}{'n':>5} {'metric':<7}" + "".join(f"{m:>9}" for m in methods)
    lines = [head, "-" * len(head)]
    for name, cell in summary.items():
        for n, metric in enumerate(METRICS):
            label = f"{name:<38}{cell['n']:>5}" if n == 0 else " " * 43
            lines.append(
                f"{label} {metric:<7}" + "".join(f"{cell[m][metric]:>9.3f}" for m in methods)
            )
    return "\n".join(lines)


# ---------------------------------------------------------------- running


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated: %(default)s")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated: %(default)s")
    parser.add_argument(
        "--locomo",
        type=Path,
        help="locomo10.json or the dataset zip "
        "(default: the zip in the snap-research/locomo mirror, when present)",
    )
    parser.add_argument("--adr-corpus", type=Path, default=ADR_CORPUS)
    parser.add_argument(
        "--adr-questions", type=Path, help="JSONL (default: adr_heldout.jsonl, else adr.jsonl)"
    )
    parser.add_argument("--limit", type=int, help="at most N questions per vault")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--keep", type=Path, help="build vaults here and reuse them next time")
    parser.add_argument("--json", action="store_true", help="print everything as JSON")
    parser.add_argument(
        "--from-json",
        type=Path,
        help="render the tables of an earlier --json report instead of asking again",
    )
    return parser.parse_args(argv)


@contextmanager
def vault_root(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="recall-heldout-") as tmp:
        yield Path(tmp)


def question_sets(args: argparse.Namespace, root: Path, notes: list[str]) -> list[QuestionSet]:
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    sets: list[QuestionSet] = []
    if "conversations" in kinds:
        convs = locomo_conversations(args.locomo)
        if convs is None:
            notes.append("conversations skipped: no LoCoMo data (pass --locomo PATH)")
        else:
            ids = sorted(c["sample_id"] for c in convs)[: args.conversations]
            sets += locomo_sets([c for c in convs if c["sample_id"] in ids], root, args.limit)
    if "decisions" in kinds:
        qfile = args.adr_questions or next((p for p in ADR_QUESTIONS if p.is_file()), None)
        if not args.adr_corpus.is_dir() or qfile is None:
            notes.append(f"decisions skipped: no corpus at {args.adr_corpus} or no questions")
        else:
            notes.append(f"decisions: questions from {qfile}")
            sets.append(adr_set(args.adr_corpus.resolve(), qfile, root, args.limit))
    return sets


def run(args: argparse.Namespace) -> dict[str, Any]:
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    with vault_root(args.keep) as root:
        for qs in question_sets(args, root, notes):
            family = "decisions" if qs.name == "adr" else "conversations"
            start = time.perf_counter()
            for row in ask(qs, methods):
                rows.append({"family": family, **row})
            progress(f"{qs.name}: asked {len(qs.questions)} in {time.perf_counter() - start:.1f}s")
            qs.vault.close()
    return {
        "methods": methods,
        "notes": notes,
        "latency_ms_p50": _p50(rows),
        "summary": summarise(rows, methods),
        "paired": paired(rows, methods) if "default" in methods else {},
        "questions": rows,
    }


def _p50(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Median milliseconds of the engine's recall per method, over every question asked."""
    import statistics

    methods = {m for r in rows for m in r.get("ms", {})}
    return {
        m: round(statistics.median(r["ms"][m] for r in rows if m in r["ms"]), 2)
        for m in sorted(methods)
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json is not None:
        report = json.loads(args.from_json.read_text())
        methods = report["methods"]
        if "default" in methods:
            report["paired"] = paired(report["questions"], methods)
    else:
        report = run(args)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print("\n".join(report["notes"]))
        print(render(report["summary"], report["methods"]))
        if report.get("paired"):
            print()
            print(render_paired(report["paired"]))
        p50 = report["latency_ms_p50"]
        print("engine recall p50 ms: " + ", ".join(f"{m} {v}" for m, v in p50.items()))
        if {"fusion", "default"} <= set(p50):
            print(f"default / fusion latency: {p50['default'] / p50['fusion']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
