"""Ingest scaling bench: in-process ``Vault.ingest`` latency and bytes per ingest at several vault
sizes, side by side with a plain ``git add`` + ``git commit`` loop writing the same files.

Run: ``.venv/bin/python bench/ingest_scaling.py [--sizes 100,10000] [--samples 200] [--json]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pygit2
from corpus import CORPUS, Doc, describe, history_months, load_corpus, truncate_words

from clawql_git import Identity, Vault
from clawql_git.model.drafts import Draft, draft_from_fields
from clawql_git.model.entry import (
    slugify,
    type_folder,
    validate_entry_path,
)

TYPES = ("decision", "context", "error", "pattern", "task_result")
TAGS = ("auth", "storage", "api", "ci", "infra", "search", "ui", "security", "perf", "docs")
HISTORY_MONTHS = 36
BUILD_BATCH = 2000
WARMUP = 3
SCALING_GOAL = 1.5  # p50(largest) / p50(smallest) at most this
BASELINE_GOAL = 1.0  # p50(ours) / p50(git) below this
SAMPLE_IDENTITY = Identity(agent_id="bench", session_id="s")
SEED_IDENTITY = Identity(agent_id="bench-seed", session_id="seed")
BASELINE_FILES = "entry + updated catalogs (every file our ingest changed, same bytes and paths)"
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_WORD = re.compile(r"\S+\s*")


# ---------------------------------------------------------------- corpus


# ---------------------------------------------------------------- building the vaults


def seed_draft(vault: Vault, n: int, docs: list[Doc], months: list[str]) -> Draft:
    """Draft number ``n`` of the pre-existing history (deterministic)."""
    rng = random.Random(n)
    doc = docs[n % len(docs)]
    body = truncate_words(doc.body, rng.randint(100, 300))
    month = months[n % len(months)]
    day, hour, minute = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
    stamp = f"{month}-{day:02d}T{hour:02d}:{minute:02d}:00Z"
    entry_type, title = TYPES[n % len(TYPES)], f"{doc.title} {n}"
    meta = {"timestamp": stamp}
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


def build_vault(path: Path, size: int, docs: list[Doc], months: list[str]) -> Vault:
    """A vault holding ``size`` entries, written in batch commits of BUILD_BATCH."""
    vault = Vault.init(path, identity=SEED_IDENTITY)
    for start in range(0, size, BUILD_BATCH):
        stop = min(start + BUILD_BATCH, size)
        drafts = [seed_draft(vault, n, docs, months) for n in range(start, stop)]
        vault.ingest_many(drafts, identity=SEED_IDENTITY, batch=True)
        progress(f"vault {size}: {stop}/{size} entries")
    return vault


def git_env() -> dict[str, str]:
    """An environment for the baseline git that ignores the user's and system's git config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.com",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.com",
    )
    return env


# Auto-gc would repack the baseline mid-loop (our engine never packs), so it is off.
GIT_FLAGS = ("-c", "gc.auto=0", "-c", "maintenance.auto=false")


def git_version() -> str:
    """The baseline git's version line."""
    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()


def run_git(repo: Path, env: dict[str, str], *args: str) -> None:
    """Run the real git binary in ``repo``; raise with its stderr on failure."""
    proc = subprocess.run(
        ["git", *GIT_FLAGS, *args], cwd=repo, env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")


def mirror_repo(vault: Vault, path: Path, env: dict[str, str]) -> None:
    """A plain git repository holding the vault's files, committed in one go."""
    shutil.copytree(vault.root, path, ignore=shutil.ignore_patterns(".git"))
    run_git(path, env, "init", "-q", "-b", "main")
    run_git(path, env, "add", "-A")
    run_git(path, env, "commit", "-q", "-m", "seed")


# ---------------------------------------------------------------- one measured write


@dataclass
class Target:
    """One vault (ours) and its mirror repository (git), with their samples."""

    size: int
    vault: Vault
    repo: Path
    ours: list[float] = field(default_factory=list)
    git: list[float] = field(default_factory=list)
    ours_loose: tuple[int, int] = (0, 0)  # (objects, bytes) added by the sampled ingests
    git_loose: tuple[int, int] = (0, 0)


def sample_fields(i: int, docs: list[Doc]) -> dict[str, Any]:
    """The keyword arguments of sampled ingest ``i`` ("now", unique title)."""
    rng = random.Random(1_000_000 + i)
    doc = docs[rng.randrange(len(docs))]
    return {
        "type": TYPES[i % len(TYPES)],
        "title": f"Bench sample {i}: {doc.title}",
        "body": truncate_words(doc.body, rng.randint(100, 300)),
        "tags": rng.sample(TAGS, 2),
    }


def timed_ingest(vault: Vault, fields: dict[str, Any]) -> tuple[float, dict[str, bytes | None]]:
    """Seconds taken by one ``Vault.ingest``, and the files its commit changed."""
    start = time.perf_counter()
    result = vault.ingest(**fields, identity=SAMPLE_IDENTITY)
    elapsed = time.perf_counter() - start
    return elapsed, changed_files(vault, result.sha)


def changed_files(vault: Vault, sha: str) -> dict[str, bytes | None]:
    """path -> new bytes (None when deleted) for every file a commit changed."""
    repo = vault.store.repo
    commit = repo.get(sha)
    assert isinstance(commit, pygit2.Commit)
    parent = commit.parents[0].tree if commit.parents else None
    out: dict[str, bytes | None] = {}
    for path, _, new_id in vault.store.diff_paths(parent, commit.tree):
        blob = repo.get(new_id) if new_id else None
        out[path] = blob.data if isinstance(blob, pygit2.Blob) else None
    return out


def timed_git_commit(repo: Path, env: dict[str, str], files: dict[str, bytes | None]) -> float:
    """Seconds to write ``files`` into the work tree, ``git add`` them and ``git commit``."""
    start = time.perf_counter()
    for rel, data in files.items():
        target = repo / rel
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    run_git(repo, env, "add", "--", *files)
    run_git(repo, env, "commit", "-q", "-m", f"ingest {next(iter(files), '')}")
    return time.perf_counter() - start


def loose_objects(git_dir: Path) -> tuple[int, int]:
    """(count, bytes) of the loose objects under ``git_dir``/objects."""
    count = size = 0
    for fan in os.scandir(git_dir / "objects"):
        if len(fan.name) == 2 and fan.is_dir():
            for obj in os.scandir(fan.path):
                count += 1
                size += obj.stat().st_size
    return count, size


# ---------------------------------------------------------------- the run


def measure(targets: list[Target], docs: list[Doc], samples: int, env: dict[str, str]) -> None:
    """Interleaved rounds: each round writes one sample to every target, in rotating order."""
    for i in range(WARMUP):
        for target in targets:
            _round(target, sample_fields(-1 - i, docs), env, record=False)
    before = {
        t.size: (loose_objects(t.vault.store.gitdir), loose_objects(t.repo / ".git"))
        for t in targets
    }
    for i in range(samples):
        shift = i % len(targets)
        for target in targets[shift:] + targets[:shift]:
            _round(target, sample_fields(i, docs), env, record=True)
        if (i + 1) % 25 == 0 or i + 1 == samples:
            progress(f"sampled {i + 1}/{samples} ingests per target")
    for target in targets:
        ours_before, git_before = before[target.size]
        target.ours_loose = _delta(loose_objects(target.vault.store.gitdir), ours_before)
        target.git_loose = _delta(loose_objects(target.repo / ".git"), git_before)


def _round(target: Target, fields: dict[str, Any], env: dict[str, str], record: bool) -> None:
    ours, files = timed_ingest(target.vault, fields)
    theirs = timed_git_commit(target.repo, env, files)
    if record:
        target.ours.append(ours)
        target.git.append(theirs)


def _delta(after: tuple[int, int], before: tuple[int, int]) -> tuple[int, int]:
    return after[0] - before[0], after[1] - before[1]


def percentile(values: list[float], q: int) -> float:
    """The q-th percentile (inclusive method; the median for q=50)."""
    if q == 50:
        return statistics.median(values)
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def summarise(target: Target, samples: int) -> dict[str, Any]:
    """JSON-safe numbers of one target."""
    ours_p50, git_p50 = percentile(target.ours, 50), percentile(target.git, 50)
    return {
        "entries": target.size,
        "ours": _side(target.ours, target.ours_loose, samples),
        "git": _side(target.git, target.git_loose, samples),
        "ours_over_git": ours_p50 / git_p50,
        "pass": ours_p50 / git_p50 < BASELINE_GOAL,
    }


def _side(times: list[float], loose: tuple[int, int], samples: int) -> dict[str, float]:
    return {
        "p50_ms": percentile(times, 50) * 1000,
        "p90_ms": percentile(times, 90) * 1000,
        "max_ms": max(times) * 1000,
        "bytes_per_ingest": loose[1] / samples,
        "objects_per_ingest": loose[0] / samples,
    }


def run(sizes: list[int], samples: int, profile: bool, eager: bool = True) -> dict[str, Any]:
    """Build every vault and mirror, measure them, and return the report."""
    docs = load_corpus(CORPUS)
    months = history_months(datetime.now(UTC), HISTORY_MONTHS)
    env = git_env()
    with tempfile.TemporaryDirectory(prefix="clawql-bench-") as tmp:
        targets, build = _build_all(Path(tmp), sizes, docs, months, env)
        for target in targets:
            target.vault.eager_index = eager
        measure(targets, docs, samples, env)
        report = _report(targets, samples, build, len(docs))
        report["config"]["git_index"] = "eager" if eager else "deferred"
        if profile:
            profile_ingests(targets[-1], docs, samples)
        for target in targets:
            target.vault.close()
    return report


def _build_all(
    root: Path, sizes: list[int], docs: list[Doc], months: list[str], env: dict[str, str]
) -> tuple[list[Target], dict[str, dict[str, float]]]:
    targets, build = [], {}
    for size in sizes:
        start = time.perf_counter()
        vault = build_vault(root / f"vault-{size}", size, docs, months)
        built = time.perf_counter()
        mirror_repo(vault, root / f"git-{size}", env)
        progress(f"git mirror {size}: committed")
        build[str(size)] = {"vault": built - start, "git_mirror": time.perf_counter() - built}
        targets.append(Target(size, vault, root / f"git-{size}"))
    return targets, build


def _report(
    targets: list[Target], samples: int, build: dict[str, dict[str, float]], corpus_docs: int
) -> dict[str, Any]:
    rows = [summarise(t, samples) for t in targets]
    ratio = rows[-1]["ours"]["p50_ms"] / rows[0]["ours"]["p50_ms"]
    return {
        "config": {
            "sizes": [t.size for t in targets],
            "samples": samples,
            "warmup": WARMUP,
            "history_months": HISTORY_MONTHS,
            "build_batch": BUILD_BATCH,
            "corpus_docs": corpus_docs,
            "baseline_files": BASELINE_FILES,
            "git": git_version(),
            "pygit2": metadata.version("pygit2"),
            "libgit2": pygit2.LIBGIT2_VERSION,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "build_seconds": build,
        "sizes": rows,
        "scaling": {
            "from": targets[0].size,
            "to": targets[-1].size,
            "ratio": ratio,
            "goal": SCALING_GOAL,
            "pass": ratio <= SCALING_GOAL,
        },
    }


def profile_ingests(target: Target, docs: list[Doc], samples: int) -> None:
    """cProfile ``samples`` more ingests into the largest vault; the top cumulative costs of
    clawql_git functions go to stderr (stdout keeps the table or the JSON)."""
    prof = cProfile.Profile()
    for i in range(samples):
        fields = sample_fields(10_000_000 + i, docs)
        prof.runcall(target.vault.ingest, **fields, identity=SAMPLE_IDENTITY)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats("clawql_git", 30)
    print(
        f"\n# cProfile: {samples} ingests at {target.size} entries\n{out.getvalue()}",
        file=sys.stderr,
    )


# ---------------------------------------------------------------- output


def mark(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def render(report: dict[str, Any]) -> str:
    """The human-readable table."""
    cfg = report["config"]
    head = (
        f"{'entries':>8} | {'ours p50':>9} {'ours p90':>9} {'B/ingest':>9} {'obj/ing':>7} | "
        f"{'git p50':>9} {'git p90':>9} {'B/ingest':>9} {'obj/ing':>7} | {'ours/git':>8}"
    )
    lines = [
        f"clawql-git ingest scaling: {cfg['samples']} samples per size (+{cfg['warmup']} warmup),"
        f" interleaved, medians; {cfg['git']}, pygit2 {cfg['pygit2']} (libgit2 "
        f"{cfg['libgit2']}), Python {cfg['python']}, {cfg['cpus']} cpus",
        f"git baseline writes: {cfg['baseline_files']}; `git add <files>` + `git commit -q`",
        f"our git index: {cfg.get('git_index', 'eager')} (eager: rewritten with every ingest, "
        "like git's; deferred: bulk mode, brought up to date at close)",
        "",
        head,
        "-" * len(head),
    ]
    lines += [_row(row) for row in report["sizes"]]
    lines += ["", "goals:"]
    sc = report["scaling"]
    lines.append(
        f"  p50({sc['to']})/p50({sc['from']}) = {sc['ratio']:.2f}"
        f"  (goal <= {sc['goal']})  {mark(sc['pass'])}"
    )
    for row in report["sizes"]:
        lines.append(
            f"  ours/git at {row['entries']} = {row['ours_over_git']:.2f}"
            f"  (goal < {BASELINE_GOAL:g})  {mark(row['pass'])}"
        )
    builds = ", ".join(
        f"{size} entries {b['vault']:.1f}s (git mirror {b['git_mirror']:.1f}s)"
        for size, b in report["build_seconds"].items()
    )
    lines += ["", f"build: {builds}"]
    return "\n".join(lines)


def _row(row: dict[str, Any]) -> str:
    o, g = row["ours"], row["git"]
    return (
        f"{row['entries']:>8} | {o['p50_ms']:>7.2f}ms {o['p90_ms']:>7.2f}ms "
        f"{o['bytes_per_ingest']:>9.0f} {o['objects_per_ingest']:>7.1f} | "
        f"{g['p50_ms']:>7.2f}ms {g['p90_ms']:>7.2f}ms "
        f"{g['bytes_per_ingest']:>9.0f} {g['objects_per_ingest']:>7.1f} | "
        f"{row['ours_over_git']:>8.2f}"
    )


def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,10000", help="vault sizes, comma separated")
    parser.add_argument("--samples", type=int, default=200, help="measured ingests per size")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument(
        "--git-index",
        choices=("eager", "deferred"),
        default="eager",
        help="eager (the default: git index rewritten with every ingest) or deferred "
        "(bulk mode, Vault.open(eager_index=False): index brought up to date at close)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile --samples ingests at the largest size (to stderr)",
    )
    args = parser.parse_args(argv)
    args.sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    if len(args.sizes) < 2 or args.sizes[0] < 1 or args.samples < 2:
        parser.error("need at least two positive sizes and --samples >= 2")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args.sizes, args.samples, args.profile, args.git_index == "eager")
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
