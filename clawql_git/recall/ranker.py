"""The learned ranker: a linear model over signals recall already has (full-text score, the
real cosine of an entry's best chunk and of the whole entry, title match, links, the query's
people and dates against the entry's speaker/agent and timestamp, status), one weight set per
query kind, shipped as package data (``ranker_weights.json``) and trained offline by
``bench/train_ranker.py`` on pseudo-queries drawn from document structure."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from clawql_git.model.entry import parse_timestamp
from clawql_git.recall.query_kind import KINDS, QueryKind, parse_query

if TYPE_CHECKING:
    import numpy as np

FEATURES = (
    "fused",  # the layer fusion's score, relative to the best candidate's
    "fts",  # the full-text layer's score, relative to its best (0 outside its pool)
    "fts_rank",  # 1 / (1 + rank) in the full-text layer (0 outside its pool)
    "chunk_cos",  # cosine of the entry's best chunk, minus the best candidate's
    "entry_cos",  # cosine of the whole-entry vector, minus the best candidate's
    "title",  # share of the query's content words in the title
    "links",  # link-neighbourhood score
    "person",  # the entry's speaker or agent is named in the query
    "in_window",  # the entry's timestamp is inside the query's dates
    "stale",  # superseded or archived
)
DEPTH = 50  # candidates the ranker scores (the rest keep the fusion's order below them)
WEIGHTS_FILE = "ranker_weights.json"
_WORD = re.compile(r"[a-z0-9]+")
_STOP_WORDS = (
    "a an the of to in on for and or is are was were be been do does did what which who whom "
    "whose when where why how with by from at as it its this that these those we our i you he "
    "she they them his her their my me us about into than then so not no has have had can "
    "could would should will shall may might"
)
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class RankContext:
    """What the ranker needs beyond the candidates: the query text and vector, the resident
    index rows, and the time relative dates count back from."""

    text: str
    qvec: Any
    loaded: Any
    now: datetime | None = None


@cache
def weights() -> dict[str, tuple[float, ...]]:
    """kind -> one weight per feature, read once from the package data file."""
    raw = json.loads(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text("utf-8"))
    if tuple(raw["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS_FILE} was trained on other features: {raw['features']}")
    return {kind: tuple(float(w) for w in raw["weights"][kind]) for kind in KINDS}


def rerank(
    ranked: Sequence[tuple[str, float]], cands: dict[str, Any], ctx: RankContext
) -> list[tuple[str, float]]:
    """The fusion's top ``DEPTH`` candidates re-ordered by the model for the query's kind,
    the rest after them in the fusion's order; scores stay positive and decreasing."""
    head, tail = list(ranked[:DEPTH]), list(ranked[DEPTH:])
    if not head:
        return []
    rows, metas, kind = _kind_of(head, ctx)
    if kind.kind == "plain":  # plain queries keep the fusion's order and scores
        return list(ranked)
    import numpy as np

    matrix = _matrix(head, cands, ctx, (rows, metas, kind))
    raw = matrix @ np.asarray(weights()[kind.kind], dtype=np.float32)
    order = sorted(range(len(head)), key=lambda i: (-float(raw[i]), head[i][0]))
    # The model decides the order; the scores stay the fusion's, handed out best first, so
    # the weights applied after (standing, freshness) and relative cuts see real gaps.
    scores = sorted((s for _, s in head), reverse=True)
    return [(head[i][0], score) for i, score in zip(order, scores, strict=True)] + tail


def features(
    head: Sequence[tuple[str, float]], cands: dict[str, Any], ctx: RankContext
) -> tuple[np.ndarray, QueryKind]:
    """One row of ``FEATURES`` per candidate, and the query's kind."""
    known = _kind_of(head, ctx)
    return _matrix(head, cands, ctx, known), known[2]


def _kind_of(
    head: Sequence[tuple[str, float]], ctx: RankContext
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], QueryKind]:
    """The candidates' rows and frontmatter, and the query's kind (its people are those the
    candidates name as speaker or agent): all a plain query needs before it is let through."""
    rows = [ctx.loaded.entries[p] for p, _ in head]
    metas = [json.loads(r["frontmatter"] or "{}") for r in rows]
    names = {n for m, r in zip(metas, rows, strict=True) for n in _people(m, r)}
    return rows, metas, parse_query(ctx.text, names, ctx.now)


def _matrix(
    head: Sequence[tuple[str, float]],
    cands: dict[str, Any],
    ctx: RankContext,
    known: tuple[list[dict[str, Any]], list[dict[str, Any]], QueryKind],
) -> np.ndarray:
    import numpy as np

    rows, metas, kind = known
    out = np.zeros((len(head), len(FEATURES)), dtype=np.float32)
    best = head[0][1] or 1.0
    out[:, 0] = [s / best for _, s in head]
    out[:, 1], out[:, 2] = _fts(head, cands)
    out[:, 3], out[:, 4] = _cosines(head, cands)
    terms = _content(ctx.text)
    for i, (row, meta) in enumerate(zip(rows, metas, strict=True)):
        out[i, 5] = _share(terms, row["title"])
        out[i, 6] = cands[row["path"]].scores.get("links", 0.0)
        out[i, 7] = float(bool(kind.people & _people(meta, row)))
        out[i, 8] = float(_inside(row["timestamp"], kind))
        out[i, 9] = float(row["status"] in ("superseded", "archived"))
    return out


def _fts(
    head: Sequence[tuple[str, float]], cands: dict[str, Any]
) -> tuple[list[float], list[float]]:
    scores = [cands[p].scores.get("fts", 0.0) for p, _ in head]
    best = max(scores) or 1.0
    order = {i: n for n, i in enumerate(sorted(range(len(scores)), key=lambda i: -scores[i]))}
    ranks = [1 / (1 + order[i]) if scores[i] > 0 else 0.0 for i in range(len(scores))]
    return [s / best for s in scores], ranks


def _cosines(head: Sequence[tuple[str, float]], cands: dict[str, Any]) -> tuple[Any, Any]:
    """The real cosine of each entry's best chunk and of its whole-entry vector (every
    candidate's, as the pipeline looked them up, not only those inside a layer's pool), each
    minus the best of them."""
    import numpy as np

    pairs = np.array([cands[p].cosines or (0.0, 0.0) for p, _ in head], dtype=np.float32).reshape(
        -1, 2
    )
    chunk, entry = pairs[:, 0], pairs[:, 1]
    return chunk - chunk.max(), entry - entry.max()


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _share(terms: set[str], title: str) -> float:
    if not terms:
        return 0.0
    return len(terms & set(_WORD.findall(title.lower()))) / len(terms)


def _people(meta: dict[str, Any], row: dict[str, Any]) -> set[str]:
    """The lower-case speaker and agent names of an entry."""
    names = {str(meta.get(k) or "").strip().lower() for k in ("speaker", "author")}
    names.add(str(row.get("agent_id") or "").strip().lower())
    return {n for n in names if n}


def _inside(stamp: str, kind: QueryKind) -> bool:
    if kind.since is None or not stamp:
        return False
    when = parse_timestamp(stamp)
    return kind.since <= when and (kind.until is None or when <= kind.until)
