"""Hostile sync (issue #14): someone with write access to the bucket but not the vault's key.

Everything runs against moto's real S3 server over HTTP. The attacker writes raw objects with
boto3: bundles made with the real git from a clone of the vault, and manifests that chain
correctly (the hash chain alone is integrity, not authenticity). Each case checks that pull and
restore refuse, name the problem, and change nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from clawql_git import Identity, Vault
from clawql_git.cli import cli
from clawql_git.errors import InvalidInput, TamperDetected
from clawql_git.sync import signing
from clawql_git.sync.bundles import create_bundle, read_header
from clawql_git.sync.manifest import (
    AUDIT_REF,
    MAIN_REF,
    Manifest,
    bundle_key,
    manifest_key,
    sha256_hex,
)
from clawql_git.sync.remotes import RemoteConfig, save_config
from clawql_git.sync.restore import restore
from clawql_git.sync.s3 import S3Backend
from clawql_git.sync.service import SyncService, for_vault

from .conftest import git
from .s3server import S3Server, s3_server  # noqa: F401

BUCKET = "hostile-bundles"
A = Identity(agent_id="agent-a")
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    monkeypatch.delenv("CLAWQL_SIGNING_KEY", raising=False)
    monkeypatch.delenv("CLAWQL_SYNC_ALLOWED_SIGNERS", raising=False)


@pytest.fixture
def remote(s3_server: S3Server) -> S3Server:  # noqa: F811
    s3_server.client().create_bucket(Bucket=BUCKET)
    return s3_server


# ---------------------------------------------------------------- helpers


def _vault(tmp_path: Path, remote: S3Server, name: str = "v") -> Vault:
    vault = Vault.init(tmp_path / name, identity=A)
    save_config(vault, RemoteConfig("s3", BUCKET, endpoint=remote.endpoint), A)
    return vault


def _service(root: Path) -> SyncService:
    return for_vault(Vault.open(root), agent="agent-a")[0]


def _backend(remote: S3Server) -> S3Backend:
    return S3Backend(BUCKET, remote.endpoint)


def _keygen(tmp_path: Path, name: str) -> tuple[Path, str]:
    key = tmp_path / "keys" / name
    key.parent.mkdir(exist_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key, Path(f"{key}.pub").read_text().strip()


def _commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()


def _signed_vault(tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch) -> Vault:
    """A vault whose committed policy names allowed signers; pushes sign with the vault's key."""
    key, public = _keygen(tmp_path, "vault")
    vault = _vault(tmp_path, remote)
    (vault.root / ".clawql" / "allowed_signers").write_text(f"vault@clawql {public}\n")
    toml = vault.root / ".clawql" / "vault.toml"
    toml.write_text(toml.read_text() + '\n[policy]\nallowed_signers = ".clawql/allowed_signers"\n')
    _commit_all(vault.root, "policy: allowed signers")
    monkeypatch.setenv("CLAWQL_SIGNING_KEY", str(key))
    return Vault.open(vault.root)


def _raw(remote: S3Server, part: str) -> list[tuple[str, bytes]]:
    client = remote.client()
    found = client.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    keys = sorted(o["Key"] for o in found if part in o["Key"])
    return [(k, client.get_object(Bucket=BUCKET, Key=k)["Body"].read()) for k in keys]


def _put(remote: S3Server, key: str, data: bytes) -> None:
    remote.client().put_object(Bucket=BUCKET, Key=key, Body=data)  # the attacker's raw write


def _delete(remote: S3Server, key: str) -> None:
    remote.client().delete_object(Bucket=BUCKET, Key=key)


def _manifests(remote: S3Server) -> list[Manifest]:
    return [Manifest.decode(data, key) for key, data in _raw(remote, "/manifests/")]


def _attacker_clone(tmp_path: Path, vault: Vault, files: dict[str, str]) -> tuple[Path, str]:
    """A clone of the vault's main with the attacker's commit on top (made with plain git)."""
    work = tmp_path / "mallory"
    shutil.rmtree(work, ignore_errors=True)
    git(tmp_path, "clone", "-q", str(vault.root), str(work))
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    return work, _commit_all(work, "mallory was here")


def _append(
    remote: S3Server,
    repo: Path,
    main: str,
    *,
    basis: list[str] | None = None,
    signer: Path | None = None,
    extra_refs: dict[str, str] | None = None,
    ref: str = MAIN_REF,
) -> Manifest:
    """Append a bundle moving ``ref`` (main unless told) to ``main`` and a correctly chained
    manifest for it, as the attacker."""
    chain = _raw(remote, "/manifests/")
    last = Manifest.decode(chain[-1][1], chain[-1][0])
    seq = last.seq + 1
    root = last.bundle_key.rsplit("/bundles/", 1)[0]
    git(repo, "update-ref", "refs/heads/forged", main)
    data = create_bundle(repo, {"refs/heads/forged": main}, basis or [last.refs[ref]])
    data = data.replace(b" refs/heads/forged\n", f" {ref}\n".encode(), 1)
    sha = sha256_hex(data)
    key = bundle_key(root, seq, sha)
    _put(remote, key, data)
    refs = {**last.refs, ref: main, **(extra_refs or {})}
    manifest = Manifest(
        last.vault_id,
        seq,
        key,
        sha,
        len(data),
        refs,
        read_header(data, key).prerequisites,
        sha256_hex(chain[-1][1]),
        last.time,
        "mallory",
    )
    if signer is not None:
        manifest = replace(manifest, signature=signing.sign(manifest.payload(), signer))
    _put(remote, manifest_key(root, seq), manifest.encode())
    return manifest


def _refs(path: Path) -> dict[str, str]:
    out = git(path, "for-each-ref", "--format=%(refname) %(objectname)")
    return {name: sha for name, sha in (line.split(" ", 1) for line in out.stdout.splitlines())}


def _state(path: Path) -> tuple[dict[str, str], str]:
    """Every ref and the work tree's status: what a refused pull must leave as it was."""
    return _refs(path), git(path, "status", "--porcelain").stdout


# ---------------------------------------------------------------- 1b: pulled content is checked


def test_a_chained_manifest_bringing_a_secret_and_an_invalid_entry_is_refused(
    tmp_path: Path, remote: S3Server
) -> None:
    vault = _vault(tmp_path, remote)
    vault.ingest(type="decision", title="Seed", identity=A)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    files = {
        "decisions/evil.md": '---\ntype: "not a type!"\n---\n# Evil\n\nbody\n',
        "notes.txt": f"token {TOKEN}\n",
    }
    work, evil = _attacker_clone(tmp_path, vault, files)
    _append(remote, work, evil)
    before = _state(clone)
    with pytest.raises(TamperDetected, match="checks a protected remote runs") as err:
        _service(clone).pull()
    listing = "\n".join(err.value.problems)
    assert "decisions/evil.md" in listing and "notes.txt" in listing, listing
    assert evil in listing
    assert TOKEN not in listing  # the refusal names the secret's kind, not the secret
    assert _state(clone) == before
    # The CLI: exit 1, the problems on stderr, nothing moved.
    result = CliRunner().invoke(cli, ["sync", "--vault", str(clone), "pull"])
    assert result.exit_code == 1 and "decisions/evil.md" in result.output, result.output
    assert _state(clone) == before
    # An empty machine: refused too, and nothing is left at DEST.
    with pytest.raises(TamperDetected, match="checks a protected remote runs"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")
    assert not (tmp_path / "fresh").exists()
    assert not list(tmp_path.glob(".fresh.restoring-*"))


def test_a_bundle_rewriting_history_is_refused_on_pull(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    for n in range(2):
        vault.ingest(type="decision", title=f"Entry {n}", identity=A)
        _service(vault.root).push()
    work = tmp_path / "mallory"
    git(tmp_path, "clone", "-q", str(vault.root), str(work))
    git(work, "reset", "-q", "--hard", "HEAD~1")  # drop the newest commit, write another
    (work / "decisions").mkdir(exist_ok=True)
    (work / "decisions" / "other.md").write_text("plain text\n")
    rewritten = _commit_all(work, "history rewritten")
    _append(remote, work, rewritten, basis=[])
    before = _state(vault.root)
    with pytest.raises(TamperDetected, match="does not hold together") as err:
        _service(vault.root).pull()
    assert any("not an ancestor" in p for p in err.value.problems)
    assert _state(vault.root) == before


def test_a_malformed_commit_object_is_refused(tmp_path: Path, remote: S3Server) -> None:
    """What the protected remote's receive.fsckObjects refuses (git fetch of a bundle checks
    nothing): an author line with a broken email, written with ``hash-object --literally``."""
    vault = _vault(tmp_path, remote)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, _ = _attacker_clone(tmp_path, vault, {"decisions/x.txt": "x\n"})
    tip = git(work, "rev-parse", "HEAD~1").stdout.strip()
    tree = git(work, "rev-parse", "HEAD~1^{tree}").stdout.strip()
    raw = (
        f"tree {tree}\nparent {tip}\nauthor m <m@evil 1700000000 +0000\n"
        "committer m <m@evil> 1700000000 +0000\n\nmalformed\n"
    )
    (work / "c.txt").write_text(raw)
    bad = git(work, "hash-object", "--literally", "-t", "commit", "-w", "c.txt").stdout.strip()
    _append(remote, work, bad)
    before = _state(clone)
    with pytest.raises(TamperDetected, match="fsck") as err:
        _service(clone).pull()
    assert "badEmail" in err.value.message
    assert _state(clone) == before
    assert git(clone, "cat-file", "-e", bad, check=False).returncode != 0  # not even stored
    with pytest.raises(TamperDetected, match="fsck"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")


def test_a_secret_on_the_audit_chain_is_refused(tmp_path: Path, remote: S3Server) -> None:
    """An audit event's tree is checked like main's: the chain travels with every push."""
    vault = _vault(tmp_path, remote)
    for n in range(2):  # the second push carries the first one's MEMORY_SYNC_PUSH event
        Vault.open(vault.root).ingest(type="decision", title=f"Seed {n}", identity=A)
        _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, evil = _attacker_clone(tmp_path, vault, {"notes.txt": f"token {TOKEN}\n"})
    git(work, "fetch", "-q", "origin", f"{AUDIT_REF}:{AUDIT_REF}")
    audit_tip = git(work, "rev-parse", AUDIT_REF).stdout.strip()
    event = git(
        work,
        "-c",
        "user.name=m",
        "-c",
        "user.email=m@evil",
        "commit-tree",
        f"{evil}^{{tree}}",
        "-p",
        audit_tip,
        "-m",
        "MEMORY_READ forged\n\nClawql-Event: MEMORY_READ",
    ).stdout.strip()
    _append(remote, work, event, ref=AUDIT_REF)
    before = _state(clone)
    with pytest.raises(TamperDetected, match="checks a protected remote runs") as err:
        _service(clone).pull()
    assert any(AUDIT_REF in p and "notes.txt" in p for p in err.value.problems)
    assert _state(clone) == before


def test_a_gap_in_the_chain_is_refused(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    for n in range(3):
        vault.ingest(type="decision", title=f"Entry {n}", identity=A)
        _service(vault.root).push()
    middle, _ = _raw(remote, "/manifests/")[1]
    _delete(remote, middle)
    with pytest.raises(TamperDetected, match="chain") as err:
        restore(_backend(remote), tmp_path / "fresh", "clawql", allow_older=True)
    assert any("seq 3 where 2 was expected" in p for p in err.value.problems)
    assert not (tmp_path / "fresh").exists()


# ---------------------------------------------------------------- 1a: signed manifests


@needs_ssh
def test_signed_manifests_round_trip(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    vault.ingest(type="decision", title="Signed seed", identity=A)
    _service(vault.root).push()
    m1 = _manifests(remote)[0]
    assert "-----BEGIN SSH SIGNATURE-----" in m1.signature
    signers = signing.file_signers(vault.root / ".clawql" / "allowed_signers")
    assert signing.verify(m1.payload(), m1.signature, signers) == "vault@clawql"
    clone = tmp_path / "clone"
    done = restore(_backend(remote), clone, "clawql", signers=signers)
    assert done.authenticated and done.signed_by == ["vault@clawql"] and not done.warnings
    Vault.open(vault.root).ingest(type="decision", title="Second", identity=A)
    _service(vault.root).push()
    pulled = _service(clone).pull()
    assert pulled.applied == [2] and pulled.signed_by == ["vault@clawql"]
    # Without --allowed-signers the vault's own committed policy is trusted on first use.
    again = restore(_backend(remote), tmp_path / "tofu", "clawql")
    assert again.authenticated and again.signed_by == ["vault@clawql", "vault@clawql"]


@needs_ssh
def test_an_unsigned_chained_manifest_is_refused(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, harmless = _attacker_clone(tmp_path, vault, {"decisions/fine.txt": "valid content\n"})
    _append(remote, work, harmless)  # content that passes every check, but unsigned
    before = _state(clone)
    with pytest.raises(TamperDetected, match="signature") as err:
        _service(clone).pull()
    assert any("unsigned" in p and "00000002.json" in p for p in err.value.problems)
    assert _state(clone) == before
    signers = vault.root / ".clawql" / "allowed_signers"
    with pytest.raises(TamperDetected, match="signature"):
        restore(_backend(remote), tmp_path / "a", "clawql", signers=signing.file_signers(signers))
    with pytest.raises(TamperDetected, match="signature"):  # the policy, trusted on first use
        restore(_backend(remote), tmp_path / "b", "clawql")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    cli_args = ["sync", "restore", str(tmp_path / "c"), "--from", "s3", "--bucket", BUCKET]
    result = CliRunner().invoke(
        cli, [*cli_args, "--endpoint", remote.endpoint, "--allowed-signers", str(signers)]
    )
    assert result.exit_code == 1 and "unsigned" in result.output, result.output


@needs_ssh
def test_a_manifest_signed_by_a_key_not_allowed_is_refused(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    mallory_key, _ = _keygen(tmp_path, "mallory")
    work, harmless = _attacker_clone(tmp_path, vault, {"decisions/fine.txt": "valid\n"})
    _append(remote, work, harmless, signer=mallory_key)
    before = _state(clone)
    with pytest.raises(TamperDetected, match="signature") as err:
        _service(clone).pull()
    assert any("not signed by an allowed signer" in p for p in err.value.problems)
    assert _state(clone) == before
    with pytest.raises(TamperDetected, match="signature"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")
    # The attacker's own allowed-signers file committed in the forged commit changes nothing:
    # manifest N is checked against the policy at manifest N-1's main.
    assert not (tmp_path / "fresh").exists()


@needs_ssh
def test_a_forged_commit_naming_its_own_signer_is_refused_on_restore(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    _service(vault.root).push()
    mallory_key, mallory_pub = _keygen(tmp_path, "mallory")
    files = {".clawql/allowed_signers": f"mallory@evil {mallory_pub}\n"}
    work, takeover = _attacker_clone(tmp_path, vault, files)
    _append(remote, work, takeover, signer=mallory_key)
    with pytest.raises(TamperDetected, match="signature") as err:
        restore(_backend(remote), tmp_path / "fresh", "clawql")
    assert any("00000002.json" in p for p in err.value.problems)


@needs_ssh
def test_an_old_signed_manifest_replayed_with_a_higher_seq_is_refused(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    for n in range(2):
        Vault.open(vault.root).ingest(type="decision", title=f"Entry {n}", identity=A)
        _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    chain = _raw(remote, "/manifests/")
    first = Manifest.decode(chain[0][1], chain[0][0])
    # Manifest 1 (a valid signature) re-chained as seq 3: the signature covers seq and prev.
    root = first.bundle_key.rsplit("/bundles/", 1)[0]
    bundle = remote.client().get_object(Bucket=BUCKET, Key=first.bundle_key)["Body"].read()
    replayed = replace(
        first,
        seq=3,
        bundle_key=bundle_key(root, 3, first.bundle_sha256),
        prev_manifest=sha256_hex(chain[1][1]),
    )
    _put(remote, replayed.bundle_key, bundle)
    _put(remote, manifest_key(root, 3), replayed.encode())
    before = _state(clone)
    with pytest.raises(TamperDetected, match="signature"):
        _service(clone).pull()
    assert _state(clone) == before


def test_an_old_unsigned_manifest_replayed_with_a_higher_seq_is_refused(
    tmp_path: Path, remote: S3Server
) -> None:
    """Without signatures the ancestry check catches the replay: main would go backwards."""
    vault = _vault(tmp_path, remote)
    for n in range(2):
        vault.ingest(type="decision", title=f"Entry {n}", identity=A)
        _service(vault.root).push()
    chain = _raw(remote, "/manifests/")
    first = Manifest.decode(chain[0][1], chain[0][0])
    root = first.bundle_key.rsplit("/bundles/", 1)[0]
    bundle = remote.client().get_object(Bucket=BUCKET, Key=first.bundle_key)["Body"].read()
    replayed = replace(
        first,
        seq=3,
        bundle_key=bundle_key(root, 3, first.bundle_sha256),
        prev_manifest=sha256_hex(chain[1][1]),
    )
    _put(remote, replayed.bundle_key, bundle)
    _put(remote, manifest_key(root, 3), replayed.encode())
    before = _state(vault.root)
    with pytest.raises(TamperDetected):
        _service(vault.root).pull()
    assert _state(vault.root) == before
    with pytest.raises(TamperDetected, match="does not hold together"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")


@needs_ssh
def test_push_refuses_without_a_key_or_with_a_key_not_allowed(
    tmp_path: Path, remote: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _signed_vault(tmp_path, remote, monkeypatch)
    monkeypatch.delenv("CLAWQL_SIGNING_KEY")
    with pytest.raises(InvalidInput, match="must be signed"):
        _service(vault.root).push()
    other, _ = _keygen(tmp_path, "stranger")
    monkeypatch.setenv("CLAWQL_SIGNING_KEY", str(other))
    with pytest.raises(InvalidInput, match="not an allowed signer"):
        _service(vault.root).push()
    assert _raw(remote, "") == []  # not even a bundle


# ---------------------------------------------------------------- 3: bundles and refs


def test_a_manifest_naming_another_commit_than_its_bundle_is_refused(
    tmp_path: Path, remote: S3Server
) -> None:
    vault = _vault(tmp_path, remote)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, first = _attacker_clone(tmp_path, vault, {"decisions/a.txt": "one\n"})
    (work / "decisions" / "a.txt").write_text("two\n")
    second = _commit_all(work, "another")
    m = _append(remote, work, first)
    # Re-point the manifest at the other commit; its bundle still carries ``first``.
    forged = replace(m, refs={**m.refs, MAIN_REF: second})
    _put(remote, manifest_key(m.bundle_key.rsplit("/bundles/", 1)[0], m.seq), forged.encode())
    before = _state(clone)
    with pytest.raises(TamperDetected, match="carries other refs"):
        _service(clone).pull()
    assert _state(clone) == before
    with pytest.raises(TamperDetected, match="carries other refs"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")


def test_refs_outside_the_vaults_are_refused(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, evil = _attacker_clone(tmp_path, vault, {"decisions/a.txt": "one\n"})
    _append(remote, work, evil, extra_refs={"refs/heads/backdoor": evil})
    before = _state(clone)
    with pytest.raises(TamperDetected, match="chain") as err:
        _service(clone).pull()
    assert any("refs/heads/backdoor" in p for p in err.value.problems)
    assert _state(clone) == before and "refs/heads/backdoor" not in _refs(clone)
    with pytest.raises(TamperDetected, match="chain"):
        restore(_backend(remote), tmp_path / "fresh", "clawql")


def test_a_bundle_carrying_a_ref_its_manifest_does_not_name_is_refused(
    tmp_path: Path, remote: S3Server
) -> None:
    vault = _vault(tmp_path, remote)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    work, evil = _attacker_clone(tmp_path, vault, {"decisions/a.txt": "one\n"})
    m = _append(remote, work, evil)
    # The same bundle with a second ref (refs/tags/x) in its header, re-hashed and re-chained.
    key, data = next(kv for kv in _raw(remote, "/bundles/") if f"/{m.seq:08d}-" in kv[0])
    head, sep, pack = data.partition(b"\n\n")
    data = head + f"\n{evil} refs/tags/x".encode() + sep + pack
    root = key.rsplit("/bundles/", 1)[0]
    new_key = bundle_key(root, m.seq, sha256_hex(data))
    _delete(remote, key)
    _put(remote, new_key, data)
    forged = replace(m, bundle_key=new_key, bundle_sha256=sha256_hex(data), bundle_size=len(data))
    _put(remote, manifest_key(root, m.seq), forged.encode())
    before = _state(clone)
    with pytest.raises(TamperDetected, match="carries other refs"):
        _service(clone).pull()
    assert _state(clone) == before


# ---------------------------------------------------------------- 2: an older vault on restore


def test_restore_after_the_newest_manifest_is_deleted_says_so(
    tmp_path: Path, remote: S3Server
) -> None:
    vault = _vault(tmp_path, remote)
    for n in range(3):
        vault.ingest(type="decision", title=f"Entry {n}", identity=A)
        _service(vault.root).push()
    newest_key, _ = _raw(remote, "/manifests/")[-1]
    _delete(remote, newest_key)
    with pytest.raises(TamperDetected, match="refusing to restore seq 2: seq 3") as err:
        restore(_backend(remote), tmp_path / "fresh", "clawql")
    assert any("no manifest names" in p for p in err.value.problems)
    assert not (tmp_path / "fresh").exists()
    base = ["sync", "restore", "--from", "s3", "--bucket", BUCKET, "--endpoint", remote.endpoint]
    runner = CliRunner()
    refused = runner.invoke(cli, [*base, str(tmp_path / "cli")])
    assert refused.exit_code == 1 and "--allow-older" in refused.output, refused.output
    assert not (tmp_path / "cli").exists()
    text = runner.invoke(cli, [*base, str(tmp_path / "older"), "--allow-older"])
    assert text.exit_code == 0, text.output
    assert "seq 2 (newest known: seq 3)" in text.output
    assert "WARNING: restored seq 2, older than the newest known seq 3" in text.output
    as_json = runner.invoke(cli, [*base, str(tmp_path / "older-json"), "--allow-older", "--json"])
    assert as_json.exit_code == 0, as_json.output
    record = json.loads(as_json.stdout)
    assert record["seq"] == 2 and record["newest_known"] == 3
    assert record["warnings"] and "seq 3" in record["warnings"][0]
    # The origin has seen seq 3: its pull says the remote was rolled back.
    with pytest.raises(TamperDetected, match="rolled back"):
        _service(vault.root).pull()


def test_restore_of_a_complete_remote_reports_its_seq(tmp_path: Path, remote: S3Server) -> None:
    vault = _vault(tmp_path, remote)
    _service(vault.root).push()
    done = restore(_backend(remote), tmp_path / "fresh", "clawql")
    assert done.seq == 1 and done.newest_known == 1 and not done.authenticated
    assert done.warnings == [
        "the manifests are not authenticated: no allowed signers were given and the vault's "
        "policy names none (pass --allowed-signers)"
    ]
    with pytest.raises(TamperDetected, match="rolled back"):
        restore(_backend(remote), tmp_path / "again", "clawql", min_seq=2)
    older = restore(_backend(remote), tmp_path / "older", "clawql", min_seq=2, allow_older=True)
    assert older.seq == 1 and older.newest_known == 2 and "rolled back" in older.warnings[0]


def test_pull_warns_when_a_newer_manifest_is_gone(tmp_path: Path, remote: S3Server) -> None:
    """A clone that never saw seq 3 cannot call it a rollback, but the bundle says it existed."""
    vault = _vault(tmp_path, remote)
    vault.ingest(type="decision", title="Seed", identity=A)
    _service(vault.root).push()
    clone = tmp_path / "clone"
    restore(_backend(remote), clone, "clawql")
    for n in range(2):
        Vault.open(vault.root).ingest(type="decision", title=f"Later {n}", identity=A)
        _service(vault.root).push()
    newest_key, _ = _raw(remote, "/manifests/")[-1]
    _delete(remote, newest_key)
    result = CliRunner().invoke(cli, ["sync", "--vault", str(clone), "pull", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["applied"] == [2]
    assert record["warnings"] and "bundles of seq 3 that no manifest names" in record["warnings"][0]
