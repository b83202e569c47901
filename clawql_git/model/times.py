"""Time values: commit times as aware UTC datetimes, and the times people type (90d, a date)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from clawql_git.errors import InvalidInput

MAX_DAYS = 36_500
"""How far back a duration (``--since 90d``) or a day count (``recent --days``) may reach: a
hundred years, more than any vault holds and far inside what ``datetime`` can represent (a
bigger count overflowed it: an ``OverflowError`` traceback instead of an error)."""

_AGO = re.compile(r"^(\d+)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_RANGE = f"a duration reaches back at most {MAX_DAYS}d (100 years); or give a date or ISO 8601"
_FORMS = "use 90d, 12h, 2026-07-01 or ISO 8601"


def utc(ts: int) -> datetime:
    """A commit time as an aware UTC datetime."""
    return datetime.fromtimestamp(ts, UTC)


def parse_when(value: str | None, now: datetime | None = None, what: str = "") -> datetime | None:
    """'90d', '12h', '2w', a date or an ISO timestamp -> aware datetime; anything else, or a
    duration beyond ``MAX_DAYS``, is ``InvalidInput`` naming ``what`` (the option)."""
    if value is None:
        return None
    text = value.strip()
    named = f"{what}: " if what else ""
    match = _AGO.match(text)
    if match:
        return (now or datetime.now(UTC)) - _duration(match, f"{named}{value!r}")
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"{named}not a time: {value!r} ({_FORMS})") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _duration(match: re.Match[str], shown: str) -> timedelta:
    digits, unit = match.groups()
    # the length check comes first: int() refuses strings of over 4300 digits with ValueError
    if len(digits) > 12 or int(digits) * _UNIT_SECONDS[unit] > MAX_DAYS * 86_400:
        raise InvalidInput(f"{shown} is out of range: {_RANGE}")
    return timedelta(seconds=int(digits) * _UNIT_SECONDS[unit])


def check_days(days: int, what: str = "days") -> int:
    """``days`` if it is a whole number of days from 1 to ``MAX_DAYS``, else ``InvalidInput``."""
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise InvalidInput(f"{what} must be a whole number from 1 to {MAX_DAYS}, got {days!r}")
    return days
