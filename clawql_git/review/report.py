"""``review show``: what a proposal would change, entry by entry: frontmatter, diff against main,
validation, broken links, possible duplicates on main, and the recall answers it would move."""

from __future__ import annotations

import difflib
import os
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError
from clawql_git.gitstore import Commit
from clawql_git.model.entry import (
    Entry,
    check_secrets,
    check_size,
    decode_text,
    slugify,
    validate_entry_path,
    validate_meta,
)
from clawql_git.model.paths import is_entry_path
from clawql_git.review.proposals import Proposal, get_proposal, is_generated

if TYPE_CHECKING:
    from clawql_git.recall.pipeline import RecallHit
    from clawql_git.vault.facade import Vault

RECALL_DEPTH = 5  # top hits compared before and after the proposal
SIMILAR_TITLE = 0.6  # Jaccard of title words for a "similar title" duplicate
SIMILAR_CONTENT = 0.85  # cosine of embeddings for a "similar content" duplicate


@dataclass(frozen=True)
class Duplicate:
    """An entry on main that the proposed one may repeat, and why we think so."""

    path: str
    title: str
    reason: str
    similarity: float

    def to_record(self) -> dict[str, Any]:
        return {**self.__dict__, "similarity": round(self.similarity, 3)}


@dataclass(frozen=True)
class RecallChange:
    """Recall for the entry's title on main, then on the proposal's tree: what moved."""

    query: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    # main's top hits that rank lower after the merge: (path, rank before, rank after or None
    # when pushed out of the top RECALL_DEPTH); ranks are 1-based
    displaced: tuple[tuple[str, int, int | None], ...]
    rank: int | None  # where the proposed entry lands, None if outside the top

    def to_record(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "before": list(self.before),
            "after": list(self.after),
            "displaced": [{"path": p, "before": b, "after": a} for p, b, a in self.displaced],
            "rank": self.rank,
        }


@dataclass(frozen=True)
class EntryReview:
    """One proposed entry as a reviewer needs to see it."""

    path: str
    change: str  # added | modified | deleted
    frontmatter: dict[str, Any] | None
    diff: str
    problems: tuple[str, ...]
    broken_links: tuple[str, ...]
    duplicates: tuple[Duplicate, ...]
    recall: RecallChange | None

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "frontmatter": self.frontmatter,
            "diff": self.diff,
            "valid": self.valid,
            "problems": list(self.problems),
            "broken_links": list(self.broken_links),
            "duplicates": [d.to_record() for d in self.duplicates],
            "recall": self.recall.to_record() if self.recall else None,
        }


@dataclass(frozen=True)
class ProposalReport:
    """``review show``: the proposal and every entry it changes."""

    proposal: Proposal
    entries: list[EntryReview] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    other_changes: list[str] = field(default_factory=list)  # settings, schemas: not entries

    def to_record(self) -> dict[str, Any]:
        return {
            **self.proposal.to_record(),
            "valid": all(e.valid for e in self.entries),
            "entries": [e.to_record() for e in self.entries],
            "other_changes": self.other_changes,
            "notes": self.notes,
        }


def show(vault: Vault, branch: str, recall_impact: bool = True) -> ProposalReport:
    """Review one proposal. Duplicates come from a recall on main for each entry's title;
    recall impact (skipped with ``recall_impact=False``) adds one on the proposal's tree
    (``TipRecall``: a temporary copy of main's index caught up to the tip). Neither recall
    is recorded on the audit chain: this is a preview for a reviewer, not memory handed to
    an agent."""
    store = vault.store
    proposal = get_proposal(store, branch)
    tip = store.resolve(proposal.tip)
    main = store.head_commit()
    report = ProposalReport(proposal)
    report.other_changes.extend(_other_changes(vault, proposal, tip))
    resolver = _resolver(vault, proposal, tip, report)
    with TipRecall(vault, tip, report, enabled=recall_impact) as at_tip:
        for path in proposal.entries:
            report.entries.append(_review_entry(vault, path, main, at_tip, resolver, report))
    return report


class TipRecall:
    """Recall on the proposal's tree from a temporary index: a copy of main's index caught up
    to the proposal tip incrementally (only the entries the proposal changes are re-indexed;
    vectors come from the content cache), deleted when the review is done."""

    def __init__(self, vault: Vault, tip: Commit, report: ProposalReport, enabled: bool):
        self.vault, self.tip, self.report, self.enabled = vault, tip, report, enabled
        self.root = vault.store.state_dir / f"review-index-{os.getpid()}"
        self.index: Any = None

    def __enter__(self) -> TipRecall:
        if not self.enabled:
            return self
        from clawql_git.index.store import SearchIndex

        service = self.vault.recall_service()
        shutil.rmtree(self.root, ignore_errors=True)
        try:
            with service.index.lock():
                if service.index.root.is_dir():
                    shutil.copytree(service.index.root, self.root)
            self.index = SearchIndex(self.vault.store, service.embedder, self.root)
            self.index.ensure(self.tip)
        except (ClawqlError, OSError) as exc:
            self.report.notes.append(f"recall impact not computed: {exc}")
            self.index = None
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def hits(self, text: str) -> list[RecallHit] | None:
        """The proposal tip's top hits for ``text``; None when impact is off or failed."""
        from clawql_git.recall.pipeline import Recaller, RecallQuery

        if self.index is None:
            return None
        query = RecallQuery(text, limit=RECALL_DEPTH, use_cache=False)
        try:
            return Recaller(self.index).recall(query, str(self.tip.id)).hits
        except ClawqlError as exc:
            self.report.notes.append(f"recall impact not computed: {exc}")
            self.index = None
            return None


def _review_entry(
    vault: Vault,
    path: str,
    main: Commit | None,
    at_tip: TipRecall,
    resolver: Any,
    report: ProposalReport,
) -> EntryReview:
    store = vault.store
    old = store.blob_at(main.tree if main else None, path)
    new = store.blob_at(at_tip.tip.tree, path)
    change = "deleted" if new is None else ("added" if old is None else "modified")
    entry, problems = _validate(vault, path, new)
    broken = _broken(resolver, entry)
    dups: tuple[Duplicate, ...] = ()
    moved = None
    if entry is not None:
        main_hits = _recall(vault, entry.title, report)
        dups = _duplicates(vault, entry, main_hits)
        named = {d.path for d in dups}
        dups += tuple(
            d
            for d in _repeats(vault, entry, main)
            if d.path not in named or d.reason.startswith("contradicts")
        )
        after = at_tip.hits(entry.title)
        if after is not None:
            moved = _recall_change(entry, main_hits, after)
    fm = entry.to_record()["frontmatter"] if entry is not None else None
    return EntryReview(path, change, fm, _diff(path, old, new), problems, broken, dups, moved)


def _other_changes(vault: Vault, proposal: Proposal, tip: Commit) -> list[str]:
    """Files the proposal changes that are neither entries nor generated catalogs (vault
    settings, entity schemas): an engine write never makes these, so a reviewer must see them."""
    base = vault.store.tree_of(proposal.base)
    changed = vault.store.diff_paths(base, tip.tree)
    return [p for p, _, _ in changed if not is_entry_path(p) and not is_generated(p)]


def _validate(vault: Vault, path: str, data: bytes | None) -> tuple[Entry | None, tuple[str, ...]]:
    """The entry contract, the secret scan and the size limit, as ingest applies them."""
    if data is None:
        return None, ()
    problems: list[str] = []
    try:
        validate_entry_path(path)
        entry = Entry.parse(path, decode_text(data, path))
        validate_meta(entry.meta)
    except ClawqlError as exc:
        return None, (exc.message,)
    try:
        check_secrets(entry.render(), path)
    except ClawqlError as exc:
        problems.append(exc.message)
    try:
        check_size(entry.body, vault.settings.max_body_bytes)
    except ClawqlError as exc:
        problems.append(exc.message)
    return entry, tuple(problems)


def _diff(path: str, old: bytes | None, new: bytes | None) -> str:
    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    before = f"a/{path}" if old is not None else "/dev/null"
    after = f"b/{path}" if new is not None else "/dev/null"
    return "".join(difflib.unified_diff(a, b, before, after))


def _resolver(vault: Vault, proposal: Proposal, tip: Commit, report: ProposalReport) -> Any:
    """A link resolver for main as it would be after the merge: the notes of main's index (no
    re-parse of every entry) with the proposal's entries laid over them. None when main's
    index cannot be read (then links are not checked, and the report says so)."""
    from clawql_git.links import LinkResolver, NoteInfo

    try:
        vault.update_index()
        rows = vault.recall_service().index.loaded().entries
    except ClawqlError as exc:  # a broken index must not hide the rest of the review
        report.notes.append(f"links not checked: {exc}")
        return None
    notes = {
        p: NoteInfo.from_row(p, str(r.get("title") or ""), r.get("frontmatter"))
        for p, r in rows.items()
    }
    for path in proposal.entries:
        notes.pop(path, None)
        entry = _parsed(vault, tip, path)
        if entry is not None:
            notes[path] = NoteInfo.of(path, entry.title, entry.aliases, entry.meta)
    return LinkResolver(notes.values())


def _parsed(vault: Vault, tip: Commit, path: str) -> Entry | None:
    data = vault.store.blob_at(tip.tree, path)
    try:
        return Entry.parse(path, decode_text(data, path)) if data is not None else None
    except ClawqlError:
        return None


def _broken(resolver: Any, entry: Entry | None) -> tuple[str, ...]:
    from clawql_git.links import extract_links

    if resolver is None or entry is None:
        return ()
    refs = extract_links(entry.body)
    return tuple(
        f"{r.target} (line {r.line})" for r in refs if resolver.resolve(r, entry.path) is None
    )


def _recall(vault: Vault, text: str, report: ProposalReport) -> list[RecallHit]:
    """Recall on main without an audit record (no Reader), failing open: a review still shows
    the rest."""
    from clawql_git.recall.pipeline import RecallQuery

    try:
        query = RecallQuery(text, limit=RECALL_DEPTH, use_cache=False)
        return vault.recall_service().recall(query, None, None).hits
    except ClawqlError as exc:
        note = f"recall on main failed: {exc}"
        if note not in report.notes:
            report.notes.append(note)
        return []


def _recall_change(entry: Entry, main_hits: list[RecallHit], hits: list[RecallHit]) -> RecallChange:
    before = tuple(h.path for h in main_hits)
    after = tuple(h.path for h in hits)
    ranks = {p: n for n, p in enumerate(after, 1)}
    displaced = tuple(
        (p, n, ranks.get(p)) for n, p in enumerate(before, 1) if ranks.get(p, len(after) + 1) > n
    )
    rank = after.index(entry.path) + 1 if entry.path in after else None
    return RecallChange(entry.title, before, after, displaced, rank)


def _duplicates(vault: Vault, entry: Entry, hits: list[RecallHit]) -> tuple[Duplicate, ...]:
    """Main's top hits for the entry's title that repeat it: the same title (slug), a title
    sharing most words, or (with an embedding model) content of high cosine similarity."""
    out = []
    for hit in hits:
        if hit.path == entry.path:
            continue  # the entry's own earlier version
        found = _duplicate(vault, entry, hit)
        if found is not None:
            out.append(found)
    return tuple(out)


def _repeats(vault: Vault, entry: Entry, main: Commit | None) -> tuple[Duplicate, ...]:
    """What the write path's check finds on main: near repeats and contradictions."""
    from clawql_git.vault.sameness import Detector

    found = Detector(vault).check(entry, main.tree if main is not None else None)
    near = [Duplicate(m.path, m.title, "near repeat", m.score) for m in found.duplicates]
    near += [  # a contradiction is news even when the title matched too
        Duplicate(m.path, m.title, f"contradicts: {m.reason}", m.score)
        for m in found.contradictions
    ]
    return tuple(near)


def _duplicate(vault: Vault, entry: Entry, hit: RecallHit) -> Duplicate | None:
    if slugify(hit.title) == slugify(entry.title):
        return Duplicate(hit.path, hit.title, "same title", 1.0)
    words = _words(entry.title)
    overlap = len(words & _words(hit.title)) / max(len(words | _words(hit.title)), 1)
    if overlap >= SIMILAR_TITLE:
        return Duplicate(hit.path, hit.title, "similar title", overlap)
    cosine = _cosine(vault, f"{entry.title}\n{entry.body}", f"{hit.title}\n{hit.snippet}")
    if cosine is not None and cosine >= SIMILAR_CONTENT:
        return Duplicate(hit.path, hit.title, "similar content", cosine)
    return None


def _words(text: str) -> set[str]:
    return {w for w in slugify(text).split("-") if w}


def _cosine(vault: Vault, a: str, b: str) -> float | None:
    embedder = vault.recall_service().embedder
    if embedder is None:
        return None
    try:
        rows = embedder.embed([a[:2000], b[:2000]])
    except (ClawqlError, OSError, RuntimeError, ValueError):
        return None
    return float((rows[0] * rows[1]).sum())
