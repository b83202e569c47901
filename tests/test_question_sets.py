"""The held-out recall question sets in bench/questions are well formed and obey their rules.

Checked here, so a question set cannot drift out of shape unnoticed: ids are unique, every
question names a known kind and split, splits are balanced within each kind, relevant ids point
at real documents (the ADR corpus in ../shared, when present, and the code notes file), and
paraphrase/why questions share no run of three consecutive words with any relevant document
(the vocabulary-avoidance rule in bench/questions/README.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, adr_corpus

QUESTIONS = ROOT / "bench" / "questions"
ADR_SET = QUESTIONS / "adr_heldout.jsonl"
NOTES = QUESTIONS / "code_notes.jsonl"
NOTES_SET = QUESTIONS / "code_notes_heldout.jsonl"
ADR_KINDS = {"paraphrase", "why", "cluster", "keyword"}
NOTE_KINDS = {"what", "when", "why"}
FIELDS = {"id", "kind", "question", "relevant", "split"}
RUN = 3


def load(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one per non-blank line."""
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric words: the unit of the three-word rule."""
    return re.findall(r"[a-z0-9]+", text.lower())


def runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    """Every run of ``n`` consecutive words in ``text``."""
    w = words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def expected_splits(rows: list[dict[str, Any]]) -> dict[str, str]:
    """The split rule: within each kind, order ids by sha256; the first half (rounded up) tunes."""
    out: dict[str, str] = {}
    for kind in {r["kind"] for r in rows}:
        ids = sorted(
            (r["id"] for r in rows if r["kind"] == kind),
            key=lambda i: hashlib.sha256(i.encode()).hexdigest(),
        )
        half = (len(ids) + 1) // 2
        out.update({i: "tune" if n < half else "heldout" for n, i in enumerate(ids)})
    return out


def check_shape(rows: list[dict[str, Any]], kinds: set[str]) -> None:
    """Fields, unique ids, known kinds, and the hash split, balanced within each kind."""
    assert all(set(r) == FIELDS for r in rows), [r["id"] for r in rows if set(r) != FIELDS]
    ids = Counter(r["id"] for r in rows)
    assert not [i for i, n in ids.items() if n > 1], "duplicate ids"
    assert {r["kind"] for r in rows} == kinds
    assert all(r["question"].strip() and r["relevant"] for r in rows)
    split = expected_splits(rows)
    assert [r["id"] for r in rows if r["split"] != split[r["id"]]] == []
    for kind in kinds:
        counts = Counter(r["split"] for r in rows if r["kind"] == kind)
        assert abs(counts["tune"] - counts["heldout"]) <= 1, (kind, counts)


def test_adr_set_shape_and_balance() -> None:
    rows = load(ADR_SET)
    assert len(rows) >= 200
    check_shape(rows, ADR_KINDS)
    per_kind = Counter(r["kind"] for r in rows)
    assert max(per_kind.values()) - min(per_kind.values()) <= len(rows) // 10, per_kind
    projects = {doc.split("/", 1)[0] for r in rows for doc in r["relevant"]}
    assert len(projects) == 9, projects
    assert all(len(r["relevant"]) >= 2 for r in rows if r["kind"] == "cluster")


def test_adr_relevant_documents_exist() -> None:
    corpus = adr_corpus()
    manifest = {
        line.split("\t", 1)[0] for line in (corpus / "MANIFEST.tsv").read_text().splitlines()[1:]
    }
    missing = [(r["id"], d) for r in load(ADR_SET) for d in r["relevant"] if d not in manifest]
    assert missing == []


def test_adr_paraphrase_and_why_avoid_document_wording() -> None:
    corpus = adr_corpus()
    shared = []
    for r in load(ADR_SET):
        if r["kind"] not in {"paraphrase", "why"}:
            continue
        doc_runs = set().union(
            *(runs((corpus / d).read_text(encoding="utf-8")) for d in r["relevant"])
        )
        common = runs(r["question"]) & doc_runs
        if common:
            shared.append((r["id"], sorted(" ".join(c) for c in common)))
    assert shared == []


def test_three_word_rule_catches_a_copied_phrase() -> None:
    assert runs("did we pick Gradle as build tool?") & runs("We use Gradle as build tool here")
    assert not runs("which compiler driver") & runs("Use Gradle as build tool")


def test_code_notes_and_their_questions() -> None:
    notes = load(NOTES)
    assert len(notes) >= 150
    assert all({"id", "date", "author", "files", "text"} <= set(n) for n in notes)
    assert len({n["id"] for n in notes}) == len(notes)
    rows = load(NOTES_SET)
    assert len(rows) >= 60
    check_shape(rows, NOTE_KINDS)
    known = {n["id"] for n in notes}
    assert [(r["id"], d) for r in rows for d in r["relevant"] if d not in known] == []
    when = sum(r["kind"] == "when" for r in rows)
    assert len(rows) // 5 <= when <= len(rows) // 3, when


@pytest.mark.parametrize("path", [ADR_SET, NOTES_SET])
def test_questions_are_unique_text(path: Path) -> None:
    texts = Counter(r["question"].lower() for r in load(path))
    assert [t for t, n in texts.items() if n > 1] == []
