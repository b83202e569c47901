"""Recall speed bench: warm in-process recall latency at 10,000 and 100,000 entries, full rebuild
time and peak RSS, index update after one ingest, LanceDB health with and without compaction,
the packaged MiniLM's query time, a second (vector cache warm) rebuild, and cold CLI calls.

Run: ``.venv/bin/python bench/recall_speed.py [--sizes 10000,100000] [--json] [--quick]``
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from corpus import CORPUS, Doc, describe, history_months, load_corpus, truncate_words

from clawql_git import Identity, Vault
from clawql_git.index.embedders import HashEmbedder, MiniLMEmbedder, locate_minilm
from clawql_git.model.drafts import Draft, draft_from_fields
from clawql_git.model.entry import (
    slugify,
    type_folder,
    validate_entry_path,
)

HERE = Path(__file__).resolve()
TYPES = ("decision", "context", "error", "pattern", "task_result")
TAGS = ("auth", "storage", "api", "ci", "infra", "search", "ui", "security", "perf", "docs")
HISTORY_MONTHS = 36
BUILD_BATCH = 2500
LINK_SHARE = 0.4  # share of seed entries that link to one or two others
HEALTH_UPDATES = 150
HEALTH_NO_COMPACTION = 10**9  # OPTIMIZE_EVERY in the "without compaction" vault
DEFAULT_WHERE = "status != 'retracted' AND pii != 'PHI'"  # what recall filters by default
SEED_IDENTITY = Identity(agent_id="bench-seed", session_id="seed")
SAMPLE_IDENTITY = Identity(agent_id="bench", session_id="s")
IMPORT_IDENTITY = Identity(agent_id="bench-import", session_id="recall-speed")
HEAVY_MODULES = ("lancedb", "pyarrow", "pandas", "onnxruntime", "tokenizers", "numpy")
MB = 1024 * 1024
# LanceDB's Rust log prints WARN lines (deprecations) to stderr; the bench's own processes
# quiet it so progress stays readable. CLI runs get the user's setting back.
USER_LANCEDB_LOG = os.environ.get("LANCEDB_LOG")
os.environ["LANCEDB_LOG"] = "error"

# goals
RECALL_GOAL_MS = {10_000: 30.0, 100_000: 60.0}
REBUILD_RSS_GOAL_MB = 1.5 * 1024  # peak RSS of a full rebuild at 10k
REBUILD_RSS_SIZE = 10_000
UPDATE_GOAL_MS = 150.0  # index update after one ingest, plus embedding
CLI_RECALL_GOAL_S = 2.0
SECOND_REBUILD_GOAL_S = 10.0
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_WORD = re.compile(r"\S+\s*")
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9-]+")
_TERM = re.compile(r"[a-z0-9]+")


def progress(message: str) -> None:
    print(f"[recall_speed] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- corpus and queries


@dataclass(frozen=True)
class Query:
    """One recall question, with the filters it carries (if any)."""

    text: str
    kind: str
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def options(self) -> dict[str, Any]:
        """Keyword arguments of ``Vault.recall`` (never answered from the recall cache)."""
        return {"types": self.types, "tags": self.tags, "use_cache": False}


def make_queries(docs: list[Doc], count: int) -> list[Query]:
    """``count`` varied queries: titles, keyword bags, questions and phrases from the corpus;
    one in ten also filters by type and one in ten by tag."""
    rng = random.Random(7)
    kinds = ("title", "keywords", "question", "phrase")
    out: list[Query] = []
    seen: set[str] = set()
    while len(out) < count:
        kind = kinds[len(out) % len(kinds)]
        doc = docs[rng.randrange(len(docs))]
        words = [w for w in _PLAIN.findall(doc.body) if len(w) > 3]
        if kind == "title":
            text = doc.title
        elif kind == "keywords":
            text = " ".join(rng.sample([w.lower() for w in words if len(w) > 5] or words, 3))
        elif kind == "question":
            text = f"why did we decide: {doc.title}?"
        else:
            start = rng.randrange(max(1, len(words) - 12))
            text = " ".join(words[start : start + rng.randint(6, 12)])
        if not _TERM.search(text.lower()) or text in seen:
            continue
        seen.add(text)
        n = len(out)
        types = ("decision",) if n % 10 == 3 else ()
        tags = (TAGS[n % len(TAGS)],) if n % 10 == 7 else ()
        out.append(Query(text, kind, types, tags))
    return out


# ---------------------------------------------------------------- building the vaults


def seed_title(n: int, docs: list[Doc]) -> str:
    return f"{docs[n % len(docs)].title} {n}"


def seed_draft(vault: Vault, n: int, size: int, docs: list[Doc], months: list[str]) -> Draft:
    """Draft number ``n`` of a vault of ``size`` entries (deterministic)."""
    rng = random.Random(n)
    doc = docs[n % len(docs)]
    body = truncate_words(doc.body, rng.randint(100, 300))
    if rng.random() < LINK_SHARE:
        targets = [rng.randrange(size) for _ in range(rng.randint(1, 2))]
        links = [f"[[{slugify(seed_title(m, docs))}]]" for m in targets if m != n]
        if links:
            body += "\nSee also " + " and ".join(links) + ".\n"
    month = months[n % len(months)]
    day, hour, minute = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
    meta = {"timestamp": f"{month}-{day:02d}T{hour:02d}:{minute:02d}:00Z"}
    entry_type, title = TYPES[n % len(TYPES)], seed_title(n, docs)
    draft = draft_from_fields(
        vault.settings,
        entry_type,
        title,
        body,
        describe(body),
        rng.sample(TAGS, 2),
        meta,
        SEED_IDENTITY,
    )
    # The path the engine would pick (titles are unique), given up front: letting the engine
    # choose costs O(batch * entries) per batch commit (see bench/README.md).
    path = f"{type_folder(entry_type, meta)}/{month}/{slugify(title)}.md"
    return replace(draft, path=validate_entry_path(path))


def build_vault(path: Path, size: int, docs: list[Doc], months: list[str]) -> float:
    """A vault of ``size`` entries written in batch commits of BUILD_BATCH; seconds taken."""
    start = time.perf_counter()
    vault = Vault.init(path, identity=SEED_IDENTITY)
    for first in range(0, size, BUILD_BATCH):
        stop = min(first + BUILD_BATCH, size)
        drafts = [seed_draft(vault, n, size, docs, months) for n in range(first, stop)]
        vault.ingest_many(drafts, identity=SEED_IDENTITY, batch=True)
        progress(f"vault {size}: {stop}/{size} entries ({time.perf_counter() - start:.0f}s)")
    vault.close()
    return time.perf_counter() - start


def sample_fields(i: int, docs: list[Doc]) -> dict[str, Any]:
    """Keyword arguments of sampled ingest ``i`` ("now", unique title)."""
    rng = random.Random(1_000_000 + i)
    doc = docs[rng.randrange(len(docs))]
    return {
        "type": TYPES[i % len(TYPES)],
        "title": f"Recall bench sample {i}: {doc.title}",
        "body": truncate_words(doc.body, rng.randint(100, 300)),
        "tags": rng.sample(TAGS, 2),
    }


class TimedEmbedder:
    """Wraps an embedder and adds up the seconds spent embedding chunks (not queries)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> Any:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


# ---------------------------------------------------------------- statistics


def percentile(values: Sequence[float], q: int) -> float:
    """The q-th percentile (inclusive method; the median for q=50)."""
    if q == 50 or len(values) < 2:
        return statistics.median(values)
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def spread(values: Sequence[float], scale: float = 1000.0) -> dict[str, float]:
    """p50, p90 and max (milliseconds by default), and the number of samples."""
    return {
        "p50": percentile(values, 50) * scale,
        "p90": percentile(values, 90) * scale,
        "max": max(values) * scale,
        "n": len(values),
    }


def spread_ms(values: Sequence[float]) -> dict[str, float]:
    """``spread`` with the keys p50_ms, p90_ms, max_ms and n."""
    return {(k if k == "n" else f"{k}_ms"): v for k, v in spread(values).items()}


def rotated(items: Sequence[Any], shift: int) -> list[Any]:
    """``items`` rotated by ``shift`` (the interleaving order of round ``shift``)."""
    k = shift % len(items)
    return [*items[k:], *items[:k]]


def dir_mb(path: Path) -> float:
    """Apparent size of everything under ``path``."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(dirpath) / name).stat().st_size
    return total / MB


# ---------------------------------------------------------------- child processes


def run_child(task: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Run ``task`` of this script in a fresh interpreter; its last stdout line is JSON."""
    proc = subprocess.run(
        [sys.executable, str(HERE), "--child", task, json.dumps(spec)],
        stdout=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    if proc.returncode != 0:
        raise SystemExit(f"child task {task} failed with exit code {proc.returncode}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def clean_env(user_logging: bool = False) -> dict[str, str]:
    """The environment without CLAWQL_* settings (so defaults are what is measured); with
    ``user_logging``, LanceDB logs as it would for the user (the bench itself quiets it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    if user_logging:
        env.pop("LANCEDB_LOG", None)
        if USER_LANCEDB_LOG is not None:
            env["LANCEDB_LOG"] = USER_LANCEDB_LOG
    return env


def maxrss_mb() -> float:
    """Peak RSS of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_rebuild(spec: dict[str, Any]) -> dict[str, Any]:
    """One full ``rebuild_index()``: seconds, entries, chunks and this process's peak RSS."""
    vault = Vault.open(spec["vault"], embedding_model=spec["embedding_model"])
    before = maxrss_mb()
    start = time.perf_counter()
    report = vault.rebuild_index()
    seconds = time.perf_counter() - start
    peak = maxrss_mb()
    chunks = vault.recall_service().index.db().open_table("chunks").count_rows()
    return {
        "seconds": seconds,
        "entries": report.entries,
        "chunks": chunks,
        "embedded": report.embedded,
        "rss_before_mb": before,
        "peak_rss_mb": peak,
    }


def child_health(spec: dict[str, Any]) -> dict[str, Any]:
    """150 single-entry index updates in two copies of one vault, interleaved: one never
    compacts (OPTIMIZE_EVERY monkeypatched to a huge number), one runs the library's periodic
    optimize; query times of both before and after."""
    import clawql_git.index.store as store

    default_every = store.OPTIMIZE_EVERY
    docs = load_corpus(Path(spec["corpus"]))
    queries = [Query(**q) for q in spec["queries"]]
    arms = {
        "no_compaction": (Vault.open(spec["no_compaction"], embedding_model="hash"), 10**9),
        "optimize": (Vault.open(spec["optimize"], embedding_model="hash"), default_every),
    }
    names = list(arms)
    out: dict[str, Any] = {"optimize_every": default_every, "updates": spec["updates"]}
    before = _health_queries(arms, queries)
    paths = {
        n: sorted(v.recall_service().index.loaded().entries)[:5000] for n, (v, _) in arms.items()
    }
    times: dict[str, list[float]] = {n: [] for n in names}
    for i in range(spec["updates"]):
        for name in rotated(names, i):
            vault, every = arms[name]
            store.OPTIMIZE_EVERY = every
            rng = random.Random(5_000_000 + i)
            if i % 3 == 2:  # one in three changes an existing entry, the rest are new
                body = truncate_words(docs[rng.randrange(len(docs))].body, rng.randint(100, 300))
                vault.update(paths[name][rng.randrange(len(paths[name]))], body=body)
            else:
                vault.ingest(**sample_fields(5_000_000 + i, docs), identity=SAMPLE_IDENTITY)
            start = time.perf_counter()
            vault.update_index()
            times[name].append(time.perf_counter() - start)
        if (i + 1) % 25 == 0:
            progress(f"health: {i + 1}/{spec['updates']} updates in each copy")
    store.OPTIMIZE_EVERY = default_every
    after = _health_queries(arms, queries)
    for name in names:
        vault, _ = arms[name]
        out[name] = {
            "before": before[name],
            "after": after[name],
            "update_ms": spread(times[name]),
            "tables": _table_shape(vault),
            "index_mb": dir_mb(vault.recall_service().index.root),
        }
    return out


def _health_queries(
    arms: dict[str, tuple[Vault, int]], queries: list[Query]
) -> dict[str, dict[str, float]]:
    """Interleaved recall and raw LanceDB search times of every arm."""
    names = list(arms)
    recall: dict[str, list[float]] = {n: [] for n in names}
    lance: dict[str, list[float]] = {n: [] for n in names}
    for name in names:  # warm up: load the index, build the derived structures
        for q in queries[:3]:
            arms[name][0].recall(q.text, **q.options())
    for i, q in enumerate(queries):
        for name in rotated(names, i):
            vault = arms[name][0]
            start = time.perf_counter()
            vault.recall(q.text, **q.options())
            recall[name].append(time.perf_counter() - start)
            lance[name].append(lance_searches(vault, q))
    return {
        n: {
            "recall_p50_ms": percentile(recall[n], 50) * 1000,
            "recall_p90_ms": percentile(recall[n], 90) * 1000,
            "lance_p50_ms": percentile(lance[n], 50) * 1000,
        }
        for n in names
    }


def lance_searches(vault: Vault, q: Query) -> float:
    """Seconds for the three raw LanceDB searches recall makes (catalog and chunk FTS, chunk
    vectors) with the default filter; the query vector is computed before the clock starts."""
    index = vault.recall_service().index
    text = " ".join(_TERM.findall(q.text.lower()))
    assert index.embedder is not None
    qvec = index.embedder.embed_query(q.text)
    start = time.perf_counter()
    index.catalog(text, 40, DEFAULT_WHERE)
    index.fts(text, 80, DEFAULT_WHERE)
    index.vector(qvec, 80, DEFAULT_WHERE)
    return time.perf_counter() - start


def _table_shape(vault: Vault) -> dict[str, Any]:
    db = vault.recall_service().index.db()
    shape: dict[str, Any] = {}
    for name in ("entries", "chunks", "links"):
        table = db.open_table(name)
        info: dict[str, Any] = {"rows": table.count_rows(), "versions": len(table.list_versions())}
        try:
            stats = table.stats()
            frag = stats["fragment_stats"] if isinstance(stats, dict) else stats.fragment_stats
            info["fragments"] = (
                frag["num_fragments"] if isinstance(frag, dict) else frag.num_fragments
            )
        except (AttributeError, KeyError, TypeError, RuntimeError, ValueError):
            info["fragments"] = None
        shape[name] = info
    return shape


CHILD_TASKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "rebuild": child_rebuild,
    "health": child_health,
}


# ---------------------------------------------------------------- in-process measurements


@dataclass
class Target:
    """One benchmark vault, opened with the (timed) hash embedder."""

    size: int
    path: Path
    embedder: TimedEmbedder
    vault: Vault
    recall: list[float] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    layers: set[str] = field(default_factory=set)


def open_target(size: int, path: Path) -> Target:
    embedder = TimedEmbedder(HashEmbedder())
    return Target(size, path, embedder, Vault.open(path, embedder=embedder))


def measure_recall(targets: list[Target], queries: list[Query]) -> None:
    """Warm in-process recall, interleaved: every query once per target, rotating the order."""
    for t in targets:
        start = time.perf_counter()
        for q in queries[:5]:
            t.vault.recall(q.text, **q.options())
        progress(f"recall warm-up at {t.size}: {time.perf_counter() - start:.1f}s")
    for i, q in enumerate(queries):
        for t in rotated(targets, i):
            start = time.perf_counter()
            result = t.vault.recall(q.text, **q.options())
            t.recall.append(time.perf_counter() - start)
            t.hits.append(len(result.hits))
            t.layers.update(result.layers)
        if (i + 1) % 25 == 0:
            progress(f"recall: {i + 1}/{len(queries)} queries per size")


def measure_updates(targets: list[Target], docs: list[Doc], samples: int) -> dict[int, Any]:
    """``vault.ingest`` then a timed ``vault.update_index()``, interleaved over the targets;
    then the first recall after it (which refreshes the rows recall keeps in memory)."""
    times: dict[int, list[float]] = {t.size: [] for t in targets}
    embeds: dict[int, list[float]] = {t.size: [] for t in targets}
    nets: dict[int, list[float]] = {t.size: [] for t in targets}
    firsts: dict[int, list[float]] = {t.size: [] for t in targets}
    optimized: dict[int, int] = {t.size: 0 for t in targets}
    query = "how do we roll back a failed deployment"
    for i in range(samples):
        for t in rotated(targets, i):
            t.vault.ingest(**sample_fields(i, docs), identity=SAMPLE_IDENTITY)
            embedded_before = t.embedder.seconds
            writes_before = _writes(t)
            start = time.perf_counter()
            t.vault.update_index()
            elapsed = time.perf_counter() - start
            embed = t.embedder.seconds - embedded_before
            times[t.size].append(elapsed)
            embeds[t.size].append(embed)
            nets[t.size].append(elapsed - embed)
            if _writes(t) <= writes_before:
                optimized[t.size] += 1
            start = time.perf_counter()
            t.vault.recall(f"{query} {i}", use_cache=False)
            firsts[t.size].append(time.perf_counter() - start)
        progress(f"updates: {i + 1}/{samples} per size")
    return {
        t.size: {
            "update_ms": spread(times[t.size]),
            "embed_ms": spread(embeds[t.size]),
            "net_ms": spread(nets[t.size]),
            "first_recall_after_ms": spread(firsts[t.size]),
            "optimizes": optimized[t.size],
        }
        for t in targets
    }


def _writes(t: Target) -> int:
    stamp = t.vault.recall_service().index.stamp()
    return stamp.writes if stamp else 0


def profile_recalls(target: Target, queries: list[Query], count: int) -> str:
    """cProfile ``count`` warm recalls: top cumulative costs in clawql_git, then overall."""
    prof = cProfile.Profile()
    for i in range(count):
        q = queries[i % len(queries)]
        prof.runcall(target.vault.recall, q.text, **q.options())
    ours, overall = io.StringIO(), io.StringIO()
    pstats.Stats(prof, stream=ours).sort_stats("cumulative").print_stats("clawql_git", 35)
    pstats.Stats(prof, stream=overall).sort_stats("tottime").print_stats(25)
    return (
        f"# cProfile: {count} warm recalls (use_cache=False) at {target.size} entries\n"
        f"## top cumulative, clawql_git only\n{_trim(ours.getvalue())}\n"
        f"## top by own time, everything\n{_trim(overall.getvalue())}"
    )


def profile_updates(target: Target, docs: list[Doc], count: int) -> str:
    """cProfile ``count`` index updates, each after one ingest."""
    prof = cProfile.Profile()
    for i in range(count):
        target.vault.ingest(**sample_fields(9_000_000 + i, docs), identity=SAMPLE_IDENTITY)
        prof.runcall(target.vault.update_index)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(35)
    return f"# cProfile: {count} index updates at {target.size} entries\n{_trim(out.getvalue())}"


def _trim(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line for line in lines[start:] if line.strip())


# ---------------------------------------------------------------- MiniLM and the ADR vault


def measure_minilm(queries: list[Query], calls: int) -> dict[str, float]:
    """First call (verifies and loads the model) and p50/p90 of warm ``embed_query`` calls."""
    embedder = MiniLMEmbedder(locate_minilm())
    start = time.perf_counter()
    embedder.embed_query("warm up")
    first = time.perf_counter() - start
    times = []
    for i in range(calls):
        start = time.perf_counter()
        embedder.embed_query(queries[i % len(queries)].text)
        times.append(time.perf_counter() - start)
    return {"first_call_s": first, **spread_ms(times)}


def adr_source(root: Path, every: int) -> Path:
    """The ADR corpus, or (``every`` > 1) a copy of every ``every``-th of its Markdown files."""
    if every <= 1:
        return CORPUS
    from clawql_git.vault.importer import markdown_files

    subset = root / "adr-subset"
    for n, file in enumerate(markdown_files(CORPUS)):
        if n % every == 0:
            target = subset / file.relative_to(CORPUS)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
    return subset


def build_adr_vault(path: Path, source: Path, warm_rebuilds: int) -> dict[str, Any]:
    """The ADR corpus imported in one batch commit; its MiniLM index built twice or more."""

    Vault.init(path, identity=IMPORT_IDENTITY).close()
    vault = Vault.open(path, embedding_model="minilm")
    start = time.perf_counter()
    results = vault.import_folder(source, type="decision", batch=True, identity=IMPORT_IDENTITY)
    imported = time.perf_counter() - start
    vault.close()
    progress(f"ADR vault: imported {len(results[0].paths)} entries in {imported:.1f}s")
    start = time.perf_counter()
    first = vault.rebuild_index()
    cold = time.perf_counter() - start
    progress(f"ADR vault: first rebuild (cold vector cache) {cold:.1f}s")
    warm = []
    for _ in range(warm_rebuilds):
        start = time.perf_counter()
        report = vault.rebuild_index()
        warm.append(time.perf_counter() - start)
        progress(f"ADR vault: rebuild with warm cache {warm[-1]:.1f}s ({report.embedded} embedded)")
    chunks = vault.recall_service().index.db().open_table("chunks").count_rows()
    return {
        "source": "ADR corpus" if source == CORPUS else f"ADR subset ({source.name})",
        "entries": first.entries,
        "chunks": chunks,
        "embedder": vault.recall_service().index.embedder_id,
        "import_s": imported,
        "first_rebuild_s": cold,
        "first_embedded": first.embedded,
        "second_rebuild_s": statistics.median(warm),
        "second_rebuild_all_s": warm,
        "second_embedded": report.embedded,
    }


# ---------------------------------------------------------------- cold CLI


def cli_commands(adr: Path, ingest_vault: Path, queries: list[Query]) -> dict[str, Any]:
    """name -> function of the round number giving the argv after ``clawql``."""

    def recall(i: int) -> list[str]:
        return [
            "memory",
            "--vault",
            str(adr),
            "recall",
            queries[i % len(queries)].text,
            "--no-cache",
        ]

    def ingest(i: int) -> list[str]:
        title = f"Cold CLI ingest {i}"
        body = "A cold CLI ingest from the recall speed bench; see [[cold-cli-ingest-0]]."
        vault = ["memory", "--vault", str(ingest_vault)]
        return [*vault, "ingest", "--type", "context", "--title", title, "--body", body]

    return {
        'memory recall "..." --no-cache': recall,
        "--help": lambda i: ["--help"],
        "memory log --limit 5": lambda i: ["memory", "--vault", str(adr), "log", "--limit", "5"],
        "memory ingest --type context ...": ingest,
    }


def clawql_script(given: str | None = None) -> Path:
    """The ``clawql`` console script to time: ``--clawql``, else the one of this venv."""
    script = Path(given) if given else Path(sys.executable).parent / "clawql"
    if not script.is_file():
        raise SystemExit(f"no clawql console script at {script}")
    return script


def run_cli(argv: list[str], script: Path, importtime: bool = False) -> tuple[float, str]:
    """Wall-clock seconds of one fresh ``clawql`` process (and its stderr)."""
    python = script.parent / "python"  # the script's own venv
    prefix = [str(python), "-X", "importtime"] if importtime else []
    cmd = [*prefix, str(script), *argv]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(user_logging=True))
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"clawql {' '.join(argv)} failed ({proc.returncode}): {proc.stderr}")
    return elapsed, proc.stderr


def imported_modules(importtime_stderr: str) -> dict[str, Any]:
    """Which heavy top-level modules a process imported, from ``-X importtime`` output."""
    found: dict[str, float] = {}
    for line in importtime_stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = [p.strip() for p in line[len("import time:") :].split("|")]
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        name = parts[2]
        if name in HEAVY_MODULES:
            found[name] = int(parts[1]) / 1e6  # cumulative seconds
    return {"lancedb": "lancedb" in found, "heavy": found}


def measure_cli(commands: dict[str, Any], rounds: int, script: Path) -> dict[str, Any]:
    """Each command once with ``-X importtime``, then ``rounds`` interleaved timed runs (after
    one untimed warm-up round, so the OS file cache is warm as it is for a user)."""
    out: dict[str, Any] = {}
    for n, (name, argv) in enumerate(commands.items()):
        _, err = run_cli(argv(1000 + n), script, importtime=True)
        out[name] = {**imported_modules(err), "times": []}
    names = list(commands)
    for name in names:
        run_cli(commands[name](2000), script)
    for i in range(rounds):
        for name in rotated(names, i):
            elapsed, err = run_cli(commands[name](i), script)
            out[name]["times"].append(elapsed)
            out[name]["stderr_warn_lines"] = out[name].get("stderr_warn_lines", 0) + sum(
                " WARN " in line for line in err.splitlines()
            )
        progress(f"cold CLI: round {i + 1}/{rounds}")
    for data in out.values():
        data["p50_s"] = statistics.median(data["times"])
        data["min_s"] = min(data["times"])
        data["max_s"] = max(data["times"])
    return out


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class Plan:
    """How much to measure."""

    sizes: list[int]
    queries: int
    update_samples: int
    cli_rounds: int
    minilm_calls: int
    warm_rebuilds: int
    adr_every: int  # import every n-th ADR file (1: the whole corpus)
    profile: bool
    quick: bool
    clawql: str | None = None  # the console script for the cold CLI runs (default: this venv's)


def run(plan: Plan) -> dict[str, Any]:
    started = time.perf_counter()
    docs = load_corpus(CORPUS)
    queries = make_queries(docs, plan.queries)
    months = history_months(datetime.now(UTC), HISTORY_MONTHS)
    report: dict[str, Any] = {"config": config(plan, len(docs))}
    profiles: list[str] = []
    with tempfile.TemporaryDirectory(prefix="clawql-recall-bench-") as tmp:
        root = Path(tmp)
        report["config"]["tmp"] = tmp
        build, rebuild = {}, {}
        for size in plan.sizes:
            path = root / f"vault-{size}"
            build[size] = build_vault(path, size, docs, months)
            progress(f"vault {size}: first full rebuild (hash embedder, cold vector cache)")
            cold = run_child("rebuild", {"vault": str(path), "embedding_model": "hash"})
            progress(f"vault {size}: {cold['seconds']:.1f}s, peak RSS {cold['peak_rss_mb']:.0f} MB")
            rebuild[size] = {"cold": cold}
        report["build_s"] = build
        smallest = root / f"vault-{plan.sizes[0]}"
        warm = []
        for _ in range(plan.warm_rebuilds):
            spec = {"vault": str(smallest), "embedding_model": "hash"}
            warm.append(run_child("rebuild", spec))
            progress(f"vault {plan.sizes[0]}: warm rebuild {warm[-1]['seconds']:.1f}s")
        rebuild[plan.sizes[0]]["warm"] = {
            **warm[0],
            "seconds": statistics.median(w["seconds"] for w in warm),
            "peak_rss_mb": max(w["peak_rss_mb"] for w in warm),
            "all_s": [w["seconds"] for w in warm],
        }
        report["rebuild"] = rebuild

        health_size = 10_000 if 10_000 in plan.sizes else plan.sizes[0]
        report["health"] = run_health(root, health_size, queries, plan)

        targets = [open_target(size, root / f"vault-{size}") for size in plan.sizes]
        measure_recall(targets, queries)
        report["recall"] = {t.size: recall_row(t) for t in targets}
        recall_miss = not all(r["pass"] for r in report["recall"].values())
        if plan.profile or recall_miss:
            progress(f"profiling 100 warm recalls at {targets[-1].size}")
            profiles.append(profile_recalls(targets[-1], queries, 100))
        report["update"] = measure_updates(targets, docs, plan.update_samples)
        for size, row in report["update"].items():
            row["pass"] = row["net_ms"]["p50"] < UPDATE_GOAL_MS
            if plan.profile or not row["pass"]:
                progress(f"profiling 20 index updates at {size}")
                target = next(t for t in targets if t.size == size)
                profiles.append(profile_updates(target, docs, 20))
        del targets

        progress("MiniLM: query embedding")
        report["minilm"] = measure_minilm(queries, plan.minilm_calls)
        adr = root / "adr-vault"
        source = adr_source(root, plan.adr_every)
        report["adr"] = build_adr_vault(adr, source, plan.warm_rebuilds)
        ingest_copy = root / "adr-vault-ingest"
        shutil.copytree(adr, ingest_copy, symlinks=True)
        commands = cli_commands(adr, ingest_copy, queries)
        report["cli"] = measure_cli(commands, plan.cli_rounds, clawql_script(plan.clawql))
    report["goals"] = goals(report)
    report["profiles"] = profiles
    report["config"]["loadavg_end"] = os.getloadavg()
    report["config"]["seconds"] = time.perf_counter() - started
    return report


def run_health(root: Path, size: int, queries: list[Query], plan: Plan) -> dict[str, Any]:
    source = root / f"vault-{size}"
    arms = {name: root / f"health-{name}-{size}" for name in ("no_compaction", "optimize")}
    for path in arms.values():
        shutil.copytree(source, path, symlinks=True)
    progress(f"health: {HEALTH_UPDATES} updates into two copies of the {size} vault")
    spec = {
        "corpus": str(CORPUS),
        "queries": [q.__dict__ for q in queries[: max(20, plan.queries // 2)]],
        "updates": HEALTH_UPDATES,
        **{name: str(path) for name, path in arms.items()},
    }
    result = run_child("health", spec)
    result["entries"] = size
    for path in arms.values():
        shutil.rmtree(path, ignore_errors=True)
    return result


def recall_row(t: Target) -> dict[str, Any]:
    row = spread(t.recall)
    goal = RECALL_GOAL_MS.get(t.size)
    return {
        **spread_ms(t.recall),
        "hits_p50": statistics.median(t.hits),
        "layers": sorted(t.layers),
        "goal_ms": goal,
        "pass": goal is None or row["p50"] <= goal,
    }


def config(plan: Plan, corpus_docs: int) -> dict[str, Any]:
    from clawql_git.index.store import OPTIMIZE_EVERY

    return {
        "sizes": plan.sizes,
        "quick": plan.quick,
        "queries": plan.queries,
        "update_samples": plan.update_samples,
        "cli_rounds": plan.cli_rounds,
        "history_months": HISTORY_MONTHS,
        "build_batch": BUILD_BATCH,
        "corpus_docs": corpus_docs,
        "vector_embedder": HashEmbedder().id,
        "optimize_every": OPTIMIZE_EVERY,
        "lancedb": metadata.version("lancedb"),
        "pyarrow": metadata.version("pyarrow"),
        "onnxruntime": metadata.version("onnxruntime"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
        "clawql": str(clawql_script(plan.clawql)),
    }


def goals(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every goal with its measured value and PASS/MISS."""
    out = []
    for size, row in report["recall"].items():
        if row["goal_ms"] is not None:
            out.append(
                _goal(
                    f"warm recall p50 at {size:,}",
                    f"{row['p50_ms']:.1f} ms",
                    f"<= {row['goal_ms']:g} ms",
                    row["pass"],
                )
            )
    rss = report["rebuild"].get(REBUILD_RSS_SIZE)
    if rss is not None:
        peak = max(rss["cold"]["peak_rss_mb"], rss.get("warm", rss["cold"])["peak_rss_mb"])
        out.append(
            _goal(
                f"peak RSS of a full rebuild at {REBUILD_RSS_SIZE:,}",
                f"{peak:.0f} MB",
                f"< {REBUILD_RSS_GOAL_MB:.0f} MB",
                peak < REBUILD_RSS_GOAL_MB,
            )
        )
    for size, row in report["update"].items():
        out.append(
            _goal(
                f"index update after one ingest at {size:,} (p50, minus embedding)",
                f"{row['net_ms']['p50']:.0f} ms",
                f"< {UPDATE_GOAL_MS:g} ms",
                row["pass"],
            )
        )
    cli = report["cli"]
    recall = cli['memory recall "..." --no-cache']
    out.append(
        _goal(
            "cold CLI recall (MiniLM), median",
            f"{recall['p50_s']:.2f} s",
            f"< {CLI_RECALL_GOAL_S:g} s",
            recall["p50_s"] < CLI_RECALL_GOAL_S,
        )
    )
    for name, data in cli.items():
        if "recall" not in name:
            out.append(
                _goal(
                    f"`clawql {name}` imports lancedb",
                    "yes" if data["lancedb"] else "no",
                    "no",
                    not data["lancedb"],
                )
            )
    adr = report["adr"]
    out.append(
        _goal(
            "second rebuild of the ADR vault (MiniLM, vector cache warm)",
            f"{adr['second_rebuild_s']:.1f} s",
            f"< {SECOND_REBUILD_GOAL_S:g} s",
            adr["second_rebuild_s"] < SECOND_REBUILD_GOAL_S,
        )
    )
    return out


def _goal(name: str, value: str, goal: str, ok: bool) -> dict[str, Any]:
    return {"name": name, "value": value, "goal": goal, "pass": bool(ok)}


# ---------------------------------------------------------------- output


def mark(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def render(report: dict[str, Any]) -> str:
    """The human-readable tables."""
    cfg = report["config"]
    sizes = cfg["sizes"]
    lines = [
        f"clawql-git recall speed{' (--quick)' if cfg['quick'] else ''}: lancedb {cfg['lancedb']},"
        f" pyarrow {cfg['pyarrow']}, onnxruntime {cfg['onnxruntime']}, Python {cfg['python']},"
        f" {cfg['cpus']} cpus; medians of interleaved samples",
        f"Vector timings at {', '.join(f'{s:,}' for s in sizes)} entries use the hash embedder "
        f"({cfg['vector_embedder']}) so model speed does not dominate; the packaged MiniLM's "
        "query embedding is measured separately below.",
        f"Vaults: {cfg['corpus_docs']} ADR documents as 100-300 word bodies, 5 types, 2 tags "
        f"each, {LINK_SHARE:.0%} with wikilinks, over {cfg['history_months']} months, "
        f"{cfg['build_batch']} entries per commit.",
        f"Load average (1, 5, 15 min) at start {_load(cfg['loadavg_start'])}, at end "
        f"{_load(cfg['loadavg_end'])}; run took {cfg['seconds'] / 60:.1f} min.",
        "",
    ]
    lines += _recall_table(report)
    lines += _index_table(report)
    lines += _health_table(report)
    lines += _minilm_table(report)
    lines += _cli_table(report)
    lines += ["", "goals:"]
    width = max(len(g["name"]) for g in report["goals"])
    for g in report["goals"]:
        lines.append(
            f"  {g['name']:<{width}}  {g['value']:>9}  (goal {g['goal']})  {mark(g['pass'])}"
        )
    passed = sum(g["pass"] for g in report["goals"])
    lines.append(f"  {passed} PASS, {len(report['goals']) - passed} MISS")
    builds = ", ".join(f"{int(s):,} entries {b:.0f}s" for s, b in report["build_s"].items())
    lines += ["", f"vault build (git only): {builds}"]
    return "\n".join(lines)


def _load(values: Sequence[float]) -> str:
    return "/".join(f"{v:.1f}" for v in values)


def _recall_table(report: dict[str, Any]) -> list[str]:
    head = f"{'entries':>9} | {'p50':>8} {'p90':>8} {'max':>8} | {'hits':>4} | {'goal':>9} |"
    lines = [
        f"warm in-process recall: Vault.recall(q, use_cache=False), {report['config']['queries']}"
        " varied queries per size (titles, keyword bags, questions, phrases; 20% filtered)",
        head,
        "-" * len(head),
    ]
    for size, r in report["recall"].items():
        goal = f"<= {r['goal_ms']:g} ms" if r["goal_ms"] else "-"
        lines.append(
            f"{int(size):>9,} | {r['p50_ms']:>6.1f}ms {r['p90_ms']:>6.1f}ms {r['max_ms']:>6.1f}ms"
            f" | {r['hits_p50']:>4g} | {goal:>9} | {mark(r['pass'])}"
        )
    layers = next(iter(report["recall"].values()))["layers"]
    return [*lines, f"layers: {', '.join(layers)}", ""]


def _index_table(report: dict[str, Any]) -> list[str]:
    sizes = list(report["rebuild"])
    cols = "".join(f"{int(s):>16,}" for s in sizes)
    lines = [f"index with the hash embedder{'':<24}{cols}"]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"  {label:<50}" + "".join(f"{c:>16}" for c in cells))

    reb = report["rebuild"]
    row(
        "entries / chunks",
        [f"{reb[s]['cold']['entries']}/{reb[s]['cold']['chunks']}" for s in sizes],
    )
    row(
        "full rebuild, cold vector cache (child process)",
        [f"{reb[s]['cold']['seconds']:.1f} s" for s in sizes],
    )
    row("  peak RSS of that process", [f"{reb[s]['cold']['peak_rss_mb']:.0f} MB" for s in sizes])
    row(
        "full rebuild, warm vector cache (child process)",
        [f"{reb[s]['warm']['seconds']:.1f} s" if "warm" in reb[s] else "-" for s in sizes],
    )
    row(
        "  peak RSS of that process",
        [f"{reb[s]['warm']['peak_rss_mb']:.0f} MB" if "warm" in reb[s] else "-" for s in sizes],
    )
    up = report["update"]
    row(
        f"update_index() after one ingest, p50/p90 (n={next(iter(up.values()))['update_ms']['n']})",
        [f"{up[s]['update_ms']['p50']:.0f}/{up[s]['update_ms']['p90']:.0f} ms" for s in sizes],
    )
    row("  of which embedding (hash), p50", [f"{up[s]['embed_ms']['p50']:.1f} ms" for s in sizes])
    row(
        "  minus embedding, p50 (goal < 150 ms)",
        [f"{up[s]['net_ms']['p50']:.0f} ms {mark(up[s]['pass'])}" for s in sizes],
    )
    row(
        "  max (includes periodic optimize)", [f"{up[s]['update_ms']['max']:.0f} ms" for s in sizes]
    )
    row("  updates that ran optimize()", [str(up[s]["optimizes"]) for s in sizes])
    row(
        "first recall after an update, p50 (info)",
        [f"{up[s]['first_recall_after_ms']['p50']:.0f} ms" for s in sizes],
    )
    return [*lines, ""]


def _health_table(report: dict[str, Any]) -> list[str]:
    h = report["health"]
    a, b = h["no_compaction"], h["optimize"]
    lines = [
        f"LanceDB health at {h['entries']:,} entries: {h['updates']} single-entry index updates "
        "(2/3 new ingests, 1/3 body updates), interleaved in two copies",
        f"{'':<44}{'no compaction':>16}{'optimize every ' + str(h['optimize_every']):>22}",
    ]

    def row(label: str, x: str, y: str) -> None:
        lines.append(f"  {label:<42}{x:>16}{y:>22}")

    row(
        "recall p50 before the updates",
        f"{a['before']['recall_p50_ms']:.1f} ms",
        f"{b['before']['recall_p50_ms']:.1f} ms",
    )
    row(
        "recall p50 after the updates",
        f"{a['after']['recall_p50_ms']:.1f} ms",
        f"{b['after']['recall_p50_ms']:.1f} ms",
    )
    row(
        "recall p90 after the updates",
        f"{a['after']['recall_p90_ms']:.1f} ms",
        f"{b['after']['recall_p90_ms']:.1f} ms",
    )
    row(
        "raw lance searches p50 before (3 queries)",
        f"{a['before']['lance_p50_ms']:.1f} ms",
        f"{b['before']['lance_p50_ms']:.1f} ms",
    )
    row(
        "raw lance searches p50 after",
        f"{a['after']['lance_p50_ms']:.1f} ms",
        f"{b['after']['lance_p50_ms']:.1f} ms",
    )
    row(
        "update_index() p50 / max",
        f"{a['update_ms']['p50']:.0f}/{a['update_ms']['max']:.0f} ms",
        f"{b['update_ms']['p50']:.0f}/{b['update_ms']['max']:.0f} ms",
    )
    for table in ("entries", "chunks"):
        ta, tb = a["tables"][table], b["tables"][table]
        row(
            f"{table}: fragments / versions",
            f"{ta['fragments']}/{ta['versions']}",
            f"{tb['fragments']}/{tb['versions']}",
        )
    row("index size on disk", f"{a['index_mb']:.0f} MB", f"{b['index_mb']:.0f} MB")
    return [*lines, ""]


def _minilm_table(report: dict[str, Any]) -> list[str]:
    m, adr = report["minilm"], report["adr"]
    return [
        f"packaged MiniLM ({adr['embedder']})",
        f"  embed_query p50/p90 of {m['n']} warm calls: {m['p50_ms']:.1f}/{m['p90_ms']:.1f} ms"
        f" (first call, verifying and loading the model: {m['first_call_s']:.2f} s)",
        f"  vault of the {adr['source']}: {adr['entries']} entries, {adr['chunks']} chunks,"
        f" imported in one commit in {adr['import_s']:.1f} s",
        f"  first rebuild (cold vector cache, {adr['first_embedded']} chunks embedded):"
        f" {adr['first_rebuild_s']:.1f} s",
        f"  second rebuild (vector cache warm, {adr['second_embedded']} embedded), median of "
        f"{len(adr['second_rebuild_all_s'])}: {adr['second_rebuild_s']:.1f} s "
        f"(goal < {SECOND_REBUILD_GOAL_S:g} s) {mark(adr['second_rebuild_s'] < 10)}",
        "",
    ]


def _cli_table(report: dict[str, Any]) -> list[str]:
    cli = report["cli"]
    rounds = len(next(iter(cli.values()))["times"])
    head = f"  {'clawql ...':<36} {'median':>7} {'min':>7} {'max':>7}  lancedb  heavy imports (s)"
    lines = [
        f"cold CLI: fresh processes, ADR vault with its MiniLM index, {rounds} interleaved runs"
        f" ({report['config'].get('clawql', 'clawql')})",
        head,
    ]
    for name, d in cli.items():
        heavy = ", ".join(f"{k} {v:.2f}" for k, v in sorted(d["heavy"].items())) or "-"
        lines.append(
            f"  {name:<36} {d['p50_s']:>6.2f}s {d['min_s']:>6.2f}s {d['max_s']:>6.2f}s  "
            f"{'yes' if d['lancedb'] else 'no':<7}  {heavy}"
        )
    warn = {n: d.get("stderr_warn_lines", 0) for n, d in cli.items()}
    noisy = ", ".join(f"{n}: {w}" for n, w in warn.items() if w) or "none"
    return [
        *lines,
        "  (heavy imports: cumulative import seconds from one -X importtime run)",
        f"  LanceDB WARN lines on stderr over the timed runs: {noisy}",
    ]


# ---------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--sizes", default=None, help="vault sizes (default 10000,100000)")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--out", type=Path, help="also write the JSON report to this file")
    parser.add_argument(
        "--quick", action="store_true", help="only 10,000 entries, fewer samples (minutes)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile recalls and updates even when they pass"
    )
    parser.add_argument(
        "--clawql",
        help="the clawql console script for the cold CLI runs (default: this venv's); e.g. of "
        "a venv made by the README's install command, without the test extra",
    )
    parser.add_argument("--child", nargs=2, metavar=("TASK", "SPEC"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def plan_from(args: argparse.Namespace) -> Plan:
    default = "10000" if args.quick else "10000,100000"
    sizes = sorted({int(s) for s in (args.sizes or default).split(",") if s.strip()})
    if not sizes or sizes[0] < 100:
        raise SystemExit("--sizes needs sizes of at least 100 entries")
    if args.quick:
        return Plan(sizes, 40, 10, 5, 50, 1, 4, args.profile, True, args.clawql)
    return Plan(sizes, 100, 25, 7, 50, 3, 1, args.profile, False, args.clawql)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        task, spec = args.child
        print(json.dumps(CHILD_TASKS[task](json.loads(spec))), flush=True)
        return 0
    report = run(plan_from(args))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    for text in report["profiles"]:
        print(f"\n{text}", file=sys.stderr)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
