"""Keeping memory true (issue 17 items 1-3): duplicates at the door, contradictions surfaced
and resolved by `memory supersede`, staleness listed by `memory stale` and weighed by recall."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Vault
from clawql_git.cli import cli
from clawql_git.config import Settings
from clawql_git.errors import InvalidInput, VaultStateError
from clawql_git.index.embedders import MiniLMEmbedder, locate_minilm
from clawql_git.model import claims
from clawql_git.model.staleness import EXPIRED, REVIEW_DUE, Policy, state

from .conftest import AGENT, git

IDEMPOTENCY = (
    "Clients send an Idempotency-Key header with POST /payments. The API stores the key, a hash "
    "of the request and the response in Postgres for 24 hours, and a retry with the same key "
    "gets the stored response instead of creating a second charge."
)
RESTATED = (
    "Each POST /payments request carries an Idempotency-Key header; we keep the key, a request "
    "hash and the first response in Postgres for a day, so a retried request gets that response "
    "and never a second charge."
)
OUTBOX = (
    "We will use a Postgres outbox table for outgoing webhook deliveries: the payment write and "
    "the outbox row commit together, and a dedicated worker delivers them with retries."
)
RABBIT = (
    "We will use RabbitMQ for outgoing webhook deliveries: payment writes publish a message and "
    "a dedicated consumer delivers it to the merchant with retries."
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(locate_minilm())


@pytest.fixture
def payments(tmp_path: Path, minilm: MiniLMEmbedder) -> Iterator[Vault]:
    """A small vault with an index (the packaged model), as after its first recall."""
    v = Vault.init(tmp_path / "vault", identity=AGENT, embedder=minilm)
    v.ingest(type="decision", title="Idempotency keys for POST /payments", body=IDEMPOTENCY)
    v.ingest(type="decision", title="Deliver webhooks through a Postgres outbox", body=OUTBOX)
    v.ingest(type="pattern", title="Rounding payouts", body="Round half to even, in minor units.")
    v.rebuild_index()
    yield v
    v.close()


# ---------------------------------------------------------------- the judge (pure text)


def test_a_restatement_is_a_duplicate_and_another_choice_is_not() -> None:
    same = claims.judge(RESTATED, IDEMPOTENCY, cosine=0.8)
    assert same.duplicate and not same.contradiction
    other = claims.judge(RABBIT, OUTBOX, cosine=0.8)
    assert not other.duplicate
    assert "rabbitmq" in other.contradiction and "postgres" in other.contradiction


def test_a_negation_of_the_older_choice_is_a_contradiction() -> None:
    old = "Use Redis Streams to queue webhook deliveries."
    new = "Webhook deliveries: we no longer use Redis Streams; deliveries stay in Postgres."
    assert "redis" in claims.judge(new, old, cosine=0.7).contradiction


def test_unrelated_entries_are_neither() -> None:
    verdict = claims.judge("Round payouts half to even.", IDEMPOTENCY, cosine=0.1)
    assert verdict == claims.Verdict(verdict.score, False, "")


def test_the_setting_default_is_the_detectors_threshold() -> None:
    assert Settings().duplicate_threshold == claims.DUPLICATE_THRESHOLD


# ---------------------------------------------------------------- duplicates at the door


def test_ingest_names_the_entry_it_repeats(payments: Vault) -> None:
    result = payments.ingest(type="decision", title="Retry-safe payment creation", body=RESTATED)
    assert len(result.duplicates) == 1
    assert result.duplicates[0].path.endswith("/idempotency-keys-for-post-payments.md")
    record = result.to_record()
    assert record["duplicates"][0]["score"] >= claims.DUPLICATE_THRESHOLD
    assert "nearly repeats" in result.warning
    assert not result.contradictions


def test_ingest_append_adds_to_the_repeated_entry(payments: Vault) -> None:
    before = len(payments.entries())
    result = payments.ingest(
        type="decision", title="Retry-safe payment creation", body=RESTATED, append=True
    )
    assert result.event == "MEMORY_UPDATE"
    assert result.path.endswith("/idempotency-keys-for-post-payments.md")
    body = payments.get(result.path).entry.body
    assert IDEMPOTENCY in body and RESTATED in body
    assert len(payments.entries()) == before  # no new entry


def test_ingest_supersede_marks_the_contradicted_entry_in_one_commit(payments: Vault) -> None:
    before = payments.store.head_commit()
    result = payments.ingest(
        type="decision", title="Deliver webhooks through RabbitMQ", body=RABBIT, supersede=True
    )
    old = next(p for p in result.paths if "outbox" in p)
    entry = payments.get(old).entry
    assert entry.status == "superseded"
    assert entry.meta["superseded_by"] == result.path.removesuffix(".md")
    head = payments.store.head_commit()
    assert head is not None and before is not None
    assert [str(p) for p in head.parent_ids] == [str(before.id)]  # one commit for both


def test_a_contradiction_is_reported_and_supersede_resolves_it(payments: Vault) -> None:
    result = payments.ingest(
        type="decision", title="Deliver webhooks through RabbitMQ", body=RABBIT
    )
    assert len(result.contradictions) == 1
    old = result.contradictions[0].path
    assert "outbox" in old and "contradicts" in result.warning
    assert not result.duplicates  # same topic, different decision: never a duplicate
    runner = CliRunner()
    done = runner.invoke(
        cli, ["memory", "--vault", str(payments.root), "supersede", old, result.path]
    )
    assert done.exit_code == 0, done.output
    hits = payments.recall("webhook deliveries outbox rabbitmq", limit=5).hits
    by_path = {h.path: h for h in hits}
    assert by_path[old].labels == ("superseded",)
    assert by_path[result.path].labels == ()
    assert [h.path for h in hits].index(result.path) < [h.path for h in hits].index(old)


def test_supersede_with_nothing_found_writes_nothing(payments: Vault) -> None:
    head = payments.store.head_commit()
    with pytest.raises(VaultStateError, match="nothing to supersede"):
        payments.ingest(type="context", title="Office plants", body="Water them.", supersede=True)
    assert payments.store.head_commit() == head


def test_without_an_index_the_check_says_so_and_costs_nothing(vault: Vault) -> None:
    vault.ingest(type="decision", title="Idempotency keys", body=IDEMPOTENCY)
    result = vault.ingest(type="decision", title="Retry-safe payments", body=RESTATED)
    assert result.duplicates == () and not (vault.store.state_dir / "index").exists()


def test_memory_duplicates_lists_clusters(payments: Vault) -> None:
    payments.ingest(type="decision", title="Retry-safe payment creation", body=RESTATED)
    done = CliRunner().invoke(
        cli, ["memory", "--vault", str(payments.root), "duplicates", "--json"]
    )
    assert done.exit_code == 0, done.output
    clusters = json.loads(done.output)
    assert len(clusters) == 1
    assert sorted(e["title"] for e in clusters[0]["entries"]) == [
        "Idempotency keys for POST /payments",
        "Retry-safe payment creation",
    ]


# ---------------------------------------------------------------- staleness


NOW = datetime(2026, 12, 1, tzinfo=UTC)


def test_due_dates_from_frontmatter_and_type_defaults() -> None:
    policy = Policy.from_toml({"staleness": {"decision": {"review_after_days": 30}}})
    old = {"type": "decision", "timestamp": "2026-10-01T00:00:00Z"}
    assert state(old, policy, NOW) == (REVIEW_DUE, "2026-10-31", "vault.toml")
    assert state({**old, "expires": "2026-11-30"}, policy, NOW)[0] == EXPIRED
    assert state({**old, "review_by": "2027-01-01"}, policy, NOW) == ("", "", "")
    assert state({**old, "status": "superseded"}, policy, NOW) == ("", "", "")
    assert state({**old, "expires": "soon"}, Policy(), NOW)[0].startswith("unreadable")


def test_a_bad_staleness_setting_names_itself() -> None:
    with pytest.raises(InvalidInput, match="review_after_days must be days"):
        Policy.from_toml({"staleness": {"decision": {"review_after_days": "soon"}}})
    with pytest.raises(InvalidInput, match="unknown key"):
        Policy.from_toml({"staleness": {"decision": {"ttl": 3}}})


def test_memory_stale_lists_what_is_due(vault: Vault) -> None:
    gone = vault.ingest(
        type="context", title="Q3 freeze", body="No deploys.", meta={"expires": "2026-01-31"}
    )
    vault.ingest(type="context", title="Q9 plan", body="Later.", meta={"review_by": "2999-01-01"})
    toml = vault.root / ".clawql" / "vault.toml"
    toml.write_text(toml.read_text() + "\n[staleness.error]\nreview_after_days = 1\n")
    git(vault.root, "commit", "-qam", "errors are reviewed a day after")
    err = vault.ingest(
        type="error", title="Flaky test", body="Retry.", meta={"timestamp": "2026-01-01T00:00:00Z"}
    )
    done = CliRunner().invoke(cli, ["memory", "--vault", str(vault.root), "stale", "--json"])
    assert done.exit_code == 0, done.output
    due = {d["path"]: d for d in json.loads(done.output)}
    assert set(due) == {gone.path, err.path}
    assert due[gone.path]["reason"] == EXPIRED and due[gone.path]["source"] == "frontmatter"
    assert due[err.path] == {**due[err.path], "reason": REVIEW_DUE, "due": "2026-01-02"}


def test_recall_labels_and_down_weights_expired_entries(tmp_path: Path) -> None:
    v = Vault.init(tmp_path / "v", identity=AGENT, embedding_model="none")
    body = "Deploys freeze over the holidays; no releases to production."
    kept = v.ingest(type="context", title="Holiday deploy freeze", body=body)
    gone = v.ingest(
        type="context",
        title="Holiday deploy freeze 2025",
        body=body,
        meta={"expires": "2026-01-01"},
    )
    hits = v.recall("holiday deploy freeze", backend="fts").hits
    assert [h.path for h in hits] == [kept.path, gone.path]
    assert hits[1].labels == (EXPIRED,) and hits[1].to_record()["labels"] == [EXPIRED]
    assert hits[0].labels == ()


def test_review_show_names_repeats_and_contradictions(payments: Vault) -> None:
    from clawql_git import Identity
    from clawql_git.review.proposals import set_review_policy
    from clawql_git.review.report import show

    set_review_policy(payments, True, "alice")
    bot = Identity(agent_id="claude-code", session_id="s1")
    rabbit = payments.ingest(
        type="decision", title="Deliver webhooks through RabbitMQ", body=RABBIT, identity=bot
    )
    assert rabbit.branch and rabbit.contradictions  # the write result says so already
    report = show(payments, rabbit.branch, recall_impact=False)
    found = next(e for e in report.entries if e.path == rabbit.path).duplicates
    assert any(d.reason.startswith("contradicts") and "outbox" in d.path for d in found)
    done = CliRunner().invoke(cli, ["review", "--vault", str(payments.root), "show", rabbit.branch])
    assert "contradicts" in done.output, done.output


def test_the_readme_block_runs_as_written(tmp_path: Path) -> None:
    """README "Keeping memory true": every line, in order, on a fresh demo vault."""
    import os
    import shlex
    import subprocess
    import sys

    from .conftest import ROOT, SAMPLE

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- truth:start -->\n", 1)[1].split("<!-- truth:end -->", 1)[0]
    lines = [x for x in block.split("```sh\n", 1)[1].split("```", 1)[0].splitlines() if x.strip()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWQL_")}
    env["CLAWQL_EMBEDDING_MODEL"] = "hash"  # the packaged model answers as well; faster here
    seed = ["memory", "init", "demo-vault", "--from", str(SAMPLE)]
    made = subprocess.run([sys.executable, "-m", "clawql_git", *seed], cwd=tmp_path, env=env)
    assert made.returncode == 0
    outputs = []
    for line in lines:
        words = shlex.split(line, comments=True)
        if words[0] == "export":
            key, _, value = words[1].partition("=")
            env[key] = value
            continue
        assert words[0] == "clawql", line
        argv = [sys.executable, "-m", "clawql_git", *words[1:]]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        assert done.stdout.strip(), f"{line} printed nothing"
        outputs.append(done.stdout)
    recalled = json.loads(outputs[3])["hits"]
    old = next(h for h in recalled if "postgres-outbox" in h["path"])
    assert old["labels"] == ["superseded"]
    assert "ci-pipeline-and-type-checking-setup.md" in outputs[-1]


def test_a_replacement_ranks_above_the_entry_it_superseded(payments: Vault) -> None:
    """A question worded like the old decision finds the old one first; the decision that
    replaced it answers the same question now and comes above it."""
    result = payments.ingest(
        type="decision", title="Deliver webhooks through RabbitMQ", body=RABBIT
    )
    old = result.contradictions[0].path  # the outbox decision
    payments.supersede(old, result.path)
    question = "why a postgres outbox table for the payment write and webhook rows?"
    hits = [h.path for h in payments.recall(question, limit=5, use_cache=False).hits]
    assert old in hits and result.path in hits, hits
    assert hits.index(result.path) < hits.index(old), hits


OUTBOX_DEMO = (
    "decisions/2026-09/move-webhook-delivery-to-a-postgres-outbox-with-a-dedicated-worker.md"
)


def test_the_demo_question_answers_with_the_decision_in_force(tmp_path: Path) -> None:
    """The README's first recall: why the webhooks left Redis is the outbox decision, which
    superseded the Redis Streams one; it leads, above the decision it replaced."""
    runner = CliRunner()
    vault = tmp_path / "demo-vault"
    from .conftest import ROOT

    made = runner.invoke(cli, ["memory", "init", str(vault), "--from", str(ROOT / "sample-vault")])
    assert made.exit_code == 0, made.output
    question = "why did we stop queueing webhooks in redis?"
    asked = runner.invoke(
        cli, ["memory", "--vault", str(vault), "recall", question, "--limit", "3", "--json"]
    )
    assert asked.exit_code == 0, asked.output
    paths = [e["path"] for e in json.loads(asked.output)["entries"]]
    assert paths[0] == OUTBOX_DEMO, paths
