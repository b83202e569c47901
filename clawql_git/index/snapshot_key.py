"""The key under which the derived graph and tree of an index state are saved."""

from __future__ import annotations

import sys

FORMAT = 1  # of index/snapshot.py's payload


def snapshot_key(stamp_key: str) -> str:
    """The key of an index state: its stamp file's identity, the format and Python's version
    (marshal's format is Python's own)."""
    return f"{FORMAT}|{sys.version_info[0]}.{sys.version_info[1]}|{stamp_key}"
