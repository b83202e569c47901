"""Conversation turns are read in context. An entry with a ``speaker`` is a turn of a
conversation: its session (``session_id``, else its agent) in the order of its timestamps. A
turn often answers only beside the one before it: "Nope, but I'm stoked for the Harry Potter
stuff" says where only after "have you been to Universal Studios?". So recall's list is fused
with itself shifted along each conversation: an entry's reciprocal rank, plus a share
(``LIFTS``) of the reciprocal ranks of the turn before it, the turn after it and the turn two
before it; the turns just before and after the first ``EXPAND`` entries join the list when the
query's filters let them. Turns whose timestamp another turn of the session shares have no
known order, so no neighbours.

Weights chosen on the tuning halves of ``bench/recall_heldout.py``'s conversations (tune R@5
0.604 -> 0.689 in an offline replay of the default's lists); nothing changes for a vault
without speakers."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from clawql_git.index.resident import Resident


class Scored(Protocol):
    """A recall candidate: its per-layer scores."""

    scores: dict[str, float]


T = TypeVar("T", bound=Scored)
# share of the reciprocal rank of the turn at each offset an entry gets: the turn before it,
# the one after it, and the one two before (a reply to a reply)
LIFTS = {-1: 0.4, 1: 0.2, -2: 0.3}
EXPAND = 20  # the turns just before and after this many first entries join the list
HEAD = 100  # entries re-sorted (see reweigh)
LIFTED = tuple(-o for o in LIFTS)  # an entry lifts the turns at these offsets from it


class Turns:
    """The conversations of the resident rows: each turn's session and place in it."""

    def __init__(self, sessions: list[list[str | None]]) -> None:
        self.sessions = sessions  # a None holds the place of a turn whose order is unknown
        self.place = {
            p: (n, i) for n, turns in enumerate(sessions) for i, p in enumerate(turns) if p
        }

    def __bool__(self) -> bool:
        return bool(self.place)

    def __contains__(self, path: str) -> bool:
        return path in self.place

    def at(self, path: str, offset: int) -> str | None:
        """The turn ``offset`` places after ``path`` in its session (before, if negative)."""
        found = self.place.get(path)
        if found is None:
            return None
        turns, i = self.sessions[found[0]], found[1] + offset
        return turns[i] if 0 <= i < len(turns) else None


NONE = Turns([])


def neighbours(loaded: Resident, ranked: list[tuple[str, Any, float]]) -> Turns:
    """The conversations of the resident rows (worked out once per rows, and only once a
    list's first entries hold a turn: other vaults never pay for the pass)."""
    entries = loaded.entries
    if "turns" not in loaded.memos and not any(
        '"speaker"' in (entries[p].get("frontmatter") or "") for p, _, _ in ranked[:EXPAND]
    ):
        return NONE
    found: Turns = loaded.memo("turns", lambda: conversations(entries))
    return found


def conversations(entries: dict[str, Any]) -> Turns:
    """Turns by session, in timestamp order; turns that share a timestamp keep a place each
    but no name (their order is not known)."""
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
    out: list[list[str | None]] = []
    for key in sorted(sessions):
        turns = sorted(sessions[key])
        stamps = Counter(t for t, _ in turns)
        out.append([p if stamps[t] == 1 else None for t, p in turns])
    return Turns(out)


def reweigh(
    ranked: list[tuple[str, T, float]],
    turns: Turns,
    allowed: Callable[[str], bool],
    new: Callable[[], T],
) -> list[tuple[str, T, float]]:
    """``ranked`` (best first) fused with its turns' ranks; entries it brings in get a fresh
    candidate from ``new``. Scores stay those of the list, handed out best first (so cuts
    relative to the best score see the same gaps); the order is the fusion's.

    Only the first ``HEAD`` entries, the turns they lift and the turns brought in are
    re-sorted: any other entry's fused score is below 1.9 / (HEAD + 1) (its own reciprocal
    rank and lifts from turns past ``HEAD``), under that of the first ``HEAD`` / 2, so those
    stay exact; the rest follow in their order."""
    if not turns or not ranked or not any(p in turns for p, _, _ in ranked[:EXPAND]):
        return ranked
    rr = {p: 1.0 / (1 + n) for n, (p, _, _) in enumerate(ranked)}
    cands = {p: c for p, c, _ in ranked}
    moving = {p: cands[p] for p, _, _ in ranked[:HEAD]}
    for n, (path, _, _) in enumerate(ranked[:HEAD]):
        for offset in LIFTED:
            other = turns.at(path, offset)
            if other is None or other in moving:
                continue
            if other in cands:
                moving[other] = cands[other]
            elif n < EXPAND and offset in (-1, 1) and allowed(other):
                moving[other] = cands[other] = new()
    fused = {}
    for path, cand in moving.items():
        lift = 0.0
        for offset, share in LIFTS.items():
            other = turns.at(path, offset)
            if other is not None:
                lift += share * rr.get(other, 0.0)
        fused[path] = rr.get(path, 0.0) + lift
        if lift:
            cand.scores["turns"] = lift  # the hit names the layer that lifted it
    order = sorted(moving, key=lambda p: (-fused[p], p))
    order += [p for p, _, _ in ranked if p not in moving]
    scores = sorted((s for _, _, s in ranked), reverse=True)
    scores += [scores[-1] * 0.99 ** (n + 1) for n in range(len(order) - len(scores))]
    return [(p, cands[p], s) for p, s in zip(order, scores, strict=True)]
