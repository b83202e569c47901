"""Progress callbacks of long work: ``(done, total, what)``, total 0 when not known yet.

Library code never prints: it calls the callback it was given, and an adapter renders it (the
CLI draws bars on stderr). ``what`` names the phase of the work ("embedding chunks"), each with
its own count and total, or the item just done (an imported file) when there is one phase.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int, str], None]


def phase(progress: Progress | None, what: str, total: int) -> Callable[[int], None]:
    """``report(done)`` for one phase of ``total`` steps; reports ``(0, total)`` at once, so the
    total (and the phase's name) shows before the first step ends."""
    if progress is None:
        return lambda done: None
    report = progress
    report(0, total, what)
    return lambda done: report(done, total, what)
