"""PageIndex agreement bench: how often the ingest classifier files a decision record under
its own project's folder.

The 494 decision records of nine projects (``../shared/corpora/adr/<project>/``) are ingested
in a shuffled order through ``Vault.ingest``. A fraction of them, picked at random, is filed
by hand (``page_index_path: decision/<project>``, as a person filing the first records of each
project would); the classifier places every other record, and the bench counts how often its
``page_index_path`` is ``decision/<project>``. Nothing tells the classifier the project: it
sees the record's title and body only. Chance is the largest project's share.

Run: ``.venv/bin/python bench/page_index_agreement.py [--filed 0.1,0.25,0.5] [--seed 7]
[--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus import CORPUS

from clawql_git import Identity, Vault
from clawql_git.errors import ClawqlError
from clawql_git.model.entry import split_frontmatter

_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
WHO = Identity(agent_id="bench", session_id="page-index")


@dataclass(frozen=True)
class Record:
    """One decision record and the project folder it belongs to."""

    project: str
    title: str
    body: str


def load_records(root: Path) -> list[Record]:
    """Every decision record under ``root/<project>/`` (the corpus README left out)."""
    records = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.rglob("*.md")):
            text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
            try:
                _, body = split_frontmatter(text)
            except ClawqlError:
                body = text
            match = _HEADING.search(body)
            title = match.group(1) if match else path.stem.replace("-", " ")
            records.append(Record(folder.name, " ".join(title.split())[:90], body))
    return records


def run(records: list[Record], filed: float, seed: int) -> dict[str, Any]:
    """Ingest every record (``filed`` of them by hand); agreement of the classified rest."""
    order = records[:]
    random.Random(seed).shuffle(order)
    by_hand = set(random.Random(seed + 1).sample(range(len(order)), round(filed * len(order))))
    agree = total = refused = new_leaves = 0
    confusion: Counter[tuple[str, str]] = Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Vault.init(Path(tmp) / "vault", identity=WHO, eager_index=False)
        for n, record in enumerate(order):
            want = f"decision/{record.project.lower()}"
            meta = {"page_index_path": want} if n in by_hand else {}
            try:
                result = vault.ingest(
                    type="decision", title=record.title, body=record.body, meta=meta, identity=WHO
                )
            except ClawqlError:  # a record the secret scanner or a limit refuses
                refused += 1
                continue
            if n in by_hand or result.entry is None:
                continue
            got = str(result.entry.meta.get("page_index_path"))
            total += 1
            agree += got == want
            new_leaves += got not in {f"decision/{r.project.lower()}" for r in records}
            if got != want:
                confusion[(record.project, got)] += 1
        vault.close()
    seconds = time.perf_counter() - started
    return {
        "filed_by_hand": len(by_hand),
        "classified": total,
        "agreed": agree,
        "agreement": agree / total if total else 0.0,
        "new_leaves": new_leaves,
        "refused": refused,
        "seconds": round(seconds, 1),
        "top_confusions": [
            {"project": p, "filed_under": g, "records": c} for (p, g), c in confusion.most_common(5)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filed", default="0.1,0.25,0.5", help="fractions filed by hand")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    args = parser.parse_args()
    os.environ.setdefault("CLAWQL_EMBEDDING_MODEL", "hash")  # ingest loads no model anyway
    if not CORPUS.is_dir():
        raise SystemExit(f"the ADR corpus is not at {CORPUS}")
    records = load_records(CORPUS)
    sizes = Counter(r.project for r in records)
    chance = max(sizes.values()) / len(records)
    runs = {f: run(records, float(f), args.seed) for f in args.filed.split(",")}
    if args.json:
        print(json.dumps({"records": len(records), "chance": chance, "runs": runs}, indent=2))
        return
    print(f"PageIndex agreement: {len(records)} decision records of {len(sizes)} projects")
    print(f"chance (largest project's share): {chance:.1%}\n")
    print(" filed by hand | classified | agreed | agreement | new leaves | refused | seconds")
    print("-" * 82)
    for fraction, r in runs.items():
        print(
            f" {float(fraction):>6.0%} ({r['filed_by_hand']:>3}) | {r['classified']:>10} | "
            f"{r['agreed']:>6} | {r['agreement']:>9.1%} | {r['new_leaves']:>10} | "
            f"{r['refused']:>7} | {r['seconds']:>7}"
        )
    worst = next(iter(runs.values()))["top_confusions"]
    if worst:
        print("\nmost frequent misfilings (first run):")
        for c in worst:
            print(f"  {c['records']:>3} x {c['project']} -> {c['filed_under']}")


if __name__ == "__main__":
    main()
