"""Conversation turns are read in context. An entry with a ``speaker`` is a turn of a
conversation: its session (``session_id``, else its agent) in the order of its timestamps. A
turn often answers only beside the one before it: "Nope, but I'm stoked for the Harry Potter
stuff" says where only after "have you been to Universal Studios?". So recall's list is fused
with itself shifted along each conversation: an entry's reciprocal rank, plus ``PREVIOUS``
times its previous turn's, plus ``NEXT`` times its next turn's; the neighbours of the first
``EXPAND`` entries join the list when the query's filters let them. Turns whose timestamp
another turn of the session shares have no known order, so no neighbours.

Weights chosen on the tuning halves of ``bench/recall_heldout.py``'s conversations (tune R@5
0.604 -> 0.673 in an offline replay); nothing changes for a vault without speakers."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from clawql_git.index.resident import Resident


class Scored(Protocol):
    """A recall candidate: its per-layer scores."""

    scores: dict[str, float]


T = TypeVar("T", bound=Scored)
PREVIOUS = 0.4  # share of the previous turn's reciprocal rank an entry gets
NEXT = 0.2  # share of the next turn's
EXPAND = 20  # the neighbours of this many first entries join the list
Neighbours = dict[str, tuple[str | None, str | None]]  # path -> (previous turn, next turn)


def neighbours(loaded: Resident, ranked: list[tuple[str, Any, float]]) -> Neighbours:
    """path -> (previous, next) turn, for the resident rows (worked out once per rows, and
    only once a list's first entries hold a turn: other vaults never pay for the pass)."""
    entries = loaded.entries
    if "turns" not in loaded.memos and not any(
        '"speaker"' in (entries[p].get("frontmatter") or "") for p, _, _ in ranked[:EXPAND]
    ):
        return {}
    found: Neighbours = loaded.memo("turns", lambda: _neighbours(entries))
    return found


def _neighbours(entries: dict[str, Any]) -> Neighbours:
    sessions: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path, row in entries.items():
        raw = row.get("frontmatter") or ""
        if '"speaker"' not in raw:  # most entries: no JSON to parse
            continue
        meta = json.loads(raw)
        if not str(meta.get("speaker") or "").strip() or not row["timestamp"]:
            continue
        session = str(meta.get("session_id") or "") or f"agent:{row['agent_id']}"
        sessions[session].append((str(row["timestamp"]), path))
    out: Neighbours = {}
    for turns in sessions.values():
        turns.sort()
        stamps = [t for t, _ in turns]
        for n, (stamp, path) in enumerate(turns):
            if (n and stamps[n - 1] == stamp) or (n + 1 < len(turns) and stamps[n + 1] == stamp):
                continue  # a tie: this turn's place in the session is not known
            prev = turns[n - 1][1] if n and _ordered(stamps, n - 1) else None
            nxt = turns[n + 1][1] if n + 1 < len(turns) and _ordered(stamps, n + 1) else None
            if prev or nxt:
                out[path] = (prev, nxt)
    return out


def _ordered(stamps: list[str], n: int) -> bool:
    """Whether the turn at ``n`` has a timestamp no other turn of its session shares."""
    return (n == 0 or stamps[n - 1] != stamps[n]) and (
        n + 1 == len(stamps) or stamps[n + 1] != stamps[n]
    )


def reweigh(
    ranked: list[tuple[str, T, float]],
    turns: Neighbours,
    allowed: Callable[[str], bool],
    new: Callable[[], T],
) -> list[tuple[str, T, float]]:
    """``ranked`` (best first) fused with its turns' ranks; entries it brings in get a fresh
    candidate from ``new``. Scores stay those of the list, handed out best first (so cuts
    relative to the best score see the same gaps); the order is the fusion's."""
    if not turns or not ranked or not any(p in turns for p, _, _ in ranked[:EXPAND]):
        return ranked
    rr = {p: 1.0 / (1 + n) for n, (p, _, _) in enumerate(ranked)}
    cands = {p: c for p, c, _ in ranked}
    for path, _, _ in ranked[:EXPAND]:
        for other in turns.get(path, (None, None)):
            if other is not None and other not in cands and allowed(other):
                cands[other] = new()
    fused = {}
    for path, cand in cands.items():
        prev, nxt = turns.get(path, (None, None))
        lift = PREVIOUS * rr.get(prev or "", 0.0) + NEXT * rr.get(nxt or "", 0.0)
        fused[path] = rr.get(path, 0.0) + lift
        if lift:
            cand.scores["turns"] = lift  # the hit names the layer that lifted it
    order = sorted(cands, key=lambda p: (-fused[p], p))
    scores = sorted((s for _, _, s in ranked), reverse=True)
    scores += [scores[-1] * 0.99 ** (n + 1) for n in range(len(order) - len(scores))]
    return [(p, cands[p], s) for p, s in zip(order, scores, strict=True)]
