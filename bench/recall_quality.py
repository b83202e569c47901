"""Recall quality bench: import a folder of decision records into a fresh vault, build the index,
ask every question of a question file through each recall backend, and score where the record
that answers it lands (Recall@1, Recall@5, MRR@10, nDCG@10, per backend and per question kind),
with the median latency of one recall per backend.

Run: ``.venv/bin/python bench/recall_quality.py [--questions FILE] [--corpus DIR]
[--embedder minilm] [--json] [--keep VAULT_DIR]``

A question file has one JSON object per line:
``{"id": "q001", "question": "...", "answer": "<path relative to the corpus root>",
"kind": "keyword" | "reworded" | "why"}``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from clawql_git import Identity, Vault
from clawql_git.vault.importer import markdown_files

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpora" / "adr"
QUESTIONS = HERE / "questions" / "adr.jsonl"
BACKENDS = ("fts", "vector", "hybrid", "auto")
VECTOR_BACKENDS = frozenset({"vector", "hybrid"})
LIMIT = 10
KINDS = ("keyword", "reworded", "why")
IMPORT_IDENTITY = Identity(agent_id="bench-import", session_id="recall-quality")
METRICS = ("R@1", "R@5", "MRR@10", "nDCG@10")
# LanceDB logs a deprecation warning on every search that selects columns; keep stderr readable.
os.environ.setdefault("LANCEDB_LOG", "error")


def progress(message: str) -> None:
    print(f"[recall_quality] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- questions


@dataclass(frozen=True)
class Question:
    """One benchmark question and the corpus path of the record that answers it."""

    id: str
    question: str
    answer: str
    kind: str


def load_questions(path: Path) -> tuple[list[Question], list[str]]:
    """The questions of a JSONL file and the problems found in it (line numbers included)."""
    questions: list[Question] = []
    errors: list[str] = []
    ids: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{n}: not JSON ({exc.msg})")
            continue
        missing = [
            k
            for k in ("id", "question", "answer", "kind")
            if not isinstance(data, dict) or not isinstance(data.get(k), str) or not data[k]
        ]
        if missing:
            errors.append(f"{path.name}:{n}: missing or empty {', '.join(missing)}")
            continue
        if data["id"] in ids:
            errors.append(f"{path.name}:{n}: duplicate id {data['id']}")
            continue
        ids.add(data["id"])
        answer = data["answer"].strip().removeprefix("./")
        questions.append(Question(data["id"], data["question"], answer, data["kind"]))
    return questions, errors


# ---------------------------------------------------------------- corpus and vault


def corpus_documents(root: Path) -> list[str]:
    """The documents to import, relative to ``root``: the files MANIFEST.tsv lists when there is
    one (so the corpus README and licences stay out), else every Markdown file the importer
    would take."""
    manifest = root / "MANIFEST.tsv"
    if manifest.is_file():
        rows = manifest.read_text(encoding="utf-8").splitlines()[1:]
        docs = [r.split("\t", 1)[0] for r in rows if r.strip()]
        absent = [d for d in docs if not (root / d).is_file()]
        if absent:
            raise SystemExit(f"MANIFEST.tsv lists {len(absent)} missing files, e.g. {absent[0]}")
        return sorted(docs)
    return sorted(p.relative_to(root).as_posix() for p in markdown_files(root))


def stage_corpus(root: Path, docs: Sequence[str], into: Path) -> Path:
    """Copy the documents into a staging folder, keeping their relative paths."""
    for rel in docs:
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target)
    return into


def _is_vault(path: Path) -> bool:
    return (path / ".clawql" / "vault.toml").is_file() and (path / ".git").exists()


def vault_sources(vault: Vault) -> dict[str, str]:
    """source_path -> entry path for every imported entry."""
    out: dict[str, str] = {}
    for entry in vault.entries():
        source = entry.meta.get("source_path")
        if isinstance(source, str):
            out[source] = entry.path
    return out


def build_vault(path: Path, corpus: Path, docs: Sequence[str], embedder: Any) -> Vault:
    """A vault at ``path`` holding the corpus documents (imported in one commit), or the vault
    already there when it was built from the same documents."""
    if _is_vault(path):
        vault = Vault.open(path, embedder=embedder)
        have = set(vault_sources(vault))
        if have != set(docs):
            raise SystemExit(
                f"{path} holds {len(have)} imported documents, not the {len(docs)} of {corpus}; "
                "delete it or choose another --keep folder"
            )
        progress(f"reusing the vault at {path} ({len(have)} documents)")
        return vault
    if path.exists() and any(path.iterdir()):
        raise SystemExit(f"{path} exists, is not empty and is not a vault")
    start = time.perf_counter()
    Vault.init(path, identity=IMPORT_IDENTITY).close()
    vault = Vault.open(path, embedder=embedder)
    with tempfile.TemporaryDirectory(prefix="recall-quality-corpus-") as staging:
        source = stage_corpus(corpus, docs, Path(staging))
        vault.import_folder(source, type="decision", batch=True, identity=IMPORT_IDENTITY)
    vault.close()
    progress(f"imported {len(docs)} documents in {time.perf_counter() - start:.1f}s")
    return vault


@contextmanager
def vault_folder(keep: Path | None) -> Iterator[Path]:
    """``keep`` (left in place afterwards), else a temporary folder deleted at the end."""
    if keep is not None:
        yield keep.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="recall-quality-") as tmp:
        yield Path(tmp) / "vault"


def build_index(vault: Vault) -> dict[str, Any]:
    """Rebuild the derived index (chunk vectors come from the vault's cache when it has them)."""
    last = [0.0]

    def report(done: int, total: int, what: str) -> None:
        now = time.perf_counter()
        if now - last[0] >= 10 or done == total:
            last[0] = now
            progress(f"index: {what} {done}/{total}")

    report_ = vault.rebuild_index(progress=report)
    progress(
        f"index rebuilt: {report_.entries} entries, {report_.embedded} chunks embedded, "
        f"{report_.seconds:.1f}s"
    )
    return {
        "entries": report_.entries,
        "embedded": report_.embedded,
        "seconds": round(report_.seconds, 2),
        "commit": report_.commit,
    }


# ---------------------------------------------------------------- evaluation


@dataclass
class Outcome:
    """Where one question's answer ranked under each backend, and how long recall took."""

    question: Question
    ranks: dict[str, int | None] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    top: dict[str, list[str]] = field(default_factory=dict)


def ranked_sources(vault: Vault, text: str, backend: str) -> tuple[list[str], float]:
    """The source paths recall returns for ``text`` (best first) and the seconds it took."""
    start = time.perf_counter()
    result = vault.recall(
        text, limit=LIMIT, max_tokens=10**9, min_score=0.0, use_cache=False, backend=backend
    )
    elapsed = time.perf_counter() - start
    sources = [str(h.frontmatter.get("source_path", "")) for h in result.hits]
    return sources, elapsed


def rank_of(answer: str, sources: Sequence[str]) -> int | None:
    """1-based rank of ``answer`` among ``sources`` (None when it is not there)."""
    for n, source in enumerate(sources, 1):
        if source == answer:
            return n
    return None


def evaluate(vault: Vault, questions: Sequence[Question], backends: Sequence[str]) -> list[Outcome]:
    """Ask every question through every backend (interleaved, so noise hits all alike)."""
    for backend in backends:  # warm-up: load tables, the model and the link graph
        ranked_sources(vault, "warm up the recall pipeline", backend)
    outcomes = []
    for n, q in enumerate(questions, 1):
        outcome = Outcome(q)
        for backend in backends:
            sources, seconds = ranked_sources(vault, q.question, backend)
            outcome.ranks[backend] = rank_of(q.answer, sources)
            outcome.seconds[backend] = seconds
            outcome.top[backend] = sources
        outcomes.append(outcome)
        if n % 25 == 0 or n == len(questions):
            progress(f"asked {n}/{len(questions)} questions")
    return outcomes


def scores(ranks: Sequence[int | None]) -> dict[str, float]:
    """Recall@1, Recall@5, MRR@10 and nDCG@10 (one relevant document per question)."""
    n = len(ranks)
    if n == 0:
        return dict.fromkeys(METRICS, 0.0)
    found = [r for r in ranks if r is not None and r <= LIMIT]
    return {
        "R@1": sum(1 for r in found if r == 1) / n,
        "R@5": sum(1 for r in found if r <= 5) / n,
        "MRR@10": sum(1 / r for r in found) / n,
        "nDCG@10": sum(1 / math.log2(r + 1) for r in found) / n,
    }


def groups(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    """The group "all" plus one group per question kind (the standard kinds first)."""
    kinds = sorted({o.question.kind for o in outcomes}, key=lambda k: (k not in KINDS, k))
    out = {"all": list(outcomes)}
    for kind in kinds:
        out[kind] = [o for o in outcomes if o.question.kind == kind]
    return out


def summarise(outcomes: Sequence[Outcome], backends: Sequence[str]) -> dict[str, Any]:
    """Metrics per backend and group, and latency per backend."""
    metrics: dict[str, dict[str, dict[str, float]]] = {}
    for backend in backends:
        metrics[backend] = {
            name: {
                "n": len(members),
                **{k: round(v, 4) for k, v in scores([o.ranks[backend] for o in members]).items()},
            }
            for name, members in groups(outcomes).items()
        }
    latency: dict[str, dict[str, float]] = {}
    for backend in backends:
        ms = sorted(o.seconds[backend] * 1000 for o in outcomes)
        if ms:
            latency[backend] = {
                "p50": round(statistics.median(ms), 1),
                "p90": round(ms[min(len(ms) - 1, math.ceil(0.9 * len(ms)) - 1)], 1),
                "mean": round(statistics.fmean(ms), 1),
            }
    return {"metrics": metrics, "latency_ms": latency}


# ---------------------------------------------------------------- running and reporting


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="JSONL question file")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder of Markdown records")
    parser.add_argument(
        "--embedder",
        default="minilm",
        help="embedding model spec as for CLAWQL_EMBEDDING_MODEL (default: minilm; 'none' "
        "turns vectors off and skips the vector and hybrid backends)",
    )
    parser.add_argument(
        "--backends", default=",".join(BACKENDS), help="comma-separated (default: %(default)s)"
    )
    parser.add_argument("--json", action="store_true", help="print everything as JSON")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="VAULT_DIR",
        help="build the vault here and leave it (or reuse the vault already there)",
    )
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from clawql_git.index.embedders import resolve_embedder

    corpus = args.corpus.resolve()
    questions, errors = load_questions(args.questions)
    docs = corpus_documents(corpus)
    known = set(docs)
    for q in questions:
        if q.answer not in known:
            errors.append(f"{q.id}: answer {q.answer} is not a document of {corpus}")
    asked = [q for q in questions if q.answer in known]
    embedder = resolve_embedder(args.embedder, os.environ)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown:
        raise SystemExit(f"unknown backend(s) {', '.join(unknown)}; choose from {BACKENDS}")
    skipped = [b for b in backends if embedder is None and b in VECTOR_BACKENDS]
    backends = [b for b in backends if b not in skipped]
    with vault_folder(args.keep) as path:
        vault = build_vault(path, corpus, docs, embedder)
        index = build_index(vault)
        outcomes = evaluate(vault, asked, backends)
    summary = summarise(outcomes, backends)
    return {
        "config": {
            "questions_file": str(args.questions),
            "corpus": str(corpus),
            "embedder": getattr(embedder, "id", "none"),
            "backends": backends,
            "skipped_backends": skipped,
            "limit": LIMIT,
            "python": platform.python_version(),
            "clawql_git": _version(),
            "cpus": os.cpu_count(),
            "vault": str(args.keep.resolve()) if args.keep else None,
        },
        "corpus_documents": len(docs),
        "questions": len(questions),
        "asked": len(asked),
        "kinds": dict(Counter(q.kind for q in asked)),
        "errors": errors,
        "index": index,
        **summary,
        "per_question": [
            {
                "id": o.question.id,
                "kind": o.question.kind,
                "question": o.question.question,
                "answer": o.question.answer,
                "ranks": o.ranks,
                "ms": {b: round(s * 1000, 1) for b, s in o.seconds.items()},
                "top": o.top,
            }
            for o in outcomes
        ],
    }


def _version() -> str:
    try:
        return metadata.version("clawql-git")
    except metadata.PackageNotFoundError:
        return "unknown"


def render(report: dict[str, Any]) -> str:
    """The table: backends side by side, one block of metrics per question group."""
    backends: list[str] = report["config"]["backends"]
    metrics = report["metrics"]
    kinds = ", ".join(f"{k} {n}" for k, n in report["kinds"].items())
    lines = [
        f"recall quality: {report['asked']} questions ({kinds}) over "
        f"{report['corpus_documents']} documents",
        f"embedder {report['config']['embedder']}; top {LIMIT}; index "
        f"{report['index']['entries']} entries ({report['index']['seconds']}s, "
        f"{report['index']['embedded']} chunks embedded)",
        "",
        f"{'group':<15} {'metric':<8}" + "".join(f"{b:>9}" for b in backends),
    ]
    first = metrics[backends[0]] if backends else {}
    for name in first:
        label = f"{name} ({first[name]['n']})"
        for n, metric in enumerate(METRICS):
            cells = "".join(f"{metrics[b][name][metric]:>9.3f}" for b in backends)
            lines.append(f"{label if n == 0 else '':<15} {metric:<8}{cells}")
        lines.append("")
    for stat in ("p50", "p90"):
        cells = "".join(f"{report['latency_ms'][b][stat]:>9.1f}" for b in backends)
        lines.append(f"{'latency':<15} {stat + ' ms':<8}{cells}")
    if report["config"]["skipped_backends"]:
        lines.append(f"skipped (no embedder): {', '.join(report['config']['skipped_backends'])}")
    if report["errors"]:
        lines.append("")
        lines.append(f"ERRORS ({len(report['errors'])}):")
        lines.extend(f"  {e}" for e in report["errors"])
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
