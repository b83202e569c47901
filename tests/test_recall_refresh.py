"""A warm process refreshes its in-memory index rows from what changed, and after every kind
of write (ingest, update, supersede, retract, archive, a branch switch, a write by another
process) it answers exactly as a freshly opened vault on the same path does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawql_git import Vault
from clawql_git.index.embedders import HashEmbedder
from clawql_git.index.store import SearchIndex
from clawql_git.recall.pipeline import Recaller

from .conftest import AGENT, git

QUERIES = (
    "idempotency keys for payment retries",
    "webhook deliveries lost after failover",
    "money stored as integer minor units",
    "why did we pick this database",
    "gRPC protobuf contracts between services",
    "retry storms and backoff",
)


def open_vault(root: Path) -> Vault:
    return Vault.open(root, embedder=HashEmbedder())


def answers(vault: Vault) -> list[dict[str, Any]]:
    """Every query's full answer (the index note says how this process got there: left out)."""
    out = []
    for q in QUERIES:
        for backend in ("auto", "fts", "page_index"):
            result = vault.recall(q, limit=8, min_score=0.0, use_cache=False, backend=backend)
            record = result.to_record()
            record.pop("index")
            out.append(record)
    return out


def resident(index: SearchIndex) -> dict[str, Any]:
    """The in-memory rows and everything derived from them, in comparable form."""
    loaded = index.loaded()
    recaller = Recaller(index)
    return {
        "entries": list(loaded.entries.items()),
        "entry_order": loaded.entry_order,
        "chunk_keys": loaded.chunk_keys,
        "links": sorted(tuple(sorted(link.items())) for link in loaded.links),
        "entry_vectors": loaded.entry_vectors.tolist(),
        "chunk_vectors": loaded.chunk_vectors.tolist(),
        "graph": {k: sorted(v) for k, v in recaller.link_graph().items() if v},
        "tree": recaller.tree(),
        "row_maps": [
            loaded.chunk_rows(),
            loaded.entry_index(),
            loaded.chunk_offsets(),
            loaded.chunk_counts(),
        ],
    }


def assert_like_fresh(vault: Vault, root: Path, changed: set[str]) -> None:
    """``vault`` answers as a new process would, and got there by reading only ``changed``."""
    warm_answers = answers(vault)
    index = vault.recall_service().index
    assert index.loaded().changed == changed  # refreshed row by row, not reloaded
    fresh = open_vault(root)
    assert answers(fresh) == warm_answers
    assert resident(index) == resident(fresh.recall_service().index)


def warm(root: Path) -> Vault:
    vault = open_vault(root)
    answers(vault)
    return vault


def test_refresh_after_ingest(demo: Path) -> None:
    vault = warm(demo)
    written = vault.ingest(
        type="decision",
        title="Adopt gRPC for internal calls",
        body="Protobuf contracts between services; see [[Idempotency keys for payment retries]].",
        tags=["api"],
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {written.path})
    assert any(h["path"] == written.path for a in answers(vault) for h in a["hits"])


def test_refresh_after_update_supersede_retract(demo: Path) -> None:
    vault = warm(demo)
    first = vault.recall("idempotency keys for payment retries", limit=3).hits[0].path
    vault.update(first, body="Idempotency keys now live in Redis for 24 hours.", identity=AGENT)
    assert_like_fresh(vault, demo, {first})
    other = vault.recall("webhook deliveries lost after failover", limit=1).hits[0].path
    vault.supersede(other, first, identity=AGENT)
    assert_like_fresh(vault, demo, {other})
    vault.retract(first, reason="wrong", identity=AGENT)
    assert_like_fresh(vault, demo, {first})
    assert all(h["path"] != first for a in answers(vault) for h in a["hits"])


def test_refresh_after_archive(demo: Path) -> None:
    vault = warm(demo)
    path = vault.recall("money stored as integer minor units", limit=1).hits[0].path
    moved = vault.archive(path, identity=AGENT)
    assert_like_fresh(vault, demo, {path, moved.path})


def test_refresh_after_branch_switch_made_by_git(demo: Path) -> None:
    vault = warm(demo)
    git(demo, "checkout", "-q", "-b", "experiment")
    written = vault.ingest(
        type="decision",
        title="Retry storms need jittered backoff",
        body="Clients retried in lockstep after the outage.",
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {written.path})
    git(demo, "checkout", "-q", "main")  # the post-checkout hook updates the index in git's process
    assert_like_fresh(vault, demo, {written.path})


def test_refresh_after_a_write_by_another_process(demo: Path) -> None:
    vault = warm(demo)
    other = open_vault(demo)
    written = other.ingest(
        type="context", title="Ledger projector lag", body="Lag after rebalances.", identity=AGENT
    )
    other.update_index()
    assert_like_fresh(vault, demo, {written.path})


def test_many_changes_reload_everything(demo: Path) -> None:
    vault = warm(demo)
    drafts = [(f"Bulk note {n}", f"Bulk body number {n} about queues.") for n in range(20)]
    for title, body in drafts:
        vault.ingest(type="context", title=title, body=body, identity=AGENT)
    vault.update_index()
    answers(vault)
    assert vault.recall_service().index.loaded().changed == frozenset()  # a full load
    fresh = open_vault(demo)
    assert answers(fresh) == answers(vault)


def test_postfiltered_fts_equals_the_prefiltered_search(demo: Path) -> None:
    vault = warm(demo)
    gone = vault.recall("idempotency keys for payment retries", limit=1).hits[0].path
    vault.retract(gone, identity=AGENT)
    vault.update_index()
    index = vault.recall_service().index
    where = "status != 'retracted' AND pii != 'PHI'"
    hidden = sum(1 for p, _ in index.loaded().chunk_keys if p == gone)
    for q in ("idempotency keys payment retries", "webhook failover", "ledger"):
        pre = index.fts(q, 10, where)
        post = [h for h in index.fts(q, 10 + hidden, None) if h.path != gone][:10]
        assert [(h.path, h.chunk, h.score) for h in post] == [
            (h.path, h.chunk, h.score) for h in pre
        ]


def test_refresh_resolves_a_broken_link_once_its_note_exists(demo: Path) -> None:
    vault = warm(demo)
    source = "context/2026-10/reconciliation-job-migration-in-progress.md"
    graph = Recaller(vault.recall_service().index).link_graph()
    before = set(graph.get(source, ()))
    written = vault.ingest(
        type="pattern",
        title="Reconciliation runbook",
        body="Steps to rerun the nightly reconciliation.",
        path="patterns/reconciliation-runbook.md",
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {written.path})
    graph = Recaller(vault.recall_service().index).link_graph()
    assert set(graph[source]) == before | {written.path}


def test_refresh_after_a_title_change_relinks_by_title(demo: Path) -> None:
    vault = warm(demo)
    linked = vault.ingest(
        type="decision",
        title="Ledger sharding plan",
        body="Shard by account id.",
        identity=AGENT,
    )
    linker = vault.ingest(
        type="context",
        title="Sharding rollout",
        body="Follows [[Ledger sharding plan]] and [[Ledger partitioning plan]].",
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {linked.path, linker.path})
    vault.update(linked.path, changes={"title": "Ledger partitioning plan"}, identity=AGENT)
    assert_like_fresh(vault, demo, {linked.path})
    vault.update(linked.path, changes={"aliases": ["Ledger sharding plan"]}, identity=AGENT)
    assert_like_fresh(vault, demo, {linked.path})


def test_refresh_after_a_rebuild_by_another_process(demo: Path) -> None:
    vault = warm(demo)
    written = vault.ingest(
        type="context", title="Queue depth alarms", body="Alarm on depth.", identity=AGENT
    )
    assert_like_fresh(vault, demo, {written.path})
    other = open_vault(demo)
    other.update(written.path, body="Alarm on depth and on age.", identity=AGENT)
    other.rebuild_index()  # rows in tree order again, not in the order updates appended them
    assert_like_fresh(vault, demo, {written.path})
    assert not vault.recall_service().index.loaded().appended


def test_refresh_without_an_embedding_model(demo: Path) -> None:
    vault = Vault.open(demo, embedding_model="none")
    vault.recall("idempotency keys", limit=3)
    written = vault.ingest(
        type="decision", title="Idempotency key expiry", body="Keys expire.", identity=AGENT
    )

    def hits(v: Vault) -> list[dict[str, Any]]:
        result = v.recall("idempotency key expiry", limit=5, use_cache=False)
        return [h.to_record() for h in result.hits]

    warm_hits = hits(vault)
    assert vault.recall_service().index.loaded().changed == {written.path}
    fresh = Vault.open(demo, embedding_model="none")
    assert hits(fresh) == warm_hits
    assert any(h["path"] == written.path for h in warm_hits)


def test_categories_table_counts_every_level() -> None:
    from clawql_git.index.rows import categories_table

    table = categories_table(["decision/api", "decision/api", "decision/auth", "context", ""])
    assert table.to_pylist() == [
        {"path": "context", "depth": 1, "entries": 1},
        {"path": "decision", "depth": 1, "entries": 3},
        {"path": "decision/api", "depth": 2, "entries": 2},
        {"path": "decision/auth", "depth": 2, "entries": 1},
    ]


def test_refresh_resolves_an_imported_link_through_its_source_path(demo: Path) -> None:
    """Imported notes link by their source layout; the patched graph follows it too."""
    vault = warm(demo)
    first = vault.ingest(
        type="decision",
        title="Use a message broker",
        body="Builds on [the storage decision](0003-store-events-in-postgres.md).",
        meta={"source_path": "docs/adr/0002-use-a-message-broker.md"},
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {first.path})
    second = vault.ingest(
        type="decision",
        title="Events live in Postgres",  # the file is renamed by its title on import
        body="One table per stream.",
        meta={"source_path": "docs/adr/0003-store-events-in-postgres.md"},
        identity=AGENT,
    )
    assert_like_fresh(vault, demo, {second.path})
    graph = Recaller(vault.recall_service().index).link_graph()
    assert second.path in graph[first.path]


def test_link_traversal_from_seeds_without_evidence_adds_nothing(demo: Path) -> None:
    """Seeds that all score 0 (a query nothing matches) spread no link weight and never divide
    by their zero best score (a ZeroDivisionError crashed `recall` and `review show`)."""
    from collections import defaultdict

    from clawql_git.recall.pipeline import RecallQuery, _Candidate

    vault = warm(demo)
    recaller = Recaller(vault.recall_service().index)
    source = next(path for path, linked in recaller.link_graph().items() if linked)
    cands: defaultdict[str, _Candidate] = defaultdict(_Candidate)
    recaller._links([(source, 0.0)], cands, RecallQuery("zebra"))
    assert dict(cands) == {}
    recaller._links([(source, 1.0)], cands, RecallQuery("zebra"))
    assert cands and all("links" in c.scores for c in cands.values())


def test_appended_rows_never_change_what_an_older_view_sees() -> None:
    import numpy as np

    from clawql_git.index.resident import grow_rows

    first = grow_rows(np.zeros((3, 2), dtype=np.float32), np.ones((1, 2), dtype=np.float32))
    second = grow_rows(first, np.full((2, 2), 2, dtype=np.float32))
    assert second.base is first.base  # written into the spare room, no copy
    assert first.tolist() == [[0, 0], [0, 0], [0, 0], [1, 1]]
    # an older view appending again (another Resident) must not overwrite second's rows
    other = grow_rows(first, np.full((1, 2), 9, dtype=np.float32))
    assert other.base is not first.base
    assert second[4:].tolist() == [[2, 2], [2, 2]] and other[4:].tolist() == [[9, 9]]
    assert first.tolist() == [[0, 0], [0, 0], [0, 0], [1, 1]]


def test_a_warmed_process_appends_a_write_without_copying_or_rebuilding(demo: Path) -> None:
    """After ``warm`` (what the MCP server does at start) the first write's refresh appends
    the new rows into the vector buffers' spare room and extends the row maps, and the
    process still answers exactly as a new one."""
    vault = open_vault(demo)
    service = vault.recall_service()
    service.warm()
    before = service.index.loaded()
    buffers = (before.entry_vectors.base, before.chunk_vectors.base)
    assert all(b is not None for b in buffers)
    old_rows = {p: list(r) for p, r in before.chunk_rows().items()}
    written = vault.ingest(
        type="decision",
        title="Adopt gRPC for internal calls",
        body="Protobuf contracts between services, versioned in one repository.",
        identity=AGENT,
    )
    vault.recall("gRPC protobuf contracts between services", use_cache=False)
    after = service.index.loaded()
    assert after is not before and after.changed == {written.path}
    assert (after.entry_vectors.base, after.chunk_vectors.base) == buffers  # no copy
    assert "chunk_rows" in after.memos and written.path in after.chunk_rows()
    assert before.chunk_rows() == old_rows  # the older view's maps are untouched
    assert_like_fresh(vault, demo, {written.path})
