"""Time values: commit times as aware UTC datetimes, and the times people type (90d, a date)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from clawql_git.errors import InvalidInput

_AGO = re.compile(r"^(\d+)([smhdw])$")


def utc(ts: int) -> datetime:
    """A commit time as an aware UTC datetime."""
    return datetime.fromtimestamp(ts, UTC)


def parse_when(value: str | None, now: datetime | None = None) -> datetime | None:
    """'90d', '12h', '2w', a date or an ISO timestamp -> aware datetime."""
    if value is None:
        return None
    match = _AGO.match(value.strip())
    now = now or datetime.now(UTC)
    if match:
        unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
        return now - timedelta(**{unit[match.group(2)]: int(match.group(1))})
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"not a time: {value!r} (use 90d, 12h, 2026-07-01 or ISO 8601)") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
