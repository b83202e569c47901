"""Bringing remote bundles into a repository, checked before any vault ref moves: each bundle's
size and sha256 against its manifest, its header against the manifest's refs, its prerequisites
with ``git bundle verify``, its objects with ``index-pack --strict``, every manifest's tips
against the newest ones (ancestry), and every commit the bundles bring in against the checks a
protected team remote runs (``check_content``: entries valid, no secrets, signed commits where
the vault's policy asks)."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from clawql_git.errors import NotFound, TamperDetected
from clawql_git.gitstore import ZERO, GitStore, format_message, parse_trailers
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.model.progress import Progress
from clawql_git.sync.backend import Backend
from clawql_git.sync.bundles import (
    check_objects,
    fetch_bundle,
    has_commit,
    is_ancestor,
    read_header,
    verify_bundle,
    write_temp,
)
from clawql_git.sync.manifest import AUDIT_REF, MAIN_REF, VAULT_REFS, ChainLink, sha256_hex

INCOMING = "refs/clawql/sync-incoming"
ORIGIN_TRAILER = "Audit-Origin"


def download(
    backend: Backend, links: Sequence[ChainLink], progress: Progress | None = None
) -> list[bytes]:
    """Every bundle the links name, each checked against its manifest's size and sha256."""
    out = []
    total = sum(link.manifest.bundle_size for link in links)
    done = 0
    for link in links:
        m = link.manifest
        try:
            data = backend.get(m.bundle_key)
        except NotFound as exc:
            raise TamperDetected(
                f"bundle {m.bundle_key} of seq {m.seq} is missing from the remote"
            ) from exc
        got = sha256_hex(data)
        if len(data) != m.bundle_size or got != m.bundle_sha256:
            raise TamperDetected(
                f"bundle {m.bundle_key} of seq {m.seq} does not match its manifest: "
                f"sha256 {got} ({len(data)} bytes), manifest says {m.bundle_sha256} "
                f"({m.bundle_size} bytes)"
            )
        header = read_header(data, m.bundle_key)
        carried = {ref: m.refs.get(ref) for ref in header.refs}
        if carried != dict(header.refs) or sorted(header.prerequisites) != sorted(m.prerequisites):
            raise TamperDetected(f"bundle {m.bundle_key} carries other refs than its manifest says")
        out.append(data)
        done += len(data)
        if progress:
            progress(done, total, m.bundle_key)
    return out


def unpack(repo: Path, links: Sequence[ChainLink], bundles: Sequence[bytes]) -> None:
    """Fetch the bundles in order into ``refs/clawql/sync-incoming/<seq>/*``: objects enter the
    object store, the vault's own refs do not move. Each bundle's prerequisites must already be
    there (from the local history or an earlier bundle), else the chain lost a bundle."""
    with tempfile.TemporaryDirectory(prefix="clawql-sync-") as tmp:
        for link, data in zip(links, bundles, strict=True):
            m = link.manifest
            path = write_temp(data, Path(tmp), f"{m.seq:08d}.bundle")
            missing = [p for p in m.prerequisites if not has_commit(repo, p)]
            if missing:
                raise TamperDetected(
                    f"bundle of seq {m.seq} needs commits no earlier bundle provides "
                    f"({', '.join(x[:12] for x in missing)}): an earlier bundle is missing",
                )
            verify_bundle(repo, path, f"bundle of seq {m.seq}")
            check_objects(repo, data, f"bundle of seq {m.seq}")
            header = read_header(data, m.bundle_key)
            fetch_bundle(repo, path, header.refs, f"{INCOMING}/{m.seq:08d}")
            lost = [ref for ref, sha in m.refs.items() if not has_commit(repo, sha)]
            if lost:
                raise TamperDetected(f"after seq {m.seq} the tips of {', '.join(lost)} are missing")


def check_ancestry(repo: Path, links: Sequence[ChainLink], final_audit: str | None) -> None:
    """Every manifest's main tip is an ancestor of the newest; every audit tip is an ancestor of
    ``final_audit`` or was replayed into it (an ``Audit-Origin`` trailer names it)."""
    if not links:
        return
    newest = links[-1].manifest.refs
    problems: list[str] = []
    origins: set[str] | None = None
    for link in links:
        m = link.manifest
        main = m.refs.get(MAIN_REF)
        if main and not is_ancestor(repo, main, newest.get(MAIN_REF, "")):
            problems.append(
                f"seq {m.seq}: main {main[:12]} is not an ancestor of the newest main "
                "(history was rewritten or dropped)"
            )
        audit = m.refs.get(AUDIT_REF)
        if audit and final_audit and not is_ancestor(repo, audit, final_audit):
            origins = audit_origins(repo, final_audit) if origins is None else origins
            if audit not in origins:
                problems.append(f"seq {m.seq}: audit tip {audit[:12]} was dropped from the chain")
    if problems:
        raise TamperDetected("the remote's history does not hold together", problems)


def audit_origins(repo: Path, tip: str) -> set[str]:
    """Every audit commit sha that a replayed event on the chain ending at ``tip`` names."""
    out = subprocess.run(
        ["git", "log", f"--format=%(trailers:key={ORIGIN_TRAILER},valueonly)", tip],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return {line.strip() for line in out.splitlines() if line.strip()}


def check_content(store: GitStore, tips: Mapping[str, str]) -> None:
    """Refuse the commits that moving the vault's refs to ``tips`` would bring in when the
    pre-receive hook of a protected remote would refuse them (``team.protect.check_push``,
    with the policy of the local ref as it is). Call it after :func:`drop_incoming`: the
    hook's walk hides every ref, so the unpack's temporary refs would hide what they hold."""
    from clawql_git.team.protect import RefUpdate, check_push

    updates = []
    for ref in VAULT_REFS:
        new = tips.get(ref)
        old = store.ref_target(ref) or ZERO
        if new and new != old and not (old != ZERO and is_ancestor(store.workdir, new, old)):
            updates.append(RefUpdate(old, new, ref))
    problems = check_push(store, updates)
    if problems:
        raise TamperDetected(
            "the remote's commits fail the checks a protected remote runs; nothing was applied",
            problems,
        )


def drop_incoming(store: GitStore) -> None:
    """Delete the temporary refs of an unpack."""
    for name in store.ref_names(INCOMING + "/"):
        store.delete_ref(name)


def replay_audit(store: GitStore, remote_tip: str) -> int:
    """Diverged audit chains (two clones recorded events): append the remote-only events to the
    local chain, oldest first, as new commits with the same tree, author and trailers plus
    ``Audit-Origin: <original sha>``. Nothing local is rewritten; the chain stays linear."""
    repo = store.workdir
    with exclusive_lock(store.state_dir / "audit.lock"):
        local = store.ref_commit(AUDIT_REF)
        base = str(local.id) if local else ""
        args = ["git", "rev-list", "--reverse", "--first-parent", remote_tip]
        if base:
            args.append(f"^{base}")
        shas = subprocess.run(args, cwd=repo, capture_output=True, text=True, check=True).stdout
        present = _chain(repo, base) | (audit_origins(repo, base) if base else set())
        count = 0
        for sha in shas.split():
            commit = store.commit_of(sha)
            assert commit is not None
            trailers = parse_trailers(commit.message)
            if sha in present or present.intersection(trailers.get_all(ORIGIN_TRAILER)):
                continue  # an event of ours that the other clone had replayed
            parent = store.ref_commit(AUDIT_REF)
            trailers = parse_trailers(commit.message)
            pairs = [*trailers.pairs, (ORIGIN_TRAILER, sha)]
            message = format_message(commit.message.splitlines()[0], pairs)
            store.commit(
                AUDIT_REF, [parent] if parent else [], commit.tree.id, message, commit.author
            )
            count += 1
    return count


def _chain(repo: Path, tip: str) -> set[str]:
    if not tip:
        return set()
    args = ["git", "rev-list", "--first-parent", tip]
    return set(
        subprocess.run(args, cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    )
