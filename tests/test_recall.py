"""The derived index and recall: rebuilt from history, follows the checkout, no-model mode,
time travel, the cache, filters and the token budget."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput, NotFound
from clawql_git.index.embedders import HashEmbedder

from .conftest import AGENT, git
from .embedders import CountingEmbedder


def counting_vault(root: Path) -> tuple[Vault, CountingEmbedder]:
    embedder = CountingEmbedder(HashEmbedder())
    return Vault.open(root, embedder=embedder), embedder


def now_date() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%d")


def paths(result: object) -> list[str]:
    return [h.path for h in result.hits]  # type: ignore[attr-defined]


def test_recall_finds_the_decision_and_reports_everything(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    result = vault.recall("idempotency keys for payment retries", limit=5)
    assert result.hits, result
    top = result.hits[0]
    assert "idempotency" in top.path
    assert top.worm_ref.startswith("git:") and git(demo, "cat-file", "-t", top.worm_ref[4:])
    assert top.snippet and top.tokens > 0 and top.frontmatter["type"] == top.type
    assert set(result.layers) >= {"catalog", "fts", "vector", "page_index", "links"}
    assert result.total_tokens == sum(h.tokens for h in result.hits)
    assert "index rebuilt" in result.index_note


def test_worm_ref_is_the_commit_that_last_changed_the_entry(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    hit = vault.recall("money stored as integer minor units", limit=1).hits[0]
    last = git(demo, "log", "-1", "--format=%H", "--", hit.path).stdout.strip()
    assert hit.worm_ref == f"git:{last}"


def test_deleting_the_index_loses_nothing(demo: Path) -> None:
    vault, embedder = counting_vault(demo)
    first = vault.recall("webhook deliveries lost after failover", limit=3)
    embedded = embedder.texts
    shutil.rmtree(demo / ".git" / "clawql" / "index")
    vault2, embedder2 = counting_vault(demo)
    again = vault2.recall("webhook deliveries lost after failover?", limit=3)
    assert "index rebuilt" in again.index_note and "deleted" in again.index_note
    assert paths(again) == paths(first)
    assert embedder2.texts <= 1  # only the query: passages came from the vector cache
    assert embedded > 10


def test_index_follows_checkout_and_reembeds_nothing(demo: Path) -> None:
    vault, embedder = counting_vault(demo)
    vault.update_index()
    base = embedder.texts
    git(demo, "checkout", "-q", "-b", "experiment")
    vault.ingest(
        type="decision",
        title="Adopt gRPC for internal calls",
        body="Protobuf contracts between the payments api and the ledger service.",
        identity=AGENT,
    )
    vault.close()
    report = vault.update_index()
    assert report.mode == "update" and report.changed == 1 and report.embedded >= 1
    assert "grpc" in paths(vault.recall("gRPC protobuf internal calls", limit=3))[0]
    after_branch = embedder.texts
    git(demo, "checkout", "-q", "main")  # the post-checkout hook updates the index
    stamp = vault.index_status()
    assert stamp["current"], stamp
    assert all("grpc" not in p for p in paths(vault.recall("gRPC protobuf", limit=5)))
    git(demo, "checkout", "-q", "experiment")
    assert vault.update_index().mode == "current"  # the hook already caught it up
    vault.rebuild_index()
    assert embedder.texts - after_branch <= 2  # queries only, no passage re-embedded
    assert after_branch > base


def test_hook_failure_never_fails_git_and_marks_nothing_broken(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    vault.update_index()
    git(demo, "config", "clawql.command", "false")
    (demo / "notes.md").write_text("---\ntype: context\ntitle: Hand note\n---\nby hand\n")
    git(demo, "add", "notes.md")
    assert git(demo, "commit", "-qm", "by hand", check=False).returncode == 0
    status = vault.index_status()
    assert status["behind"] == 1
    result = vault.recall("hand note", limit=3)  # the next call catches up
    assert result.index_note.startswith("index caught up")
    assert "notes.md" in paths(result)


def test_no_model_recall_still_answers(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = Vault.open(demo, embedding_model="none")
    result = vault.recall("idempotency keys", limit=3)
    assert "vector" not in result.layers and result.hits
    assert "idempotency" in result.hits[0].path
    tree = vault.recall("idempotency keys", limit=3, backend="page_index")
    assert tree.layers == ["page_index"] and tree.hits
    with pytest.raises(InvalidInput, match="embedding model"):
        vault.recall("x", backend="vector")


def test_time_travel_answers_from_the_past(demo: Path) -> None:
    vault, embedder = counting_vault(demo)
    vault.update_index()
    old_head = git(demo, "rev-parse", "HEAD").stdout.strip()
    vault.ingest(
        type="error",
        title="Kafka consumer lag after rebalance",
        body="Consumer group rebalances stalled the ledger projector.",
        identity=AGENT,
    )
    now = vault.recall("kafka consumer lag rebalance", limit=3)
    assert "kafka" in paths(now)[0]
    before = embedder.texts
    past = vault.recall("kafka consumer lag rebalance", limit=3, at=old_head)
    assert all("kafka" not in p for p in paths(past)) and past.commit == old_head
    assert embedder.texts - before <= 1  # the past index came from the vector cache
    with pytest.raises(NotFound, match="no commit at or before"):
        vault.recall("kafka consumer lag rebalance", limit=3, at="2000-01-01")
    today = vault.recall("kafka consumer lag rebalance", limit=3, at=now_date())
    assert "kafka" in paths(today)[0]


def test_cache_hits_until_a_new_commit(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    first = vault.recall("reconciliation job migration", limit=3)
    assert not first.cache_hit
    again = vault.recall(" reconciliation   job migration", limit=3)
    assert again.cache_hit and paths(again) == paths(first)
    # case is the question's own: a layer (an embedder, a name in it) may tell them apart
    assert not vault.recall("Reconciliation job migration", limit=3).cache_hit
    vault.ingest(type="context", title="Unrelated note", body="x", identity=AGENT)
    assert not vault.recall("reconciliation job migration", limit=3).cache_hit


def test_filters_status_and_supersession(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    only_errors = vault.recall("webhook redis", limit=10, types=("error",))
    assert only_errors.hits and all(h.type == "error" for h in only_errors.hits)
    by_tag = vault.recall("webhook", limit=10, tags=("webhooks",))
    assert all("webhooks" in h.frontmatter.get("tags", []) for h in by_tag.hits)
    none = vault.recall("webhook", limit=10, agent="nobody")
    assert none.hits == []
    old = next(
        h
        for h in vault.recall("redis streams celery webhooks", limit=10).hits
        if h.frontmatter.get("status") == "superseded"
    )
    assert old.superseded_by.startswith("decisions/")
    target = vault.recall("idempotency keys", limit=1).hits[0].path
    vault.retract(target, reason="test", identity=Identity(agent_id="t"))
    assert target not in paths(vault.recall("idempotency keys", limit=10))
    window = vault.recall(
        "webhook",
        limit=10,
        since=__import__("datetime").datetime(2026, 9, 1, tzinfo=__import__("datetime").UTC),
    )
    assert all(h.frontmatter["timestamp"] >= "2026-09" for h in window.hits)


def test_token_budget(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    small = vault.recall("webhook delivery", limit=10, max_tokens=150)
    assert small.total_tokens <= 150 and small.truncated
    big = vault.recall("webhook delivery", limit=10, max_tokens=100_000)
    assert len(big.hits) > len(small.hits) and not big.truncated


def test_cli_recall_index_tree_recent(demo: Path) -> None:
    run = CliRunner().invoke
    base = ["memory", "--vault", str(demo)]
    r = run(cli, [*base, "recall", "idempotency keys", "--json", "--limit", "3"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["hits"] and data["layers"] and data["total_tokens"] > 0
    assert data["hits"][0]["worm_ref"].startswith("git:")
    r = run(cli, [*base, "index", "status", "--json"])
    assert json.loads(r.stdout)["current"] is True
    r = run(cli, [*base, "index", "rebuild", "--json"])
    assert json.loads(r.stdout)["embedded"] == 0
    head1 = git(demo, "rev-list", "--max-count=1", "--skip=5", "HEAD").stdout.strip()
    r = run(cli, [*base, "index", "rebuild", "--at", head1, "--json"])
    assert json.loads(r.stdout)["commit"] == head1
    r = run(cli, [*base, "index", "status"])
    assert "behind" in r.output
    r = run(cli, [*base, "tree", "--json"])
    assert json.loads(r.stdout)["decision"] >= 3
    r = run(cli, [*base, "recent", "--days", "3650", "--json"])
    summary = json.loads(r.stdout)
    assert summary["context"] and len(json.dumps(summary)) < 6000
    r = run(cli, [*base, "recall", "   "])
    assert r.exit_code == 2


def test_embedder_change_rebuilds_and_reembeds(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    vault.update_index()
    other = CountingEmbedder(HashEmbedder(dim=128))
    v2 = Vault.open(demo, embedder=other)
    report = v2.update_index()
    assert report.mode == "rebuild" and "embedder changed" in report.reason
    assert other.texts == report.embedded > 0
    assert v2.index_status()["stamp"]["embedder"] == "hash-128"


def test_long_entries_are_chunked_and_hit_once(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    filler = " ".join(f"Paragraph {n} talks about routine payroll exports." for n in range(40))
    needle = "The zeppelin telemetry decoder overflowed on negative altitudes."
    body = "\n\n".join([filler, filler, needle, filler, filler])
    entry = vault.ingest(type="error", title="Long incident write-up", body=body, identity=AGENT)
    result = vault.recall("zeppelin telemetry decoder overflow", limit=5)
    assert [h.path for h in result.hits].count(entry.path) == 1
    hit = next(h for h in result.hits if h.path == entry.path)
    assert "zeppelin" in hit.snippet and len(hit.snippet) < len(body) / 2


def test_link_traversal_brings_in_neighbours(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    result = vault.recall("webhook deliveries lost after redis failover", limit=10, min_score=0)
    via_links = [h for h in result.hits if "links" in h.layers]
    assert via_links, result.hits


def test_category_tree_from_given_and_default_paths(tmp_path: Path) -> None:
    vault = Vault.open(Vault.init(tmp_path / "v").root, embedding_model="none")
    vault.ingest(type="decision", title="Auth tokens", tags=["auth"], identity=AGENT)
    vault.ingest(
        type="decision",
        title="Pool size",
        meta={"page_index_path": "infra/db/pool"},
        identity=AGENT,
    )
    tree = vault.category_tree()
    assert tree["decision"] == 1 and tree["decision/auth"] == 1
    assert tree["infra"] == 1 and tree["infra/db/pool"] == 1
    hits = vault.recall("database pool size", backend="page_index").hits
    assert hits and hits[0].title == "Pool size"


def test_compaction_keeps_answers(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawql_git.index import store

    monkeypatch.setattr(store, "OPTIMIZE_EVERY", 3)
    vault, _ = counting_vault(demo)
    vault.update_index()
    for n in range(4):
        vault.ingest(type="context", title=f"Compaction note {n}", body=f"note {n}", identity=AGENT)
        vault.update_index()
    assert vault.index_status()["stamp"]["writes"] == 1  # optimized after the third write
    assert "compaction-note-3" in vault.recall("compaction note 3", limit=1).hits[0].path


def test_light_commands_never_import_lancedb(demo: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom clawql_git.__main__ import main\n"
        "sys.argv = ['clawql', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LANCEDB' if 'lancedb' in sys.modules else 'NO-LANCEDB')\n"
    )
    for args in (
        ["--help"],
        ["memory", "--vault", str(demo), "log", "--limit", "2"],
        [
            "memory",
            "--vault",
            str(demo),
            "ingest",
            "--type",
            "context",
            "--title",
            "Light",
            "--body",
            "x",
        ],
    ):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
        assert out.stdout.strip().splitlines()[-1] == "NO-LANCEDB", (args, out.stderr)


def test_index_has_its_tables_and_a_failed_update_marks_it_stale(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clawql_git.errors import StorageError
    from clawql_git.index.lance import import_lancedb
    from clawql_git.index.store import SearchIndex

    vault, _ = counting_vault(demo)
    vault.update_index()
    db = import_lancedb().connect(str(demo / ".git" / "clawql" / "index"))
    assert {"entries", "chunks", "links", "categories"} <= set(db.list_tables().tables)
    cats = {r["path"]: r["entries"] for r in db.open_table("categories").to_arrow().to_pylist()}
    assert cats["decision"] >= 3
    vault.ingest(type="context", title="Will fail to index", identity=AGENT)

    def broken(*args: object) -> int:
        raise StorageError("disk on fire")

    monkeypatch.setattr(SearchIndex, "_apply", broken)
    with pytest.raises(StorageError):
        vault.update_index()
    assert vault.index_status()["stamp"]["stale"] is True
    monkeypatch.undo()
    vault2, _ = counting_vault(demo)
    result = vault2.recall("will fail to index", limit=3)
    assert "the last update failed" in result.index_note
    assert "will-fail-to-index" in result.hits[0].path


def test_post_rewrite_hook_catches_the_index_up(demo: Path) -> None:
    vault, _ = counting_vault(demo)
    vault.update_index()
    git(demo, "commit", "--amend", "-qm", "amended by hand")
    assert vault.index_status()["current"]


def test_project_and_until_filters(demo: Path) -> None:
    from datetime import UTC, datetime

    vault, _ = counting_vault(demo)
    vault.ingest(
        type="context",
        title="Billing project note",
        body="webhook retries",
        meta={"project": "billing"},
        identity=AGENT,
    )
    only = vault.recall("webhook retries", project="billing", limit=10)
    assert [h.title for h in only.hits] == ["Billing project note"]
    old = vault.recall("webhook", until=datetime(2026, 7, 1, tzinfo=UTC), limit=10)
    assert old.hits and all(h.frontmatter["timestamp"] < "2026-07" for h in old.hits)


def test_recent_fits_in_a_few_hundred_tokens(demo: Path) -> None:
    from clawql_git.index.chunking import estimate_tokens

    summary = Vault.open(demo).recent(days=3650)
    assert summary["context"] and estimate_tokens(json.dumps(summary)) < 800
