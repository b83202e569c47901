"""The one exception tree of clawql-git; every error carries its CLI exit code.

ClawqlError                      exit 1
├── InvalidInput                 exit 2   bad data from a user or an agent
│   ├── InvalidFrontmatter       frontmatter not YAML, not a mapping, aliases, bad fields
│   ├── InvalidEncoding          non-UTF-8 bytes, NUL bytes
│   ├── EntryTooLarge            body over the configured limit
│   ├── UnsafePath               a title or path escaping the vault or naming a reserved file
│   ├── SecretDetected           a credential found in the content
│   ├── EntityInvalid            an entity instance or schema that breaks the ontology
│   └── PiiRefused               a read of PII-classified entries without allow_pii
├── NotFound                     exit 3   an entry, revision or vault that is not there
│   └── NotAVault
├── VaultStateError              exit 4   the vault refuses the operation in its current state
│   ├── ConcurrentUpdate         the branch moved under us
│   ├── KeyExists                a write-once remote object already exists
│   ├── ReviewConflict           a proposal conflicts with later changes on main
│   ├── RemoteMoved              a push refused because the remote has commits we lack
│   ├── PushRefused              a push refused by the remote's checks (pre-receive)
│   └── MergeConflict            a pull met the same entry changed on both sides
├── CheckFailed                  exit 1   a check found problems (drift, broken links)
│   └── TamperDetected           a bundle/manifest does not match its hash, chain, prerequisites
├── StorageError                 exit 5   git or the filesystem failed underneath us
│   └── SyncError                a sync remote is unreachable, misconfigured or refused
└── MissingExtra                 exit 1   an optional layer is used but its extra is not installed
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


class ClawqlError(Exception):
    """Root of every error raised by clawql-git."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidInput(ClawqlError):
    """The input (an entry, a flag, a file) is not acceptable; nothing was written."""

    exit_code = 2


class InvalidFrontmatter(InvalidInput):
    """Frontmatter is not valid YAML, not a mapping, uses aliases, or has a bad field."""


class InvalidEncoding(InvalidInput):
    """Content is not UTF-8 text or contains NUL bytes."""


class EntryTooLarge(InvalidInput):
    """The entry body exceeds the configured size limit."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"entry body is {size} bytes, over the limit of {limit} bytes")
        self.size = size
        self.limit = limit


class UnsafePath(InvalidInput):
    """A path or title would escape the vault or name a reserved file."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"unsafe path {path!r}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SecretFinding:
    """One credential-like string found in content (never carries the secret itself)."""

    kind: str
    line: int
    column: int
    excerpt: str  # redacted, safe to print


class SecretDetected(InvalidInput):
    """Content contains something that looks like a credential; history cannot forget it."""

    def __init__(self, findings: list[SecretFinding], where: str = "entry") -> None:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(
            f"refusing to commit: {where} contains a secret: {first.kind} at line "
            f"{first.line}, column {first.column}: {first.excerpt}{more}"
        )
        self.findings = findings


class EntityInvalid(InvalidInput):
    """An ``entity_instance`` that does not fit its kind's schema (a required field missing, a
    wrong type, an unknown field, a reference to no instance), or a schema change that would
    leave instances so; each problem names its file and field. Nothing was written."""

    def __init__(self, lead: str, problems: list[str]) -> None:
        shown = "\n  ".join(problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        super().__init__(
            f"{lead}{len(problems)} ontology problem(s), nothing was written:\n  {shown}{more}"
        )
        self.entity_problems = problems  # not ``problems``: the message already lists them


class PiiRefused(InvalidInput):
    """A read of PII-classified entries without ``allow_pii``; the attempt is recorded."""

    def __init__(self, paths: list[str], pii: str) -> None:
        super().__init__(
            f"{', '.join(paths)} is classified {pii}; pass --allow-pii (MCP: allow_pii) to read "
            "it (the attempt was recorded on the audit chain)"
        )
        self.paths = paths
        self.pii = pii


class NotFound(ClawqlError):
    """A requested entry, revision or vault does not exist."""

    exit_code = 3


class NotAVault(NotFound):
    """The path is not a clawql vault."""


class VaultStateError(ClawqlError):
    """The vault is in a state that does not allow the operation."""

    exit_code = 4


class ConcurrentUpdate(VaultStateError):
    """The branch moved while we were preparing a commit."""


class CheckFailed(ClawqlError):
    """A check (catalog drift, broken links, verification) found problems."""

    exit_code = 1

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


class StorageError(ClawqlError):
    """Git or the filesystem failed underneath the engine."""

    exit_code = 5


class SyncError(StorageError):
    """A sync remote (S3/R2, Arweave) is unreachable, misconfigured or refused."""


class KeyExists(VaultStateError):
    """A write-once key already exists on the remote; nothing was overwritten."""

    def __init__(self, key: str) -> None:
        super().__init__(f"remote object {key!r} already exists; objects are written once")
        self.key = key


class TamperDetected(CheckFailed):
    """A bundle or manifest does not match its recorded hash, chain or prerequisites.

    Exit 1; nothing was applied to the local vault.
    """


class ReviewConflict(VaultStateError):
    """A proposal changes entries that main changed too since the proposal branched; nothing was
    merged. Exit 4."""

    def __init__(self, branch: str, paths: list[str]) -> None:
        super().__init__(
            f"{branch} conflicts with main on {len(paths)} entr{'y' if len(paths) == 1 else 'ies'}"
            f" ({', '.join(paths[:5])}); main is unchanged. Reject it, or have the agent redo "
            "its change on top of the current main",
        )
        self.branch = branch
        self.paths = paths


class RemoteMoved(VaultStateError):
    """A push was refused because the remote branch has commits this clone lacks; pull first.
    Nothing is ever force-pushed."""


class MergeConflict(VaultStateError):
    """Both sides of a pull changed the same entry; git could not merge it. The merge was
    aborted: the clone is as it was before the pull."""

    def __init__(self, remote: str, url: str, branch: str, paths: list[str], detail: str) -> None:
        names = ", ".join(paths)
        super().__init__(
            f"pull from {remote} ({url}) stopped: {len(paths)} file(s) changed on both sides "
            f"conflict: {names}. Nothing was merged. Resolve by hand with "
            f"`git merge {remote}/{branch}`, edit the files, `git commit`, then push. "
            f"git said: {detail}"
        )
        self.remote = remote
        self.paths = paths
        self.problems = [f"conflict: {p}" for p in paths]


class PushRefused(VaultStateError):
    """A remote's checks (a protected vault's pre-receive hook) refused a push; nothing moved."""


class MissingExtra(ClawqlError):
    """An optional layer (the code graph, S3/R2 sync, Arweave sync) was used without the
    packages of its extra; ``pip install 'clawql-git[<extra>]'`` brings them."""

    def __init__(self, layer: str, extra: str, module: str) -> None:
        super().__init__(
            f"{layer} needs the optional dependencies of the {extra!r} extra "
            f"(module {module!r} is not installed): pip install 'clawql-git[{extra}]'"
        )
        self.layer = layer
        self.extra = extra
        self.module = module


@contextmanager
def optional_layer(layer: str, extra: str) -> Iterator[None]:
    """Wrap the lazy imports of an optional layer: a third-party module that is not installed
    becomes :class:`MissingExtra` naming the extra (a missing module of ours stays a bug)."""
    try:
        yield
    except ModuleNotFoundError as exc:
        name = exc.name or ""
        if not name or name.partition(".")[0] == __name__.partition(".")[0]:
            raise
        raise MissingExtra(layer, extra, name) from exc
