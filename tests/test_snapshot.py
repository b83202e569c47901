"""The link graph and category tree saved beside the index: a new process on the same index
state reads them instead of building them, answers exactly as one that built them, and a
state it was not saved for (a write, a corrupt file) is never read."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawql_git.index.graph import GraphState

from .conftest import AGENT
from .test_recall_refresh import answers, open_vault, resident


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts full graph builds (a process that read the snapshot makes none)."""
    calls: list[int] = []
    real = GraphState.build.__func__  # type: ignore[attr-defined]

    def counted(cls: type[GraphState], *args: object) -> GraphState:
        calls.append(1)
        return real(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(GraphState, "build", classmethod(counted))
    return calls


def built_from_scratch(root: Path) -> dict[str, object]:
    """What a process that builds everything itself holds (the snapshot set aside)."""
    saved = derived(root)
    aside = saved.with_name("aside")
    saved.rename(aside)
    try:
        fresh = open_vault(root)
        return {"answers": answers(fresh), "resident": resident(fresh.recall_service().index)}
    finally:
        aside.rename(saved)


def derived(root: Path) -> Path:
    return root / ".git" / "clawql" / "index.derived"


def test_a_new_process_reads_the_saved_graph_and_tree(demo: Path, builds: list[int]) -> None:
    first = open_vault(demo)
    before = answers(first)
    assert builds == [1] and derived(demo).is_file()
    second = open_vault(demo)
    assert answers(second) == before
    assert builds == [1]  # read, not built
    assert resident(second.recall_service().index) == built_from_scratch(demo)["resident"]


def test_after_a_write_the_saved_state_is_not_read_and_patches_stay_exact(
    demo: Path, builds: list[int]
) -> None:
    answers(open_vault(demo))  # saves the snapshot
    reader = open_vault(demo)
    answers(reader)  # from the snapshot
    assert builds == [1]
    written = reader.ingest(
        type="decision",
        title="Adopt gRPC for internal calls",
        body="Protobuf contracts; see [[Idempotency keys for payment retries]].",
        identity=AGENT,
    )
    reader.update_index()
    warm = answers(reader)  # the snapshot's graph, patched after the write
    assert builds == [1]
    assert any(h["path"] == written.path for a in warm for h in a["hits"])
    fresh = built_from_scratch(demo)
    assert warm == fresh["answers"]
    assert resident(reader.recall_service().index) == fresh["resident"]
    newcomer = open_vault(demo)  # the snapshot on disk is of the state before the write
    assert answers(newcomer) == warm
    assert len(builds) == 3  # the stale snapshot was not read (fresh + newcomer built)


def test_a_corrupt_snapshot_is_ignored_and_replaced(demo: Path, builds: list[int]) -> None:
    before = answers(open_vault(demo))
    derived(demo).write_bytes(b"\x00not marshal at all")
    assert answers(open_vault(demo)) == before
    assert len(builds) == 2 and derived(demo).read_bytes()[:1] != b"\x00"
    assert answers(open_vault(demo)) == before and len(builds) == 2


def test_rows_refreshed_after_a_write_never_take_the_old_state_snapshot(
    demo: Path, builds: list[int]
) -> None:
    answers(open_vault(demo))  # saves the snapshot of this state
    reader = open_vault(demo)
    reader.recall("webhook deliveries", backend="fts", use_cache=False)  # no graph, no tree yet
    reader.ingest(
        type="decision",
        title="Adopt gRPC for internal calls",
        body="Protobuf contracts; see [[Idempotency keys for payment retries]].",
        identity=AGENT,
    )
    reader.update_index()
    assert answers(reader) == built_from_scratch(demo)["answers"]
    assert resident(reader.recall_service().index) == built_from_scratch(demo)["resident"]
