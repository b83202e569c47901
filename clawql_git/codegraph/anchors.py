"""Anchors: something outside the code (a memory entry) pinned to a definition, or a whole file,
as it was at one commit, and the check of an anchor against a later commit: the definition is
still the same (``fresh``), its source changed (``changed``), it now lives under another file
or name (``moved``), or it is gone (``vanished``).

A definition's identity at a commit is the hash of its source lines (the same hash
``changes.definitions`` compares), so moving a definition within its file changes nothing;
a second hash of its body without the first line (the ``def``/``class`` line that holds the
name) finds a renamed or moved copy. Everything is read from git objects, never from the work
tree: an anchor is checked against a commit, so a replay needs no checkout.
"""

from __future__ import annotations

import hashlib
import subprocess
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawql_git.codegraph.files import EXCLUDED_DIRS, language_of, load_extractors, suffix_map
from clawql_git.codegraph.model import Extractor
from clawql_git.errors import InvalidInput, NotFound

STATES = ("fresh", "changed", "moved", "vanished")
MIN_SHAPE_LINES = 2  # a body shorter than this is too common to identify a renamed copy


@dataclass(frozen=True)
class Definition:
    """One definition of a file at a commit, by its hashes."""

    qualname: str
    kind: str
    body_hash: str  # its source lines, first to last
    shape_hash: str  # its lines after the first, dedented ('' when too short to tell)


@dataclass(frozen=True)
class Anchor:
    """``key`` (an entry path) pinned to ``file``:``qualname`` (``qualname`` '' for the whole
    file) as it was at ``commit``. ``source`` says how the entry names it."""

    key: str
    file: str
    qualname: str
    kind: str
    commit: str
    blob: str
    body_hash: str = ""
    shape_hash: str = ""
    source: str = ""

    @property
    def target(self) -> str:
        """``file:qualname``, or the file alone for a file anchor."""
        return f"{self.file}:{self.qualname}" if self.qualname else self.file


@dataclass(frozen=True)
class AnchorCheck:
    """An anchor checked against the commit ``checked_at``."""

    anchor: Anchor
    state: str
    checked_at: str
    moved_to: str = ""

    @property
    def stale(self) -> bool:
        """The anchored definition is not what the entry was written against."""
        return self.state != "fresh"

    def to_record(self) -> dict[str, Any]:
        a = self.anchor
        return {
            "entry": a.key,
            "symbol": a.target,
            "file": a.file,
            "qualname": a.qualname,
            "kind": a.kind,
            "source": a.source,
            "anchored_at": a.commit,
            "checked_at": self.checked_at,
            "state": self.state,
            "moved_to": self.moved_to or None,
        }


def git(root: Path, *args: str) -> bytes:
    """Run git in ``root`` (NotFound naming the command when it fails)."""
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise NotFound(f"git {' '.join(args[:2])} in {root}: {message}")
    return done.stdout


def definitions_of(
    source: bytes, path: str, language: str, extractor: Extractor
) -> list[Definition]:
    """The definitions of one file's content with their hashes (a definition's decorators
    count as its source: the extractor's line range starts at the ``def``)."""
    facts = extractor.extract(path, source, language)
    lines = source.split(b"\n")
    out = []
    for sym in facts.symbols:
        chunk = lines[sym.line - 1 : sym.end_line]
        start = _decorated_from(lines, sym.line, len(sym.decorators))
        body = b"\n".join(lines[start - 1 : sym.end_line])
        rest = b"\n".join(chunk[1:])
        shape = ""
        if len(chunk) > MIN_SHAPE_LINES:
            dedented = textwrap.dedent(rest.decode("utf-8", "replace")).encode()
            shape = _hash(dedented)
        out.append(Definition(sym.qualname, sym.kind, _hash(body), shape))
    return out


def _decorated_from(lines: list[bytes], line: int, decorators: int) -> int:
    """The first line of the ``decorators`` decorators written above ``line`` (1-based; a
    decorator may span lines, e.g. a long ``@pytest.mark.parametrize``)."""
    if not decorators:
        return line
    head = lines[line - 1]
    indent = head[: len(head) - len(head.lstrip())]
    start, seen, i = line, 0, line - 1
    while i >= 1 and seen < decorators:
        text = lines[i - 1]
        stripped = text.strip()
        if text.startswith(indent + b"@"):
            seen, start = seen + 1, i
        elif (
            stripped
            and len(text) - len(text.lstrip()) <= len(indent)
            and stripped[:1]
            not in (
                b")",
                b"]",
                b"}",
            )
        ):
            break  # not part of a decorator: the decorators end here
        i -= 1
    return start


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


@dataclass
class CodeCache:
    """What never changes once read: a commit's files (path -> blob) and a blob's definitions.
    A caller that checks often (a replay, a watcher) keeps one across checks."""

    trees: dict[str, dict[str, str]] = field(default_factory=dict)
    definitions: dict[str, dict[str, Definition]] = field(default_factory=dict)

    def tree(self, root: Path, sha: str) -> dict[str, str]:
        """Path -> blob of every file of commit ``sha`` (read once)."""
        if sha not in self.trees:
            listing = git(root, "ls-tree", "-r", "-z", sha).decode("utf-8", "replace")
            blobs = {}
            for item in listing.split("\0"):
                head, _, path = item.partition("\t")
                parts = head.split()
                if len(parts) == 3 and parts[1] == "blob":
                    blobs[path] = parts[2]
            self.trees[sha] = blobs
        return self.trees[sha]


@dataclass
class CodeAt:
    """A repository at one commit: its files' blobs and, read on demand and kept, the
    definitions of a blob. Share one between anchors checked against the same commit."""

    root: Path
    commit: str
    blobs: dict[str, str] = field(default_factory=dict)
    cache: CodeCache = field(default_factory=CodeCache)
    _extractors: dict[str, Extractor] = field(default_factory=dict)
    _suffixes: dict[str, str] = field(default_factory=dict)
    _changed: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path, rev: str, cache: CodeCache | None = None) -> CodeAt:
        """The repository at ``rev`` (a full sha, a branch, HEAD); ``cache`` may be shared
        across commits and checks."""
        if not rev or rev.startswith("-"):
            raise InvalidInput(f"not a revision: {rev!r}")
        try:
            sha = git(root, "rev-parse", "--verify", "--quiet", rev + "^{commit}").decode().strip()
        except NotFound:
            raise NotFound(f"unknown revision {rev!r} in {root} (no such commit)") from None
        kept = cache if cache is not None else CodeCache()
        extractors = load_extractors()
        return cls(root, sha, kept.tree(root, sha), kept, extractors, suffix_map(extractors))

    def language(self, path: str) -> str:
        """The language the graph reads ``path`` as ('' when it reads none)."""
        if any(d in EXCLUDED_DIRS for d in path.split("/")[:-1]):
            return ""
        return language_of(path, self._suffixes)

    def definitions(self, path: str) -> dict[str, Definition]:
        """qualname -> definition of ``path`` at this commit (empty when absent)."""
        blob = self.blobs.get(path)
        language = self.language(path)
        if blob is None or not language:
            return {}
        defs = self.cache.definitions
        if blob not in defs:
            source = git(self.root, "cat-file", "blob", blob)
            found = definitions_of(source, path, language, self._extractors[language])
            defs[blob] = {d.qualname: d for d in found}
        return defs[blob]

    def changed_since(self, commit: str) -> list[str]:
        """The files that differ between ``commit`` and this one (both sides of a rename)."""
        if commit not in self._changed:
            then = self.cache.tree(self.root, commit)
            paths = set(then) | set(self.blobs)
            self._changed[commit] = sorted(p for p in paths if then.get(p) != self.blobs.get(p))
        return self._changed[commit]


def make_anchor(
    code: CodeAt, key: str, file: str, qualname: str = "", source: str = ""
) -> Anchor | None:
    """``key`` anchored to ``file``:``qualname`` at ``code``'s commit; None when the commit holds
    no such file, or no such definition in it."""
    blob = code.blobs.get(file)
    if blob is None:
        return None
    if not qualname:
        return Anchor(key, file, "", "file", code.commit, blob, source=source)
    found = code.definitions(file).get(qualname)
    if found is None:
        return None
    return Anchor(
        key,
        file,
        qualname,
        found.kind,
        code.commit,
        blob,
        found.body_hash,
        found.shape_hash,
        source,
    )


def check(anchor: Anchor, now: CodeAt, before: AnchorCheck | None = None) -> AnchorCheck:
    """What became of ``anchor`` at ``now``'s commit. A file anchor goes stale only when the
    file moves or vanishes (a file is edited all the time; its definitions carry the detail).
    ``before`` is the anchor's last check: when it found the definition vanished, only the
    files changed since that check are searched again (the others were searched then and
    held no copy; same answer, without rereading them at every check)."""
    if now.blobs.get(anchor.file) == anchor.blob:
        return AnchorCheck(anchor, "fresh", now.commit)
    if not anchor.qualname:
        return _file_check(anchor, now)
    found = now.definitions(anchor.file).get(anchor.qualname)
    if found is not None:
        state = "fresh" if found.body_hash == anchor.body_hash else "changed"
        return AnchorCheck(anchor, state, now.commit)
    vanished_at = _vanished_at(anchor, before)
    moved = _moved_definition(anchor, now, vanished_at)
    if moved:
        return AnchorCheck(anchor, "moved", now.commit, moved)
    return AnchorCheck(anchor, "vanished", now.commit)


def _file_check(anchor: Anchor, now: CodeAt) -> AnchorCheck:
    if anchor.file in now.blobs:
        return AnchorCheck(anchor, "fresh", now.commit)
    same = sorted(p for p, b in now.blobs.items() if b == anchor.blob)
    if same:
        return AnchorCheck(anchor, "moved", now.commit, same[0])
    renamed = _renamed_file(anchor, now)
    if renamed:
        return AnchorCheck(anchor, "moved", now.commit, renamed)
    return AnchorCheck(anchor, "vanished", now.commit)


def _renamed_file(anchor: Anchor, now: CodeAt) -> str:
    """Where git's rename detection says ``anchor.file`` went ('' when nowhere)."""
    out = git(now.root, "diff", "-M", "--name-status", "-z", anchor.commit, now.commit)
    fields = out.decode("utf-8", "replace").split("\0")
    i = 0
    while i < len(fields) - 1:
        status = fields[i]
        if status.startswith(("R", "C")) and i + 2 < len(fields):
            if fields[i + 1] == anchor.file:
                return fields[i + 2]
            i += 3
        else:
            i += 2
    return ""


def _vanished_at(anchor: Anchor, before: AnchorCheck | None) -> str:
    """The commit where ``before``, a check of this very anchor, found it vanished ('' when
    it is not such a check)."""
    if before is None or before.state != "vanished" or before.anchor != anchor:
        return ""
    return before.checked_at


def _moved_definition(anchor: Anchor, now: CodeAt, vanished_at: str = "") -> str:
    """``file:qualname`` of the definition ``anchor`` became: the same qualname in another
    file the range touched, else the same body under another name or file ('' when none).
    With ``vanished_at`` (a commit where the same search found nothing), only a file that
    differs between that commit and this one can hold it now (any other candidate has the
    blob it had then): when none of those does, it is still gone, found without listing the
    anchor's own commit (a ``git ls-tree`` per anchored commit at every check); when one
    does, the full search answers."""
    if vanished_at and not _first_copy(anchor, now, _present(now, now.changed_since(vanished_at))):
        return ""
    touched = _present(now, now.changed_since(anchor.commit))
    candidates = [p for p in [anchor.file, *touched] if p in now.blobs]
    return _first_copy(anchor, now, list(dict.fromkeys(candidates)))


def _present(now: CodeAt, paths: list[str]) -> list[str]:
    return [p for p in paths if p in now.blobs and now.language(p)]


def _first_copy(anchor: Anchor, now: CodeAt, candidates: list[str]) -> str:
    """The first of ``candidates`` (in order) holding ``anchor``'s qualname outside its own
    file, else the first definition of the same shape and kind ('' when none)."""
    for path in candidates:
        if path != anchor.file and anchor.qualname in now.definitions(path):
            return f"{path}:{anchor.qualname}"
    if not anchor.shape_hash:
        return ""
    for path in candidates:
        for d in now.definitions(path).values():
            if d.shape_hash == anchor.shape_hash and d.kind == anchor.kind:
                return f"{path}:{d.qualname}"
    return ""


def check_all(
    anchors: list[Anchor], now: CodeAt, before: Mapping[str, AnchorCheck] | None = None
) -> list[AnchorCheck]:
    """Every anchor checked against one commit (definitions read once per blob); ``before``
    holds their last checks by ``check_key`` (see ``check``)."""
    last = before or {}
    return [check(a, now, last.get(check_key(a))) for a in anchors]


def check_key(anchor: Anchor) -> str:
    """What names an anchor among the checks kept of it: its entry and target."""
    return f"{anchor.key}\0{anchor.target}"
