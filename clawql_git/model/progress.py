"""Progress callbacks of long work: ``(done, total, what)``, total 0 when not known yet."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int, str], None]
