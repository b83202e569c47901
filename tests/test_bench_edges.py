"""bench/codegraph_edges.py: which call edges two tools share, what each has alone, and the
right-edge estimate from labels."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import bench_module


def _bench() -> ModuleType:
    return bench_module("codegraph_edges")


def test_same_site_and_target_file_match_under_another_name() -> None:
    edges = _bench()
    ours = Counter({("a.kt", 3, "b.kt", "Foo"): 1, ("a.kt", 4, "b.kt", "g"): 2})
    theirs = Counter(
        {("a.kt", 3, "b.kt", "init"): 1, ("a.kt", 4, "b.kt", "g"): 1, ("a.kt", 9, "c.kt", "h"): 1}
    )
    shared, ours_only, theirs_only = edges.compare(ours, theirs)
    assert shared == 2  # line 4 once by name, line 3 by site and target file
    assert ours_only == Counter({("a.kt", 4, "b.kt", "g"): 1})
    assert theirs_only == Counter({("a.kt", 9, "c.kt", "h"): 1})


def test_last_segment() -> None:
    edges = _bench()
    assert [edges.last_segment(n) for n in ("Foo.bar", "a::b::c", "K#m", "plain")] == [
        "bar",
        "c",
        "m",
        "plain",
    ]


def test_estimate_uses_labels_of_the_one_sided_edges(tmp_path: Path) -> None:
    edges = _bench()
    only = Counter({("a.rs", i, "b.rs", "f"): 1 for i in range(1, 11)})
    rows = [
        {
            "tool": "codegraph",
            "path": "a.rs",
            "line": i,
            "target_path": "b.rs",
            "target": "f",
            "right": i <= 2,
            "why": "",
        }
        for i in range(1, 5)
    ]
    (tmp_path / "rust.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    labels = edges.load_labels(tmp_path / "rust.jsonl")
    est = edges.estimate("codegraph", 100, only, labels, "x/y")
    assert (est["labelled"], est["right"], est["estimate"]) == (4, 2, 105)
    assert est["low"] < 105 < est["high"]


def test_a_malformed_label_names_its_line(tmp_path: Path) -> None:
    edges = _bench()
    (tmp_path / "go.jsonl").write_text('{"tool": "clawql"}\n')
    with pytest.raises(SystemExit, match=r"go\.jsonl:1"):
        edges.load_labels(tmp_path / "go.jsonl")
