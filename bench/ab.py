"""Two checkouts measured side by side (`recall_ab.py`, `cold_cli.py`): rounds that flip the
arms' order each time (a burst of machine noise hits both), medians and ratios."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

Measure = Callable[[str, int], dict[str, Any]]  # (arm name, round) -> one round's figures


def arms_of(baseline: str) -> dict[str, Path]:
    """The two arms: the baseline checkout and this one."""
    return {"baseline": Path(baseline).resolve(), "this": ROOT}


def alternate(
    arms: dict[str, Path], rounds: int, measure: Measure, progress: Callable[[str], None]
) -> dict[str, Any]:
    """``rounds`` rounds of ``measure`` per arm, the order flipped every round, with the
    1-minute load average after each measurement."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in arms}
    load = [os.getloadavg()[0]]
    for r in range(rounds):
        order = list(arms) if r % 2 == 0 else list(reversed(arms))
        for name in order:
            out[name].append(measure(name, r))
            load.append(os.getloadavg()[0])
            progress(f"round {r + 1}/{rounds} {name}: {out[name][-1]}")
    return {"rounds": out, "load_1min": load, "arms": {k: str(v) for k, v in arms.items()}}


def medians(report: dict[str, Any], keys: Iterable[str]) -> dict[str, dict[str, float]]:
    """Per arm, the median over rounds of each of ``keys``."""
    keys = list(keys)
    return {
        name: {k: statistics.median(r[k] for r in rows) for k in keys}
        for name, rows in report["rounds"].items()
    }


def ratio_table(
    report: dict[str, Any], labels: dict[str, str], head: str, width: int, digits: int
) -> list[str]:
    """The baseline / this / ratio lines of ``labels`` (key -> label), medians of rounds."""
    med = medians(report, labels)
    lines = [
        f"baseline: {report['arms']['baseline']}",
        "",
        f"{head:<{width}}{'baseline':>10}{'this':>10}{'ratio':>8}",
    ]
    for key, label in labels.items():
        a, b = med["baseline"][key], med["this"][key]
        lines.append(f"{label:<{width}}{a:>10.{digits}f}{b:>10.{digits}f}{b / a if a else 0:>8.2f}")
    return lines


def load_range(report: dict[str, Any]) -> str:
    """The 1-minute load average over the run, as "min-max"."""
    load = report["load_1min"]
    return f"{min(load):.1f}-{max(load):.1f}"


def percentile(values: Iterable[float], q: int) -> float:
    """The ``q``-th percentile (inclusive method: linear between the two nearest values)."""
    return statistics.quantiles(list(values), n=100, method="inclusive")[q - 1]
