"""The secret scanner, old (commit 0754a8a) against this checkout's, side by side in one run:
recall on the labelled forms of tests/fixtures/secrets/, false positives on its negatives,
the sample vault and the ADR corpus (when ../shared has it), and throughput on that corpus.

Run: ``PYTHONPATH=. .venv/bin/python bench/secret_scan.py [--rounds 5]``
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clawql_git.model import secrets as new_secrets  # noqa: E402
from tests.fixtures.secrets.forms import negatives, positives  # noqa: E402

OLD_COMMIT = "0754a8a"
ADR = ROOT.parent / "shared" / "corpora" / "adr"


def old_module() -> Any:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:clawql_git/model/secrets.py"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "old_secrets.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_secrets", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_secrets"] = module
    spec.loader.exec_module(module)
    return module


def notes() -> dict[str, list[str]]:
    sets = {"negatives": list(negatives().values())}
    sets["sample-vault"] = [
        p.read_text("utf-8") for p in sorted((ROOT / "sample-vault").rglob("*.md"))
    ]
    if ADR.is_dir():
        sets["adr-corpus"] = [p.read_text("utf-8") for p in sorted(ADR.rglob("*.md"))]
    return sets


def throughput(scan: Callable[[str], object], texts: list[str], rounds: int) -> float:
    size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    best = min(_cpu_time(scan, texts) for _ in range(rounds))
    return size / best


def _cpu_time(scan: Callable[[str], object], texts: list[str]) -> float:
    start = time.process_time()
    for text in texts:
        scan(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    forms, sets = positives(), notes()
    rows = []
    for name, module in (("old " + OLD_COMMIT, old_module()), ("new", new_secrets)):
        scan = module.scan
        by_kind = sum(any(form.kind == x.kind for x in scan(form.text)) for form in forms)
        any_finding = sum(bool(scan(form.text)) for form in forms)
        row = [name, f"{by_kind}/{len(forms)}", f"{any_finding}/{len(forms)}"]
        for texts in sets.values():
            row.append(f"{sum(bool(scan(t)) for t in texts)}/{len(texts)}")
        corpus = sets.get("adr-corpus", sets["sample-vault"])
        row.append(f"{throughput(scan, corpus, args.rounds):.1f}")
        rows.append(row)
    header = ["scanner", "recall (kind)", "recall (any)", *(f"FP {k}" for k in sets), "MB/s"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    old_speed, new_speed = float(rows[0][-1]), float(rows[1][-1])
    print(f"throughput: new is {old_speed / new_speed:.2f}x slower than old")


if __name__ == "__main__":
    main()
