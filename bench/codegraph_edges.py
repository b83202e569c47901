"""Call edges of clawql and codegraph 1.6.1, compared site by site, with right edges estimated
from hand labels: a raw edge count is not coverage, since codegraph links calls by name.

    PYTHONPATH=$PWD python bench/codegraph_edges.py --only LANG [--sample 40]
        [--sample-ours 20] [--seed 18] [--keep DIR] [--labels DIR] [--json]

For each bench repository of that language (bench/codegraph_repos.json), both tools index
their own checkout at the pinned commit (kept under ``--keep``, /tmp/cg-edges by default:
codegraph's index is reused on the next run, clawql's is rebuilt from scratch every run). A
call edge is one call site with a target in the repository: clawql's ``calls`` rows with a
``target_path``, codegraph's ``calls`` and ``instantiates`` edges, counted only from files of
the language. Two edges are the same when they leave the same file and line for the same
target file and name (the name's last segment); an edge left over on either side then
matches one of the other's at the same site and target file under another name (a
constructor named as its class, ``Foo`` / ``Foo.init``). What is left is ``codegraph only``
and ``clawql only``.

Labels: ``LABELS/LANG.jsonl``, one JSON object per line, read against the source::

    {"tool": "codegraph", "repo": "tokio-rs/axum", "path": "axum/src/a.rs", "line": 12,
     "target_path": "axum/src/b.rs", "target": "into_response", "right": false,
     "why": "receiver is http::Response, outside the repository"}

The sample of each side is a stable seeded order of its one-sided edges (a hash of the seed
and the edge), so labels carry over from run to run; every sampled edge not yet labelled is
printed with its source line and a label template to fill in. Right edges are estimated as
the shared edges (both tools agree on target file and site) plus the one-sided edges times
the share of that side's labelled sample that is right, with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import codegraph_repos as repos
from codegraph_speed import CODEGRAPH

HERE = Path(__file__).resolve().parent
LABELS = HERE / "data" / "edge_labels"
Edge = tuple[str, int, str, str]  # path, line, target path, target name


@dataclass
class Side:
    """One tool's edges, and (clawql) its unresolved calls by site, for the report."""

    edges: Counter[Edge]
    unresolved: dict[tuple[str, int], list[str]]


def last_segment(name: str) -> str:
    """``Foo.bar`` / ``a::b::bar`` / ``Foo#bar`` -> ``bar``."""
    parts = [p for p in re.split(r"::|[.#/\\]", name) if p]
    return parts[-1] if parts else name


def index_ours(checkout: Path) -> Path:
    shutil.rmtree(checkout / ".git" / "clawql", ignore_errors=True)
    # the clawql_git on PYTHONPATH (a worktree's), else this checkout's
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(HERE.parent)}
    cmd = [sys.executable, "-m", "clawql_git", "code", "index", str(checkout), "--json"]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return checkout / ".git" / "clawql" / "codegraph" / "graph.sqlite"


def index_theirs(checkout: Path) -> Path:
    db = checkout / ".codegraph" / "codegraph.db"
    if not db.exists():
        env = {**os.environ, "CODEGRAPH_TELEMETRY": "0"}
        subprocess.run(
            [str(CODEGRAPH), "init", "-y", str(checkout)], env=env, check=True, capture_output=True
        )
    return db


def ours(db: Path, languages: set[str]) -> Side:
    con = sqlite3.connect(db)
    try:
        lang = dict(con.execute("SELECT path, language FROM files"))
        edges: Counter[Edge] = Counter()
        unresolved: dict[tuple[str, int], list[str]] = {}
        for path, line, callee, target_path, qualname in con.execute(
            "SELECT path, line, callee, target_path, target_qualname FROM calls"
        ):
            if repos.language(lang.get(path, "")) not in languages:
                continue
            if target_path:
                edges[(path, line, target_path, last_segment(qualname))] += 1
            else:
                unresolved.setdefault((path, line), []).append(callee)
    finally:
        con.close()
    return Side(edges, unresolved)


def theirs(db: Path, languages: set[str]) -> Side:
    con = sqlite3.connect(db)
    try:
        edges: Counter[Edge] = Counter()
        for lang, path, line, target_path, name in con.execute(
            "SELECT s.language, s.file_path, e.line, t.file_path, t.name FROM edges e "
            "JOIN nodes s ON s.id = e.source JOIN nodes t ON t.id = e.target "
            "WHERE e.kind IN ('calls', 'instantiates')"
        ):
            if repos.language(lang) in languages:
                edges[(path, int(line or 0), target_path, last_segment(name))] += 1
    finally:
        con.close()
    return Side(edges, {})


def compare(a: Counter[Edge], b: Counter[Edge]) -> tuple[int, Counter[Edge], Counter[Edge]]:
    """Shared count, a's and b's leftovers: by full key, then by site and target file."""
    exact = a & b
    a_left, b_left = a - exact, b - exact
    shared = sum(exact.values())
    sites: dict[tuple[str, int, str], list[Counter[Edge]]] = {}
    for side, left in ((0, a_left), (1, b_left)):
        for key, n in left.items():
            pair = sites.setdefault(key[:3], [Counter(), Counter()])
            pair[side][key] = n
    a_only: Counter[Edge] = Counter()
    b_only: Counter[Edge] = Counter()
    for pair in sites.values():
        m = min(sum(pair[0].values()), sum(pair[1].values()))
        shared += m
        for side, out in ((0, a_only), (1, b_only)):
            drop = m
            for key in sorted(pair[side]):
                take = min(drop, pair[side][key])
                drop -= take
                if pair[side][key] - take:
                    out[key] = pair[side][key] - take
    return shared, a_only, b_only


def stable_sample(edges: Counter[Edge], n: int, seed: int, tool: str) -> list[Edge]:
    def rank(e: Edge) -> str:
        return hashlib.sha1(f"{seed}|{tool}|{e}".encode()).hexdigest()

    return sorted(edges, key=rank)[:n]


def load_labels(path: Path) -> dict[tuple[str, str, int, str, str], dict[str, Any]]:
    out: dict[tuple[str, str, int, str, str], dict[str, Any]] = {}
    if not path.exists():
        return out
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            key = (row["tool"], row["path"], int(row["line"]), row["target_path"], row["target"])
            bool(row["right"])
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}:{n}: not a label ({e}): {raw[:120]}") from e
        out[key] = row
    return out


def wilson(k: int, n: int) -> tuple[float, float, float]:
    if n == 0:
        return (math.nan, 0.0, 1.0)
    p, z = k / n, 1.96
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (p, max(0.0, c - h), min(1.0, c + h))


def source_line(root: Path, path: str, line: int) -> str:
    try:
        lines = (root / path).read_text(errors="replace").splitlines()
        return lines[line - 1].strip()[:160] if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def estimate(tool: str, shared: int, only: Counter[Edge], labels: dict[Any, Any], repo: str):
    keys = [(tool, *e) for e in only]
    rows = [labels[k] for k in keys if k in labels and labels[k].get("repo", repo) == repo]
    right = sum(1 for r in rows if r["right"])
    p, lo, hi = wilson(right, len(rows))
    total = sum(only.values())
    if not rows:
        return {"labelled": 0, "right": 0, "estimate": None}
    return {
        "labelled": len(rows),
        "right": right,
        "share": round(p, 3),
        "estimate": round(shared + total * p),
        "low": round(shared + total * lo),
        "high": round(shared + total * hi),
    }


def print_sample(
    tool: str,
    sample: list[Edge],
    labels: dict[Any, Any],
    checkout: Path,
    repo: str,
    other: Side | None,
) -> None:
    todo = [e for e in sample if (tool, *e) not in labels]
    print(f"\n  {tool} only, sample of {len(sample)} ({len(todo)} not labelled yet):")
    for e in todo:
        path, line, tpath, target = e
        print(f"    {path}:{line}  -> {tpath} {target}")
        print(f"      | {source_line(checkout, path, line)}")
        if other is not None:
            names = other.unresolved.get((path, line))
            if names:
                print(f"      clawql there: unresolved {', '.join(sorted(set(names)))}")
        tmpl = {
            "tool": tool,
            "repo": repo,
            "path": path,
            "line": line,
            "target_path": tpath,
            "target": target,
            "right": None,
            "why": "",
        }
        print(f"      {json.dumps(tmpl)}")


def run(repo: repos.BenchRepo, lang: str, args: argparse.Namespace) -> dict[str, Any]:
    keep = Path(args.keep)
    keep.mkdir(parents=True, exist_ok=True)
    checkouts = {}
    for label in ("ours", "cg"):
        dst = keep / f"{repo.name}-{label}"
        if not dst.exists():
            repos.checkout(repo, keep, label, Path(args.mirrors))
        checkouts[label] = dst
    languages = {lang}
    mine = ours(index_ours(checkouts["ours"]), languages)
    other = theirs(index_theirs(checkouts["cg"]), languages)
    shared, ours_only, cg_only = compare(mine.edges, other.edges)
    labels = load_labels(Path(args.labels) / f"{lang}.jsonl")
    record = {
        "repo": repo.repo,
        "language": lang,
        "clawql": sum(mine.edges.values()),
        "codegraph": sum(other.edges.values()),
        "shared": shared,
        "clawql_only": sum(ours_only.values()),
        "codegraph_only": sum(cg_only.values()),
        "clawql_right": estimate("clawql", shared, ours_only, labels, repo.repo),
        "codegraph_right": estimate("codegraph", shared, cg_only, labels, repo.repo),
    }
    if not args.json:
        print(
            f"{repo.repo} ({lang}): clawql {record['clawql']}, codegraph {record['codegraph']}, "
            f"shared {shared}, clawql only {record['clawql_only']}, "
            f"codegraph only {record['codegraph_only']}"
        )
        for tool in ("clawql", "codegraph"):
            est = record[f"{tool}_right"]
            if est["estimate"] is None:
                print(f"  {tool}: no labels yet for its one-sided edges")
            else:
                print(
                    f"  {tool} right edges ~ {est['estimate']} [{est['low']}, {est['high']}] "
                    f"({est['right']}/{est['labelled']} of its labelled one-sided edges right)"
                )
        print_sample(
            "codegraph",
            stable_sample(cg_only, args.sample, args.seed, "codegraph"),
            labels,
            checkouts["cg"],
            repo.repo,
            mine,
        )
        print_sample(
            "clawql",
            stable_sample(ours_only, args.sample_ours, args.seed, "clawql"),
            labels,
            checkouts["ours"],
            repo.repo,
            None,
        )
    return record


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--only", action="append", required=True, help="language (repeatable)")
    ap.add_argument("--sample", type=int, default=40, help="codegraph-only edges to show")
    ap.add_argument("--sample-ours", type=int, default=20, help="clawql-only edges to show")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--keep", default="/tmp/cg-edges", help="checkouts live here")
    ap.add_argument("--labels", default=str(LABELS), help="directory of LANG.jsonl labels")
    ap.add_argument("--mirrors", default=str(repos.MIRRORS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not CODEGRAPH.exists():
        raise SystemExit(f"codegraph 1.6.1 is not installed at {CODEGRAPH}")
    records = []
    for lang in args.only:
        chosen = [r for r in repos.load() if lang.lower() in {x.lower() for x in r.languages}]
        if not chosen:
            raise SystemExit(f"no bench repository for language {lang!r}")
        records += [run(r, lang.lower(), args) for r in chosen]
    if args.json:
        print(json.dumps(records, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
