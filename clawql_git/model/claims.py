"""What two entries say, compared as text: how much they overlap (the same meaning in other
words) and whether they disagree (the same subject, a different chosen option or a negation).

Pure functions of text and an optional embedding cosine, so the write path, ``review show`` and
bench/duplicates.py judge a pair the same way."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Measured with bench/duplicates.py on the labelled ADR pairs (bench/data/duplicate_pairs.jsonl).
DUPLICATE_THRESHOLD = 0.61  # blended similarity at or above which a pair repeats itself
SUBJECT_THRESHOLD = 0.5  # similarity or cosine at which two entries share a subject
COSINE_SHARE = 0.7  # the embedding's share of the blend (the rest is term overlap)

_WORD = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]")
_STOP_WORDS = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your
    use used using uses we'll it's one two new way need needs make made may might must shall
    see based via per etc"""
_STOP = frozenset(_STOP_WORDS.split())
_NEGATION = frozenset({"not", "no", "never", "don't", "doesn't", "stop", "stopped", "avoid"})
# "Chosen option: X", "we chose/choose/will use/adopt/go with X", "decided to use X", "X over Y".
_CHOICE = re.compile(
    r"(?:chosen option|we (?:have )?(?:chose|choose|picked|pick|selected|select"
    r"|adopted|adopt|decided (?:to use|on|to adopt|to move to)|will use|will adopt|go with"
    r"|are going with|went with|settled on|use|switch to|switched to|move to|moved to))"
    r"\s*[:\-]?\s*[\"'`*]*([a-z0-9][\w .+#/-]{1,60})",
    re.IGNORECASE,
)
# A title (or line) in the imperative: "Use X for Y", "Adopt X", "Move webhook delivery to X".
_IMPERATIVE = re.compile(
    r"^[ \t#]*(?:use|adopt|choose|prefer|introduce|keep using|switch to|migrate to"
    r"|move [\w -]{1,40}? to)\s+[\"'`*]*([a-z0-9][\w .+#/-]{1,60})",
    re.IGNORECASE | re.MULTILINE,
)
_NEGATED_CHOICE = re.compile(
    r"(?:do not|don't|never|no longer|stop|stopped|will not|won't|avoid|instead of|rather than"
    r"|replaces?|replaced|drop|dropped|move away from|moved away from)"
    r"\s+(?:use |using |to use )?[\"'`*]*([a-z0-9][\w .+#/-]{1,60})",
    re.IGNORECASE,
)
_OPTION_WORDS = 3  # the first content words of a chosen option name it
EMBED_CHARS = 2000  # the head of an entry that is embedded (the model reads ~256 tokens)


def text_of(title: str, description: str, body: str) -> str:
    """The text of an entry that is compared: title, description and body."""
    return "\n".join(part for part in (title, description, body) if part)


def embed_text(text: str) -> str:
    """The part of an entry's text that is embedded for the comparison."""
    return text[:EMBED_CHARS]


def terms(text: str) -> set[str]:
    """The content words of ``text``: lower case, stop words out, a plural ``s`` dropped."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOP or len(word) < 3:
            continue
        out.add(word[:-1] if len(word) > 4 and word.endswith("s") else word)
    return out


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b| (0 for two empty sets): the plain term-overlap baseline."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def overlap(a: set[str], b: set[str]) -> float:
    """Term overlap that forgives a short restatement of a long entry: the mean of Jaccard and
    the share of the shorter side's terms found in the longer."""
    if not a or not b:
        return 0.0
    contained = len(a & b) / min(len(a), len(b))
    return (jaccard(a, b) + contained) / 2


def similarity(a: str, b: str, cosine: float | None = None) -> float:
    """How much ``a`` and ``b`` say the same thing (0..1): term overlap blended with the
    embedding cosine when there is one."""
    words = overlap(terms(a), terms(b))
    if cosine is None:
        return words
    return COSINE_SHARE * max(cosine, 0.0) + (1 - COSINE_SHARE) * words


def _option(raw: str) -> str:
    words = [w for w in _WORD.findall(raw.lower()) if w not in _STOP][:_OPTION_WORDS]
    return " ".join(words)


def chosen_options(text: str) -> set[str]:
    """The options ``text`` says were chosen ("Chosen option: X", "we will use X")."""
    found = {_option(m.group(1)) for m in _CHOICE.finditer(text)}
    found |= {_option(m.group(1)) for m in _IMPERATIVE.finditer(text)}
    return {o for o in found if o}


def rejected_options(text: str) -> set[str]:
    """The options ``text`` says are not used ("no longer use X", "instead of X")."""
    found = {_option(m.group(1)) for m in _NEGATED_CHOICE.finditer(text)}
    return {o for o in found if o}


def _lead(option: str) -> str:
    return option.split(" ", 1)[0]


def _meets(a: set[str], b: set[str]) -> set[str]:
    """Options of ``a`` that name one of ``b`` (the same leading word)."""
    leads = {_lead(o) for o in b}
    return {o for o in a if _lead(o) in leads}


def disagreement(new: str, old: str) -> str:
    """Why ``new`` contradicts ``old`` on a subject both speak of, or "" when it does not: it
    rejects what ``old`` chose, or both name a chosen option and no option is shared."""
    new_chose, old_chose = chosen_options(new), chosen_options(old)
    turned = _meets(rejected_options(new), old_chose - _meets(old_chose, new_chose))
    if turned:
        return f"rejects {sorted(turned)[0]!r}, which the older entry chose"
    if new_chose and old_chose and not _meets(new_chose, old_chose):
        mine, theirs = sorted(new_chose)[0], sorted(old_chose)[0]
        return f"chose {mine!r} where the older entry chose {theirs!r}"
    return ""


@dataclass(frozen=True)
class Verdict:
    """How one pair compares: the similarity and, on the same subject, any disagreement."""

    score: float
    duplicate: bool
    contradiction: str  # "" when the pair does not disagree


def judge(
    new: str,
    old: str,
    cosine: float | None = None,
    threshold: float = DUPLICATE_THRESHOLD,
    subject: float = SUBJECT_THRESHOLD,
) -> Verdict:
    """Compare a new entry's text with an existing one's. A pair that disagrees is never a
    duplicate (same topic, different decision): it is a contradiction when it shares the
    subject."""
    score = similarity(new, old, cosine)
    # A short entry shares few words with a long one on the same subject: the embedding alone
    # may place them together.
    same_subject = max(score, cosine or 0.0) >= subject
    reason = disagreement(new, old) if same_subject else ""
    return Verdict(score, score >= threshold and not reason, reason)


@dataclass(frozen=True)
class Match:
    """An existing entry a write repeats or contradicts, with the similarity and why."""

    path: str
    title: str
    score: float
    reason: str = ""

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        record: dict[str, Any] = {"path": self.path, "title": self.title}
        record["score"] = round(self.score, 3)
        if self.reason:
            record["reason"] = self.reason
        return record
