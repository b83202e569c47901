"""The default recall path's shortcuts give the answers of the long way: expiry weighed only
for the candidates that can reach the answer, and the query's class worked out once."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from clawql_git.index.categories import CategoryTree, page_index_walk, query_class
from clawql_git.model.staleness import Policy
from clawql_git.recall.freshness import reweigh

PAST = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%d")


def _row(n: int) -> dict[str, object]:
    meta = {"expires": PAST} if n % 3 == 0 else {}
    return {"status": "current", "frontmatter": json.dumps(meta)}


def test_reweigh_with_need_keeps_the_first_need_of_the_full_reweigh() -> None:
    rows = {f"e{n:02d}.md": _row(n) for n in range(40)}
    ranked = [(f"e{n:02d}.md", None, 1.0 - n / 50) for n in range(40)]
    full = reweigh(ranked, rows, Policy())
    assert [p for p, _, _ in full[:3]] == ["e01.md", "e02.md", "e04.md"]
    for need in (1, 3, 10, 40, 60):
        short = reweigh(ranked, rows, Policy(), need)
        assert short[:need] == full[:need]
        assert len(short) == len(full)
        assert all(s <= short[min(need, 40) - 1][2] for _, _, s in short[need:])


def test_walk_from_a_given_class_is_the_walk_that_works_it_out() -> None:
    entries = {
        f"{cat}/{n}.md": {"page_index_path": cat, "catalog": f"{word} note {n}"}
        for cat, word in (("decision/auth", "token login"), ("pattern/storage", "disk cache"))
        for n in range(5)
    }
    tree = CategoryTree.build(entries)
    start = query_class(tree, "login token", entries)
    assert start == "decision/auth"
    walked = page_index_walk(tree, "login token", entries=entries)
    assert page_index_walk(tree, "login token", entries=entries, start=start) == walked
    assert [p for p, _ in walked] == [f"decision/auth/{n}.md" for n in range(5)]
