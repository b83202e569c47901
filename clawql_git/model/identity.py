"""Who writes or reads: the agent, its session, the correlation of one call."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """Who writes: the agent, its session, and the correlation of this write."""

    agent_id: str = ""
    session_id: str = ""
    correlation_id: str = ""
    verdict: str = ""
    confidence: float | None = None
