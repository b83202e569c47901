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


def weigh_standing(
    ranked: list[tuple[str, T, float]], loaded: Resident
) -> list[tuple[str, T, float]]:
    """``ranked`` (path, candidate, score) with each score times its entry's standing, re-sorted
    (ties by path, as the pipeline sorts). Factors are worked out for the candidates only and
    kept with the resident rows, so a write (new rows) costs no pass over every entry."""
    known: dict[str, float] = loaded.memo("standing", dict)
    entries = loaded.entries
    out = []
    changed = False
    for path, cand, score in ranked:
        factor = known.get(path)
        if factor is None:
            row = entries.get(path)
            factor = known[path] = standing(row) if row is not None else 1.0
        changed = changed or factor != 1.0
        out.append((path, cand, score * factor))
    if changed:
        out.sort(key=lambda r: (-r[2], r[0]))
    return out
