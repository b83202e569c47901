"""Secret scanning: finds credential-like strings before they reach Git history.

Git history cannot be un-written, so the vault refuses content that looks like a
credential. `scan` runs a fixed, ordered set of detectors over the text:

* provider tokens with a recognisable format (AWS access key ids, GitHub, GitLab,
  OpenAI, Anthropic, Slack, Stripe keys and webhook secrets, Google API keys and OAuth
  client secrets, npm, PyPI, Hugging Face, Twilio, SendGrid, HashiCorp Vault,
  DigitalOcean, Shopify, Telegram and Discord bot tokens, Azure storage keys, SAS
  signatures and AD client secrets, Docker Hub, Postman, Grafana, Linear, Databricks,
  age keys) and private key blocks;
* passwords in URLs (``scheme://user:pass@host``), in ``curl -u user:pass`` and in
  docker or npm ``auth`` fields (base64 of ``user:pass``);
* assignments (``password=``, ``token:``, ``"api_key": "..."``, ``'secret' => '...'``)
  whose value is long, high-entropy and mixes character classes, and is not a
  placeholder, a template, an environment-variable name or a code expression; an AWS
  secret access key, which has no prefix, is recognised by its key name and shape, or by
  its shape beside an AWS access key id.

Then the text is looked at again as a person would read it: each line holding full-width
or zero-width characters, HTML entities or percent escapes is normalised (NFKC, format
characters dropped, entities and escapes decoded), each long base64 run is decoded, and a
line whose last word and the next line's first word look like the two halves of a token
is joined to it; each such view is scanned like the text (decoded views again, a few
levels deep). A finding in a view names the line and column of the original text where
the encoded form starts, and spans it, so `redact` removes the encoded form.

Findings never carry the secret: the excerpt shows only a non-secret label (a known
prefix or the key name), an ellipsis and the length of the hidden value.

Patterns start with a literal (a prefix, ``://``, an operator) wherever possible, so
the regex engine skips ahead instead of trying each position; tokens whose format starts
with a character class (Telegram, Discord, Azure AD) are found from a literal in their
middle and checked backwards. That keeps a 1 MiB scan well under 50 ms.
"""

from __future__ import annotations

import base64
import binascii
import html
import math
import re
import string
import unicodedata
from bisect import bisect_left, bisect_right
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
# Formats as documented by each provider (and as gitleaks' MIT-licensed rules have them).
_GOOGLE_OAUTH_SECRET = _token("GOCSPX-", "[A-Za-z0-9_-]{28}")
_STRIPE_WEBHOOK_SECRET = _token("whsec_", "[A-Za-z0-9+/=]{24,}+")
_NPM_TOKEN = _token("npm_", "[A-Za-z0-9]{36}")
_PYPI_TOKEN = _token("pypi-AgEIcHlwaS5vcmc", "[A-Za-z0-9_-]{50,}+")
_HUGGINGFACE_TOKEN = _token("hf_", "[A-Za-z]{34}")
_TWILIO_API_KEY = _token("SK", "[0-9a-fA-F]{32}")
_SENDGRID_KEY = _token(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")
_VAULT_TOKEN = _token(r"hv[sbr]\.", "[A-Za-z0-9_-]{24,}+")
_DIGITALOCEAN_TOKEN = _token("do[opr]_v1_", "[a-f0-9]{64}")
_SHOPIFY_TOKEN = _token("shp(?:at|ca|pa|ss)_", "[a-fA-F0-9]{32}")
_DOCKER_HUB_TOKEN = _token("dckr_pat_", "[A-Za-z0-9_-]{27,}+")
_POSTMAN_KEY = _token("PMAK-", "[a-f0-9]{24}-[a-f0-9]{34}")
_GRAFANA_TOKEN = _token("gl(?:sa|c)_", "[A-Za-z0-9_+/]{32,}+={0,2}")
_LINEAR_KEY = _token("lin_api_", "[A-Za-z0-9]{40}")
_DATABRICKS_TOKEN = _token("dapi", "[a-f0-9]{32}(?:-[0-9])?")
_AGE_SECRET_KEY = _token("AGE-SECRET-KEY-1", "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")
# Azure storage and service bus connection strings: the key is base64 of 64 or 32 bytes.
_AZURE_ACCOUNT_KEY = _token(
    "(?:Account|SharedAccess)Key=", "[A-Za-z0-9+/]{86}==|[A-Za-z0-9+/]{43}="
)
# A SAS URL's signature: percent-encoded base64 of an HMAC-SHA256 (32 bytes).
_AZURE_SAS_SIGNATURE = _token("sig=", "[A-Za-z0-9+/%]{43,}+")
# Formats that start with a class (digits, base64) are found from a literal in their
# middle: the bot id of a Telegram token, the base64 user id of a Discord token and the
# head of an Azure AD client secret are checked before it.
_TELEGRAM_BOT_TOKEN = re.compile(r"(?P<secret>:(?P<body>AA[A-Za-z0-9_-]{33}))")
_TELEGRAM_BOT_ID = re.compile(r"(?<![0-9])[0-9]{6,12}\Z")
_DISCORD_BOT_TOKEN = re.compile(r"(?P<secret>\.(?P<body>[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}))")
_DISCORD_USER_ID = re.compile(r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9]{23,27}\Z")
_AZURE_AD_CLIENT_SECRET = re.compile(r"(?P<secret>Q~(?P<body>[A-Za-z0-9_~.-]{31,34}))")
_AZURE_AD_SECRET_HEAD = re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]\Z")
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
_CURL_USER = re.compile(
    r"""-(?:u|-user)[ \t]+["']?(?P<label>[^\s:"'$]{1,64}:)(?P<secret>(?P<body>[^\s"']{1,128}))"""
)
# Docker's config.json (`"auth": "<base64 of user:pass>"`) and npm's `_auth=`.
_AUTH_VALUE = r"""[ \t]*["']?(?P<secret>(?P<body>[A-Za-z0-9+/]{8,512}={0,2}))"""
_DOCKER_AUTH = re.compile(rf"""(?P<label>"auth"[ \t]*:){_AUTH_VALUE}""")
_NPM_AUTH = re.compile(rf"""(?P<label>_auth[ \t]*=){_AUTH_VALUE}""")
# An operator and the value after it; the key before it is checked separately, since
# a pattern starting with the key could not skip ahead (keywords start with common
# letters). One pattern per operator character, because the engine skips ahead to a
# single literal several times faster than to a set such as `[=:]`. The `://` of a URL
# is no assignment; skipping it early halves the work on Markdown full of links.
# Quoted values may hold anything but a newline. Bare values stop at whitespace,
# quotes, separators (`,;`), brackets and operators (keeping base64 `=` padding), and at
# an `&` that starts the next query parameter, so one never swallows the next assignment
# (`https://host?token=...&x=1`) but keeps a password such as `Tr0ub4dor&3horse` whole.
_ASSIGNED_VALUE = (
    r"""(?!//)[ \t]*(?P<q>["'`])?(?:(?:[Bb]earer|[Bb]asic|[Tt]oken)[ \t]+)?"""
    r"""(?P<secret>(?(q)[^"'`\r\n]{8,256}?|"""
    r"""(?:[^\s"'`,;&(){}\[\]<>=:]|&(?![A-Za-z_][\w.-]*=)){8,256}+={0,2}))(?(q)(?P=q))"""
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
        "encryption{}key", "master{}key", "app{}key", "account{}key",
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

# An AWS secret access key has no prefix: its shape counts beside an access key id (a
# CSV export, a table, two lines of a note), or after its key name and a space (`aws
# configure set aws_secret_access_key ...`).
_AWS_PAIR_WINDOW = 320
_AWS_BARE_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
# One pattern per name: a leading literal is what lets the engine skip ahead.
_AWS_SECRETS_AFTER_NAME = tuple(
    re.compile(
        rf"(?P<label>{name})"
        r"""[ \t]+["']?(?P<secret>(?P<body>[A-Za-z0-9/+]{40}))(?![A-Za-z0-9/+=])"""
    )
    for name in ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "--secret-access-key")
)
# How far back an anchored detector looks for the head of its token.
_HEAD_WINDOW = 40

# Views: the text read again after decoding. Each view is scanned like the text, down
# to _MAX_DEPTH levels (base64 of a percent-encoded token is two).
_MAX_DEPTH = 3
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PERCENT_RUN = re.compile("%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*")
_NON_ASCII_RUN = re.compile("[^\x00-\x7f]+")
_CHUNK = 256
# Format characters (Unicode category Cf: zero-width space and joiners, bidi controls,
# soft hyphen, BOM, tags) and fillers that render as nothing; dropped before NFKC.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
# Base64 runs are found on a byte copy of the text where every base64 character is 1 and
# every other one a space (non-ASCII characters become one `?` each, so offsets hold):
# a literal pattern the engine skips to, where a character class would be tried at every
# position. Shorter runs hide nothing worth a token; longer ones are images or files.
_BASE64_ALPHABET = string.ascii_letters + string.digits + "+/_-"
_BASE64_MARKS = bytes(1 if chr(byte) in _BASE64_ALPHABET else 32 for byte in range(256))
_MIN_BASE64_RUN = 20
_MAX_BASE64_RUN = 8192
_BASE64_RUN = re.compile(b"\x01" * _MIN_BASE64_RUN + b"\x01*")
_CONTROL_WHITESPACE = str.maketrans("", "", "\t\r\n")
# A token broken over lines: the next line starts with a run that holds a digit (prose
# lines seldom do), and the line before ends with a token-like run; quotes and `+` of a
# string concatenation and a trailing backslash may sit at the break.
_SPLIT_TAIL = re.compile(
    r"""\n[ \t>#*"'+]*(?=[A-Za-z_+/=.-]*[0-9])[A-Za-z0-9_+/=.-]{6,}+(?![^\s"',;)])"""
)
_SPLIT_HEAD = re.compile(r"""[A-Za-z0-9_+/=.-]{3,}+(?P<glue>["']?[ \t]*\+?[ \t]*\\?\r?)\Z""")
_SPLIT_INDENT = re.compile(r"""[ \t>#*"'+]*""")
_MIN_JOINED_LENGTH = 16


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


@dataclass(frozen=True)
class _AnchoredDetector:
    """A token found from a literal in its middle (the `:AA` of a Telegram bot token):
    ``head`` must end just before the match, and ``accept`` judges head and body."""

    kind: str
    pattern: re.Pattern[str]
    head: re.Pattern[str]
    accept: Callable[[str, str], bool]

    def find(self, text: str) -> Iterator[_Candidate]:
        for match in self.pattern.finditer(text):
            start, end = match.span()
            head = self.head.search(text, max(0, start - _HEAD_WINDOW), start)
            if head is None or (end < len(text) and text[end] in _TOKEN_CHARS):
                continue
            if self.accept(head.group(), match.group("body")):
                secret = text[head.start() : end]
                yield _Candidate(self.kind, head.start(), end, _excerpt("", secret))


@dataclass(frozen=True)
class _AwsPairDetector:
    """A bare AWS secret access key near an access key id, or after its name and a space."""

    def find(self, text: str) -> Iterator[_Candidate]:
        for pattern in _AWS_SECRETS_AFTER_NAME:
            for match in pattern.finditer(text):
                if _is_aws_secret_access_key(match.group("body")):
                    yield _candidate("aws-secret-access-key", match.group("label"), match)
        for key_id in _AWS_ACCESS_KEY_ID.finditer(text):
            if not _accept_token(key_id):
                continue
            start, end = key_id.span()
            window = (max(0, start - _AWS_PAIR_WINDOW), end + _AWS_PAIR_WINDOW)
            for match in _AWS_BARE_SECRET.finditer(text, *window):
                if _is_bare_aws_secret(match.group()):
                    secret = match.group()
                    yield _Candidate(
                        "aws-secret-access-key", match.start(), match.end(), _excerpt("", secret)
                    )


def scan(text: str) -> list[SecretFinding]:
    """Return every credential-like string in text (1-based line and column), excerpt redacted.

    Lines are split on ``\\n`` and columns count characters (code points); both point at
    the first character of the secret, or of its encoded form when it was found decoded.
    Findings are ordered by position; where two detectors match overlapping text, the more
    specific one wins, and one on the text as written wins over one in a decoded view.
    """
    candidates = _find(text)
    if not candidates:
        return []
    line_starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
    return [_to_finding(candidate, line_starts) for candidate in candidates]


def redact(text: str) -> str:
    """``text`` with every credential-like string replaced by ``[redacted <kind>]``: for
    records that must be kept (an audit event of a read) but must not carry the secret."""
    for candidate in sorted(_find(text), key=lambda c: c.start, reverse=True):
        text = f"{text[: candidate.start]}[redacted {candidate.kind}]{text[candidate.end :]}"
    return text


def _find(text: str, depth: int = 0) -> list[_Candidate]:
    """Candidates in text, then in each view of it, without overlaps (earlier wins)."""
    found = [candidate for detector in _DETECTORS for candidate in detector.find(text)]
    if depth < _MAX_DEPTH:
        for view in _views(text):
            found.extend(_from_view(view, depth + 1))
    return _without_overlaps(iter(found))


@dataclass(frozen=True)
class _View:
    """A stretch of the text, ``start`` to ``end``, read after decoding.

    ``pieces`` holds ``(view_start, view_end, start, end)`` for each replaced stretch, in
    order; text between them was copied. With ``crossing``, only candidates that span a
    replaced stretch count (the rest were seen in the text as written).
    """

    text: str
    form: str
    pieces: tuple[tuple[int, int, int, int], ...]
    start: int
    crossing: bool = False

    def origin(self, offset: int, *, end: bool) -> int:
        """The offset in the original text of a view offset (a start or an end)."""
        starts = [piece[0] for piece in self.pieces]
        index = (bisect_left(starts, offset) if end else bisect_right(starts, offset)) - 1
        if index < 0:
            return self.start + offset
        view_start, view_end, start, stop = self.pieces[index]
        if offset < view_end or (end and offset == view_end and view_start < view_end):
            return stop if end else start
        return stop + offset - view_end

    def crosses(self, candidate: _Candidate) -> bool:
        return any(candidate.start < piece[0] < candidate.end for piece in self.pieces)


def _make_view(
    text: str, span: tuple[int, int], replacements: list[tuple[int, int, str]], form: str
) -> _View:
    """The stretch ``span`` of text with each ``(start, end, new)`` replacement made."""
    parts: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    position, length = span[0], 0
    for start, end, new in replacements:
        parts.append(text[position:start])
        length += start - position
        pieces.append((length, length + len(new), start, end))
        parts.append(new)
        length += len(new)
        position = end
    parts.append(text[position : span[1]])
    return _View("".join(parts), form, tuple(pieces), span[0], form == "split")


def _from_view(view: _View, depth: int) -> Iterator[_Candidate]:
    for candidate in _find(view.text, depth):
        if view.crossing and not view.crosses(candidate):
            continue
        start = view.origin(candidate.start, end=False)
        end = max(view.origin(candidate.end, end=True), start + 1)
        yield _Candidate(candidate.kind, start, end, f"{candidate.excerpt} ({view.form})")


def _views(text: str) -> Iterator[_View]:
    yield from _normalised_views(text)
    yield from _base64_views(text)
    yield from _split_views(text)


def _normalised_views(text: str) -> Iterator[_View]:
    """One view per line holding entities, percent escapes, or characters that NFKC
    changes (full-width forms, ligatures) or that render as nothing (zero-width)."""
    replacements = sorted([*_entities(text), *_percent_escapes(text), *_unicode_forms(text)])
    line: list[tuple[int, int, str]] = []
    for replacement in replacements:
        if line and text.find("\n", line[-1][1], replacement[0]) != -1:
            yield _line_view(text, line)
            line = []
        line.append(replacement)
    if line:
        yield _line_view(text, line)


def _line_view(text: str, replacements: list[tuple[int, int, str]]) -> _View:
    start = text.rfind("\n", 0, replacements[0][0]) + 1
    end = text.find("\n", replacements[-1][1])
    return _make_view(text, (start, len(text) if end == -1 else end), replacements, "decoded")


def _entities(text: str) -> Iterator[tuple[int, int, str]]:
    if "&" not in text:
        return
    for match in _ENTITY.finditer(text):
        decoded = html.unescape(match.group())
        if decoded != match.group():
            yield match.start(), match.end(), decoded


def _percent_escapes(text: str) -> Iterator[tuple[int, int, str]]:
    if "%" not in text:
        return
    for match in _PERCENT_RUN.finditer(text):
        yield match.start(), match.end(), unquote(match.group(), errors="replace")


def _unicode_forms(text: str) -> Iterator[tuple[int, int, str]]:
    for start, end in _non_ascii_stretches(text):
        for match in _NON_ASCII_RUN.finditer(text, start, end):
            run = match.group()
            visible = _INVISIBLE.sub("", run)
            if visible != run or not unicodedata.is_normalized("NFKC", visible):
                yield match.start(), match.end(), unicodedata.normalize("NFKC", visible)


def _non_ascii_stretches(text: str) -> list[tuple[int, int]]:
    """Stretches of text (whole chunks) that hold every non-ASCII character: `isascii`
    on a chunk is many times faster than a character class tried at each position."""
    if text.isascii():
        return []
    stretches: list[tuple[int, int]] = []
    for start in range(0, len(text), _CHUNK):
        end = min(start + _CHUNK, len(text))
        if text[start:end].isascii():
            continue
        if stretches and stretches[-1][1] == start:
            start = stretches.pop()[0]
        stretches.append((start, end))
    return stretches


def _base64_views(text: str) -> Iterator[_View]:
    """One view per long base64 run that decodes to text (the whole run maps to itself)."""
    marks = _ascii_copy(text).translate(_BASE64_MARKS)
    for match in _BASE64_RUN.finditer(marks):
        start, end = match.span()
        if end - start > _MAX_BASE64_RUN or text[start:end].islower():
            continue  # an image, or a path, a hash or a word: base64 of text mixes cases
        while end < len(text) and end - match.end() < 2 and text[end] == "=":
            end += 1
        decoded = _base64_text(text[start:end])
        if decoded is not None:
            yield _make_view(text, (start, end), [(start, end, decoded)], "base64-encoded")


def _ascii_copy(text: str) -> bytes:
    """text as ASCII bytes, each non-ASCII character a space (so offsets hold)."""
    parts: list[str] = []
    position = 0
    for start, end in _non_ascii_stretches(text):
        parts.append(text[position:start])
        parts.append(_NON_ASCII_RUN.sub(lambda run: " " * len(run.group()), text[start:end]))
        position = end
    parts.append(text[position:])
    return "".join(parts).encode("ascii")


def _base64_text(run: str) -> str | None:
    """The UTF-8 text that run encodes (standard or URL-safe alphabet), if it is text."""
    urlsafe = "-" in run or "_" in run
    if urlsafe and ("+" in run or "/" in run):
        return None
    padded = run + "=" * (-len(run) % 4)
    try:
        data = base64.b64decode(padded, altchars=b"-_" if urlsafe else None, validate=True)
        decoded = data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded if decoded.translate(_CONTROL_WHITESPACE).isprintable() else None


def _split_views(text: str) -> Iterator[_View]:
    """One view per run of lines that a token seems broken over, with the breaks removed."""
    joins: list[tuple[int, int]] = []  # the removed stretch of each break
    for match in _SPLIT_TAIL.finditer(text):
        newline = match.start()
        line_start = text.rfind("\n", 0, newline) + 1
        head = _SPLIT_HEAD.search(text, line_start, newline)
        tail_start = _SPLIT_INDENT.match(text, newline + 1).end()  # type: ignore[union-attr]
        if head is None:
            continue
        if head.start("glue") - head.start() + match.end() - tail_start < _MIN_JOINED_LENGTH:
            continue
        joins.append((head.start("glue"), tail_start))
    group: list[tuple[int, int]] = []
    for join in joins:
        if group and text.find("\n", group[-1][1], join[0]) != -1:
            yield _split_view(text, group)
            group = []
        group.append(join)
    if group:
        yield _split_view(text, group)


def _split_view(text: str, joins: list[tuple[int, int]]) -> _View:
    start = text.rfind("\n", 0, joins[0][0]) + 1
    end = text.find("\n", joins[-1][1])
    replacements = [(glue, tail, "") for glue, tail in joins]
    return _make_view(text, (start, len(text) if end == -1 else end), replacements, "split")


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
    if not (lowered.endswith(_SECRET_KEY_SUFFIXES) or _ends_in_pass(name)):
        return None
    if "public" in lowered:
        return None
    if lowered.endswith(_NON_SECRET_TOKEN_SUFFIXES):
        return None
    if colon and key[: len(key) - len(name)].endswith(":"):
        return None
    return name


def _ends_in_pass(name: str) -> bool:
    """`pass` as the last word of the key (`DB_PASS`, `smtp-pass`, `dbPass`, `pass`), not
    the end of a longer word (`bypass`, `compass`)."""
    if not name.lower().endswith("pass"):
        return False
    head = name[:-4]
    return not head or head[-1] in "_.-" or (name[-4] == "P" and head[-1].islower())


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


def _is_bare_aws_secret(value: str) -> bool:
    """Without a key name, a hash (hex, one case) or a path is not taken for a key."""
    return (
        _is_aws_secret_access_key(value)
        and _character_classes(value) == 3
        and not _looks_like_path(value)
    )


def _looks_like_path(value: str) -> bool:
    return any(len(part) >= 3 and part.isalpha() for part in value.split("/")[1:-1])


def _accept_token(match: re.Match[str]) -> bool:
    body = match.group("body")
    return len(body) <= _MAX_TOKEN_LENGTH and _stands_alone(match) and _is_random(body)


def _accept_mixed_token(match: re.Match[str]) -> bool:
    """Random keys mix classes; kebab-case words that happen to start with `sk-` do not."""
    return _accept_token(match) and _character_classes(match.group("body")) >= 2


def _accept_slack_token(match: re.Match[str]) -> bool:
    """Slack tokens embed numeric team and user ids; `xoxb-not-a-real-token` does not."""
    return _accept_token(match) and _DIGIT.search(match.group("body")) is not None


def _accept_word_free_token(match: re.Match[str]) -> bool:
    """Bodies of letters only (Hugging Face) must not read as words: `hf_AutoModel...`."""
    return _accept_token(match) and not _looks_like_identifier(match.group("body"))


def _accept_hex_token(match: re.Match[str]) -> bool:
    """Hex bodies of random keys hold both digits and letters."""
    body = match.group("body")
    return _accept_token(match) and _DIGIT.search(body) is not None and not body.isdigit()


def _accept_sas_signature(match: re.Match[str]) -> bool:
    """A SAS signature is base64 of 32 bytes, percent-encoded in its URL."""
    try:
        return len(base64.b64decode(unquote(match.group("body")), validate=True)) == 32
    except (binascii.Error, ValueError):
        return False


def _accept_auth_field(match: re.Match[str]) -> bool:
    """`auth` fields hold base64 of `user:password`; the password is judged like a URL's."""
    decoded = _base64_text(match.group("body"))
    if decoded is None or ":" not in decoded:
        return False
    password = decoded.partition(":")[2]
    return _is_credential_value(password, _MIN_URL_PASSWORD_ENTROPY)


def _accept_telegram(bot_id: str, body: str) -> bool:
    return not bot_id.startswith("0") and _is_random(body)


def _accept_discord(user_id: str, body: str) -> bool:
    """The first part of a Discord bot token is the bot's numeric id, base64-encoded."""
    decoded = _base64_text(user_id)
    return decoded is not None and decoded.isdigit() and _is_random(body)


def _accept_azure_ad_secret(head: str, body: str) -> bool:
    return _is_random(body) and _character_classes(body) >= 2


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
    _PatternDetector("google-oauth-client-secret", _GOOGLE_OAUTH_SECRET, _accept_token),
    _PatternDetector("stripe-webhook-secret", _STRIPE_WEBHOOK_SECRET, _accept_token),
    _PatternDetector("npm-token", _NPM_TOKEN, _accept_token),
    _PatternDetector("pypi-token", _PYPI_TOKEN, _accept_token),
    _PatternDetector("huggingface-token", _HUGGINGFACE_TOKEN, _accept_word_free_token),
    _PatternDetector("twilio-api-key", _TWILIO_API_KEY, _accept_hex_token),
    _PatternDetector("sendgrid-api-key", _SENDGRID_KEY, _accept_token),
    _PatternDetector("vault-token", _VAULT_TOKEN, _accept_mixed_token),
    _PatternDetector("digitalocean-token", _DIGITALOCEAN_TOKEN, _accept_hex_token),
    _PatternDetector("shopify-token", _SHOPIFY_TOKEN, _accept_hex_token),
    _PatternDetector("docker-hub-token", _DOCKER_HUB_TOKEN, _accept_token),
    _PatternDetector("postman-api-key", _POSTMAN_KEY, _accept_token),
    _PatternDetector("grafana-token", _GRAFANA_TOKEN, _accept_mixed_token),
    _PatternDetector("linear-api-key", _LINEAR_KEY, _accept_token),
    _PatternDetector("databricks-token", _DATABRICKS_TOKEN, _accept_hex_token),
    _PatternDetector("age-secret-key", _AGE_SECRET_KEY, _accept_token),
    _PatternDetector("azure-storage-key", _AZURE_ACCOUNT_KEY, _accept_token),
    _PatternDetector("azure-sas-signature", _AZURE_SAS_SIGNATURE, _accept_sas_signature),
    _AnchoredDetector(
        "telegram-bot-token", _TELEGRAM_BOT_TOKEN, _TELEGRAM_BOT_ID, _accept_telegram
    ),
    _AnchoredDetector("discord-bot-token", _DISCORD_BOT_TOKEN, _DISCORD_USER_ID, _accept_discord),
    _AnchoredDetector(
        "azure-ad-client-secret",
        _AZURE_AD_CLIENT_SECRET,
        _AZURE_AD_SECRET_HEAD,
        _accept_azure_ad_secret,
    ),
    _AwsPairDetector(),
    _PatternDetector("url-password", _URL_PASSWORD, _accept_url_password),
    _PatternDetector("curl-password", _CURL_USER, _accept_url_password),
    _PatternDetector("auth-credentials", _DOCKER_AUTH, _accept_auth_field),
    _PatternDetector("auth-credentials", _NPM_AUTH, _accept_auth_field),
    _AssignmentDetector(),
)
