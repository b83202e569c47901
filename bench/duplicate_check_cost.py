"""What the duplicate/contradiction check adds to one in-process ``Vault.ingest``, at several vault
sizes, with the derived index present (the check runs only then): ingests with the check on and
off, alternated in the same vault in one run, so the ratio is what to read (the machine is
shared). Vaults are built as in bench/ingest_scaling.py (ADR corpus bodies, batch commits).

Run: ``.venv/bin/python bench/duplicate_check_cost.py [--sizes 100,2000] [--samples 30]
[--embedder hash|minilm] [--json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus import CORPUS, load_corpus
from ingest_scaling import HISTORY_MONTHS, SAMPLE_IDENTITY, build_vault, history_months
from ingest_scaling import sample_fields as scaling_fields

from clawql_git import Vault
from clawql_git.index.embedders import resolve_embedder


def timed(vault: Vault, fields: dict[str, Any], check: bool) -> float:
    vault.settings = replace(vault.settings, duplicate_check=check)
    start = time.perf_counter()
    vault.ingest(**fields, identity=SAMPLE_IDENTITY)
    return time.perf_counter() - start


def measure(size: int, samples: int, embedder_spec: str, root: Path) -> dict[str, Any]:
    docs = load_corpus(CORPUS)
    months = history_months(datetime.now(UTC), HISTORY_MONTHS)
    build_vault(root / f"v{size}", size, docs, months).close()
    vault = Vault.open(root / f"v{size}", embedder=resolve_embedder(embedder_spec, {}))
    start = time.perf_counter()
    vault.rebuild_index()
    built = time.perf_counter() - start
    on: list[float] = []
    off: list[float] = []
    for i in range(samples + 2):
        fields = scaling_fields(i, docs)
        first_on = i % 2 == 0
        a = timed(vault, fields, first_on)
        b = timed(vault, {**fields, "title": fields["title"] + " (again)"}, not first_on)
        if i >= 2:  # warm-up: the model and the tables load on the first checks
            (on if first_on else off).append(a)
            (off if first_on else on).append(b)
    vault.close()
    p50_on, p50_off = statistics.median(on), statistics.median(off)
    return {
        "entries": size,
        "index_build_s": round(built, 1),
        "p50_check_on_ms": round(p50_on * 1000, 1),
        "p50_check_off_ms": round(p50_off * 1000, 1),
        "ratio_on_off": round(p50_on / p50_off, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sizes", default="100,2000")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--embedder", default="hash", help="hash (fast to build) or minilm")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="clawql-dupcost-") as tmp:
        rows = [measure(n, args.samples, args.embedder, Path(tmp)) for n in sizes]
    report = {"embedder": args.embedder, "samples": args.samples, "rows": rows}
    if rows:
        report["p50_on_growth"] = round(rows[-1]["p50_check_on_ms"] / rows[0]["p50_check_on_ms"], 2)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"duplicate check cost per ingest, embedder {args.embedder}, {args.samples} samples each")
    print(f"{'entries':>8} | {'check on p50':>12} {'check off p50':>13} | {'on/off':>6}")
    for r in rows:
        print(
            f"{r['entries']:>8} | {r['p50_check_on_ms']:>10.1f}ms {r['p50_check_off_ms']:>11.1f}ms"
            f" | {r['ratio_on_off']:>6.2f}"
        )
    print(f"p50 with the check, largest / smallest vault: {report.get('p50_on_growth')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
