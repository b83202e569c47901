"""The log is a pure function of history: incremental updates equal a full regeneration,
across days, months and roll-overs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from clawql_git.catalog.render import LOG, LogEvent, full_log, log_changes, parse_log

START = datetime(2026, 1, 28, 9, 0, tzinfo=UTC)


def build(gaps: list[tuple[int, int]], page: int) -> tuple[dict[str, str], list[LogEvent]]:
    """Apply events one commit at a time (each commit 1..3 events), like ingests do."""
    files: dict[str, str] = {}
    events: list[LogEvent] = []
    when = START
    for n, (minutes, size) in enumerate(gaps):
        when += timedelta(minutes=minutes)
        batch = [
            LogEvent(when, "MEMORY_INGEST", f"decisions/x/e{n}-{k}.md", "decision", "a", "")
            for k in range(size)
        ]
        newest_first = list(reversed(batch))
        changes = log_changes(
            files.get(LOG, ""), lambda m: files.get(f"log/{m}.md", ""), newest_first, page
        )
        files.update(changes)
        events += batch
    return files, events


@settings(max_examples=150, deadline=None)
@given(
    gaps=st.lists(
        st.tuples(
            st.sampled_from([0, 1, 30, 60 * 20, 60 * 24 * 3, 60 * 24 * 20]), st.integers(1, 3)
        ),
        min_size=1,
        max_size=60,
    ),
    page=st.integers(2, 6),
)
def test_incremental_log_equals_full_regeneration(gaps: list[tuple[int, int]], page: int) -> None:
    files, events = build(gaps, page)
    assert files == full_log(events, page)
    current = [line for line in files[LOG].splitlines() if line.startswith("* ")]
    assert len(current) < 2 * page


def test_months_roll_into_their_own_files() -> None:
    files, events = build([(60 * 24 * 10, 1)] * 12, page=50)  # every 10 days for 4 months
    months = sorted({e.month for e in events})
    assert len(months) >= 4
    assert set(files) == {LOG, *(f"log/{m}.md" for m in months[:-1])}
    latest = parse_log(files[LOG])
    assert {e.month for e in latest} == {months[-1]}
    for month in months[:-1]:
        text = files[f"log/{month}.md"]
        assert text.startswith(f"# Log {month}\n")
        assert "](../decisions/" in text  # links are relative to log/
    headings = [line for line in files[LOG].splitlines() if line.startswith("## ")]
    assert headings == sorted(headings, reverse=True)  # newest first
