"""The catalog survey at a glance (``index_summary`` of a recall answer): how many entries and
under which top categories, how many catalog lines carry each query term, and where the hits
sit. Cheap by construction: no pass over the entries per query."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from clawql_git.index.categories import CategoryTree, terms

SUMMARY_CATEGORIES = 8


def index_summary(
    tree: CategoryTree | None, entries: dict[str, Any], hits: Sequence[Any], text: str
) -> dict[str, Any]:
    """The summary; without a category tree (a backend that does not build one: fts, vector,
    hybrid) only the counts the rows give for free."""
    in_hits = Counter(
        str(entries[h.path]["page_index_path"]).split("/")[0] for h in hits if h.path in entries
    )
    summary: dict[str, Any] = {
        "entries": len(entries),
        "hit_categories": dict(in_hits.most_common(SUMMARY_CATEGORIES)),
    }
    if tree is not None:
        top = sorted(tree.children.get("", []), key=lambda n: (-len(tree.members[n]), n))
        summary["categories"] = {n: len(tree.members[n]) for n in top[:SUMMARY_CATEGORIES]}
        summary["catalog_terms"] = {
            t: len(tree.postings.get(t, ())) for t in dict.fromkeys(terms(text))
        }
    return summary
