"""push / pull / status as library calls, the same for every provider (restore: ``restore.py``).

A push uploads one bundle (full the first time, then ``last pushed..tip``) and then its manifest;
the manifest write is the commit point. A crash or an unreachable remote between the two leaves
an orphan bundle nobody names, which is harmless: the next push rebuilds from the last manifest.
The MEMORY_SYNC_PUSH event of push N is recorded after its manifest (it names the bundle's
sha256, so it cannot be inside that bundle) and travels with push N+1; a push with nothing new
but such events (and MEMORY_SYNC_PULL ones, recorded after a pull applied something) is
"up to date", so pushes converge."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawql_git.audit.chain import AuditChain
from clawql_git.errors import (
    ConcurrentUpdate,
    InvalidInput,
    KeyExists,
    SyncError,
    TamperDetected,
    VaultStateError,
)
from clawql_git.gitstore import GitStore, parse_trailers
from clawql_git.gitstore.gitcli import git_message, run_git
from clawql_git.gitstore.lock import exclusive_lock
from clawql_git.model.progress import Progress
from clawql_git.sync import apply, signing
from clawql_git.sync.backend import Backend
from clawql_git.sync.bundles import create_bundle, is_ancestor, read_header
from clawql_git.sync.manifest import (
    AUDIT_REF,
    MAIN_REF,
    ChainLink,
    Manifest,
    bundle_key,
    check_chain,
    manifest_key,
    sha256_hex,
    vault_root_key,
)

if TYPE_CHECKING:
    from clawql_git.sync.remotes import RemoteConfig
    from clawql_git.vault.facade import Vault

STATE = "sync.json"
MAX_ATTEMPTS = 8
PUSH_EVENT = "MEMORY_SYNC_PUSH"
PULL_EVENT = "MEMORY_SYNC_PULL"
SYNC_EVENTS = frozenset({PUSH_EVENT, PULL_EVENT})  # ride along with the next push


@dataclass(frozen=True)
class PushResult:
    """What a push did (``up_to_date``: nothing new to send)."""

    remote: str
    seq: int
    up_to_date: bool
    full: bool = False
    bundle_key: str = ""
    bundle_sha256: str = ""
    bundle_size: int = 0
    refs: dict[str, str] = field(default_factory=dict)
    attempts: int = 1
    pulled: int = 0
    audit_event: str = ""

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PullResult:
    """What a pull applied."""

    remote: str
    seq: int
    applied: list[int]
    main: str  # up-to-date | fast-forward | merge | local-ahead
    audit: str  # up-to-date | fast-forward | replayed N | local-ahead
    signed_by: list[str] = field(default_factory=list)  # principal of each applied manifest
    warnings: list[str] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SyncStatus:
    """What is pushed, what is not, and where."""

    remote: str
    provider: str
    vault_id: str
    local_seq: int
    remote_seq: int | None
    pushed: dict[str, str]
    local: dict[str, str]
    commits_not_pushed: int
    audit_events_not_pushed: int
    remote_error: str = ""

    @property
    def up_to_date(self) -> bool:
        return (
            not self.remote_error
            and self.commits_not_pushed == 0
            and self.audit_events_not_pushed == 0
            and self.remote_seq == self.local_seq
        )

    def to_record(self) -> dict[str, Any]:
        return {**asdict(self), "up_to_date": self.up_to_date}


@dataclass
class LocalState:
    """This clone's record of the remote: the newest manifest it has seen or written. A remote
    whose chain is shorter than ``seq``, or whose manifest ``seq`` hashes differently, was
    rolled back or rewritten."""

    seq: int = 0
    manifest: str = ""
    refs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, store: GitStore) -> LocalState:
        try:
            raw = json.loads((store.state_dir / STATE).read_text())
        except (OSError, ValueError):
            return cls()
        return cls(int(raw.get("seq", 0)), str(raw.get("manifest", "")), dict(raw.get("refs", {})))

    def save(self, store: GitStore) -> None:
        from clawql_git.gitstore.files import atomic_write

        atomic_write(
            store.state_dir / STATE, json.dumps(asdict(self), sort_keys=True).encode(), True
        )


class SyncService:
    """Push, pull and status of one vault against one backend."""

    def __init__(
        self,
        store: GitStore,
        backend: Backend,
        vault_id: str,
        prefix: str,
        agent: str,
        signing_key: Path | None = None,
        signers: signing.Signers | None = None,
    ):
        """``signing_key``: pushes sign their manifests with it. ``signers``: the allowed
        signers manifests are checked against (default: the vault's committed policy at the
        local main, read when the check runs; none there: manifests are not checked)."""
        self.store = store
        self.backend = backend
        self.vault_id = vault_id
        self.root = vault_root_key(prefix, vault_id)
        self.agent = agent
        self.signing_key = signing_key
        self.signers = signers

    def trusted_signers(self) -> signing.Signers:
        """Who may sign manifests: the explicit signers, else the local main's policy."""
        if self.signers is not None:
            return self.signers
        return signing.committed_signers(self.store, self.store.ref_target(MAIN_REF))

    # ------------------------------------------------------------ the remote chain

    def read_chain(self, state: LocalState | None = None) -> list[ChainLink]:
        """Every manifest, hash chain checked; against ``state`` when given (rollback)."""
        links = read_chain(self.backend, self.root, self.vault_id)
        if state is not None:
            check_rollback(links, state, self.backend.describe())
        return links

    # ------------------------------------------------------------ push

    def push(self, progress: Progress | None = None) -> PushResult:
        """Upload what the remote lacks; lose a race for a seq, pull the winner, retry on top."""
        signers = self.trusted_signers()
        if signers and self.signing_key is None:
            raise InvalidInput(
                f"manifests must be signed ({signers.source} names the allowed signers) and no "
                "signing key is set: set CLAWQL_SIGNING_KEY (nothing was pushed)"
            )
        with exclusive_lock(self.store.state_dir / "sync.lock"):
            pulled = attempt = rounds = 0
            while attempt < MAX_ATTEMPTS and rounds < 2 * MAX_ATTEMPTS:
                rounds += 1
                state = LocalState.load(self.store)
                links = self.read_chain(state)
                if len(links) > state.seq:  # someone pushed: apply it first, push on top
                    pulled += len(self._apply(links, state).applied)
                    continue
                attempt += 1
                result = self._push_once(links, progress, attempt, pulled)
                if result is not None:
                    return result
                time.sleep(0.05 * attempt)
        raise SyncError(f"push gave up after {MAX_ATTEMPTS} attempts: the remote keeps moving")

    def _push_once(
        self, links: list[ChainLink], progress: Progress | None, attempt: int, pulled: int
    ) -> PushResult | None:
        refs = self.local_refs()
        if MAIN_REF not in refs:
            raise VaultStateError("the vault has no commits on main to push")
        last = links[-1].manifest if links else None
        if last is not None and not self._has_news(last.refs, refs):
            return PushResult(self.backend.describe(), last.seq, True, refs=dict(last.refs))
        seq = len(links) + 1
        basis = sorted({sha for link in links for sha in link.manifest.refs.values()})
        data = create_bundle(self.store.workdir, refs, basis)
        sha = sha256_hex(data)
        key = bundle_key(self.root, seq, sha)
        tags = {"Vault-Id": self.vault_id, "Seq": str(seq), "Bundle-SHA256": sha, "Kind": "bundle"}
        header = read_header(data, key)
        manifest = Manifest(
            self.vault_id,
            seq,
            key,
            sha,
            len(data),
            dict(refs),  # a ref the bundle leaves out (unchanged) still names the remote's tip
            header.prerequisites,
            links[-1].sha256 if links else "",
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            self.agent,
        )
        manifest = self._sign(manifest)  # before any upload: a refused key uploads nothing
        with contextlib.suppress(KeyExists):  # the same bytes from a push that died after it
            self.backend.put_once(key, data, tags, _bytes(progress, key))
        encoded = manifest.encode()
        mkey = manifest_key(self.root, seq)
        mtags = {**tags, "Kind": "manifest", "Prev-Manifest": manifest.prev_manifest or "none"}
        try:
            self.backend.put_once(mkey, encoded, mtags)
        except KeyExists:
            return None  # another clone won this seq: pull it and go again on top
        if self.backend.get(mkey) != encoded:
            return None  # a store without atomic conditional writes let the other writer in
        link = ChainLink(manifest, sha256_hex(encoded), mkey)
        event = self._record_push(link)
        return PushResult(
            self.backend.describe(),
            seq,
            False,
            full=not links,
            bundle_key=key,
            bundle_sha256=sha,
            bundle_size=len(data),
            refs=dict(refs),
            attempts=attempt,
            pulled=pulled,
            audit_event=event,
        )

    def _sign(self, manifest: Manifest) -> Manifest:
        """The manifest with its signature (unsigned without a key); checked against the
        allowed signers before it leaves, so a key others would refuse is refused here."""
        if self.signing_key is None:
            return manifest
        signed = replace(manifest, signature=signing.sign(manifest.payload(), self.signing_key))
        signers = self.trusted_signers()
        if signers:
            try:
                signing.verify(signed.payload(), signed.signature, signers)
            except TamperDetected as exc:
                raise InvalidInput(
                    f"the signing key {self.signing_key} is not an allowed signer of "
                    f"{signers.source}; nothing was pushed ({exc.message})"
                ) from exc
        return signed

    def _has_news(self, pushed: dict[str, str] | Any, local: dict[str, str]) -> bool:
        """Main moved, or the audit chain holds events other than our own push records."""
        if pushed.get(MAIN_REF) != local.get(MAIN_REF):
            return True
        old, new = pushed.get(AUDIT_REF), local.get(AUDIT_REF)
        if old == new or new is None:
            return False
        if old is not None and not is_ancestor(self.store.workdir, old, new):
            return True
        return _own_events_since(self.store, old) > 0

    def _record_push(self, link: ChainLink) -> str:
        m = link.manifest
        self._remember(link)
        head = self.store.ref_commit(MAIN_REF)
        assert head is not None
        extra = [
            ("Sync-Seq", str(m.seq)),
            ("Bundle-SHA256", m.bundle_sha256),
            ("Sync-Remote", self.backend.describe()),
        ]
        return AuditChain(self.store).record(PUSH_EVENT, head, self.agent, extra=extra)

    def _remember(self, link: ChainLink) -> None:
        """The local record (rollback detection) and checkpoints for what the remote holds."""
        m = link.manifest
        LocalState(m.seq, link.sha256, dict(m.refs)).save(self.store)
        add_checkpoints(self.store, [link])

    # ------------------------------------------------------------ pull

    def pull(self, progress: Progress | None = None) -> PullResult:
        """Fetch, check and apply every manifest newer than this clone's record."""
        with exclusive_lock(self.store.state_dir / "sync.lock"):
            state = LocalState.load(self.store)
            links = self.read_chain(state)
            result = self._apply(links, state, progress)
        newest = links[-1].manifest.seq if links else 0
        orphans = newer_bundles(self.backend, self.root, newest)
        if orphans:
            note = orphans_note(self.backend.describe(), orphans, newest)
            return replace(result, warnings=[note])
        return result

    def _apply(
        self, links: list[ChainLink], state: LocalState, progress: Progress | None = None
    ) -> PullResult:
        new = links[state.seq :]
        where = self.backend.describe()
        if not new:
            seq = links[-1].manifest.seq if links else 0
            return PullResult(where, seq, [], "up-to-date", "up-to-date")
        repo = self.store.workdir
        signed_by = signing.check_all(
            [(lk.key, lk.manifest.payload(), lk.manifest.signature) for lk in new],
            self.trusted_signers(),
        )
        bundles = apply.download(self.backend, new, progress)
        try:
            apply.unpack(repo, new, bundles)
            apply.drop_incoming(self.store)  # the objects stay; the content check walks them
            tips = new[-1].manifest.refs
            remote_audit = tips.get(AUDIT_REF)
            apply.check_ancestry(repo, links[max(state.seq - 1, 0) :], remote_audit)
            apply.check_content(self.store, tips)
            main = self._apply_main(tips[MAIN_REF], new[-1].manifest.seq)
            audit = self._apply_audit(remote_audit)
        finally:
            apply.drop_incoming(self.store)
        self._remember(new[-1])
        add_checkpoints(self.store, new[:-1])
        applied = [lk.manifest.seq for lk in new]
        self._record_pull(applied)
        return PullResult(where, applied[-1], applied, main, audit, signed_by)

    def _record_pull(self, applied: list[int]) -> str:
        head = self.store.ref_commit(MAIN_REF)
        assert head is not None
        extra = [
            ("Sync-Seq", str(applied[-1])),
            ("Sync-Applied", f"{applied[0]}..{applied[-1]}"),
            ("Sync-Remote", self.backend.describe()),
        ]
        return AuditChain(self.store).record(PULL_EVENT, head, self.agent, extra=extra)

    def _apply_main(self, remote: str, seq: int) -> str:
        local = self.local_refs().get(MAIN_REF)
        repo = self.store.workdir
        if local == remote or (local and is_ancestor(repo, remote, local)):
            return "up-to-date" if local == remote else "local-ahead"
        if local is None or is_ancestor(repo, local, remote):
            _git_merge(repo, ["--ff-only", remote])
            how = "fast-forward"
        else:
            _git_merge(repo, ["--no-ff", "-m", f"Merge sync seq {seq}", remote])
            how = "merge"
        from clawql_git.vault.facade import Vault

        Vault.open(repo).after_git_event("post-merge")  # the hook may not be installed here
        return how

    def _apply_audit(self, remote: str | None) -> str:
        local = self.local_refs().get(AUDIT_REF)
        repo = self.store.workdir
        if remote is None or local == remote:
            return "up-to-date"
        if local and is_ancestor(repo, remote, local):
            return "local-ahead"
        if local is None or is_ancestor(repo, local, remote):
            with exclusive_lock(self.store.state_dir / "audit.lock"):
                if self.local_refs().get(AUDIT_REF) != local:
                    raise ConcurrentUpdate(f"{AUDIT_REF} moved while the pull was applied")
                self.store.set_ref(AUDIT_REF, remote)
            return "fast-forward"
        return f"replayed {apply.replay_audit(self.store, remote)}"

    # ------------------------------------------------------------ status

    def status(self, provider: str) -> SyncStatus:
        """Local tips against the last pushed ones, and the remote's newest seq."""
        state = LocalState.load(self.store)
        local = self.local_refs()
        remote_seq: int | None = None
        error = ""
        try:
            remote_seq = len(self.read_chain(state))
        except (SyncError, TamperDetected) as exc:
            error = exc.message
        return SyncStatus(
            self.backend.describe(),
            provider,
            self.vault_id,
            state.seq,
            remote_seq,
            dict(state.refs),
            local,
            _count(self.store.workdir, local.get(MAIN_REF), state.refs.get(MAIN_REF)),
            _own_events_since(self.store, state.refs.get(AUDIT_REF)),
            error,
        )

    def local_refs(self) -> dict[str, str]:
        out = {}
        for ref in (MAIN_REF, AUDIT_REF):
            commit = self.store.ref_commit(ref)
            if commit is not None:
                out[ref] = str(commit.id)
        return out


def read_chain(backend: Backend, root: str, vault_id: str) -> list[ChainLink]:
    """Fetch every manifest under ``root`` and check the hash chain."""
    links = []
    for obj in backend.list(f"{root}/manifests/"):
        if not obj.key.endswith(".json"):
            continue
        data = backend.get(obj.key)
        links.append(ChainLink(Manifest.decode(data, obj.key), sha256_hex(data), obj.key))
    links.sort(key=lambda lk: lk.key)
    check_chain(links, vault_id)
    return links


BUNDLE_NAME = re.compile(r"/bundles/(\d{8})-[0-9a-f]{64}\.bundle$")


def newer_bundles(backend: Backend, root: str, seq: int) -> list[int]:
    """Seqs above ``seq`` that have a bundle on the remote: a manifest that once named it was
    deleted (the remote rolled back), or a push died between its bundle and its manifest."""
    found = {
        int(m.group(1))
        for obj in backend.list(f"{root}/bundles/")
        if (m := BUNDLE_NAME.search(obj.key))
    }
    return sorted(n for n in found if n > seq)


def orphans_note(where: str, seqs: list[int], seq: int) -> str:
    return (
        f"{where} holds bundles of seq {', '.join(map(str, seqs))} that no manifest names "
        f"(newest manifest: seq {seq}): newer manifests were deleted, or a push died between "
        "its bundle and its manifest"
    )


def check_rollback(links: list[ChainLink], state: LocalState, where: str) -> None:
    """Refuse a remote that lost manifests this clone has seen, or rewrote one."""
    if state.seq == 0:
        return
    if len(links) < state.seq:
        raise TamperDetected(
            f"{where} is rolled back: its newest manifest is seq {len(links)} but this clone "
            f"has seen seq {state.seq} (an older manifest replayed as the newest, or deleted ones)"
        )
    seen = links[state.seq - 1]
    if seen.sha256 != state.manifest:
        raise TamperDetected(
            f"{where} diverges: manifest seq {state.seq} hashes to {seen.sha256}, this clone "
            f"recorded {state.manifest}"
        )


def add_checkpoints(store: GitStore, links: list[ChainLink]) -> None:
    """Manifest tips become verify checkpoints (first-parent ancestors only: that is the walk
    verify does; the rest were checked by ``check_ancestry`` with git itself)."""
    lines: list[tuple[str, str]] = []
    for link in links:
        for ref, sha in sorted(link.manifest.refs.items()):
            tip = store.ref_commit(ref)
            if tip is not None and sha in _first_parents(store.workdir, str(tip.id)):
                lines.append((ref, sha))
    if lines:
        store.add_checkpoints(lines)


def _first_parents(repo: Path, tip: str) -> set[str]:
    args = ["git", "rev-list", "--first-parent", tip]
    return set(
        subprocess.run(args, cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    )


def _own_events_since(store: GitStore, pushed: str | None) -> int:
    """Audit events after ``pushed`` other than our own push records (those ride along with
    the next push, so they alone never make a push necessary)."""
    count = 0
    for commit in store.walk(store.ref_commit(AUDIT_REF)):
        if str(commit.id) == pushed:
            break
        if parse_trailers(commit.message).get("Clawql-Event") not in SYNC_EVENTS:
            count += 1
    return count


def _count(repo: Path, tip: str | None, pushed: str | None) -> int:
    if tip is None or tip == pushed:
        return 0
    args = ["git", "rev-list", "--count", tip] + ([f"^{pushed}"] if pushed else [])
    out = subprocess.run(args, cwd=repo, capture_output=True, text=True, check=False).stdout
    return int(out.strip() or 0)


def _git_merge(repo: Path, args: list[str]) -> None:
    result = run_git(repo, ["merge", "-q", *args])
    if result.returncode != 0:
        run_git(repo, ["merge", "--abort"])
        raise VaultStateError(
            f"cannot merge the remote's main into this clone: {git_message(result)} "
            "(nothing was changed; merge by hand with `git merge`)"
        )


def _bytes(progress: Progress | None, key: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda done, total: progress(done, total, key)


def for_vault(
    vault: Vault, backend: Backend | None = None, agent: str | None = None
) -> tuple[SyncService, RemoteConfig]:
    """The sync service of a vault, from its [sync] settings (or an explicit backend); pushes
    are signed off as ``agent`` (default: the vault's agent_id setting)."""
    from clawql_git.sync.remotes import load_config, make_backend

    config = load_config(vault)
    chosen = backend or make_backend(config)
    who = agent or vault.settings.agent_id
    key = vault.store.signing_key or (
        Path(vault.settings.signing_key).expanduser() if vault.settings.signing_key else None
    )
    service = SyncService(vault.store, chosen, vault.vault_id, config.prefix, who, key)
    return service, config
