"""The learned ranker and query kinds: dates, relative times and people parsed from the query,
and an entry's speaker and timestamp weighed by them in the default recall."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from clawql_git import Identity, Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.recall import pipeline, ranker
from clawql_git.recall.query_kind import parse_query

NOW = datetime(2026, 7, 15, 12, tzinfo=UTC)
WRITER = Identity(agent_id="note-taker", session_id="ranker-test")


def test_query_kind_parses_dates_people_and_when() -> None:
    people = ["caroline", "melanie", "build-bot"]
    q = parse_query("When did Caroline go to the support group?", people, NOW)
    assert (q.kind, q.people, q.asks_when, q.since) == ("temporal", {"caroline"}, True, None)
    q = parse_query("what did melanie say about pottery", people, NOW)
    assert (q.kind, q.people) == ("person", {"melanie"})
    q = parse_query("pottery class in May 2023", people, NOW)
    assert (q.since, q.until) == (
        datetime(2023, 5, 1, tzinfo=UTC),
        datetime(2023, 5, 31, 23, 59, 59, tzinfo=UTC),
    )
    q = parse_query("what happened on 8 May, 2023", (), NOW)
    assert q.since == datetime(2023, 5, 8, tzinfo=UTC) and q.kind == "temporal"
    q = parse_query("decisions from last week", (), NOW)  # NOW is a Wednesday
    assert (q.since, q.until) == (
        datetime(2026, 7, 6, tzinfo=UTC),
        datetime(2026, 7, 13, tzinfo=UTC),
    )
    assert parse_query("when should we rotate keys", people, NOW).kind == "plain"
    q = parse_query("why JWT over sessions", people, NOW)
    assert (q.kind, q.people, q.since) == ("plain", frozenset(), None)
    # A name no entry carries is no person; a name inside another word is none either.
    assert parse_query("What did Bob say", people, NOW).people == frozenset()
    assert parse_query("carolines", people, NOW).people == frozenset()


def test_shipped_weights_match_the_features() -> None:
    table = ranker.weights()
    assert set(table) == {"plain", "person", "temporal"}
    assert all(len(w) == len(ranker.FEATURES) for w in table.values())
    person = ranker.FEATURES.index("person")
    window = ranker.FEATURES.index("in_window")
    assert table["temporal"][person] > 0 and table["temporal"][window] > 0


def _turns(root: Path) -> Vault:
    """Two speakers saying nearly the same things on two dates."""
    Vault.init(root, identity=WRITER).close()
    vault = Vault.open(root, embedder=HashEmbedder())
    said = [
        ("Bob", "2023-05-10T10:00:00Z", "The pottery class was fun, I made a pottery bowl."),
        ("Alice", "2023-06-20T10:00:00Z", "The pottery class was fun, I made a bowl."),
        ("Bob", "2023-06-21T10:00:00Z", "We hiked the ridge trail to the lake."),
        ("Alice", "2023-05-11T10:00:00Z", "We hiked the ridge trail to the lake, a long hike."),
    ]
    items = [
        {
            "type": "conversation",
            "title": f"turn {n}",
            "body": body,
            "meta": {"speaker": who, "timestamp": when},
        }
        for n, (who, when, body) in enumerate(said)
    ]
    vault.ingest_all(items, identity=WRITER, allow_new_type=True)
    return vault


def _speakers(vault: Vault, text: str) -> list[str]:
    hits = vault.recall(text, limit=4, min_score=0.0, use_cache=False).hits
    return [f"{h.frontmatter['speaker']} {h.frontmatter['timestamp'][:7]}" for h in hits]


def test_ranker_prefers_the_named_speaker_and_the_named_month(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _turns(tmp_path / "v")
    assert _speakers(vault, "when did Alice talk about the pottery class")[0] == "Alice 2023-06"
    assert _speakers(vault, "the hike to the lake on the ridge trail in June 2023")[0] == (
        "Bob 2023-06"
    )
    # Without the ranker the fusion follows the words alone: the other speaker wins.
    monkeypatch.setattr(pipeline, "LEARNED_RANKER", False)
    assert _speakers(vault, "when did Alice talk about the pottery class")[0] == "Bob 2023-05"
    vault.close()


def test_ranker_keeps_every_candidate_and_scores_decreasing(tmp_path: Path) -> None:
    vault = _turns(tmp_path / "v")
    ask = "when did Alice talk about the pottery class"
    hits = vault.recall(ask, limit=10, min_score=0.0, use_cache=False).hits
    scores = [h.score for h in hits]
    assert len(hits) == 4 and scores == sorted(scores, reverse=True)
    vault.close()
