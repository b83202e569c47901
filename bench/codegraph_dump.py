"""Dump every table of a repository's code-graph index as sorted text lines, to compare two
builds of the index (a speed-up must leave the facts unchanged): ``diff`` two dumps.

    PYTHONPATH=$PWD python -m clawql_git code index REPO --json >/dev/null
    python bench/codegraph_dump.py REPO > after.txt

Clock readings are left out: the ``indexed_at`` stamp of ``meta`` and the ``score`` of
``changes`` (commits weighted by their age now); ``facts`` blobs are written as their SHA-1.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
from pathlib import Path

VOLATILE_META = frozenset({"indexed_at"})


def table_lines(conn: sqlite3.Connection, table: str) -> list[str]:
    """Every row of ``table`` as ``table<TAB>repr(row)``, sorted."""
    out = []
    for row in conn.execute(f"SELECT * FROM {table}"):  # names from sqlite_master
        if table == "meta" and row[0] in VOLATILE_META:
            continue
        if table == "changes":
            row = (row[0], None, *row[2:])
        cells = [hashlib.sha1(c).hexdigest() if isinstance(c, bytes) else c for c in row]
        out.append(f"{table}\t{cells!r}")
    return sorted(out)


def dump(graph: Path) -> list[str]:
    """The lines of every table of the index at ``graph``, table by table."""
    conn = sqlite3.connect(f"file:{graph}?mode=ro", uri=True)
    tables = [
        name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ]
    return [line for table in sorted(tables) for line in table_lines(conn, table)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", type=Path, help="a checkout indexed with `clawql code index`")
    args = parser.parse_args()
    graph = args.repo / ".git" / "clawql" / "codegraph" / "graph.sqlite"
    sys.stdout.write("".join(line + "\n" for line in dump(graph)))


if __name__ == "__main__":
    main()
