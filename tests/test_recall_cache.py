"""The recall answer cache (issue 15, item 4): a hit is exactly what a fresh recall answers (the
same text, options and commit), a different question is never served another's answer however
close its embedding, and the cache is bounded with least-recently-used eviction."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clawql_git import Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.recall.pipeline import RecallResult

from .conftest import AGENT
from .embedders import CountingEmbedder

# Two questions one word apart: their hashed embeddings are far above the 0.92 similarity at
# which the old cache answered one with the other's answer, and the word changes the ranking.
NEAR = (
    "webhook deliveries lost after the redis failover during the outbox dispatcher rollout "
    "in production last quarter for the payments api"
)
NEARER = f"{NEAR} jpy rounding"


def hash_vault(root: Path) -> Vault:
    return Vault.open(root, embedder=HashEmbedder())


def answer(result: RecallResult) -> dict[str, Any]:
    """What a recall answers, without how it got there (cache, audit, index note)."""
    record = result.to_record()
    for key in ("cache_hit", "index", "warnings"):
        record.pop(key)
    return record


def cache_rows(root: Path) -> int:
    db = sqlite3.connect(root / ".git" / "clawql" / "recall-cache.sqlite")
    try:
        return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
    finally:
        db.close()


def test_questions_closer_than_the_old_threshold_get_their_own_answers(demo: Path) -> None:
    embedder = HashEmbedder()
    cosine = float(embedder.embed_query(NEAR) @ embedder.embed_query(NEARER))
    assert cosine > 0.92
    vault = hash_vault(demo)
    first = vault.recall(NEAR, limit=5)
    second = vault.recall(NEARER, limit=5)
    assert not first.cache_hit and not second.cache_hit
    fresh = vault.recall(NEARER, limit=5, use_cache=False)
    assert answer(second) == answer(fresh)
    # the old cache served ``first`` for NEARER: its own answer differs (scores, if not order)
    ours = [(h.path, h.score) for h in second.hits]
    assert ours != [(h.path, h.score) for h in first.hits]


def test_a_cache_hit_is_what_a_fresh_recall_answers(demo: Path) -> None:
    vault = hash_vault(demo)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("idempotency keys for payment retries", {}),
        ("idempotency keys for payment retries", {"limit": 2}),
        ("idempotency keys for payment retries", {"types": ("decision",)}),
        ("idempotency keys for payment retries", {"backend": "fts"}),
        ("webhook deliveries", {"max_tokens": 120}),
        ("money stored as integer minor units", {"min_score": 0.0, "limit": 20}),
    ]
    for text, options in asks:
        assert not vault.recall(text, **options).cache_hit, (text, options)
    for text, options in asks:
        cached = vault.recall(f"  {text.replace(' ', '   ')} ", **options)
        fresh = vault.recall(text, use_cache=False, **options)
        assert cached.cache_hit, (text, options)
        assert answer(cached) | {"query": text} == answer(fresh), (text, options)
        assert [h.score for h in cached.hits] == [h.score for h in fresh.hits]


def test_a_new_commit_is_not_answered_from_the_old_ones_cache(demo: Path) -> None:
    vault = hash_vault(demo)
    text = "reconciliation workflows on temporal"
    vault.recall(text, limit=5)
    assert vault.recall(text, limit=5).cache_hit
    vault.ingest(
        type="decision",
        title="Temporal reconciliation workflows replace the cron job",
        body="Reconciliation workflows now run on temporal.",
        identity=AGENT,
    )
    after = vault.recall(text, limit=5)
    assert not after.cache_hit
    assert answer(after) == answer(vault.recall(text, limit=5, use_cache=False))
    assert any("temporal-reconciliation" in h.path for h in after.hits)


def test_an_answer_cached_by_other_ranking_code_is_not_a_hit(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an upgrade the same commit and question are ranked by other code: the answer the
    older code cached is not what a fresh recall returns, so it is not served."""
    from clawql_git.recall import cache

    vault = hash_vault(demo)
    text = "why did we stop queueing webhooks in redis?"
    digest = cache.ranking_digest()
    monkeypatch.setattr(cache, "ranking_digest", lambda: "the-older-release")
    assert not vault.recall(text, limit=5).cache_hit  # cached by the "older" code
    assert vault.recall(text, limit=5).cache_hit
    monkeypatch.setattr(cache, "ranking_digest", lambda: digest)  # upgraded
    again = vault.recall(text, limit=5)
    assert not again.cache_hit
    assert answer(again) == answer(vault.recall(text, limit=5, use_cache=False))


def test_the_cache_keeps_at_most_its_capacity_and_evicts_the_least_recently_used(
    demo: Path,
) -> None:
    vault = hash_vault(demo)
    vault.recall_service().cache_capacity = 3
    questions = [f"payments question number {n}" for n in range(6)]
    for text in questions[:3]:
        vault.recall(text, limit=3)
    assert vault.recall(questions[0], limit=3).cache_hit  # now the most recently used
    for text in questions[3:5]:
        vault.recall(text, limit=3)
    assert cache_rows(demo) == 3
    assert vault.recall(questions[0], limit=3).cache_hit  # used last, so kept
    assert vault.recall(questions[4], limit=3).cache_hit
    assert not vault.recall(questions[1], limit=3).cache_hit  # least recently used: evicted
    for text in questions:
        vault.recall(text, limit=3)
    assert cache_rows(demo) == 3


def test_a_cache_file_of_the_old_layout_is_started_again(demo: Path) -> None:
    path = demo / ".git" / "clawql" / "recall-cache.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE answers (commit_sha TEXT, params TEXT, query TEXT, vec BLOB, "
        "result TEXT, created REAL)"
    )
    db.execute("INSERT INTO answers VALUES ('x', 'p', 'webhook', NULL, '{}', 0)")
    db.commit()
    db.close()
    vault = hash_vault(demo)
    first = vault.recall("webhook", limit=3)
    assert first.hits and not first.cache_hit and not first.warnings
    assert vault.recall("webhook", limit=3).cache_hit
    assert cache_rows(demo) == 1


def test_a_question_asked_again_with_other_options_is_embedded_once(demo: Path) -> None:
    embedder = CountingEmbedder(HashEmbedder())
    vault = Vault.open(demo, embedder=embedder)
    vault.update_index()
    before = embedder.seen[:]
    first = vault.recall("idempotency keys for payment retries", limit=5)
    again = vault.recall("idempotency keys for payment retries", limit=2, types=("decision",))
    assert not again.cache_hit
    assert embedder.seen[len(before) :] == ["idempotency keys for payment retries"]
    fresh = Vault.open(demo, embedder=HashEmbedder()).recall(
        "idempotency keys for payment retries", limit=2, types=("decision",), use_cache=False
    )
    assert answer(again) == answer(fresh) and first.hits


def test_answers_served_from_the_cache_do_not_shrink_it(demo: Path) -> None:
    vault = hash_vault(demo)
    vault.recall_service().cache_capacity = 4
    questions = [f"webhook question number {n}" for n in range(4)]
    for text in questions:
        vault.recall(text, limit=3)
    for _ in range(3):  # many hits, each moving its answer to the newest place
        for text in questions[:3]:
            assert vault.recall(text, limit=3).cache_hit
    vault.recall("one more question about webhooks", limit=3)
    assert cache_rows(demo) == 4  # the capacity, not fewer: only the LRU answer went
    assert not vault.recall(questions[3], limit=3).cache_hit
    # asking it again evicted the next least recently used (questions[0]), no more
    assert all(vault.recall(text, limit=3).cache_hit for text in questions[1:3])


def _edit_cache(root: Path, *statements: str) -> None:
    db = sqlite3.connect(root / ".git" / "clawql" / "recall-cache.sqlite")
    try:
        for statement in statements:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


def test_a_size_row_edited_by_hand_does_not_unbound_the_cache(demo: Path) -> None:
    vault = hash_vault(demo)
    vault.recall_service().cache_capacity = 3
    for n in range(3):
        vault.recall(f"webhook question number {n}", limit=3)
    vault.close()
    _edit_cache(demo, "UPDATE size SET n = -1000")  # would stop every eviction if trusted
    vault = hash_vault(demo)
    vault.recall_service().cache_capacity = 3
    for n in range(3, 8):
        vault.recall(f"webhook question number {n}", limit=3)
    assert cache_rows(demo) == 3
    assert vault.recall("webhook question number 7", limit=3).cache_hit


def test_a_cache_file_missing_its_size_row_is_started_again(demo: Path) -> None:
    vault = hash_vault(demo)
    vault.recall("webhook retries", limit=3)
    vault.close()
    _edit_cache(demo, "DROP TABLE size")
    vault = hash_vault(demo)
    first = vault.recall("webhook retries", limit=3)
    assert first.hits and not first.cache_hit and not first.warnings
    assert vault.recall("webhook retries", limit=3).cache_hit
    assert cache_rows(demo) == 1
