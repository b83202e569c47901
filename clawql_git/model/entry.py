"""The entry model: frontmatter parse/dump with byte-preserving edits, validation, slugs, paths."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

import yaml

from clawql_git.errors import (
    EntryTooLarge,
    InvalidEncoding,
    InvalidFrontmatter,
    SecretDetected,
    UnsafePath,
)

ENTRY_SUFFIXES = (".md", ".cqk")
STATUSES = ("current", "superseded", "retracted", "archived")
TYPE_RE = re.compile(r"^[A-Za-z0-9_-]+$")
SLUG_MAX = 96
TYPE_FOLDERS = {
    "decision": "decisions",
    "context": "context",
    "error": "errors",
    "pattern": "patterns",
    "task_result": "task_results",
    "code_change": "code_changes",
    "entity_instance": "entity_instances",
}
# Top-level names the engine owns; an entry may never be written there.
RESERVED_TOP = frozenset({".git", ".clawql", "log", "ontology", "archive", "index.md", "log.md"})
RESERVED_NAMES = frozenset({"index.md", "log.md", ".gitattributes", ".gitignore"})
ENGINE_KEY_ORDER = (
    "type",
    "title",
    "description",
    "timestamp",
    "tags",
    "aliases",
    "agent_id",
    "session_id",
    "correlation_id",
    "project",
    "verdict",
    "confidence_score",
    "status",
    "superseded_by",
)
_KEY_LINE = re.compile(
    r"""^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:#'"\-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s|$)"""
)
_ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
_APPEND_HEADING = re.compile(r"^## Update \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", re.MULTILINE)


# ---------------------------------------------------------------- text and YAML


def decode_text(data: bytes, where: str = "entry") -> str:
    """Decode UTF-8 bytes, refusing invalid sequences and NUL bytes; CRLF becomes LF."""
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise InvalidEncoding(f"{where} contains a NUL byte at offset {offset}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidEncoding(
            f"{where} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def check_text(text: str, where: str = "entry") -> str:
    """Refuse NUL characters in already-decoded text; normalise line endings."""
    if "\x00" in text:
        raise InvalidEncoding(f"{where} contains a NUL character at offset {text.index(chr(0))}")
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Split ``---`` fenced YAML from byte 0 off a document: (yaml text or None, body)."""
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^(---|\.\.\.)[ \t]*$\n?", text[4:], re.MULTILINE)
    if end is None:
        raise InvalidFrontmatter("frontmatter starts with '---' but has no closing '---' line")
    fm = text[4 : 4 + end.start()]
    return fm, text[4 + end.end() :]


class _NoAliasLoader(yaml.SafeLoader):
    """A safe loader that refuses anchors and aliases (billion-laughs bombs)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise InvalidFrontmatter(
                f"frontmatter uses a YAML anchor or alias (line {event.start_mark.line + 1}); "
                "they are refused to prevent alias bombs"
            )
        return super().compose_node(parent, index)


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FAST_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def parse_yaml_mapping(fm_text: str) -> dict[str, Any]:
    """Parse frontmatter YAML safely into a mapping with string keys."""
    # Anchors and aliases need '&' or '*'; without them libyaml's fast safe loader is enough.
    loader = _NoAliasLoader if ("&" in fm_text or "*" in fm_text) else _FAST_LOADER
    try:
        data = yaml.load(fm_text, Loader=loader)
    except InvalidFrontmatter:
        raise
    except yaml.YAMLError as exc:
        raise InvalidFrontmatter(f"frontmatter is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidFrontmatter(f"frontmatter must be a YAML mapping, got {type(data).__name__}")
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise InvalidFrontmatter(
            f"frontmatter keys must be strings, got {bad[0]!r} (YAML reads bare yes/no/on/off "
            "and numbers as other types: quote the key)"
        )
    return data


def dump_key(key: str, value: Any) -> str:
    """Render one top-level key as YAML text (ending with a newline)."""
    return yaml.dump(
        {key: value},
        Dumper=_FAST_DUMPER,
        allow_unicode=True,
        sort_keys=False,
        width=10**9,
        default_flow_style=False,
    )


# ---------------------------------------------------------------- byte-preserving frontmatter


@dataclass(frozen=True)
class _Block:
    key: str | None
    text: str


def _blocks(fm_text: str) -> list[_Block]:
    blocks: list[_Block] = []
    for line in fm_text.splitlines(keepends=True):
        match = _KEY_LINE.match(line)
        if match:
            blocks.append(_Block(_unquote(match.group(1)), line))
        elif blocks and not (line.startswith("#") and blocks[-1].key is None):
            blocks[-1] = _Block(blocks[-1].key, blocks[-1].text + line)
        else:
            blocks.append(_Block(None, line))
    return blocks


def _unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        return str(yaml.safe_load(key))
    return key


def edit_frontmatter(fm_text: str, changes: Mapping[str, Any]) -> str:
    """Set (or, with value None, remove) top-level keys; every other byte is kept as it was."""
    blocks = _blocks(fm_text)
    if blocks and not blocks[-1].text.endswith("\n"):
        blocks[-1] = _Block(blocks[-1].key, blocks[-1].text + "\n")
    for key, value in changes.items():
        rendered = None if value is None else dump_key(key, value)
        at = next((i for i, b in enumerate(blocks) if b.key == key), None)
        if at is None and rendered is not None:
            blocks.insert(_insert_position(blocks, key), _Block(key, rendered))
        elif at is not None and rendered is None:
            del blocks[at]
        elif at is not None and rendered is not None:
            blocks[at] = _Block(key, rendered)
    out = "".join(b.text for b in blocks)
    parse_yaml_mapping(out)  # the edit must leave valid YAML behind
    return out


def _insert_position(blocks: list[_Block], key: str) -> int:
    if key not in ENGINE_KEY_ORDER:
        return len(blocks)
    rank = ENGINE_KEY_ORDER.index(key)
    for i, block in enumerate(blocks):
        if block.key in ENGINE_KEY_ORDER and ENGINE_KEY_ORDER.index(block.key) > rank:
            return i
    return len(blocks)


def build_frontmatter(meta: Mapping[str, Any]) -> str:
    """Render a fresh frontmatter from a mapping, engine keys first in their canonical order."""
    ordered = sorted(meta, key=lambda k: ENGINE_KEY_ORDER.index(k) if k in ENGINE_KEY_ORDER else 99)
    return "".join(dump_key(k, meta[k]) for k in ordered if meta[k] is not None)


# ---------------------------------------------------------------- validation


def iso_timestamp(value: Any, field: str = "timestamp") -> str:
    """Normalise an ISO 8601 date/datetime (string or YAML-parsed) to a string; refuse others."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and _ISO_RE.match(value.strip()):
        try:
            datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return value.strip()
    raise InvalidFrontmatter(f"{field} must be an ISO 8601 timestamp, got {value!r}")


def parse_timestamp(value: str) -> datetime:
    """Parse an already-validated ISO 8601 string into an aware UTC datetime."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def now_timestamp() -> str:
    """The current time as the engine writes it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def validate_meta(meta: Mapping[str, Any]) -> None:
    """Check the fields whose contract the engine enforces; unknown keys pass untouched."""
    entry_type = meta.get("type")
    if entry_type is None or (isinstance(entry_type, str) and not entry_type.strip()):
        raise InvalidFrontmatter("frontmatter field 'type' is required and must not be empty")
    if not isinstance(entry_type, str) or not TYPE_RE.match(entry_type):
        raise InvalidFrontmatter(
            f"type {entry_type!r} is not a plain name (letters, digits, '_' and '-' only)"
        )
    _check_optional_fields(meta)


def _check_optional_fields(meta: Mapping[str, Any]) -> None:
    for field in (
        "title",
        "description",
        "agent_id",
        "session_id",
        "correlation_id",
        "project",
        "superseded_by",
    ):
        if field in meta and meta[field] is not None and not isinstance(meta[field], str | int):
            raise InvalidFrontmatter(f"{field} must be a string, got {meta[field]!r}")
    for field in ("tags", "aliases"):
        value = meta.get(field)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str | int) for v in value)
        ):
            raise InvalidFrontmatter(f"{field} must be a list of strings, got {value!r}")
    score = meta.get("confidence_score")
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1
    ):
        raise InvalidFrontmatter(f"confidence_score must be a number in 0..1, got {score!r}")
    status = meta.get("status")
    if status is not None and status not in STATUSES:
        raise InvalidFrontmatter(f"status must be one of {', '.join(STATUSES)}, got {status!r}")
    if "timestamp" in meta:
        iso_timestamp(meta["timestamp"])


def validate_title(title: str) -> None:
    """Refuse titles that look like paths out of the vault or that would name a reserved file."""
    if not title.strip():
        raise InvalidFrontmatter("title must not be empty")
    if any(ord(c) < 32 for c in title):
        raise InvalidFrontmatter("title must be one line without control characters")
    if title.startswith(("/", "\\")) or re.search(r"(^|[\\/])\.\.([\\/]|$)", title):
        raise UnsafePath(title, "the title looks like a path that escapes the vault")
    slug = slugify(title)
    if not slug:
        raise InvalidFrontmatter(f"title {title!r} has no letters or digits to make a file name")
    if slug + ".md" in RESERVED_NAMES:
        raise UnsafePath(title, f"it would name the reserved file {slug}.md")


def validate_entry_path(path: str) -> str:
    """Normalise a vault-relative entry path and refuse escapes and reserved names."""
    if not path or "\x00" in path or "\\" in path:
        raise UnsafePath(path, "not a plain vault-relative POSIX path")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        raise UnsafePath(path, "absolute paths are not allowed")
    if any(part in ("..", ".", "") for part in path.split("/")):
        raise UnsafePath(path, "'..' and empty components are not allowed")
    if pure.parts[0] in RESERVED_TOP - {"archive", "ontology"} or pure.name in RESERVED_NAMES:
        raise UnsafePath(
            path,
            f"{pure.parts[0] if pure.parts[0] in RESERVED_TOP else pure.name} "
            "is reserved for the engine",
        )
    if any(part.startswith(".") for part in pure.parts):
        raise UnsafePath(path, "hidden files and folders are not entries")
    if pure.suffix not in ENTRY_SUFFIXES:
        raise UnsafePath(path, f"an entry must end in {' or '.join(ENTRY_SUFFIXES)}")
    return pure.as_posix()


def check_size(body: str, limit: int) -> None:
    """Refuse a body over the configured limit (counted in UTF-8 bytes)."""
    size = len(body.encode("utf-8"))
    if size > limit:
        raise EntryTooLarge(size, limit)


CATALOG_FIELDS = ("title", "description")  # copied into every index.md line of the entry


def check_frontmatter_size(fm: str, meta: Mapping[str, Any], limit: int, field_limit: int) -> None:
    """Refuse a frontmatter over ``limit`` UTF-8 bytes, or a field the catalogs repeat (title,
    description) over ``field_limit``; the body's limit does not cover either."""
    for field in CATALOG_FIELDS:
        value = meta.get(field)
        size = len(str(value).encode("utf-8")) if value is not None else 0
        if size > field_limit:
            raise InvalidFrontmatter(
                f"frontmatter field {field!r} is {size} bytes, over the limit of {field_limit} "
                "bytes for fields the catalogs repeat (setting max_field_bytes); put the detail "
                "in the body"
            )
    check_frontmatter_text(fm, limit)


def check_frontmatter_text(fm: str, limit: int) -> None:
    """Refuse frontmatter text over ``limit`` UTF-8 bytes (before it is even parsed)."""
    size = len(fm.encode("utf-8"))
    if size > limit:
        raise InvalidFrontmatter(
            f"the frontmatter is {size} bytes, over the limit of {limit} bytes "
            "(setting max_frontmatter_bytes); put the detail in the body"
        )


def check_secrets(text: str, where: str = "entry") -> None:
    """Refuse content that contains a credential."""
    from clawql_git.model.secrets import scan

    findings = scan(text)
    if findings:
        raise SecretDetected(findings, where)


# ---------------------------------------------------------------- slugs and folders


def slugify(title: str) -> str:
    """Lowercase, runs of [^a-z0-9] become '-', trimmed, at most 96 characters."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:SLUG_MAX].rstrip("-")


def type_folder(entry_type: str, meta: Mapping[str, Any]) -> str:
    """The folder an entry of this type lives in (``decision`` -> ``decisions``)."""
    folder = TYPE_FOLDERS.get(entry_type)
    if folder is None:
        folder = entry_type if entry_type.endswith("s") else entry_type + "s"
    if entry_type == "entity_instance":
        kind = slugify(str(meta.get("entity_kind") or "entity")) or "entity"
        folder = f"{folder}/{kind}"
    if folder.split("/")[0] in RESERVED_TOP:
        raise UnsafePath(folder, f"type {entry_type!r} would write into a reserved folder")
    return folder


def misspelt_type(entry_type: str) -> str | None:
    """The known type ``entry_type`` is most likely a misspelling of (within two edits, case
    ignored: ``decison``, ``Decision``, ``errors``), or None for a known or a plainly new type."""
    if entry_type in TYPE_FOLDERS:
        return None
    lowered = entry_type.lower()
    distance, guess = min((_edit_distance(lowered, known), known) for known in TYPE_FOLDERS)
    return guess if distance <= 2 else None


def check_type_spelling(entry_type: str, allow_new_type: bool = False) -> None:
    """Refuse a type that looks like a typo of a known one unless a new type is meant; a new
    type gets its own folder, so ``decison`` would silently start ``decisons/``."""
    guess = misspelt_type(entry_type)
    if guess is not None and not allow_new_type:
        raise InvalidFrontmatter(
            f"unknown type {entry_type!r}: did you mean {guess!r}? "
            f"(to start a new type {entry_type!r}, pass --new-type / allow_new_type=True)"
        )


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# ---------------------------------------------------------------- the entry value


@dataclass(frozen=True)
class Entry:
    """One memory entry as stored: its path, the frontmatter text and mapping, and the body."""

    path: str
    frontmatter: str
    meta: Mapping[str, Any]
    body: str

    @classmethod
    def parse(cls, path: str, text: str) -> Entry:
        """Parse a stored document (frontmatter required)."""
        fm, body = split_frontmatter(text)
        if fm is None:
            raise InvalidFrontmatter(f"{path}: no YAML frontmatter at byte 0")
        return cls(path, fm, parse_yaml_mapping(fm), body)

    @property
    def type(self) -> str:
        return str(self.meta.get("type", ""))

    @property
    def title(self) -> str:
        title = self.meta.get("title")
        return str(title) if title else PurePosixPath(self.path).stem

    @property
    def description(self) -> str:
        return str(self.meta.get("description") or "")

    @property
    def status(self) -> str:
        return str(self.meta.get("status") or "current")

    @property
    def timestamp(self) -> str:
        value = self.meta.get("timestamp")
        return iso_timestamp(value) if value is not None else ""

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(str(a) for a in self.meta.get("aliases") or ())

    def render(self) -> str:
        """The document text, exactly as it is stored."""
        return render_document(self.frontmatter, self.body)

    def with_changes(self, changes: Mapping[str, Any], body: str | None = None) -> Entry:
        """A new Entry with frontmatter keys set/removed (bytes of other keys unchanged)."""
        fm = edit_frontmatter(self.frontmatter, changes)
        return Entry(self.path, fm, parse_yaml_mapping(fm), self.body if body is None else body)

    def to_record(self) -> dict[str, Any]:
        """A JSON-safe view of the entry."""
        return {"path": self.path, "frontmatter": jsonable(self.meta), "body": self.body}


def render_document(frontmatter: str, body: str) -> str:
    """Join frontmatter and body into the stored document."""
    if frontmatter and not frontmatter.endswith("\n"):
        frontmatter += "\n"
    return f"---\n{frontmatter}---\n{body}"


def normalise_body(body: str) -> str:
    """The body as the engine stores it: a blank line after the fence, one final newline."""
    body = body.strip("\n")
    return f"\n{body}\n" if body else ""


def jsonable(value: Any) -> Any:
    """Convert YAML-parsed values (dates) into JSON-safe ones."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return iso_timestamp(value)
    return value


# ---------------------------------------------------------------- appended sections


def content_hash(text: str) -> str:
    """Hash of content with whitespace normalised, to detect repeated appends."""
    normal = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def body_sections(body: str) -> Iterator[str]:
    """The original body and each appended section, without their headings."""
    parts = _APPEND_HEADING.split(body)
    yield from (p for p in parts if p.strip())


def append_section(body: str, content: str, stamp: str) -> str | None:
    """Append a dated section, or None when the same content is already in the entry."""
    digest = content_hash(content)
    if any(content_hash(section) == digest for section in body_sections(body)):
        return None
    return normalise_body(f"{body.rstrip()}\n\n## Update {stamp}\n\n{content.strip()}")
