"""Every recall hit checked against the commit it answers from, before it is served: the
entry must be there, recall must be allowed to return it (not retracted; PHI only when
allowed; within the filters), and the title, type, frontmatter, snippet, token count and
worm_ref must be what that commit's blob gives. The index and the answer cache are derived
files anyone who can write the repository can edit; a hit that does not match is not served."""

from __future__ import annotations

from dataclasses import replace

from clawql_git.gitstore import Commit
from clawql_git.index.chunking import estimate_tokens
from clawql_git.index.integrity import Known, Truth
from clawql_git.recall.pipeline import RecallHit, RecallQuery, RecallResult, passes


def hit_problem(truth: Truth, commit: Commit, hit: RecallHit, q: RecallQuery) -> str:
    """Why ``hit`` is not what ``commit`` holds (``""`` when it is)."""
    known = truth.known(commit.tree, hit.path)
    if known is None:
        return "the commit holds no such entry"
    if not passes(known.row, q):
        return "recall does not return this entry (retracted, PHI or outside the filters)"
    wrong = _fields(known, hit)
    if wrong:
        return f"its {', '.join(wrong)} are not the entry's at this commit"
    if truth.blob_in(hit.worm_ref.removeprefix("git:"), hit.path) != known.record.blob:
        return "its worm_ref names a commit that does not hold this entry"
    return ""


def _fields(known: Known, hit: RecallHit) -> list[str]:
    row = known.row
    wrong = [
        name
        for name, ok in (
            ("title", hit.title == row["title"]),
            ("type", hit.type == row["type"]),
            ("frontmatter", hit.frontmatter == known.frontmatter),
            ("superseded_by", hit.superseded_by == row["superseded_by"]),
            ("snippet", hit.snippet in known.snippets),
        )
        if not ok
    ]
    header = f"{row['title']} ({row['type']}) {row['path']}"
    if hit.tokens != estimate_tokens(header) + estimate_tokens(hit.snippet):
        wrong.append("tokens")
    return wrong


def checked(
    truth: Truth, commit: Commit, result: RecallResult, q: RecallQuery
) -> tuple[RecallResult, dict[str, str]]:
    """``result`` with only the hits ``commit`` holds (its commit and token total are this
    commit's and these hits'), and what was wrong with the others (path -> problem)."""
    problems = {h.path: hit_problem(truth, commit, h, q) for h in result.hits}
    bad = {path: why for path, why in problems.items() if why}
    hits = [h for h in result.hits if not bad.get(h.path)]
    total = sum(h.tokens for h in hits)
    return replace(result, hits=hits, total_tokens=total, commit=str(commit.id)), bad


def describe(bad: dict[str, str]) -> str:
    """The problems of ``checked``, in one line."""
    return "; ".join(f"{path}: {why}" for path, why in sorted(bad.items()))
