"""The recall pipeline: catalog survey, full-text, vectors, the category tree and link traversal,
fused, reranked, thresholded and fitted to a token budget."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from clawql_git.errors import InvalidInput, StorageError
from clawql_git.index.categories import POOL, WORD, CategoryTree, page_index_walk, query_class
from clawql_git.index.chunking import estimate_tokens
from clawql_git.index.graph import GraphState
from clawql_git.index.lance import quote
from clawql_git.index.resident import Resident
from clawql_git.index.store import Hit, SearchIndex
from clawql_git.index.topk import top_indices
from clawql_git.links import NoteInfo
from clawql_git.model.entry import parse_timestamp
from clawql_git.recall import cosines, freshness, turns
from clawql_git.recall.ranker import RankContext
from clawql_git.recall.ranker import rerank as rerank_candidates
from clawql_git.recall.standing import weigh_standing
from clawql_git.recall.survey import index_summary

if TYPE_CHECKING:
    import numpy as np

BACKENDS = ("auto", "hybrid", "fts", "vector", "page_index")
# Layer weights for the fusion. Full-text, catalog, category-tree and link scores are divided
# by their layer's best; the two vector layers are weighed by every candidate's real cosines,
# standardised over the whole index (recall/cosines.py), so their weights are per standard
# deviation. Chosen with bench/recall_heldout.py on the tuning halves of both kinds (decision
# records, conversation turns); catalog and category-tree matches mostly repeat the title
# (already prefixed to every chunk) and pulled wrong records up, so they only break ties.
WEIGHTS = {
    "fts": 1.0,
    "vector": 0.05,
    "entry_vector": 0.15,
    "catalog": 0.03,
    "page_index": 0.03,
    "links": 0.25,
}
VECTOR_LAYERS = ("vector", "entry_vector")
# FTS is asked without LanceDB's prefilter (which costs a scan of the filter columns) when the
# only filter is "not retracted, not PHI": it then fetches as many extra chunks as those hide,
# and the hidden ones are dropped, which leaves the same top chunks. Past this many hidden
# chunks the prefilter is cheaper.
POSTFILTER_MAX = 400
LINK_SEEDS = 5
SUPERSEDED = 0.8  # the share of its score a superseded entry keeps
LINK_DECAY = 0.5
# The default backend's candidates are ordered by the learned ranker (recall/ranker.py) when
# the query has a vector; bench/recall_heldout.py turns it off for its "fusion" column.
LEARNED_RANKER = True
TURN_CONTEXT = True  # conversation turns read beside their neighbours (recall/turns.py)


@dataclass(frozen=True)
class RecallQuery:
    """A recall request."""

    text: str
    limit: int = 10
    max_tokens: int = 2000
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    project: str | None = None
    agent: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    backend: str = "auto"
    allow_pii: bool = False
    min_score: float = 0.25  # relative to the best hit
    use_cache: bool = True

    def __post_init__(self) -> None:
        if self.limit < 1 or self.max_tokens < 1:
            raise InvalidInput("limit and max_tokens must be at least 1")
        if not 0 <= self.min_score <= 1:  # NaN too: every comparison with it is false
            raise InvalidInput(f"min_score must be in 0..1, got {self.min_score!r}")

    def cache_key(self) -> str:
        """Everything but the text that changes the answer."""
        parts = [
            self.limit,
            self.max_tokens,
            self.types,
            self.tags,
            self.project,
            self.agent,
            self.since,
            self.until,
            self.backend,
            self.allow_pii,
            self.min_score,
        ]
        return repr(parts)


class RecallOptions(TypedDict, total=False):
    """``RecallQuery`` fields but the text, as keyword arguments of ``Vault.recall``."""

    limit: int
    max_tokens: int
    types: tuple[str, ...]
    tags: tuple[str, ...]
    project: str | None
    agent: str | None
    since: datetime | None
    until: datetime | None
    backend: str
    allow_pii: bool
    min_score: float
    use_cache: bool


@dataclass(frozen=True)
class RecallHit:
    """One entry returned by recall."""

    path: str
    title: str
    type: str
    score: float
    layers: tuple[str, ...]
    worm_ref: str
    snippet: str
    tokens: int
    frontmatter: dict[str, Any]
    superseded_by: str = ""
    # Which layer of the one list it comes from: "vault", "code" (the code graph), "onyx".
    source_layer: str = "vault"
    citation: dict[str, Any] | None = None  # where an external hit comes from
    code_stale: tuple[dict[str, Any], ...] = ()  # anchored code changed (recall/code_labels.py)
    labels: tuple[str, ...] = ()  # "superseded", "expired", "review due" (recall/freshness.py)

    def to_record(self) -> dict[str, Any]:
        extra = {"citation": self.citation} if self.citation is not None else {}
        return {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "score": round(self.score, 4),
            "layers": list(self.layers),
            "worm_ref": self.worm_ref,
            "snippet": self.snippet,
            "tokens": self.tokens,
            "superseded_by": self.superseded_by or None,
            "labels": list(self.labels),
            "code_stale": list(self.code_stale),
            "frontmatter": self.frontmatter,
            "source_layer": self.source_layer,
            **extra,
        }


@dataclass
class RecallResult:
    """What recall answers: hits and how it got them."""

    query: str
    hits: list[RecallHit]
    layers: list[str]
    total_tokens: int
    truncated: bool
    commit: str
    cache_hit: bool = False
    index_note: str = ""
    candidates: int = 0
    audit_ref: str = ""
    # Layers that could not run and why ({"layer": ..., "reason": ...}): recall fails open.
    skipped_layers: list[dict[str, str]] = field(default_factory=list)
    # Derived state that did not match the commit and was dropped or rebuilt, not served.
    warnings: list[str] = field(default_factory=list)
    # The vault's catalog at a glance for this query (``recall/survey.py``).
    index_summary: dict[str, Any] = field(default_factory=dict)
    # The category the page-index walk started from (the query's classification), "" if none.
    page_index_class: str = ""

    def to_record(self, one_list: bool = True) -> dict[str, Any]:
        """The answer as JSON; ``one_list=False`` leaves out the seed-shaped fields (``entries``
        repeats ``hits``), as the answer cache stores it."""
        hits = [h.to_record() for h in self.hits]
        record = {
            "query": self.query,
            "commit": self.commit,
            "worm_ref": f"git:{self.commit}",
            "layers": self.layers,
            "total_tokens": self.total_tokens,
            "truncated": self.truncated,
            "cache_hit": self.cache_hit,
            "index": self.index_note or None,
            "candidates": self.candidates,
            "skipped_layers": self.skipped_layers,
            "warnings": self.warnings,
            "hits": hits,
            "index_summary": self.index_summary,
            "page_index_class": self.page_index_class or None,
        }
        if one_list:  # the seed's shape: one list across layers, the catalog, the token cost
            record.update(entries=hits, token_cost=self.total_tokens)
        return record


@dataclass
class _Candidate:
    scores: dict[str, float] = field(default_factory=dict)
    chunk: int = 0
    chunk_score: float = -1.0
    snippet: str = ""
    # (best chunk, whole entry) cosines with the query, whether or not a vector layer's pool
    # held the entry; their deviations above the index's mean feed the fusion
    cosines: tuple[float, float] | None = None
    standard: tuple[float, float] = (0.0, 0.0)

    def add(self, layer: str, score: float, chunk: int | None = None, snippet: str = "") -> None:
        if score > self.scores.get(layer, -1.0):
            self.scores[layer] = score
        if chunk is not None and layer in ("fts", "vector") and score > self.chunk_score:
            self.chunk, self.chunk_score, self.snippet = chunk, score, snippet


class Recaller:
    """Runs recall queries against one SearchIndex."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self._class: tuple[Resident, str, str] | None = None  # rows, query, its class
        self._pending: tuple[RecallQuery, Callable[[], list[Hit]]] | None = None  # prefetch

    def query_class(self, text: str) -> str:
        """The query's classification in the category tree of the resident rows (worked out
        once per rows and query: the page-index walk starts there and the answer names it)."""
        loaded = self.index.loaded()
        memo = self._class
        if memo is None or memo[0] is not loaded or memo[1] != text:
            memo = self._class = (loaded, text, query_class(self.tree(), text, loaded.entries))
        return memo[2]

    def layers_for(self, backend: str, skip: Iterable[str] = ()) -> list[str]:
        """The layers a backend runs, without those in ``skip`` (layers that cannot run)."""
        if backend not in BACKENDS:
            raise InvalidInput(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        vectors = ["vector", "entry_vector"] if self.index.embedder is not None else []
        vectors = [layer for layer in vectors if layer not in set(skip)]
        if backend == "fts":
            return ["fts"]
        if backend == "vector":
            return vectors
        if backend == "page_index":
            return ["page_index"]
        if backend == "hybrid":
            return ["fts", *vectors]
        return ["catalog", "fts", "page_index", "links", *vectors]

    def search(
        self,
        q: RecallQuery,
        qvec: Any = None,
        skipped: Sequence[dict[str, str]] = (),
        need: int | None = None,
    ) -> tuple[list[tuple[str, _Candidate, float]], list[str]]:
        """Fused, reranked candidates (path, candidate, score) and the layers that ran.
        ``qvec`` is the query's embedding when the caller already has it; ``skipped`` names
        layers that cannot run now, and why. With ``need``, only the ``need`` first are in
        their final order (the rest follow, each below them: ``freshness.reweigh``)."""
        if not q.text.strip():
            raise InvalidInput("recall needs a non-empty query")
        layers = self.layers_for(q.backend, [s["layer"] for s in skipped])
        if q.backend == "vector" and not layers and skipped:
            raise StorageError(f"the vector backend cannot run: {skipped[0]['reason']}")
        if q.backend == "vector" and not layers:
            raise InvalidInput("the vector backend needs an embedding model (none is configured)")
        loaded = self.index.loaded()
        where = _where(q)
        cands: dict[str, _Candidate] = defaultdict(_Candidate)
        embedder = self.index.embedder
        if "vector" not in layers or embedder is None:
            qvec = None
        elif qvec is None:
            qvec = embedder.embed_query(q.text)
        sims = self._first_pass(q, layers, where, qvec, cands)
        if "page_index" in layers:
            tree = self.tree()
            start = self.query_class(q.text)
            for path, score in page_index_walk(tree, q.text, entries=loaded.entries, start=start):
                cands[path].add("page_index", score)
        allowed = {p for p in cands if passes(loaded.entries.get(p), q)}
        scored = _fuse(_with_cosines({p: cands[p] for p in allowed}, sims, loaded))
        if "links" in layers:
            self._links(scored, cands, q)
            allowed = {p for p in cands if passes(loaded.entries.get(p), q)}
            scored = _fuse(_with_cosines({p: cands[p] for p in allowed}, sims, loaded))
        ctx = None
        if LEARNED_RANKER and q.backend == "auto" and qvec is not None:
            ctx = RankContext(q.text, qvec, loaded)
        ranked = weigh_standing(_rerank(scored, cands, loaded.entries, ctx), loaded)
        policy = freshness.policy_of(self.index.store)
        ranked = freshness.reweigh(ranked, loaded.entries, policy, need)
        if TURN_CONTEXT and q.backend == "auto":
            entries = loaded.entries
            ranked = turns.reweigh(
                ranked, turns.neighbours(loaded, ranked), lambda p: passes(entries.get(p), q), _turn
            )
        return ranked, layers

    def _first_pass(
        self,
        q: RecallQuery,
        layers: list[str],
        where: str,
        qvec: Any,
        cands: dict[str, _Candidate],
    ) -> cosines.Similarities | None:
        """Each layer's candidates into ``cands``; the query's similarities when it has a
        vector."""
        if "catalog" in layers:
            tree = self.tree()
            for path, score in tree.catalog_survey(q.text):
                cands[path].add("catalog", score)
        if "fts" in layers:
            for hit in self._fts(q, where):
                cands[hit.path].add("fts", hit.score, hit.chunk, hit.snippet)
        if qvec is None:
            return None
        sims = cosines.of_query(self.index.loaded(), qvec)
        allow = self._allow(q)
        chunk_sims = None if sims is None else sims.chunk
        for hit in self.index.vector_in_memory(qvec, POOL * 2, allow, chunk_sims):
            cands[hit.path].add("vector", max(hit.score, 0.0), hit.chunk, hit.snippet)
        if sims is not None and sims.entry is not None:
            for path, score in self._entry_vectors(sims.entry, allow):
                cands[path].add("entry_vector", score)
        return sims

    def _allow(self, q: RecallQuery) -> Callable[[str], bool] | None:
        """For a filtered query: the entries it may return (the vector layers then rank only
        those, as the FTS layer's prefilter does for type, project and agent)."""
        if not (q.types or q.project or q.agent or q.tags or q.since or q.until):
            return None
        entries = self.index.loaded().entries
        return lambda path: passes(entries.get(path), q)

    def prefetch(self, q: RecallQuery) -> None:
        """Start what the first pass of ``q`` needs that needs no query vector, while the
        question is embedded on another thread: the full-text search (on LanceDB's loop
        thread) and the catalog survey and query class (here). A query the pipeline would
        refuse is left for it to refuse."""
        if q.backend not in BACKENDS or not q.text.strip():
            return
        layers = self.layers_for(q.backend)
        if "fts" in layers:
            self._pending = (q, self._fts_later(q, _where(q)))
        if "catalog" in layers:
            self.tree().catalog_survey(q.text)
        if "page_index" in layers:
            self.query_class(q.text)

    def _fts(self, q: RecallQuery, where: str) -> list[Hit]:
        """The FTS layer's top chunks among those ``where`` allows (started by
        :meth:`prefetch` when it ran for this query)."""
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] is q:
            return pending[1]()
        return self._fts_later(q, where)()

    def _fts_later(self, q: RecallQuery, where: str) -> Callable[[], list[Hit]]:
        if q.types or q.project or q.agent:
            return _fts_call(self.index, q.text, POOL * 2, where)
        loaded = self.index.loaded()
        hidden = loaded.memo(f"hidden-{q.allow_pii}", lambda: _hidden(loaded, q.allow_pii))
        if hidden[1] > POSTFILTER_MAX:
            return _fts_call(self.index, q.text, POOL * 2, where)
        pending = _fts_call(self.index, q.text, POOL * 2 + hidden[1], None)
        return lambda: [h for h in pending() if h.path not in hidden[0]][: POOL * 2]

    def tree(self) -> CategoryTree:
        """The category tree of the resident rows (built or patched on first use)."""
        loaded = self.index.loaded()
        tree: CategoryTree = loaded.memo("tree", lambda: _build_tree(loaded))
        return tree

    def _entry_vectors(
        self, sims: np.ndarray, allow: Callable[[str], bool] | None
    ) -> list[tuple[str, float]]:
        """The pool of entries whose whole-entry vectors are nearest (``sims``: the query's
        cosine with each, in ``entry_order``)."""
        order = self.index.loaded().entry_order
        ok = None if allow is None else (lambda i: allow(order[i]))
        return [(order[i], float(max(sims[i], 0.0))) for i in top_indices(sims, POOL, ok)]

    def _links(
        self, scored: list[tuple[str, float]], cands: dict[str, _Candidate], q: RecallQuery
    ) -> None:
        top = [(path, score) for path, score in scored[:LINK_SEEDS] if score > 0]
        if not top:  # no seed with any evidence: nothing to spread along the links
            return
        graph = self.link_graph()
        best = top[0][1]
        for path, score in top:
            for hop, neighbour in _neighbours(graph, path, 2):
                weight = (score / best) * LINK_DECAY**hop
                cands[neighbour].add("links", weight)

    def link_graph(self) -> dict[str, set[str]]:
        """Undirected adjacency between entries (links resolved with Obsidian's rules)."""
        loaded = self.index.loaded()
        graph: dict[str, set[str]] = loaded.memo("graph", lambda: _build_graph(loaded))
        return graph

    def recall(
        self, q: RecallQuery, commit: str, qvec: Any = None, skipped: Sequence[dict[str, str]] = ()
    ) -> RecallResult:
        """Run the whole pipeline (without the ``skipped`` layers, which the answer names)."""
        ranked, layers = self.search(q, qvec, skipped, need=q.limit)
        loaded = self.index.loaded()
        hits, total, truncated = self._budget(ranked, loaded.entries, q)
        hits = freshness.label(hits, freshness.policy_of(self.index.store))
        result = RecallResult(
            q.text, hits, layers, total, truncated, commit, candidates=len(ranked)
        )
        result.skipped_layers = [dict(s) for s in skipped]
        tree = self.tree() if {"catalog", "page_index"} & set(layers) else None
        result.index_summary = index_summary(tree, loaded.entries, hits, q.text)
        if "page_index" in layers:
            result.page_index_class = self.query_class(q.text)
        return result

    def _budget(
        self, ranked: list[tuple[str, _Candidate, float]], entries: dict[str, Any], q: RecallQuery
    ) -> tuple[list[RecallHit], int, bool]:
        top = ranked[0][2] if ranked else 0.0
        kept = [r for r in ranked if r[2] >= q.min_score * top][: q.limit]
        snippets = {p: c.snippet for p, c, _ in kept if c.snippet}  # from the search itself
        missing = [(p, c.chunk) for p, c, _ in kept if not c.snippet and c.chunk_score >= 0]
        snippets.update(self.index.snippets(missing))
        hits: list[RecallHit] = []
        total = 0
        for path, cand, score in kept:
            hit = _hit(entries[path], cand, score, snippets.get(path, ""))
            if total + hit.tokens > q.max_tokens:
                return hits, total, True
            hits.append(hit)
            total += hit.tokens
        return hits, total, False


def _hidden(loaded: Any, allow_pii: bool) -> tuple[frozenset[str], int]:
    """Entries recall never returns (retracted; PHI unless allowed), and their chunk count."""
    paths = frozenset(
        p
        for p, r in loaded.entries.items()
        if r["status"] == "retracted" or (r["pii"] == "PHI" and not allow_pii)
    )
    counts = loaded.chunk_counts()
    return paths, sum(counts[p] for p in paths)


def _from_disk(loaded: Resident) -> None:
    """For rows loaded from scratch: the graph and tree an earlier process saved for the
    same rows (``index/snapshot.py``), else a note to save them once both are built."""
    path, loaded.snapshot = loaded.snapshot, None
    if path is None:
        return
    from clawql_git.index import snapshot

    key = snapshot.rows_key(loaded.keys)
    found = snapshot.read(path, key)
    if found is None:
        loaded.snapshot_due = (path, key)
        return
    loaded.carry.keep_graph(found[0])
    loaded.carry.keep_tree(found[1])


def save_derived(loaded: Resident) -> None:
    """Save the graph and tree of rows loaded from scratch, once both are built (a later
    process with the same rows then reads them instead of building them)."""
    if "graph" not in loaded.memos or "tree" not in loaded.memos:
        return
    due, loaded.snapshot_due = loaded.snapshot_due, None
    graph, tree = loaded.carry.graph, loaded.carry.tree
    if due is None or graph is None or tree is None:
        return
    from clawql_git.index import snapshot

    snapshot.write(due[0], due[1], graph, tree)


def _build_tree(loaded: Resident) -> CategoryTree:
    """The category tree of the resident rows: patched from the one carried over from the
    previous rows when only some entries changed, built from every entry otherwise."""
    _from_disk(loaded)
    tree, stale = loaded.carry.take_tree()
    if tree is None or stale is None:
        tree = CategoryTree.build(loaded.entries, loaded.carry.terms)
    elif stale:
        tree = tree.patched(loaded.entries, stale)
    loaded.carry.keep_tree(tree)
    return tree


def _build_graph(loaded: Resident) -> dict[str, set[str]]:
    """The link graph of the resident rows: patched from the state carried over from the
    previous rows when only some entries changed, built from every link otherwise."""
    _from_disk(loaded)
    state, stale = loaded.carry.take_graph()
    if state is None or stale is None:
        notes = [_note_info(p, r) for p, r in loaded.entries.items()]
        state = GraphState.build(notes, loaded.links)
    elif stale:
        links = [link for link in loaded.links if link["source"] in stale]
        state.patch(loaded.entries, stale, links, _note_info)
    loaded.carry.keep_graph(state)
    return state.graph


def _note_info(path: str, row: dict[str, Any]) -> NoteInfo:
    return NoteInfo.from_row(path, row["title"], row.get("frontmatter"))


def _fts_call(
    index: SearchIndex, text: str, limit: int, where: str | None
) -> Callable[[], list[Hit]]:
    """The full-text search of ``text``'s words, started; the call returns its hits."""
    cleaned = " ".join(WORD.findall(text.lower()))
    if not cleaned:
        return list
    return index.fts_later(cleaned, limit, where)


def _where(q: RecallQuery) -> str:
    parts = ["status != 'retracted'"]
    if not q.allow_pii:
        parts.append("pii != 'PHI'")
    if q.types:
        parts.append("type IN (" + ", ".join(quote(t) for t in q.types) + ")")
    if q.project:
        parts.append(f"project = {quote(q.project)}")
    if q.agent:
        parts.append(f"agent_id = {quote(q.agent)}")
    return " AND ".join(parts)


def passes(row: dict[str, Any] | None, q: RecallQuery) -> bool:
    """Whether recall may return the entry of this index row for ``q`` (not retracted, PHI
    only when allowed, within the query's filters)."""
    if row is None or row["status"] == "retracted":
        return False
    if (row["pii"] == "PHI" and not q.allow_pii) or (q.types and row["type"] not in q.types):
        return False
    if (q.project and row["project"] != q.project) or (q.agent and row["agent_id"] != q.agent):
        return False
    if q.tags and not set(q.tags) & set(row["tags"] or []):
        return False
    return _in_window(row["timestamp"], q.since, q.until)


def _in_window(stamp: str, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    if not stamp:
        return False
    when = parse_timestamp(stamp)
    return (since is None or when >= since) and (until is None or when <= until)


def _with_cosines(
    cands: dict[str, _Candidate], sims: cosines.Similarities | None, loaded: Resident
) -> dict[str, _Candidate]:
    """``cands``, each with its real cosines (looked up once per candidate)."""
    if sims is None:
        return cands
    missing = [path for path, cand in cands.items() if cand.cosines is None]
    for path, found in zip(missing, cosines.real(sims, loaded, missing), strict=True):
        cands[path].cosines = found
        cands[path].standard = sims.standard(*found)
    return cands


def _fuse(cands: dict[str, _Candidate]) -> list[tuple[str, float]]:
    """Weighted sum of per-layer scores: each non-vector layer's divided by its best score;
    with the query's similarities known, every candidate's standardised cosines for the two
    vector layers (else their pooled scores, divided by their best as the others)."""
    best: dict[str, float] = defaultdict(float)
    for cand in cands.values():
        for layer, score in cand.scores.items():
            best[layer] = max(best[layer], score)
    fused = {path: _fused(cand, best) for path, cand in cands.items()}
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def _fused(cand: _Candidate, best: dict[str, float]) -> float:
    real = cand.cosines is not None
    total = sum(
        WEIGHTS[layer] * (score / best[layer])
        for layer, score in cand.scores.items()
        if best[layer] > 0 and not (real and layer in VECTOR_LAYERS)
    )
    if real:
        total += WEIGHTS["vector"] * cand.standard[0] + WEIGHTS["entry_vector"] * cand.standard[1]
    return total


def _rerank(
    scored: list[tuple[str, float]],
    cands: dict[str, _Candidate],
    entries: dict[str, Any],
    ctx: RankContext | None = None,
) -> list[tuple[str, _Candidate, float]]:
    """The learned ranker's order (with ``ctx``), then superseded entries give way to their
    replacements: a superseded entry keeps 0.8 of its score, and its replacement, when it is a
    candidate too, ranks at least as high as the superseded entry did (what answered the
    question before answers it now: "why did we stop queueing webhooks in redis?" finds the
    Redis decision first, and the outbox decision that replaced it belongs above it)."""
    if ctx is not None:
        scored = rerank_candidates(scored, cands, ctx)
    out = []
    replaced: dict[str, float] = {}  # replacement path without .md -> best superseded score
    for path, score in scored:
        row = entries.get(path)
        if row is not None and row["status"] == "superseded":
            target = str(row["superseded_by"]).removesuffix(".md")
            replaced[target] = max(replaced.get(target, 0.0), score)
            score *= SUPERSEDED
        out.append((path, cands[path], score))
    if replaced:
        out = [(p, c, max(s, replaced.get(p.removesuffix(".md"), 0.0))) for p, c, s in out]
    out.sort(key=lambda r: (-r[2], r[0]))
    return out


def _turn() -> _Candidate:
    """A candidate for a turn recall brought in beside its neighbour (its first chunk as
    the snippet)."""
    return _Candidate(chunk=0, chunk_score=0.0)


def _neighbours(graph: dict[str, set[str]], start: str, hops: int) -> Iterable[tuple[int, str]]:
    seen = {start}
    frontier = [start]
    for hop in range(1, hops + 1):
        nxt = []
        for node in frontier:
            for other in sorted(graph.get(node, ())):
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
                    yield hop, other
        frontier = nxt


def _hit(row: dict[str, Any], cand: _Candidate, score: float, snippet: str) -> RecallHit:
    import json

    text = snippet or row["description"] or row["title"]
    header = f"{row['title']} ({row['type']}) {row['path']}"
    return RecallHit(
        path=row["path"],
        title=row["title"],
        type=row["type"],
        score=score,
        layers=tuple(sorted(cand.scores)),
        worm_ref=f"git:{row['worm_ref']}",
        snippet=text,
        tokens=estimate_tokens(header) + estimate_tokens(text),
        frontmatter=json.loads(row["frontmatter"] or "{}"),
        superseded_by=row["superseded_by"],
    )
