"""Duplicates and contradictions at the door: the current entries a write repeats (same meaning,
other words) or disagrees with (same subject, another chosen option), found through the
derived index (its entry vectors and full-text search pick a few candidates, so the cost of a
check does not grow with the vault) and judged by ``model/claims.py``; and the clusters of
near-repeats a whole vault holds (``memory duplicates``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from clawql_git.errors import ClawqlError, NotFound
from clawql_git.model import claims
from clawql_git.model.claims import Match
from clawql_git.model.paths import is_entry_path

if TYPE_CHECKING:
    from clawql_git.config import Settings
    from clawql_git.gitstore import GitStore, Tree
    from clawql_git.index.store import SearchIndex
    from clawql_git.model.entry import Entry
    from clawql_git.recall.service import RecallService
    from clawql_git.vault.reader import Reader

CANDIDATES = 8  # entries each search layer proposes for a check
# Entries written since the index's commit are judged directly (the write path does not catch
# the index up: that costs LanceDB writes on every ingest); past this many it is caught up.
GAP_MAX = 64
CLUSTER_COSINE = 0.5  # entry-vector cosine below which two entries are not compared at all
NO_INDEX = "duplicates not checked: the vault has no search index yet (any recall builds it)"


class Vault(Protocol):
    """What the detector needs of a vault (``clawql_git.Vault``)."""

    store: GitStore
    settings: Settings
    reader: Reader

    def recall_service(self) -> RecallService: ...


@dataclass(frozen=True)
class Findings:
    """What a check found; ``note`` says why it could not run ("" when it ran)."""

    duplicates: tuple[Match, ...] = ()
    contradictions: tuple[Match, ...] = ()
    note: str = ""


def entry_text(entry: Entry) -> str:
    """The text of an entry that is compared."""
    return claims.text_of(entry.title, entry.description, entry.body)


class Detector:
    """Judges entries against the current entries of one vault."""

    def __init__(self, vault: Vault, threshold: float | None = None) -> None:
        self.vault = vault
        self.threshold = vault.settings.duplicate_threshold if threshold is None else threshold

    def index(self, build: bool = False) -> SearchIndex | None:
        """HEAD's index, caught up; None when there is none and ``build`` is off."""
        service = self.vault.recall_service()
        stamp = service.index.stamp()
        if not build and (stamp is None or not service.index.compatible(stamp)):
            return None
        service.ensure()
        return service.index

    def check(self, entry: Entry, tree: Tree | None) -> Findings:
        """The current entries of ``tree`` that ``entry`` repeats or contradicts, best first.
        Fails open: without an index, or when it cannot be read, the note says so."""
        try:
            index, gap = self._usable(tree)
            if index is None:
                return Findings(note=NO_INDEX)
            text = entry_text(entry)
            vectors = _Vectors(index)
            paths = dict.fromkeys([*self._candidates(index, entry, text, vectors), *gap])
            olds = [o for o in (self._current(tree, p, entry.path) for p in paths) if o]
        except ClawqlError as exc:
            return Findings(note=f"duplicates not checked: {exc}")
        return _findings(entry, self._judged(text, olds, vectors))

    def _usable(self, tree: Tree | None) -> tuple[SearchIndex | None, list[str]]:
        """The index as it is and the entries written since its commit (caught up first when
        there are more than GAP_MAX of them); (None, []) when there is no usable index."""
        service = self.vault.recall_service()
        stamp = service.index.stamp()
        if stamp is None or not service.index.compatible(stamp):
            return None, []
        store = self.vault.store
        changed = store.diff_paths(store.tree_of(stamp.commit), tree)
        gap = [p for p, _, new in changed if new and is_entry_path(p)]
        if len(gap) > GAP_MAX:
            service.ensure()
            gap = []
        return service.index, gap

    def _judged(
        self, text: str, olds: list[Entry], vectors: _Vectors
    ) -> list[tuple[Entry, claims.Verdict]]:
        """Each candidate with its verdict (one embedding call for all of them)."""
        texts = [entry_text(o) for o in olds]
        rows = vectors.of([text, *texts]) if olds else None
        out = []
        for n, (old, old_text) in enumerate(zip(olds, texts, strict=True)):
            cosine = None if rows is None else float(rows[0] @ rows[n + 1])
            out.append((old, claims.judge(text, old_text, cosine, self.threshold)))
        return out

    def _candidates(
        self, index: SearchIndex, entry: Entry, text: str, vectors: _Vectors
    ) -> list[str]:
        loaded = index.loaded()
        rows = loaded.entries
        paths: list[str] = []
        qvec = vectors.of([text])
        if qvec is not None and loaded.entry_vectors is not None and len(loaded.entry_order):
            from clawql_git.index.topk import matvec, top_indices

            sims = matvec(loaded.entry_vectors, qvec[0])
            paths += [loaded.entry_order[i] for i in top_indices(sims, CANDIDATES)]
        words = " ".join(sorted(claims.terms(claims.text_of(entry.title, entry.description, ""))))
        if words:
            paths += [hit.path for hit in index.fts(words, CANDIDATES, "status = 'current'")]
        return [p for p in dict.fromkeys(paths) if _eligible(rows.get(p), entry.path)]

    def _current(self, tree: Tree | None, path: str, own: str) -> Entry | None:
        """The entry at ``path`` in ``tree`` when it is a current entry other than ``own``."""
        if path == own:
            return None
        try:
            old = self.vault.reader.load(tree, path)
        except NotFound:
            return None
        if old.status != "current" or old.meta.get("pii_classification") == "PHI":
            return None
        return old

    def clusters(self, build: bool = True) -> list[Cluster]:
        """Groups of current entries that repeat one another (pairs at or above the threshold,
        joined transitively), largest first."""
        index = self.index(build=build)
        head = self.vault.store.head_commit()
        tree = head.tree if head is not None else None
        entries = {
            e.path: e
            for e in self.vault.reader.load_all(tree)
            if e.status == "current" and e.meta.get("pii_classification") != "PHI"
        }
        vectors = _Vectors(index) if index is not None else None
        pairs = []
        for a, b in _pairs_to_compare(index, sorted(entries)):
            if a in entries and b in entries:
                ta, tb = entry_text(entries[a]), entry_text(entries[b])
                cosine = vectors.cosine(ta, tb) if vectors is not None else None
                verdict = claims.judge(ta, tb, cosine, self.threshold)
                if verdict.duplicate:
                    pairs.append((a, b, verdict.score))
        return _join(pairs, entries)


@dataclass(frozen=True)
class Cluster:
    """Entries that repeat one another, with the best score that joined each pair."""

    paths: tuple[str, ...]
    titles: tuple[str, ...]
    score: float

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        entries = [{"path": p, "title": t} for p, t in zip(self.paths, self.titles, strict=True)]
        return {"entries": entries, "score": round(self.score, 3)}


class _Vectors:
    """Embeddings of compared texts, through the index's content-hash vector cache."""

    def __init__(self, index: SearchIndex) -> None:
        self.embedder = index.embedder
        self.cache_path = index.cache_path
        self._cache: Any = None

    def of(self, texts: Sequence[str]) -> Any:
        if self.embedder is None:
            return None
        from clawql_git.index.vector_cache import VectorCache

        if self._cache is None:
            self._cache = VectorCache(self.cache_path)
        try:
            return self._cache.embed(self.embedder, [claims.embed_text(t) for t in texts])
        except ClawqlError:
            return None  # fail open: terms alone

    def cosine(self, a: str, b: str) -> float | None:
        rows = self.of([a, b])
        return None if rows is None else float(rows[0] @ rows[1])


def _eligible(row: dict[str, Any] | None, own: str) -> bool:
    return (
        row is not None
        and row["path"] != own
        and row["status"] == "current"
        and row["pii"] != "PHI"
    )


def _findings(entry: Entry, found: list[tuple[Entry, claims.Verdict]]) -> Findings:
    found.sort(key=lambda pair: (-pair[1].score, pair[0].path))
    duplicates = tuple(Match(e.path, e.title, v.score) for e, v in found if v.duplicate)
    contradictions = tuple(
        Match(e.path, e.title, v.score, v.contradiction)
        for e, v in found
        if v.contradiction and e.type == entry.type
    )
    return Findings(duplicates, contradictions)


def _pairs_to_compare(index: SearchIndex | None, paths: list[str]) -> Iterable[tuple[str, str]]:
    """Pairs of entries worth judging: those whose entry vectors are close (every pair when
    there are no vectors)."""
    loaded = index.loaded() if index is not None else None
    if loaded is None or loaded.entry_vectors is None:
        for n, a in enumerate(paths):
            for b in paths[n + 1 :]:
                yield a, b
        return
    import numpy as np

    order = loaded.entry_order
    sims = loaded.entry_vectors @ loaded.entry_vectors.T
    for i, j in zip(*np.nonzero(np.triu(sims, 1) >= CLUSTER_COSINE), strict=True):
        yield order[int(i)], order[int(j)]


def _join(pairs: list[tuple[str, str, float]], entries: dict[str, Entry]) -> list[Cluster]:
    parent: dict[str, str] = {}

    def root(p: str) -> str:
        while parent.get(p, p) != p:
            p = parent[p]
        return p

    best: dict[str, float] = {}
    for a, b, _ in pairs:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        parent[root(a)] = root(b)
    for a, _, score in pairs:
        best[root(a)] = max(best.get(root(a), 0.0), score)
    groups: dict[str, list[str]] = {}
    for p in parent:
        groups.setdefault(root(p), []).append(p)
    out = [
        Cluster(tuple(sorted(g)), tuple(entries[p].title for p in sorted(g)), best[r])
        for r, g in groups.items()
    ]
    return sorted(out, key=lambda c: (-len(c.paths), -c.score, c.paths))
