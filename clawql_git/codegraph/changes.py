"""What a range of commits did to the code, definition by definition: affected symbols and
files, breaking or not (``clawql_git.vault.code_changes`` records it in a vault)."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawql_git.codegraph.files import EXCLUDED_DIRS, language_of, load_extractors, suffix_map
from clawql_git.errors import InvalidInput, NotFound

MAX_LISTED = 200


@dataclass(frozen=True)
class SymbolChange:
    """One definition that a commit range added, removed or changed."""

    file: str
    qualname: str
    kind: str
    change: str  # added | removed | signature | body
    exported: bool
    before: str = ""
    after: str = ""

    @property
    def breaking(self) -> bool:
        """Removing an exported definition or changing its signature breaks its callers."""
        return self.exported and self.change in ("removed", "signature")


@dataclass(frozen=True)
class CodeChange:
    """What ``from_rev..to_rev`` did to the code."""

    repository: str
    from_rev: str
    to_rev: str
    files: tuple[str, ...]
    symbols: tuple[SymbolChange, ...]
    subjects: tuple[str, ...] = field(default=())

    @property
    def breaking(self) -> bool:
        return any(s.breaking for s in self.symbols)

    def summary(self) -> str:
        counts = {
            c: sum(1 for s in self.symbols if s.change == c)
            for c in ("added", "removed", "signature", "body")
        }
        text = (
            f"{len(self.files)} files changed: {counts['added']} definitions added, "
            f"{counts['removed']} removed, {counts['signature']} with a new signature, "
            f"{counts['body']} with a new body."
        )
        broken = [f"{s.qualname} ({s.change})" for s in self.symbols if s.breaking]
        if broken:
            text += " Breaking: " + ", ".join(broken[:20]) + "."
        return text

    def body(self) -> str:
        lines = [
            self.summary(),
            "",
            f"Range: `{self.from_rev[:12]}..{self.to_rev[:12]}` in `{self.repository}`.",
            "",
        ]
        if self.subjects:
            lines += ["## Commits", "", *[f"- {s}" for s in self.subjects[:50]], ""]
        lines += ["## Affected symbols", ""]
        for s in self.symbols[:MAX_LISTED]:
            mark = " **breaking**" if s.breaking else ""
            lines.append(f"- `{s.file}` `{s.qualname}` ({s.kind}): {s.change}{mark}")
            if s.change == "signature":
                lines += [f"  - before: `{s.before}`", f"  - after: `{s.after}`"]
        lines += ["", "## Affected files", "", *[f"- `{f}`" for f in self.files[:MAX_LISTED]]]
        return "\n".join(lines) + "\n"


def _git(root: Path, *args: str) -> bytes:
    done = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args], cwd=root, capture_output=True, check=False
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise NotFound(f"git {' '.join(args[:2])}: {message}")
    return done.stdout


def rev(root: Path, name: str) -> str:
    """A revision as a full commit sha (NotFound when it names none)."""
    if not name or name.startswith("-"):
        raise InvalidInput(f"not a revision: {name!r}")
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", name + "^{commit}").decode().strip()
    except NotFound:  # --quiet: git says nothing, so say which revision, and where
        raise NotFound(
            f"unknown revision {name!r} in {root} (no such commit, branch or tag)"
        ) from None


def _definitions(root: Path, sha: str, path: str, language: str) -> dict[str, tuple[Any, str]]:
    """qualname -> (symbol, hash of its source lines) of one file at one commit."""
    try:
        source = _git(root, "show", f"{sha}:{path}")
    except NotFound:
        return {}
    return definitions(path, source, language)


def definitions(path: str, source: bytes, language: str) -> dict[str, tuple[Any, str]]:
    """qualname -> (symbol, hash of its source lines) of one file's content."""
    extractor = load_extractors()[language]
    facts = extractor.extract(path, source, language)
    lines = source.split(b"\n")
    out = {}
    for sym in facts.symbols:
        chunk = b"\n".join(lines[sym.line - 1 : sym.end_line])
        out[sym.qualname] = (sym, hashlib.blake2b(chunk, digest_size=8).hexdigest())
    return out


def diff_symbols(root: Path, from_rev: str, to_rev: str) -> CodeChange:
    """Compare every indexable file the range touched, definition by definition."""
    old, new = rev(root, from_rev), rev(root, to_rev)
    suffixes = suffix_map(load_extractors())
    names = _git(root, "diff", "--name-only", "--no-renames", "-z", old, new).decode()
    files = sorted(
        p
        for p in names.split("\0")
        if p and language_of(p, suffixes) and not any(d in EXCLUDED_DIRS for d in p.split("/")[:-1])
    )
    changes: list[SymbolChange] = []
    for path in files:
        language = language_of(path, suffixes)
        before = _definitions(root, old, path, language)
        after = _definitions(root, new, path, language)
        changes += compare(path, before, after)
    log = _git(root, "log", "--format=%s", f"{old}..{new}").decode().splitlines()
    return CodeChange(str(root), old, new, tuple(files), tuple(changes), tuple(log))


def compare(
    path: str, before: dict[str, tuple[Any, str]], after: dict[str, tuple[Any, str]]
) -> list[SymbolChange]:
    """The definitions that differ between two versions of one file."""
    out = []
    for qual in sorted(set(before) | set(after)):
        if qual not in after:
            sym = before[qual][0]
            out.append(SymbolChange(path, qual, sym.kind, "removed", _exported(before, qual)))
        elif qual not in before:
            sym = after[qual][0]
            out.append(SymbolChange(path, qual, sym.kind, "added", _exported(after, qual)))
        else:
            (old, old_hash), (sym, new_hash) = before[qual], after[qual]
            if old.signature != sym.signature and sym.kind not in ("variable", "constant"):
                out.append(
                    SymbolChange(
                        path,
                        qual,
                        sym.kind,
                        "signature",
                        _exported(after, qual),
                        old.signature,
                        sym.signature,
                    )
                )
            elif old_hash != new_hash:
                out.append(SymbolChange(path, qual, sym.kind, "body", _exported(after, qual)))
    return out


def _exported(defs: dict[str, tuple[Any, str]], qual: str) -> bool:
    """Exported when it and every enclosing definition are exported."""
    parts = qual.split(".")
    for i in range(1, len(parts) + 1):
        entry = defs.get(".".join(parts[:i]))
        if entry is not None and not entry[0].exported:
            return False
    return True
