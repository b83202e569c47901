"""Time values: commit times as aware UTC datetimes."""

from __future__ import annotations

from datetime import UTC, datetime


def utc(ts: int) -> datetime:
    """A commit time as an aware UTC datetime."""
    return datetime.fromtimestamp(ts, UTC)
