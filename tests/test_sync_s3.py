"""Sync to S3 against moto's real S3 server over HTTP: bundles, the manifest chain, push races,
pull, restore on an empty machine, tampering and faults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import KeyExists, SyncError, TamperDetected
from clawql_git.sync.manifest import AUDIT_REF, MAIN_REF, Manifest, canonical, sha256_hex
from clawql_git.sync.remotes import RemoteConfig, save_config
from clawql_git.sync.restore import restore
from clawql_git.sync.s3 import S3Backend
from clawql_git.sync.service import SyncService, for_vault

from .conftest import fsck_ok, git
from .s3server import S3Server, s3_server, start_server  # noqa: F401
from .sync_race import push_at_once

BUCKET = "vault-bundles"
A = Identity(agent_id="agent-a")


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")


@pytest.fixture
def remote(s3_server: S3Server) -> S3Server:  # noqa: F811
    s3_server.client().create_bucket(Bucket=BUCKET)
    return s3_server


def _vault(tmp_path: Path, remote: S3Server, name: str = "v") -> Vault:
    vault = Vault.init(tmp_path / name, identity=A)
    save_config(vault, RemoteConfig("s3", BUCKET, endpoint=remote.endpoint), A)
    return vault


def _service(vault: Vault) -> SyncService:
    return for_vault(Vault.open(vault.root), agent="agent-a")[0]


def _keys(remote: S3Server, part: str = "") -> list[str]:
    found = remote.client().list_objects_v2(Bucket=BUCKET).get("Contents", [])
    return sorted(o["Key"] for o in found if part in o["Key"])


def _manifests(remote: S3Server) -> list[Manifest]:
    client = remote.client()
    return [
        Manifest.decode(client.get_object(Bucket=BUCKET, Key=k)["Body"].read(), k)
        for k in _keys(remote, "/manifests/")
    ]


def _restore_dest(tmp_path: Path, remote: S3Server, name: str = "restored") -> Path:
    dest = tmp_path / name
    backend = S3Backend(BUCKET, remote.endpoint)
    restore(backend, dest, "clawql")
    return dest


def _refs(path: Path) -> dict[str, str]:
    out = git(path, "for-each-ref", "--format=%(refname) %(objectname)", MAIN_REF, AUDIT_REF)
    pairs = [line.split(" ", 1) for line in out.stdout.splitlines()]
    return {name: sha for name, sha in pairs}


# ---------------------------------------------------------------- init


def test_init_records_the_remote_as_one_vault_commit(tmp_path: Path, remote: S3Server) -> None:
    vault = Vault.init(tmp_path / "v", identity=A)
    before = git(vault.root, "rev-parse", "HEAD").stdout.strip()
    runner = CliRunner()
    args = ["sync", "--vault", str(vault.root), "init", "--provider", "s3", "--bucket", BUCKET]
    result = runner.invoke(cli, [*args, "--endpoint", remote.endpoint, "--prefix", "team/"])
    assert result.exit_code == 0, result.output
    toml = (vault.root / ".clawql/vault.toml").read_text()
    assert "[sync]" in toml and f'bucket = "{BUCKET}"' in toml and "team/" in toml
    assert "secret" not in toml.lower() and "testing" not in toml  # no credentials from the env
    log = git(vault.root, "log", "-1", "--format=%(trailers:key=Clawql-Event,valueonly)")
    assert log.stdout.strip() == "MEMORY_SYNC_INIT"
    assert git(vault.root, "rev-parse", "HEAD~1").stdout.strip() == before
    changed = git(vault.root, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert changed == [".clawql/vault.toml", "log.md"]  # the settings change and its log line
    assert git(vault.root, "status", "--porcelain").stdout == ""
    # R2 needs an endpoint; a bad provider is refused; nothing is committed either time.
    bad = runner.invoke(cli, ["sync", "--vault", str(vault.root), "init", "--provider", "r2"])
    assert bad.exit_code == 2 and "bucket" in bad.output
    r2 = ["sync", "--vault", str(vault.root), "init", "--provider", "r2", "--bucket", BUCKET]
    bad = runner.invoke(cli, r2)
    assert bad.exit_code == 2 and "--endpoint" in bad.output
    head = git(vault.root, "rev-parse", "HEAD").stdout.strip()
    assert head != before and git(vault.root, "rev-parse", "HEAD~1").stdout.strip() == before
    assert vault.verify().ok
    # The text output of push and status says what went where.
    sync = ["sync", "--vault", str(vault.root)]
    pushed = runner.invoke(cli, [*sync, "push", "--agent", "agent-a"])
    assert pushed.exit_code == 0 and "pushed seq 1 (full" in pushed.output, pushed.output
    assert _keys(remote, "team/")  # under the configured prefix
    status = runner.invoke(cli, [*sync, "status"])
    assert (
        status.exit_code == 0 and "remote seq 1" in status.output and "up to date" in status.output
    )
    again = runner.invoke(cli, [*sync, "push"])
    assert "up to date with s3://vault-bundles" in again.output


def test_arweave_provider_is_imported_lazily() -> None:
    """An S3 remote never loads the Arweave code (nor its crypto); an Arweave one does."""
    import subprocess
    import sys

    code = """
import sys
from clawql_git.sync.remotes import RemoteConfig, make_backend
make_backend(RemoteConfig("s3", bucket="b"), {})
assert "clawql_git.sync.arweave" not in sys.modules, "loaded for an S3 remote"
backend = make_backend(RemoteConfig("arweave", public=True), {})
assert "clawql_git.sync.arweave" in sys.modules
print(type(backend).__name__)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ArweaveBackend", out.stderr


# ---------------------------------------------------------------- push


def test_push_full_then_incremental_with_a_hash_chain(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    vault.ingest(type="decision", title="First", body="one", identity=A)
    service = _service(vault)
    seen: list[tuple[int, int, str]] = []
    first = service.push(lambda done, total, item: seen.append((done, total, item)))
    assert first.full and first.seq == 1 and seen and seen[-1][0] == seen[-1][1]
    assert service.push().up_to_date  # only its own MEMORY_SYNC_PUSH event is new
    vault.ingest(type="decision", title="Second", body="two", identity=A)
    second = service.push()
    assert not second.full and second.seq == 2
    assert second.bundle_size < first.bundle_size
    m1, m2 = _manifests(remote)
    raw1 = remote.client().get_object(Bucket=BUCKET, Key=_keys(remote, "/manifests/")[0])
    assert m1.prev_manifest == "" and m2.prev_manifest == sha256_hex(raw1["Body"].read())
    assert m1.prerequisites == () and m2.prerequisites  # incremental: last pushed..tip
    assert m2.refs[MAIN_REF] == git(vault.root, "rev-parse", "main").stdout.strip()
    assert m1.vault_id == vault.vault_id and m2.agent == "agent-a" and m2.time
    # The bundle is a real git bundle of main and the audit ref.
    data = remote.client().get_object(Bucket=BUCKET, Key=m2.bundle_key)["Body"].read()
    assert sha256_hex(data) == m2.bundle_sha256 and len(data) == m2.bundle_size
    (tmp_path / "b2.bundle").write_bytes(data)
    heads = git(vault.root, "bundle", "list-heads", str(tmp_path / "b2.bundle")).stdout
    assert MAIN_REF in heads and AUDIT_REF in heads
    # Each push left a MEMORY_SYNC_PUSH event naming its seq and bundle.
    pushes = [e for e in vault.audit_events() if e.event == "MEMORY_SYNC_PUSH"]
    assert len(pushes) == 2
    trailers = git(vault.root, "log", "-1", "--format=%B", AUDIT_REF).stdout
    assert "Sync-Seq: 2" in trailers and f"Bundle-SHA256: {m2.bundle_sha256}" in trailers
    assert "Sync-Remote: s3://vault-bundles" in trailers
    assert vault.verify().ok


def test_keys_are_written_once_and_object_lock_retains(remote: S3Server) -> None:
    backend = S3Backend(BUCKET, remote.endpoint)
    backend.put_once("k/one", b"first", {"Seq": "1"})
    with pytest.raises(KeyExists):
        backend.put_once("k/one", b"second", {"Seq": "1"})
    assert backend.get("k/one") == b"first"
    remote.client().create_bucket(Bucket="locked-bundles", ObjectLockEnabledForBucket=True)
    locked = S3Backend("locked-bundles", remote.endpoint, lock_days=30)
    locked.put_once("k/two", b"kept", {})
    head = remote.client().head_object(Bucket="locked-bundles", Key="k/two")
    assert head["ObjectLockMode"] == "GOVERNANCE" and head["ObjectLockRetainUntilDate"]


def test_large_objects_go_multipart_with_progress_and_stay_write_once(remote: S3Server) -> None:
    import os

    backend = S3Backend(BUCKET, remote.endpoint, part_size=5 * 1024 * 1024)
    data = os.urandom(11 * 1024 * 1024)
    seen: list[tuple[int, int]] = []
    backend.put_once("big/one", data, {}, lambda done, total: seen.append((done, total)))
    assert len(seen) == 3 and seen[-1] == (len(data), len(data))
    assert backend.get("big/one") == data
    with pytest.raises(KeyExists):
        backend.put_once("big/one", data[::-1], {})
    assert backend.get("big/one") == data
    # With Object Lock each part carries its checksum and the whole object is retained.
    remote.client().create_bucket(Bucket="locked-big", ObjectLockEnabledForBucket=True)
    locked = S3Backend("locked-big", remote.endpoint, part_size=5 * 1024 * 1024)
    locked.put_once("big/two", data, {})
    head = remote.client().head_object(Bucket="locked-big", Key="big/two")
    assert head["ObjectLockMode"] == "GOVERNANCE" and head["ContentLength"] == len(data)


def test_two_clones_pushing_at_once_each_get_their_own_seq(
    tmp_path: Path, remote: S3Server
) -> None:
    origin = _vault(tmp_path, remote, "origin")
    origin.ingest(type="decision", title="Seed", body="seed", identity=A)
    _service(origin).push()
    clone = _restore_dest(tmp_path, remote, "clone")
    Vault.open(origin.root).ingest(type="pattern", title="From origin", identity=A)
    Vault.open(clone).ingest(type="context", title="From clone", identity=Identity("b"))
    results: dict[str, Any] = push_at_once({"origin": origin.root, "clone": clone}, 120)
    seqs = sorted(r.seq for r in results.values())
    assert seqs == [2, 3], results
    loser = max(results.values(), key=lambda r: r.seq)
    assert loser.pulled == 1  # it lost the seq (or saw it taken) and pulled the winner first
    assert len(_keys(remote, "/manifests/")) == 3
    # The later push carries both writers' work; a restore has every entry exactly once.
    dest = _restore_dest(tmp_path, remote, "final")
    titles = sorted(e.title for e in Vault.open(dest).entries())
    assert titles == ["From clone", "From origin", "Seed"]
    assert Vault.open(dest).verify().ok, Vault.open(dest).verify().problems
    fsck_ok(dest)


def test_the_loser_of_a_seq_pulls_the_winner_and_retries_on_top(
    tmp_path: Path, remote: S3Server
) -> None:
    origin = _vault(tmp_path, remote, "origin")
    origin.ingest(type="decision", title="Seed", identity=A)
    _service(origin).push()
    clone = _restore_dest(tmp_path, remote, "clone")
    Vault.open(origin.root).ingest(type="pattern", title="Winner", identity=A)
    Vault.open(clone).ingest(type="context", title="Loser", identity=Identity("b"))
    winner = _service(origin)

    class OtherPushLandsFirst(S3Backend):
        """The real backend; the other clone's whole push lands right after our bundle."""

        fired = False

        def put_once(self, key: str, data: bytes, tags: Any, progress: Any = None) -> Any:
            obj = super().put_once(key, data, tags, progress)
            if key.endswith(".bundle") and not self.fired:
                self.fired = True
                assert winner.push().seq == 2
            return obj

    loser = _service(Vault.open(clone))
    loser.backend = OtherPushLandsFirst(BUCKET, remote.endpoint)
    result = loser.push()
    assert result.seq == 3 and result.attempts == 2 and result.pulled == 1
    m2, m3 = _manifests(remote)[1:]
    assert m2.agent == "agent-a" and m3.prerequisites
    assert len(_keys(remote, ".bundle")) == 4  # the loser's first bundle is an orphan
    dest = _restore_dest(tmp_path, remote, "final")
    assert sorted(e.title for e in Vault.open(dest).entries()) == ["Loser", "Seed", "Winner"]


# ---------------------------------------------------------------- pull and restore


def test_restore_rebuilds_the_vault_from_bundles_alone(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    for n in range(3):
        vault.ingest(type="decision", title=f"Decision {n}", body=f"body {n} zebra", identity=A)
        vault.recall(f"decision {n}")  # MEMORY_RECALL events on the audit chain
        _service(vault).push()
    pushed = _manifests(remote)[-1].refs
    runner = CliRunner()
    dest = tmp_path / "fresh-machine" / "vault"
    args = ["sync", "restore", "--from", "s3", "--bucket", BUCKET, "--endpoint", remote.endpoint]
    result = runner.invoke(cli, [*args, str(dest), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["seq"] == 3 and report["bundles"] == 3
    assert (
        git(dest, "rev-parse", "HEAD").stdout.strip()
        == git(vault.root, "rev-parse", "HEAD").stdout.strip()
    )
    assert git(dest, "rev-parse", AUDIT_REF).stdout.strip() == pushed[AUDIT_REF]
    # The source's chain is the restored one plus the event of the last push (it rides along
    # with the next push).
    assert git(vault.root, "rev-parse", f"{AUDIT_REF}~1").stdout.strip() == pushed[AUDIT_REF]
    assert git(dest, "symbolic-ref", "HEAD").stdout.strip() == MAIN_REF
    assert git(dest, "status", "--porcelain").stdout == ""
    assert (dest / ".git/hooks/post-merge").is_file()
    fsck_ok(dest)
    verify = runner.invoke(cli, ["memory", "--vault", str(dest), "verify", "--json"])
    assert verify.exit_code == 0, verify.output
    checkpoints = (dest / ".git/clawql/checkpoints").read_text()
    assert pushed[MAIN_REF] in checkpoints and pushed[AUDIT_REF] in checkpoints
    restored = Vault.open(dest)
    assert restored.index_status()["stamp"] is not None
    hits = restored.recall("zebra", backend="fts").hits
    assert hits and hits[0].path.startswith("decisions/")
    status = runner.invoke(cli, ["sync", "--vault", str(dest), "status", "--json"])
    assert status.exit_code == 0, status.output
    assert json.loads(status.output)["local_seq"] == 3


def test_pull_fast_forwards_then_merges(tmp_path: Path, remote: S3Server) -> None:
    origin = _vault(tmp_path, remote, "origin")
    origin.ingest(type="decision", title="Seed", identity=A)
    _service(origin).push()
    clone = _restore_dest(tmp_path, remote, "clone")
    Vault.open(origin.root).ingest(type="pattern", title="Later on origin", identity=A)
    _service(origin).push()
    runner = CliRunner()
    pulled = runner.invoke(cli, ["sync", "--vault", str(clone), "pull", "--json"])
    assert pulled.exit_code == 0, pulled.output
    assert json.loads(pulled.output)["main"] == "fast-forward"
    last = git(clone, "log", "-1", "--format=%B", AUDIT_REF).stdout
    assert "Clawql-Event: MEMORY_SYNC_PULL" in last and "Sync-Applied: 2..2" in last
    assert git(clone, "rev-parse", "main").stdout == git(origin.root, "rev-parse", "main").stdout
    # Both write, origin pushes; the clone's pull merges like git pull would.
    Vault.open(origin.root).ingest(type="pattern", title="Origin again", identity=A)
    _service(origin).push()
    Vault.open(clone).ingest(type="context", title="Clone side", identity=Identity("b"))
    Vault.open(clone).recall("anything")
    result = _service(Vault.open(clone)).pull()
    assert result.main == "merge" and result.audit.startswith("replayed")
    merged = Vault.open(clone)
    titles = {e.title for e in merged.entries()}
    assert {"Seed", "Later on origin", "Origin again", "Clone side"} <= titles
    assert merged.catalog_drift() == []
    assert merged.verify().ok, merged.verify().problems
    assert git(clone, "status", "--porcelain").stdout == ""
    assert merged.index_status()["behind"] == 0
    # The clone pushes its merge; a restore accepts the replayed audit events.
    assert _service(merged).push().seq == 4
    final = _restore_dest(tmp_path, remote, "final")
    assert Vault.open(final).verify().ok


# ---------------------------------------------------------------- tampering and faults


def _three_pushes(tmp_path: Path, remote: S3Server) -> Vault:
    vault = _vault(tmp_path, remote)
    for n in range(3):
        vault.ingest(type="decision", title=f"Entry {n}", body=f"text {n}", identity=A)
        _service(vault).push()
    return vault


def _put(remote: S3Server, key: str, data: bytes) -> None:
    remote.client().put_object(Bucket=BUCKET, Key=key, Body=data)  # the attacker's raw write


def test_a_flipped_byte_is_refused_and_nothing_is_applied(tmp_path: Path, remote: S3Server) -> None:
    vault = _three_pushes(tmp_path, remote)
    clone = _restore_dest(tmp_path, remote, "clone")
    Vault.open(vault.root).ingest(type="decision", title="Fourth", identity=A)
    _service(vault).push()
    m4 = _manifests(remote)[-1]
    data = bytearray(remote.client().get_object(Bucket=BUCKET, Key=m4.bundle_key)["Body"].read())
    data[len(data) // 2] ^= 0x01
    _put(remote, m4.bundle_key, bytes(data))
    before = _refs(clone)
    with pytest.raises(TamperDetected, match="does not match its manifest"):
        _service(Vault.open(clone)).pull()
    assert _refs(clone) == before
    assert git(clone, "for-each-ref", "refs/clawql/sync-incoming").stdout == ""
    result = CliRunner().invoke(
        cli,
        [
            "sync",
            "restore",
            "--from",
            "s3",
            "--bucket",
            BUCKET,
            "--endpoint",
            remote.endpoint,
            str(tmp_path / "dest"),
        ],
    )
    assert result.exit_code == 1 and "does not match its manifest" in result.output
    assert not (tmp_path / "dest").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dest")]


def test_a_missing_prerequisite_is_refused(tmp_path: Path, remote: S3Server) -> None:
    _three_pushes(tmp_path, remote)
    keys = _keys(remote, "/manifests/")
    client = remote.client()
    # Delete bundle 1: the chain names a bundle the remote no longer has.
    m1 = _manifests(remote)[0]
    saved = client.get_object(Bucket=BUCKET, Key=m1.bundle_key)["Body"].read()
    client.delete_object(Bucket=BUCKET, Key=m1.bundle_key)
    with pytest.raises(TamperDetected, match="missing"):
        _restore_dest(tmp_path, remote, "a")
    _put(remote, m1.bundle_key, saved)
    # A rewriter drops seq 2 and re-chains seq 3 as seq 2 with correct hashes: the bundle's
    # prerequisites are then nowhere, and git bundle verify says so.
    m1_raw = client.get_object(Bucket=BUCKET, Key=keys[0])["Body"].read()
    m3 = _manifests(remote)[2]
    bundle3 = client.get_object(Bucket=BUCKET, Key=m3.bundle_key)["Body"].read()
    new_key = m3.bundle_key.replace("/00000003-", "/00000002-")
    _put(remote, new_key, bundle3)
    forged = Manifest(
        **{**m3.__dict__, "seq": 2, "bundle_key": new_key, "prev_manifest": sha256_hex(m1_raw)}
    )
    client.delete_object(Bucket=BUCKET, Key=keys[2])
    _put(remote, keys[1], canonical(forged.to_record()))
    with pytest.raises(TamperDetected, match="earlier bundle is missing"):
        _restore_dest(tmp_path, remote, "b")
    assert not (tmp_path / "b").exists()


def test_rollback_and_replayed_manifests_are_refused(tmp_path: Path, remote: S3Server) -> None:
    vault = _three_pushes(tmp_path, remote)
    keys = _keys(remote, "/manifests/")
    client = remote.client()
    raw = [client.get_object(Bucket=BUCKET, Key=k)["Body"].read() for k in keys]
    # An older manifest replayed as the newest: the chain breaks.
    _put(remote, keys[2], raw[0])
    with pytest.raises(TamperDetected, match="chain"):
        _service(vault).pull()
    with pytest.raises(TamperDetected, match="chain"):
        _restore_dest(tmp_path, remote, "x")
    # On an empty machine the caller's knowledge stands in for the local record.
    _put(remote, keys[2], raw[2])
    with pytest.raises(TamperDetected, match="rolled back"):
        restore(S3Backend(BUCKET, remote.endpoint), tmp_path / "y", "clawql", min_seq=4)
    assert not (tmp_path / "y").exists()
    # Dropping the newest manifest leaves a valid but shorter chain: this clone has seen seq 3.
    client.delete_object(Bucket=BUCKET, Key=keys[2])
    before = _refs(vault.root)
    with pytest.raises(TamperDetected, match="rolled back"):
        _service(vault).pull()
    with pytest.raises(TamperDetected, match="rolled back"):
        _service(vault).push()
    assert _refs(vault.root) == before
    status = _service(vault).status("s3")
    assert "rolled back" in status.remote_error and not status.up_to_date
    # A manifest rewritten in place (same seq, other bytes) diverges from what we saw.
    forged = json.loads(raw[1])
    forged["agent"] = "mallory"
    _put(remote, keys[1], canonical(forged))
    _put(remote, keys[2], raw[2])
    with pytest.raises(TamperDetected):
        _service(vault).pull()


def test_remote_unreachable_mid_push_then_the_next_push_resumes(
    tmp_path: Path, remote: S3Server
) -> None:
    vault = _vault(tmp_path, remote)
    vault.ingest(type="decision", title="Survives", body="x", identity=A)
    port = int(remote.endpoint.rsplit(":", 1)[1])
    service = _service(vault)

    class StopsAfterBundle(S3Backend):
        """The real backend on the real server; the server goes away after the bundle."""

        def put_once(self, key: str, data: bytes, tags: Any, progress: Any = None) -> Any:
            obj = super().put_once(key, data, tags, progress)
            if key.endswith(".bundle"):
                remote.stop()
            return obj

    service.backend = StopsAfterBundle(BUCKET, remote.endpoint)
    with pytest.raises(SyncError, match="unreachable"):
        service.push()
    assert git(vault.root, "rev-parse", "--verify", "-q", AUDIT_REF, check=False).stdout == ""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()  # moto keeps its state in-process: the orphan bundle is still there
    try:
        assert len(_keys(remote, ".bundle")) == 1 and _keys(remote, "/manifests/") == []
        result = _service(vault).push()
        assert result.seq == 1 and result.full
        assert len(_keys(remote, "/manifests/")) == 1
        assert len(_keys(remote, ".bundle")) == 1  # the same bytes, the same key: reused
        dest = _restore_dest(tmp_path, remote)
        assert [e.title for e in Vault.open(dest).entries()] == ["Survives"]
    finally:
        server.stop()


def test_a_dead_endpoint_is_a_clear_sync_error(tmp_path: Path, remote: S3Server) -> None:
    from .s3server import free_port

    vault = Vault.init(tmp_path / "v", identity=A)
    save_config(vault, RemoteConfig("s3", BUCKET, endpoint=f"http://127.0.0.1:{free_port()}"), A)
    result = CliRunner().invoke(cli, ["sync", "--vault", str(vault.root), "push", "--json"])
    assert result.exit_code == 5
    assert json.loads(result.output.strip().splitlines()[-1])["error"] == "SyncError"
    assert git(vault.root, "rev-parse", "--verify", "-q", AUDIT_REF, check=False).stdout == ""


# ---------------------------------------------------------------- shared index


def test_published_index_answers_recall_read_only(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = Vault.init(tmp_path / "v", identity=A)
    vault.ingest(type="decision", title="Use Postgres", body="We pick postgres for ledgers.")
    vault.ingest(type="pattern", title="Retry with jitter", body="Backoff with jitter on 503.")
    old = vault.ingest(type="decision", title="Use MySQL", body="mysql for ledgers")
    vault.retract(old.path, reason="wrong")
    runner = CliRunner()
    uri = f"s3://{BUCKET}/shared/team"
    args = ["memory", "--vault", str(vault.root), "index", "publish", uri]
    published = runner.invoke(cli, [*args, "--endpoint", remote.endpoint, "--json"])
    assert published.exit_code == 0, published.output
    record = json.loads(published.output)
    assert record["commit"] == git(vault.root, "rev-parse", "main").stdout.strip()
    assert _keys(remote, "shared/team/current.json")
    # A reader with no vault at all: only the URI and the AWS environment.
    monkeypatch.setenv("AWS_ENDPOINT_URL", remote.endpoint)
    monkeypatch.chdir(tmp_path)
    before = git(vault.root, "rev-parse", AUDIT_REF, check=False).stdout
    found = runner.invoke(cli, ["memory", "recall", "--index", uri, "ledgers", "--json"])
    assert found.exit_code == 0, found.output
    hits = json.loads(found.output)["hits"]
    assert [h["title"] for h in hits] == ["Use Postgres"]  # the retracted entry is left out
    assert hits[0]["worm_ref"].startswith("git:")
    assert git(vault.root, "rev-parse", AUDIT_REF, check=False).stdout == before
    missing = runner.invoke(cli, ["memory", "recall", "--index", f"s3://{BUCKET}/none", "x"])
    assert missing.exit_code == 3 and "current.json" in missing.output
