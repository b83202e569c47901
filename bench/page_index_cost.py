"""What PageIndex classification adds to an ingest, measured in one run: on the same vault,
ingests with the classifier on and off alternate (two ``Vault`` handles, one of them with
``page_index`` switched off), so the machine's load falls on both sides alike.

Run: ``.venv/bin/python bench/page_index_cost.py [--sizes 100,1000] [--samples 50]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from corpus import CORPUS, history_months, load_corpus
from ingest_scaling import SAMPLE_IDENTITY, WARMUP, build_vault, sample_fields

from clawql_git import Vault


def measure(size: int, samples: int, root: Path) -> tuple[float, float, float]:
    """(p50 on, p50 off, p50 of the classification alone) in seconds at ``size`` entries."""
    from datetime import UTC, datetime

    docs = load_corpus(CORPUS)
    build_vault(root, size, docs, history_months(datetime.now(UTC), 36)).close()
    on, off = Vault.open(root), Vault.open(root)
    off.page_index = None
    times: dict[str, list[float]] = {"on": [], "off": [], "classify": []}
    for i in range(WARMUP * 2 + samples * 2):
        vault, side = (on, "on") if i % 2 == 0 else (off, "off")
        fields = sample_fields(size * 10 + i, docs)
        start = time.perf_counter()
        result = vault.ingest(**fields, identity=SAMPLE_IDENTITY)
        elapsed = time.perf_counter() - start
        if i >= WARMUP * 2:
            times[side].append(elapsed)
            if side == "on" and on.page_index is not None and result.entry is not None:
                head = on.store.head_commit()
                start = time.perf_counter()
                on.page_index.classification(head.tree if head else None, result.entry)
                times["classify"].append(time.perf_counter() - start)
    on.close()
    off.close()
    return tuple(statistics.median(times[k]) for k in ("on", "off", "classify"))  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args()
    print(" entries | p50 on   | p50 off  | on/off | classify p50 (after the commit)")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            p_on, p_off, p_cls = measure(size, args.samples, Path(tmp) / "vault")
        print(
            f" {size:>7} | {p_on * 1000:6.1f}ms | {p_off * 1000:6.1f}ms | {p_on / p_off:6.2f} | "
            f"{p_cls * 1000:.2f}ms"
        )


if __name__ == "__main__":
    main()
