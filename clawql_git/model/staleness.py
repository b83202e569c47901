"""When an entry is due: ``review_by`` / ``expires`` in its frontmatter, else the per-type
defaults of ``.clawql/vault.toml``::

    [staleness.decision]
    review_after_days = 180   # review_by = timestamp + 180 days
    expires_after_days = 730  # expires   = timestamp + 730 days

Pure functions of the frontmatter, the policy and "now"; ``memory stale`` lists what is due and
recall (``recall/freshness.py``) down-weights and labels it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from clawql_git.errors import InvalidInput

EXPIRED, REVIEW_DUE, UNREADABLE = "expired", "review due", "unreadable date"
_KEYS = {"review_after_days": "review_by", "expires_after_days": "expires"}


@dataclass(frozen=True)
class Policy:
    """Per-type defaults: type -> {"review_by" | "expires": days after the entry's timestamp}."""

    days: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @classmethod
    def from_toml(cls, data: Mapping[str, Any]) -> Policy:
        """The ``[staleness]`` table of vault.toml; a bad value is InvalidInput naming it."""
        table = data.get("staleness", {})
        if not isinstance(table, Mapping):
            raise InvalidInput("vault.toml [staleness] must be a table of types")
        out: dict[str, dict[str, int]] = {}
        for kind, values in table.items():
            if not isinstance(values, Mapping):
                raise InvalidInput(f"vault.toml [staleness.{kind}] must be a table")
            out[str(kind)] = {
                _KEYS[k]: _days(kind, k, v) for k, v in values.items() if _ok(kind, k)
            }
        return cls(out)


def _ok(kind: str, key: str) -> bool:
    if key not in _KEYS:
        raise InvalidInput(
            f"vault.toml [staleness.{kind}] {key}: unknown key; use {' or '.join(_KEYS)}"
        )
    return True


def _days(kind: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 36_500:
        raise InvalidInput(f"vault.toml [staleness.{kind}] {key} must be days (1..36500)")
    return value


@dataclass(frozen=True)
class Due:
    """An entry that is due: why, since when (UTC date) and from where the date comes."""

    path: str
    title: str
    type: str
    reason: str  # EXPIRED, REVIEW_DUE or UNREADABLE
    due: str  # YYYY-MM-DD, or the unreadable value
    source: str  # "frontmatter" or "vault.toml"

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return dict(self.__dict__)


def as_date(value: Any) -> date | None:
    """A frontmatter date (YAML date, datetime or ISO text) as a date; None when it is not."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).date() if value.tzinfo else value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return as_date(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def due_dates(meta: Mapping[str, Any], policy: Policy) -> dict[str, tuple[date | None, str, str]]:
    """ "review_by" / "expires" -> (date or None when unreadable, the raw text, its source)."""
    out: dict[str, tuple[date | None, str, str]] = {}
    defaults = policy.days.get(str(meta.get("type") or ""), {})
    for key in ("review_by", "expires"):
        if meta.get(key) not in (None, ""):
            out[key] = (as_date(meta[key]), str(meta[key]), "frontmatter")
        elif key in defaults:
            start = as_date(meta.get("timestamp"))
            if start is not None:
                when = start + timedelta(days=defaults[key])
                out[key] = (when, when.isoformat(), "vault.toml")
    return out


def state(meta: Mapping[str, Any], policy: Policy, now: datetime) -> tuple[str, str, str]:
    """(reason, due, source) of a current entry that is due, else ("", "", "")."""
    if str(meta.get("status") or "current") != "current":
        return "", "", ""
    dates = due_dates(meta, policy)
    today = now.astimezone(UTC).date()
    for key, reason in (("expires", EXPIRED), ("review_by", REVIEW_DUE)):
        if key not in dates:
            continue
        when, raw, source = dates[key]
        if when is None:
            return f"{UNREADABLE} ({key})", raw, source
        if when <= today:
            return reason, when.isoformat(), source
    return "", "", ""
