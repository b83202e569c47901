"""The Arweave backend against a real arlocal gateway over HTTP, and arweave-js as the
reference for data_root, proofs and signatures."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import sqlite3
import urllib.request
from pathlib import Path

import pytest

from clawql_git.errors import KeyExists, NotFound, SyncError, TamperDetected
from clawql_git.sync.arweave import APP_NAME, ArweaveBackend, vault_id_of
from clawql_git.sync.arweave_crypt import CIPHER, Sealer
from clawql_git.sync.arweave_tx import (
    MAX_CHUNK_SIZE,
    Transaction,
    Wallet,
    b64url,
    chunk_transaction_data,
    data_root,
    merkle_root,
    unb64url,
)
from tests import arweave_server
from tests.arweave_server import (
    ArLocal,
    arlocal,
    arlocal_automine,
    arlocal_installed,
    arweave_wallet,
    automine_wallet,
    make_wallet,
    pattern,
    run_node,
    wallet_address,
)
from tests.conftest import skip_or_fail

__all__ = [
    "arlocal",
    "arlocal_automine",
    "arlocal_installed",
    "arweave_wallet",
    "automine_wallet",
]  # fixtures, re-exported for pytest

KEY = bytes(range(32))
KIB = 1024
SIZES = [0, 1, 256 * KIB, 256 * KIB + 1, 3 * KIB * KIB]
needs_node = pytest.mark.usefixtures("arlocal_installed")  # installs arlocal on first use


def backend(
    server: ArLocal, wallet: Path | None, public: bool = False, key: bytes | None = KEY
) -> ArweaveBackend:
    """A backend that does not wait for blocks: these tests mine by hand."""
    key = None if public else key
    return ArweaveBackend(server.url, wallet, public=public, key=key, confirm_timeout=0)


def bundle_tags(data: bytes, seq: int = 1, vault: str = "vault-a") -> dict[str, str]:
    sha = hashlib.sha256(data).hexdigest()
    return {"Vault-Id": vault, "Seq": str(seq), "Bundle-SHA256": sha, "Kind": "bundle"}


def post_json(server: ArLocal, path: str, body: object) -> int:
    req = urllib.request.Request(
        server.url + path,
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def post_tx(
    server: ArLocal,
    wallet: Path,
    tags: list[tuple[str, str]],
    stored: bytes,
    chunks: int | None = None,
    chunk_bytes: bytes | None = None,
) -> Transaction:
    """Another client posting directly (a racing clone, a tamperer): no existence check.
    ``chunks`` limits how many chunks are uploaded; ``chunk_bytes`` uploads other bytes
    under the header's data_root."""
    w = Wallet.load(wallet)
    chunked = chunk_transaction_data(stored)
    reward = server.call(f"/price/{len(stored)}").decode()
    anchor = server.call("/tx_anchor").decode()
    tx = Transaction(
        w.owner, tuple(tags), len(stored), b64url(chunked.data_root), reward, anchor
    ).signed(w)
    inline = len(stored) <= MAX_CHUNK_SIZE
    assert post_json(server, "/tx", tx.to_json(stored if inline else b"")) == 200
    if not inline:
        source = stored if chunk_bytes is None else chunk_bytes
        for index in range(len(chunked.chunks) if chunks is None else chunks):
            assert post_json(server, "/chunk", chunked.upload_body(index, source)) == 200
    return tx


def our_tags(key: str, extra: dict[str, str], encrypted: bool = True) -> list[tuple[str, str]]:
    tags = [("App-Name", APP_NAME), ("Key", key), ("Vault-Id", vault_id_of(key) or "v")]
    tags += (
        [("Encryption", CIPHER), ("Encryption-Key-Id", Sealer(KEY).key_id)]
        if encrypted
        else [("Encryption", "none")]
    )
    return tags + [(k, v) for k, v in extra.items() if k != "Vault-Id"]


# --- the arlocal install ------------------------------------------------------------------


def test_a_failed_npm_ci_is_reported_in_npms_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline with an empty npm cache: the reason names `npm ci` and npm's own error, and
    nothing counts as installed (the next run tries again)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        skip_or_fail("node and npm are needed to run `npm ci`")
    folder = tmp_path / "arlocal"
    folder.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(arweave_server.ARLOCAL_DIR / name, folder / name)
    monkeypatch.setattr(arweave_server, "ARLOCAL_DIR", folder)
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "empty-npm-cache"))
    monkeypatch.setenv("npm_config_offline", "true")
    reason = arweave_server.install_arlocal()
    assert reason is not None
    assert reason.startswith("`npm ci` in tests/arlocal failed (1): ")
    assert "ENOTCACHED" in reason
    assert "not installed" in str(arweave_server.node_ready())


# --- reference checks with arweave-js ----------------------------------------------------


@needs_node
def test_data_root_and_proofs_equal_arweave_js() -> None:
    sizes = [*SIZES, 512 * KIB + 100]  # the last also rebalances its final two chunks
    reference = run_node("roots", *map(str, sizes))
    for size in sizes:
        data = pattern(size)
        expected = reference[str(size)]
        assert isinstance(expected, dict)
        assert b64url(merkle_root(data)) == expected["merkle"], size
        assert b64url(data_root(data)) == expected["data_root"], size
        assert [b64url(p) for p in chunk_transaction_data(data).proofs] == expected["data_paths"], (
            size
        )


def test_chunking_rebalances_the_last_two_chunks() -> None:
    chunks = chunk_transaction_data(pattern(256 * KIB + 1)).chunks
    assert [c.end - c.start for c in chunks] == [128 * KIB + 1, 128 * KIB]
    assert [c.end - c.start for c in chunk_transaction_data(pattern(256 * KIB)).chunks] == [
        256 * KIB
    ]


def test_signed_tx_verifies_with_arweave_js_and_arlocal(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    tx = post_tx(arlocal, arweave_wallet, [("App-Name", "probe"), ("K", "v")], b"hello")
    assert run_node("verify", stdin=json.dumps(tx.to_json(b"hello"))) == {"verify": True}
    assert tx.verify()
    forged = tx.to_json(b"hello")
    forged["tags"][1]["value"] = b64url(b"w")
    assert run_node("verify", stdin=json.dumps(forged)) == {"verify": False}
    assert post_json(arlocal, "/tx", forged) == 400  # arlocal checks the signature too
    assert not Transaction.from_json(forged).verify()


# --- round trips --------------------------------------------------------------------------


@pytest.mark.parametrize("public", [False, True], ids=["encrypted", "public"])
@pytest.mark.parametrize("size", SIZES)
def test_round_trip(arlocal: ArLocal, arweave_wallet: Path, size: int, public: bool) -> None:
    data = pattern(size)
    mode = "pub" if public else "enc"
    key = f"clawql/vault-rt/bundles/{mode}-{size}.bundle"
    writer = backend(arlocal, arweave_wallet, public)
    seen: list[tuple[int, int]] = []
    obj = writer.put_once(
        key,
        data,
        bundle_tags(data, vault="vault-rt"),
        lambda done, total: seen.append((done, total)),
    )
    assert obj.key == key and obj.size == size and len(obj.locator) == 43
    assert seen and seen[-1][0] == seen[-1][1]
    arlocal.mine()
    reader = backend(arlocal, None, public)  # a fresh machine: no wallet, only the key
    assert reader.get(key) == data
    listed = {o.key: o for o in reader.list("clawql/vault-rt/bundles/")}
    assert listed[key].size == size and listed[key].locator == obj.locator
    assert listed[key].tags["Bundle-SHA256"] == hashlib.sha256(data).hexdigest()
    assert listed[key].tags["Vault-Id"] == "vault-rt"
    header = json.loads(arlocal.call(f"/tx/{obj.locator}"))
    tags = dict(Transaction.from_json(header).tags)
    assert tags["Encryption"] == ("none" if public else CIPHER)
    stored = reader.read_tx(obj.locator, key)
    assert stored == data
    if not public and size:
        assert data not in arlocal.call(f"/{obj.locator}")  # the gateway never sees plaintext
    assert reader.describe().startswith(f"arweave:{arlocal.url} (")


def test_list_is_in_key_order_and_filtered_by_prefix(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    b = backend(arlocal, arweave_wallet)
    for seq in (3, 1, 2):
        b.put_once(f"clawql/vault-ls/manifests/{seq:08d}.json", b"{}", {"Seq": str(seq)})
    b.put_once("clawql/vault-other/manifests/00000001.json", b"{}", {"Seq": "1"})
    arlocal.mine()
    keys = [o.key for o in backend(arlocal, None).list("clawql/vault-ls/manifests/")]
    assert keys == [f"clawql/vault-ls/manifests/{s:08d}.json" for s in (1, 2, 3)]
    everything = [o.key for o in backend(arlocal, None).list("clawql/")]
    assert "clawql/vault-other/manifests/00000001.json" in everything
    assert everything == sorted(everything)


def test_put_once_refuses_an_existing_key(arlocal: ArLocal, arweave_wallet: Path) -> None:
    key = "clawql/vault-ke/manifests/00000001.json"
    backend(arlocal, arweave_wallet).put_once(key, b'{"seq": 1}', {"Seq": "1"})
    arlocal.mine()
    other_clone = backend(arlocal, arweave_wallet)  # another process: knows nothing local
    with pytest.raises(KeyExists):
        other_clone.put_once(key, b'{"seq": 1, "other": true}', {"Seq": "1"})
    with pytest.raises(KeyExists):  # the same bytes, complete: still written once
        other_clone.put_once(key, b'{"seq": 1}', {"Seq": "1"})
    arlocal.mine()
    assert backend(arlocal, None).get(key) == b'{"seq": 1}'


def test_racing_writers_resolve_to_one_winner_for_every_reader(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    """Arweave cannot refuse a second transaction for a key posted before the first is
    visible; readers agree on the earliest block, then the lowest id."""
    sealer = Sealer(KEY)
    same_block = "clawql/vault-race/manifests/00000001.json"
    txs = [
        post_tx(
            arlocal,
            arweave_wallet,
            our_tags(same_block, {"Vault-Id": "vault-race"}),
            sealer.seal(same_block, body),
        )
        for body in (b"one", b"two")
    ]
    arlocal.mine()
    winner = min(txs, key=lambda t: t.id)
    expected = b"one" if winner is txs[0] else b"two"
    readers = [backend(arlocal, None), backend(arlocal, arweave_wallet)]
    assert {r.get(same_block) for r in readers} == {expected}
    assert [o.locator for o in readers[0].list("clawql/vault-race/")] == [winner.id]

    earlier = "clawql/vault-race/manifests/00000002.json"
    first = post_tx(
        arlocal,
        arweave_wallet,
        our_tags(earlier, {"Vault-Id": "vault-race"}),
        sealer.seal(earlier, b"first"),
    )
    arlocal.mine()
    for body in (b"later-a", b"later-b", b"later-c"):  # some id sorts below the first's
        post_tx(
            arlocal,
            arweave_wallet,
            our_tags(earlier, {"Vault-Id": "vault-race"}),
            sealer.seal(earlier, body),
        )
    arlocal.mine()
    assert {r.get(earlier) for r in readers} == {b"first"}
    assert {o.locator for o in readers[0].list("clawql/vault-race/manifests/00000002")} == {
        first.id
    }


# --- tampering and faults -----------------------------------------------------------------


def _flip(b64: str, at: int) -> str:
    raw = bytearray(unb64url(b64))
    raw[at] ^= 0x01
    return b64url(bytes(raw))


def test_a_manifest_put_returns_once_mined(
    arlocal: ArLocal,
    arweave_wallet: Path,
    arlocal_automine: ArLocal,
    automine_wallet: Path,
) -> None:
    """Why: a read-back is final only once the transaction is in a block (module docstring
    of clawql_git.sync.arweave)."""
    key = "wait-test/vault-wait/manifests/00000001.json"
    fast = ArweaveBackend(arlocal_automine.url, automine_wallet, key=KEY)
    obj = fast.put_once(key, b"{}", {"Kind": "manifest"})
    assert b"block_height" in arlocal_automine.call(f"/tx/{obj.locator}/status")
    stuck = ArweaveBackend(
        arlocal.url, arweave_wallet, key=KEY, confirm_timeout=0.3, poll_seconds=0.1
    )
    with pytest.raises(SyncError, match=r"was not mined within 0\.3s"):
        stuck.put_once(key, b"{}", {"Kind": "manifest"})
    bundle = stuck.put_once("wait-test/vault-wait/bundles/1-x.bundle", b"b", {"Kind": "bundle"})
    assert arlocal.call(f"/tx/{bundle.locator}/status") == b"Pending"  # bundles do not wait
    arlocal.mine()


def test_flipped_byte_at_rest_is_refused(arlocal: ArLocal, arweave_wallet: Path) -> None:
    """arlocal keeps inline data twice (a data file and chunk rows): a flip in one copy is
    caught and the other, verified, copy is served; a flip in both is refused."""
    data = pattern(1000)
    for public in (False, True):
        key = f"clawql/vault-flip/bundles/1-{public}.bundle"
        tags = bundle_tags(data, vault="vault-flip")
        obj = backend(arlocal, arweave_wallet, public).put_once(key, data, tags)
        arlocal.mine()
        stored = arlocal.db / f"data-{obj.locator}"
        stored.write_text(_flip(stored.read_text(), 500))
        assert backend(arlocal, None, public).get(key) == data
        root = json.loads(arlocal.call(f"/tx/{obj.locator}"))["data_root"]
        with sqlite3.connect(arlocal.db / "db.sqlite") as db:
            for row_id, chunk in db.execute(
                "select id, chunk from chunks where data_root = ?", (root,)
            ).fetchall():
                db.execute("update chunks set chunk = ? where id = ?", (_flip(chunk, 500), row_id))
        with pytest.raises(TamperDetected, match="does not match its signed data_root"):
            backend(arlocal, None, public).get(key)


def test_the_writer_reads_its_own_pending_writes(arlocal: ArLocal, arweave_wallet: Path) -> None:
    """Gateways answer "pending" for minutes after a post; the writing process still reads
    back what it signed (the push service checks its manifest that way)."""
    key = "clawql/vault-own-read/manifests/00000001.json"
    writer = backend(arlocal, arweave_wallet)
    obj = writer.put_once(key, b'{"seq": 1}', {"Seq": "1"})
    (arlocal.db / f"data-{obj.locator}").write_text("")  # the gateway lost the data
    root = json.loads(arlocal.call(f"/tx/{obj.locator}"))["data_root"]
    with sqlite3.connect(arlocal.db / "db.sqlite") as db:
        db.execute("delete from chunks where data_root = ?", (root,))
    assert writer.get(key) == b'{"seq": 1}'
    with pytest.raises(TamperDetected, match="incomplete"):
        backend(arlocal, None).get(key)


def test_chunks_that_do_not_match_the_data_root_are_refused(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    key = "clawql/vault-chunk/bundles/1-x.bundle"
    stored = Sealer(KEY).seal(key, pattern(600 * KIB))
    flipped = bytearray(stored)
    flipped[300 * KIB] ^= 0x80
    post_tx(arlocal, arweave_wallet, our_tags(key, {}), stored, chunk_bytes=bytes(flipped))
    arlocal.mine()
    with pytest.raises(TamperDetected, match="data_root"):
        backend(arlocal, None).get(key)


def test_aead_refuses_altered_or_moved_ciphertext(arlocal: ArLocal, arweave_wallet: Path) -> None:
    sealer = Sealer(KEY)
    altered = "clawql/vault-aead/manifests/00000001.json"
    sealed = bytearray(sealer.seal(altered, b'{"seq": 1}'))
    sealed[-1] ^= 0x01  # validly signed by the wallet, data_root matches: only GCM can tell
    post_tx(arlocal, arweave_wallet, our_tags(altered, {}), bytes(sealed))
    moved = "clawql/vault-aead/manifests/00000002.json"
    post_tx(arlocal, arweave_wallet, our_tags(moved, {}), sealer.seal(altered, b"{}"))
    arlocal.mine()
    for key in (altered, moved):
        with pytest.raises(TamperDetected, match="AES-GCM"):
            backend(arlocal, None).get(key)


def test_bundle_sha256_tag_must_match_the_data(arlocal: ArLocal, arweave_wallet: Path) -> None:
    key = "clawql/vault-tag/bundles/1-abc.bundle"
    data = pattern(100)
    lie = bundle_tags(b"something else", vault="vault-tag")
    post_tx(arlocal, arweave_wallet, our_tags(key, lie, encrypted=False), data)
    arlocal.mine()
    with pytest.raises(TamperDetected, match="Bundle-SHA256"):
        backend(arlocal, None, public=True).get(key)


def test_tag_altered_on_the_gateway_fails_the_signature(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    key = "clawql/vault-sig/bundles/1-abc.bundle"
    data = pattern(100)
    tags = bundle_tags(data, vault="vault-sig")
    obj = backend(arlocal, arweave_wallet, public=True).put_once(key, data, tags)
    arlocal.mine()
    with sqlite3.connect(arlocal.db / "db.sqlite") as db:
        query = "select tags from transactions where id = ?"
        (raw,) = db.execute(query, (obj.locator,)).fetchone()
        tags = json.loads(raw)
        for tag in tags:
            if unb64url(tag["name"]) == b"Seq":
                tag["value"] = b64url(b"7")
        db.execute("update transactions set tags = ? where id = ?", (json.dumps(tags), obj.locator))
    with pytest.raises(TamperDetected, match="signature"):
        backend(arlocal, None, public=True).get(key)


def test_truncated_chunked_upload_is_refused_then_resumed(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    key = "clawql/vault-trunc/bundles/1-abc.bundle"
    data = pattern(3 * KIB * KIB)
    tags = bundle_tags(data, vault="vault-trunc")
    sealed = Sealer(KEY).seal(key, data)  # what put_once would post: deterministic
    post_tx(arlocal, arweave_wallet, our_tags(key, tags), sealed, chunks=5)
    arlocal.mine()
    with pytest.raises(TamperDetected, match="incomplete"):
        backend(arlocal, None).get(key)
    resumed = backend(arlocal, arweave_wallet).put_once(key, data, tags)
    arlocal.mine()
    assert backend(arlocal, None).get(key) == data
    assert [o.locator for o in backend(arlocal, None).list(key)] == [resumed.locator]
    with pytest.raises(KeyExists):  # complete now
        backend(arlocal, arweave_wallet).put_once(key, data, tags)


def test_a_put_killed_mid_upload_is_resumed_by_the_next_process(
    arlocal: ArLocal, arweave_wallet: Path
) -> None:
    key = "clawql/vault-kill/bundles/1-abc.bundle"
    data = pattern(2 * KIB * KIB)
    tags = bundle_tags(data, vault="vault-kill")

    class Killed(Exception):
        pass

    def die(done: int, total: int) -> None:
        if done > 3 * MAX_CHUNK_SIZE:
            raise Killed  # the process dies after a few chunks

    with pytest.raises(Killed):
        backend(arlocal, arweave_wallet).put_once(key, data, tags, die)
    arlocal.mine()
    with pytest.raises(TamperDetected, match="incomplete"):
        backend(arlocal, None).get(key)
    backend(arlocal, arweave_wallet).put_once(key, data, tags)  # the next push
    assert backend(arlocal, None).get(key) == data


def test_unreachable_gateway_names_it(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    b = ArweaveBackend(url, make_wallet(tmp_path / "w.json"), key=KEY)
    for call in (
        lambda: b.get("k/v/bundles/x"),
        lambda: list(b.list("k/")),
        lambda: b.put_once("k/v/bundles/x", b"x", {}),
    ):
        with pytest.raises(SyncError, match=f"Arweave gateway {url} unreachable"):
            call()


def test_keys_and_wallets_are_required_with_clear_errors(
    arlocal: ArLocal, arweave_wallet: Path, tmp_path: Path
) -> None:
    with pytest.raises(SyncError, match="CLAWQL_SYNC_KEY"):
        ArweaveBackend(arlocal.url, arweave_wallet)
    with pytest.raises(SyncError, match="at least 16"):
        ArweaveBackend(arlocal.url, arweave_wallet, key=b"short")
    with pytest.raises(SyncError, match="CLAWQL_ARWEAVE_WALLET"):
        backend(arlocal, None).put_once("clawql/v/bundles/x", b"x", {})
    bad = tmp_path / "bad.json"
    bad.write_text('{"kty": "EC"}')
    with pytest.raises(SyncError, match="not an Arweave RSA JWK"):
        ArweaveBackend(arlocal.url, bad, public=True)
    key = "clawql/vault-keys/manifests/00000001.json"
    backend(arlocal, arweave_wallet).put_once(key, b"{}", {})
    plain = "clawql/vault-keys/manifests/00000002.json"
    backend(arlocal, arweave_wallet, public=True).put_once(plain, b"{}", {})
    arlocal.mine()
    with pytest.raises(SyncError, match="set CLAWQL_SYNC_KEY to read it"):
        backend(arlocal, None, public=True).get(key)
    with pytest.raises(SyncError, match="another CLAWQL_SYNC_KEY"):
        backend(arlocal, None, key=b"x" * 32).get(key)
    with pytest.raises(TamperDetected, match="stored unencrypted"):
        backend(arlocal, None).get(plain)
    with pytest.raises(NotFound):
        backend(arlocal, None).get("clawql/vault-keys/manifests/00000009.json")


def test_only_the_wallets_own_transactions_count_when_a_wallet_is_set(
    arlocal: ArLocal, arweave_wallet: Path, tmp_path: Path
) -> None:
    key = "clawql/vault-own/manifests/00000001.json"
    stranger = make_wallet(tmp_path / "stranger.json")
    arlocal.mint(wallet_address(stranger))
    post_tx(arlocal, stranger, our_tags(key, {}), Sealer(KEY).seal(key, b"squatted"))
    arlocal.mine()
    mine = backend(arlocal, arweave_wallet)
    mine.put_once(key, b"ours", {})  # the stranger's squat does not block us
    arlocal.mine()
    assert mine.get(key) == b"ours"
    assert backend(arlocal, None).get(key) == b"squatted"  # without a wallet: the earliest


# --- the provider-independent push/restore through this backend -------------------------


def test_push_then_restore_through_arweave(
    arlocal_automine: ArLocal,
    automine_wallet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI end to end, credentials from the environment. Runs only once the sync service
    (branch sync-s3) is merged in."""
    pytest.importorskip("clawql_git.sync.service")
    from click.testing import CliRunner

    from clawql_git import Identity, Vault
    from clawql_git.cli import cli
    from tests.conftest import fsck_ok, git

    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    monkeypatch.setenv("CLAWQL_ARWEAVE_WALLET", str(automine_wallet))
    monkeypatch.setenv("CLAWQL_SYNC_KEY", KEY.hex())
    agent = Identity(agent_id="agent-a")
    vault = Vault.init(tmp_path / "v", identity=agent)
    runner = CliRunner()
    where = ["--gateway", arlocal_automine.url]
    sync = ["sync", "--vault", str(vault.root)]
    done = runner.invoke(cli, [*sync, "init", "--provider", "arweave", *where])
    assert done.exit_code == 0, done.output
    for n in range(2):
        Vault.open(vault.root).ingest(
            type="decision", title=f"Decision {n}", body=f"zebra {n}", identity=agent
        )
        done = runner.invoke(cli, [*sync, "push", "--agent", "agent-a", "--json"])
        assert done.exit_code == 0, done.output
    assert _secret_free(vault.root / ".clawql" / "vault.toml")
    dest = tmp_path / "fresh-machine" / "vault"
    restore = ["sync", "restore", "--from", "arweave", *where]
    done = runner.invoke(cli, [*restore, str(dest), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["seq"] == 2
    assert git(dest, "rev-parse", "HEAD").stdout == git(vault.root, "rev-parse", "HEAD").stdout
    audit = "refs/clawql/audit"  # the last push's own event rides along with the next push
    assert git(dest, "rev-parse", audit).stdout == git(vault.root, "rev-parse", f"{audit}~1").stdout
    fsck_ok(dest)
    verify = runner.invoke(cli, ["memory", "--vault", str(dest), "verify", "--json"])
    assert verify.exit_code == 0, verify.output
    other = tmp_path / "other"
    monkeypatch.setenv("CLAWQL_SYNC_KEY", (b"x" * 32).hex())
    done = runner.invoke(cli, [*restore, str(other)])
    assert done.exit_code != 0 and "another CLAWQL_SYNC_KEY" in done.output
    assert not other.exists()


def _secret_free(toml: Path) -> bool:
    """Nothing secret went into the vault: no key, no wallet path."""
    text = toml.read_text()
    return KEY.hex() not in text and "wallet" not in text


def test_two_clones_pushing_at_once_through_arweave(
    arlocal_automine: ArLocal,
    automine_wallet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One wallet, two machines: each seq has one winner, the loser pulls and goes on top."""
    service = pytest.importorskip("clawql_git.sync.service")
    remotes = pytest.importorskip("clawql_git.sync.remotes")
    restore = pytest.importorskip("clawql_git.sync.restore").restore

    from clawql_git import Identity, Vault
    from tests.sync_race import push_at_once

    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    monkeypatch.setenv("CLAWQL_ARWEAVE_WALLET", str(automine_wallet))
    monkeypatch.setenv("CLAWQL_SYNC_KEY", KEY.hex())
    agent = Identity(agent_id="agent-a")
    origin = Vault.init(tmp_path / "origin", identity=agent)
    config = remotes.RemoteConfig("arweave", gateway=arlocal_automine.url, prefix="race")
    remotes.save_config(origin, config, agent)
    origin.ingest(type="decision", title="Seed", body="seed", identity=agent)
    service.for_vault(Vault.open(origin.root))[0].push()
    reader = ArweaveBackend(arlocal_automine.url, None, key=KEY)
    clone = tmp_path / "clone"
    restore(reader, clone, "race")
    Vault.open(origin.root).ingest(type="pattern", title="From origin", identity=agent)
    Vault.open(clone).ingest(type="context", title="From clone", identity=Identity("b"))
    results = push_at_once({"origin": origin.root, "clone": clone}, 300)
    assert sorted(getattr(r, "seq", -1) for r in results.values()) == [2, 3], results
    final = tmp_path / "final"
    restore(reader, final, "race")
    titles = sorted(e.title for e in Vault.open(final).entries())
    assert titles == ["From clone", "From origin", "Seed"]
    assert Vault.open(final).verify().ok


def test_a_public_vault_restores_without_a_key(
    arlocal_automine: ArLocal,
    automine_wallet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`sync init --public` pushes in the clear; `sync restore --public` needs no key."""
    from click.testing import CliRunner

    from clawql_git import Identity, Vault
    from clawql_git.cli import cli
    from tests.conftest import git

    monkeypatch.setenv("CLAWQL_EMBEDDING_MODEL", "none")
    monkeypatch.setenv("CLAWQL_ARWEAVE_WALLET", str(automine_wallet))
    monkeypatch.delenv("CLAWQL_SYNC_KEY", raising=False)
    agent = Identity(agent_id="agent-p")
    vault = Vault.init(tmp_path / "v", identity=agent)
    vault.ingest(type="decision", title="Public decision", body="open data", identity=agent)
    runner = CliRunner()
    where = ["--gateway", arlocal_automine.url, "--prefix", "public-vaults"]
    sync = ["sync", "--vault", str(vault.root)]
    done = runner.invoke(cli, [*sync, "init", "--provider", "arweave", "--public", *where])
    assert done.exit_code == 0, done.output
    done = runner.invoke(cli, [*sync, "push", "--json"])
    assert done.exit_code == 0, done.output
    dest = tmp_path / "fresh" / "vault"
    args = ["sync", "restore", "--from", "arweave", *where, "--vault-id", vault.vault_id]
    refused = runner.invoke(cli, [*args, str(dest)])  # without --public a key is expected
    assert refused.exit_code != 0 and "CLAWQL_SYNC_KEY" in refused.output
    assert not dest.exists()
    done = runner.invoke(cli, [*args, "--public", str(dest), "--json"])
    assert done.exit_code == 0, done.output
    assert git(dest, "rev-parse", "HEAD").stdout == git(vault.root, "rev-parse", "HEAD").stdout
