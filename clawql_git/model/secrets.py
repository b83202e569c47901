"""Secret scanning: finds credential-like strings before they reach Git history.

Git history cannot be un-written, so the vault refuses content that looks like a
credential. `scan` runs a fixed, ordered set of detectors over the text:

* provider tokens with a recognisable prefix (AWS access key ids, GitHub, GitLab,
  OpenAI, Anthropic, Slack tokens and webhooks, Stripe, Google API keys) and private
  key blocks;
* passwords in URLs (``scheme://user:pass@host``);
* assignments (``password=``, ``token:``, ``"api_key": "..."``, ``'secret' => '...'``)
  whose value is long, high-entropy and mixes character classes, and is not a
  placeholder, a template, an environment-variable name or a code expression; an AWS
  secret access key, which has no prefix, is recognised here by its key name and shape.

Findings never carry the secret: the excerpt shows only a non-secret label (a known
prefix or the key name), an ellipsis and the length of the hidden value.

Patterns start with a literal (a prefix, ``://``, an operator) wherever possible, so
the regex engine skips ahead instead of trying each position; that keeps a 1 MiB scan
well under 50 ms.
"""

from __future__ import annotations

import math
import re
import string
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote

from clawql_git.errors import SecretFinding

__all__ = ["scan"]

_ELLIPSIS = "\u2026"

# Generic values must be long and varied: 8 distinct characters give exactly 3.0
# bits/char, so shorter or repetitive values never pass.
_MIN_VALUE_LENGTH = 8
_MIN_ENTROPY = 3.0
# A password in a URL's userinfo is already a strong signal, so the bar is lower.
_MIN_URL_PASSWORD_ENTROPY = 2.5
# Identifiers are made of words (get, password, LEDGERLINE); random strings split into
# pieces of one or two letters and carry more digits.
_MIN_IDENTIFIER_PIECE_LENGTH = 3.0
_MAX_IDENTIFIER_DIGITS = 4
# Real tokens are under 200 characters; a longer run is some other encoded blob.
_MAX_TOKEN_LENGTH = 1024
# How far before an operator to look for the key (allows column-aligned YAML and env).
_KEY_WINDOW = 64

_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_KEY_CHARS = string.ascii_letters + string.digits + "_.-"
_CODE_AFTER_VALUE = frozenset("([")


def _token(prefix: str, body: str) -> re.Pattern[str]:
    """A non-secret prefix and a random body; bodies use possessive repeats (`{n,}+`) so
    a long run is consumed once and never re-tried from inside."""
    return re.compile(rf"(?P<secret>(?P<label>{prefix})(?P<body>{body}))")


_AWS_ACCESS_KEY_ID = _token("A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|PKA|BIA|CCA)", "[A-Z0-9]{16}")
_GITHUB_TOKEN = _token("gh[pousr]_", "[A-Za-z0-9]{36,}+")
_GITHUB_FINE_GRAINED_TOKEN = _token("github_pat_", "[A-Za-z0-9_]{50,}+")
_GITLAB_TOKEN = _token("glpat-", "[A-Za-z0-9_-]{20,}+")
_ANTHROPIC_KEY = _token("sk-ant-", "[A-Za-z0-9_-]{32,}+")
_OPENAI_KEY = _token("sk-(?:proj-|svcacct-|admin-)?(?!ant-)", "[A-Za-z0-9_-]{20,}+")
_SLACK_TOKEN = _token("xox[abposr]-|xapp-", "[A-Za-z0-9-]{10,}+")
_SLACK_WEBHOOK = _token(
    r"https://hooks\.slack\.com/(?:services|workflows|triggers)/", "[A-Za-z0-9_/+-]{20,}+"
)
# Two patterns, not `[sr]k_`: a leading literal is what lets the engine skip ahead.
_STRIPE_SECRET_KEY = _token("sk_(?:live|test)_", "[A-Za-z0-9]{16,}+")
_STRIPE_RESTRICTED_KEY = _token("rk_(?:live|test)_", "[A-Za-z0-9]{16,}+")
_GOOGLE_API_KEY = _token("AIza", "[A-Za-z0-9_-]{35}")
# The header alone is often quoted in prose and docs elide the body with "...", so a
# block counts only when key material follows: a full base64 line, or a shorter one
# (not a word: 16 characters at least) that the END marker closes, nothing elided.
# PEM headers such as Proc-Type may come first. Line breaks may be JSON-escaped (cloud
# service-account files) and lines may carry a quote or comment prefix (`> `, `# `,
# ` * `). Bounded repeats keep a header followed by a megabyte of whitespace linear.
_PEM_BREAK = r"""(?:[\s>#*"'+]|\\[nr]){1,24}"""
_PRIVATE_KEY = re.compile(
    r"(?P<secret>(?P<label>-----BEGIN [A-Z0-9 ]{0,32}PRIVATE KEY(?: BLOCK)?-----))"
    rf"(?={_PEM_BREAK}(?:[A-Za-z-]{{1,32}}:[^\r\n\\]{{0,128}}{_PEM_BREAK}){{0,4}}"
    r"""(?:(?P<body>[A-Za-z0-9+/]{40,}={0,2})(?:\s|\\[nr]|-----|["']|$)"""
    rf"|(?P<stub>[A-Za-z0-9+/=]{{16,39}}){_PEM_BREAK}-----END ))"
)
_URL_PASSWORD = re.compile(
    r"(?P<label>://[^\s:/@]{0,64}:)(?P<secret>(?P<body>[^\s:/@]{1,128}))@(?=[\w\[])"
)
# An operator and the value after it; the key before it is checked separately, since
# a pattern starting with the key could not skip ahead (keywords start with common
# letters). One pattern per operator character, because the engine skips ahead to a
# single literal several times faster than to a set such as `[=:]`. The `://` of a URL
# is no assignment; skipping it early halves the work on Markdown full of links.
# Quoted values may hold anything but a newline. Bare values stop at whitespace,
# quotes, separators (`,;&`), brackets and operators (keeping base64 `=` padding), so
# one never swallows the next assignment (`https://host?token=...`).
_ASSIGNED_VALUE = (
    r"""(?!//)[ \t]*(?P<q>["'`])?(?:(?:[Bb]earer|[Bb]asic|[Tt]oken)[ \t]+)?"""
    r"""(?P<secret>(?(q)[^"'`\r\n]{8,256}?|[^\s"'`,;&(){}\[\]<>=:]{8,256}+={0,2}))(?(q)(?P=q))"""
)
_ASSIGNMENTS = (re.compile("=>?" + _ASSIGNED_VALUE), re.compile(":=?" + _ASSIGNED_VALUE))
# A Python, TypeScript or Kotlin annotation between key and `=`: `str`, `Optional[str]`.
_TYPE_ARGUMENTS = r"\[[\w., |]*+(?:\[[\w., |]*+\][\w., |]*+)*+\]"  # nested one level deep
_TYPE_NAME = rf"[A-Za-z_][\w.]*+(?:{_TYPE_ARGUMENTS})?"
_TYPE_ANNOTATION = re.compile(rf"{_TYPE_NAME}(?:[ \t]*\|[ \t]*{_TYPE_NAME})*")
_AWS_SECRET_ACCESS_KEY_SHAPE = re.compile(r"[A-Za-z0-9/+=]{40}")


def _key_suffixes(*templates: str) -> tuple[str, ...]:
    """Expand `{}` in each template to the separators `_`, `-` and nothing."""
    return tuple(template.format(sep) for template in templates for sep in ("_", "-", ""))


# The keyword must end the key (`db_password`, `clientSecret`, `API_TOKEN`), so keys
# such as `password_file`, `secretRef` or `token_ttl` that merely mention it are skipped.
_SECRET_KEY_SUFFIXES = (
    "password", "passwd", "passphrase", "pwd", "secret", "token", "credential",
    "credentials", "authorization",
    *_key_suffixes(
        "api{}key", "access{}key", "secret{}key", "private{}key", "signing{}key",
        "encryption{}key", "master{}key", "app{}key",
    ),
)  # fmt: skip
_AWS_SECRET_KEY_SUFFIXES = _key_suffixes("secret{0}access{0}key", "aws{0}secret{0}key")
# Tokens that are handles, not credentials: pagination cursors (`NextToken`,
# `nextPageToken`), idempotency and concurrency tokens (`ClientToken`, `LockToken`) and
# public verification records.
_NON_SECRET_TOKEN_SUFFIXES = _key_suffixes(
    *(
        qualifier + "{}token"
        for qualifier in (
            "next", "page", "continuation", "forward", "backward", "pagination", "cursor",
            "idempotency", "client", "request", "change", "lock", "update", "action",
            "output", "input", "verification",
        )
    )
)  # fmt: skip


# Values that stand for a secret rather than being one: templates and references
# (`${X}`, `{{x}}`, `<x>`, `$X`, `%(x)s`, YAML tags and anchors), filler (`xxxx`, `***`,
# `...`, `your-key`, `changeme`, `example`), paths, URLs and resource names (`arn:...`),
# and prose (whitespace).
_PLACEHOLDER = re.compile(
    r"(?i)^[$%{<@&*!#]|^(?:your|my)[-_]|x{4}|\*{3}|\.{3}|\u2026|\$\{|\{\{|<[^>]*>|"
    r"example|change[-_]?me|redacted|placeholder|dummy|^\.?\.?/|^~/|://|^[au]rn:|\s"
)


def _runs(alphabet: str, length: int) -> list[str]:
    """Every run of `length` consecutive characters of alphabet, forwards and backwards."""
    runs = [alphabet[start : start + length] for start in range(len(alphabet) - length + 1)]
    return runs + [run[::-1] for run in runs]


# Hand-typed example values (`AB1C2defGHijkLMNo3PqQRstuvwxyz`, `abc12345678`) hold long
# runs that random strings never do. Only generic values are judged by this: a provider
# prefix is evidence enough, and people do put short runs (`12345`) in real passwords.
_HAND_TYPED_RUN = re.compile(
    "(?i)" + "|".join(_runs(string.ascii_lowercase, 8) + _runs(string.digits, 8))
)
_PLACEHOLDER_WORDS = frozenset(
    {"none", "null", "nil", "true", "false", "undefined", "empty", "required", "optional"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+(?:[.:-][A-Za-z0-9_]++)*+")
_IDENTIFIER_PIECE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]")
_NEWLINE = re.compile("\n")
_DIGIT = re.compile("[0-9]")


@dataclass(frozen=True)
class _Candidate:
    """A finding before its offset is turned into a line and column."""

    kind: str
    start: int
    end: int
    excerpt: str


class _Detector(Protocol):
    """Finds one or more kinds of secret; `scan` runs every detector over the text."""

    def find(self, text: str) -> Iterator[_Candidate]: ...


@dataclass(frozen=True)
class _PatternDetector:
    """A pattern with `secret`, `label` and `body` groups, and a check on each match."""

    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[re.Match[str]], bool]

    def find(self, text: str) -> Iterator[_Candidate]:
        for match in self.pattern.finditer(text):
            if self.accept(match):
                yield _candidate(self.kind, match.group("label"), match)


@dataclass(frozen=True)
class _AssignmentDetector:
    """A value after `=`, `:`, `:=` or `=>` whose key ends in a secret keyword."""

    def find(self, text: str) -> Iterator[_Candidate]:
        for match in _assignment_values(text):
            key = _secret_key_before(text, match.start())
            if key is None:
                continue
            kind = _assignment_kind(key, match)
            if kind is not None:
                yield _candidate(kind, key, match)


def scan(text: str) -> list[SecretFinding]:
    """Return every credential-like string in text (1-based line and column), excerpt redacted.

    Lines are split on ``\\n`` and columns count characters (code points); both point at
    the first character of the secret. Findings are ordered by position; where two
    detectors match overlapping text, the more specific one wins.
    """
    candidates = _without_overlaps(
        candidate for detector in _DETECTORS for candidate in detector.find(text)
    )
    if not candidates:
        return []
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
    return [_to_finding(candidate, line_starts) for candidate in candidates]


def redact(text: str) -> str:
    """``text`` with every credential-like string replaced by ``[redacted <kind>]``: for
    records that must be kept (an audit event of a read) but must not carry the secret."""
    candidates = _without_overlaps(
        candidate for detector in _DETECTORS for candidate in detector.find(text)
    )
    for candidate in sorted(candidates, key=lambda c: c.start, reverse=True):
        text = f"{text[: candidate.start]}[redacted {candidate.kind}]{text[candidate.end :]}"
    return text


def _candidate(kind: str, label: str, match: re.Match[str]) -> _Candidate:
    start, end = match.span("secret")
    return _Candidate(kind, start, end, _excerpt(label, match.group("secret")))


def _excerpt(label: str, secret: str) -> str:
    if label == secret:  # a private key header: the key material follows it
        return f"{label}{_ELLIPSIS}"
    return f"{label}{_ELLIPSIS}({len(secret)} chars)"


def _without_overlaps(candidates: Iterator[_Candidate]) -> list[_Candidate]:
    """Keep candidates in detector order, dropping any that overlap one already kept."""
    kept: list[_Candidate] = []
    starts: list[int] = []
    for candidate in candidates:
        index = bisect_right(starts, candidate.start)
        if index and kept[index - 1].end > candidate.start:
            continue
        if index < len(kept) and kept[index].start < candidate.end:
            continue
        kept.insert(index, candidate)
        starts.insert(index, candidate.start)
    return kept


def _to_finding(candidate: _Candidate, line_starts: list[int]) -> SecretFinding:
    line = bisect_right(line_starts, candidate.start)
    column = candidate.start - line_starts[line - 1] + 1
    return SecretFinding(candidate.kind, line, column, candidate.excerpt)


def _assignment_values(text: str) -> Iterator[re.Match[str]]:
    """Every operator with a value; the search resumes at the value, not after it,
    because a quoted value (`args: "--password=..."`) may hold the assignment that
    matters."""
    for pattern in _ASSIGNMENTS:
        position = 0
        while match := pattern.search(text, position):
            yield match
            position = match.start("secret")


def _secret_key_before(text: str, operator: int) -> str | None:
    """The name of the key just before the operator, if it names a secret.

    Before `=` the key may carry a type annotation: `api_key: str = ...`.
    """
    window = text[max(0, operator - _KEY_WINDOW) : operator].rstrip(" \t")
    name = _secret_key_name(window, colon=text.startswith(":", operator))
    if name is None and text.startswith("=", operator):
        head, colon, annotation = window.rpartition(":")
        if colon and _TYPE_ANNOTATION.fullmatch(annotation.strip()):
            name = _secret_key_name(head.rstrip(" \t"))
    return name


def _secret_key_name(key: str, *, colon: bool = False) -> str | None:
    """The key name ending key (`"db_password"`, `cfg['token']`) if it names a secret.

    Keys naming public material (`publicKeyToken`) or handles (`NextToken`) are not
    secrets, nor, before a colon, a segment of a colon path such as an ARN
    (`arn:aws:secretsmanager:...:secret:name`) or a type (`AWS::ApiGateway::ApiKey`).
    """
    key = key.removesuffix("]")
    key = key[:-1] if key.endswith(('"', "'")) else key
    name = key[len(key.rstrip(_KEY_CHARS)) :]
    lowered = name.lower()
    if not lowered.endswith(_SECRET_KEY_SUFFIXES) or "public" in lowered:
        return None
    if lowered.endswith(_NON_SECRET_TOKEN_SUFFIXES):
        return None
    if colon and key[: len(key) - len(name)].endswith(":"):
        return None
    return name


def _assignment_kind(key: str, match: re.Match[str]) -> str | None:
    value = match.group("secret")
    after = match.string[match.end() : match.end() + 1]
    if match.group("q") is None and after in _CODE_AFTER_VALUE:
        return None  # a call or subscript such as `get_password()` or `os.environ[...]`
    if key.lower().endswith(_AWS_SECRET_KEY_SUFFIXES) and _is_aws_secret_access_key(value):
        return "aws-secret-access-key"
    if _is_credential_value(value, _MIN_ENTROPY):
        return "secret-assignment"
    return None


def _is_aws_secret_access_key(value: str) -> bool:
    return (
        _AWS_SECRET_ACCESS_KEY_SHAPE.fullmatch(value) is not None
        and _is_random(value)
        and _character_classes(value) >= 2
    )


def _accept_token(match: re.Match[str]) -> bool:
    body = match.group("body")
    return len(body) <= _MAX_TOKEN_LENGTH and _stands_alone(match) and _is_random(body)


def _accept_mixed_token(match: re.Match[str]) -> bool:
    """Random keys mix classes; kebab-case words that happen to start with `sk-` do not."""
    return _accept_token(match) and _character_classes(match.group("body")) >= 2


def _accept_slack_token(match: re.Match[str]) -> bool:
    """Slack tokens embed numeric team and user ids; `xoxb-not-a-real-token` does not."""
    return _accept_token(match) and _DIGIT.search(match.group("body")) is not None


def _accept_webhook(match: re.Match[str]) -> bool:
    return _is_random(match.group("body"))


def _accept_private_key(match: re.Match[str]) -> bool:
    """Documentation keys say so in their body: `MIIE...EXAMPLE...`."""
    return not _PLACEHOLDER.search(match.group("body") or match.group("stub"))


def _accept_url_password(match: re.Match[str]) -> bool:
    return _is_credential_value(match.group("body"), _MIN_URL_PASSWORD_ENTROPY)


def _stands_alone(match: re.Match[str]) -> bool:
    """Not part of a longer word: `xghp_...` or `AKIA...X` are something else."""
    start, end = match.span()
    text = match.string
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return before not in _TOKEN_CHARS and after not in _TOKEN_CHARS


def _is_random(body: str) -> bool:
    return _entropy(body) >= _MIN_ENTROPY and not _PLACEHOLDER.search(body)


def _is_credential_value(encoded: str, min_entropy: float) -> bool:
    """Judged decoded: `a%20secret` is the words "a secret", not a random string."""
    value = unquote(encoded)
    return (
        len(value) >= _MIN_VALUE_LENGTH
        and value.lower() not in _PLACEHOLDER_WORDS
        and not _PLACEHOLDER.search(value)
        and not _HAND_TYPED_RUN.search(value)
        and not _looks_like_identifier(value)
        and _character_classes(value) >= 2
        and _entropy(value) >= min_entropy
    )


def _looks_like_identifier(value: str) -> bool:
    """True for names such as LEDGERLINE_API_TOKEN, self.db_password or my-private-key."""
    value = value.rstrip(".")  # the full stop of a sentence
    if not _IDENTIFIER.fullmatch(value):
        return False
    # Digits are where random strings betray themselves, unless the value is an
    # attribute path (`ed25519.Ed25519PrivateKey`).
    if "." not in value and len(_DIGIT.findall(value)) > _MAX_IDENTIFIER_DIGITS:
        return False
    pieces = _IDENTIFIER_PIECE.findall(value)
    letters = sum(len(piece) for piece in pieces)
    return bool(pieces) and letters / len(pieces) >= _MIN_IDENTIFIER_PIECE_LENGTH


def _character_classes(value: str) -> int:
    """How many of lower case, upper case and digits the value uses."""
    has_lower = value != value.upper()
    has_upper = value != value.lower()
    has_digit = _DIGIT.search(value) is not None
    return has_lower + has_upper + has_digit


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in Counter(value).values())


# Order matters: earlier detectors win where matches overlap (an Anthropic key is also
# `sk-...`; `GITHUB_TOKEN=ghp_...` is also an assignment).
_DETECTORS: tuple[_Detector, ...] = (
    _PatternDetector("private-key", _PRIVATE_KEY, _accept_private_key),
    _PatternDetector("aws-access-key-id", _AWS_ACCESS_KEY_ID, _accept_token),
    _PatternDetector("github-token", _GITHUB_TOKEN, _accept_token),
    _PatternDetector("github-token", _GITHUB_FINE_GRAINED_TOKEN, _accept_token),
    _PatternDetector("gitlab-token", _GITLAB_TOKEN, _accept_token),
    _PatternDetector("anthropic-api-key", _ANTHROPIC_KEY, _accept_token),
    _PatternDetector("openai-api-key", _OPENAI_KEY, _accept_mixed_token),
    _PatternDetector("slack-token", _SLACK_TOKEN, _accept_slack_token),
    _PatternDetector("slack-webhook", _SLACK_WEBHOOK, _accept_webhook),
    _PatternDetector("stripe-key", _STRIPE_SECRET_KEY, _accept_token),
    _PatternDetector("stripe-key", _STRIPE_RESTRICTED_KEY, _accept_token),
    _PatternDetector("google-api-key", _GOOGLE_API_KEY, _accept_token),
    _PatternDetector("url-password", _URL_PASSWORD, _accept_url_password),
    _AssignmentDetector(),
)
