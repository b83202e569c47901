"""Conversation turns read in context (recall/turns.py): a reply that shares no word with the
question is found beside the turn it answers, in the order of its session's timestamps, and
only where the query's filters let it in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from clawql_git import Identity, Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.recall import pipeline, turns

WRITER = Identity(agent_id="chat-import", session_id="trip-chat")
QUESTION = "What is Bob excited to see at Universal Studios?"
SAID = [
    ("Alice", "Have you ever been to Universal Studios? I'm planning a trip there next month."),
    ("Bob", "Nope, but it's my first time going too. I'm super stoked for the Harry Potter stuff!"),
    ("Alice", "My universal remote broke again, so the television is useless."),
    ("Bob", "The film studios downtown have an art show this weekend."),
    ("Alice", "I painted the kitchen blue over the weekend."),
    ("Bob", "Our dog learned to open the back door by himself."),
]


def _row(speaker: str | None, stamp: str, session: str = "s1") -> dict[str, object]:
    meta = {"session_id": session} | ({"speaker": speaker} if speaker else {})
    return {"frontmatter": json.dumps(meta), "timestamp": stamp, "agent_id": "a"}


def test_turns_follow_each_sessions_timestamps_and_skip_ties() -> None:
    rows = {
        "a.md": _row("Ann", "2023-05-08T10:00:00Z"),
        "b.md": _row("Ben", "2023-05-08T10:00:01Z"),
        "c.md": _row("Ann", "2023-05-08T10:00:02Z"),
        "other.md": _row("Ann", "2023-05-08T10:00:01Z", session="s2"),  # a session alone
        "note.md": _row(None, "2023-05-08T10:00:01Z"),  # no speaker: not a turn
        "t1.md": _row("Ann", "2023-06-01T09:00:00Z", session="s3"),
        "t2.md": _row("Ben", "2023-06-01T09:00:00Z", session="s3"),  # same second: no order
        "t3.md": _row("Ann", "2023-06-01T09:00:05Z", session="s3"),
    }
    found = turns.conversations(rows)
    assert [found.at("b.md", o) for o in (-2, -1, 1, 2)] == [None, "a.md", "c.md", None]
    assert [found.at("a.md", 2), found.at("other.md", -1), found.at("other.md", 1)] == [
        "c.md",
        None,
        None,
    ]
    assert "note.md" not in found and "t1.md" not in found and "t2.md" not in found
    assert found.at("t3.md", -1) is None and found.at("t3.md", -2) is None  # the tie's places


def _chat(root: Path) -> Vault:
    Vault.init(root, identity=WRITER).close()
    vault = Vault.open(root, embedder=HashEmbedder())
    items = [
        {
            "type": "conversation",
            "title": f"turn {n}",
            "body": body,
            "meta": {"speaker": who, "timestamp": f"2023-05-08T13:56:{n:02d}Z"},
        }
        for n, (who, body) in enumerate(SAID)
    ]
    vault.ingest_all(items, identity=WRITER, allow_new_type=True)
    return vault


def _bodies(vault: Vault, **options: object) -> list[str]:
    hits = vault.recall(QUESTION, limit=3, min_score=0.0, use_cache=False, **options).hits  # type: ignore[arg-type]
    return [h.snippet for h in hits]


def test_a_reply_is_found_beside_the_question_it_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _chat(tmp_path / "v")
    reply = SAID[1][1]
    hits = vault.recall(QUESTION, limit=3, min_score=0.0, use_cache=False).hits
    assert SAID[0][1] in hits[0].snippet
    lifted = [h for h in hits if reply in h.snippet]
    assert len(lifted) == 1 and "turns" in lifted[0].layers
    monkeypatch.setattr(pipeline, "TURN_CONTEXT", False)
    assert not any(reply in b for b in _bodies(vault))  # no shared word: below the top 3


def test_a_neighbour_the_filters_leave_out_stays_out(tmp_path: Path) -> None:
    vault = _chat(tmp_path / "v")
    until = datetime(2023, 5, 8, 13, 56, 0, tzinfo=UTC)  # the question's turn only
    assert _bodies(vault, until=until) == [SAID[0][1]]
    assert not any(SAID[1][1] in b for b in _bodies(vault, backend="fts"))  # default only


class _Cand:
    def __init__(self) -> None:
        self.scores: dict[str, float] = {}


def test_reweigh_brings_in_the_reply_to_a_top_turn_and_keeps_the_scores() -> None:
    ranked = [(f"e{n}.md", _Cand(), 1.0 - n / 10) for n in range(5)]
    chat = turns.Turns([["e0.md", "reply.md"]])
    out = turns.reweigh(ranked, chat, lambda p: True, _Cand)
    # 1/(1+0) x 0.4 = 0.4: below e1 (1/2), above e2 (1/3)
    assert [p for p, _, _ in out] == ["e0.md", "e1.md", "reply.md", "e2.md", "e3.md", "e4.md"]
    assert [s for _, _, s in out][:5] == [s for _, _, s in ranked]  # handed out best first
    assert out[-1][2] < ranked[-1][2] and out[2][1].scores == {"turns": turns.LIFTS[-1]}
    # a neighbour the filters refuse is not brought in; no turn in the list: nothing changes
    assert [p for p, _, _ in turns.reweigh(ranked, chat, lambda p: p != "reply.md", _Cand)] == [
        p for p, _, _ in ranked
    ]
    assert turns.reweigh(ranked, turns.NONE, lambda p: True, _Cand) is ranked
