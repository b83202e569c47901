"""A real arlocal gateway (npm, in tests/arlocal) on 127.0.0.1, and throwaway JWK wallets.

arlocal binds every interface by default; ``tests/arlocal/launch.js`` starts it through its
programmatic API with a listen override that binds 127.0.0.1 on a free port, and prints the
port. The session fixture ``arlocal_installed`` runs ``npm ci`` in tests/arlocal the first time
node and npm are there and node_modules is not, so a user's clone runs these tests too.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail

ARLOCAL_DIR = Path(__file__).resolve().parent / "arlocal"
PORT_LINE = "CLAWQL_ARLOCAL_PORT="
START_TIMEOUT = 90.0
FUNDS = 10**18  # winston; arlocal prices ~65.6M winston per kB


NPM_TIMEOUT = 600.0


def node_ready() -> str | None:
    """Why arlocal cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    modules = ARLOCAL_DIR / "node_modules"
    # npm ci writes node_modules/.package-lock.json last: without it the install is partial.
    if not ((modules / "arlocal").is_dir() and (modules / ".package-lock.json").is_file()):
        return "arlocal is not installed: run `npm ci --nodedir=/usr` in tests/arlocal"
    return None


def npm_ci_command() -> list[str]:
    """``npm ci`` for tests/arlocal: node's own headers (no download) when the system has them."""
    nodedir = ["--nodedir=/usr"] if Path("/usr/include/node/node.h").is_file() else []
    return ["npm", "ci", *nodedir, "--no-audit", "--no-fund"]


def install_arlocal() -> str | None:
    """Install tests/arlocal's packages unless they are there; why it could not, or None.
    One install at a time per folder (a lock), as two test runs may start together."""
    reason = node_ready()
    if reason is None or shutil.which("node") is None:
        return reason  # installed already, or no node to run arlocal with
    if shutil.which("npm") is None:
        return "npm is not on PATH, so arlocal cannot be installed in tests/arlocal"
    digest = hashlib.sha256(str(ARLOCAL_DIR).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"clawql-arlocal-{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if node_ready() is None:  # another run installed it meanwhile
            return None
        try:
            done = subprocess.run(
                npm_ci_command(),
                cwd=ARLOCAL_DIR,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return f"`npm ci` in tests/arlocal did not finish in {NPM_TIMEOUT:.0f}s"
        if done.returncode != 0:
            words = (done.stderr.strip() or done.stdout.strip()).splitlines()[-8:]
            return f"`npm ci` in tests/arlocal failed ({done.returncode}): " + "\n".join(words)
    return node_ready()


class ArLocal:
    """One arlocal process; ``stop()`` ends exactly that process."""

    def __init__(self, db: Path, automine: bool = False) -> None:
        self.db = db  # arlocal's files: db.sqlite and one data-<txid> file per inline tx
        args = ["node", str(ARLOCAL_DIR / "launch.js"), str(db)]
        if automine:
            args.append("--automine")
        self.proc = subprocess.Popen(
            args,
            cwd=db.parent,  # arlocal writes a `logs` file into its working directory
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        self.port = self._read_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def _read_port(self) -> int:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith(PORT_LINE):
                return int(line[len(PORT_LINE) :])
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError("arlocal did not start")

    def call(self, path: str) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=60) as reply:
            return bytes(reply.read())

    def mine(self) -> None:
        """Mine pending transactions into a block (arlocal never mines by itself)."""
        self.call("/mine")

    def mint(self, address: str, winston: int = FUNDS) -> None:
        self.call(f"/mint/{address}/{winston}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def make_wallet(path: Path) -> Path:
    """A fresh RSA-4096 (e=65537) JWK wallet file, as arweave-js generates: never committed."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    from clawql_git.sync.arweave_tx import b64url

    def enc(value: int) -> str:
        return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))

    key = rsa.generate_private_key(public_exponent=65537, key_size=4096)
    priv = key.private_numbers()
    pub = priv.public_numbers
    jwk = {
        "kty": "RSA",
        "e": enc(pub.e),
        "n": enc(pub.n),
        "d": enc(priv.d),
        "p": enc(priv.p),
        "q": enc(priv.q),
        "dp": enc(priv.dmp1),
        "dq": enc(priv.dmq1),
        "qi": enc(priv.iqmp),
    }
    path.write_text(json.dumps(jwk), encoding="utf-8")
    path.chmod(0o600)
    return path


def wallet_address(path: Path) -> str:
    from clawql_git.sync.arweave_tx import Wallet

    return Wallet.load(path).address


def pattern(size: int) -> bytes:
    """Deterministic, non-repeating bytes (crosscheck.js makes the same): sha256 blocks of
    ``clawql-arweave-<i>``. Non-repeating matters: arlocal serves chunks deduplicated."""
    blocks = (hashlib.sha256(b"clawql-arweave-%d" % i).digest() for i in range((size + 31) // 32))
    return b"".join(blocks)[:size]


def run_node(*args: str, stdin: str | None = None) -> dict[str, object]:
    """Run ``tests/arlocal/crosscheck.js`` (arweave-js) and parse its JSON answer."""
    out = subprocess.run(
        ["node", str(ARLOCAL_DIR / "crosscheck.js"), *args],
        cwd=ARLOCAL_DIR,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.fixture(scope="session")
def arlocal_installed() -> Path:
    """tests/arlocal with its packages, installed by ``npm ci`` on first use. Without node, or
    when npm fails (offline, no cache), skip with the reason; under CI (`CLAWQL_CI=1`) fail, so
    a broken install can never pass as skipped tests."""
    reason = install_arlocal()
    if reason:
        skip_or_fail(reason)
    return ARLOCAL_DIR


def _serve(db: Path, automine: bool = False) -> Iterator[ArLocal]:
    """An arlocal on ``db`` for as long as the fixture that yields from it lives."""
    server = ArLocal(db, automine=automine)
    yield server
    server.stop()


def _funded_wallet(tmp_path_factory: pytest.TempPathFactory, server: ArLocal) -> Path:
    """A throwaway wallet, funded on ``server``."""
    path = make_wallet(tmp_path_factory.mktemp("wallet") / "wallet.json")
    server.mint(wallet_address(path))
    return path


@pytest.fixture(scope="module")
def arlocal(tmp_path_factory: pytest.TempPathFactory, arlocal_installed: Path) -> Iterator[ArLocal]:
    """A fresh arlocal for the test module (mine with ``arlocal.mine()``)."""
    yield from _serve(tmp_path_factory.mktemp("arlocal-db") / "db")


@pytest.fixture(scope="module")
def arweave_wallet(tmp_path_factory: pytest.TempPathFactory, arlocal: ArLocal) -> Path:
    """A throwaway wallet, funded on the module's arlocal."""
    return _funded_wallet(tmp_path_factory, arlocal)


@pytest.fixture(scope="module")
def arlocal_automine(
    tmp_path_factory: pytest.TempPathFactory, arlocal_installed: Path
) -> Iterator[ArLocal]:
    """An arlocal that mines a block after every transaction (as if the network were fast):
    for code that waits for its transactions to be mined."""
    yield from _serve(tmp_path_factory.mktemp("arlocal-auto-db") / "db", automine=True)


@pytest.fixture(scope="module")
def automine_wallet(tmp_path_factory: pytest.TempPathFactory, arlocal_automine: ArLocal) -> Path:
    """A throwaway wallet, funded on the module's automining arlocal."""
    return _funded_wallet(tmp_path_factory, arlocal_automine)
