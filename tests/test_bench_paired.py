"""bench/recall_heldout.py's paired comparison: the default against each other method, question
by question, with a seeded 95% paired-bootstrap interval and the questions won and lost."""

from __future__ import annotations

import json
import subprocess
import sys
from types import ModuleType
from typing import Any

from tests.conftest import ROOT, bench_module

SCRIPT = ROOT / "bench" / "recall_heldout.py"


def _bench() -> ModuleType:
    return bench_module("recall_heldout")


def _row(qid: int, default: float, bm25: float, split: str = "heldout") -> dict[str, Any]:
    cell = {"R@5": 0.0, "hit@20": 0.0, "MRR@10": 0.0}
    return {
        "family": "decisions",
        "split": split,
        "kind": "paraphrase",
        "id": str(qid),
        "scores": {"default": cell | {"R@5": default}, "bm25": cell | {"R@5": bm25}},
    }


def test_a_clear_lead_has_an_interval_above_zero_and_counts_wins() -> None:
    rows = [_row(i, 1.0, 0.0 if i % 2 else 1.0) for i in range(40)]
    cell = _bench().paired(rows, ["bm25", "default"])["decisions/heldout"]["bm25"]["R@5"]
    assert cell["diff"] == 0.5
    assert 0.25 < cell["lo"] < 0.5 < cell["hi"] < 0.75
    assert (cell["wins"], cell["losses"]) == (20, 0)


def test_a_tie_of_few_questions_spans_zero_and_repeats() -> None:
    rows = [_row(i, 1.0, 0.0) for i in range(3)] + [_row(i, 0.0, 1.0) for i in range(3, 6)]
    rows += [_row(i, 1.0, 1.0) for i in range(6, 60)]
    bench = _bench()
    first = bench.paired(rows, ["bm25", "default"])["decisions/heldout"]["bm25"]["R@5"]
    again = bench.paired(rows, ["bm25", "default"])["decisions/heldout"]["bm25"]["R@5"]
    assert first == again  # seeded: the same questions give the same interval
    assert first["diff"] == 0.0 and first["lo"] < 0 < first["hi"]
    assert (first["wins"], first["losses"]) == (3, 3)


def test_from_json_renders_an_earlier_report(tmp_path: Any) -> None:
    rows = [_row(i, 1.0, 0.0, split) for i in range(10) for split in ("tune", "heldout")]
    bench = _bench()
    report = {
        "methods": ["bm25", "default"],
        "notes": [],
        "latency_ms_p50": {},
        "summary": bench.summarise(rows, ["bm25", "default"]),
        "questions": rows,
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--from-json", str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout
    assert "decisions/heldout/all" in out
    assert "decisions/heldout       bm25      R@5       +1.000  [+1.000, +1.000]  won 10" in out
