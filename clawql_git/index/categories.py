"""The category tree (PageIndex without embeddings): the entries under each page_index_path
node, the terms the walk compares, and the walk itself; patched in place after a write."""

from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

POOL = 40
WIDTH = 200  # entries per node whose catalog terms describe the node
BIG = 2_000  # scores past which best_first compares them in numpy
MEMO_MAX = 4_096  # terms whose per-category counts a tree keeps (a few hundred bytes each)
WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "should",
        "that",
        "the",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
    ]
)


def terms(text: str) -> list[str]:
    """Lowercase word terms without stop words, lightly stemmed (for the tree walk)."""
    return [_stem(w) for w in WORD.findall(text.lower()) if w not in _STOP]


@lru_cache(maxsize=1 << 17)  # a vault's vocabulary: 1.5M words at 100,000 entries, few distinct
def _stem(word: str) -> str:
    for suffix in ("ings", "ing", "ies", "ied", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def category_tree(entries: dict[str, Any]) -> dict[str, list[str]]:
    """category path -> entry paths under it (every level of the tree)."""
    tree: dict[str, list[str]] = defaultdict(list)
    for path, row in entries.items():
        parts = [p for p in str(row["page_index_path"]).split("/") if p]
        for depth in range(1, len(parts) + 1):
            tree["/".join(parts[:depth])].append(path)
        tree[""].append(path)
    return tree


@dataclass(frozen=True)
class CategoryTree:
    """The page-index tree of a loaded index, with the term sets the walk compares."""

    members: dict[str, list[str]]  # node -> entry paths under it
    children: dict[str, list[str]]  # node -> child nodes
    labels: dict[str, frozenset[str]]  # node -> terms of its name
    words: dict[str, frozenset[str]]  # node -> terms of its entries' catalog lines
    entry_terms: dict[str, frozenset[str]]
    postings: dict[str, list[str]]  # term -> entries whose catalog line has it
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(
        cls, entries: dict[str, Any], cache: dict[str, tuple[str, frozenset[str]]] | None = None
    ) -> CategoryTree:
        """The tree of ``entries``; ``cache`` (path -> (catalog line, its terms)) is read and
        refreshed, so a rebuild after a write stems only the changed entries' lines."""
        members = category_tree(entries)
        entry_terms = _entry_terms(entries, {} if cache is None else cache)
        words = {n: _words(ps, entry_terms) for n, ps in members.items()}
        labels = {n: _label(n) for n in members}
        postings: dict[str, list[str]] = defaultdict(list)
        for path, found in entry_terms.items():
            for term in found:
                postings[term].append(path)
        return cls(members, _children(members), labels, words, entry_terms, dict(postings))

    def patched(self, entries: dict[str, Any], touched: set[str]) -> CategoryTree:
        """This tree after the entries in ``touched`` changed or went, updated in place.
        ``entries`` must list the rewritten ones last (the order a refresh keeps), which is
        where a fresh build puts them in every member and posting list too."""
        self.memo.clear()
        affected: set[str] = set()
        for path in touched & self.entry_terms.keys():
            for node in (n for n, ps in self.members.items() if path in ps):
                self.members[node].remove(path)
                affected.add(node)
            for term in self.entry_terms.pop(path):
                self.postings[term].remove(path)
                if not self.postings[term]:
                    del self.postings[term]
        for path in (p for p in entries if p in touched):
            row = entries[path]
            for node in _nodes(row["page_index_path"]):
                self.members.setdefault(node, []).append(path)
                affected.add(node)
            self.entry_terms[path] = found = frozenset(terms(row["catalog"]))
            for term in found:
                self.postings.setdefault(term, []).append(path)
        for node in affected:
            if self.members[node]:
                self.words[node] = _words(self.members[node], self.entry_terms)
                self.labels.setdefault(node, _label(node))
            else:
                del self.members[node], self.words[node], self.labels[node]
        children = _children(self.members)
        self.children.clear()
        self.children.update(children)
        return self

    def term_weights(self, query: str) -> dict[str, float]:
        """entry -> the sum of the idf of the query's terms its catalog line holds (rarer
        terms weigh more), kept for the last query: the catalog layer and the query's class
        both read it, and at 100,000 entries a common term's posting has thousands."""
        known = self.memo.get("weights")
        if known is not None and known[0] == query:
            weights: dict[str, float] = known[1]
            return weights
        total = max(len(self.entry_terms), 1)
        weights = {}
        for term in set(terms(query)):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1 + total / len(posting))
            if not weights:
                weights = dict.fromkeys(posting, idf)
                continue
            get = weights.get
            for path in posting:
                weights[path] = get(path, 0.0) + idf
        self.memo["weights"] = (query, weights)
        return weights

    def category_counts(self, term: str, entries: Mapping[str, Any]) -> dict[str, int]:
        """page_index_path -> how many entries under it have ``term`` in their catalog line
        (``entries``: the rows this tree was made of; kept per term)."""
        key = f"cats:{term}"
        found: dict[str, int] | None = self.memo.get(key)
        if found is None:
            found = defaultdict(int)
            for path in self.postings.get(term, ()):
                row = entries.get(path)
                if row is not None:
                    found[row["page_index_path"]] += 1
            if len(self.memo) >= MEMO_MAX:
                self.memo.clear()
            self.memo[key] = found = dict(found)
        return found

    def catalog_survey(self, query: str) -> list[tuple[str, float]]:
        """The catalog layer: entries whose catalog line (title, description, tags) shares the
        query's terms, rarer terms weighing more (idf); best first, ties by path (kept for
        the last query)."""
        known = self.memo.get("survey")
        if known is None or known[0] != query:
            known = self.memo["survey"] = (query, best_first(self.term_weights(query), POOL))
        survey: list[tuple[str, float]] = known[1]
        return survey

    def score(self, node: str, want: set[str]) -> float:
        size = len(self.members[node])
        return 2.0 * len(want & self.labels[node]) + len(want & self.words[node]) / (
            1.0 + math.sqrt(size)
        )


@lru_cache(maxsize=1 << 12)  # a vault has few distinct category paths
def _nodes(page_index_path: str) -> tuple[str, ...]:
    """The tree nodes an entry is under: every prefix of its path, and the root."""
    parts = [p for p in str(page_index_path).split("/") if p]
    return (*("/".join(parts[:depth]) for depth in range(1, len(parts) + 1)), "")


def best_first(scores: dict[str, float], limit: int) -> list[tuple[str, float]]:
    """``sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]`` without sorting
    every item: the ``limit``-th best score is found first, then only what is above it is
    sorted, and the paths tied at it are taken in path order."""
    if len(scores) > BIG:
        return _best_first_arrays(scores, limit)
    top = heapq.nlargest(limit, scores.values())
    if not top:
        return []
    cut = top[-1]
    above = sorted(((p, s) for p, s in scores.items() if s > cut), key=lambda kv: (-kv[1], kv[0]))
    tied = heapq.nsmallest(limit - len(above), (p for p, s in scores.items() if s == cut))
    return above + [(p, cut) for p in tied]


def _best_first_arrays(scores: dict[str, float], limit: int) -> list[tuple[str, float]]:
    """:func:`best_first` of many scores: the comparisons with the cut run in numpy."""
    import numpy as np

    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    cut = float(np.partition(values, len(values) - limit)[len(values) - limit])
    paths = list(scores)
    above = sorted(
        ((paths[i], float(values[i])) for i in np.flatnonzero(values > cut).tolist()),
        key=lambda kv: (-kv[1], kv[0]),
    )
    tied = heapq.nsmallest(limit - len(above), (paths[i] for i in np.flatnonzero(values == cut)))
    return above + [(p, cut) for p in tied]


def _children(members: dict[str, list[str]]) -> dict[str, list[str]]:
    """node -> child nodes, sorted (so a tree patched after writes equals a fresh one)."""
    children: dict[str, list[str]] = defaultdict(list)
    for node in sorted(members):
        if node:
            children[node.rpartition("/")[0]].append(node)
    return dict(children)


def _words(paths: list[str], entry_terms: dict[str, frozenset[str]]) -> frozenset[str]:
    return frozenset().union(*(entry_terms[p] for p in paths[:WIDTH]))


def _label(node: str) -> frozenset[str]:
    return frozenset(terms(node.replace("/", " ").replace("_", " ")))


def _entry_terms(
    entries: dict[str, Any], cache: dict[str, tuple[str, frozenset[str]]]
) -> dict[str, frozenset[str]]:
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for path, row in entries.items():
        known = cache.get(path)
        if known is None or known[0] != row["catalog"]:
            known = (row["catalog"], frozenset(terms(row["catalog"])))
        out[path] = known
    cache.clear()
    cache.update(out)
    return {p: found for p, (_, found) in out.items()}


def query_class(tree: CategoryTree, query: str, entries: Mapping[str, Any]) -> str:
    """The query's classification: the category (not the root) whose entries' catalog lines
    hold the query's terms best, rarer terms weighing more, per square root of its size, and
    a category named by a query term ahead; "" when no entry shares a term."""
    want = set(terms(query))
    total = max(len(tree.entry_terms), 1)
    by_category: dict[str, float] = defaultdict(float)
    for term in want:
        posting = tree.postings.get(term)
        if not posting:
            continue
        idf = math.log(1 + total / len(posting))
        for category, count in tree.category_counts(term, entries).items():
            by_category[category] += idf * count
    scores: dict[str, float] = defaultdict(float)
    for category, w in by_category.items():
        for node in _nodes(category)[:-1]:
            scores[node] += w
    if not scores:
        return ""
    best = max(scores.values())

    def rank(node: str) -> tuple[float, int, str]:
        named = best * len(want & tree.labels.get(node, frozenset()))
        size = len(tree.members.get(node, ())) or 1
        # to 10 significant digits: categories with as many matching entries tie whatever
        # order their idf sums were added in, and the deeper, then the later name wins
        score = float(f"{(scores[node] + named) / math.sqrt(size):.10g}")
        return score, node.count("/"), node

    return max(scores, key=rank)


def page_index_walk(
    tree: CategoryTree,
    query: str,
    width: int = 2,
    entries: Mapping[str, Any] | None = None,
    start: str | None = None,
) -> list[tuple[str, float]]:
    """Walk the category tree level by level towards the query, from the query's own
    classification when ``entries`` (the rows, for their categories) are given, else from the
    root; score what the walk reaches. Needs no embedding model. ``start`` is the query's
    classification when the caller has it already (``query_class`` of the same tree, query
    and entries)."""
    want = set(terms(query))
    if not want:
        return []
    if start is None:
        start = query_class(tree, query, entries) if entries is not None else ""
    scored = _reached_scores(tree, want, _walk(tree, want, start, width))
    if not scored and start:  # nothing under the class shares a term: walk from the root
        scored = _reached_scores(tree, want, _walk(tree, want, "", width))
    return scored[:POOL]


def _walk(tree: CategoryTree, want: set[str], start: str, width: int) -> set[str]:
    """The entries a walk from ``start`` down the ``width`` best children of each level reaches."""
    frontier = [start]
    reached: set[str] = set(tree.members.get(start, ())) if start else set()
    while frontier:
        kids = [c for parent in frontier for c in tree.children.get(parent, [])]
        ranked = sorted(((c, tree.score(c, want)) for c in kids), key=lambda kv: -kv[1])
        frontier = [c for c, s in ranked[:width] if s > 0]
        for node in frontier:
            reached.update(tree.members[node])
    return reached


def _reached_scores(
    tree: CategoryTree, want: set[str], reached: set[str]
) -> list[tuple[str, float]]:
    overlap: dict[str, int] = defaultdict(int)
    for term in want:
        for path in reached.intersection(tree.postings.get(term, ())):
            overlap[path] += 1
    return best_first({p: n / len(want) for p, n in overlap.items()}, POOL)
