"""An entry's standing in recall: archived entries, rejected or deprecated decisions and low
``confidence_score`` rank below an equally matching current, confident entry. (Superseded
entries already give way to their replacements in the pipeline's rerank.)"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from clawql_git.index.resident import Resident

T = TypeVar("T")

ARCHIVED = 0.6  # under archive/ or status: archived
WITHDRAWN = 0.75  # verdict: rejected, deprecated, withdrawn, abandoned
WITHDRAWN_VERDICTS = frozenset({"rejected", "deprecated", "withdrawn", "abandoned"})
CONFIDENCE_FLOOR = 0.7  # a confidence_score of 0 keeps this share of the score; 1 keeps all


def standing(row: dict[str, Any]) -> float:
    """The factor (0..1] an index row's score is multiplied by."""
    factor = 1.0
    if row["status"] == "archived" or str(row["path"]).startswith("archive/"):
        factor *= ARCHIVED
    raw = row.get("frontmatter") or ""
    if "verdict" not in raw and "confidence_score" not in raw:
        return factor  # most entries: no JSON to parse
    meta = json.loads(raw)
    if str(meta.get("verdict", "")).lower() in WITHDRAWN_VERDICTS:
        factor *= WITHDRAWN
    score = meta.get("confidence_score")
    if isinstance(score, int | float) and not isinstance(score, bool) and 0 <= score <= 1:
        factor *= CONFIDENCE_FLOOR + (1 - CONFIDENCE_FLOOR) * float(score)
    return factor


def factors(loaded: Resident) -> dict[str, float]:
    """path -> standing factor, for the entries whose factor is not 1 (built once per rows)."""
    found = {path: standing(row) for path, row in loaded.entries.items()}
    return {path: f for path, f in found.items() if f != 1.0}


def weigh_standing(
    ranked: list[tuple[str, T, float]], loaded: Resident
) -> list[tuple[str, T, float]]:
    """``ranked`` (path, candidate, score) with each score times its entry's standing, re-sorted
    (ties by path, as the pipeline sorts)."""
    table: dict[str, float] = loaded.memo("standing", lambda: factors(loaded))
    if not table:
        return ranked
    out = [(path, cand, score * table.get(path, 1.0)) for path, cand, score in ranked]
    out.sort(key=lambda r: (-r[2], r[0]))
    return out
