"""Branch checks for CI (``clawql memory check``): the entries a branch changed since its merge
base with ``main`` are held to the ingest contract (frontmatter, title, path, size), scanned for
secrets and for links they break, and the catalogs at the tip must equal a fresh regeneration
(a pull request merged by a hosting site's button, without the merge driver, fails here)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawql_git.errors import ClawqlError, NotFound, SecretDetected
from clawql_git.links import LinkGraph, NoteInfo
from clawql_git.model.drafts import finalize
from clawql_git.model.entry import Entry, decode_text, split_frontmatter
from clawql_git.model.paths import is_entry_path
from clawql_git.model.secrets import scan
from clawql_git.ontology import change_problems

if TYPE_CHECKING:
    from clawql_git.gitstore import Commit, GitStore, Tree
    from clawql_git.vault.facade import Vault

KINDS = ("entry", "entity", "secret", "link", "catalog")
GENERATED_NAMES = ("index.md", "log.md")
FIX_HINT = "catalogs are generated: run `clawql memory catalog --fix` and commit"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the branch, where it is (file and, when known, line)."""

    kind: str  # one of KINDS
    path: str
    message: str
    line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view."""
        return {"kind": self.kind, "path": self.path, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class CheckReport:
    """What was compared, which files were checked, and every problem found."""

    base: str
    base_commit: str
    head_commit: str
    merge_base: str | None
    checked: tuple[str, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_record(self) -> dict[str, Any]:
        """JSON-safe view (``--format json``)."""
        return {
            "ok": self.ok,
            "base": self.base,
            "base_commit": self.base_commit,
            "head_commit": self.head_commit,
            "merge_base": self.merge_base,
            "checked": list(self.checked),
            "problems": [p.to_record() for p in self.problems],
        }

    def to_markdown(self) -> str:
        """The report for a pull request comment or a CI job summary."""
        verdict = "clean" if self.ok else f"{len(self.problems)} problem(s)"
        since = f"merge base `{self.merge_base[:12]}`" if self.merge_base else "no merge base"
        lines = [
            f"## clawql memory check: {verdict}",
            "",
            f"`{self.head_commit[:12]}` against `{self.base}` (`{self.base_commit[:12]}`, "
            f"{since}): {len(self.checked)} changed file(s) checked.",
            "",
        ]
        for kind in KINDS:
            found = [p for p in self.problems if p.kind == kind]
            if found:
                lines += [f"### {kind} ({len(found)})", ""]
                lines += [f"- `{p.where}`: {_one_line(p.message)}" for p in found]
                lines.append("")
        return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- the check


def check_branch(vault: Vault, base: str = "main", head: str = "HEAD") -> CheckReport:
    """Check what ``head`` changed since its merge base with ``base``."""
    store = vault.store
    tip = store.resolve(head)  # works on a detached HEAD, as CI checkouts are
    base_commit = resolve_base(store, base)
    fork_commit = store.merge_base(base_commit, tip)
    fork = fork_commit.id if fork_commit is not None else None
    fork_tree = fork_commit.tree if fork_commit is not None else None
    changed = [
        (path, new)
        for path, _, new in store.diff_paths(fork_tree, tip.tree)
        if new is not None and not _generated(path)
    ]
    problems: list[Problem] = []
    for path, blob_id in changed:
        problems += file_problems(vault, path, _blob(store, blob_id))
    problems += [
        Problem("entity", p.path, f"field {p.field!r}: {p.message}" if p.field else p.message)
        for p in change_problems(store, fork_tree, tip.tree)
    ]
    problems += link_problems(store, fork_tree, tip.tree)
    problems += catalog_problems(vault, tip)
    return CheckReport(
        base,
        str(base_commit.id),
        str(tip.id),
        str(fork) if fork is not None else None,
        tuple(p for p, _ in changed),
        tuple(problems),
    )


def resolve_base(store: GitStore, base: str) -> Commit:
    """The base branch, locally or as the remote-tracking copy CI checkouts have."""
    for candidate in (base, f"origin/{base}", f"refs/remotes/origin/{base}"):
        try:
            return store.resolve(candidate)
        except NotFound:
            continue
    raise NotFound(
        f"base {base!r} is neither a local branch nor origin/{base}; fetch it first "
        "(in GitHub Actions: actions/checkout with fetch-depth: 0)"
    )


def _generated(path: str) -> bool:
    """Catalogs are checked as a whole against regeneration, not as entries."""
    name = path.rsplit("/", 1)[-1]
    return name in GENERATED_NAMES or path.startswith("log/")


def _blob(store: GitStore, oid: str) -> bytes:
    return store.blob(oid) or b""


def file_problems(vault: Vault, path: str, data: bytes) -> list[Problem]:
    """Secrets in any changed file, binary ones included (scanned with undecodable bytes
    replaced, as the protected remote does); the entry contract for entries."""
    if is_entry_path(path):
        try:
            text = decode_text(data, path)
        except ClawqlError as exc:
            return [Problem("entry", path, exc.message)]
    else:
        text = data.decode("utf-8", errors="replace")
    found = [
        Problem("secret", path, f"{f.kind}: {f.excerpt} (history cannot forget it)", f.line)
        for f in scan(text)
    ]
    if is_entry_path(path):
        found += _contract(vault, path, text)
    return found


def _contract(vault: Vault, path: str, text: str) -> list[Problem]:
    """The validation ingest applies (frontmatter, title, path, size)."""
    try:
        fm, body = split_frontmatter(text)
        if fm is None:
            return [Problem("entry", path, "no YAML frontmatter at byte 0 ('---' line)", 1)]
        finalize(vault.settings, fm, body, path)
    except SecretDetected:
        return []  # reported with its line by the secret scan
    except ClawqlError as exc:
        return [Problem("entry", path, exc.message)]
    return []


# ---------------------------------------------------------------- links and catalogs


def link_problems(store: GitStore, fork: Tree | None, tip: Tree) -> list[Problem]:
    """Broken links at the tip that were not broken at the merge base (new links to nowhere,
    and links left dangling by a moved or deleted entry)."""
    before = {_key(e) for e in _graph(store, fork).broken()} if fork is not None else set()
    after_notes = dict(_notes(store, tip))
    problems = []
    for edge in _graph(store, tip, after_notes).broken():
        if _key(edge) in before:
            continue
        offset = _body_offset(after_notes[edge.source][1])
        what = f"broken {edge.ref.kind} to {edge.ref.target!r}: no entry by that name or path"
        problems.append(Problem("link", edge.source, what, edge.ref.line + offset))
    return problems


def _key(edge: Any) -> tuple[str, str, str]:
    return (edge.source, edge.ref.target, edge.ref.kind)


def _notes(store: GitStore, tree: Tree | None) -> Iterator[tuple[str, tuple[NoteInfo, Entry]]]:
    """Every entry of a tree that parses (a broken one is reported by the contract check)."""
    for path, data in _entry_blobs(store, tree, ""):
        try:
            entry = Entry.parse(path, decode_text(data, path))
        except ClawqlError:
            continue
        yield path, (NoteInfo.of(path, entry.title, entry.aliases, entry.meta), entry)


def _graph(
    store: GitStore,
    tree: Tree | None,
    notes: dict[str, tuple[NoteInfo, Entry]] | None = None,
) -> LinkGraph:
    found = notes if notes is not None else dict(_notes(store, tree))
    return LinkGraph.build((info, entry.body) for info, entry in found.values())


def _entry_blobs(store: GitStore, tree: Tree | None, prefix: str) -> Iterator[tuple[str, bytes]]:
    if tree is None:
        return
    for path, oid, is_tree in store.tree_items(tree, prefix):
        if not is_tree and is_entry_path(path):
            data = store.blob(oid)
            if data is not None:
                yield path, data


def _body_offset(entry: Entry) -> int:
    """Lines before the body in the file: the two fences and the frontmatter between them."""
    return entry.frontmatter.count("\n") + 2


def catalog_problems(vault: Vault, tip: Commit) -> list[Problem]:
    """Catalog files at the tip that differ from a fresh regeneration."""
    problems = []
    for path, (have, want) in sorted(vault.cataloger.drift(tip).items()):
        state = (
            "is missing"
            if have is None
            else "is not generated by clawql (no such catalog)"
            if want is None
            else "differs from a fresh regeneration"
        )
        problems.append(Problem("catalog", path, f"{state}; {FIX_HINT}"))
    return problems
