"""PageIndex classification at ingest: an entry placed in the category tree before its commit.

The offline classifier compares the entry's terms with each category's centroid (how many of
the category's entries hold each term, weighted by the term's rarity) and takes the nearest
category of the entry's type, or opens a new leaf when none is near enough. The profile it
reads is a pure function of a tree, kept up to date by the changes between two trees, so a
classification costs the entry's terms, not the vault's size. ``Classifier`` is the narrow
protocol another backend (a configured LLM) implements."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from clawql_git.errors import StorageError
from clawql_git.index.builder import default_page_index_path
from clawql_git.index.categories import terms
from clawql_git.model.entry import Entry, slugify

if TYPE_CHECKING:
    from clawql_git.llm.chat import ChatEndpoint

ENTRY_TERMS = 96  # the entry's most frequent distinct terms (title, description, tags count 3x)
BODY_WORDS = 400  # the head of the body: where an entry says what it is about
FIT = 0.08  # below this cosine no category fits: a new leaf
RUNNERS_UP = 0.6  # categories within this fraction of the best are listed too
LABEL_BONUS = 0.2  # a category named by one of the entry's tags or title words
PROFILE_VERSION = 1


@dataclass(frozen=True)
class Classification:
    """Where an entry goes: its category path and the categories it matched (best first)."""

    path: str
    categories: tuple[str, ...]
    score: float
    new_leaf: bool = False

    def frontmatter(self) -> dict[str, Any]:
        """The keys written into the entry's frontmatter."""
        return {"page_index_path": self.path, "page_index_categories": list(self.categories)}


@dataclass
class CategoryProfile:
    """Term statistics per category of one tree (``tree``: its id, "" for the empty tree)."""

    tree: str = ""
    size: dict[str, int] = field(default_factory=dict)  # category -> entries
    sumsq: dict[str, int] = field(default_factory=dict)  # category -> sum of squared counts
    postings: dict[str, dict[str, int]] = field(default_factory=dict)  # term -> category -> n

    @property
    def docs(self) -> int:
        """Entries described."""
        return sum(self.size.values())

    def add(self, category: str, found: Iterable[str], sign: int = 1) -> None:
        """Count one entry in (``sign=-1``: out of) ``category``."""
        self.size[category] = self.size.get(category, 0) + sign
        sumsq = self.sumsq.get(category, 0)
        for term in found:
            cats = self.postings.setdefault(term, {})
            n = cats.get(category, 0)
            sumsq += (2 * n + 1) if sign > 0 else (1 - 2 * n)
            if n + sign:
                cats[category] = n + sign
            else:
                cats.pop(category, None)
                if not cats:
                    del self.postings[term]
        self.sumsq[category] = sumsq
        if self.size[category] <= 0:
            del self.size[category], self.sumsq[category]

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe form (derived state: stamped with the tree it describes)."""
        return {
            "version": PROFILE_VERSION,
            "tree": self.tree,
            "size": self.size,
            "sumsq": self.sumsq,
            "postings": self.postings,
        }

    @classmethod
    def from_json(cls, data: Any) -> CategoryProfile | None:
        """The profile saved by ``to_json``, or None when it is of another version or shape."""
        if not isinstance(data, dict) or data.get("version") != PROFILE_VERSION:
            return None
        try:
            return cls(str(data["tree"]), dict(data["size"]), dict(data["sumsq"]), data["postings"])
        except (KeyError, TypeError, ValueError):
            return None


class Classifier(Protocol):
    """Places an entry in the category tree the profile describes."""

    def classify(self, entry: Entry, profile: CategoryProfile) -> Classification:
        """The entry's category path and matched categories."""
        ...


def entry_terms(entry: Entry) -> frozenset[str]:
    """The terms that describe an entry: its catalog line (thrice) and the head of its body."""
    tags = " ".join(str(t) for t in entry.meta.get("tags") or [])
    catalog = terms(f"{entry.title} {entry.description} {tags}")
    body = terms(" ".join(entry.body.split()[:BODY_WORDS]))
    counts = Counter(body) + Counter(catalog * 3)
    return frozenset(t for t, _ in counts.most_common(ENTRY_TERMS) if not t.isdigit())


def profile_terms(entry: Entry) -> tuple[str, frozenset[str]]:
    """(category, terms) an entry adds to the profile: where it is filed, what it is about."""
    return default_page_index_path(entry), entry_terms(entry)


class TermClassifier:
    """The offline classifier: cosine between the entry's idf-weighted terms and each
    category's centroid, among the categories of the entry's type."""

    def classify(self, entry: Entry, profile: CategoryProfile) -> Classification:
        """The nearest category, or a new leaf ``type/<first tag or key term>``."""
        found = entry_terms(entry)
        ranked = _ranked(entry, found, profile)
        if not ranked or ranked[0][1] < FIT:
            leaf = new_leaf(entry, found, profile)
            close = tuple(c for c, s in ranked[:2] if s >= FIT / 2 and c != leaf)
            return Classification(leaf, (leaf, *close), ranked[0][1] if ranked else 0.0, True)
        best = ranked[0][1]
        near = tuple(c for c, s in ranked[:3] if s >= best * RUNNERS_UP)
        return Classification(ranked[0][0], near, best)


def _ranked(
    entry: Entry, found: frozenset[str], profile: CategoryProfile
) -> list[tuple[str, float]]:
    root = entry.type
    docs = max(profile.docs, 1)
    dot: dict[str, float] = {}
    norm = 0.0
    for term in found:
        cats = profile.postings.get(term)
        weight = math.log(1 + docs / sum(cats.values())) if cats else math.log(1 + docs)
        norm += weight * weight
        for cat, n in (cats or {}).items():
            if cat == root or cat.startswith(root + "/"):
                dot[cat] = dot.get(cat, 0.0) + weight * n
    if not dot:
        return []
    labels = found | {slugify(str(t)) for t in entry.meta.get("tags") or []}
    scores = {
        cat: value / (math.sqrt(norm) * math.sqrt(max(profile.sumsq.get(cat, 1), 1)))
        + LABEL_BONUS * bool(labels & set(terms(cat.rpartition("/")[2].replace("-", " "))))
        for cat, value in dot.items()
    }
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def new_leaf(entry: Entry, found: frozenset[str], profile: CategoryProfile) -> str:
    """A new category under the entry's type: its first tag, else its rarest title term."""
    tags = [slugify(str(t)) for t in entry.meta.get("tags") or [] if slugify(str(t))]
    if tags:
        return f"{entry.type}/{tags[0]}"
    title = [t for t in terms(entry.title) if not t.isdigit() and len(t) > 2] or sorted(found)
    if not title:
        return entry.type
    rarest = min(title, key=lambda t: (sum(profile.postings.get(t, {}).values()), title.index(t)))
    return f"{entry.type}/{slugify(rarest)}"


class ChatClassifier:
    """A configured LLM picks the category among the offline classifier's candidates (or
    names a new leaf under the entry's type); any failure of the endpoint, or an answer that
    is no category path, fails open to the offline answer."""

    CANDIDATES = 8

    def __init__(self, endpoint: ChatEndpoint, offline: Classifier | None = None) -> None:
        self.endpoint = endpoint
        self.offline = offline or TermClassifier()

    def classify(self, entry: Entry, profile: CategoryProfile) -> Classification:
        """The LLM's choice, else the offline classifier's."""
        fallback = self.offline.classify(entry, profile)
        ranked = [c for c, _ in _ranked(entry, entry_terms(entry), profile)]
        candidates = list(dict.fromkeys([*ranked[: self.CANDIDATES], *fallback.categories]))
        try:
            answer = self.endpoint.complete_json(_chat_prompt(entry, candidates))
        except StorageError:
            return fallback
        path = _category_path(answer.get("path"), entry.type)
        if path is None:
            return fallback
        extra = [c for c in answer.get("categories") or [] if isinstance(c, str)]
        cats = tuple(dict.fromkeys([path, *(c for c in extra if c in candidates)]))[:3]
        return Classification(path, cats, 1.0, path not in profile.size)


def _chat_prompt(entry: Entry, candidates: list[str]) -> list[dict[str, str]]:
    system = (
        "You file notes in a category tree. Answer one JSON object: "
        '{"path": "<category>", "categories": ["<best>", "<next>"]}. Pick from the '
        f"candidates, or name a new category '{entry.type}/<one-word-topic>' when none fits."
    )
    head = " ".join(entry.body.split()[:200])
    user = (
        f"Type: {entry.type}\nTitle: {entry.title}\nDescription: {entry.description}\n"
        f"Body: {head}\nCandidates: {', '.join(candidates) or '(none yet)'}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _category_path(value: Any, entry_type: str) -> str | None:
    """``value`` as a category path under ``entry_type`` (slug segments), or None."""
    if not isinstance(value, str):
        return None
    parts = [slugify(p) for p in value.strip().strip("/").split("/")]
    if len(parts) < 2 or parts[0] != slugify(entry_type) or not all(parts):
        return None
    return "/".join([entry_type, *parts[1:4]])
