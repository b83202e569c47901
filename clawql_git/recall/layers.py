"""Recall as one list across layers: the vault's own hits, the symbols and routes of the code
graph attached to the vault, and Onyx's documents, each hit naming its ``source_layer``; and
the catalog survey summarised beside them (``index_summary``). An external layer that cannot
answer is skipped with its reason: recall fails open."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from clawql_git.audit.chain import ReadHit
from clawql_git.codegraph.store import SCHEMA_VERSION
from clawql_git.errors import StorageError
from clawql_git.index.categories import terms
from clawql_git.index.chunking import estimate_tokens
from clawql_git.onyx import OnyxClient, OnyxDocument, OnyxQuery, OnyxUnavailable
from clawql_git.recall.pipeline import RecallHit, RecallQuery, RecallResult

# How an external layer's best possible hit ranks against the vault's best hit: code and Onyx
# answers follow the vault's own on equal evidence (the vault is the agent's memory).
CODE_WEIGHT = 0.9
ONYX_WEIGHT = 0.8
CODE_POOL = 400
# After Onyx fails to answer, recall leaves it out for this long instead of waiting up to the
# client's timeout (5 s) on every recall; ``clawql knowledge search`` always asks.
ONYX_RETRY_AFTER = 30.0
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_TRAILER_SAFE = ":/._-#@+=,"


@dataclass(frozen=True)
class CodeLayer:
    """The code graph attached to a vault: its SQLite file, read only."""

    root: Path
    db_path: Path

    def search(self, text: str, limit: int) -> list[RecallHit]:
        """Symbols and routes whose names share the query's terms, best first; StorageError
        when the graph cannot be read."""
        want = set(terms(text))
        if not want:
            return []
        try:
            with _read_only(self.db_path) as db:
                _check_schema(db, self.db_path)
                rows = _symbol_rows(db, want) + _route_rows(db, want)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot read the code graph {self.db_path}: {exc}") from exc
        scored = [(score, hit) for hit, score in (self._hit(r, want) for r in rows) if score > 0]
        scored.sort(key=lambda sh: (-sh[0], sh[1].path))
        return [replace(hit, score=score) for score, hit in scored[:limit]]

    def _hit(self, row: dict[str, Any], want: set[str]) -> tuple[RecallHit, float]:
        name_terms = set(terms(_words(row["name"])))
        other = set(terms(_words(row["file"]) + " " + row["doc"]))
        named = len(want & name_terms)
        score = 0.0 if not named else min(1.0, (2 * named + len(want & other)) / (2 * len(want)))
        snippet = " ".join(f"{row['kind']} {row['title']} {row['doc']}".split())[:400]
        where = f"{row['file']}:{row['line']}"
        hit = RecallHit(
            path=f"code:{where}:{row['title']}",
            title=row["title"],
            type=row["kind"],
            score=score,
            layers=("code",),
            worm_ref="",
            snippet=snippet,
            tokens=estimate_tokens(f"{row['title']} {where}") + estimate_tokens(snippet),
            frontmatter={},
            source_layer="code",
            citation={"repo": str(self.root), "file": row["file"], "line": row["line"]},
        )
        return hit, score


def _read_only(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def _check_schema(db: sqlite3.Connection, path: Path) -> None:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        raise StorageError(f"the code graph {path} is of another version: run `clawql code index`")


def _words(name: str) -> str:
    """``rotateSigningKeys`` / ``rotate_signing_keys`` / ``a/b.py`` as separate words."""
    return " ".join(re.split(r"[^A-Za-z0-9]+", _CAMEL.sub(" ", name)))


def _likes(want: set[str]) -> list[str]:
    return ["%" + t.replace("%", "").replace("_", "") + "%" for t in sorted(want) if len(t) > 2]


def _symbol_rows(db: sqlite3.Connection, want: set[str]) -> list[dict[str, Any]]:
    likes = _likes(want)
    if not likes:
        return []
    where = " OR ".join("lower(name) LIKE ?" for _ in likes)
    rows = db.execute(
        "SELECT path, name, qualname, kind, line, signature, docstring FROM symbols "
        f"WHERE {where} ORDER BY exported DESC, path, line LIMIT {CODE_POOL}",
        likes,
    ).fetchall()
    return [
        {
            "name": r["name"],
            "title": r["qualname"],
            "kind": r["kind"],
            "file": r["path"],
            "line": r["line"],
            "doc": f"{r['signature']} {r['docstring'].splitlines()[0] if r['docstring'] else ''}",
        }
        for r in rows
    ]


def _route_rows(db: sqlite3.Connection, want: set[str]) -> list[dict[str, Any]]:
    likes = _likes(want)
    if not likes:
        return []
    where = " OR ".join("lower(pattern) LIKE ? OR lower(handler) LIKE ?" for _ in likes)
    params = [like for like in likes for _ in (0, 1)]
    rows = db.execute(
        "SELECT pattern, methods, handler, path, line, framework FROM routes "
        f"WHERE {where} ORDER BY pattern LIMIT {CODE_POOL}",
        params,
    ).fetchall()
    return [
        {
            "name": f"{r['pattern']} {r['handler']}",
            "title": f"{r['methods']} {r['pattern']}",
            "kind": "route",
            "file": r["path"],
            "line": r["line"],
            "doc": f"-> {r['handler']} [{r['framework']}]",
        }
        for r in rows
    ]


def onyx_hits(client: OnyxClient, q: RecallQuery) -> list[RecallHit]:
    """Onyx's documents for a recall query, as hits (score: Onyx's, relative to its best)."""
    found = client.search(OnyxQuery(q.text, date_from=q.since, max_results=min(q.limit, 100)))
    best = max((d.score for d in found.documents), default=0.0)
    return [onyx_hit(d, d.score / best if best > 0 else 1.0) for d in found.documents]


def onyx_hit(doc: OnyxDocument, score: float) -> RecallHit:
    snippet = " ".join(doc.blurb.split())[:600]
    return RecallHit(
        path=f"onyx:{doc.document_id}",
        title=doc.title,
        type=doc.source_type or "document",
        score=score,
        layers=("onyx",),
        worm_ref="",
        snippet=snippet,
        tokens=estimate_tokens(f"{doc.title} {doc.link}") + estimate_tokens(snippet),
        frontmatter={"updated_at": doc.updated_at} if doc.updated_at else {},
        source_layer="onyx",
        citation=doc.citation,
    )


@dataclass
class Backoff:
    """When a layer last failed, so recall skips it for ``wait`` seconds instead of paying its
    timeout on every query (a long-lived MCP server keeps one per vault)."""

    wait: float = ONYX_RETRY_AFTER
    clock: Callable[[], float] = time.monotonic
    failed_at: float | None = None
    reason: str = ""

    def holding(self) -> str:
        """Why the layer is left out now (``""`` when it may be asked)."""
        if self.failed_at is None:
            return ""
        ago = self.clock() - self.failed_at
        if ago >= self.wait:
            return ""
        return (
            f"{self.reason} ({ago:.0f} s ago); recall asks it again "
            f"{self.wait - ago:.0f} s from now"
        )

    def failed(self, reason: str) -> None:
        self.failed_at, self.reason = self.clock(), reason

    def answered(self) -> None:
        self.failed_at, self.reason = None, ""


@dataclass(frozen=True)
class ExternalLayers:
    """The layers beside the vault that recall merges into its one list (either may be
    missing: no code graph attached, no Onyx configured)."""

    code: CodeLayer | None = None
    onyx: OnyxClient | None = None
    onyx_backoff: Backoff = field(default_factory=Backoff)

    def applies(self, q: RecallQuery) -> bool:
        """External layers answer unfiltered ``auto`` recalls: they know nothing of types,
        tags, projects or agents, and a filter asks for vault entries only."""
        filtered = q.types or q.tags or q.project or q.agent or q.until
        return q.backend == "auto" and not filtered and (self.code or self.onyx) is not None

    def gather(self, q: RecallQuery) -> tuple[list[RecallHit], list[dict[str, str]]]:
        """Every layer's hits, and the layers skipped with their reasons."""
        hits: list[RecallHit] = []
        skipped: list[dict[str, str]] = []
        runs: list[tuple[str, float, Callable[[], list[RecallHit]]]] = []
        if self.code is not None:
            code = self.code
            runs.append(("code", CODE_WEIGHT, lambda: code.search(q.text, q.limit)))
        if self.onyx is not None:
            onyx = self.onyx
            runs.append(("onyx", ONYX_WEIGHT, lambda: self._onyx_hits(onyx, q)))
        for layer, weight, run in runs:
            try:
                hits += [replace(h, score=h.score * weight) for h in run()]
            except (StorageError, OnyxUnavailable) as exc:
                skipped.append({"layer": layer, "reason": exc.message})
        return hits, skipped

    def _onyx_hits(self, onyx: OnyxClient, q: RecallQuery) -> list[RecallHit]:
        """Onyx's hits, unless it failed within the backoff's wait (then OnyxUnavailable at
        once, naming the earlier failure)."""
        holding = self.onyx_backoff.holding()
        if holding:
            raise OnyxUnavailable(onyx.base_url, holding)
        try:
            found = onyx_hits(onyx, q)
        except OnyxUnavailable as exc:
            self.onyx_backoff.failed(exc.reason)
            raise
        self.onyx_backoff.answered()
        return found


def merge(result: RecallResult, q: RecallQuery, external: Sequence[RecallHit]) -> RecallResult:
    """One list: the vault's hits and the external ones (scores on the vault's scale: an
    external score of 1 ranks with the vault's best hit), cut to the query's limit, relative
    score floor and token budget."""
    top = result.hits[0].score if result.hits else 1.0
    scaled = [replace(h, score=h.score * top) for h in external]
    kept = [h for h in scaled if h.score >= q.min_score * top]
    ranked = sorted([*result.hits, *kept], key=lambda h: (-h.score, h.source_layer != "vault"))
    hits: list[RecallHit] = []
    total = 0
    truncated = result.truncated
    for hit in ranked[: q.limit]:
        if total + hit.tokens > q.max_tokens:
            truncated = True
            break
        hits.append(hit)
        total += hit.tokens
    layers = [*result.layers, *sorted({h.source_layer for h in kept})]
    return replace(
        result,
        hits=hits,
        total_tokens=total,
        truncated=truncated,
        layers=layers,
        candidates=result.candidates + len(external),
    )


def with_layers(
    result: RecallResult, q: RecallQuery, external: ExternalLayers | None
) -> RecallResult:
    """The vault's answer as the one list: the external layers merged in when they apply (a
    layer that failed is named in ``skipped_layers`` and ``warnings``)."""
    if external is None or not external.applies(q):
        return result
    hits, skipped = external.gather(q)
    merged = merge(result, q, hits)
    if skipped:
        merged = replace(
            merged,
            skipped_layers=[*merged.skipped_layers, *skipped],
            warnings=[*merged.warnings, *(f"{s['layer']} skipped: {s['reason']}" for s in skipped)],
        )
    return merged


def read_hit(hit: RecallHit) -> ReadHit:
    """What the audit chain records of an external hit: its layer-qualified name, no blob."""
    return ReadHit(quote(hit.path, safe=_TRAILER_SAFE), "-", "")


ATTACHED_REPO = "code-repo"  # under $GIT_DIR/clawql: the repository `code index --vault` named


def attached_code(state_dir: Path, workdir: Path, code_repo: str = "") -> CodeLayer | None:
    """The code graph recall searches: the ``code_repo`` setting's, else the vault's own
    repository's (``clawql code index`` run in the vault), else the repository last indexed
    with ``clawql code index --vault`` naming this vault; None when there is none."""
    from clawql_git.codegraph.location import DB_NAME, locate

    if code_repo:
        root, db_path = locate(code_repo)
        return CodeLayer(root, db_path)
    own = state_dir / "codegraph" / DB_NAME
    if own.is_file():
        return CodeLayer(workdir, own)
    marker = state_dir / ATTACHED_REPO
    repo = marker.read_text(encoding="utf-8").strip() if marker.is_file() else ""
    if repo and Path(repo).is_dir():
        root, db_path = locate(repo)
        return CodeLayer(root, db_path) if db_path.is_file() else None
    return None


def attach_code(state_dir: Path, repo: Path) -> None:
    """Remember ``repo`` as the vault's code repository (derived state: losing it loses the
    layer until the next ``clawql code index --vault``, or set ``code_repo``)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    tmp = state_dir / f"{ATTACHED_REPO}.tmp"
    tmp.write_text(str(repo.resolve()) + "\n", encoding="utf-8")
    tmp.replace(state_dir / ATTACHED_REPO)


def external_layers(
    state_dir: Path, workdir: Path, code_repo: str, onyx_url: str, onyx_api_key: str
) -> ExternalLayers:
    """The layers beside a vault, from its settings (``code_repo``, ``onyx_url``,
    ``onyx_api_key``) and what is attached to it."""
    onyx = OnyxClient(onyx_url, onyx_api_key) if onyx_url else None
    return ExternalLayers(attached_code(state_dir, workdir, code_repo), onyx)
