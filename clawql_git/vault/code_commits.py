"""Code commits recorded as they happen: the post-commit hook of a code repository writes a
``code_change`` entry for each commit into the vault it names (``git config clawql.vault``),
with the session's reasoning when a session id is given, then re-checks the entries anchored
to the code."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.audit.history import LogFilter
from clawql_git.codegraph.anchors import git
from clawql_git.errors import NotFound, VaultStateError

if TYPE_CHECKING:
    from clawql_git.codegraph.changes import CodeChange
    from clawql_git.codegraph.graph import CodeGraph
    from clawql_git.model.identity import Identity
    from clawql_git.vault.anchoring import CodeStaleness
    from clawql_git.vault.facade import Vault
    from clawql_git.vault.writer import WriteResult

HOOK_SHIM = "code-post-commit"
MARK = "hooks code-commit"  # our shim; a vault's own post-commit hook is not
MAX_REASONS = 20


@dataclass(frozen=True)
class RecordedCommit:
    """A commit written down as a ``code_change`` entry, and the anchors checked after it."""

    change: CodeChange
    result: WriteResult
    staleness: CodeStaleness

    def to_record(self) -> dict[str, Any]:
        return {
            **self.result.to_record(),
            "breaking_change": self.change.breaking,
            "summary": self.change.summary(),
            "affected_symbols": [f"{s.file}:{s.qualname}" for s in self.change.symbols],
            "stale_entries": len(self.staleness.stale),
        }


def session_reasoning(vault: Vault, session: str, commit_body: str = "") -> str:
    """Why the change was made: the commit message's body, and the entries the session wrote
    (linked by title; their text stays in them)."""
    parts = [commit_body.strip()] if commit_body.strip() else []
    if session:
        seen: dict[str, str] = {}
        tree = vault.store.head_commit()
        for rec in vault.log(LogFilter(session=session)):
            for path in rec.paths:
                if path.startswith("code_changes/") or path in seen or len(seen) >= MAX_REASONS:
                    continue
                try:
                    seen[path] = vault.reader.load(tree.tree if tree else None, path).title
                except NotFound:  # archived or removed since
                    continue
        links = [f"- [[{p.rsplit('.', 1)[0]}|{t}]]" for p, t in seen.items()]
        if links:
            parts.append(f"Written in session `{session}`:\n\n" + "\n".join(links))
    return "\n\n".join(parts)


def record_commit(
    vault: Vault, root: Path, rev: str = "HEAD", identity: Identity | None = None
) -> RecordedCommit | None:
    """Write the ``code_change`` entry of commit ``rev`` (against its first parent) and
    re-check the vault's anchors into ``root``; None for a root commit (nothing before it)."""
    from clawql_git.codegraph.changes import rev as full_sha
    from clawql_git.vault.anchoring import check_code, graph_resolver, sync_anchors
    from clawql_git.vault.code_changes import record_change

    sha = full_sha(root, rev)
    parents = git(root, "rev-list", "--parents", "-n", "1", sha).decode().split()[1:]
    if not parents:
        return None
    body = git(root, "log", "-1", "--format=%b", sha).decode("utf-8", "replace")
    session = identity.session_id if identity else ""
    reasoning = session_reasoning(vault, session or "", body)
    resolve = graph_resolver(open_graph(root))
    sync_anchors(vault, root, resolve, parents[0]).close()  # what the vault held was before
    change, result = record_change(vault, root, parents[0], sha, identity, reasoning)
    return RecordedCommit(change, result, check_code(vault, root, resolve, sha))


def open_graph(root: Path) -> CodeGraph | None:
    """The repository's code graph when it has one (backticked names resolve through it)."""
    from clawql_git.codegraph.graph import CodeGraph

    try:
        return CodeGraph.open(root, create=False)
    except NotFound:
        return None


def hooks_dir(root: Path) -> Path:
    """Where git runs the hooks of the repository at ``root`` (``core.hooksPath`` honoured)."""
    found = git(root, "rev-parse", "--git-path", "hooks").decode().strip()
    return (root / found).resolve()


def install_code_hook(root: Path, vault: Vault) -> Path:
    """Install the post-commit hook that records each commit of ``root`` into ``vault``; a
    post-commit hook of the user's own is left alone (VaultStateError, nothing written)."""
    from clawql_git.vault.setup import clawql_command, hooks_source

    src = hooks_source() / HOOK_SHIM
    if not src.is_file():
        raise NotFound(f"hook shim {src} is missing from the installation")
    dest = hooks_dir(root) / "post-commit"
    if dest.exists() and MARK not in dest.read_text(errors="replace"):
        raise VaultStateError(
            f"{dest} is a post-commit hook of your own; add `clawql hooks code-commit` to it "
            "and set `git config clawql.vault` instead"
        )
    git(root, "config", "clawql.vault", str(vault.root.resolve()))
    git(root, "config", "clawql.command", clawql_command())
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    dest.chmod(0o755)
    return dest


def hooked_vault(root: Path) -> str:
    """The vault a code repository's hook records into (NotFound when none is configured)."""
    try:
        return git(root, "config", "--get", "clawql.vault").decode().strip()
    except NotFound:
        raise NotFound(f"{root} names no vault: run `clawql code hook install --vault V`") from None
