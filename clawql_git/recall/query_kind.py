"""What a recall query is about besides its words: the dates or relative times it names, the
people (speakers, agents) it names, and whether it asks *when*; recall's ranker weighs an
entry's timestamp and speaker by them and picks its weights by the query's kind."""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

KINDS = ("plain", "person", "temporal")
_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})\b", re.I
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.I)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b", re.I)
_RELATIVE = re.compile(
    r"\b(yesterday|today|last\s+(?:week|month|year)|this\s+(?:week|month|year)|"
    r"(\d+)\s+(day|week|month)s?\s+ago)\b",
    re.I,
)
_WHEN = re.compile(r"\b(when|what\s+(?:date|day|time|year|month)|how\s+long\s+ago)\b", re.I)
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


@dataclass(frozen=True)
class QueryKind:
    """What the query names: a time window (``since``..``until``, UTC, inclusive), people (as
    lower-case names found among ``known`` speakers/agents), and whether it asks when."""

    since: datetime | None = None
    until: datetime | None = None
    people: frozenset[str] = frozenset()
    asks_when: bool = False

    @property
    def kind(self) -> str:
        """The weight set the ranker uses: temporal (dates, or "when" about a person) beats
        person beats plain ("when should we ..." alone is not about time)."""
        if self.since is not None or (self.asks_when and self.people):
            return "temporal"
        return "person" if self.people else "plain"


def parse_query(
    text: str, known_people: Iterable[str] = (), now: datetime | None = None
) -> QueryKind:
    """The dates, people and question kind of a recall query. ``known_people`` are the
    lower-case speaker and agent names of the vault (a capitalised word is not enough: only a
    name some entry carries counts). Relative times ("last week") count back from ``now``."""
    window = _window(text, now or datetime.now(UTC))
    words = set(_NAME.findall(text.lower()))
    people = frozenset(p for p in known_people if p and _names_in(p, words))
    return QueryKind(window[0], window[1], people, bool(_WHEN.search(text)))


def _names_in(person: str, words: set[str]) -> bool:
    """Whether every word of a (possibly multi-word) name is among the query's words."""
    parts = _NAME.findall(person)
    return bool(parts) and all(p in words for p in parts)


def _window(text: str, now: datetime) -> tuple[datetime | None, datetime | None]:
    for parse in (_absolute_day, _month_year, _year, _relative):
        found = parse(text, now)
        if found is not None:
            return found
    return None, None


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return start, start + timedelta(days=1) - timedelta(seconds=1)


def _absolute_day(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    if m := _DAY_MONTH_YEAR.search(text):
        return _day(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
    if m := _MONTH_DAY_YEAR.search(text):
        return _day(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    if m := _ISO_DAY.search(text):
        return _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    days = calendar.monthrange(year, month)[1]
    return start, start + timedelta(days=days) - timedelta(seconds=1)


def _month_year(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    m = _MONTH_YEAR.search(text)
    return _month(int(m.group(2)), _MONTHS[m.group(1).lower()]) if m else None


def _year(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    m = _YEAR.search(text)
    if m is None:
        return None
    year = int(m.group(1))
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year, 12, 31, 23, 59, 59, tzinfo=UTC)


def _relative(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    m = _RELATIVE.search(text)
    if m is None:
        return None
    phrase = " ".join(m.group(1).lower().split())
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    spans = {
        "today": (today, now),
        "yesterday": (today - timedelta(days=1), today),
        "this week": (today - timedelta(days=today.weekday()), now),
        "last week": (
            today - timedelta(days=today.weekday() + 7),
            today - timedelta(days=today.weekday()),
        ),
        "this month": (today.replace(day=1), now),
        "last month": (_month_start(today, -1), today.replace(day=1)),
        "this year": (today.replace(month=1, day=1), now),
        "last year": (
            today.replace(year=today.year - 1, month=1, day=1),
            today.replace(month=1, day=1),
        ),
    }
    if phrase in spans:
        return spans[phrase]
    unit = {"day": 1, "week": 7, "month": 30}[m.group(3).lower()]
    centre = today - timedelta(days=int(m.group(2)) * unit)
    return centre - timedelta(days=unit), centre + timedelta(days=unit)


def _month_start(day: datetime, shift: int) -> datetime:
    month = day.month - 1 + shift
    return day.replace(year=day.year + month // 12, month=month % 12 + 1, day=1)
